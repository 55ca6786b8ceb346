package refiner

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pats-rl/pats/lib/card"
	"github.com/pats-rl/pats/lib/card/cardtest"
	"github.com/pats-rl/pats/lib/control"
	"github.com/pats-rl/pats/lib/scaffold"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/validate"
)

// The two task types of the episodes of cardtest.Episodes these tests use.
const heat, cool = cardtest.Heat, cardtest.Cool

func build(t *testing.T, trajs []table.Trajectory) ([]table.Card, []table.TypeEvidence) {
	t.Helper()
	c, e, err := card.Build(trajs, card.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return c, e
}

func it(id, layer, typ, text string, updated int32, sup ...string) table.ScaffoldItem {
	if sup == nil {
		sup = []string{}
	}
	return table.ScaffoldItem{ID: id, Layer: layer, TaskType: typ, Text: text, Updated: updated, Support: sup, Tokens: int32(scaffold.WordCount(text))}
}

// run proposes for one scope and validates; it fails the test on any
// rejection and returns the proposals and next snapshot.
func run(t *testing.T, prim, scope string, cards []table.Card, ev []table.TypeEvidence, items []table.ScaffoldItem) ([]table.Proposal, []table.ScaffoldItem) {
	t.Helper()
	e, _ := card.EvidenceFor(ev, scope, 3)
	co := control.DefaultOptions()
	mi, mt := co.Caps(scope)
	in := Input{Iteration: 3, TaskType: scope, Primitive: prim, Evidence: e, Cards: cards, Items: items,
		Quota: co.ExpandQuota, MaxItems: mi, MaxTokens: mt}
	res, err := NewRuleBased().Propose(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Proposals) == 0 {
		t.Fatalf("%s: no proposals (%s)", prim, res.Reason)
	}
	next, dec := validate.Apply(items, res.Proposals, cards, validate.Options{Iteration: 3, Limits: co.Limits})
	for i, d := range dec {
		if !d.Accepted {
			t.Errorf("%s proposal %+v rejected: %s %s", prim, res.Proposals[i], d.Reason, d.Message)
		}
	}
	if err := scaffold.Check(next, scaffold.WordCount); err != nil {
		t.Fatal(err)
	}
	// determinism
	res2, _ := NewRuleBased().Propose(context.Background(), in)
	if fmt.Sprint(res2) != fmt.Sprint(res) {
		t.Fatal("the rule-based refiner is not deterministic")
	}
	return res.Proposals, next
}

func TestRuleBasedExpand(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	cards, ev := build(t, cardtest.Episodes(r, heat, "heat", 4, 0.3))
	props, next := run(t, scaffold.Expand, heat, cards, ev, nil)
	var texts []string
	got := map[string]string{}
	for _, p := range props {
		texts = append(texts, p.Text)
		got[p.Text] = p.Layer
		if p.Op != "add" || len(p.Support) < 2 {
			t.Fatalf("proposal %+v", p)
		}
	}
	// The dominant failure; not the heat or take actions (no template: an
	// action states no more than the admissible list), not the apple (both
	// sides alike), not the milestone (the task text names it already).
	want := map[string]string{
		"Do not repeat the same action again and again; try a new place.": scaffold.LayerMistake,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("EXPAND (-want +got):\n%s", diff)
	}
	joined := strings.Join(texts, "|")
	// Covered features are not proposed again.
	res2, err := NewRuleBased().Propose(context.Background(), Input{Iteration: 3, TaskType: heat, Primitive: scaffold.Expand, Cards: cards, Items: next})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("first round %v; second round %d proposals (%s)", texts, len(res2.Proposals), res2.Reason)
	for _, p := range res2.Proposals {
		if strings.Contains(joined, p.Text) {
			t.Fatalf("re-proposed %q", p.Text)
		}
	}
}

func TestRuleBasedExpandGeneral(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	tr := append(cardtest.Episodes(r, heat, "heat", 3, 0.3), cardtest.Episodes(r, cool, "cool", 3, 0.3)...)
	cards, ev := build(t, tr)
	props, _ := run(t, scaffold.Expand, "", cards, ev, nil)
	for _, p := range props {
		if p.Layer != "general" {
			t.Fatalf("general scope proposed %+v", p)
		}
		// action:heat occurs in one type only: never general
		if strings.Contains(p.Text, "heat") || strings.Contains(p.Text, "cool") {
			t.Fatalf("type-specific feature became general: %q", p.Text)
		}
	}
}

func TestRuleBasedRevise(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	cards, ev := build(t, cardtest.Episodes(r, heat, "heat", 4, 0.55))
	items := []table.ScaffoldItem{
		it("t-h-1", "task", heat, "Heat the object with the microwave before placing it.", 1, "old1"),
		it("t-h-2", "task", heat, "Heat the object with the microwave before you place it.", 2, "old2"),
		it("m-h-1", "mistake", heat, "Do not drop the object on the floor.", 1, "old3"),
		it("g-1", "general", "", "Plan before acting.", 0),
	}
	props, next := run(t, scaffold.Revise, heat, cards, ev, items)
	ops := map[string]int{}
	for _, p := range props {
		ops[p.Op]++
	}
	if ops["merge"] != 1 || ops["edit"] == 0 {
		t.Fatalf("want a merge and an edit: %+v", props)
	}
	n0, _ := scaffold.ScopeTotals(items, heat)
	n1, _ := scaffold.ScopeTotals(next, heat)
	if n1 >= n0 {
		t.Fatalf("items %d -> %d", n0, n1)
	}
	var remsc bool
	for _, x := range next {
		if x.ID == "m-h-1" && strings.Contains(x.Text, "repeat") {
			remsc = true
		}
	}
	if !remsc {
		t.Fatalf("stale mistake not re-scoped to the loop failure: %+v", next)
	}
}

func TestRuleBasedCompress(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	// Every episode heats: heat no longer separates; failures (rare) loop.
	tr := cardtest.Episodes(r, heat, "heat", 4, 0.9)
	for i := range tr {
		tr[i].Features = append(tr[i].Features, "action:heat")
	}
	cards, ev := build(t, tr)
	items := []table.ScaffoldItem{
		it("t-h-1", "task", heat, "Heat the object with the microwave before placing it.", 1),
		it("t-h-2", "task", heat, "Heat the object in the microwave before placing it in the receptacle.", 2),
		it("t-h-3", "task", heat, "Open closed receptacles to look inside them.", 1),
		it("m-h-1", "mistake", heat, "Do not put the object down cold.", 1),
	}
	props, next := run(t, scaffold.Compress, heat, cards, ev, items)
	n0, t0 := scaffold.ScopeTotals(items, heat)
	n1, t1 := scaffold.ScopeTotals(next, heat)
	if n1 >= n0 || t1 > t0 {
		t.Fatalf("COMPRESS: %d->%d items, %d->%d tokens (%+v)", n0, n1, t0, t1, props)
	}
	for _, p := range props {
		if p.Op == "merge" && p.Text != items[0].Text {
			t.Fatalf("merge kept the longer text: %q", p.Text)
		}
	}
}

func TestRuleBasedForcedPrune(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	cards, ev := build(t, cardtest.Episodes(r, heat, "heat", 4, 0.3))
	var items []table.ScaffoldItem
	for i := 0; i < 12; i++ {
		items = append(items, it(fmt.Sprintf("t-h-%02d", i), "task", heat, fmt.Sprintf("Rule number %d says something.", i), int32(i)))
	}
	items[0].Text = "Heat the object with the microwave before placing it."
	items[0].Tokens = int32(scaffold.WordCount(items[0].Text))
	props, next := run(t, scaffold.ForcedPrune, heat, cards, ev, items)
	n1, _ := scaffold.ScopeTotals(next, heat)
	if n1 >= 12 || len(props) != 1 {
		t.Fatalf("prune: %d items left, %d proposals", n1, len(props))
	}
	// The supported heat rule survives; the oldest unsupported one goes.
	if props[0].Targets[0] != "t-h-01" {
		t.Fatalf("pruned %v, want the least supported and oldest t-h-01", props[0].Targets)
	}
}

func TestRuleBasedNoneAndUnknown(t *testing.T) {
	res, err := NewRuleBased().Propose(context.Background(), Input{Primitive: scaffold.None})
	if err != nil || len(res.Proposals) != 0 || res.Reason == "" {
		t.Fatalf("NONE: %+v %v", res, err)
	}
	if _, err := NewRuleBased().Propose(context.Background(), Input{Primitive: "GROW"}); err == nil {
		t.Fatal("unknown primitive accepted")
	}
	// No separating feature: no proposal, a reason.
	r := rand.New(rand.NewSource(6))
	cards, _ := build(t, cardtest.Episodes(r, heat, "heat", 2, 1.0))
	res, _ = NewRuleBased().Propose(context.Background(), Input{Iteration: 3, TaskType: heat, Primitive: scaffold.Expand, Cards: cards})
	if len(res.Proposals) != 0 || !strings.Contains(res.Reason, "no uncovered rule") {
		t.Fatalf("all-success EXPAND: %+v", res)
	}
}

func TestTemplates(t *testing.T) {
	b := NewRuleBased()
	cases := map[string]string{
		"action:heat":           "",
		"action:slice":          "",
		"object:desk_lamp":      "",
		"source:":               "",
		"milestone:took_target": "",
		"failure:timeout":       "Avoid this failure: timeout.",
		"query:brand_name":      "",
		"visited:sofa":          "",
	}
	for f, want := range cases {
		if got := b.Text(f); got != want {
			t.Errorf("Text(%q) = %q, want %q", f, got, want)
		}
	}
}
