package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/table"
)

// plotRun makes a run folder report plots can draw: one evaluation.
func plotRun(t *testing.T) string {
	run := filepath.Join(t.TempDir(), "run")
	p := filepath.Join(run, "eval", "0", "bare-valid_seen.parquet")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	rows := []table.EvalMetrics{{Split: "valid_seen", Scope: table.ScopeAll, Episodes: 4, Success: 0.5}}
	if err := table.WriteFile(p, rows, table.Meta{}); err != nil {
		t.Fatal(err)
	}
	return run
}

// TestPlotsOutputRefused: report plots writes through no link and into
// no folder the run reads, and an output that is not a folder is bad
// usage (exit 2, one line), with nothing written anywhere.
func TestPlotsOutputRefused(t *testing.T) {
	cases := []struct {
		name string
		make func(t *testing.T, run string) (args []string, untouched string)
		msg  string
	}{
		{"-o /dev/full", func(t *testing.T, run string) ([]string, string) {
			return []string{"-o", "/dev/full"}, ""
		}, "not a folder but a device"},
		{"plots linked to an outside folder", func(t *testing.T, run string) ([]string, string) {
			outside := t.TempDir()
			if err := os.Symlink(outside, filepath.Join(run, "plots")); err != nil {
				t.Fatal(err)
			}
			return nil, outside
		}, "is a symbolic link"},
		{"success.png linked to another file", func(t *testing.T, run string) ([]string, string) {
			victim := filepath.Join(t.TempDir(), "victim")
			if err := os.WriteFile(victim, []byte("keep"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(filepath.Join(run, "plots"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(victim, filepath.Join(run, "plots", "success.png")); err != nil {
				t.Fatal(err)
			}
			return nil, filepath.Dir(victim)
		}, "holds the symbolic link success.png"},
		{"-o RUN/eval", func(t *testing.T, run string) ([]string, string) {
			return []string{"-o", filepath.Join(run, "eval")}, filepath.Join(run, "eval")
		}, "inside the input folder"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			run := plotRun(t)
			extra, untouched := c.make(t, run)
			var before []string
			if untouched != "" {
				before = tree(t, untouched)
			}
			code, msg := runArgs(t, append([]string{"plots", run}, extra...)...)
			if code != command.ExitUsage || !strings.Contains(msg, c.msg) || strings.Count(strings.TrimSpace(msg), "\n") != 0 {
				t.Errorf("exit %d %q; want exit 2 and one line with %q", code, msg, c.msg)
			}
			if untouched != "" && strings.Join(tree(t, untouched), "\n") != strings.Join(before, "\n") {
				t.Errorf("%s changed: %v, was %v", untouched, tree(t, untouched), before)
			}
		})
	}
}

// TestFullStdoutFails: report settings and report plots fail when stdout
// cannot be written (/dev/full).
func TestFullStdoutFails(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Fatal("/dev/full is needed")
	}
	defer full.Close()
	run := plotRun(t)
	vars := filepath.Join(t.TempDir(), "vars")
	if err := os.WriteFile(vars, []byte("SEED=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, msg := runArgs(t, "settings", "--from", vars, "-o", filepath.Join(run, "settings.json")); code != 0 {
		t.Fatalf("report settings --from: exit %d %q", code, msg)
	}
	for _, args := range [][]string{{"settings", run}, {"plots", run}} {
		saved := os.Stdout
		os.Stdout = full
		code, msg := runArgs(t, args...)
		os.Stdout = saved
		if code == command.ExitOK || !strings.Contains(msg, "stdout") {
			t.Errorf("report %v > /dev/full: exit %d %q, want a failure naming stdout", args, code, msg)
		}
	}
}

func runArgs(t *testing.T, args ...string) (int, string) { t.Helper(); return run(t, args...) }

// tree lists every path under dir with its size.
func tree(t *testing.T, dir string) []string {
	var out []string
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil {
			out = append(out, p+" "+fi.Mode().String())
		}
		return nil
	})
	return out
}
