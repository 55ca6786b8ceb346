package model

import (
	"fmt"
	"math"
)

// AdamWConfig holds AdamW's constants.
type AdamWConfig struct {
	Beta1, Beta2 float64
	Eps          float64
	// WeightDecay is decoupled (AdamW): p -= lr*wd*p, applied to tensors
	// whose Decay is set (matrices and embeddings; not norms or biases).
	WeightDecay float64
}

// MaxWeightDecay bounds AdamW's weight decay (learn --weight-decay and the
// weight_decay of a checkpoint's optimizer.json): each step scales a weight
// by 1 - lr*wd, so a decay above 1 is a typo rather than a setting (common
// values are 0 to 0.1).
const MaxWeightDecay = 1.0

// DefaultAdamW is beta1 0.9, beta2 0.999, eps 1e-8, weight decay 0.01
// (the PyTorch AdamW defaults).
func DefaultAdamW() AdamWConfig {
	return AdamWConfig{Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, WeightDecay: 0.01}
}

// AdamW is the optimizer state of one model: first and second moments per
// trained tensor (in Trainable order: Params, or an adapter's tensors) and the number of steps taken.
type AdamW struct {
	Cfg   AdamWConfig
	StepN int // steps taken
	M, V  [][]float32
	model *Model
	// onDevice says the moments were uploaded to the model's accelerator;
	// from then on M and V are stale until Sync.
	onDevice bool
}

// NewAdamW returns a fresh optimizer for m's trained tensors (Trainable).
func NewAdamW(m *Model, cfg AdamWConfig) *AdamW {
	o := &AdamW{Cfg: cfg, model: m}
	for _, p := range m.Trainable() { // issue 60: the adapter's only under LoRA
		o.M = append(o.M, make([]float32, len(p.W)))
		o.V = append(o.V, make([]float32, len(p.W)))
	}
	return o
}

// Step applies one update with learning rate lr to every parameter from
// its gradient (gradients are left as they are: clear them with ZeroGrad).
// Step t (1-based) uses bias corrections 1-beta1^t and 1-beta2^t. On the
// host a step that leaves a non-finite weight is an error; on a device the
// weights are checked when they come back (Save refuses non-finite ones).
func (o *AdamW) Step(lr float64) error {
	m := o.model
	if len(o.M) != len(m.Trainable()) {
		return fmt.Errorf("adamw: state for %d tensors, model trains %d", len(o.M), len(m.Trainable()))
	}
	if m.acc != nil {
		if err := m.errDevice(); err != nil {
			return err
		}
	} else {
		m.ensureGrad()
	}
	o.StepN++
	t := float64(o.StepN)
	h := AdamWStep{
		LR: float32(lr), Beta1: float32(o.Cfg.Beta1), Beta2: float32(o.Cfg.Beta2), Eps: float32(o.Cfg.Eps),
		BC1: float32(1 - math.Pow(o.Cfg.Beta1, t)), BC2: float32(1 - math.Pow(o.Cfg.Beta2, t)),
	}
	if m.acc != nil {
		return o.accStep(h)
	}
	for i, p := range m.Trainable() {
		hs := h
		if p.Decay {
			hs.WeightDecay = float32(o.Cfg.WeightDecay)
		}
		m.be.AdamW(p.W, p.G, o.M[i], o.V[i], hs)
		if j := nonFinite(p.W); j >= 0 {
			return fmt.Errorf("adamw step %d: tensor %s became %v at %d (a non-finite update; the optimizer state or the learning rate is broken)", o.StepN, p.Name, p.W[j], j)
		}
	}
	return nil
}

// Schedule is a learning-rate schedule: linear warmup from 0 to Peak over
// Warmup steps, then constant (Cosine false) or a cosine decay to
// Peak*MinRatio at step Total.
type Schedule struct {
	Peak     float64
	Warmup   int
	Total    int
	Cosine   bool
	MinRatio float64
}

// LR is the learning rate of step (1-based: the first update is step 1).
// During warmup it is Peak*step/Warmup; past Total it stays at the end
// value.
func (s Schedule) LR(step int) float64 {
	if step < 1 {
		step = 1
	}
	if s.Warmup > 0 && step <= s.Warmup {
		return s.Peak * float64(step) / float64(s.Warmup)
	}
	if !s.Cosine || s.Total <= s.Warmup {
		return s.Peak
	}
	frac := float64(step-s.Warmup) / float64(s.Total-s.Warmup)
	if frac > 1 {
		frac = 1
	}
	lo := s.Peak * s.MinRatio
	return lo + (s.Peak-lo)*0.5*(1+math.Cos(math.Pi*frac))
}
