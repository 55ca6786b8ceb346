package pipelines

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// listTree lists every path under dir (nil when dir is missing).
func listTree(t *testing.T, dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// TestMakeDryRunHostile runs make -n over the pipelines with hostile
// values of the variables that reach a shell: each is refused with one
// line while the makefiles are read, nothing is executed (no marker file
// appears), and nothing is written inside or outside RUNS. A safe value
// beside them dry-runs and writes nothing either.
func TestMakeDryRunHostile(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Fatal("make is needed")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	marker := filepath.Join(tmp, "EXECUTED")
	runs := filepath.Join(tmp, "runs")
	touch := "touch " + marker
	before := listTree(t, root)
	for _, c := range []struct {
		goal, assign, want string
	}{
		{"pats", "RUN=x; " + touch, "RUN holds a shell character"},
		{"pats", "RUN=a b", "RUN must be a folder under RUNS"},
		{"pats", "RUN=../escaped", "RUN must be a folder under RUNS"},
		{"pats", "RUN=/tmp/escaped", "RUN must be a folder under RUNS"},
		{"pats", "RUN=$(shell " + touch + ")", "RUN holds a shell character"},
		{"pats", "RUNS=" + runs + "/`" + touch + "`", "RUNS holds a shell character"},
		{"pats", "SEED=1$$(" + touch + ")", "SEED must be a whole number"},
		{"pats", "ITERS=1 ; " + touch, "ITERS must be a whole number"},
		{"pats", "ROLLOUT_FLAGS=--seed 1; " + touch, "ROLLOUT_FLAGS holds a shell character"},
		{"pats", "CONTROL_FLAGS=--x 'y' && " + touch, "CONTROL_FLAGS holds a shell character"},
		{"pats", "SFT_FLAGS=--x\n" + touch, "SFT_FLAGS holds a shell character"},
		{"sweep", "SWEEP=" + runs + "/s; " + touch, "SWEEP holds a shell character"},
		{"sweep", "SEEDS=1 2|" + touch, "SEEDS holds a shell character"},
		{"settings", "EVAL_FLAGS=$(" + touch + ")", "EVAL_FLAGS holds a shell character"},
	} {
		cmd := exec.Command("make", "-n", "--no-print-directory", "-C", root, c.goal, "RUNS="+runs, c.assign)
		cmd.Dir = tmp
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), c.want) {
			t.Errorf("make -n %s %q: err %v, output %q; want a refusal with %q", c.goal, c.assign, err, out, c.want)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("make -n %s %q executed the injected command", c.goal, c.assign)
		}
	}
	// a plain dry run of a run and of a sweep writes nothing
	for _, goal := range []string{"pats", "settings"} {
		cmd := exec.Command("make", "-n", "--no-print-directory", "-C", root, goal, "RUNS="+runs, "RUN=plain-s1",
			"CONTROL_FLAGS=--endpoint http://127.0.0.1:1/v1") // a URL with user:password is refused (TestPipelineCredentials)
		cmd.Dir = tmp
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("make -n %s: %v\n%s", goal, err, out)
		}
	}
	if got := listTree(t, runs); got != nil {
		t.Errorf("make -n wrote under RUNS: %v", got)
	}
	if got := listTree(t, tmp); len(got) != 1 {
		t.Errorf("make -n wrote beside RUNS: %v", got)
	}
	if after := listTree(t, root); strings.Join(after, "\n") != strings.Join(before, "\n") {
		t.Errorf("make -n changed the repository: %d paths before, %d after", len(before), len(after))
	}
}
