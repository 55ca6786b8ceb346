package model

import "fmt"

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

func (a *hostAcc) Name() string { return "host" }

// tensor is index i of the device's space: the base's, then (LoRA) the
// adapter's tensors.
func (a *hostAcc) tensor(i int) (*Tensor, error) {
	if i >= 0 && i < len(a.m.params) {
		return a.m.params[i], nil
	}
	if ad := a.m.lora; ad != nil && i >= len(a.m.params) && i < len(a.m.params)+len(ad.params) {
		return ad.params[i-len(a.m.params)], nil
	}
	return nil, fmt.Errorf("host: tensor %d outside 0..%d", i, a.m.deviceTensors()-1)
}

// trained is tensor i's place in the optimizer's state, or an error for
// a frozen base's tensor (LoRA), which has no gradient or moments.
func (a *hostAcc) trained(i int) (int, error) {
	if a.m.lora == nil {
		return i, nil
	}
	if i < len(a.m.params) {
		return 0, fmt.Errorf("host: tensor %d belongs to the frozen base of a LoRA model: no gradient or moments", i)
	}
	return i - len(a.m.params), nil
}

func (a *hostAcc) SetParam(i int, w []float32) error {
	t, err := a.tensor(i)
	if err != nil {
		return err
	}
	copy(t.W, w)
	if a.m.lora != nil && i < len(a.m.params) && len(t.Shape) == 2 {
		for j, x := range t.W { // issue 60: the CUDA library holds a frozen base's matrices in BF16
			t.W[j] = roundBF16(x)
		}
	}
	return nil
}
func (a *hostAcc) Param(i int, d []float32) error {
	t, err := a.tensor(i)
	if err == nil {
		copy(d, t.W)
	}
	return err
}
func (a *hostAcc) Grad(i int, d []float32) error {
	if _, err := a.trained(i); err != nil {
		return err
	}
	t, err := a.tensor(i)
	if err == nil {
		copy(d, t.G)
	}
	return err
}
func (a *hostAcc) SetMoments(i int, m, v []float32) error {
	j, err := a.trained(i)
	if err != nil {
		return err
	}
	copy(a.opt.M[j], m)
	copy(a.opt.V[j], v)
	return nil
}
func (a *hostAcc) Moments(i int, m, v []float32) error {
	j, err := a.trained(i)
	if err != nil {
		return err
	}
	copy(m, a.opt.M[j])
	copy(v, a.opt.V[j])
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
	if len(decay) != a.m.deviceTensors() {
		return fmt.Errorf("host: %d decay flags for %d tensors", len(decay), a.m.deviceTensors())
	}
	for j, p := range a.m.Trainable() {
		hs := h
		if !decay[a.m.TrainableIndex(j)] {
			hs.WeightDecay = 0
		}
		a.m.be.AdamW(p.W, p.G, a.opt.M[j], a.opt.V[j], hs)
	}
	return nil
}

// LoRA, EnableAdapter and SetRecompute make the host accelerator a
// LoRAAccelerator and a RecomputeAccelerator (issue 60).
func (a *hostAcc) LoRA() *LoRAConfig {
	if a.m.lora == nil {
		return nil
	}
	c := a.m.lora.Cfg
	return &c
}
func (a *hostAcc) EnableAdapter(on bool) error {
	if a.m.lora == nil {
		return fmt.Errorf("host: the model has no LoRA adapter")
	}
	a.m.lora.SetEnabled(on)
	return nil
}
func (a *hostAcc) SetRecompute(on bool) { a.m.recompute = on }

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

// NewHostAcceleratorLoRA is NewHostAccelerator for a model that trains
// a LoRA adapter of cfg over a frozen base (issue 60), computing with be
// (nil: CPU). Like the CUDA library it stores the base's matrices rounded
// to BF16 (SetParam) and keeps gradients and moments for the adapter only.
func NewHostAcceleratorLoRA(c Config, cfg LoRAConfig, be Backend) (Accelerator, error) {
	m, err := alloc(c)
	if err != nil {
		return nil, err
	}
	ad, err := m.newAdapter(cfg)
	if err != nil {
		return nil, err
	}
	m.lora = ad
	m.ensureGrad()
	if be != nil {
		m.be = be
	}
	return &hostAcc{m: m, opt: NewAdamW(m, DefaultAdamW())}, nil
}

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
