package policy

import (
	"sort"
	"sync"

	"github.com/pats-rl/pats/lib/model"
)

// batcher gathers the decoding steps of the episodes in flight into one
// batched forward (model.AppendBatch). Every participant (a rollout worker)
// either waits in Append or has retired; a step runs when all participants
// still working are waiting, so the batch holds exactly the episodes in
// flight, in a fixed order (by episode key). The composition of every
// batch is therefore a function of the rollout, not of thread timing, and
// so are the logits.
type batcher struct {
	m       *model.Model
	mu      sync.Mutex
	cond    *sync.Cond
	active  int
	pending []*request
}

type request struct {
	key    int64
	dec    *model.Decoder
	tokens []int32
	logits []float32
	err    error
	done   bool
	// With sample set the request wants a token drawn (appendSample):
	// s and u say how, tok and logp are the result.
	sample bool
	s      model.Sampling
	u      float64
	tok    int32
	logp   float32
}

func newBatcher(m *model.Model, participants int) *batcher {
	b := &batcher{m: m, active: participants}
	b.cond = sync.NewCond(&b.mu)
	return b
}

// append feeds tokens to dec as part of the next batched step.
func (b *batcher) append(key int64, dec *model.Decoder, tokens []int32) ([]float32, error) {
	r := b.wait(&request{key: key, dec: dec, tokens: tokens})
	return r.logits, r.err
}

// appendSample feeds tokens to dec as part of the next batched step and
// draws the token after them as s says with the uniform u (on the device
// when the model is on one).
func (b *batcher) appendSample(key int64, dec *model.Decoder, tokens []int32, s model.Sampling, u float64) (int32, float32, error) {
	r := b.wait(&request{key: key, dec: dec, tokens: tokens, sample: true, s: s, u: u})
	return r.tok, r.logp, r.err
}

func (b *batcher) wait(r *request) *request {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.pending = append(b.pending, r)
	if len(b.pending) >= b.active {
		b.step()
	}
	for !r.done {
		b.cond.Wait()
	}
	return r
}

// retire removes one participant for good.
func (b *batcher) retire() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.active--
	if len(b.pending) > 0 && len(b.pending) >= b.active {
		b.step()
	}
}

// step runs the pending requests as one batch; b.mu is held.
func (b *batcher) step() {
	reqs := b.pending
	b.pending = nil
	sort.Slice(reqs, func(i, j int) bool { return reqs[i].key < reqs[j].key })
	decs := make([]*model.Decoder, len(reqs))
	chunks := make([][]int32, len(reqs))
	for i, r := range reqs {
		decs[i], chunks[i] = r.dec, r.tokens
	}
	if sampleAll(reqs) {
		// Every request draws its token where the model is (the device):
		// no logits come back.
		us := make([]float64, len(reqs))
		for i, r := range reqs {
			us[i] = r.u
		}
		toks, lps, err := b.m.AppendSampleBatch(decs, chunks, reqs[0].s, us)
		if err == nil {
			for i, r := range reqs {
				r.tok, r.logp, r.done = toks[i], lps[i], true
			}
			b.cond.Broadcast()
			return
		}
		// Fall back to one by one so that one bad request fails alone.
		for _, r := range reqs {
			r.tok, r.logp, r.err = r.dec.AppendSample(r.tokens, r.s, r.u)
			r.done = true
		}
		b.cond.Broadcast()
		return
	}
	out, err := b.m.AppendBatch(decs, chunks)
	if err != nil {
		// Fall back to one by one so that one bad request fails alone.
		for _, r := range reqs {
			r.logits, r.err = r.dec.Append(r.tokens)
			r.done = true
		}
	} else {
		for i, r := range reqs {
			r.logits, r.done = out[i], true
		}
	}
	for _, r := range reqs {
		if r.sample && r.err == nil {
			r.tok, r.logp = model.SampleU(r.logits, r.s.Temperature, r.s.TopP, r.u)
			r.logits = nil
		}
	}
	b.cond.Broadcast()
}

// sampleAll reports whether every request draws a token with the same
// sampling settings.
func sampleAll(reqs []*request) bool {
	for _, r := range reqs {
		if !r.sample || r.s != reqs[0].s {
			return false
		}
	}
	return len(reqs) > 0
}
