package model

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
)

// LoRA targets: the Hugging Face module names of the projections an
// adapter may wrap, in the order a layer's adapters are listed.
var LoRAModules = []string{"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"}

// LoRAConfig says which projections get an adapter, of what rank and
// scale: W x becomes W x + (Alpha/Rank) B A x with A [Rank, in] and B
// [out, Rank] (Hu et al., LoRA).
type LoRAConfig struct {
	Rank  int
	Alpha float64
	// Targets are module names from LoRAModules (nil: all of them).
	Targets []string
}

// ParseLoRATargets reads a comma-separated list of projections, each
// either a module name (q_proj) or its short form (q, k, v, o, gate, up,
// down); the result follows LoRAModules' order.
func ParseLoRATargets(s string) ([]string, error) {
	seen := map[string]bool{}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		name := f
		if !strings.HasSuffix(name, "_proj") {
			name += "_proj"
		}
		if !slices.Contains(LoRAModules, name) {
			return nil, fmt.Errorf("LoRA target %q: want some of q, k, v, o, gate, up, down", f)
		}
		seen[name] = true
	}
	var out []string
	for _, n := range LoRAModules {
		if seen[n] {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("LoRA targets %q name no projection", s)
	}
	return out, nil
}

// check refuses a rank or scale that cannot train.
func (c LoRAConfig) check() error {
	if c.Rank < 1 {
		return fmt.Errorf("LoRA rank %d: want at least 1", c.Rank)
	}
	if !(c.Alpha > 0) || math.IsInf(c.Alpha, 0) {
		return fmt.Errorf("LoRA alpha %v: want a positive number", c.Alpha)
	}
	for _, t := range c.Targets {
		if !slices.Contains(LoRAModules, t) {
			return fmt.Errorf("LoRA target %q is not one of %v", t, LoRAModules)
		}
	}
	return nil
}

// Adapter is a LoRA adapter attached to a model: one pair (A, B) per
// targeted projection. While one is attached the base parameters are
// frozen: they get no gradients and no optimizer moments, and Trainable,
// ZeroGrad, GradNorm, ClipGradNorm, AdamW and the optimizer state cover
// the adapter's tensors only.
type Adapter struct {
	Cfg LoRAConfig
	// Base is the base checkpoint folder and BaseHash its WeightsHash
	// (both empty for a base that is not a folder).
	Base, BaseHash string
	pairs          map[*Tensor]*loraPair
	params         []*Tensor // A then B of each pair, layer by layer in LoRAModules order
	off            bool
}

type loraPair struct {
	A, B  *Tensor
	scale float32
}

// peftName is PEFT's name of an adapter tensor for the base weight named
// w (model.layers.N.self_attn.q_proj.weight): base_model.model.
// model.layers.N.self_attn.q_proj.lora_A.weight.
func peftName(w, ab string) string {
	return "base_model.model." + strings.TrimSuffix(w, ".weight") + ".lora_" + ab + ".weight"
}

// moduleOf is the projection's module name (q_proj) of a base weight name.
func moduleOf(w string) string {
	s := strings.TrimSuffix(w, ".weight")
	return s[strings.LastIndex(s, ".")+1:]
}

// targets lists the base weights of layer l that cfg targets, in
// LoRAModules order.
func (L *Layer) targets(names []string) []*Tensor {
	all := []*Tensor{L.Q, L.K, L.V, L.O, L.Gate, L.Up, L.Down}
	var out []*Tensor
	for i, n := range LoRAModules {
		if slices.Contains(names, n) {
			out = append(out, all[i])
		}
	}
	return out
}

// AddAdapter attaches a fresh adapter: A drawn as PEFT initialises it
// (Kaiming-uniform with a = sqrt(5): uniform in +-1/sqrt(in)) from a PCG
// generator seeded with seed, B zero, so that the model computes exactly
// what its base does until B moves. It is an error on a model that has
// an adapter or is on a device.
func (m *Model) AddAdapter(cfg LoRAConfig, seed uint64) (*Adapter, error) {
	ad, err := m.newAdapter(cfg)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 0x10a))
	for _, p := range ad.params {
		if strings.HasSuffix(p.Name, ".lora_A.weight") {
			bound := 1 / math.Sqrt(float64(p.Shape[1]))
			for i := range p.W {
				p.W[i] = float32((2*rng.Float64() - 1) * bound)
			}
		}
	}
	m.lora = ad
	return ad, nil
}

// newAdapter builds an adapter of zeros for cfg (not attached).
func (m *Model) newAdapter(cfg LoRAConfig) (*Adapter, error) {
	if cfg.Targets == nil {
		cfg.Targets = slices.Clone(LoRAModules)
	}
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if m.lora != nil {
		return nil, fmt.Errorf("the model already has an adapter")
	}
	if m.acc != nil {
		return nil, fmt.Errorf("the model is on %s: add the adapter before putting it on the device", m.acc.Name())
	}
	ad := &Adapter{Cfg: cfg, pairs: map[*Tensor]*loraPair{}}
	scale := float32(cfg.Alpha / float64(cfg.Rank))
	for l := range m.Layers {
		for _, w := range m.Layers[l].targets(cfg.Targets) {
			out, in := w.Shape[0], w.Shape[1]
			p := &loraPair{
				A:     newTensor(peftName(w.Name, "A"), true, cfg.Rank, in),
				B:     newTensor(peftName(w.Name, "B"), true, out, cfg.Rank),
				scale: scale,
			}
			ad.pairs[w] = p
			ad.params = append(ad.params, p.A, p.B)
		}
	}
	return ad, nil
}

// Adapter returns the attached adapter, or nil.
func (m *Model) Adapter() *Adapter { return m.lora }

// Params lists the adapter's tensors (PEFT names, A then B per projection).
func (a *Adapter) Params() []*Tensor { return a.params }

// SetEnabled switches the adapter's contribution on (the default) or off:
// off, the model computes its base alone, which is the reference of the
// KL term under LoRA (no second model in memory).
func (a *Adapter) SetEnabled(on bool) { a.off = !on }

// Enabled says whether the adapter contributes.
func (a *Adapter) Enabled() bool { return !a.off }

// NumParams counts the adapter's parameters.
func (a *Adapter) NumParams() int {
	n := 0
	for _, p := range a.params {
		n += len(p.W)
	}
	return n
}

// Trainable lists the tensors training updates: the adapter's when one is
// attached (the base is frozen), else every parameter (Params).
func (m *Model) Trainable() []*Tensor {
	if m.lora != nil {
		return m.lora.params
	}
	return m.params
}

// pair is the adapter of base weight w when one contributes.
func (m *Model) pair(w *Tensor) *loraPair {
	if m.lora == nil || m.lora.off {
		return nil
	}
	return m.lora.pairs[w]
}

// loraForward adds scale * (x A^T) B^T to y (rows x out).
func (m *Model) loraForward(y, x []float32, rows int, w *Tensor) {
	p := m.pair(w)
	if p == nil {
		return
	}
	out, r := w.Shape[0], p.A.Shape[0]
	u := m.loraDown(p, x, rows)
	m.be.MatMul(false, true, rows, out, r, p.scale, u, r, p.B.W, r, 1, y, out)
}

// loraDown is u = x A^T (rows x r), the adapter's first product.
func (m *Model) loraDown(p *loraPair, x []float32, rows int) []float32 {
	in, r := p.A.Shape[1], p.A.Shape[0]
	u := make([]float32, rows*r)
	m.be.MatMul(false, true, rows, r, in, 1, x, in, p.A.W, in, 0, u, r)
	return u
}

// loraBackward accumulates the adapter's gradients from dy (rows x out)
// and input x (rows x in), and adds its part of the input gradient to dx:
// with u = x A^T, dB += s dy^T u, du = s dy B, dA += du^T x, dx += du A.
func (m *Model) loraBackward(dx, dy, x []float32, rows int, w *Tensor) {
	p := m.pair(w)
	if p == nil {
		return
	}
	out, in, r := w.Shape[0], w.Shape[1], p.A.Shape[0]
	u := m.loraDown(p, x, rows)
	m.be.MatMul(true, false, out, r, rows, p.scale, dy, out, u, r, 1, p.B.G, r)
	du := make([]float32, rows*r)
	m.be.MatMul(false, false, rows, r, out, p.scale, dy, out, p.B.W, r, 0, du, r)
	m.be.MatMul(true, false, r, in, rows, 1, du, r, x, in, 1, p.A.G, in)
	m.be.MatMul(false, false, rows, in, r, 1, du, r, p.A.W, in, 1, dx, in)
}

// linearAdd is y += x W^T plus the adapter's part (o_proj and down_proj,
// which add into the residual stream).
func (m *Model) linearAdd(y, x []float32, rows int, w *Tensor) {
	out, in := w.Shape[0], w.Shape[1]
	m.be.MatMul(false, true, rows, out, in, 1, x, in, w.W, in, 1, y, out)
	m.loraForward(y, x, rows, w)
}

// MergeAdapter folds the adapter into the base weights, W += (Alpha/Rank)
// B A (summed in float64), and removes it: the model then computes base +
// adapter without one, as a full checkpoint (learn merge) or a device
// that runs no adapters needs. No effect without an adapter.
func (m *Model) MergeAdapter() error {
	ad := m.lora
	if ad == nil {
		return nil
	}
	if m.acc != nil {
		return fmt.Errorf("merge: the model is on %s", m.acc.Name())
	}
	for l := range m.Layers {
		for _, w := range m.Layers[l].targets(ad.Cfg.Targets) {
			p := ad.pairs[w]
			out, in, r := w.Shape[0], w.Shape[1], p.A.Shape[0]
			s := float64(p.scale)
			for o := 0; o < out; o++ {
				b := p.B.W[o*r : (o+1)*r]
				row := w.W[o*in : (o+1)*in]
				for i := 0; i < in; i++ {
					var d float64
					for k, bk := range b {
						d += float64(bk) * float64(p.A.W[k*in+i])
					}
					row[i] = float32(float64(row[i]) + s*d)
				}
			}
		}
	}
	m.lora = nil
	return nil
}
