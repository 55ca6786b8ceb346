package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/table"
)

func run(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var stderr bytes.Buffer
	code := command.Run(app(), append([]string{"report"}, args...), &stderr)
	return code, stderr.String()
}

func TestMix(t *testing.T) {
	dir := t.TempDir()
	a, b, out := filepath.Join(dir, "a.parquet"), filepath.Join(dir, "b.parquet"), filepath.Join(dir, "out.parquet")
	row := func(sample int32, ok bool) table.Trajectory {
		return table.Trajectory{GroupID: "-1:t1", TaskID: "t1", TaskType: "x", Iteration: -1, Sample: sample, Success: ok}
	}
	if err := table.WriteFile(a, []table.Trajectory{row(0, true), row(1, true)}, table.Meta{Seed: 5}); err != nil {
		t.Fatal(err)
	}
	if err := table.WriteFile(b, []table.Trajectory{row(0, false), row(1, false)}, table.Meta{Seed: 5}); err != nil {
		t.Fatal(err)
	}
	if code, msg := run(t, "mix", a, b, "-o", out); code != 0 {
		t.Fatalf("mix: exit %d: %s", code, msg)
	}
	rows, metas, err := table.ReadFiles[table.Trajectory](out)
	if err != nil {
		t.Fatal(err)
	}
	var samples []int32
	for _, r := range rows {
		samples = append(samples, r.Sample)
	}
	if len(rows) != 4 || samples[2] != 2 || samples[3] != 3 || rows[2].Success {
		t.Errorf("mixed samples %v", samples)
	}
	if metas[0].Seed != 5 || len(metas[0].Inputs) != 2 || metas[0].Command == "" {
		t.Errorf("metadata %+v", metas[0])
	}
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"mix", filepath.Join(dir, "none.parquet"), "-o", filepath.Join(dir, "o.parquet")}, 2, "none.parquet"},
		{[]string{"run", filepath.Join(dir, "nothing")}, 2, "not a run folder"},
		{[]string{"sweep", "--root", dir, "--variants", "pats", "--seeds", "1"}, 2, "pats-s1: not a run folder"},
		{[]string{"sweep", "--root", dir, "--variants", "pats", "--seeds", "x"}, 2, "not a number"},
		{[]string{"compare", "runs/x"}, 2, "LABEL=DIR"},
		{[]string{"iteration", dir, "x"}, 2, "not a count"},
	}
	for _, c := range cases {
		code, msg := run(t, c.args...)
		if code != c.code || !strings.Contains(msg, c.msg) {
			t.Errorf("report %v: exit %d %q; want exit %d and %q", c.args, code, msg, c.code, c.msg)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "o.parquet")); err == nil {
		t.Error("a failed mix wrote its output")
	}
	// --partial lists what is missing instead of failing.
	if code, msg := run(t, "sweep", "--partial", "--root", dir, "--variants", "pats", "--seeds", "1"); code != 0 {
		t.Errorf("sweep --partial: exit %d: %s", code, msg)
	}
}

// TestPlotsBadInput: a sweep or run whose file is missing or corrupt gives
// one line naming it, exit 2, and no plot folder.
func TestPlotsBadInput(t *testing.T) {
	evalRow := func(split string) []table.EvalMetrics {
		return []table.EvalMetrics{{Split: split, Scope: table.ScopeAll, Episodes: 4, Success: 0.5}}
	}
	// sweep: pats-s1 finished, pats-s2 with its final valid_unseen
	// evaluation corrupt; a run folder with a corrupt snapshot; a sweep
	// whose run lacks summary.md
	sweep, runDir, unfinished := t.TempDir(), t.TempDir(), t.TempDir()
	write := func(p string, rows []table.EvalMetrics) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := table.WriteFile(p, rows, table.Meta{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range []string{filepath.Join(sweep, "pats-s1"), filepath.Join(sweep, "pats-s2"), filepath.Join(unfinished, "grpo-s1")} {
		for _, s := range []string{"valid_seen", "valid_unseen"} {
			write(filepath.Join(r, "eval", "0", "bare-"+s+".parquet"), evalRow(s))
		}
		if !strings.HasPrefix(r, unfinished) {
			if err := os.WriteFile(filepath.Join(r, "summary.md"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	corrupt := filepath.Join(sweep, "pats-s2", "eval", "0", "bare-valid_unseen.parquet")
	if err := os.WriteFile(corrupt, []byte("not parquet"), 0o644); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(runDir, "eval", "0", "bare-valid_seen.parquet"), evalRow("valid_seen"))
	snap := filepath.Join(runDir, "snap", "0.parquet")
	if err := os.MkdirAll(filepath.Dir(snap), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(snap, []byte("PAR1 truncated"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		out  string // the plot folder that must not exist
		msg  string
	}{
		{[]string{"plots", sweep}, filepath.Join(sweep, "plots"), corrupt},
		{[]string{"plots", sweep, "--variants", "pats", "--seeds", "2", "-o", filepath.Join(sweep, "p")}, filepath.Join(sweep, "p"), corrupt},
		{[]string{"plots", runDir}, filepath.Join(runDir, "plots"), snap},
		{[]string{"plots", unfinished}, filepath.Join(unfinished, "plots"), "grpo-s1: no summary.md"},
		{[]string{"plots", sweep, "--variants", "grpo", "--seeds", "1"}, filepath.Join(sweep, "plots"), "grpo-s1: not a run folder"},
		{[]string{"plots", filepath.Join(sweep, "none")}, filepath.Join(sweep, "none", "plots"), "none: not a run or sweep folder"},
	}
	for _, c := range cases {
		code, msg := run(t, c.args...)
		if code != 2 || !strings.Contains(msg, c.msg) || strings.Count(strings.TrimSpace(msg), "\n") != 0 {
			t.Errorf("report %v: exit %d %q; want exit 2 and one line with %q", c.args, code, msg, c.msg)
		}
		if _, err := os.Stat(c.out); err == nil {
			t.Errorf("report %v left %s", c.args, c.out)
		}
	}
	// --partial draws the unfinished run as far as it goes, with the finished one.
	// pats-s2, cut short: no summary.md and no valid_unseen evaluation
	// (the corrupt file goes).
	for _, p := range []string{filepath.Join(sweep, "pats-s2", "summary.md"), corrupt} {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	if code, msg := run(t, "plots", sweep, "--partial"); code != 0 || !strings.Contains(msg, "unfinished runs drawn as far as they go: pats seed 2") {
		t.Errorf("plots --partial: exit %d: %s; want exit 0 and pats seed 2 named", code, msg)
	}
	if _, err := os.Stat(filepath.Join(sweep, "plots", "success-valid_seen.png")); err != nil {
		t.Errorf("plots --partial: %v", err)
	}
}
