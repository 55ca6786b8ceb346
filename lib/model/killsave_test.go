package model

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/pats-rl/pats/lib/output"
)

// The child side of TestCheckpointReplaceKilled: it saves the "new"
// checkpoint over PATS_KILL_DIR and kills itself with SIGKILL just before
// the step PATS_KILL_STEP of the replacement.
func TestMain(m *testing.M) {
	if dir := os.Getenv("PATS_KILL_DIR"); dir != "" {
		step := os.Getenv("PATS_KILL_STEP")
		output.SetTestHook(func(s string) error {
			if s == step {
				syscall.Kill(os.Getpid(), syscall.SIGKILL)
				select {}
			}
			return nil
		}, os.Getenv("PATS_KILL_ASIDE") == "1")
		m, err := New(Tiny(50), 2)
		if err == nil {
			err = m.Save(dir, nil)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestCheckpointReplaceKilled kills a process replacing a checkpoint just
// before each step of the replacement, in both the exchange and the
// rename-aside sequences, and checks that the name then always loads, as
// the old or the new checkpoint, and that the next save leaves no
// temporaries behind.
func TestCheckpointReplaceKilled(t *testing.T) {
	oldM, err := New(Tiny(50), 1)
	if err != nil {
		t.Fatal(err)
	}
	newM, err := New(Tiny(50), 2)
	if err != nil {
		t.Fatal(err)
	}
	steps := map[string][]string{
		"exchange": {"staged", "exchange", "remove-old", "none"},
		"aside":    {"staged", "rename-aside", "rename-new", "remove-old", "none"},
	}
	for mode, list := range steps {
		for _, step := range list {
			t.Run(mode+"/"+step, func(t *testing.T) {
				root := t.TempDir()
				dir := filepath.Join(root, "ck")
				if err := oldM.Save(dir, nil); err != nil {
					t.Fatal(err)
				}
				cmd := exec.Command(os.Args[0], "-test.run=^$")
				cmd.Env = append(os.Environ(), "PATS_KILL_DIR="+dir, "PATS_KILL_STEP="+step)
				if mode == "aside" {
					cmd.Env = append(cmd.Env, "PATS_KILL_ASIDE=1")
				}
				err := cmd.Run()
				killed := err != nil && strings.Contains(err.Error(), "killed")
				if step == "none" && err != nil || step != "none" && !killed {
					t.Fatalf("child: %v", err)
				}
				got, err := Load(dir)
				if err != nil {
					t.Fatalf("after a kill before %s: %v", step, err)
				}
				isOld := slices.Equal(got.Embed.W, oldM.Embed.W)
				isNew := slices.Equal(got.Embed.W, newM.Embed.W)
				if !isOld && !isNew {
					t.Fatalf("after a kill before %s: neither the old nor the new weights", step)
				}
				wantNew := step == "remove-old" || step == "none"
				if wantNew != isNew {
					t.Errorf("after a kill before %s: new %v, want %v", step, isNew, wantNew)
				}
				if err := newM.Save(dir, nil); err != nil {
					t.Fatal(err)
				}
				ents, _ := os.ReadDir(root)
				if len(ents) != 1 {
					var names []string
					for _, e := range ents {
						names = append(names, e.Name())
					}
					t.Errorf("left after the next save: %v", names)
				}
			})
		}
	}
}
