package pipelines

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestSubmitSweepArraySize: submit-sweep.sh sizes the Slurm array from the
// variant and seed lists (every variant of sweep.mk by default), so no
// (variant, seed) pair is dropped. sbatch is a stand-in that prints its
// arguments.
func TestSubmitSweepArraySize(t *testing.T) {
	root := repoRoot(t)
	fake := t.TempDir()
	if err := os.WriteFile(filepath.Join(fake, "sbatch"), []byte("#!/bin/sh\necho \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	mk, err := os.ReadFile(filepath.Join(root, "pipelines", "sweep.mk"))
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	for _, l := range strings.Split(string(mk), "\n") {
		if v, ok := strings.CutPrefix(l, "ALL_VARIANTS := "); ok {
			all = strings.Fields(v)
		}
	}
	if len(all) < 13 {
		t.Fatalf("sweep.mk lists %d variants", len(all))
	}
	cases := []struct {
		variants, seeds, want string
	}{
		{"", "", "--array=0-" + itoa(len(all)*3-1)},
		{"pats grpo static", "1 2", "--array=0-5"},
		{"pats", "7", "--array=0-0"},
	}
	for _, c := range cases {
		cmd := exec.Command("bash", filepath.Join(root, "pipelines", "slurm", "submit-sweep.sh"))
		cmd.Env = append(os.Environ(), "PATH="+fake+":"+os.Getenv("PATH"), "VARIANTS="+c.variants, "SEEDS="+c.seeds, "SBATCH_OPTS=")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("VARIANTS=%q SEEDS=%q: %v\n%s", c.variants, c.seeds, err, out)
		}
		if !strings.Contains(string(out), c.want+" ") {
			t.Errorf("VARIANTS=%q SEEDS=%q: sbatch %s; want %s", c.variants, c.seeds, out, c.want)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
