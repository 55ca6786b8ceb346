package model

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// weightedLoss is L = sum w[i][t] * lp[i][t], summed in float64.
func weightedLoss(t *testing.T, m *Model, seqs [][]int32, w [][]float32) float64 {
	lp, _, err := m.LogProbs(seqs, nil)
	if err != nil {
		t.Fatal(err)
	}
	var s float64
	for i := range lp {
		for j := 1; j < len(lp[i]); j++ {
			s += float64(w[i][j]) * float64(lp[i][j])
		}
	}
	return s
}

// fdRelError compares p's gradient with central differences of the
// weighted loss (step 1e-2) at 8 entries, the largest-gradient one and 7
// drawn from rng: sum |fd - an| / sum (|fd| + |an|); zero says both were
// all zero.
func fdRelError(t *testing.T, m *Model, p *Tensor, rng *rand.Rand, seqs [][]int32, w [][]float32) (rel float64, zero bool) {
	t.Helper()
	idx := []int{0}
	for i, g := range p.G {
		if math.Abs(float64(g)) > math.Abs(float64(p.G[idx[0]])) {
			idx[0] = i
		}
	}
	for len(idx) < 8 {
		idx = append(idx, rng.IntN(len(p.W)))
	}
	var num, den float64
	const h = 1e-2
	for _, i := range idx {
		orig := p.W[i]
		p.W[i] = orig + h
		lp := weightedLoss(t, m, seqs, w)
		p.W[i] = orig - h
		lm := weightedLoss(t, m, seqs, w)
		p.W[i] = orig
		fd := (lp - lm) / (2 * h)
		an := float64(p.G[i])
		num += math.Abs(fd - an)
		den += math.Abs(fd) + math.Abs(an)
	}
	if den == 0 {
		return 0, true
	}
	return num / den, false
}

// TestGradientFiniteDifference compares Backward's gradient with central
// differences (step 1e-2, float32 forward, float64 loss sum) for every
// parameter tensor: for each tensor the relative error
// |fd - an| / (|fd| + |an|) over 8 entries (the largest-gradient entry
// and 7 random ones) must stay below 2e-2. A wrong term (a missing
// factor, a dropped residual or bias) gives errors near 1.
//
// Qwen3 (a head_dim other than hidden/heads, q_norm and k_norm, no
// biases) runs the same check, its head norms included.
//
// Under a scoring temperature (SetScoringTemperature) the gradient is that
// of the tempered log-probabilities: the same check runs at 0.7.
func TestGradientFiniteDifference(t *testing.T) {
	for _, c := range []struct {
		tied, qwen3 bool
		temp        float64
	}{{false, false, 1}, {true, false, 1}, {false, false, 0.7}, {false, true, 1}, {true, true, 1}} {
		tied := c.tied
		cfg := testConfig(tied)
		if c.qwen3 { // q_norm and k_norm in place of the three biases
			cfg = qwen3TestConfig(tied)
		}
		m := randomModel(t, cfg, 3)
		if err := m.SetScoringTemperature(c.temp); err != nil {
			t.Fatal(err)
		}
		seqs := randomSeqs(5, cfg.VocabSize, 7, 4, 9)
		rng := rand.New(rand.NewPCG(9, 9))
		w := make([][]float32, len(seqs))
		for i, s := range seqs {
			w[i] = make([]float32, len(s))
			for j := 1; j < len(s); j++ {
				if rng.IntN(3) > 0 { // some positions unscored
					w[i][j] = float32(rng.NormFloat64())
				}
			}
		}
		m.ZeroGrad()
		if err := m.Backward(seqs, w); err != nil {
			t.Fatal(err)
		}
		kinds := map[string]bool{}
		for _, p := range m.Params() {
			rel, zero := fdRelError(t, m, p, rng, seqs, w)
			if zero {
				t.Errorf("tied=%v %s: gradient and differences all zero", tied, p.Name)
				continue
			}
			if rel > 2e-2 {
				t.Errorf("tied=%v %s: relative error %.3g", tied, p.Name, rel)
			}
			name := p.Name
			if strings.HasPrefix(name, "model.layers.") {
				name = name[strings.Index(name[len("model.layers."):], ".")+len("model.layers.")+1:]
			}
			kinds[name] = true
		}
		want := 14
		if c.qwen3 {
			want = 13
		}
		if !tied {
			want++
		}
		if len(kinds) != want {
			t.Errorf("tied=%v: checked %d parameter kinds, want %d: %v", tied, len(kinds), want, kinds)
		}
	}
}
