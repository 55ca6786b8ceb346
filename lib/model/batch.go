package model

import (
	"runtime"
	"sync"

	"github.com/pats-rl/pats/lib/gemm"
)

// AppendBatch feeds chunks[i] to decs[i] for every i in one batched pass:
// the rows of all chunks go through each linear layer together (one matrix
// product per layer for the whole batch), and each decoder attends over its
// own cache. It returns, per decoder, the logits of the token after its
// chunk. The result for one decoder depends only on its cache and chunk and
// on the batch as given (rows in order), so a deterministic caller gets
// deterministic logits. On error no decoder changes.
func (m *Model) AppendBatch(decs []*Decoder, chunks [][]int32) ([][]float32, error) {
	c := m.Cfg
	if err := m.checkBatch(decs, chunks); err != nil || len(decs) == 0 {
		return nil, err
	}
	if m.acc != nil {
		out, _, _, err := m.accAppend(decs, chunks, true, nil, nil)
		return out, err
	}
	off := make([]int, len(decs)+1)
	for i := range decs {
		off[i+1] = off[i] + len(chunks[i])
	}
	T, H, I := off[len(decs)], c.HiddenSize, c.IntermediateSize
	qd, kd, hd := c.QDim(), c.KVDim(), c.HeadDim()
	eps := float32(c.RMSNormEps)
	be := m.be
	x := make([]float32, T*H) // before the arena: its last rows are read after
	for i := range decs {
		for t, tok := range chunks[i] {
			r := off[i] + t
			copy(x[r*H:(r+1)*H], m.Embed.W[int(tok)*H:(int(tok)+1)*H])
		}
	}
	attWork := 0
	for i, d := range decs {
		attWork += len(chunks[i]) * (d.n + len(chunks[i])) * qd
	}
	ar := getArena(T*(2*H+1+2*qd+2*kd+3*I) + qkScratch(c, T))
	defer putArena(ar)
	xn, inv, q := ar.take(T*H), ar.take(T), ar.take(T*qd)
	kn, vn, att := ar.take(T*kd), ar.take(T*kd), ar.take(T*qd)
	g, u, h := ar.take(T*I), ar.take(T*I), ar.take(T*I)
	hraw, hinv := takeQKScratch(ar, c, T) // Qwen3 (issue 60)
	for li := range m.Layers {
		w := &m.Layers[li]
		be.RMSNorm(xn, inv, x, w.InputNorm.W, T, H, eps)
		m.linear(q, xn, T, w.Q, w.QB)
		m.linear(kn, xn, T, w.K, w.KB)
		m.linear(vn, xn, T, w.V, w.VB)
		m.headNorm(q, hraw, hinv, T, c.NumAttentionHeads, w.QNorm) // Qwen3 (issue 60)
		m.headNorm(kn, hraw, hinv, T, c.NumKeyValueHeads, w.KNorm)
		for i, d := range decs {
			rows, past := len(chunks[i]), d.n
			a, b := off[i], off[i+1]
			qi := q[a*qd : b*qd]
			be.RoPE(qi, rows, c.NumAttentionHeads, hd, past, m.cos, m.sin, false)
			kc := grow(d.k[li], rows*kd)
			vc := grow(d.v[li], rows*kd)
			copy(kc[past*kd:], kn[a*kd:b*kd])
			copy(vc[past*kd:], vn[a*kd:b*kd])
			be.RoPE(kc[past*kd:], rows, c.NumKeyValueHeads, hd, past, m.cos, m.sin, false)
			d.k[li], d.v[li] = kc, vc
		}
		// Each decoder's attention reads its own cache and writes its own
		// rows of att, so the decoders run side by side; the arithmetic of
		// each is the same whichever goroutine runs it.
		forEach(len(decs), attWork, func(i int) {
			d, rows := decs[i], len(chunks[i])
			a, b := off[i], off[i+1]
			shape := AttnShape{Rows: rows, Past: d.n, Heads: c.NumAttentionHeads, KVHeads: c.NumKeyValueHeads, HeadDim: hd}
			be.Attention(att[a*qd:b*qd], nil, q[a*qd:b*qd], d.k[li], d.v[li], shape)
		})
		m.linearAdd(x, att, T, w.O) // issue 60: with its adapter
		be.RMSNorm(xn, inv, x, w.PostNorm.W, T, H, eps)
		m.linear(g, xn, T, w.Gate, nil)
		m.linear(u, xn, T, w.Up, nil)
		be.SwiGLU(h, g, u)
		m.linearAdd(x, h, T, w.Down) // issue 60: with its adapter
	}
	B := len(decs)
	last := make([]float32, B*H)
	for i, d := range decs {
		d.n += len(chunks[i])
		copy(last[i*H:(i+1)*H], x[(off[i+1]-1)*H:off[i+1]*H])
	}
	be.RMSNorm(xn[:B*H], inv[:B], last, m.Norm.W, B, H, eps)
	logits := make([]float32, B*c.VocabSize)
	be.MatMul(false, true, B, c.VocabSize, H, 1, xn[:B*H], H, m.LMHead.W, H, 0, logits, c.VocabSize)
	out := make([][]float32, B)
	for i := range out {
		out[i] = logits[i*c.VocabSize : (i+1)*c.VocabSize]
	}
	return out, nil
}

// forEach runs f(0..n-1) on up to GOMAXPROCS goroutines taking indices
// from a shared counter (the caller's goroutine and gemm's helpers), or on
// the caller alone when work (a rough count of multiply-adds) is too small
// to pay for the hand-off. Each index must touch disjoint outputs.
func forEach(n, work int, f func(i int)) {
	workers := runtime.GOMAXPROCS(0)
	if work < 1<<15 {
		workers = 1
	}
	gemm.Parallel(workers, n, f)
}

// arena is scratch space for the activations of one decoding step, kept
// between steps (through arenas) so that decoding does not allocate and
// clear them per token. Every buffer taken from it is written before it is
// read.
type arena struct {
	buf []float32
	off int
}

var arenas sync.Pool

func getArena(n int) *arena {
	a, _ := arenas.Get().(*arena)
	if a == nil {
		a = new(arena)
	}
	if cap(a.buf) < n {
		a.buf = make([]float32, n)
	}
	a.buf, a.off = a.buf[:n], 0
	return a
}

func putArena(a *arena) { arenas.Put(a) }

// take returns the next n floats of the arena.
func (a *arena) take(n int) []float32 {
	s := a.buf[a.off : a.off+n : a.off+n]
	a.off += n
	return s
}
