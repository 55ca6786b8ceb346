package model

import "fmt"

// Decoder is incremental decoding state: the rotated keys and the values of
// every position appended so far, per layer (the KV cache). A Decoder is
// used by one goroutine at a time; several decoders may share one Model.
type Decoder struct {
	m    *Model
	k, v [][]float32 // per layer, n x kvdim
	n    int
	// On a device the cache is dev, of cap positions; err is a failure to
	// make it, reported by the next append.
	dev DeviceDecoder
	cap int
	err error
}

// NewDecoder returns an empty decoder over m. On a device its cache holds
// up to the decoder capacity (SetDecoderCapacity) positions.
func (m *Model) NewDecoder() *Decoder {
	if m.acc != nil {
		d := &Decoder{m: m, cap: m.decoderCapacity()}
		d.dev, d.err = m.acc.NewDecoder(d.cap)
		return d
	}
	L := len(m.Layers)
	return &Decoder{m: m, k: make([][]float32, L), v: make([][]float32, L)}
}

// Len is the number of positions in the cache.
func (d *Decoder) Len() int { return d.n }

// Clone returns an independent copy: appending to one does not affect the
// other. Use it to share a computed prompt among several continuations.
func (d *Decoder) Clone() *Decoder {
	if d.m.acc != nil {
		c := &Decoder{m: d.m, n: d.n, cap: d.cap, err: d.err}
		if d.err == nil {
			c.dev, c.err = d.dev.Clone()
		}
		return c
	}
	c := &Decoder{m: d.m, n: d.n, k: make([][]float32, len(d.k)), v: make([][]float32, len(d.v))}
	for i := range d.k {
		c.k[i] = append(make([]float32, 0, cap(d.k[i])), d.k[i]...)
		c.v[i] = append(make([]float32, 0, cap(d.v[i])), d.v[i]...)
	}
	return c
}

// Append feeds tokens (a whole prompt chunk, or one sampled token) at the
// next positions and returns the logits (vocab values) for the token that
// follows the last of them. An empty chunk, an out-of-range token or
// running past max_position_embeddings is an error and leaves the
// decoder unchanged.
func (d *Decoder) Append(tokens []int32) ([]float32, error) {
	m := d.m
	c := m.Cfg
	if len(tokens) == 0 {
		return nil, fmt.Errorf("decoder: empty append")
	}
	if d.n+len(tokens) > c.MaxPositionEmbeddings {
		return nil, fmt.Errorf("decoder: %d positions exceed max_position_embeddings %d", d.n+len(tokens), c.MaxPositionEmbeddings)
	}
	for _, t := range tokens {
		if t < 0 || int(t) >= c.VocabSize {
			return nil, fmt.Errorf("decoder: token %d outside vocabulary of %d", t, c.VocabSize)
		}
	}
	if m.acc != nil {
		if d.err != nil {
			return nil, d.err
		}
		out, _, _, err := m.accAppend([]*Decoder{d}, [][]int32{tokens}, true, nil, nil)
		if err != nil {
			return nil, err
		}
		return out[0], nil
	}
	T, H, I := len(tokens), c.HiddenSize, c.IntermediateSize
	qd, kd := c.QDim(), c.KVDim()
	eps := float32(c.RMSNormEps)
	be := m.be
	past := d.n
	x := make([]float32, T*H)
	for t, tok := range tokens {
		copy(x[t*H:(t+1)*H], m.Embed.W[int(tok)*H:(int(tok)+1)*H])
	}
	ar := getArena(T*(H+1+2*qd+3*I) + qkScratch(c, T))
	defer putArena(ar)
	xn, inv, q, att := ar.take(T*H), ar.take(T), ar.take(T*qd), ar.take(T*qd)
	g, u, h := ar.take(T*I), ar.take(T*I), ar.take(T*I)
	hraw, hinv := takeQKScratch(ar, c, T) // Qwen3 (issue 60)
	shape := AttnShape{Rows: T, Past: past, Heads: c.NumAttentionHeads, KVHeads: c.NumKeyValueHeads, HeadDim: c.HeadDim()}
	for li := range m.Layers {
		w := &m.Layers[li]
		be.RMSNorm(xn, inv, x, w.InputNorm.W, T, H, eps)
		m.linear(q, xn, T, w.Q, w.QB)
		kc := grow(d.k[li], T*kd)
		vc := grow(d.v[li], T*kd)
		knew, vnew := kc[past*kd:], vc[past*kd:]
		m.linear(knew, xn, T, w.K, w.KB)
		m.linear(vnew, xn, T, w.V, w.VB)
		m.headNorm(q, hraw, hinv, T, c.NumAttentionHeads, w.QNorm) // Qwen3 (issue 60)
		m.headNorm(knew, hraw, hinv, T, c.NumKeyValueHeads, w.KNorm)
		be.RoPE(q, T, c.NumAttentionHeads, c.HeadDim(), past, m.cos, m.sin, false)
		be.RoPE(knew, T, c.NumKeyValueHeads, c.HeadDim(), past, m.cos, m.sin, false)
		d.k[li], d.v[li] = kc, vc
		be.Attention(att, nil, q, kc, vc, shape)
		m.linearAdd(x, att, T, w.O) // issue 60: with its adapter
		be.RMSNorm(xn, inv, x, w.PostNorm.W, T, H, eps)
		m.linear(g, xn, T, w.Gate, nil)
		m.linear(u, xn, T, w.Up, nil)
		be.SwiGLU(h, g, u)
		m.linearAdd(x, h, T, w.Down) // issue 60: with its adapter
	}
	d.n += T
	last := x[(T-1)*H:]
	be.RMSNorm(xn[:H], inv[:1], last, m.Norm.W, 1, H, eps)
	logits := make([]float32, c.VocabSize)
	be.MatMul(false, true, 1, c.VocabSize, H, 1, xn[:H], H, m.LMHead.W, H, 0, logits, c.VocabSize)
	return logits, nil
}

// grow extends s by n elements, keeping its contents.
func grow(s []float32, n int) []float32 {
	if len(s)+n <= cap(s) {
		return s[:len(s)+n]
	}
	c := make([]float32, len(s)+n, 2*(len(s)+n))
	copy(c, s)
	return c
}

// checkBatch refuses a batch AppendBatch cannot run; on error no decoder
// changes.
func (m *Model) checkBatch(decs []*Decoder, chunks [][]int32) error {
	c := m.Cfg
	if len(decs) != len(chunks) {
		return fmt.Errorf("decoder: %d decoders for %d chunks", len(decs), len(chunks))
	}
	if len(decs) == 0 {
		return nil
	}
	for i, d := range decs {
		if d.m != m {
			return fmt.Errorf("decoder %d belongs to another model", i)
		}
		for j := 0; j < i; j++ {
			if decs[j] == d {
				return fmt.Errorf("decoder %d appears twice in the batch", i)
			}
		}
		if len(chunks[i]) == 0 {
			return fmt.Errorf("decoder: empty append")
		}
		if d.n+len(chunks[i]) > c.MaxPositionEmbeddings {
			return fmt.Errorf("decoder: %d positions exceed max_position_embeddings %d", d.n+len(chunks[i]), c.MaxPositionEmbeddings)
		}
		for _, t := range chunks[i] {
			if t < 0 || int(t) >= c.VocabSize {
				return fmt.Errorf("decoder: token %d outside vocabulary of %d", t, c.VocabSize)
			}
		}
		if d.err != nil {
			return d.err
		}
	}
	return nil
}
