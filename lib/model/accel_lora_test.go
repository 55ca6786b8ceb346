package model

import (
	"strings"
	"testing"
)

// TestAttachLoRA (issue 60): a model with an adapter attaches only to an
// accelerator made for the same adapter; attached, a GRPO-like step gives
// the CPU model's results on the BF16-rounded base (bit for bit: the host
// accelerator is the CPU code), the adapter off gives the base, and the
// optimizer's state comes back in Trainable order.
func TestAttachLoRA(t *testing.T) {
	cfg := testConfig(false)
	lc := LoRAConfig{Rank: 4, Alpha: 8}
	mk := func() *Model {
		m := randomModel(t, cfg, 5)
		ad, err := m.AddAdapter(lc, 9)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ad.Params() {
			for i := range p.W {
				p.W[i] += 0.01 * float32(i%7-3)
			}
		}
		return m
	}
	plain, err := NewHostAccelerator(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := mk().Attach(plain); err == nil || !strings.Contains(err.Error(), "does not run LoRA adapters") {
		t.Errorf("a LoRA model attached to an accelerator without adapters: %v", err)
	}
	other, err := NewHostAcceleratorLoRA(cfg, LoRAConfig{Rank: 2, Alpha: 8, Targets: LoRAModules}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := mk().Attach(other); err == nil || !strings.Contains(err.Error(), "rank 2") {
		t.Errorf("a LoRA model attached to an accelerator made for another adapter: %v", err)
	}
	cpu, dev := mk(), mk()
	for _, p := range cpu.Params() {
		if len(p.Shape) == 2 {
			for i, x := range p.W {
				p.W[i] = roundBF16(x)
			}
		}
	}
	base := append([]float32(nil), dev.Params()[1].W...)
	acc, err := NewHostAcceleratorLoRA(cfg, LoRAConfig{Rank: 4, Alpha: 8, Targets: LoRAModules}, nil)
	if err != nil {
		t.Fatal(err)
	}
	dev.SetRecompute(true)
	if err := dev.Attach(acc); err != nil {
		t.Fatal(err)
	}
	seqs := randomSeqs(3, cfg.VocabSize, 9, 14)
	w := func(i int, lp, _ []float32) []float32 {
		out := make([]float32, len(lp))
		for j := range out {
			out[j] = float32(i+1) * 0.1
		}
		return out
	}
	opts := []*AdamW{NewAdamW(cpu, DefaultAdamW()), NewAdamW(dev, DefaultAdamW())}
	for k, m := range []*Model{cpu, dev} {
		m.ZeroGrad()
		if _, _, err := m.ForwardBackward(seqs, nil, w); err != nil {
			t.Fatal(err)
		}
		m.ClipGradNorm(1)
		if err := opts[k].Step(1e-3); err != nil {
			t.Fatal(err)
		}
	}
	if err := dev.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := opts[1].Sync(); err != nil {
		t.Fatal(err)
	}
	for j, p := range cpu.Trainable() {
		q := dev.Trainable()[j]
		for i := range p.W {
			if p.W[i] != q.W[i] || opts[0].M[j][i] != opts[1].M[j][i] {
				t.Fatalf("%s[%d] after a step: device %g (m %g), cpu %g (m %g)", p.Name, i, q.W[i], opts[1].M[j][i], p.W[i], opts[0].M[j][i])
			}
		}
	}
	for i, x := range dev.Params()[1].W {
		if x != base[i] {
			t.Fatalf("the host's base %s changed at %d after Sync", dev.Params()[1].Name, i)
		}
	}
	for _, on := range []bool{false, true} {
		cpu.Adapter().SetEnabled(on)
		dev.Adapter().SetEnabled(on)
		a, _, err := cpu.LogProbs(seqs, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _, err := dev.LogProbs(seqs, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range a {
			for j := range a[i] {
				if a[i][j] != b[i][j] {
					t.Fatalf("adapter on=%v: log-prob %d/%d: device %g, cpu %g", on, i, j, b[i][j], a[i][j])
				}
			}
		}
	}
	if err := acc.Grad(1, make([]float32, len(dev.Params()[1].W))); err == nil {
		t.Error("the host accelerator gave a gradient of the frozen base")
	}
}
