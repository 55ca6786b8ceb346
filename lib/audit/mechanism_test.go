package audit

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pats-rl/pats/lib/env"
	_ "github.com/pats-rl/pats/lib/env/household"
	"github.com/pats-rl/pats/lib/table"
)

// ep is one episode of task id (type typ), sample s, with the scaffold
// tokens n.
func ep(id, typ string, s int32, ok bool, n int32) table.Trajectory {
	return table.Trajectory{TaskID: id, TaskType: typ, GroupID: "g-" + id, Sample: s, Seed: int64(100 + s), Success: ok, NScaffoldTokens: n, Iteration: 3}
}

func TestLift(t *testing.T) {
	// Two tasks of type a (4 episodes each), one of type b.
	var with, without []table.Trajectory
	add := func(id, typ string, w, o []bool) {
		for i := range w {
			with = append(with, ep(id, typ, int32(i), w[i], 20))
			without = append(without, ep(id, typ, int32(i), o[i], 0))
		}
	}
	add("t1", "a", []bool{true, true, false, false}, []bool{false, false, false, false})
	add("t2", "a", []bool{true, true, true, true}, []bool{true, false, false, false})
	add("t3", "b", []bool{false, false, false, false}, []bool{true, false, false, false})
	rows, err := Lift(with, without)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || rows[0].Scope != table.ScopeAll || rows[1].TaskType != "a" || rows[2].TaskType != "b" {
		t.Fatalf("rows %+v: want all, a, b", rows)
	}
	all := rows[0]
	// per-task differences: 0.5, 0.75, -0.25 -> mean 1/3
	if math.Abs(all.Lift-1.0/3) > 1e-12 || all.SuccessWith != 6.0/12 || all.SuccessWithout != 2.0/12 {
		t.Errorf("all: lift %v, with %v, without %v; want 1/3, 0.5, 1/6", all.Lift, all.SuccessWith, all.SuccessWithout)
	}
	if all.LiftLo < -0.25 || all.LiftHi > 0.75 || all.LiftLo > all.Lift || all.LiftHi < all.Lift {
		t.Errorf("all: interval [%v, %v] not within the per-task range around %v", all.LiftLo, all.LiftHi, all.Lift)
	}
	if all.AllFailWith != 1.0/3 || all.AllFailWithout != 1.0/3 || all.ScaffoldTokens != 20 || all.Tasks != 3 || all.Episodes != 12 {
		t.Errorf("all: %+v", all)
	}
	if b := rows[2]; b.Lift != -0.25 || b.LiftLo != -0.25 || b.LiftHi != -0.25 {
		t.Errorf("b: a single task's lift and interval: %+v, want -0.25 throughout", b)
	}
	again, _ := Lift(with, without)
	if diff := cmp.Diff(rows, again); diff != "" {
		t.Errorf("Lift is not deterministic:\n%s", diff)
	}
}

func TestLiftRefuses(t *testing.T) {
	w := []table.Trajectory{ep("t1", "a", 0, true, 5)}
	cases := map[string][]table.Trajectory{
		"missing twin":         {ep("t1", "a", 1, true, 0)},
		"scaffold on the bare": {ep("t1", "a", 0, true, 5)},
		"another seed":         {func() table.Trajectory { e := ep("t1", "a", 0, true, 0); e.Seed = 9; return e }()},
		"more episodes":        {ep("t1", "a", 0, true, 0), ep("t1", "a", 1, true, 0)},
	}
	for name, bare := range cases {
		if _, err := Lift(w, bare); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestTruth(t *testing.T) {
	e, err := env.Open("household-rl")
	if err != nil {
		t.Fatal(err)
	}
	const cool = "pick_cool_then_place_in_recep"
	items := []table.ScaffoldItem{
		{ID: "g1", Layer: "general", Text: "Look in the drawer first."},
		{ID: "g2", Layer: "general", Text: "Do not repeat the same action again and again; try a new place."},
		{ID: "t1", Layer: "task", TaskType: cool, Text: "Look in the cabinet first."},
		{ID: "t2", Layer: "task", TaskType: cool, Text: "Cool the object with the fridge before placing it."},
		{ID: "t3", Layer: "task", TaskType: "pick_heat_then_place_in_recep", Text: "Heat the object with the microwave before placing it."},
		{ID: "m1", Layer: "mistake", TaskType: cool, Text: "Do not look in the countertop first."},
	}
	verdicts, rules, err := Truth(e, 4, items)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, v := range verdicts {
		got[v.ItemID] = v.Verdict
		if v.Iteration != 4 {
			t.Errorf("%s: iteration %d", v.ItemID, v.Iteration)
		}
	}
	want := map[string]string{"g1": "false", "g2": "not_judgeable", "t1": "true", "t2": "true", "t3": "false", "m1": "true"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
	if len(rules) != 9 {
		t.Fatalf("household-rl has %d rules, want 9 (6 places, 3 tools)", len(rules))
	}
	stated := map[string][]string{}
	for _, r := range rules {
		if r.Stated {
			stated[r.TaskType+": "+r.Text] = r.Items
		}
	}
	wantStated := map[string][]string{
		cool + ": Look in the cabinet first.":                         {"t1"},
		cool + ": Cool the object with the fridge before placing it.": {"t2"},
	}
	if diff := cmp.Diff(wantStated, stated); diff != "" {
		t.Errorf("stated rules (-want +got):\n%s", diff)
	}
	s := Summarise(verdicts, rules)
	if s.Judgeable != 5 || s.True != 3 || s.Stated != 2 || math.Abs(s.Precision-0.6) > 1e-12 || math.Abs(s.Recall-2.0/9) > 1e-12 {
		t.Errorf("summary %+v", s)
	}
}

// An environment that does not judge answers not judgeable and has no rules.
func TestTruthNotJudgeable(t *testing.T) {
	e, err := env.Open("shop")
	if err != nil {
		t.Fatal(err)
	}
	v, r, err := Truth(e, 0, []table.ScaffoldItem{{ID: "g1", Layer: "general", Text: "Search with the key words of the instruction."}})
	if err != nil {
		t.Fatal(err)
	}
	if len(v) != 1 || v[0].Verdict != table.VerdictNotJudgeable || len(r) != 0 {
		t.Errorf("shop: %+v %+v", v, r)
	}
	if s := Summarise(v, r); !math.IsNaN(s.Precision) || !math.IsNaN(s.Recall) {
		t.Errorf("shop: precision %v recall %v, want NaN", s.Precision, s.Recall)
	}
}
