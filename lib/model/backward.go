package model

import "fmt"

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
		var mask []bool
		if masks != nil {
			mask = masks[i]
		}
		rows, target := scoredRows(seq, mask)
		a := m.forward(seq, rows, true)
		a.target = target
		lp[i], ent[i] = m.scatterScores(a, len(seq), target)
		w := weights(i, lp[i], ent[i])
		if len(w) != len(seq) {
			return nil, nil, fmt.Errorf("sequence %d: %d weights for %d tokens", i, len(w), len(seq))
		}
		dlp := make([]float32, len(rows))
		for j, r := range rows {
			dlp[j] = w[r+1]
		}
		m.backward(a, dlp)
	}
	return lp, ent, nil
}

// linearBackward accumulates dW += dy^T x, db += colsum(dy), and
// dx (+)= dy W (beta 0 overwrites dx, 1 adds).
func (m *Model) linearBackward(dx []float32, beta float32, dy, x []float32, rows int, w, b *Tensor) {
	out, in := w.Shape[0], w.Shape[1]
	m.be.MatMul(true, false, out, in, rows, 1, dy, out, x, in, 1, w.G, in)
	if b != nil {
		for r := 0; r < rows; r++ {
			dr := dy[r*out : (r+1)*out]
			for i, v := range dr {
				b.G[i] += v
			}
		}
	}
	m.be.MatMul(false, false, rows, in, out, 1, dy, out, w.W, in, beta, dx, in)
}

// backward backpropagates per-row weights dlp of the scored rows of a.
func (m *Model) backward(a *seqAct, dlp []float32) {
	c := m.Cfg
	T, H, I, V := len(a.tokens), c.HiddenSize, c.IntermediateSize, c.VocabSize
	qd, kd := c.QDim(), c.KVDim()
	be := m.be
	R := len(a.rows)
	dx := make([]float32, T*H)
	if R > 0 {
		dlogits := make([]float32, R*V)
		be.LogSoftmaxBackward(dlogits, a.logits, a.lse, a.target, dlp, R, V)
		sel := make([]float32, R*H)
		for i, r := range a.rows {
			copy(sel[i*H:(i+1)*H], a.xnf[r*H:(r+1)*H])
		}
		be.MatMul(true, false, V, H, R, 1, dlogits, V, sel, H, 1, m.LMHead.G, H)
		dsel := make([]float32, R*H)
		be.MatMul(false, false, R, H, V, 1, dlogits, V, m.LMHead.W, H, 0, dsel, H)
		dxnf := make([]float32, T*H)
		for i, r := range a.rows {
			copy(dxnf[r*H:(r+1)*H], dsel[i*H:(i+1)*H])
		}
		be.RMSNormBackward(dx, m.Norm.G, dxnf, a.xf, m.Norm.W, a.invf, T, H)
	}
	shape := AttnShape{Rows: T, Heads: c.NumAttentionHeads, KVHeads: c.NumKeyValueHeads, HeadDim: c.HeadDim()}
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
		L := &a.layers[li]
		// MLP: x_out = xmid + h Down^T.
		be.MatMul(true, false, H, I, T, 1, dx, H, L.h, I, 1, w.Down.G, I)
		be.MatMul(false, false, T, I, H, 1, dx, H, w.Down.W, I, 0, dh, I)
		be.SwiGLUBackward(dg, du, dh, L.g, L.u)
		m.linearBackward(dn, 0, dg, L.xn2, T, w.Gate, nil)
		m.linearBackward(dn, 1, du, L.xn2, T, w.Up, nil)
		be.RMSNormBackward(dx, w.PostNorm.G, dn, L.xmid, w.PostNorm.W, L.inv2, T, H)
		// Attention: xmid = xin + att O^T.
		be.MatMul(true, false, H, qd, T, 1, dx, H, L.att, qd, 1, w.O.G, qd)
		be.MatMul(false, false, T, qd, H, 1, dx, H, w.O.W, qd, 0, datt, qd)
		clear(dq)
		clear(dk)
		clear(dv)
		be.AttentionBackward(dq, dk, dv, datt, L.q, L.k, L.v, L.att, L.lse, shape)
		be.RoPE(dq, T, c.NumAttentionHeads, c.HeadDim(), 0, m.cos, m.sin, true)
		be.RoPE(dk, T, c.NumKeyValueHeads, c.HeadDim(), 0, m.cos, m.sin, true)
		m.linearBackward(dn, 0, dq, L.xn1, T, w.Q, w.QB)
		m.linearBackward(dn, 1, dk, L.xn1, T, w.K, w.KB)
		m.linearBackward(dn, 1, dv, L.xn1, T, w.V, w.VB)
		be.RMSNormBackward(dx, w.InputNorm.G, dn, L.xin, w.InputNorm.W, L.inv1, T, H)
	}
	for t, tok := range a.tokens {
		g := m.Embed.G[int(tok)*H : (int(tok)+1)*H]
		for i, v := range dx[t*H : (t+1)*H] {
			g[i] += v
		}
	}
}
