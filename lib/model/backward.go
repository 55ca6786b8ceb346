package model

import (
	"fmt"

	"github.com/pats-rl/pats/lib/vecmath"
)

// Backward accumulates into the parameter gradients (allocated on first
// use, never cleared here: call ZeroGrad between steps) the gradient of
// L = sum_i sum_t dLogp[i][t] * log p(seqs[i][t] | seqs[i][:t]).
// dLogp has the shape of LogProbs' output; dLogp[i][0] is ignored and
// positions with a zero weight cost no vocabulary projection. The forward
// pass is recomputed, one sequence at a time.
func (m *Model) Backward(seqs [][]int32, dLogp [][]float32) error {
	if len(dLogp) != len(seqs) {
		return fmt.Errorf("backward: %d weight rows for %d sequences", len(dLogp), len(seqs))
	}
	masks := make([][]bool, len(seqs))
	for i, seq := range seqs {
		if len(dLogp[i]) != len(seq) {
			return fmt.Errorf("backward: sequence %d has %d tokens but %d weights", i, len(seq), len(dLogp[i]))
		}
		masks[i] = make([]bool, len(seq))
		for t := 1; t < len(seq); t++ {
			masks[i][t] = dLogp[i][t] != 0
		}
	}
	_, _, err := m.ForwardBackward(seqs, masks, func(i int, _, _ []float32) []float32 { return dLogp[i] })
	return err
}

// ForwardBackward runs, one sequence at a time, the forward of LogProbs
// (same masks), calls weights(i, lp, ent) with sequence i's log-probs and
// entropies, and backpropagates the returned per-token weights
// d(loss)/d(lp) (same length as the sequence; entries outside the mask
// are ignored) into the parameter gradients. It returns all log-probs and
// entropies. This avoids a second forward when the weights depend on the
// current log-probs (importance ratios, clipping).
func (m *Model) ForwardBackward(seqs [][]int32, masks [][]bool, weights func(i int, lp, ent []float32) []float32) (lp, ent [][]float32, err error) {
	for i, seq := range seqs {
		if err := m.checkSeq(seq); err != nil {
			return nil, nil, fmt.Errorf("sequence %d: %w", i, err)
		}
	}
	if m.acc != nil {
		return m.accForwardBackward(seqs, masks, weights)
	}
	m.ensureGrad()
	lp = make([][]float32, len(seqs))
	ent = make([][]float32, len(seqs))
	for i, seq := range seqs {
		if err := m.cancelled(); err != nil {
			return nil, nil, err
		}
		var mask []bool
		if masks != nil {
			mask = masks[i]
		}
		rows, target := scoredRows(seq, mask)
		a := m.forward(seq, rows, true)
		a.target = target
		lp[i], ent[i] = m.scatterScores(a, len(seq), target)
		dlp, err := rowWeights(weights, i, lp[i], ent[i], rows)
		if err != nil {
			return nil, nil, err
		}
		m.backward(a, dlp)
	}
	return lp, ent, nil
}

// linearBackward accumulates dW += dy^T x, db += colsum(dy), and
// dx (+)= dy W (beta 0 overwrites dx, 1 adds). Under LoRA (issue 60) the
// base W and b are frozen (no dW, db) and the adapter of W, if any, gets
// its gradients and adds its part to dx.
func (m *Model) linearBackward(dx []float32, beta float32, dy, x []float32, rows int, w, b *Tensor) {
	out, in := w.Shape[0], w.Shape[1]
	if m.lora == nil {
		m.be.MatMul(true, false, out, in, rows, 1, dy, out, x, in, 1, w.G, in)
		if b != nil {
			for r := 0; r < rows; r++ {
				dr := dy[r*out : (r+1)*out]
				for i, v := range dr {
					b.G[i] += v
				}
			}
		}
	}
	m.be.MatMul(false, false, rows, in, out, 1, dy, out, w.W, in, beta, dx, in)
	m.loraBackward(dx, dy, x, rows, w)
}

// normBackward is RMSNormBackward of the norm weight w; a frozen base
// (LoRA) takes w's gradient into a scratch buffer that is dropped.
func (m *Model) normBackward(dx []float32, w *Tensor, dy, x, inv []float32, rows, dim int) {
	g := w.G
	if m.lora != nil {
		g = make([]float32, len(w.W))
	}
	m.be.RMSNormBackward(dx, g, dy, x, w.W, inv, rows, dim)
}

// backward backpropagates per-row weights dlp of the scored rows of a.
func (m *Model) backward(a *seqAct, dlp []float32) { m.backwardOn(a, dlp, nil, nil) }

// backwardOn is backward for a forwardOn: toPast (per layer, the gradients
// of the past's rotated keys and values) accumulates what a's rows send to
// its past, and fromRest (the same shape for a's own keys and values) is
// added to what a's own rows give them, the gradients that sequences
// continuing a sent back. Either may be nil.
func (m *Model) backwardOn(a *seqAct, dlp []float32, toPast, fromRest [][2][]float32) {
	c := m.Cfg
	T, H, I, V := len(a.tokens), c.HiddenSize, c.IntermediateSize, c.VocabSize
	qd, kd := c.QDim(), c.KVDim()
	be := m.be
	R := len(a.rows)
	dx := make([]float32, T*H)
	if R > 0 {
		dlogits := make([]float32, R*V)
		be.LogSoftmaxBackward(dlogits, a.logits, a.lse, a.target, dlp, R, V)
		if m.invTemp != 0 {
			vecmath.Scale(m.invTemp, dlogits)
		}
		sel := make([]float32, R*H)
		for i, r := range a.rows {
			copy(sel[i*H:(i+1)*H], a.xnf[r*H:(r+1)*H])
		}
		if m.lora == nil { // issue 60: frozen under LoRA
			be.MatMul(true, false, V, H, R, 1, dlogits, V, sel, H, 1, m.LMHead.G, H)
		}
		dsel := make([]float32, R*H)
		be.MatMul(false, false, R, H, V, 1, dlogits, V, m.LMHead.W, H, 0, dsel, H)
		dxnf := make([]float32, T*H)
		for i, r := range a.rows {
			copy(dxnf[r*H:(r+1)*H], dsel[i*H:(i+1)*H])
		}
		m.normBackward(dx, m.Norm, dxnf, a.xf, a.invf, T, H)
	}
	P := a.pastLen()
	shape := AttnShape{Rows: T, Past: P, Heads: c.NumAttentionHeads, KVHeads: c.NumKeyValueHeads, HeadDim: c.HeadDim()}
	var dkc, dvc []float32 // with a past: the gradients of every key and value the rows saw
	if P > 0 {
		dkc, dvc = make([]float32, (P+T)*kd), make([]float32, (P+T)*kd)
	}
	dh := make([]float32, T*I)
	dg := make([]float32, T*I)
	du := make([]float32, T*I)
	dn := make([]float32, T*H)
	datt := make([]float32, T*qd)
	dq := make([]float32, T*qd)
	dk := make([]float32, T*kd)
	dv := make([]float32, T*kd)
	for li := len(m.Layers) - 1; li >= 0; li-- {
		w := &m.Layers[li]
		L := m.restoreLayer(a, li) // issue 60: recomputed under SetRecompute
		// MLP: x_out = xmid + h Down^T.
		m.linearBackward(dh, 0, dx, L.h, T, w.Down, nil)
		be.SwiGLUBackward(dg, du, dh, L.g, L.u)
		m.linearBackward(dn, 0, dg, L.xn2, T, w.Gate, nil)
		m.linearBackward(dn, 1, du, L.xn2, T, w.Up, nil)
		m.normBackward(dx, w.PostNorm, dn, L.xmid, L.inv2, T, H)
		// Attention: xmid = xin + att O^T.
		m.linearBackward(datt, 0, dx, L.att, T, w.O, nil)
		clear(dq)
		if P == 0 {
			clear(dk)
			clear(dv)
			be.AttentionBackward(dq, dk, dv, datt, L.q, L.k, L.v, L.att, L.lse, shape)
		} else {
			clear(dkc)
			clear(dvc)
			kk, vv := a.keys(li, L.k, L.v)
			be.AttentionBackward(dq, dkc, dvc, datt, L.q, kk, vv, L.att, L.lse, shape)
			copy(dk, dkc[P*kd:])
			copy(dv, dvc[P*kd:])
			if toPast != nil {
				vecmath.Axpy(1, dkc[:P*kd], toPast[li][0])
				vecmath.Axpy(1, dvc[:P*kd], toPast[li][1])
			}
		}
		if fromRest != nil {
			vecmath.Axpy(1, fromRest[li][0], dk)
			vecmath.Axpy(1, fromRest[li][1], dv)
		}
		be.RoPE(dq, T, c.NumAttentionHeads, c.HeadDim(), P, m.cos, m.sin, true)
		be.RoPE(dk, T, c.NumKeyValueHeads, c.HeadDim(), P, m.cos, m.sin, true)
		m.headNormBackward(dq, L.qraw, L.invq, T, c.NumAttentionHeads, w.QNorm) // Qwen3 (issue 60)
		m.headNormBackward(dk, L.kraw, L.invk, T, c.NumKeyValueHeads, w.KNorm)
		m.linearBackward(dn, 0, dq, L.xn1, T, w.Q, w.QB)
		m.linearBackward(dn, 1, dk, L.xn1, T, w.K, w.KB)
		m.linearBackward(dn, 1, dv, L.xn1, T, w.V, w.VB)
		m.normBackward(dx, w.InputNorm, dn, L.xin, L.inv1, T, H)
	}
	if m.lora != nil { // issue 60: the embedding is frozen under LoRA
		return
	}
	for t, tok := range a.tokens {
		g := m.Embed.G[int(tok)*H : (int(tok)+1)*H]
		for i, v := range dx[t*H : (t+1)*H] {
			g[i] += v
		}
	}
}

// ForwardBackwardPrefix is ForwardBackward for sequences that all begin
// with the same p tokens, as the turn sequences of an episode rolled out
// with a history window begin with its prompt: the prefix runs forward
// once, the rest of each sequence continues it (attending to its keys and
// values), and the prefix's backward runs once with the gradients that
// every rest sent to its keys and values. The prefix is context only: no
// position t <= p may be selected by masks. Log-probs, entropies and
// gradients equal ForwardBackward's up to float rounding; with an
// accelerator attached it is ForwardBackward.
func (m *Model) ForwardBackwardPrefix(p int, seqs [][]int32, masks [][]bool, weights func(i int, lp, ent []float32) []float32) (lp, ent [][]float32, err error) {
	if p < 0 || len(seqs) == 0 || masks == nil || len(masks) != len(seqs) {
		return nil, nil, fmt.Errorf("prefix: %d sequences, %d masks, prefix %d", len(seqs), len(masks), p)
	}
	for i, seq := range seqs {
		if err := m.checkSeq(seq); err != nil {
			return nil, nil, fmt.Errorf("sequence %d: %w", i, err)
		}
		if len(seq) <= p {
			return nil, nil, fmt.Errorf("sequence %d: %d tokens, not more than the prefix of %d", i, len(seq), p)
		}
		for t := 0; t < p; t++ {
			if seq[t] != seqs[0][t] {
				return nil, nil, fmt.Errorf("sequence %d: token %d differs from the shared prefix", i, t)
			}
		}
		for t := 0; t <= p && t < len(masks[i]); t++ {
			if masks[i][t] {
				return nil, nil, fmt.Errorf("sequence %d: position %d is scored but inside the prefix of %d", i, t, p)
			}
		}
	}
	if m.acc != nil || p == 0 {
		return m.ForwardBackward(seqs, masks, weights)
	}
	m.ensureGrad()
	kd := m.Cfg.KVDim()
	pre := m.forwardKeep(nil, seqs[0][:p], nil, keepAll) // issue 60: the prefix is never recomputed
	toPrefix := make([][2][]float32, len(m.Layers))
	for li := range toPrefix {
		toPrefix[li] = [2][]float32{make([]float32, p*kd), make([]float32, p*kd)}
	}
	lp = make([][]float32, len(seqs))
	ent = make([][]float32, len(seqs))
	for i, seq := range seqs {
		if err := m.cancelled(); err != nil {
			return nil, nil, err
		}
		rows, target := scoredRows(seq, masks[i])
		rest := make([]int, len(rows))
		for j, r := range rows {
			rest[j] = r - p
		}
		a := m.forwardOn(pre, seq[p:], rest, true)
		a.target = target
		l, e := m.scatterScores(a, len(seq)-p, target)
		lp[i] = append(make([]float32, p, len(seq)), l...)
		ent[i] = append(make([]float32, p, len(seq)), e...)
		dlp, err := rowWeights(weights, i, lp[i], ent[i], rows)
		if err != nil {
			return nil, nil, err
		}
		m.backwardOn(a, dlp, toPrefix, nil)
	}
	m.backwardOn(pre, nil, nil, toPrefix)
	return lp, ent, nil
}

// rowWeights calls weights for sequence i and returns its weights at the
// scored rows (row r weighs the token at r+1).
func rowWeights(weights func(i int, lp, ent []float32) []float32, i int, lp, ent []float32, rows []int) ([]float32, error) {
	w := weights(i, lp, ent)
	if len(w) != len(lp) {
		return nil, fmt.Errorf("sequence %d: %d weights for %d tokens", i, len(w), len(lp))
	}
	dlp := make([]float32, len(rows))
	for j, r := range rows {
		dlp[j] = w[r+1]
	}
	return dlp, nil
}
