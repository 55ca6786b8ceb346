package model

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

// sampleSorted is Sample as it was first written, sorting the whole
// vocabulary for top-p and allocating per call: the reference the
// partial-selection sampler must match token for token.
func sampleSorted(logits []float32, temperature, topP float32, rng *rand.Rand) (tok int32, logp float32) {
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

// TestSampleMatchesSorted: Sample draws exactly the tokens and
// log-probabilities of the full-sort reference for the same generator
// state, across temperatures, top-p values and logits with many ties.
func TestSampleMatchesSorted(t *testing.T) {
	gen := rand.New(rand.NewPCG(11, 12))
	for c := 0; c < 60; c++ {
		n := 1 + gen.IntN(700)
		logits := make([]float32, n)
		for i := range logits {
			switch c % 3 {
			case 0:
				logits[i] = float32(gen.NormFloat64() * 3)
			case 1: // few distinct values: ties everywhere
				logits[i] = float32(gen.IntN(4))
			default: // peaked
				logits[i] = float32(gen.NormFloat64())
				if i%97 == 0 {
					logits[i] += 12
				}
			}
		}
		for _, temp := range []float32{0, 0.3, 1, 1.7} {
			for _, topP := range []float32{0.05, 0.5, 0.9, 0.999, 1} {
				name := fmt.Sprintf("case %d n=%d T=%g p=%g", c, n, temp, topP)
				r1, r2 := NewRand(uint64(c), 3), NewRand(uint64(c), 3)
				for k := 0; k < 40; k++ {
					t1, l1 := Sample(logits, temp, topP, r1)
					t2, l2 := sampleSorted(logits, temp, topP, r2)
					if t1 != t2 || math.Float32bits(l1) != math.Float32bits(l2) {
						t.Fatalf("%s draw %d: got (%d, %g), reference (%d, %g)", name, k, t1, l1, t2, l2)
					}
				}
			}
		}
	}
}

// BenchmarkSample compares the sampler with the full-sort reference on a
// 6000-token vocabulary of model-like logits, with and without top-p.
func BenchmarkSample(b *testing.B) {
	gen := rand.New(rand.NewPCG(1, 2))
	logits := make([]float32, 6000)
	for i := range logits {
		logits[i] = float32(gen.NormFloat64() * 2)
	}
	for _, topP := range []float32{1, 0.9} {
		for _, f := range []struct {
			name string
			fn   func([]float32, float32, float32, *rand.Rand) (int32, float32)
		}{{"partial", Sample}, {"sorted", sampleSorted}} {
			b.Run(fmt.Sprintf("topP=%g/%s", topP, f.name), func(b *testing.B) {
				rng := NewRand(1, 1)
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					f.fn(logits, 1, topP, rng)
				}
			})
		}
	}
}
