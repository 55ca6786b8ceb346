package model

import (
	"math"
	"math/rand/v2"
	"sync"

	"github.com/pats-rl/pats/lib/vecmath"
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
		return SampleU(logits, temperature, topP, 0)
	}
	return SampleU(logits, temperature, topP, rng.Float64())
}

// SampleU is Sample with the uniform given: u in [0, 1) is the one
// rng.Float64 Sample draws per sampled token (ignored when greedy). The
// device draws with the same rule (pc_sampling), so a caller that keeps
// the generator on the host and samples on the device (AppendSample)
// advances it exactly as Sample does.
func SampleU(logits []float32, temperature, topP float32, u float64) (tok int32, logp float32) {
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
	buf := sampleBufs.Get().(*sampleBuf)
	defer sampleBufs.Put(buf)
	p := buf.probs(len(logits))
	for i, v := range logits {
		p[i] = float64(v)*inv - mx
	}
	vecmath.ExpF64(p, p) // math.Exp's bits, four at a time
	var sum float64
	for _, v := range p {
		sum += v
	}
	logZ := mx + math.Log(sum)
	lpOf := func(i int) float32 { return float32(float64(logits[i])*inv - logZ) }
	if topP > 0 && topP < 1 {
		i := buf.nucleus(p, float64(topP)*sum, u)
		return int32(i), lpOf(i)
	}
	r := u * sum
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

// sampleBuf is Sample's scratch space, kept between calls so that a
// sampled token allocates nothing.
type sampleBuf struct {
	p    []float64
	heap []int32
}

var sampleBufs = sync.Pool{New: func() any { return new(sampleBuf) }}

func (b *sampleBuf) probs(n int) []float64 {
	if cap(b.p) < n {
		b.p = make([]float64, n)
	}
	return b.p[:n]
}

// nucleus draws from the smallest set of most probable tokens (ties by
// lower id) whose mass reaches mass, renormalised: the uniform u scaled
// by the set's mass, then the set walked in order of decreasing
// probability. The set is found by partial selection (a binary heap
// popped until the mass is reached) rather than by sorting the whole
// vocabulary; the pops come out in the order a stable sort by decreasing
// probability gives, so the mass is summed and walked in that order.
func (b *sampleBuf) nucleus(p []float64, mass float64, u float64) int {
	if cap(b.heap) < len(p) {
		b.heap = make([]int32, len(p))
	}
	h := b.heap[:len(p)]
	for i := range h {
		h[i] = int32(i)
	}
	// before says whether token x comes before token y: higher
	// probability first, then lower id.
	before := func(x, y int32) bool { return p[x] > p[y] || (p[x] == p[y] && x < y) }
	down := func(h []int32, i int) {
		n := len(h)
		for {
			c := 2*i + 1
			if c >= n {
				return
			}
			if c+1 < n && before(h[c+1], h[c]) {
				c++
			}
			if !before(h[c], h[i]) {
				return
			}
			h[i], h[c] = h[c], h[i]
			i = c
		}
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		down(h, i)
	}
	// Popped tokens are kept, in order, at the end of the array.
	var cum float64
	end := len(h)
	for end > 0 {
		top := h[0]
		end--
		h[0] = h[end]
		h[end] = top
		down(h[:end], 0)
		cum += p[top]
		if cum >= mass {
			break
		}
	}
	r := u * cum
	for k := len(h) - 1; k >= end; k-- {
		r -= p[h[k]]
		if r < 0 {
			return int(h[k])
		}
	}
	return int(h[end])
}

// Rule is how a rollout draws each token of a checkpoint policy, as Hugging
// Face's generate does with the same settings: the repetition penalty on
// the logits of the tokens already in the context (a positive logit
// divided by it, a negative one multiplied), then the temperature, then
// the TopK most probable tokens (0: all), then the nucleus of mass TopP
// among them (1: no cut). Temperature <= 0 is greedy (after the penalty).
//
// The log-probability it records is that of the sampling distribution
// before the penalty and the cuts: log softmax(logits / temperature) over
// the whole vocabulary (temperature 1 when greedy). That is the
// distribution learn grpo scores (Model.SetScoringTemperature), so a
// policy's first update sees a ratio of 1; the penalty and the cuts only
// choose which token is drawn.
type Rule struct {
	Temperature       float32
	TopP              float32 // (0, 1]; 0 counts as 1
	TopK              int     // 0: no cut
	RepetitionPenalty float32 // 1 (or 0): none
}

// OnDevice reports whether a device can draw under r (Sampling): no top-k
// cut and no repetition penalty.
func (r Rule) OnDevice() bool {
	return r.TopK <= 0 && (r.RepetitionPenalty == 0 || r.RepetitionPenalty == 1)
}

// Sampling is r's temperature and top-p, what a device draws with.
func (r Rule) Sampling() Sampling { return Sampling{Temperature: r.Temperature, TopP: r.TopP} }

// Draw draws a token from logits under r with the uniform u (see SampleU);
// seen lists the tokens the repetition penalty applies to (the context so
// far; repeats are harmless). It returns the token and its recorded
// log-probability (see Rule).
func (r Rule) Draw(logits []float32, seen []int32, u float64) (tok int32, logp float32) {
	penalised := r.RepetitionPenalty != 0 && r.RepetitionPenalty != 1 && len(seen) > 0
	if !penalised {
		return SampleTopK(logits, r.Temperature, r.TopP, r.TopK, u)
	}
	pen := make([]float32, len(logits))
	copy(pen, logits)
	for _, id := range seen {
		if id < 0 || int(id) >= len(pen) {
			continue
		}
		if v := logits[id]; v > 0 {
			pen[id] = v / r.RepetitionPenalty
		} else {
			pen[id] = v * r.RepetitionPenalty
		}
	}
	tok, _ = SampleTopK(pen, r.Temperature, r.TopP, r.TopK, u)
	return tok, TemperedLogProb(logits, r.Temperature, tok)
}

// TemperedLogProb is log softmax(logits / temperature)[tok] (temperature 1
// when it is <= 0), computed as SampleU computes the log-probability it
// returns.
func TemperedLogProb(logits []float32, temperature float32, tok int32) float32 {
	if temperature <= 0 {
		_, l := logSumExp(logits)
		return logits[tok] - l
	}
	inv := 1 / float64(temperature)
	mx := math.Inf(-1)
	for _, v := range logits {
		mx = math.Max(mx, float64(v)*inv)
	}
	var sum float64
	for _, v := range logits {
		sum += math.Exp(float64(v)*inv - mx)
	}
	return float32(float64(logits[tok])*inv - (mx + math.Log(sum)))
}

// SampleTopK is SampleU restricted, before the nucleus, to the topK most
// probable tokens (ties by lower id): the nucleus is then the smallest
// prefix of them whose mass reaches topP of theirs, as Hugging Face's
// top-k then top-p warpers do. topK <= 0 or at least the vocabulary is
// SampleU. The log-probability is SampleU's: under softmax(logits /
// temperature) before any cut.
func SampleTopK(logits []float32, temperature, topP float32, topK int, u float64) (tok int32, logp float32) {
	if temperature <= 0 || topK <= 0 || topK >= len(logits) {
		return SampleU(logits, temperature, topP, u)
	}
	inv := 1 / float64(temperature)
	mx := math.Inf(-1)
	for _, v := range logits {
		if float64(v)*inv > mx {
			mx = float64(v) * inv
		}
	}
	buf := sampleBufs.Get().(*sampleBuf)
	defer sampleBufs.Put(buf)
	p := buf.probs(len(logits))
	for i, v := range logits {
		p[i] = float64(v)*inv - mx
	}
	vecmath.ExpF64(p, p)
	var sum float64
	for _, v := range p {
		sum += v
	}
	logZ := mx + math.Log(sum)
	top := buf.top(p, topK) // the topK most probable, in order
	var massK float64
	for _, i := range top {
		massK += p[i]
	}
	keep := len(top)
	if topP > 0 && topP < 1 {
		var cum float64
		for k, i := range top {
			cum += p[i]
			if cum >= float64(topP)*massK {
				keep = k + 1
				break
			}
		}
	}
	var cum float64
	for _, i := range top[:keep] {
		cum += p[i]
	}
	r := u * cum
	pick := top[keep-1]
	for _, i := range top[:keep] {
		r -= p[i]
		if r < 0 {
			pick = i
			break
		}
	}
	return pick, float32(float64(logits[pick])*inv - logZ)
}

// top returns the k most probable tokens of p in order of decreasing
// probability (ties by lower id), by partial selection as nucleus does.
func (b *sampleBuf) top(p []float64, k int) []int32 {
	if cap(b.heap) < len(p) {
		b.heap = make([]int32, len(p))
	}
	h := b.heap[:len(p)]
	for i := range h {
		h[i] = int32(i)
	}
	before := func(x, y int32) bool { return p[x] > p[y] || (p[x] == p[y] && x < y) }
	down := func(h []int32, i int) {
		n := len(h)
		for {
			c := 2*i + 1
			if c >= n {
				return
			}
			if c+1 < n && before(h[c+1], h[c]) {
				c++
			}
			if !before(h[c], h[i]) {
				return
			}
			h[i], h[c] = h[c], h[i]
			i = c
		}
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		down(h, i)
	}
	out := make([]int32, 0, k)
	end := len(h)
	for len(out) < k && end > 0 {
		out = append(out, h[0])
		end--
		h[0] = h[end]
		down(h[:end], 0)
	}
	return out
}
