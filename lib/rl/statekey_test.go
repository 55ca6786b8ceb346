package rl

import (
	"testing"

	"github.com/pats-rl/pats/lib/env"
	"github.com/pats-rl/pats/lib/rollout"
	"github.com/pats-rl/pats/lib/rollout/episodetest"
	"github.com/pats-rl/pats/lib/table"
)

// anchorShare is the share of turns in a GiGPO step group of two or more
// (same group, same key), with key giving turn k's key.
func anchorShare(rows []table.Trajectory, key func(r *table.Trajectory, k int) string) float64 {
	n := map[string]int{}
	turns, shared := 0, 0
	for i := range rows {
		for k := range rows[i].StepKeys {
			n[rows[i].GroupID+"|"+key(&rows[i], k)]++
			turns++
		}
	}
	for i := range rows {
		for k := range rows[i].StepKeys {
			if n[rows[i].GroupID+"|"+key(&rows[i], k)] >= 2 {
				shared++
			}
		}
	}
	return float64(shared) / float64(turns)
}

// TestStateKeySplitsStates: on a real household rollout (the random
// policy, whose invalid actions all answer "Nothing happens."), the
// environment's state keys split step groups that the bare observation
// text merged: some observation-text group holds turns of different
// states, and the share of turns that share a key with another turn of
// their group drops.
func TestStateKeySplitsStates(t *testing.T) {
	p := rollout.TextPolicy{PolicyName: "random", New: env.RandomAgent}
	rows, err := episodetest.Household(p, 4, 4, 3, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	text := func(r *table.Trajectory, k int) string { return env.StateKey(r.Observations[k]) }
	state := func(r *table.Trajectory, k int) string { return r.StepKeys[k] }
	states := map[string]map[string]bool{}
	for i := range rows {
		for k := range rows[i].StepKeys {
			g := rows[i].GroupID + "|" + text(&rows[i], k)
			if states[g] == nil {
				states[g] = map[string]bool{}
			}
			states[g][state(&rows[i], k)] = true
		}
	}
	merged := 0
	for _, s := range states {
		if len(s) > 1 {
			merged++
		}
	}
	before, after := anchorShare(rows, text), anchorShare(rows, state)
	t.Logf("%d observation-text step groups, %d of them merging different states; share of turns sharing a key %.3f (text) -> %.3f (state)", len(states), merged, before, after)
	if merged == 0 || !(after < before) {
		t.Errorf("%d merged groups, share %.3f -> %.3f; want merged groups split and a lower share", merged, before, after)
	}
}
