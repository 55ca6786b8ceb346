package model

import (
	"errors"
	"fmt"
	"math"
)

// Accelerator is a copy of a Model that lives on a device (a GPU): the
// parameters, their gradients, the AdamW moments, the activations a
// backward needs and the KV caches of its decoders stay there for a whole
// step or decoding batch, and only the edges cross to the host: parameters
// and moments in and out, token ids in, per-token log-probabilities,
// entropies, sampled ids and (on request) logits out. lib/device implements
// it over the CUDA library; the model keeps its single CPU description and
// dispatches to the accelerator once one is attached (Model.Attach).
//
// Index i of a parameter is its place in Model.Params. Slices passed in are
// only read during the call; slices passed for results are written. An
// implementation serialises its calls itself (decoders of one model may be
// appended to from several goroutines).
type Accelerator interface {
	// Name identifies the device ("cuda: NVIDIA H200, ...").
	Name() string
	// SetParam and Param copy parameter i to and from the device; Grad
	// copies its gradient to the host.
	SetParam(i int, w []float32) error
	Param(i int, dst []float32) error
	Grad(i int, dst []float32) error
	// SetMoments and Moments copy AdamW's first and second moments of
	// parameter i.
	SetMoments(i int, m, v []float32) error
	Moments(i int, m, v []float32) error
	// ZeroGrad clears every gradient.
	ZeroGrad() error
	// Forward runs one sequence and scores rows: lp[j] = log
	// softmax(logits[rows[j]])[targets[j]], ent[j] its entropy (ent may be
	// nil). keep retains the activations for Backward.
	Forward(tokens, rows, targets []int32, lp, ent []float32, keep bool) error
	// Backward accumulates the gradient of sum_j dlp[j]*lp[j] of the last
	// kept Forward.
	Backward(dlp []float32) error
	// Logits writes len(tokens) x vocab next-token logits.
	Logits(tokens []int32, out []float32) error
	// ClipGradNorm returns the global gradient norm and, when maxNorm > 0
	// and the norm exceeds it, scales the gradients by maxNorm/(norm+1e-6).
	ClipGradNorm(maxNorm float64) (float64, error)
	// AdamW takes one step over every parameter; decay[i] applies the
	// weight decay to parameter i.
	AdamW(h AdamWStep, decay []bool) error
	// NewDecoder returns an empty KV cache for up to capacity positions.
	NewDecoder(capacity int) (DeviceDecoder, error)
	// AppendBatch appends, to each decoder decs[i] (distinct), its chunk
	// tokens[offsets[i]:offsets[i+1]] in one batched pass, then for the
	// token after each chunk writes its logits at logits[i*vocab:] when
	// logits is not nil, and when s is not nil draws a token as s says
	// with uniform u[i] into tok[i] with its log-probability logp[i].
	AppendBatch(decs []DeviceDecoder, tokens, offsets []int32, logits []float32, s *Sampling, u []float64, tok []int32, logp []float32) error
	// Memory is the device memory the model holds now, in bytes.
	Memory() (int64, error)
	// Close frees the device model; the accelerator is unusable after.
	Close() error
}

// DeviceDecoder is a KV cache on the device (see Accelerator.NewDecoder).
type DeviceDecoder interface {
	// Clone returns an independent copy with the same capacity.
	Clone() (DeviceDecoder, error)
	// Len is the number of positions in the cache.
	Len() int
}

// Sampling says how the next token is drawn (see Sample): temperature <= 0
// is greedy, 0 < TopP < 1 restricts to the nucleus.
type Sampling struct {
	Temperature, TopP float32
}

// Attach moves the model onto acc: every parameter is uploaded once, and
// from then on LogProbs, ForwardBackward, Backward, Logits, ZeroGrad,
// GradNorm, ClipGradNorm, AdamW.Step and decoders run on the device. The
// host copies W and G are not kept in step while attached: Sync brings the
// parameters back (saving a checkpoint does so itself, with the optimizer's
// moments), and gradients are read with Accelerator.Grad. Attach to a model
// that already has one is an error.
func (m *Model) Attach(acc Accelerator) error {
	if m.acc != nil {
		return fmt.Errorf("model is already on %s", m.acc.Name())
	}
	if err := m.checkAccelerator(acc); err != nil { // issue 60: adapters and recompute need an accelerator that runs them
		return err
	}
	if m.invTemp != 0 {
		return fmt.Errorf("%s does not score at temperature %g (only temperature 1)", acc.Name(), m.ScoringTemperature())
	}
	for i, t := range m.params {
		if err := acc.SetParam(i, t.W); err != nil {
			return fmt.Errorf("upload %s: %w", t.Name, err)
		}
	}
	if err := m.uploadAdapter(acc); err != nil {
		return err
	}
	m.acc = acc
	return nil
}

// Detach brings the parameters back (Sync) and frees the device model;
// the model runs on the CPU again from its host tensors. Decoders made on
// the device are unusable after, and an optimizer's moments on the device
// are lost unless synced first (AdamW.Sync). No effect on the CPU.
func (m *Model) Detach() error {
	if m.acc == nil {
		return nil
	}
	err := m.Sync()
	if cerr := m.acc.Close(); err == nil {
		err = cerr
	}
	m.acc, m.accErr = nil, nil
	return err
}

// Accelerator returns the attached device model, or nil on the CPU.
func (m *Model) Accelerator() Accelerator { return m.acc }

// OnDevice reports whether an accelerator is attached.
func (m *Model) OnDevice() bool { return m.acc != nil }

// SetDecoderCapacity bounds the positions of decoders made from now on when
// the model is on a device, whose KV caches are allocated whole (default,
// and for n <= 0: max_position_embeddings). CPU decoders grow as needed
// and ignore it.
func (m *Model) SetDecoderCapacity(n int) { m.decCap = n }

// ContextLimit is the most positions one decoder of m holds:
// max_position_embeddings, or on a device the decoder capacity.
func (m *Model) ContextLimit() int {
	if m.acc != nil {
		return m.decoderCapacity()
	}
	return m.Cfg.MaxPositionEmbeddings
}

func (m *Model) decoderCapacity() int {
	if m.decCap <= 0 || m.decCap > m.Cfg.MaxPositionEmbeddings {
		return m.Cfg.MaxPositionEmbeddings
	}
	return m.decCap
}

// Sync copies the parameters from the device into the host tensors' W (no
// effect on the CPU).
func (m *Model) Sync() error {
	if m.acc == nil {
		return nil
	}
	if err := m.accErr; err != nil {
		return err
	}
	if m.lora != nil { // issue 60: the base is frozen (and the device's may be rounded): the adapter only
		for j, t := range m.lora.params {
			if err := m.acc.Param(len(m.params)+j, t.W); err != nil {
				return fmt.Errorf("download %s: %w", t.Name, err)
			}
		}
		return nil
	}
	for i, t := range m.params {
		if err := m.acc.Param(i, t.W); err != nil {
			return fmt.Errorf("download %s: %w", t.Name, err)
		}
	}
	return nil
}

// fail records the first device error of a method that returns none
// (ZeroGrad, ClipGradNorm); the next method that returns an error reports
// it.
func (m *Model) fail(err error) {
	if m.accErr == nil {
		m.accErr = err
	}
}

// errDevice is the recorded device error, if any.
func (m *Model) errDevice() error {
	if m.accErr != nil {
		return fmt.Errorf("device: %w", m.accErr)
	}
	return nil
}

// accForward runs one sequence's forward on the device and scatters the
// scores as scatterScores does.
func (m *Model) accForward(seq []int32, rows []int, target []int32, keep bool) (lp, ent, l []float32, err error) {
	R := len(rows)
	r32 := make([]int32, R)
	for i, r := range rows {
		r32[i] = int32(r)
	}
	l = make([]float32, R)
	e := make([]float32, R)
	if err := m.accPrepare(keep); err != nil {
		return nil, nil, nil, err
	}
	if err := m.acc.Forward(seq, r32, target, l, e, keep); err != nil {
		return nil, nil, nil, err
	}
	lp = make([]float32, len(seq))
	ent = make([]float32, len(seq))
	for i, r := range rows {
		lp[r+1] = l[i]
		ent[r+1] = e[i]
	}
	return lp, ent, l, nil
}

// accStep is AdamW.Step on the device: the moments go up on the first
// step after the optimizer was made or loaded.
func (o *AdamW) accStep(h AdamWStep) error {
	m := o.model
	tr := m.Trainable() // issue 60: the adapter's under LoRA, at their device indices
	if !o.onDevice {
		for j, p := range tr {
			if err := m.acc.SetMoments(m.TrainableIndex(j), o.M[j], o.V[j]); err != nil {
				return fmt.Errorf("adamw: upload moments of %s: %w", p.Name, err)
			}
		}
		o.onDevice = true
	}
	decay := make([]bool, m.deviceTensors())
	for j, p := range tr {
		decay[m.TrainableIndex(j)] = p.Decay
	}
	h.WeightDecay = float32(o.Cfg.WeightDecay)
	return m.acc.AdamW(h, decay)
}

// Sync copies the moments from the device into M and V (no effect on the
// CPU or before the first device step).
func (o *AdamW) Sync() error {
	m := o.model
	if m.acc == nil || !o.onDevice {
		return nil
	}
	for j, p := range m.Trainable() {
		if err := m.acc.Moments(m.TrainableIndex(j), o.M[j], o.V[j]); err != nil {
			return fmt.Errorf("adamw: download moments of %s: %w", p.Name, err)
		}
	}
	return nil
}

// accAppend appends chunks to device decoders in one batched pass; see
// AppendBatch and AppendSample. logits (when want) is B x vocab.
func (m *Model) accAppend(decs []*Decoder, chunks [][]int32, want bool, s *Sampling, u []float64) (logits [][]float32, tok []int32, logp []float32, err error) {
	B, V := len(decs), m.Cfg.VocabSize
	dd := make([]DeviceDecoder, B)
	off := make([]int32, B+1)
	var toks []int32
	for i, d := range decs {
		if d.dev == nil {
			return nil, nil, nil, errors.New("decoder: not a device decoder")
		}
		if d.n+len(chunks[i]) > d.cap {
			return nil, nil, nil, fmt.Errorf("decoder: %d positions exceed the device decoder's capacity %d", d.n+len(chunks[i]), d.cap)
		}
		dd[i] = d.dev
		toks = append(toks, chunks[i]...)
		off[i+1] = int32(len(toks))
	}
	var flat []float32
	if want {
		flat = make([]float32, B*V)
	}
	if err := m.accPrepare(false); err != nil {
		return nil, nil, nil, err
	}
	if s != nil {
		tok = make([]int32, B)
		logp = make([]float32, B)
	}
	if err := m.acc.AppendBatch(dd, toks, off, flat, s, u, tok, logp); err != nil {
		return nil, nil, nil, err
	}
	for i, d := range decs {
		d.n += len(chunks[i])
	}
	if want {
		logits = make([][]float32, B)
		for i := range logits {
			logits[i] = flat[i*V : (i+1)*V]
		}
	}
	return logits, tok, logp, nil
}

// AppendSample appends chunk to d and draws the token after it as Sample
// does with temperature and topP, taking u as the one uniform Sample would
// draw (rng.Float64(); ignored when greedy). On a device the draw happens
// there and no logits row comes to the host.
func (d *Decoder) AppendSample(chunk []int32, s Sampling, u float64) (tok int32, logp float32, err error) {
	toks, lps, err := d.m.AppendSampleBatch([]*Decoder{d}, [][]int32{chunk}, s, []float64{u})
	if err != nil {
		return 0, 0, err
	}
	return toks[0], lps[0], nil
}

// AppendSampleBatch is AppendBatch followed by a draw per decoder as
// AppendSample says, with u[i] the uniform of decoder i. On a device the
// logits stay there; on the CPU it is AppendBatch then SampleU.
func (m *Model) AppendSampleBatch(decs []*Decoder, chunks [][]int32, s Sampling, u []float64) (tok []int32, logp []float32, err error) {
	if len(u) != len(decs) {
		return nil, nil, fmt.Errorf("decoder: %d uniforms for %d decoders", len(u), len(decs))
	}
	if m.acc == nil {
		out, err := m.AppendBatch(decs, chunks)
		if err != nil {
			return nil, nil, err
		}
		tok = make([]int32, len(decs))
		logp = make([]float32, len(decs))
		for i, l := range out {
			tok[i], logp[i] = SampleU(l, s.Temperature, s.TopP, u[i])
		}
		return tok, logp, nil
	}
	if err := m.checkBatch(decs, chunks); err != nil {
		return nil, nil, err
	}
	_, tok, logp, err = m.accAppend(decs, chunks, false, &s, u)
	return tok, logp, err
}

// SampleDraw is the uniform Sample draws from rng for one token under
// temperature: rng.Float64(), or 0 without a draw when greedy. Callers
// that sample elsewhere (AppendSample) draw it so that the generator
// advances exactly as Sample would advance it.
func SampleDraw(temperature float32, rng interface{ Float64() float64 }) float64 {
	if temperature <= 0 {
		return 0
	}
	return rng.Float64()
}

// accGradNorm is GradNorm on the device (NaN after a device error, which
// the next step reports).
func (m *Model) accGradNorm(maxNorm float64) float64 {
	n, err := m.acc.ClipGradNorm(maxNorm)
	if err != nil {
		m.fail(err)
		return math.NaN()
	}
	return n
}

// accForwardBackward is ForwardBackward on the device: per sequence a
// forward that keeps its activations, the host's weights, a backward.
func (m *Model) accForwardBackward(seqs [][]int32, masks [][]bool, weights func(i int, lp, ent []float32) []float32) (lp, ent [][]float32, err error) {
	if err := m.errDevice(); err != nil {
		return nil, nil, err
	}
	lp = make([][]float32, len(seqs))
	ent = make([][]float32, len(seqs))
	for i, seq := range seqs {
		var mask []bool
		if masks != nil {
			mask = masks[i]
		}
		rows, target := scoredRows(seq, mask)
		if lp[i], ent[i], _, err = m.accForward(seq, rows, target, true); err != nil {
			return nil, nil, fmt.Errorf("sequence %d: %w", i, err)
		}
		dlp, err := rowWeights(weights, i, lp[i], ent[i], rows)
		if err != nil {
			return nil, nil, err
		}
		if err := m.acc.Backward(dlp); err != nil {
			return nil, nil, fmt.Errorf("sequence %d: %w", i, err)
		}
	}
	return lp, ent, nil
}
