package model

import (
	"fmt"
	"math"
	"slices"
)

// LoRAAccelerator is an Accelerator that runs a LoRA adapter over a frozen
// base (issue 60). Its index space is the base's (Params) followed by the
// adapter's tensors (Adapter.Params order): index len(Params)+j is the
// adapter's j-th tensor. The base has no gradients and no moments (Grad,
// SetMoments and Moments refuse it); AdamW steps the adapter only, with
// decay holding one flag per index of that space. A device may hold the
// base's matrices at a lower precision (the CUDA library: BF16), so Param
// of a base matrix may return its rounded values.
type LoRAAccelerator interface {
	Accelerator
	// LoRA is the adapter configuration the device model was made with,
	// nil for one without an adapter.
	LoRA() *LoRAConfig
	// EnableAdapter switches the adapter's contribution on (the default)
	// or off (the base alone, the KL reference).
	EnableAdapter(on bool) error
}

// RecomputeAccelerator is an Accelerator that can keep each layer's input
// only in a kept Forward and recompute the layer in Backward (issue 60,
// SetRecompute).
type RecomputeAccelerator interface {
	Accelerator
	SetRecompute(on bool)
}

// TrainableIndex is the accelerator's index of Trainable()[j]: j without
// an adapter, len(Params)+j with one.
func (m *Model) TrainableIndex(j int) int {
	if m.lora != nil {
		return len(m.params) + j
	}
	return j
}

// deviceTensors is the size of the accelerator's index space.
func (m *Model) deviceTensors() int {
	if m.lora != nil {
		return len(m.params) + len(m.lora.params)
	}
	return len(m.params)
}

// checkAccelerator refuses an accelerator that cannot run what m needs:
// its adapter (the same configuration) or recomputation.
func (m *Model) checkAccelerator(acc Accelerator) error {
	if m.lora != nil {
		la, ok := acc.(LoRAAccelerator)
		if !ok || la.LoRA() == nil {
			return fmt.Errorf("%s does not run LoRA adapters: merge the adapter first (learn merge), or train on cpu", acc.Name())
		}
		got, want := *la.LoRA(), m.lora.Cfg
		if got.Rank != want.Rank || got.Alpha != want.Alpha || !slices.Equal(got.Targets, want.Targets) {
			return fmt.Errorf("%s was made for a LoRA adapter of rank %d, alpha %g, targets %v; the model's is rank %d, alpha %g, targets %v",
				acc.Name(), got.Rank, got.Alpha, got.Targets, want.Rank, want.Alpha, want.Targets)
		}
	}
	if _, ok := acc.(RecomputeAccelerator); m.recompute && !ok {
		return fmt.Errorf("%s does not recompute activations (--recompute)", acc.Name())
	}
	return nil
}

// uploadAdapter copies the adapter's tensors to the device after the base.
func (m *Model) uploadAdapter(acc Accelerator) error {
	if m.lora == nil {
		return nil
	}
	for j, t := range m.lora.params {
		if err := acc.SetParam(len(m.params)+j, t.W); err != nil {
			return fmt.Errorf("upload %s: %w", t.Name, err)
		}
	}
	m.accLoRAOn = true
	return nil
}

// accPrepare brings the device's settings in line with the model's before
// a forward: the adapter on or off, and (for a kept forward) whether the
// activations are recomputed.
func (m *Model) accPrepare(keep bool) error {
	if m.lora != nil && m.lora.Enabled() != m.accLoRAOn {
		la, ok := m.acc.(LoRAAccelerator)
		if !ok {
			return fmt.Errorf("%s does not run LoRA adapters", m.acc.Name())
		}
		if err := la.EnableAdapter(m.lora.Enabled()); err != nil {
			return err
		}
		m.accLoRAOn = m.lora.Enabled()
	}
	if keep {
		rc, ok := m.acc.(RecomputeAccelerator)
		if !ok {
			if m.recompute {
				return fmt.Errorf("%s does not recompute activations (--recompute)", m.acc.Name())
			}
			return nil
		}
		rc.SetRecompute(m.recompute)
	}
	return nil
}

// roundBF16 rounds x to the nearest BF16 value, ties to even (what the
// CUDA library stores a frozen base's matrices as).
func roundBF16(x float32) float32 {
	if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
		return x
	}
	b := math.Float32bits(x)
	b += 0x7fff + (b>>16)&1
	return math.Float32frombits(b &^ 0xffff)
}
