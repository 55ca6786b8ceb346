package report

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/pats-rl/pats/lib/table"
)

// writeRows writes rows to dir/name, making the folder.
func writeRows[T any](t *testing.T, dir, name string, rows []T) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := table.WriteFile(p, rows, table.Meta{}); err != nil {
		t.Fatal(err)
	}
}

// writeLift writes lift/K.parquet with an overall row of the given lift
// and a type row whose lift the sweep table must not read.
func writeLift(t *testing.T, dir string, k int, lift float64) {
	with := 0.5 + lift/2
	writeRows(t, dir, "lift/"+itoa(k)+".parquet", []table.ScaffoldLift{
		{Iteration: int32(k), Scope: table.ScopeAll, Tasks: 2, Episodes: 8, SuccessWith: with, SuccessWithout: with - lift, Lift: lift, LiftLo: lift - 0.1, LiftHi: lift + 0.1},
		{Iteration: int32(k), Scope: table.ScopeType, TaskType: "t1", Tasks: 1, Episodes: 4, SuccessWith: 1, SuccessWithout: 0, Lift: 1, LiftLo: 1, LiftHi: 1},
	})
}

// writeTruth writes truth/K.parquet and truth/K-rules.parquet: verdicts
// of the items, and which of the rules (kind per rule) are stated.
func writeTruth(t *testing.T, dir string, k int, verdicts []string, kinds []string, stated []bool) {
	var items []table.ItemTruth
	for i, v := range verdicts {
		items = append(items, table.ItemTruth{Iteration: int32(k), ItemID: "i" + itoa(i), Layer: "task", TaskType: "t1", Text: "x", Verdict: v})
	}
	writeRows(t, dir, "truth/"+itoa(k)+".parquet", items)
	var rules []table.RuleRecall
	for i, kind := range kinds {
		r := table.RuleRecall{Iteration: int32(k), TaskType: "t" + itoa(i), Kind: kind, Text: "rule", Stated: stated[i]}
		if stated[i] {
			r.Items = []string{"i0"}
		}
		rules = append(rules, r)
	}
	writeRows(t, dir, "truth/"+itoa(k)+"-rules.parquet", rules)
}

// writeGroups writes traj/K.parquet with two groups of two episodes; the
// first allFail groups fail in every episode, the others succeed once.
func writeGroups(t *testing.T, dir string, k, allFail int) {
	var trajs []table.Trajectory
	for g := 0; g < 2; g++ {
		for s := 0; s < 2; s++ {
			ok := g >= allFail && s == 0
			r := 0.0
			if ok {
				r = 1
			}
			trajs = append(trajs, table.Trajectory{Iteration: int32(k), Env: "e", Split: "train", TaskID: "task" + itoa(g), TaskType: "t1",
				GroupID: itoa(k) + ":" + itoa(g), Sample: int32(s), Policy: "p", Success: ok, Reward: r})
		}
	}
	writeRows(t, dir, "traj/"+itoa(k)+".parquet", trajs)
}

var nan = math.NaN()

func TestSweepMechanism(t *testing.T) {
	root := t.TempDir()
	a, b, c := filepath.Join(root, "pats-s1"), filepath.Join(root, "pats-s2"), filepath.Join(root, "grpo-s1")
	// pats seed 1: lift at 0 (B_0, left out), 1, 2 and 6; truth at 2 and 6
	// (the last counts); iteration 0 has one all-failure group of ten.
	writeLift(t, a, 0, 0)
	writeLift(t, a, 1, 0.1)
	writeLift(t, a, 2, -0.2)
	writeLift(t, a, 6, 0.3)
	writeTruth(t, a, 2, []string{table.VerdictTrue, table.VerdictFalse, table.VerdictNotJudgeable}, []string{"place", "place", "tool"}, []bool{true, false, false})
	writeTruth(t, a, 6, []string{table.VerdictTrue, table.VerdictTrue, table.VerdictNotJudgeable}, []string{"place", "place", "tool"}, []bool{true, true, false})
	for k := 0; k < EarlyIterations; k++ {
		writeGroups(t, a, k, map[bool]int{true: 1}[k == 0])
	}
	// pats seed 2: one lift, no truth, only four early iterations (no share).
	writeLift(t, b, 1, 0.3)
	for k := 0; k < EarlyIterations-1; k++ {
		writeGroups(t, b, k, 2)
	}
	// grpo seed 1: no audits; two all-failure groups of ten.
	for k := 0; k < EarlyIterations; k++ {
		writeGroups(t, c, k, map[bool]int{true: 1}[k < 2])
	}
	runs := []SweepRun{{Variant: "pats", Seed: 1, Run: a}, {Variant: "grpo", Seed: 1, Run: c}, {Variant: "pats", Seed: 2, Run: b}}
	got, err := AggregateMechanism(runs, []string{"pats", "grpo", "static"})
	if err != nil {
		t.Fatal(err)
	}
	early1, all1 := (0.1-0.2)/2, (0.1-0.2+0.3)/3
	want := []SweepMechanism{
		{Variant: "pats", Seeds: 2, Audited: 2,
			LiftEarly: (early1 + 0.3) / 2, LiftEarlyStd: 0.2474873734,
			LiftAll: (all1 + 0.3) / 2, LiftAllStd: 0.1649915823,
			Positive: (2.0/3 + 1) / 2, PositiveStd: 0.2357022604,
			Judged: 1, Precision: 1, PrecisionRuns: 1, Recall: 2.0 / 3, Place: 2, PlaceOf: 2,
			AllFail: 0.1, AllFailRuns: 1},
		{Variant: "grpo", Seeds: 1, LiftEarly: nan, LiftEarlyStd: nan, LiftAll: nan, LiftAllStd: nan, Positive: nan, PositiveStd: nan,
			Precision: nan, PrecisionStd: nan, Recall: nan, RecallStd: nan, Place: nan, PlaceStd: nan, AllFail: 0.2, AllFailRuns: 1},
	}
	if d := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-9), cmpopts.EquateNaNs()); d != "" {
		t.Errorf("AggregateMechanism (-want +got):\n%s", d)
	}
	var md bytes.Buffer
	WriteSweepMechanismMarkdown(&md, got)
	for _, line := range []string{
		"| pats | 2 | 2 | +0.125 ± 0.247 | +0.183 ± 0.165 | 0.83 ± 0.24 | 1.00 ± 0.00 | 0.67 ± 0.00 | 2.0 ± 0.0 of 2 | 0.100 ± 0.000 |",
		"| grpo | 1 | 0 | — | — | — | — | — | — | 0.200 ± 0.000 |",
	} {
		if !strings.Contains(md.String(), line+"\n") {
			t.Errorf("markdown lacks %q:\n%s", line, md.String())
		}
	}
	md.Reset()
	WriteSweepMechanismMarkdown(&md, got[1:])
	if md.Len() != 0 {
		t.Errorf("a sweep without audits has a mechanism table:\n%s", md.String())
	}
}
