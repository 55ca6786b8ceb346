package model

import (
	"math"
	"sort"
	"testing"
)

// wantDraw is the distribution a Rule draws from, computed the slow way:
// penalty, temperature, sort, top-k, nucleus, renormalise.
func wantDraw(logits []float32, seen []int32, r Rule) map[int32]float64 {
	x := make([]float64, len(logits))
	for i, v := range logits {
		x[i] = float64(v)
	}
	if r.RepetitionPenalty != 0 && r.RepetitionPenalty != 1 {
		for _, id := range seen {
			if logits[id] > 0 {
				x[id] = float64(logits[id] / r.RepetitionPenalty)
			} else {
				x[id] = float64(logits[id] * r.RepetitionPenalty)
			}
		}
	}
	p := make([]float64, len(x))
	var s float64
	for i, v := range x {
		p[i] = math.Exp(v / float64(r.Temperature))
		s += p[i]
	}
	idx := make([]int, len(p))
	for i := range idx {
		idx[i] = i
		p[i] /= s
	}
	sort.SliceStable(idx, func(a, b int) bool { return p[idx[a]] > p[idx[b]] })
	if r.TopK > 0 && r.TopK < len(idx) {
		idx = idx[:r.TopK]
	}
	var mass float64
	for _, i := range idx {
		mass += p[i]
	}
	if r.TopP > 0 && r.TopP < 1 {
		var cum float64
		for k, i := range idx {
			cum += p[i]
			if cum >= float64(r.TopP)*mass {
				idx = idx[:k+1]
				break
			}
		}
	}
	var kept float64
	for _, i := range idx {
		kept += p[i]
	}
	out := map[int32]float64{}
	for _, i := range idx {
		out[int32(i)] = p[i] / kept
	}
	return out
}

// TestRuleDraw scans the uniform over [0, 1) and checks that every rule
// draws each token as often as the slow computation says (within the
// scan's resolution), never a token outside it, and records the tempered
// full-vocabulary log-probability of the raw logits.
func TestRuleDraw(t *testing.T) {
	logits := []float32{2.0, 1.5, 1.5, -0.5, 0.3, 3.1, -2, 0.9, 1.1, 0}
	seen := []int32{5, 0, 5, 3}
	rules := []Rule{
		{Temperature: 1, TopP: 1},
		{Temperature: 0.7, TopP: 0.8, TopK: 20},
		{Temperature: 0.7, TopP: 0.8, TopK: 3},
		{Temperature: 0.7, TopP: 1, TopK: 2},
		{Temperature: 1.3, TopP: 0.5, TopK: 6},
		{Temperature: 0.7, TopP: 0.8, TopK: 4, RepetitionPenalty: 1.05},
		{Temperature: 1, TopP: 1, RepetitionPenalty: 2},
	}
	const n = 40000
	for _, r := range rules {
		want := wantDraw(logits, seen, r)
		got := map[int32]float64{}
		for k := 0; k < n; k++ {
			tok, lp := r.Draw(logits, seen, (float64(k)+0.5)/n)
			got[tok] += 1.0 / n
			if w := TemperedLogProb(logits, r.Temperature, tok); lp != w {
				t.Fatalf("%+v: token %d recorded %v, want %v", r, tok, lp, w)
			}
		}
		for tok, g := range got {
			if w, ok := want[tok]; !ok || math.Abs(g-w) > 1e-4 {
				t.Errorf("%+v: token %d drawn with frequency %.5f, want %.5f", r, tok, g, want[tok])
			}
		}
		if len(got) != len(want) {
			t.Errorf("%+v: drew %d distinct tokens, want %d", r, len(got), len(want))
		}
	}
}
