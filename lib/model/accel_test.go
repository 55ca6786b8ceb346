package model

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestAttachedMatchesCPU: training, log-probs, logits, checkpoints and
// decoding of a model attached to hostAcc equal the plain CPU model's bit
// for bit; the host tensors are stale until Sync, as documented.
func TestAttachedMatchesCPU(t *testing.T) {
	cfg := testConfig(false)
	cpu := randomModel(t, cfg, 3)
	dev := randomModel(t, cfg, 3)
	acc, err := NewHostAccelerator(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := dev.Attach(acc); err != nil {
		t.Fatal(err)
	}
	if err := dev.Attach(acc); err == nil {
		t.Error("a second Attach was accepted")
	}
	seqs := randomSeqs(4, cfg.VocabSize, 9, 5, 14)
	masks := [][]bool{nil, {false, true, true, false, true}, nil}
	weights := func(i int, lp, ent []float32) []float32 {
		w := make([]float32, len(lp))
		for t := range w {
			w[t] = 0.3*lp[t] - 0.1*ent[t] + float32(i)
		}
		return w
	}
	step := func(m *Model, o *AdamW) ([][]float32, float64) {
		m.ZeroGrad()
		lp, _, err := m.ForwardBackward(seqs, masks, weights)
		if err != nil {
			t.Fatal(err)
		}
		n := m.ClipGradNorm(0.5)
		if err := o.Step(1e-2); err != nil {
			t.Fatal(err)
		}
		return lp, n
	}
	ocpu, odev := NewAdamW(cpu, DefaultAdamW()), NewAdamW(dev, DefaultAdamW())
	for k := range odev.M {
		for j := range odev.M[k] { // a loaded optimizer's state goes up on the first step
			ocpu.M[k][j], odev.M[k][j] = 1e-3, 1e-3
		}
	}
	for s := 0; s < 3; s++ {
		lc, nc := step(cpu, ocpu)
		ld, nd := step(dev, odev)
		if diff := cmp.Diff(lc, ld); diff != "" || nc != nd {
			t.Fatalf("step %d: norms %v %v, log-probs (-cpu +dev):\n%s", s, nc, nd, diff)
		}
	}
	if cmp.Equal(cpu.params[1].W, dev.params[1].W) {
		t.Error("host weights followed the device before Sync")
	}
	lc, ec, _ := cpu.LogProbs(seqs, masks)
	ld, ed, err := dev.LogProbs(seqs, masks)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([][][]float32{lc, ec}, [][][]float32{ld, ed}); diff != "" {
		t.Errorf("LogProbs (-cpu +dev):\n%s", diff)
	}
	gc, _ := cpu.Logits(seqs[0])
	gd, _ := dev.Logits(seqs[0])
	if diff := cmp.Diff(gc, gd); diff != "" {
		t.Errorf("Logits (-cpu +dev):\n%s", diff)
	}
	// A checkpoint written from the device model has the same bytes.
	dir := t.TempDir()
	if err := cpu.SaveWith(filepath.Join(dir, "cpu"), nil, SaveOptions{Optimizer: ocpu}); err != nil {
		t.Fatal(err)
	}
	if err := dev.SaveWith(filepath.Join(dir, "dev"), nil, SaveOptions{Optimizer: odev}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"model.safetensors", OptimizerFile, OptimizerJSONFile, ConfigFile} {
		a, err1 := os.ReadFile(filepath.Join(dir, "cpu", f))
		b, err2 := os.ReadFile(filepath.Join(dir, "dev", f))
		if err1 != nil || err2 != nil || string(a) != string(b) {
			t.Errorf("%s differs (%v, %v)", f, err1, err2)
		}
	}
	// Decoding: single, cloned and batched appends; sampling on the
	// device with the host's uniforms.
	prompt := seqs[2][:6]
	dc, dd := cpu.NewDecoder(), dev.NewDecoder()
	a, _ := dc.Append(prompt)
	b, err := dd.Append(prompt)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(a, b); diff != "" || dd.Len() != len(prompt) {
		t.Errorf("Append: len %d, (-cpu +dev):\n%s", dd.Len(), diff)
	}
	cc := []*Decoder{dc.Clone(), dc.Clone(), cpu.NewDecoder()}
	cd := []*Decoder{dd.Clone(), dd.Clone(), dev.NewDecoder()}
	chunks := [][]int32{{1}, {2, 3}, seqs[1]}
	oc, _ := cpu.AppendBatch(cc, chunks)
	od, err := dev.AppendBatch(cd, chunks)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(oc, od); diff != "" {
		t.Errorf("AppendBatch (-cpu +dev):\n%s", diff)
	}
	for _, s := range []Sampling{{0, 1}, {1, 1}, {0.7, 0.9}} {
		rc, rd := rand.New(rand.NewPCG(9, 9)), rand.New(rand.NewPCG(9, 9))
		var want, got []int32
		var wlp, glp []float32
		for k := 0; k < 6; k++ {
			next := make([][]int32, len(cc))
			l, _ := cpu.AppendBatch(cc, chunks)
			for i := range cc {
				tk, lp := Sample(l[i], s.Temperature, s.TopP, rc)
				want, wlp = append(want, tk), append(wlp, lp)
				next[i] = []int32{tk}
			}
			u := make([]float64, len(cd))
			for i := range u {
				u[i] = SampleDraw(s.Temperature, rd)
			}
			tk, lp, err := dev.AppendSampleBatch(cd, chunks, s, u)
			if err != nil {
				t.Fatal(err)
			}
			got, glp = append(got, tk...), append(glp, lp...)
			chunks = next
		}
		if diff := cmp.Diff([]any{want, wlp}, []any{got, glp}); diff != "" {
			t.Errorf("sampling %+v (-cpu +dev):\n%s", s, diff)
		}
	}
}

// TestDetach: a detached model has the device's parameters on the host
// and runs on the CPU again.
func TestDetach(t *testing.T) {
	cfg := testConfig(true)
	m := randomModel(t, cfg, 2)
	acc, err := NewHostAccelerator(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Attach(acc); err != nil {
		t.Fatal(err)
	}
	want := append([]float32(nil), m.params[3].W...)
	clear(m.params[3].W)
	if err := m.Detach(); err != nil {
		t.Fatal(err)
	}
	if m.OnDevice() || m.Accelerator() != nil {
		t.Error("still on the device after Detach")
	}
	if diff := cmp.Diff(want, m.params[3].W); diff != "" {
		t.Errorf("parameters after Detach (-want +got):\n%s", diff)
	}
	if err := m.Detach(); err != nil {
		t.Errorf("second Detach: %v", err)
	}
}

// TestSampleUIsSample: SampleU with the generator's next Float64 is
// Sample, and AppendSample on the CPU is Append then Sample.
func TestSampleUIsSample(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	logits := make([]float32, 500)
	for i := range logits {
		logits[i] = float32(rng.NormFloat64() * 3)
	}
	for _, s := range []Sampling{{0, 1}, {1, 1}, {0.8, 0.95}, {1.3, 0.5}} {
		a, b := rand.New(rand.NewPCG(5, 6)), rand.New(rand.NewPCG(5, 6))
		for k := 0; k < 50; k++ {
			t1, l1 := Sample(logits, s.Temperature, s.TopP, a)
			t2, l2 := SampleU(logits, s.Temperature, s.TopP, SampleDraw(s.Temperature, b))
			if t1 != t2 || l1 != l2 {
				t.Fatalf("%+v draw %d: Sample %d %v, SampleU %d %v", s, k, t1, l1, t2, l2)
			}
		}
	}
	m := randomModel(t, testConfig(true), 8)
	d1, d2 := m.NewDecoder(), m.NewDecoder()
	l, _ := d1.Append([]int32{4, 5, 6})
	wt, wl := SampleU(l, 1, 1, 0.37)
	gt, gl, err := d2.AppendSample([]int32{4, 5, 6}, Sampling{1, 1}, 0.37)
	if err != nil || wt != gt || wl != gl || d2.Len() != 3 {
		t.Errorf("AppendSample = %d %v %v (len %d), want %d %v", gt, gl, err, d2.Len(), wt, wl)
	}
}
