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
