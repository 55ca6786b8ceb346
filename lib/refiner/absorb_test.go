package refiner

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pats-rl/pats/lib/scaffold"
	"github.com/pats-rl/pats/lib/table"
)

// bareCard is a constructed card of the bare replay of scope typ at
// iteration k: n episodes, s of them successful showing success features,
// the failed ones failing with mode.
func bareCard(id, typ string, k int32, s int32, success []string, mode string) table.Card {
	c := table.Card{CardID: id, TaskID: id, TaskType: typ, GroupID: id, Iteration: k, NEpisodes: 8, NSuccess: s,
		SuccessRate: float64(s) / 8, SuccessFeatures: success}
	for range success {
		c.SuccessFreqs = append(c.SuccessFreqs, 1)
	}
	if s < 8 && mode != "" {
		c.FailureModes, c.FailureModeCounts = []string{mode}, []int32{8 - s}
		c.FailureFeatures, c.FailureFreqs = []string{"failure:" + mode}, []float64{1}
	}
	return c
}

func TestAbsorption(t *testing.T) {
	const k = 4
	items := []table.ScaffoldItem{
		{ID: "t-heat-1", Layer: scaffold.LayerTask, TaskType: heat, Text: "Heat the object with the stoveburner.", Created: 1, Tokens: 7},
		{ID: "t-heat-2", Layer: scaffold.LayerTask, TaskType: heat, Text: "Look in the drawer first.", Created: 3, Tokens: 5},
		{ID: "m-heat-1", Layer: scaffold.LayerMistake, TaskType: heat, Text: "Do not repeat the same action again and again; try a new place.", Created: 1, Tokens: 12},
	}
	in := Input{Iteration: k, TaskType: heat, Items: items}
	cases := []struct {
		name    string
		bare    []table.Card
		harmful bool
		want    map[string][2]int32 // item -> (bare_support, absorbed as 0/1)
		harm    map[string]bool
	}{
		{"the verb and no loops in bare successes", []table.Card{
			bareCard("b1", heat, k, 4, []string{"action:heat", "recep:stoveburner"}, "max_steps"),
			bareCard("b2", heat, k, 2, []string{"action:heat"}, "max_steps"),
			bareCard("b3", heat, k, 0, nil, "loop"),
			bareCard("b4", cool, k, 8, []string{"action:cool", "source:drawer"}, ""),   // another scope
			bareCard("b5", heat, k-1, 8, []string{"action:heat", "source:drawer"}, ""), // another iteration
		}, false, map[string][2]int32{"t-heat-1": {2, 1}, "t-heat-2": {0, 0}, "m-heat-1": {2, 1}}, nil},
		{"loops in the bare failures", []table.Card{
			bareCard("b1", heat, k, 4, []string{"action:heat"}, "loop"),
			bareCard("b2", heat, k, 2, []string{"source:drawer"}, "loop"),
		}, false, map[string][2]int32{"t-heat-1": {1, 0}, "t-heat-2": {1, 0}, "m-heat-1": {0, 0}}, nil},
		{"a harmful scope", []table.Card{
			bareCard("b1", heat, k, 4, []string{"action:heat"}, "loop"),
		}, true, map[string][2]int32{"t-heat-1": {1, 0}, "t-heat-2": {0, 0}, "m-heat-1": {0, 0}},
			map[string]bool{"t-heat-1": true, "m-heat-1": true}}, // t-heat-2 joined at snapshot 4: not for two iterations
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rows := Absorption(in, c.bare, c.harmful)
			got := map[string][2]int32{}
			harm := map[string]bool{}
			for _, r := range rows {
				a := int32(0)
				if r.Absorbed {
					a = 1
				}
				got[r.ItemID] = [2]int32{r.BareSupport, a}
				if r.Harmful {
					harm[r.ItemID] = true
				}
				if r.Iteration != k || r.TaskType != heat {
					t.Errorf("row %+v: wrong iteration or scope", r)
				}
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("support, absorbed (-want +got):\n%s", diff)
			}
			if c.harm == nil {
				c.harm = map[string]bool{}
			}
			if diff := cmp.Diff(c.harm, harm); diff != "" {
				t.Errorf("harmful (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCompressFades: with an absorption signal COMPRESS deletes harmful,
// then absorbed items, true or not; without one it keeps items whose rule
// holds.
func TestCompressFades(t *testing.T) {
	const k = 4
	items := []table.ScaffoldItem{
		{ID: "t-heat-1", Layer: scaffold.LayerTask, TaskType: heat, Text: "Heat the object with the stoveburner.", Created: 1, Tokens: 7},
		{ID: "t-heat-2", Layer: scaffold.LayerTask, TaskType: heat, Text: "Look in the drawer first.", Created: 1, Tokens: 5},
		{ID: "t-heat-3", Layer: scaffold.LayerTask, TaskType: heat, Text: "Take the mug.", Created: 1, Tokens: 3},
	}
	in := Input{Iteration: k, TaskType: heat, Primitive: scaffold.Compress, Items: items, Quota: 2,
		Absorption: []table.ItemAbsorption{
			{ItemID: "t-heat-1", Absorbed: true, BareSupport: 3, BareCards: 4},
			{ItemID: "t-heat-2", Harmful: true},
			{ItemID: "t-heat-3"},
		}}
	res, err := NewRuleBased().Propose(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	var got [][]string
	for _, p := range res.Proposals {
		if p.Op != "delete" {
			t.Errorf("COMPRESS proposed %s", p.Op)
		}
		got = append(got, p.Targets)
	}
	if diff := cmp.Diff([][]string{{"t-heat-2"}, {"t-heat-1"}}, got); diff != "" {
		t.Errorf("deletions, harmful first then absorbed (-want +got):\n%s", diff)
	}
	// nothing absorbed or harmful: the least supported item still goes
	in.Absorption = []table.ItemAbsorption{{ItemID: "t-heat-1"}, {ItemID: "t-heat-2"}, {ItemID: "t-heat-3"}}
	res, err = NewRuleBased().Propose(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Proposals) != 1 {
		t.Errorf("COMPRESS with nothing absorbed proposed %d deletions, want 1", len(res.Proposals))
	}
}
