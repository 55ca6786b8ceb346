package model

// Qwen3's query and key head norms (issue 60). Each head of each row of the
// projected queries and keys is RMS-normalised and scaled by q_norm or
// k_norm (head_dim weights, the same for every head), before RoPE, with the
// model's rms_norm_eps. A Qwen2 layer has neither (its QNorm and KNorm are
// nil) and every function here leaves its buffers as they are.

// allocQKNorm gives a layer's activations of T rows the buffers the head
// norms keep for the backward: the projections before the norm and the
// 1/rms of each head row. Nothing for Qwen2.
func (L *layerAct) allocQKNorm(c Config, T int) {
	if !c.QKNorm() {
		return
	}
	L.qraw, L.kraw = make([]float32, T*c.QDim()), make([]float32, T*c.KVDim())
	L.invq, L.invk = make([]float32, T*c.NumAttentionHeads), make([]float32, T*c.NumKeyValueHeads)
}

// headNorm normalises x (rows x heads*head_dim) in place with w, one
// RMSNorm row per head; raw receives x as it was (len(x) floats) and inv
// the 1/rms of each of the rows*heads head rows. w nil (Qwen2) leaves x as
// it is.
func (m *Model) headNorm(x, raw, inv []float32, rows, heads int, w *Tensor) {
	if w == nil {
		return
	}
	copy(raw, x)
	m.be.RMSNorm(x, inv, raw, w.W, rows*heads, m.Cfg.HeadDim(), float32(m.Cfg.RMSNormEps))
}

// headNormBackward turns dx, the gradient of the normed heads, into that of
// the projection before the norm, in place, and accumulates w's gradient;
// raw and inv are what headNorm kept. w nil (Qwen2) leaves dx as it is.
func (m *Model) headNormBackward(dx, raw, inv []float32, rows, heads int, w *Tensor) {
	if w == nil {
		return
	}
	dy := append([]float32(nil), dx...)
	clear(dx)
	m.be.RMSNormBackward(dx, w.G, dy, raw, w.W, inv, rows*heads, m.Cfg.HeadDim())
}

// qkScratch is the scratch a decoding step of T rows takes from its arena
// for the head norms (headNorm's raw and inv, reused for queries and
// keys): none for Qwen2.
func qkScratch(c Config, T int) int {
	if !c.QKNorm() {
		return 0
	}
	return T * (c.QDim() + c.NumAttentionHeads)
}

// takeQKScratch takes qkScratch's buffers from a decoding step's arena:
// nil for Qwen2.
func takeQKScratch(ar *arena, c Config, T int) (raw, inv []float32) {
	if !c.QKNorm() {
		return nil, nil
	}
	return ar.take(T * c.QDim()), ar.take(T * c.NumAttentionHeads)
}
