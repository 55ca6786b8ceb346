package model

// SetRecompute switches per-layer activation checkpointing on or off for
// ForwardBackward, Backward and the continuations of
// ForwardBackwardPrefix on the CPU: the forward keeps each layer's input
// only (T x hidden floats a layer instead of every activation), and the
// backward recomputes one layer's forward from its input just before
// that layer's backward, so that at most one layer's activations are
// held at a time. The recomputed forward runs the same operations on the
// same inputs, so log-probabilities and gradients are the same as without.
// A shared prefix (ForwardBackwardPrefix) keeps all of its activations,
// which every continuation attends to.
func (m *Model) SetRecompute(on bool) { m.recompute = on }

// Recompute says whether SetRecompute is on.
func (m *Model) Recompute() bool { return m.recompute }

// restoreLayer returns layer li's activations of a: those kept, or, for a
// forward that kept the layer's input only, the layer's forward run
// again from that input.
func (m *Model) restoreLayer(a *seqAct, li int) *layerAct {
	L := &a.layers[li]
	if !a.recomputed {
		return L
	}
	full := m.newLayerAct(len(a.tokens), true)
	full.xin = L.xin
	x := append([]float32(nil), L.xin...)
	m.layerForward(a, li, &full, x, m.attnShape(a), true)
	return &full
}

// keptBytes is the size of the activations a holds for its backward (the
// layers' and the final norm's; the logits are counted apart), what
// recomputation saves.
func (a *seqAct) keptBytes() int {
	n := len(a.xf) + len(a.xnf) + len(a.invf)
	for i := range a.layers {
		L := &a.layers[i]
		for _, s := range [][]float32{L.xin, L.xn1, L.inv1, L.q, L.k, L.v, L.att, L.lse, L.xmid, L.xn2, L.inv2, L.g, L.u, L.h} {
			n += len(s)
		}
	}
	return 4 * n
}
