package control

import (
	"fmt"
	"testing"

	"github.com/pats-rl/pats/lib/scaffold"
	"github.com/pats-rl/pats/lib/table"
)

func taskItem(typ string, n, tokens int) table.ScaffoldItem {
	return table.ScaffoldItem{ID: fmt.Sprintf("t-%s-%d", typ, n), Layer: scaffold.LayerTask, TaskType: typ,
		Text: "Heat it.", Tokens: int32(tokens)}
}

// stepBare runs StepBare for one scope over iterations 0..len(with)-1 with
// the scaffolded and bare rates given, and returns the states.
func stepBare(t *testing.T, o Options, items []table.ScaffoldItem, with, bare []float64) []table.ControllerState {
	t.Helper()
	var prev, out []table.ControllerState
	for k := range with {
		var b []table.TypeEvidence
		if bare != nil {
			b = []table.TypeEvidence{ev(int32(k), "heat", bare[k])}
		}
		st, err := StepBare(prev, []table.TypeEvidence{ev(int32(k), "heat", with[k])}, b, items, nil, int32(k), o)
		if err != nil {
			t.Fatal(err)
		}
		prev = append(prev, st...)
		out = append(out, st[0])
	}
	return out
}

func TestStepBareAbsorbed(t *testing.T) {
	o := DefaultOptions()
	o.General = false
	items := []table.ScaffoldItem{taskItem("heat", 1, 10)}
	cases := []struct {
		name       string
		items      []table.ScaffoldItem
		with, bare []float64
		want       []string
		absorbed   []bool
		worse      []int32
	}{
		{"scaffold helps: grow", items, []float64{0.1, 0.2}, []float64{0.0, 0.05}, []string{scaffold.Expand, scaffold.Expand}, []bool{false, false}, []int32{0, 0}},
		{"bare as good: compress", items, []float64{0.1, 0.3}, []float64{0.1, 0.3}, []string{scaffold.Compress, scaffold.Compress}, []bool{true, true}, []int32{0, 0}},
		{"within the margin", items, []float64{0.5}, []float64{0.46}, []string{scaffold.Compress}, []bool{true}, []int32{0}},
		{"bare better twice: worse counted", items, []float64{0.2, 0.2, 0.3}, []float64{0.4, 0.5, 0.3}, []string{scaffold.Compress, scaffold.Compress, scaffold.Compress}, []bool{true, true, true}, []int32{1, 2, 0}},
		{"empty scope grows", nil, []float64{0.1}, []float64{0.1}, []string{scaffold.Expand}, []bool{true}, []int32{0}},
		{"no bare replay: as before", items, []float64{0.1, 0.9}, nil, []string{scaffold.Expand, scaffold.Revise}, []bool{false, false}, []int32{0, 0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := stepBare(t, o, c.items, c.with, c.bare)
			for k, s := range st {
				if s.Primitive != c.want[k] || s.Absorbed != c.absorbed[k] || s.NWorse != c.worse[k] {
					t.Errorf("k=%d: primitive %s absorbed %v worse %d, want %s %v %d", k, s.Primitive, s.Absorbed, s.NWorse, c.want[k], c.absorbed[k], c.worse[k])
				}
				if c.bare != nil && (s.BareLast == nil || *s.BareLast != c.bare[k]) {
					t.Errorf("k=%d: bare_last %v, want %g", k, s.BareLast, c.bare[k])
				}
				if c.bare == nil && s.BareSmoothed != nil {
					t.Errorf("k=%d: a bare EMA without a bare replay", k)
				}
			}
		})
	}
	// the bare EMA smooths as s_k does
	st := stepBare(t, o, items, []float64{0.2, 0.2}, []float64{0.0, 0.4})
	if *st[1].BareSmoothed != 0.2 {
		t.Errorf("bare EMA after 0, 0.4 = %g, want 0.2", *st[1].BareSmoothed)
	}
}

func TestStepBareFade(t *testing.T) {
	o := DefaultOptions()
	o.General = false
	o.Fade = scaffold.Fade{Start: 0.5, End: 0.8, Iterations: 10}
	items := []table.ScaffoldItem{taskItem("heat", 1, 30), taskItem("heat", 2, 30)}
	// k=5 writes snapshot 6 (scale 2/3: caps 8 items, 266 tokens): EXPAND
	st, err := StepBare(nil, []table.TypeEvidence{ev(5, "heat", 0.1)}, nil, items, nil, 5, o)
	if err != nil {
		t.Fatal(err)
	}
	if st[0].Primitive != scaffold.Expand || *st[0].CapItems != 8 || *st[0].CapTokens != 266 {
		t.Errorf("k=5: %s caps %d %d, want EXPAND 8 266", st[0].Primitive, *st[0].CapItems, *st[0].CapTokens)
	}
	// k=7 writes snapshot 8 (empty): FORCED_PRUNE even without evidence at k
	st, err = StepBare(nil, nil, nil, items, []string{"heat"}, 7, o)
	if err != nil {
		t.Fatal(err)
	}
	if st[0].Primitive != scaffold.ForcedPrune || *st[0].CapItems != 0 || *st[0].CapTokens != 0 {
		t.Errorf("k=7 unobserved: %s caps %d %d, want FORCED_PRUNE 0 0", st[0].Primitive, *st[0].CapItems, *st[0].CapTokens)
	}
	// an empty scope once the fade has closed it: nothing to add
	st, err = StepBare(nil, []table.TypeEvidence{ev(8, "heat", 0.1)}, nil, nil, nil, 8, o)
	if err != nil {
		t.Fatal(err)
	}
	if st[0].Primitive != scaffold.None {
		t.Errorf("k=8 empty scope: %s, want NONE", st[0].Primitive)
	}
}
