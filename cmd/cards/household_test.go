package main

import (
	"context"
	"testing"

	"github.com/pats-rl/pats/lib/rollout"
	"github.com/pats-rl/pats/lib/table"
)

// household plays iteration k on 12 household train tasks with groups of
// `group` episodes, nOracle of each group by the oracle and the rest by the
// random policy (so a group's success rate lies between 0 and 1), with the
// scaffold snapshot snap rendered into the context ("" for none).
func household(t *testing.T, k, nOracle, group int, snap string) []table.Trajectory {
	t.Helper()
	f := rollout.Flags{Env: "household", Split: "train", Tasks: 12, Group: group, Seed: int64(100 + k),
		Policy: "random", Iteration: k, Scaffold: snap, ScaffoldBudget: 400, MaxContext: 4096}
	o, err := f.Options()
	if err != nil {
		t.Fatal(err)
	}
	var rows []table.Trajectory
	if nOracle < group {
		o.Group = group - nOracle
		r, err := rollout.Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r...)
	}
	if nOracle > 0 {
		o.Group = nOracle
		o.Policy = rollout.TextPolicy{PolicyName: "oracle", New: o.Env.Oracle}
		r, err := rollout.Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		for i := range r {
			r[i].Sample += int32(group - nOracle)
		}
		rows = append(rows, r...)
	}
	return rows
}
