package control

import (
	"math"
	"reflect"
	"testing"

	"github.com/pats-rl/pats/lib/scaffold"
	"github.com/pats-rl/pats/lib/table"
)

func TestChooseThresholds(t *testing.T) {
	o := DefaultOptions()
	const eps = 1e-9
	cases := []struct {
		s          float64
		items, tok int
		want       string
	}{
		{0, 0, 0, scaffold.Expand},
		{o.RhoR - eps, 0, 0, scaffold.Expand},
		{o.RhoR, 0, 0, scaffold.Revise}, // exactly at rho_r: REVISE
		{o.RhoR + eps, 0, 0, scaffold.Revise},
		{o.RhoC - eps, 0, 0, scaffold.Revise},
		{o.RhoC, 0, 0, scaffold.Compress}, // exactly at rho_c: COMPRESS
		{1, 0, 0, scaffold.Compress},
		{0.1, o.MaxItems - 1, o.MaxTokens - 1, scaffold.Expand},
		{0.1, o.MaxItems, 0, scaffold.ForcedPrune},  // item cap reached
		{0.9, 0, o.MaxTokens, scaffold.ForcedPrune}, // token cap reached
		{0.5, o.MaxItems + 3, 0, scaffold.ForcedPrune},
	}
	for _, c := range cases {
		if got := Choose(c.s, c.items, c.tok, o.MaxItems, o.MaxTokens, o); got != c.want {
			t.Errorf("Choose(s=%v, items=%d, tokens=%d) = %s, want %s", c.s, c.items, c.tok, got, c.want)
		}
	}
}

func TestChooseRestricted(t *testing.T) {
	o := DefaultOptions()
	var err error
	o.Enabled, err = scaffold.ParsePrimitives("expand")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		s     float64
		items int
		want  string
	}{{0.1, 0, scaffold.Expand}, {0.5, 0, scaffold.None}, {0.9, 0, scaffold.None}, {0.1, 12, scaffold.Expand}} {
		if got := Choose(c.s, c.items, 0, 12, 400, o); got != c.want {
			t.Errorf("expand only: s=%v items=%d: %s, want %s", c.s, c.items, got, c.want)
		}
	}
	o.Enabled, _ = scaffold.ParsePrimitives("no-revise")
	if got := Choose(0.5, 0, 0, 12, 400, o); got != scaffold.None {
		t.Errorf("no-revise in the REVISE band: %s", got)
	}
	if got := Choose(0.5, 12, 0, 12, 400, o); got != scaffold.ForcedPrune {
		t.Errorf("no-revise at the cap: %s", got)
	}
	o.Enabled = nil
	o.Frozen = true
	for _, s := range []float64{0, 0.5, 1} {
		if got := Choose(s, 20, 999, 12, 400, o); got != scaffold.None {
			t.Errorf("frozen: %s", got)
		}
	}
}

func ev(k int32, typ string, rate float64) table.TypeEvidence {
	return table.TypeEvidence{TaskType: typ, Iteration: k, NCards: 2, SuccessRate: rate}
}

func TestStepEMAAndHistory(t *testing.T) {
	o := DefaultOptions()
	o.General = false
	rates := []float64{0.2, 0.6, 0.9, 1.0, 0.1}
	var states []table.ControllerState
	s := 0.0
	for k, x := range rates {
		st, err := Step(states, []table.TypeEvidence{ev(int32(k), "a", x)}, nil, nil, int32(k), o)
		if err != nil {
			t.Fatal(err)
		}
		if len(st) != 1 || st[0].TaskType != "a" || st[0].Iteration != int32(k) {
			t.Fatalf("states %+v", st)
		}
		if k == 0 {
			s = x // first observation initialises
		} else {
			s = o.EMA*s + (1-o.EMA)*x
		}
		if st[0].SmoothedSuccess == nil || st[0].LastSuccess == nil || math.Abs(*st[0].SmoothedSuccess-s) > 1e-12 || *st[0].LastSuccess != x {
			t.Fatalf("k=%d: s=%s, want %v", k, Rate(st[0].SmoothedSuccess), s)
		}
		want := Choose(s, 0, 0, 12, 400, o)
		if st[0].Primitive != want {
			t.Fatalf("k=%d: %s, want %s", k, st[0].Primitive, want)
		}
		states = append(states, st...)
	}
	// s: 0.2 E, 0.4 R, 0.65 R, 0.825 C, 0.4625 R
	got := []string{}
	for _, x := range states {
		got = append(got, x.Primitive)
	}
	if !reflect.DeepEqual(got, []string{scaffold.Expand, scaffold.Revise, scaffold.Revise, scaffold.Compress, scaffold.Revise}) {
		t.Fatalf("primitives %v", got)
	}
	lastS := states[len(states)-1]
	if lastS.NExpand != 1 || lastS.NRevise != 3 || lastS.NCompress != 1 || lastS.NObserved != 5 {
		t.Fatalf("counts %+v", lastS)
	}
	// Rerun from the middle: states of k=2 plus evidence of k=3 reproduce k=3.
	re, _ := Step(states[:3], []table.TypeEvidence{ev(3, "a", 1.0)}, nil, nil, 3, o)
	if !reflect.DeepEqual(re[0], states[3]) {
		t.Fatalf("rerun %+v != %+v", re[0], states[3])
	}
	// Later rows in prev are ignored.
	re2, _ := Step(states, []table.TypeEvidence{ev(3, "a", 1.0)}, nil, nil, 3, o)
	if !reflect.DeepEqual(re2[0], states[3]) {
		t.Fatal("later history changed the decision")
	}
}

func TestStepScopesCapsAndNoEvidence(t *testing.T) {
	o := DefaultOptions()
	o.MaxItems = 2
	items := []table.ScaffoldItem{
		{ID: "g-1", Layer: "general", Text: "x", Tokens: 5},
		{ID: "t-a-1", Layer: "task", TaskType: "a", Text: "x", Tokens: 3},
		{ID: "m-a-1", Layer: "mistake", TaskType: "a", Text: "x", Tokens: 4},
		{ID: "t-b-1", Layer: "task", TaskType: "b", Text: "x", Tokens: 1},
	}
	st, err := Step(nil, []table.TypeEvidence{ev(0, "", 0.3), ev(0, "a", 0.1), ev(0, "b", 0.1), ev(1, "c", 0.9)}, items, []string{"d"}, 0, o)
	if err != nil {
		t.Fatal(err)
	}
	byType := map[string]table.ControllerState{}
	var order []string
	for _, s := range st {
		byType[s.TaskType] = s
		order = append(order, s.TaskType)
	}
	if !reflect.DeepEqual(order, []string{"", "a", "b", "d"}) {
		t.Fatalf("scopes %v", order)
	}
	if a := byType["a"]; a.NItems != 2 || a.NTokens != 7 || a.Primitive != scaffold.ForcedPrune {
		t.Fatalf("a: %+v (general items must not count)", a)
	}
	if b := byType["b"]; b.NItems != 1 || b.Primitive != scaffold.Expand {
		t.Fatalf("b: %+v", b)
	}
	if g := byType[""]; g.NItems != 1 || g.NTokens != 5 || g.Primitive != scaffold.Expand {
		t.Fatalf("general: %+v", g)
	}
	if d := byType["d"]; d.Observed || d.Primitive != scaffold.None || d.NNone != 1 || d.NObserved != 0 || d.SmoothedSuccess != nil || d.LastSuccess != nil {
		t.Fatalf("unobserved: %+v", d)
	}
	// d observed for the first time at k=1: initialised from x, not smoothed with 0.
	st2, _ := Step(st, []table.TypeEvidence{ev(1, "d", 0.8)}, items, nil, 1, o)
	for _, s := range st2 {
		if s.TaskType == "d" && (Rate(s.SmoothedSuccess) != "0.80" || s.Primitive != scaffold.Compress) {
			t.Fatalf("first observation: %+v", s)
		}
		if s.TaskType == "a" && (s.Primitive != scaffold.None || Rate(s.SmoothedSuccess) != "0.10") {
			t.Fatalf("a without evidence keeps s: %+v", s)
		}
	}
}

func TestOptionsValidate(t *testing.T) {
	bad := []func(*Options){
		func(o *Options) { o.RhoR = 0.8 },
		func(o *Options) { o.EMA = 1 },
		func(o *Options) { o.MaxItems = 0 },
		func(o *Options) { o.Enabled = []string{"GROW"} },
	}
	for i, m := range bad {
		o := DefaultOptions()
		m(&o)
		if _, err := Step(nil, nil, nil, nil, 0, o); err == nil {
			t.Errorf("case %d: no error", i)
		}
	}
	dup := []table.ControllerState{{TaskType: "a", Iteration: 0}, {TaskType: "a", Iteration: 0}}
	if _, err := Step(dup, nil, nil, nil, 1, DefaultOptions()); err == nil {
		t.Error("duplicate states accepted")
	}
}
