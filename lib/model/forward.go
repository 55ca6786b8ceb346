package model

import (
	"fmt"

	"github.com/pats-rl/pats/lib/vecmath"
)

// layerAct holds one layer's activations of one sequence (T rows).
type layerAct struct {
	xin, xn1, inv1 []float32 // residual input, its norm, 1/rms
	q, k, v        []float32 // projections, q and k rotated
	att, lse       []float32 // attention output (pre o_proj), log-sum-exp
	xmid, xn2      []float32 // residual after attention, its norm
	inv2           []float32
	g, u, h        []float32 // gate, up, silu(gate)*up
	// Qwen3 (issue 60, qknorm.go): q and k before the head norms, and
	// the 1/rms of each head row; nil for Qwen2.
	qraw, kraw, invq, invk []float32
}

// seqAct holds what the backward needs of one sequence's forward.
type seqAct struct {
	tokens []int32
	past   *seqAct // the prefix the tokens continue (forwardOn); nil for a whole sequence
	layers []layerAct
	xf     []float32 // residual stream after the last layer
	xnf    []float32 // final norm output
	invf   []float32
	rows   []int     // hidden rows projected to the vocabulary
	target []int32   // token each row predicts
	logits []float32 // len(rows) x vocab
	lse    []float32 // log-sum-exp of each logits row

	// recomputed: layers hold each layer's input only (keepInputs); the
	// backward recomputes the rest one layer at a time.
	recomputed bool
}

func (m *Model) linear(y, x []float32, rows int, w, b *Tensor) {
	out, in := w.Shape[0], w.Shape[1]
	m.be.MatMul(false, true, rows, out, in, 1, x, in, w.W, in, 0, y, out)
	if b != nil {
		for r := 0; r < rows; r++ {
			yr := y[r*out : (r+1)*out]
			for i, bv := range b.W {
				yr[i] += bv
			}
		}
	}
	m.loraForward(y, x, rows, w) // issue 60: the adapter's part, when w has one
}

// forward runs the decoder over one whole sequence and projects the hidden
// rows listed in rows to logits. With keep, every activation the backward
// needs is retained (or, under SetRecompute, each layer's input only).
func (m *Model) forward(tokens []int32, rows []int, keep bool) *seqAct {
	return m.forwardOn(nil, tokens, rows, keep)
}

// What a forward keeps for the backward (issue 60: recompute).
const (
	keepNone   = iota // nothing: scoring only
	keepAll           // every activation of every layer
	keepInputs        // each layer's input; the backward recomputes the rest (SetRecompute)
)

// forwardOn is forward for tokens that continue the sequence of past (a
// forward kept with keep): they take the positions after it and attend to
// its keys and values as well as their own. rows index tokens.
func (m *Model) forwardOn(past *seqAct, tokens []int32, rows []int, keep bool) *seqAct {
	mode := keepNone
	if keep {
		mode = keepAll
		if m.recompute {
			mode = keepInputs
		}
	}
	return m.forwardKeep(past, tokens, rows, mode)
}

// forwardKeep is forwardOn keeping what mode says.
func (m *Model) forwardKeep(past *seqAct, tokens []int32, rows []int, mode int) *seqAct {
	c := m.Cfg
	T, H := len(tokens), c.HiddenSize
	eps := float32(c.RMSNormEps)
	be := m.be
	a := &seqAct{tokens: tokens, rows: rows, past: past, recomputed: mode == keepInputs}
	x := make([]float32, T*H)
	for t, tok := range tokens {
		copy(x[t*H:(t+1)*H], m.Embed.W[int(tok)*H:(int(tok)+1)*H])
	}
	shape := m.attnShape(a)
	var L layerAct
	for li := range m.Layers {
		if mode == keepAll || li == 0 {
			L = m.newLayerAct(T, mode != keepNone)
		}
		if mode != keepNone {
			L.xin = append([]float32(nil), x...)
		}
		m.layerForward(a, li, &L, x, shape, mode == keepAll)
		switch mode {
		case keepAll:
			a.layers = append(a.layers, L)
		case keepInputs:
			a.layers = append(a.layers, layerAct{xin: L.xin})
		}
	}
	a.xf = x
	a.xnf = make([]float32, T*H)
	a.invf = make([]float32, T)
	be.RMSNorm(a.xnf, a.invf, x, m.Norm.W, T, H, eps)
	R, V := len(rows), c.VocabSize
	a.logits = make([]float32, R*V)
	if R == T {
		be.MatMul(false, true, T, V, H, 1, a.xnf, H, m.LMHead.W, H, 0, a.logits, V)
	} else if R > 0 {
		sel := make([]float32, R*H)
		for i, r := range rows {
			copy(sel[i*H:(i+1)*H], a.xnf[r*H:(r+1)*H])
		}
		be.MatMul(false, true, R, V, H, 1, sel, H, m.LMHead.W, H, 0, a.logits, V)
	}
	return a
}

// attnShape is the attention shape of a's rows.
func (m *Model) attnShape(a *seqAct) AttnShape {
	c := m.Cfg
	return AttnShape{Rows: len(a.tokens), Past: a.pastLen(), Heads: c.NumAttentionHeads, KVHeads: c.NumKeyValueHeads, HeadDim: c.HeadDim()}
}

// newLayerAct allocates one layer's activations for T rows (with the
// attention's log-sum-exp when the backward needs it).
func (m *Model) newLayerAct(T int, lse bool) layerAct {
	c := m.Cfg
	H, I, qd, kd := c.HiddenSize, c.IntermediateSize, c.QDim(), c.KVDim()
	L := layerAct{
		xn1: make([]float32, T*H), inv1: make([]float32, T),
		q: make([]float32, T*qd), k: make([]float32, T*kd), v: make([]float32, T*kd),
		att: make([]float32, T*qd), xn2: make([]float32, T*H), inv2: make([]float32, T),
		g: make([]float32, T*I), u: make([]float32, T*I), h: make([]float32, T*I),
	}
	if lse {
		L.lse = make([]float32, c.NumAttentionHeads*T)
	}
	L.allocQKNorm(c, T) // Qwen3 (issue 60)
	return L
}

// layerForward runs layer li of a over the residual stream x (T x H, in
// place) into L's buffers; keepMid keeps the residual after attention.
func (m *Model) layerForward(a *seqAct, li int, L *layerAct, x []float32, shape AttnShape, keepMid bool) {
	c := m.Cfg
	T, H, P := shape.Rows, c.HiddenSize, shape.Past
	eps := float32(c.RMSNormEps)
	be := m.be
	w := &m.Layers[li]
	be.RMSNorm(L.xn1, L.inv1, x, w.InputNorm.W, T, H, eps)
	m.linear(L.q, L.xn1, T, w.Q, w.QB)
	m.linear(L.k, L.xn1, T, w.K, w.KB)
	m.linear(L.v, L.xn1, T, w.V, w.VB)
	m.headNorm(L.q, L.qraw, L.invq, T, c.NumAttentionHeads, w.QNorm) // Qwen3 (issue 60)
	m.headNorm(L.k, L.kraw, L.invk, T, c.NumKeyValueHeads, w.KNorm)
	be.RoPE(L.q, T, c.NumAttentionHeads, c.HeadDim(), P, m.cos, m.sin, false)
	be.RoPE(L.k, T, c.NumKeyValueHeads, c.HeadDim(), P, m.cos, m.sin, false)
	kk, vv := a.keys(li, L.k, L.v)
	be.Attention(L.att, L.lse, L.q, kk, vv, shape)
	m.linearAdd(x, L.att, T, w.O) // issue 60: o_proj through linearAdd (its adapter)
	if keepMid {
		L.xmid = append([]float32(nil), x...)
	}
	be.RMSNorm(L.xn2, L.inv2, x, w.PostNorm.W, T, H, eps)
	m.linear(L.g, L.xn2, T, w.Gate, nil)
	m.linear(L.u, L.xn2, T, w.Up, nil)
	be.SwiGLU(L.h, L.g, L.u)
	m.linearAdd(x, L.h, T, w.Down) // issue 60: down_proj through linearAdd (its adapter)
}

// pastLen is the number of positions before a's tokens.
func (a *seqAct) pastLen() int {
	if a.past == nil {
		return 0
	}
	return len(a.past.tokens)
}

// keys returns the keys and values layer li of a attends to: k and v, its
// own, after its past's when it has one.
func (a *seqAct) keys(li int, k, v []float32) (kk, vv []float32) {
	if a.past == nil {
		return k, v
	}
	pl := &a.past.layers[li]
	return append(append(make([]float32, 0, len(pl.k)+len(k)), pl.k...), k...),
		append(append(make([]float32, 0, len(pl.v)+len(v)), pl.v...), v...)
}

// scoredRows lists the hidden rows that predict the tokens selected by
// mask (nil: all tokens after the first): row t-1 predicts token t.
func scoredRows(seq []int32, mask []bool) (rows []int, target []int32) {
	for t := 1; t < len(seq); t++ {
		if mask == nil || (t < len(mask) && mask[t]) {
			rows = append(rows, t-1)
			target = append(target, seq[t])
		}
	}
	return rows, target
}

// Logits returns the next-token logits at every position of seq
// (len(seq) x vocab, row-major): row t scores the token after seq[t].
func (m *Model) Logits(seq []int32) ([]float32, error) {
	if err := m.checkSeq(seq); err != nil {
		return nil, err
	}
	if m.acc != nil {
		if err := m.errDevice(); err != nil {
			return nil, err
		}
		out := make([]float32, len(seq)*m.Cfg.VocabSize)
		if err := m.accPrepare(false); err != nil {
			return nil, err
		}
		if err := m.acc.Logits(seq, out); err != nil {
			return nil, err
		}
		return out, nil
	}
	rows := make([]int, len(seq))
	for i := range rows {
		rows[i] = i
	}
	return m.forward(seq, rows, false).logits, nil
}

// LogProbs returns, per sequence, lp[t] = log p(seq[t] | seq[:t]) for
// every t >= 1 selected by masks (masks nil, or masks[i] nil, selects all;
// masks[i][t] false skips t); lp[0] and skipped entries are 0. ent, of the
// same shape, is the entropy in nats of the distribution that predicts
// seq[t]. Only selected positions pay for the vocabulary projection.
func (m *Model) LogProbs(seqs [][]int32, masks [][]bool) (lp, ent [][]float32, err error) {
	lp = make([][]float32, len(seqs))
	ent = make([][]float32, len(seqs))
	for i, seq := range seqs {
		if err := m.checkSeq(seq); err != nil {
			return nil, nil, fmt.Errorf("sequence %d: %w", i, err)
		}
		var mask []bool
		if masks != nil {
			mask = masks[i]
		}
		if err := m.cancelled(); err != nil {
			return nil, nil, err
		}
		rows, target := scoredRows(seq, mask)
		if m.acc != nil {
			if err := m.errDevice(); err != nil {
				return nil, nil, err
			}
			if lp[i], ent[i], _, err = m.accForward(seq, rows, target, false); err != nil {
				return nil, nil, fmt.Errorf("sequence %d: %w", i, err)
			}
			continue
		}
		a := m.forward(seq, rows, false)
		lp[i], ent[i] = m.scatterScores(a, len(seq), target)
	}
	return lp, ent, nil
}

func (m *Model) scatterScores(a *seqAct, T int, target []int32) (lp, ent []float32) {
	R := len(a.rows)
	l := make([]float32, R)
	e := make([]float32, R)
	a.lse = make([]float32, R)
	if R > 0 && m.invTemp != 0 {
		// The scored rows' logits become logits / temperature; backwardOn
		// scales their gradient back.
		vecmath.Scale(m.invTemp, a.logits[:R*m.Cfg.VocabSize])
	}
	if R > 0 {
		m.be.LogSoftmax(l, e, a.lse, a.logits, target, R, m.Cfg.VocabSize)
	}
	lp = make([]float32, T)
	ent = make([]float32, T)
	for i, r := range a.rows {
		lp[r+1] = l[i]
		ent[r+1] = e[i]
	}
	return lp, ent
}
