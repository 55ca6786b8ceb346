package model

import (
	"math"
	"testing"
)

// TestForwardBackwardPrefix: sequences that share a prefix, trained with
// the prefix run once, give the log-probs, entropies and parameter
// gradients of ForwardBackward over the whole sequences (up to float
// rounding), with tied and untied heads and with grouped-query heads in
// pairs and alone.
func TestForwardBackwardPrefix(t *testing.T) {
	for _, tc := range []struct {
		name        string
		tied, qwen3 bool
		heads, kvh  int
	}{{"untied, paired heads", false, false, 4, 2}, {"tied, single heads", true, false, 3, 3}, {"qwen3, paired heads", false, true, 4, 2}} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(tc.tied)
			if tc.qwen3 {
				cfg = qwen3TestConfig(tc.tied)
			}
			cfg.NumAttentionHeads, cfg.NumKeyValueHeads = tc.heads, tc.kvh
			cfg.HiddenSize = 4 * tc.heads
			const p = 9
			prefix := randomSeqs(1, cfg.VocabSize, p)[0]
			rests := randomSeqs(2, cfg.VocabSize, 5, 12, 1, 20)
			var seqs [][]int32
			var masks [][]bool
			for i, r := range rests {
				s := append(append([]int32{}, prefix...), r...)
				mk := make([]bool, len(s))
				for j := p + 1; j < len(s); j++ {
					mk[j] = (j+i)%3 != 0
				}
				seqs, masks = append(seqs, s), append(masks, mk)
			}
			weights := func(i int, lp, _ []float32) []float32 {
				w := make([]float32, len(lp))
				for j, on := range masks[i] {
					if on {
						w[j] = float32(1+j%4) * 0.1 * (1 + lp[j]*0.01)
					}
				}
				return w
			}
			var names []string
			run := func(shared bool) (lp, ent [][]float32, grads [][]float32) {
				m := randomModel(t, cfg, 5)
				m.ZeroGrad()
				var err error
				if shared {
					lp, ent, err = m.ForwardBackwardPrefix(p, seqs, masks, weights)
				} else {
					lp, ent, err = m.ForwardBackward(seqs, masks, weights)
				}
				if err != nil {
					t.Fatal(err)
				}
				names = names[:0]
				for _, q := range m.Params() {
					names = append(names, q.Name)
					grads = append(grads, append([]float32(nil), q.G...))
				}
				return lp, ent, grads
			}
			lp0, ent0, g0 := run(false)
			lp1, ent1, g1 := run(true)
			for i := range seqs {
				for j := range seqs[i] {
					if math.Abs(float64(lp0[i][j]-lp1[i][j])) > 1e-5 || math.Abs(float64(ent0[i][j]-ent1[i][j])) > 1e-5 {
						t.Fatalf("sequence %d position %d: lp %v / %v, ent %v / %v", i, j, lp0[i][j], lp1[i][j], ent0[i][j], ent1[i][j])
					}
				}
			}
			for k, name := range names {
				var num, den float64
				for j := range g0[k] {
					d := float64(g0[k][j] - g1[k][j])
					num += d * d
					den += float64(g0[k][j]) * float64(g0[k][j])
				}
				if den == 0 || math.Sqrt(num/den) > 1e-5 {
					t.Errorf("%s: relative gradient difference %.2g (norm^2 %.3g)", name, math.Sqrt(num/den), den)
				}
			}
		})
	}
}

// TestForwardBackwardPrefixRefuses: a prefix the sequences do not share, a
// scored position inside it, or a sequence no longer than it is an error.
func TestForwardBackwardPrefixRefuses(t *testing.T) {
	cfg := testConfig(false)
	m := randomModel(t, cfg, 5)
	s := randomSeqs(3, cfg.VocabSize, 10, 10)
	other := append([]int32{}, s[0]...)
	other[2] = (other[2] + 1) % int32(cfg.VocabSize)
	none := func(i int, lp, _ []float32) []float32 { return make([]float32, len(lp)) }
	for name, c := range map[string]struct {
		p     int
		seqs  [][]int32
		masks [][]bool
	}{
		"different prefix": {4, [][]int32{s[0], other}, [][]bool{make([]bool, 10), make([]bool, 10)}},
		"scored in prefix": {4, [][]int32{s[0], s[0]}, [][]bool{make([]bool, 10), {4: true}}},
		"no rest":          {10, [][]int32{s[0]}, [][]bool{make([]bool, 10)}},
		"masks missing":    {4, [][]int32{s[0]}, nil},
	} {
		if _, _, err := m.ForwardBackwardPrefix(c.p, c.seqs, c.masks, none); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
