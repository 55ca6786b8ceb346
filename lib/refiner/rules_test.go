package refiner

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pats-rl/pats/lib/control"
	"github.com/pats-rl/pats/lib/scaffold"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/validate"
)

// side is one side of a hand-made card: features with their shares.
type side map[string]float64

// handCard makes a card of nS successful and nF failed episodes with the
// given feature shares on each side and failure modes.
func handCard(id, typ string, nS, nF int32, succ, fail side, modes map[string]int32) table.Card {
	c := table.Card{CardID: id, TaskType: typ, GroupID: id, Iteration: 3, NEpisodes: nS + nF, NSuccess: nS,
		SuccessRate: float64(nS) / float64(nS+nF), SuccessFeatures: []string{}, SuccessFreqs: []float64{},
		FailureFeatures: []string{}, FailureFreqs: []float64{}, FailureModes: []string{}, FailureModeCounts: []int32{}}
	for _, f := range sortedKeys(succ) {
		c.SuccessFeatures = append(c.SuccessFeatures, f)
		c.SuccessFreqs = append(c.SuccessFreqs, succ[f])
	}
	for _, f := range sortedKeys(fail) {
		c.FailureFeatures = append(c.FailureFeatures, f)
		c.FailureFreqs = append(c.FailureFreqs, fail[f])
	}
	for _, m := range sortedKeys(modes) {
		c.FailureModes = append(c.FailureModes, m)
		c.FailureModeCounts = append(c.FailureModeCounts, modes[m])
	}
	return c
}

// propose runs the rule-based refiner on one scope and validates the
// proposals (all must be accepted); it returns them and the next snapshot.
func propose(t *testing.T, prim, scope string, cards []table.Card, items []table.ScaffoldItem) ([]table.Proposal, []table.ScaffoldItem) {
	t.Helper()
	co := control.DefaultOptions()
	mi, mt := co.Caps(scope)
	res, err := NewRuleBased().Propose(context.Background(), Input{Iteration: 3, TaskType: scope, Primitive: prim,
		Cards: cards, Items: items, Quota: co.ExpandQuota, MaxItems: mi, MaxTokens: mt})
	if err != nil {
		t.Fatal(err)
	}
	next, dec := validate.Apply(items, res.Proposals, cards, validate.Options{Iteration: 3, Limits: co.Limits})
	for i, d := range dec {
		if !d.Accepted {
			t.Errorf("%s proposal %+v rejected: %s %s", prim, res.Proposals[i], d.Reason, d.Message)
		}
	}
	return res.Proposals, next
}

// rlCards are three heat cards from household-rl: successful episodes took
// the object from a drawer and heated it on the stoveburner; failed ones
// looked in cabinets and tried the microwave.
func rlCards(typ string) []table.Card {
	var cs []table.Card
	for i := 0; i < 3; i++ {
		cs = append(cs, handCard(fmt.Sprintf("c-3-%s-%d", typ, i), typ, 4, 4,
			side{"source:drawer": 1, "heat:stoveburner": 1, "visited:cabinet": 0.25, "action:take": 1},
			side{"source:drawer": 0.25, "source:cabinet": 0.5, "visited:cabinet": 1, "visited:microwave": 1, "action:take": 0.75, "failure:invalid_action": 1},
			map[string]int32{"invalid_action": 4}))
	}
	return cs
}

// TestRuleExpandSlots: EXPAND turns the contrast into rules in the words a
// base reads ("Look in the drawer first.", the stoveburner rule), in the
// Task layer of the type, and the dominant failure into a Mistake item.
func TestRuleExpandSlots(t *testing.T) {
	props, next := propose(t, scaffold.Expand, heat, rlCards(heat), nil)
	got := map[string]string{}
	for _, p := range props {
		got[p.Text] = p.Layer
		if p.Op != "add" || len(p.Support) != 3 {
			t.Errorf("proposal %+v", p)
		}
	}
	want := map[string]string{
		"Look in the drawer first.":                               scaffold.LayerTask,
		"Heat the object with the stoveburner before placing it.": scaffold.LayerTask,
		"Only send actions from the admissible list.":             scaffold.LayerMistake,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("EXPAND proposals (-want +got):\n%s", diff)
	}
	if len(next) != 3 {
		t.Errorf("snapshot %+v", next)
	}
}

// TestRuleGeneralLayer: a place that holds in 2 of 6 types stays out of
// the General layer and goes to the Task layer of those types; a tool that
// holds in every type that shows it, but only 2 of the 6 types there are,
// stays out too (a General item is read in every type's episodes); a place
// that holds in 4 of the 6 types and a failure rule that holds in all go
// to the General layer.
func TestRuleGeneralLayer(t *testing.T) {
	types := []string{"t1", "t2", "t3", "t4", "t5", "t6"}
	places := []string{"drawer", "drawer", "drawer", "drawer", "cabinet", "cabinet"}
	var cards []table.Card
	for i, typ := range types {
		succ := side{"milestone:took_target": 1, "source:" + places[i]: 1}
		fail := side{"milestone:took_target": 0.25, "source:" + places[i]: 0.25, "failure:loop": 1}
		if i >= 4 { // a tool of two types' successes
			succ["heat:stoveburner"], fail["heat:stoveburner"] = 1, 0.25
		}
		for k := 0; k < 2; k++ {
			cards = append(cards, handCard(fmt.Sprintf("c-3-%s-%d", typ, k), typ, 4, 4, succ, fail, map[string]int32{"loop": 4}))
		}
	}
	props, _ := propose(t, scaffold.Expand, "", cards, nil)
	var texts []string
	for _, p := range props {
		texts = append(texts, p.Text)
		if p.Layer != scaffold.LayerGeneral {
			t.Errorf("general scope proposed %+v", p)
		}
	}
	want := []string{"Do not repeat the same action again and again; try a new place.", "Look in the drawer first."}
	if diff := cmp.Diff(want, texts); diff != "" {
		t.Errorf("general proposals (-want +got):\n%s", diff)
	}
	if len(props) == 2 && !strings.HasSuffix(props[1].Rationale, "holds in 4 of the evidence's 6 task types") {
		t.Errorf("rationale %q", props[1].Rationale)
	}
	// The type-specific facts go to the Task layer of a type where they hold.
	props, _ = propose(t, scaffold.Expand, "t5", cards, nil)
	got := map[string]bool{}
	for _, p := range props {
		got[p.Text+" ("+p.Layer+")"] = true
	}
	for _, w := range []string{"Look in the cabinet first. (task)", "Heat the object with the stoveburner before placing it. (task)"} {
		if !got[w] {
			t.Errorf("t5 EXPAND lacks %s: %+v", w, props)
		}
	}
}

// TestRuleReviseCorrects: REVISE changes the content of rules the evidence
// contradicts (a place, a tool, even one an old template wrote), and
// leaves rules without a slot alone.
func TestRuleReviseCorrects(t *testing.T) {
	items := []table.ScaffoldItem{
		it("t-h-1", scaffold.LayerTask, heat, "Look in the cabinet first.", 1, "old1", "old2"),
		it("t-h-2", scaffold.LayerTask, heat, "Heat the object with the microwave before placing it.", 1, "old1", "old2"),
		it("t-h-3", scaffold.LayerTask, heat, "Open closed receptacles to look inside them.", 1, "old1", "old2"),
	}
	props, next := propose(t, scaffold.Revise, heat, rlCards(heat), items)
	byID := map[string]string{}
	for _, x := range next {
		byID[x.ID] = x.Text
	}
	want := map[string]string{
		"t-h-1": "Look in the drawer first.",
		"t-h-2": "Heat the object with the stoveburner before placing it.",
		"t-h-3": "Open closed receptacles to look inside them.",
	}
	if diff := cmp.Diff(want, byID); diff != "" {
		t.Errorf("snapshot after REVISE (-want +got):\n%s\nproposals %+v", diff, props)
	}
	for _, p := range props[:2] {
		if p.Op != "edit" || !strings.HasPrefix(p.Rationale, "corrected ") || len(p.Support) != 3 {
			t.Errorf("correction %+v", p)
		}
	}
	// The item's own value holds: nothing to correct.
	own := []table.ScaffoldItem{it("t-h-1", scaffold.LayerTask, heat, "Look in the drawer first.", 1, "c-3-pick_heat_then_place_in_recep-0")}
	res, err := NewRuleBased().Propose(context.Background(), Input{Iteration: 3, TaskType: heat, Primitive: scaffold.Revise, Cards: rlCards(heat), Items: own})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Proposals {
		if p.Text != own[0].Text {
			t.Errorf("a rule whose own value holds was changed: %+v", p)
		}
	}
}

// cardAt is handCard at iteration k.
func cardAt(k int32, id, typ string, nS, nF int32, succ, fail side, modes map[string]int32) table.Card {
	c := handCard(id, typ, nS, nF, succ, fail, modes)
	c.Iteration = k
	return c
}

// TestRules: EXPAND's rules on one task type's cards, case by case.
func TestRules(t *testing.T) {
	three := func(nS, nF int32, succ, fail side, modes map[string]int32) []table.Card {
		var cs []table.Card
		for i := 0; i < 3; i++ {
			cs = append(cs, handCard(fmt.Sprintf("c-3-%s-%d", cool, i), cool, nS, nF, succ, fail, modes))
		}
		return cs
	}
	cases := []struct {
		name  string
		cards []table.Card
		want  map[string]string // text -> layer
	}{
		{"shared by successes and failures: the choice rule keeps it",
			// source:cabinet in the one success of each card and in 5 of
			// its 6 failures: a contrast of 0.17 only
			three(1, 6, side{"source:cabinet": 1, "cool:fridge": 1}, side{"source:cabinet": 5.0 / 6, "failure:max_steps": 1}, map[string]int32{"max_steps": 6}),
			map[string]string{"Look in the cabinet first.": scaffold.LayerTask, "Cool the object with the fridge before placing it.": scaffold.LayerTask,
				"Do not waste steps on places you have already visited.": scaffold.LayerMistake}},
		{"no success at all: failures that got far",
			three(0, 8, side{}, side{"source:cabinet": 0.5, "source:drawer": 0.125, "failure:loop": 1}, map[string]int32{"loop": 8}),
			map[string]string{"Look in the cabinet first.": scaffold.LayerTask,
				"Do not repeat the same action again and again; try a new place.": scaffold.LayerMistake}},
		{"successes favour another value: no place",
			three(2, 6, side{"source:drawer": 1}, side{"source:cabinet": 1}, map[string]int32{}),
			map[string]string{}},
		{"no dominant value: no place",
			three(2, 6, side{"source:drawer": 0.5, "source:cabinet": 0.5}, side{"source:drawer": 0.5, "source:cabinet": 0.5}, map[string]int32{}),
			map[string]string{}},
		{"milestones, visited places and receptacles make no item",
			three(2, 6, side{"milestone:took_target": 1, "visited:sofa": 1, "recep:shelf": 1}, side{}, map[string]int32{}),
			map[string]string{}},
		{"a tool every episode uses, successes and failures alike, makes no rule",
			three(2, 6, side{"heat:stoveburner": 1}, side{"heat:stoveburner": 1}, map[string]int32{}),
			map[string]string{}},
		{"a tool successes use more than failures makes its rule",
			three(2, 6, side{"heat:stoveburner": 1}, side{"heat:stoveburner": 0.5}, map[string]int32{}),
			map[string]string{"Heat the object with the stoveburner before placing it.": scaffold.LayerTask}},
		{"a tool a third of the successes use on the way makes no rule",
			// seed 1 of the s48 sweep, iteration 1: "heat:stoveburner in
			// 2/6 successes" made a heat rule for a clean task; the world
			// has one heating tool, so the value always has the whole slot
			three(3, 9, side{"source:cabinet": 1, "heat:stoveburner": 1.0 / 3}, side{"source:cabinet": 5.0 / 9, "heat:stoveburner": 1.0 / 9}, map[string]int32{}),
			map[string]string{"Look in the cabinet first.": scaffold.LayerTask}},
		{"no success, a tool one failure in eight used: no rule",
			// seed 1, iteration 11: "clean:sinkbasin in 0/0 successes and
			// 2/32 failures" made a clean rule for pick_two_obj_and_place
			three(0, 8, side{}, side{"source:cabinet": 0.5, "clean:sinkbasin": 0.125}, map[string]int32{}),
			map[string]string{"Look in the cabinet first.": scaffold.LayerTask}},
		{"an action makes no item, even one that separates",
			three(2, 6, side{"action:heat": 1, "action:take": 1}, side{"action:take": 0.9}, map[string]int32{}),
			map[string]string{}},
		{"a contrast too rare among successes",
			three(4, 4, side{"action:open": 0.25}, side{}, map[string]int32{}),
			map[string]string{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			props, _ := propose(t, scaffold.Expand, cool, c.cards, nil)
			got := map[string]string{}
			for _, p := range props {
				got[p.Text] = p.Layer
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("EXPAND (-want +got):\n%s\n%+v", diff, props)
			}
		})
	}
}

// TestRuleStatistic: a proposal states the counts behind its rule, the
// iterations and cards they come from and the smoothed figure tested;
// cards of earlier iterations count with weight Decay per iteration.
func TestRuleStatistic(t *testing.T) {
	cards := []table.Card{
		cardAt(2, "c-2-cool-0", cool, 1, 7, side{"source:cabinet": 1}, side{"source:cabinet": 3.0 / 7}, nil),
		cardAt(3, "c-3-cool-0", cool, 2, 6, side{"source:cabinet": 1}, side{"source:cabinet": 0.5, "source:drawer": 1.0 / 6}, nil),
	}
	props, _ := propose(t, scaffold.Expand, cool, cards, nil)
	// weights: cabinet 0.7*(1 + 0.5*3) + (2 + 0.5*3) = 5.25, drawer 0.5:
	// share 5.25/5.75
	want := []table.Proposal{{ProposalID: "p-3-" + cool + "-01", Iteration: 3, TaskType: cool, Primitive: scaffold.Expand, Op: "add",
		Targets: []string{}, Layer: scaffold.LayerTask, Text: "Look in the cabinet first.", Support: []string{"c-2-cool-0", "c-3-cool-0"}, Refiner: "builtin",
		Rationale: "source:cabinet in 3/3 successes and 6/13 failures over iterations 2-3, 2 cards (smoothed share 0.91 of the source values, failures weighted 0.50); cites 2 cards"}}
	if diff := cmp.Diff(want, props); diff != "" {
		t.Errorf("proposals (-want +got):\n%s", diff)
	}
}

// TestRuleSmoothing: a type seen in one card per iteration gets its rule
// from the window's cards (none from one iteration alone); cards older
// than the window do not count; REVISE corrects a rule that newer evidence
// contradicts, which older evidence, weighted alike, would not.
func TestRuleSmoothing(t *testing.T) {
	drawer := func(k int32, i int) table.Card {
		return cardAt(k, fmt.Sprintf("c-%d-cool-%d", k, i), cool, 2, 6, side{"source:drawer": 1}, side{"source:drawer": 0.5}, nil)
	}
	cabinet := func(k int32, i int) table.Card {
		return cardAt(k, fmt.Sprintf("c-%d-cool-%d", k, i), cool, 2, 6, side{"source:cabinet": 1}, side{"source:cabinet": 0.5}, nil)
	}
	expand := func(cards []table.Card, k int32, window int) []string {
		res, err := NewRuleBased().Propose(context.Background(), Input{Iteration: k, TaskType: cool, Primitive: scaffold.Expand, Cards: cards, Window: window})
		if err != nil {
			t.Fatal(err)
		}
		var texts []string
		for _, p := range res.Proposals {
			texts = append(texts, p.Text+" <- "+strings.Join(p.Support, ","))
		}
		return texts
	}
	one := []table.Card{cabinet(3, 0)}
	if got := expand(one, 3, 0); len(got) != 0 {
		t.Errorf("one card: %v", got)
	}
	window := []table.Card{drawer(0, 0), drawer(0, 1), cabinet(1, 0), cabinet(2, 0), cabinet(3, 0)}
	want := []string{"Look in the cabinet first. <- c-1-cool-0,c-2-cool-0,c-3-cool-0"}
	if diff := cmp.Diff(want, expand(window, 3, 0)); diff != "" {
		t.Errorf("three iterations (-want +got):\n%s", diff)
	}
	if got := expand(window, 3, 1); len(got) != 0 {
		t.Errorf("a window of one iteration: %v", got)
	}
	// REVISE: drawer at iteration 1, cabinet at 3.
	cards := []table.Card{drawer(1, 0), drawer(1, 1), cabinet(3, 0), cabinet(3, 1)}
	items := []table.ScaffoldItem{it("t-c-1", scaffold.LayerTask, cool, "Look in the drawer first.", 1, "c-1-cool-0", "c-1-cool-1")}
	for _, c := range []struct {
		decay float64
		want  string
	}{{0.7, "Look in the cabinet first."}, {1, "Look in the drawer first."}} {
		b := NewRuleBased()
		b.Decay = c.decay
		res, err := b.Propose(context.Background(), Input{Iteration: 3, TaskType: cool, Primitive: scaffold.Revise, Cards: cards, Items: items})
		if err != nil {
			t.Fatal(err)
		}
		next, dec := validate.Apply(items, res.Proposals, cards, validate.Options{Iteration: 3, Limits: scaffold.DefaultLimits()})
		for _, d := range dec {
			if !d.Accepted {
				t.Errorf("decay %g: %+v", c.decay, d)
			}
		}
		if next[0].Text != c.want {
			t.Errorf("decay %g: REVISE left %q, want %q (%+v)", c.decay, next[0].Text, c.want, res)
		}
	}
}

// TestNoReviseIsAnAblation: with the REVISE primitive disabled, the
// controller's NONE in the REVISE band leaves the contradicted rule as it
// is, while the full loop corrects it: the snapshots differ.
func TestNoReviseIsAnAblation(t *testing.T) {
	items := []table.ScaffoldItem{it("t-h-1", scaffold.LayerTask, heat, "Look in the cabinet first.", 1, "old1", "old2")}
	cards := rlCards(heat)
	texts := map[string]string{}
	for _, prims := range []string{"all", "no-revise"} {
		o := control.DefaultOptions()
		var err error
		if o.Enabled, err = scaffold.ParsePrimitives(prims); err != nil {
			t.Fatal(err)
		}
		// smoothed success 0.5: in the REVISE band
		prim := control.Choose(0.5, 1, 10, 12, 400, o)
		res, err := NewRuleBased().Propose(context.Background(), Input{Iteration: 3, TaskType: heat, Primitive: prim, Cards: cards, Items: items})
		if err != nil {
			t.Fatal(err)
		}
		next, _ := validate.Apply(items, res.Proposals, cards, validate.Options{Iteration: 3, Limits: o.Limits})
		texts[prims] = next[0].Text
	}
	if texts["all"] != "Look in the drawer first." || texts["no-revise"] != "Look in the cabinet first." {
		t.Errorf("texts %v", texts)
	}
}

// TestSlotTemplates: the slot features' templates.
func TestSlotTemplates(t *testing.T) {
	b := NewRuleBased()
	for f, want := range map[string]string{
		"source:drawer":    "Look in the drawer first.",
		"heat:stoveburner": "Heat the object with the stoveburner before placing it.",
		"cool:fridge":      "Cool the object with the fridge before placing it.",
		"clean:sinkbasin":  "Clean the object in the sinkbasin before placing it.",
	} {
		if got := b.Text(f); got != want {
			t.Errorf("Text(%q) = %q, want %q", f, got, want)
		}
		p, v, ok := b.slotValue(want)
		if fp, fv := splitFeature(f); !ok || p != fp || v != fv {
			t.Errorf("slotValue(%q) = %q %q %v", want, p, v, ok)
		}
	}
	// Every slot template of DefaultTemplates gives back the value it was
	// filled with, a value of two words included, whatever punctuation ends
	// the template's head ("failure:" of the failure template).
	for _, k := range sortedKeys(DefaultTemplates) {
		tm := DefaultTemplates[k]
		if !strings.HasSuffix(k, ":") || !strings.Contains(tm, "{value}") || strings.Contains(tm, "{prefix}") {
			continue
		}
		f := k + "took_target"
		text := b.Text(f)
		p, v, ok := b.slotValue(text)
		// slotValue tries prefixes in name order: a text may fill an earlier
		// template with the same head and tail ("action:" has none here)
		if !ok || p != strings.TrimSuffix(k, ":") || v != "took target" {
			t.Errorf("slotValue(%q) from %s = %q %q %v, want %q \"took target\"", text, f, p, v, ok, strings.TrimSuffix(k, ":"))
		}
	}
	// a text an old template wrote is read as its slot
	if p, v, ok := b.slotValue("Heat the object with the microwave before placing it."); !ok || p != "heat" || v != "microwave" {
		t.Errorf("slotValue(old action:heat text) = %q %q %v", p, v, ok)
	}
	if _, _, ok := b.slotValue("Open closed receptacles to look inside them."); ok {
		t.Error("a rule without a slot matched one")
	}
}

// TestMergeKeepsDifferentRules: two items filling a template with
// different values share most of their words but are different rules:
// never merged; the same rule in other words is.
func TestMergeKeepsDifferentRules(t *testing.T) {
	cards := rlCards(heat)
	cases := []struct {
		name   string
		a, b   string
		merged bool
	}{
		{"heat and cool", "Heat the object with the stoveburner before placing it.", "Cool the object with the fridge before placing it.", false},
		{"two places", "Look in the drawer first.", "Look in the cabinet first.", false},
		{"one rule, two wordings", "Heat the object with the stoveburner before placing it.", "Heat the object with the stoveburner before you place it.", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			items := []table.ScaffoldItem{it("t-h-1", scaffold.LayerTask, heat, c.a, 1, "old1"), it("t-h-2", scaffold.LayerTask, heat, c.b, 1, "old2")}
			res, err := NewRuleBased().Propose(context.Background(), Input{Iteration: 3, TaskType: heat, Primitive: scaffold.Compress, Cards: cards, Items: items})
			if err != nil {
				t.Fatal(err)
			}
			merged := false
			for _, p := range res.Proposals {
				merged = merged || p.Op == "merge"
			}
			if merged != c.merged {
				t.Errorf("merged %v, want %v: %+v", merged, c.merged, res.Proposals)
			}
		})
	}
}
