package model

// hostAcc is the Accelerator of NewHostAccelerator.
type hostAcc struct {
	m    *Model
	opt  *AdamW
	kept *seqAct
}

// NewHostAccelerator returns an Accelerator whose "device" is a second
// model on the CPU: every call runs the CPU code on its own copy of the
// parameters, gradients, moments and caches. A model attached to it gives,
// bit for bit, what it gives on its own, which lets the tests check the
// dispatch to a device (what goes there, in which order, how results come
// back, sampling with the host's uniforms) on machines without a GPU.
func NewHostAccelerator(cfg Config) (Accelerator, error) {
	m, err := alloc(cfg)
	if err != nil {
		return nil, err
	}
	m.ensureGrad()
	return &hostAcc{m: m, opt: NewAdamW(m, DefaultAdamW())}, nil
}

func (a *hostAcc) Name() string                      { return "host" }
func (a *hostAcc) SetParam(i int, w []float32) error { copy(a.m.params[i].W, w); return nil }
func (a *hostAcc) Param(i int, d []float32) error    { copy(d, a.m.params[i].W); return nil }
func (a *hostAcc) Grad(i int, d []float32) error     { copy(d, a.m.params[i].G); return nil }
func (a *hostAcc) SetMoments(i int, m, v []float32) error {
	copy(a.opt.M[i], m)
	copy(a.opt.V[i], v)
	return nil
}
func (a *hostAcc) Moments(i int, m, v []float32) error {
	copy(m, a.opt.M[i])
	copy(v, a.opt.V[i])
	return nil
}
func (a *hostAcc) ZeroGrad() error { a.m.ZeroGrad(); return nil }
func (a *hostAcc) Forward(tokens, rows, targets []int32, lp, ent []float32, keep bool) error {
	r := make([]int, len(rows))
	for i, v := range rows {
		r[i] = int(v)
	}
	act := a.m.forward(tokens, r, keep)
	act.target = targets
	act.lse = make([]float32, len(r))
	if len(r) > 0 {
		a.m.be.LogSoftmax(lp, ent, act.lse, act.logits, targets, len(r), a.m.Cfg.VocabSize)
	}
	if keep {
		a.kept = act
	}
	return nil
}
func (a *hostAcc) Backward(dlp []float32) error { a.m.backward(a.kept, dlp); return nil }
func (a *hostAcc) Logits(tokens []int32, out []float32) error {
	l, err := a.m.Logits(tokens)
	copy(out, l)
	return err
}
func (a *hostAcc) ClipGradNorm(maxNorm float64) (float64, error) {
	return a.m.ClipGradNorm(maxNorm), nil
}
func (a *hostAcc) AdamW(h AdamWStep, decay []bool) error {
	for i, p := range a.m.params {
		hs := h
		if !decay[i] {
			hs.WeightDecay = 0
		}
		a.m.be.AdamW(p.W, p.G, a.opt.M[i], a.opt.V[i], hs)
	}
	return nil
}

type hostDec struct{ d *Decoder }

func (d hostDec) Clone() (DeviceDecoder, error) { return hostDec{d.d.Clone()}, nil }
func (d hostDec) Len() int                      { return d.d.Len() }

func (a *hostAcc) NewDecoder(int) (DeviceDecoder, error) { return hostDec{a.m.NewDecoder()}, nil }
func (a *hostAcc) AppendBatch(decs []DeviceDecoder, tokens, offsets []int32, logits []float32, s *Sampling, u []float64, tok []int32, logp []float32) error {
	ds := make([]*Decoder, len(decs))
	chunks := make([][]int32, len(decs))
	for i, d := range decs {
		ds[i] = d.(hostDec).d
		chunks[i] = tokens[offsets[i]:offsets[i+1]]
	}
	out, err := a.m.AppendBatch(ds, chunks)
	if err != nil {
		return err
	}
	V := a.m.Cfg.VocabSize
	for i, l := range out {
		if logits != nil {
			copy(logits[i*V:], l)
		}
		if s != nil {
			tok[i], logp[i] = SampleU(l, s.Temperature, s.TopP, u[i])
		}
	}
	return nil
}
func (a *hostAcc) Memory() (int64, error) { return 0, nil }
func (a *hostAcc) Close() error           { return nil }

// NewHostAcceleratorWith is NewHostAccelerator computing with the backend
// be instead of CPU: lib/device's parity suite plants a kernel's bug
// through it to show that its checks catch that bug.
func NewHostAcceleratorWith(cfg Config, be Backend) (Accelerator, error) {
	acc, err := NewHostAccelerator(cfg)
	if err != nil {
		return nil, err
	}
	acc.(*hostAcc).m.be = be
	return acc, nil
}
