package main

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pats-rl/pats/lib/table"
)

// TestRunColumns: the metrics carry run, iteration and seed as columns
// (--run, --iteration, --seed), the overall row is marked by scope with a
// NULL task type, and what is unknown is NULL: the oracle's temperature,
// and the run of trajectories evaluated without --run.
func TestRunColumns(t *testing.T) {
	dir := t.TempDir()
	metrics, traj := filepath.Join(dir, "m.parquet"), filepath.Join(dir, "t.parquet")
	if code, stderr := run(t, "--policy", "oracle", "--env", "household", "--split", "valid_seen", "--tasks", "3",
		"--run", "r1", "--iteration", "4", "--seed", "5", "-o", metrics, "--trajectories", traj); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	type cols struct {
		Run, Scope, TaskType string
		Iteration            *int32
		Seed                 *int64
		Temperature          *float64
	}
	read := func(path string) []cols {
		rows, _, err := table.ReadFiles[table.EvalMetrics](path)
		if err != nil {
			t.Fatal(err)
		}
		var out []cols
		for _, r := range rows {
			c := cols{r.Run, r.Scope, r.TaskType, r.Iteration, r.Seed, r.Temperature}
			if r.Scope == table.ScopeType {
				c.TaskType = "-" // any type
			}
			out = append(out, c)
		}
		return out[:2]
	}
	it, seed := int32(4), int64(5)
	want := []cols{{"r1", "all", "", &it, &seed, nil}, {"r1", "type", "-", &it, &seed, nil}}
	if diff := cmp.Diff(want, read(metrics)); diff != "" {
		t.Errorf("with --policy (-want +got):\n%s", diff)
	}
	// From the kept trajectories: their run and iteration, the file's
	// seed; --run names another run.
	again := filepath.Join(dir, "again.parquet")
	for _, c := range []struct {
		args []string
		run  string
	}{{nil, "r1"}, {[]string{"--run", "r2"}, "r2"}} {
		if code, stderr := run(t, append([]string{traj, "-o", again}, c.args...)...); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		w := []cols{{c.run, "all", "", &it, &seed, nil}, {c.run, "type", "-", &it, &seed, nil}}
		if diff := cmp.Diff(w, read(again)); diff != "" {
			t.Errorf("from trajectories %v (-want +got):\n%s", c.args, diff)
		}
	}
}
