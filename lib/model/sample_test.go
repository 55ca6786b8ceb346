package model

import (
	"math"
	"testing"
)

func TestSampleDeterministic(t *testing.T) {
	logits := []float32{0.1, 2, -1, 1.5, 0.3, 0.9, -0.2, 1.1}
	draw := func(seed uint64) []int32 {
		rng := NewRand(seed, 1)
		var out []int32
		for i := 0; i < 50; i++ {
			tok, _ := Sample(logits, 1, 0.95, rng)
			out = append(out, tok)
		}
		return out
	}
	a, b, c := draw(7), draw(7), draw(8)
	same := func(x, y []int32) bool {
		for i := range x {
			if x[i] != y[i] {
				return false
			}
		}
		return true
	}
	if !same(a, b) {
		t.Error("same seed gave different tokens")
	}
	if same(a, c) {
		t.Error("different seeds gave identical 50-token draws")
	}
}

func TestSampleGreedy(t *testing.T) {
	for _, logits := range [][]float32{{1, 5, 3}, {-2, -1, -3, -1}, {7}} {
		best := 0
		for i, v := range logits {
			if v > logits[best] {
				best = i
			}
		}
		tok, lp := Sample(logits, 0, 0.9, NewRand(1, 1))
		if int(tok) != best {
			t.Errorf("greedy %v = %d, want %d", logits, tok, best)
		}
		_, lse := logSumExp(logits)
		if math.Abs(float64(lp-(logits[best]-lse))) > 1e-6 {
			t.Errorf("greedy logp %g", lp)
		}
	}
}

// TestSampleTopP: with top-p the draws stay inside the nucleus and hit
// each of its members; the returned logp is the tempered log-softmax.
func TestSampleTopP(t *testing.T) {
	// Probabilities at temperature 1: about 0.643, 0.237, 0.087, 0.032.
	logits := []float32{3, 2, 1, 0}
	cases := []struct {
		topP    float32
		nucleus []int32
	}{{0.5, []int32{0}}, {0.8, []int32{0, 1}}, {0.9, []int32{0, 1, 2}}, {1, []int32{0, 1, 2, 3}}}
	_, lse := logSumExp(logits)
	for _, c := range cases {
		rng := NewRand(3, 4)
		seen := map[int32]int{}
		for i := 0; i < 4000; i++ {
			tok, lp := Sample(logits, 1, c.topP, rng)
			seen[tok]++
			if math.Abs(float64(lp-(logits[tok]-lse))) > 1e-6 {
				t.Fatalf("logp %g for token %d", lp, tok)
			}
		}
		if len(seen) != len(c.nucleus) {
			t.Errorf("top-p %g: drew %v, nucleus %v", c.topP, seen, c.nucleus)
		}
		for _, tok := range c.nucleus {
			if seen[tok] == 0 {
				t.Errorf("top-p %g: nucleus token %d never drawn", c.topP, tok)
			}
		}
	}
	// Temperature sharpens: at 0.25 the top token dominates.
	rng := NewRand(5, 5)
	top := 0
	for i := 0; i < 1000; i++ {
		if tok, _ := Sample(logits, 0.25, 1, rng); tok == 0 {
			top++
		}
	}
	if top < 950 {
		t.Errorf("temperature 0.25: top token %d/1000", top)
	}
}
