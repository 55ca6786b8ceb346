// Package rollouttest holds a fixture for the tests of the scaffold
// pipeline stages (cards, control, validate): real trajectories of the
// built-in household environment whose groups mix oracle and random
// episodes, so that a group's success rate can be steered between 0 and 1.
//
// The rows are what `rollout` writes for the same flags: the random
// episodes are samples 0..group-nOracle-1 of each group and the oracle
// episodes follow them, so every (task, sample) pair occurs once. Same
// arguments, same rows.
package rollouttest

import (
	"context"
	"testing"

	"github.com/pats-rl/pats/lib/rollout"
	"github.com/pats-rl/pats/lib/stage/play"
	"github.com/pats-rl/pats/lib/table"
)

// Tasks is the number of household train tasks Household plays.
const Tasks = 12

// Household plays iteration k on the first Tasks household train tasks with
// groups of group episodes, nOracle of each group by the oracle and the rest
// by the random policy, with the scaffold snapshot file snap rendered into
// the context ("" for none; the default scaffold budget and context). The
// seed is 100+k. Any error fails the test.
func Household(t testing.TB, k, nOracle, group int, snap string) []table.Trajectory {
	t.Helper()
	f := play.Options{Env: "household", Split: "train", Tasks: Tasks, Group: group, Seed: int64(100 + k),
		Policy: "random", Iteration: k, Scaffold: snap, ScaffoldBudget: play.DefaultScaffoldBudget, PolicyOptions: play.PolicyOptions{MaxContext: play.DefaultMaxContext}}
	ep, err := f.Resolve(context.Background())
	o := ep.Options
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
