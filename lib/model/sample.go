package model

import (
	"math"
	"math/rand/v2"
	"sort"
)

// Sample draws a token from logits. temperature <= 0 is greedy (the
// first maximum; rng is not used and may be nil). Otherwise the
// distribution is softmax(logits / temperature), restricted when 0 < topP < 1 to its nucleus: the smallest
// set of most probable tokens (ties broken by lower id) whose mass reaches
// topP, renormalised. One rng.Float64 is drawn per sampled token, so a
// generator seeded the same way gives the same tokens.
//
// logp is the log-probability of tok under softmax(logits / temperature)
// before the nucleus cut (temperature 1 for greedy): the behaviour
// log-probability of a policy that samples at that temperature.
func Sample(logits []float32, temperature, topP float32, rng *rand.Rand) (tok int32, logp float32) {
	if temperature <= 0 {
		best := 0
		for i, v := range logits {
			if v > logits[best] {
				best = i
			}
		}
		_, l := logSumExp(logits)
		return int32(best), logits[best] - l
	}
	inv := 1 / float64(temperature)
	mx := math.Inf(-1)
	for _, v := range logits {
		if float64(v)*inv > mx {
			mx = float64(v) * inv
		}
	}
	p := make([]float64, len(logits))
	var sum float64
	for i, v := range logits {
		p[i] = math.Exp(float64(v)*inv - mx)
		sum += p[i]
	}
	logZ := mx + math.Log(sum)
	lpOf := func(i int) float32 { return float32(float64(logits[i])*inv - logZ) }
	if topP > 0 && topP < 1 {
		idx := make([]int, len(p))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return p[idx[a]] > p[idx[b]] })
		var cum float64
		n := 0
		for n < len(idx) {
			cum += p[idx[n]]
			n++
			if cum >= float64(topP)*sum {
				break
			}
		}
		r := rng.Float64() * cum
		for _, i := range idx[:n] {
			r -= p[i]
			if r < 0 {
				return int32(i), lpOf(i)
			}
		}
		i := idx[n-1]
		return int32(i), lpOf(i)
	}
	r := rng.Float64() * sum
	last := 0
	for i, v := range p {
		if v > 0 {
			last = i
		}
		r -= v
		if r < 0 {
			return int32(i), lpOf(i)
		}
	}
	return int32(last), lpOf(last)
}

// NewRand returns the deterministic generator sampling expects: PCG
// seeded with (seed, stream).
func NewRand(seed, stream uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, stream)) }
