package pipelines

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
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

// makeVariables lists the variables the makefiles define (from make's
// database, make -pn) and those they define with ?= (which a variable of
// the environment overrides).
func makeVariables(t *testing.T, root, runs string) (defined, defaults []string) {
	cmd := exec.Command("make", "-pn", "--no-print-directory", "-C", root, "settings", "RUNS="+runs, "RUN=plain-s1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("make -pn: %v", err)
	}
	name := regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*) :?= `)
	seen := map[string]bool{}
	lines := strings.Split(string(out), "\n")
	for i := 1; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i-1], "# makefile (from '") {
			continue
		}
		if m := name.FindStringSubmatch(lines[i]); m != nil && !seen[m[1]] {
			seen[m[1]] = true
			defined = append(defined, m[1])
		}
	}
	files, _ := filepath.Glob(filepath.Join(root, "pipelines", "*.mk"))
	more, _ := filepath.Glob(filepath.Join(root, "*", "*.mk"))
	files = append(append(files, filepath.Join(root, "Makefile")), more...)
	cond := regexp.MustCompile(`(?m)^(?:export )?([A-Za-z_][A-Za-z0-9_]*)[ \t]*\?=`)
	seenDefault := map[string]bool{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range cond.FindAllStringSubmatch(string(b), -1) {
			if !seenDefault[m[1]] {
				seenDefault[m[1]] = true
				defaults = append(defaults, m[1])
			}
		}
	}
	sort.Strings(defined)
	sort.Strings(defaults)
	return defined, defaults
}

// TestMakeGuardEveryVariable gives every variable the makefiles define a
// value that would run a command where a recipe (or make itself) expands
// it: on the command line each one, and in the environment each one the
// makefiles give a default with ?=. make -n must refuse each with one line
// naming the variable while it reads the makefiles, and nothing runs. A
// variable of the environment the makefiles never name is left alone.
func TestMakeGuardEveryVariable(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Fatal("make is needed")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	runs := filepath.Join(tmp, "runs")
	defined, defaults := makeVariables(t, root, runs)
	for _, want := range []string{"KL", "GRPO_LR", "MAX_CONTEXT", "SFT_LR", "EVAL_TASKS", "READING_HISTORY", "GO"} {
		if !slices.Contains(defined, want) || !slices.Contains(defaults, want) {
			t.Fatalf("make's database misses %s: the list is not what the makefiles define", want)
		}
	}
	marker := filepath.Join(tmp, "EXECUTED")
	type run struct {
		v   string
		env bool
	}
	var runsToDo []run
	for _, v := range defined {
		// the guard's own (pats_*) are defined with override: a value
		// given for them is ignored, which the last case below checks
		if v != "RUNS" && !strings.HasPrefix(v, "MAKE") && !strings.HasPrefix(v, "pats_") {
			runsToDo = append(runsToDo, run{v, false})
		}
	}
	for _, v := range defaults {
		if v != "RUNS" {
			runsToDo = append(runsToDo, run{v, true})
		}
	}
	sem := make(chan struct{}, 2)
	var wg sync.WaitGroup
	var mu sync.Mutex
	for _, r := range runsToDo {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			args := []string{"-n", "--no-print-directory", "-C", root, "pats", "RUNS=" + runs, "RUN=plain-s1"}
			cmd := exec.Command("make")
			cmd.Dir = tmp
			if r.env {
				cmd.Env = append(os.Environ(), r.v+"=4096; touch "+marker+"; true")
			} else {
				args = append(args, r.v+"=$(shell touch "+marker+")")
			}
			cmd.Args = append(cmd.Args, args...)
			out, err := cmd.CombinedOutput()
			// refused with one line naming the variable, or (a variable
			// of the environment that the makefiles set themselves) its
			// value reaches no recipe
			refused := err != nil && strings.Count(strings.TrimSpace(string(out)), "\n") == 0 &&
				(strings.Contains(string(out), "*** "+r.v+" holds a shell character") || strings.Contains(string(out), "*** "+r.v+" must be a whole number"))
			unused := r.env && err == nil && !strings.Contains(string(out), marker)
			if !refused && !unused {
				mu.Lock()
				t.Errorf("make -n pats with %s hostile (environment: %v): err %v, output %.300q; want one line refusing %s", r.v, r.env, err, out, r.v)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("a hostile value ran its command")
	}
	if got := listTree(t, runs); got != nil {
		t.Errorf("make -n wrote under RUNS: %v", got)
	}
	// The guard's own variables cannot be replaced to switch it off.
	cmd := exec.Command("make", "-n", "--no-print-directory", "-C", root, "pats", "RUNS="+runs, "RUN=plain-s1",
		"pats_bad_chars=", "pats_refuse=", "pats_named=", "KL=$(shell touch "+marker+")")
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "KL holds a shell character") {
		t.Errorf("make -n pats with the guard's functions emptied: err %v, output %.300q; want KL refused", err, out)
	}
	// make's list of makefiles, which the guard reads, is make's own; a
	// plain reference to a variable stays allowed (READING_BASE=$(RUNS)/x).
	cmd = exec.Command("make", "-n", "--no-print-directory", "-C", root, "pats", "RUNS="+runs, "RUN=plain-s1",
		"MAKEFILE_LIST=$(shell touch "+marker+")")
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "MAKEFILE_LIST is make's own") {
		t.Errorf("make -n pats MAKEFILE_LIST=...: err %v, output %.300q; want it refused", err, out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("MAKEFILE_LIST's value ran its command")
	}
	cmd = exec.Command("make", "-n", "--no-print-directory", "-C", root, "settings", "RUNS="+runs, "RUN=plain-s1",
		"READING_BASE=$(RUNS)/base-x", "READING_SHIPPED=$(READING_E1_SHIPPED)")
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("make -n settings with plain references: %v\n%.300s", err, out)
	}
	// An environment variable the makefiles never name is not theirs to judge.
	cmd = exec.Command("make", "-n", "--no-print-directory", "-C", root, "settings", "RUNS="+runs, "RUN=plain-s1")
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "PATS_UNRELATED_SETTING=a; b", "LS_COLORS=*.tar=01;31")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("make -n settings with an unrelated variable of the environment: %v\n%s", err, out)
	}
}
