package report

import (
	"bytes"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pats-rl/pats/lib/table"
)

// writeFadeRun writes a run folder of iters iterations: lift/K with the
// given scaffold tokens and success with / without, state/K with one scope
// given primitive prims[K], decisions/K deleting one item under it, and
// at iteration 1 a truth audit with a false general item (when falseAt1)
// beside traj/1's four episodes, three of them scaffolded.
func writeFadeRun(t *testing.T, dir string, tokens, with, bare []float64, prims []string, falseAt1 bool) {
	t.Helper()
	for k := range tokens {
		writeRows(t, dir, "lift/"+itoa(k)+".parquet", []table.ScaffoldLift{{Iteration: int32(k), Scope: table.ScopeAll, Tasks: 2, Episodes: 8,
			ScaffoldTokens: tokens[k], SuccessWith: with[k], SuccessWithout: bare[k], Lift: with[k] - bare[k]}})
		writeRows(t, dir, "state/"+itoa(k)+".parquet", []table.ControllerState{{TaskType: "t1", Iteration: int32(k), Primitive: prims[k]}})
		writeRows(t, dir, "decisions/"+itoa(k)+".parquet", []table.Decision{
			{ProposalID: "p", Iteration: int32(k), TaskType: "t1", Primitive: prims[k], Op: "delete", Accepted: true, Reason: "ok", ItemID: "i"},
			{ProposalID: "q", Iteration: int32(k), TaskType: "t1", Primitive: prims[k], Op: "delete", Accepted: false, Reason: "x", ItemID: "j"},
		})
	}
	verdict := table.VerdictTrue
	if falseAt1 {
		verdict = table.VerdictFalse
	}
	writeRows(t, dir, "truth/1.parquet", []table.ItemTruth{{Iteration: 1, ItemID: "g", Layer: "general", Text: "x", Verdict: verdict}})
	var eps []table.Trajectory
	for s := 0; s < 4; s++ {
		tok := int32(10)
		if s == 3 {
			tok = 0
		}
		eps = append(eps, table.Trajectory{Iteration: 1, Env: "e", Split: "train", TaskID: "a", TaskType: "t1", GroupID: "1:a",
			Sample: int32(s), Policy: "p", NScaffoldTokens: tok})
	}
	writeRows(t, dir, "traj/1.parquet", eps)
}

func TestSweepFade(t *testing.T) {
	root := t.TempDir()
	a, b := filepath.Join(root, "pats-s1"), filepath.Join(root, "pats-s2")
	// seven iterations: blocks 0-4 and 5-6
	writeFadeRun(t, a, []float64{0, 10, 20, 30, 40, 10, 0}, []float64{.1, .2, .3, .4, .5, .6, .7}, []float64{.1, .1, .2, .3, .4, .6, .7},
		[]string{"EXPAND", "EXPAND", "COMPRESS", "COMPRESS", "REVISE", "FORCED_PRUNE", "NONE"}, true)
	writeFadeRun(t, b, []float64{0, 0, 0, 0, 0, 0, 0}, []float64{.1, .1, .1, .1, .1, .3, .3}, []float64{.1, .1, .1, .1, .1, .1, .1},
		[]string{"EXPAND", "EXPAND", "EXPAND", "EXPAND", "EXPAND", "FORCED_PRUNE", "FORCED_PRUNE"}, false)
	runs := []SweepRun{{Variant: "pats", Seed: 1, Run: a}, {Variant: "pats", Seed: 2, Run: b}, {Variant: "grpo", Seed: 1, Run: filepath.Join(root, "none")}}
	rows, err := AggregateFade(runs, []string{"pats", "grpo"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 {
		t.Fatalf("want one row (grpo's run has no files), got %d", len(rows))
	}
	r := rows[0]
	round := func(xs []float64) []float64 {
		out := make([]float64, len(xs))
		for i, x := range xs {
			out[i] = math.Round(x*1000) / 1000
		}
		return out
	}
	// run a: block means 20 and 5 tokens, with .3/.65, bare .22/.65; run b: 0/0, .1/.3, .1/.1
	if diff := cmp.Diff([]float64{10, 2.5}, round(r.Tokens)); diff != "" {
		t.Errorf("tokens by block (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]float64{0.2, 0.475}, round(r.With)); diff != "" {
		t.Errorf("success with by block (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]float64{0.16, 0.375}, round(r.Bare)); diff != "" {
		t.Errorf("bare success by block (-want +got):\n%s", diff)
	}
	if r.Runs != 2 || r.Compress != 1 || r.Prune != 1.5 || r.CompressDel != 1 || r.PruneDel != 1.5 {
		t.Errorf("counts: runs %d compress %g prune %g deleted %g %g, want 2 1 1.5 1 1.5", r.Runs, r.Compress, r.Prune, r.CompressDel, r.PruneDel)
	}
	// exposure: run a 3 of 3 scaffolded episodes, run b 0 of 3
	if r.ExposedRuns != 2 || r.Exposed != 0.5 {
		t.Errorf("exposure %g over %d runs, want 0.5 over 2", r.Exposed, r.ExposedRuns)
	}
	var buf bytes.Buffer
	WriteSweepFadeMarkdown(&buf, rows)
	if !strings.Contains(buf.String(), "| pats | 2 | 10.0 | 0.200 / 0.160 | 2.5 | 0.475 / 0.375 |") {
		t.Errorf("fade table:\n%s", buf.String())
	}
}
