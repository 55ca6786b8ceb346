//go:build cuda

package device_test

import "testing"

// TestParityLoRA (issue 60): a LoRA adapter over the frozen base held in
// BF16 on the device, against the CPU on the BF16-rounded base (checkLoRA:
// the stored base, logits with the adapter on and off, the adapter's
// gradients and norm, one AdamW step, the host's base untouched) at the
// tiny, small, qwen3-small and Qwen2.5-0.5B shapes (the dry run: the
// first three).
func TestParityLoRA(t *testing.T) {
	openGPU(t)
	for _, c := range configs(t) {
		t.Run(c.name, func(t *testing.T) {
			cpu, dev := loraPair(t, c.cfg, 31)
			attach(t, dev)
			checkLoRA(t, cpu, dev, randomSeqs(5, c.cfg.VocabSize, c.lens))
		})
	}
}

// TestParityRecompute (issue 60): ForwardBackward with recomputed
// activations (pc_forward keep = 2) gives the device's own kept-forward
// log-probabilities and gradients bit for bit, for full training and under
// LoRA.
func TestParityRecompute(t *testing.T) {
	openGPU(t)
	for _, c := range configs(t) {
		t.Run(c.name+"/full", func(t *testing.T) {
			dev := randomModel(t, c.cfg, 32)
			attach(t, dev)
			checkRecompute(t, dev, randomSeqs(6, c.cfg.VocabSize, c.lens))
		})
		t.Run(c.name+"/lora", func(t *testing.T) {
			_, dev := loraPair(t, c.cfg, 33)
			attach(t, dev)
			checkRecompute(t, dev, randomSeqs(6, c.cfg.VocabSize, c.lens))
		})
	}
}
