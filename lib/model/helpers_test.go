package model

import (
	"math/rand/v2"
	"testing"
)

// testConfig is the small random configuration of the tests.
func testConfig(tied bool) Config {
	c := base(23, 16, 2, 4, 2, 24)
	c.TieWordEmbeddings = tied
	c.MaxPositionEmbeddings = 64
	return c
}

// qwen3TestConfig is the small random Qwen3 configuration of the tests:
// head_dim 6, so the query width (24) differs from the hidden size (16).
func qwen3TestConfig(tied bool) Config {
	c := testConfig(tied)
	c.ModelType, c.Architectures, c.HeadDimension = Qwen3, []string{"Qwen3ForCausalLM"}, 6
	return c
}

// randomModel builds a model whose every parameter (norms and biases
// included) is random, so that no gradient is trivially zero.
func randomModel(t testing.TB, cfg Config, seed uint64) *Model {
	t.Helper()
	m, err := New(cfg, seed)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	for _, p := range m.params {
		for i := range p.W {
			switch {
			case isNorm(p.Name):
				p.W[i] = 1 + float32(rng.NormFloat64()*0.2)
			case len(p.Shape) == 1:
				p.W[i] = float32(rng.NormFloat64() * 0.2)
			default:
				p.W[i] = float32(rng.NormFloat64() * 0.4)
			}
		}
	}
	return m
}

func randomSeqs(seed uint64, vocab int, lens ...int) [][]int32 {
	rng := rand.New(rand.NewPCG(seed, 11))
	out := make([][]int32, len(lens))
	for i, n := range lens {
		out[i] = make([]int32, n)
		for j := range out[i] {
			out[i][j] = int32(rng.IntN(vocab))
		}
	}
	return out
}
