package device_test

// Issue 60's parity checks, shared by the GPU run (parity_lora_test.go,
// -tags cuda) and the ordinary run (the planted bugs): a LoRA adapter over
// a frozen base and recomputed activations.
//
// The reference. The CUDA library holds a LoRA model's frozen base in BF16
// (pc_param_set rounds each matrix to nearest even), so the CPU reference
// runs on the same base rounded to BF16 (loraPair rounds the CPU model's
// matrices); what is left is the device's usual error (BF16 operands in
// every product, FP32 accumulation), held to the whole-model tolerances of
// parity_common_test.go: logits tolLogits, gradients tolGradAll (all) and
// tolGradOne (each adapter tensor above tolGradFloor of the whole), the
// gradient norm tolNorm, the AdamW update tolUpdate and two learning rates
// a parameter. The device's stored base must equal the rounded base bit for
// bit, and recomputation must give the same log-probabilities and
// gradients bit for bit (the same kernels on the same inputs).

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/pats-rl/pats/lib/model"
)

// loraTest is the adapter of the LoRA checks: rank 8, alpha 16, every
// projection.
var loraTest = model.LoRAConfig{Rank: 8, Alpha: 16}

// loraStdB is the spread of the adapters' B (PEFT starts it at zero, which
// gives A no gradient): large enough that the adapter moves the tiny and
// small models' logits by several times tolLogits (checkLoRA measures it).
const loraStdB = 0.1

// loraPair is a random model on the CPU and the same model for the device,
// each with the same adapter (A as PEFT draws it, B random); the CPU
// model's base matrices are rounded to BF16 as the device stores them. The
// device model is returned unattached.
func loraPair(t tb, cfg model.Config, seed uint64) (cpu, dev *model.Model) {
	t.Helper()
	cpu, dev = randomModel(t, cfg, seed), randomModel(t, cfg, seed)
	for _, p := range cpu.Params() {
		if len(p.Shape) == 2 {
			for i, x := range p.W {
				p.W[i] = roundBF16(x)
			}
		}
	}
	for _, m := range []*model.Model{cpu, dev} {
		ad, err := m.AddAdapter(loraTest, seed)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(seed, 60))
		for _, p := range ad.Params() {
			if strings.HasSuffix(p.Name, ".lora_B.weight") {
				copy(p.W, randn(rng, len(p.W), loraStdB))
			}
		}
	}
	return cpu, dev
}

// adapterGrads reads the adapter's gradients: from the host tensors on the
// CPU, from the device otherwise.
func adapterGrads(t tb, m *model.Model) [][]float32 {
	t.Helper()
	var out [][]float32
	for j, p := range m.Trainable() {
		if !m.OnDevice() {
			out = append(out, clone(p.G))
			continue
		}
		g := make([]float32, len(p.W))
		if err := m.Accelerator().Grad(m.TrainableIndex(j), g); err != nil {
			t.Fatal(err)
		}
		out = append(out, g)
	}
	return out
}

// adapterParams reads the adapter's parameters (from the device: Sync).
func adapterParams(t tb, m *model.Model) [][]float32 {
	t.Helper()
	if err := m.Sync(); err != nil {
		t.Fatal(err)
	}
	var out [][]float32
	for _, p := range m.Trainable() {
		out = append(out, clone(p.W))
	}
	return out
}

// logitsGap is the largest relInf between two models' logits over seqs.
func logitsGap(t tb, a, b *model.Model, seqs [][]int32) float64 {
	t.Helper()
	worst := 0.0
	for _, s := range seqs {
		la, err := a.Logits(s)
		if err != nil {
			t.Fatal(err)
		}
		lb, err := b.Logits(s)
		if err != nil {
			t.Fatal(err)
		}
		worst = math.Max(worst, relInf(la, lb))
	}
	return worst
}

// checkLoRA: cpu and dev (attached) carry the same adapter (loraPair).
// Checked: the device's base is the BF16-rounded base and gets no
// gradient; logits with the adapter on and off; the adapter's gradients
// and their norm; one AdamW step of the adapter; the host's base bytes
// unchanged by the step.
func checkLoRA(t tb, cpu, dev *model.Model, seqs [][]int32) {
	t.Helper()
	acc := dev.Accelerator()
	hostBase := params(t, dev) // Sync under LoRA brings the adapter only: these are the host's base bytes
	for i, p := range dev.Params() {
		got := make([]float32, len(p.W))
		if err := acc.Param(i, got); err != nil {
			t.Fatal(err)
		}
		want := cpu.Params()[i].W
		for k := range got {
			if math.Float32bits(got[k]) != math.Float32bits(want[k]) {
				t.Fatalf("the device's base tensor %s differs from the BF16-rounded base at %d: %g, want %g", p.Name, k, got[k], want[k])
			}
		}
	}
	if err := acc.Grad(1, make([]float32, len(dev.Params()[1].W))); err == nil {
		t.Errorf("the device gave a gradient of the frozen base's %s", dev.Params()[1].Name)
	}
	// Logits, adapter on and off; the adapter must matter.
	cpu.Adapter().SetEnabled(false)
	effect := 0.0
	for _, s := range seqs {
		off, err := cpu.Logits(s)
		if err != nil {
			t.Fatal(err)
		}
		cpu.Adapter().SetEnabled(true)
		on, err := cpu.Logits(s)
		cpu.Adapter().SetEnabled(false)
		if err != nil {
			t.Fatal(err)
		}
		effect = math.Max(effect, relInf(on, off))
	}
	report(t, "LoRA: the adapter moves the CPU's logits by %.3g of their largest magnitude", effect)
	if !(effect > 4*tolLogits) {
		t.Fatalf("the test adapter moves the logits by only %.3g: raise loraStdB", effect)
	}
	dev.Adapter().SetEnabled(false)
	within(t, "LoRA logits with the adapter off (the base, the KL reference)", logitsGap(t, dev, cpu, seqs), tolLogits)
	cpu.Adapter().SetEnabled(true)
	dev.Adapter().SetEnabled(true)
	within(t, "LoRA logits with the adapter on", logitsGap(t, dev, cpu, seqs), tolLogits)
	// Gradients of sum w*lp with fixed random weights.
	rng := rand.New(rand.NewPCG(7, 60))
	w := make([][]float32, len(seqs))
	for i, s := range seqs {
		w[i] = randn(rng, len(s), 1)
	}
	weights := func(i int, _, _ []float32) []float32 { return w[i] }
	for _, m := range []*model.Model{cpu, dev} {
		m.ZeroGrad()
		if _, _, err := m.ForwardBackward(seqs, nil, weights); err != nil {
			t.Fatal(err)
		}
	}
	gc, gd := adapterGrads(t, cpu), adapterGrads(t, dev)
	all := flat(gc)
	within(t, "LoRA adapter gradients, all", relL2(flat(gd), all), tolGradAll)
	total := math.Sqrt(dot(all, all))
	checked := 0
	for j, p := range cpu.Trainable() {
		if math.Sqrt(dot(gc[j], gc[j])) < tolGradFloor*total {
			continue
		}
		checked++
		if e := relL2(gd[j], gc[j]); !(e <= tolGradOne) {
			t.Errorf("LoRA gradient of %s: relative L2 error %.3g above %.3g", p.Name, e, tolGradOne)
		}
	}
	report(t, "LoRA: %d of %d adapter tensors checked one by one", checked, len(gc))
	nc, nd := cpu.ClipGradNorm(1), dev.ClipGradNorm(1)
	within(t, "LoRA gradient norm, relative", math.Abs(nd-nc)/nc, tolNorm)
	// One AdamW step of the adapter.
	before := adapterParams(t, cpu)
	oc, od := model.NewAdamW(cpu, model.DefaultAdamW()), model.NewAdamW(dev, model.DefaultAdamW())
	const lr = 1e-3
	if err := oc.Step(lr); err != nil {
		t.Fatal(err)
	}
	if err := od.Step(lr); err != nil {
		t.Fatal(err)
	}
	b, c, d := flat(before), flat(adapterParams(t, cpu)), flat(adapterParams(t, dev))
	du, cu := make([]float32, len(b)), make([]float32, len(b))
	for i := range b {
		du[i], cu[i] = d[i]-b[i], c[i]-b[i]
	}
	within(t, "LoRA adapter after the step, max |dev-cpu| / lr", maxDiff(d, c)/lr, 2.01)
	within(t, "LoRA adapter update, relative L2", relL2(du, cu), tolUpdate)
	if err := od.Sync(); err != nil {
		t.Fatal(err)
	}
	within(t, "LoRA AdamW first moment, relative L2", relL2(flat(od.M), flat(oc.M)), tolGradAll)
	after := params(t, dev)
	for i := range after {
		if !slices.Equal(after[i], hostBase[i]) {
			t.Errorf("the host's base tensor %s changed over a LoRA step", dev.Params()[i].Name)
		}
	}
}

// checkRecompute: on dev (attached), ForwardBackward with recomputed
// activations gives the same log-probabilities and trained gradients, bit
// for bit, as with every activation kept.
func checkRecompute(t tb, dev *model.Model, seqs [][]int32) {
	t.Helper()
	rng := rand.New(rand.NewPCG(8, 60))
	w := make([][]float32, len(seqs))
	for i, s := range seqs {
		w[i] = randn(rng, len(s), 1)
	}
	weights := func(i int, _, _ []float32) []float32 { return w[i] }
	run := func(on bool) ([]float32, []float32) {
		dev.SetRecompute(on)
		dev.ZeroGrad()
		lp, _, err := dev.ForwardBackward(seqs, nil, weights)
		if err != nil {
			t.Fatal(err)
		}
		g := make([][]float32, 0)
		for j, p := range dev.Trainable() {
			x := make([]float32, len(p.W))
			if err := dev.Accelerator().Grad(dev.TrainableIndex(j), x); err != nil {
				t.Fatal(err)
			}
			g = append(g, x)
		}
		return flat(lp), flat(g)
	}
	lpKept, gKept := run(false)
	lpRe, gRe := run(true)
	dev.SetRecompute(false)
	diff := func(a, b []float32) int {
		n := 0
		for i := range a {
			if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
				n++
			}
		}
		return n
	}
	report(t, "recompute: %d of %d log-probabilities and %d of %d gradient values differ from the kept forward's (max |dlp| %.3g, max |dg| %.3g)",
		diff(lpRe, lpKept), len(lpKept), diff(gRe, gKept), len(gKept), maxDiff(lpRe, lpKept), maxDiff(gRe, gKept))
	if n := diff(lpRe, lpKept) + diff(gRe, gKept); n > 0 {
		t.Errorf("recomputed activations changed %d log-probabilities or gradient values (want the same bits)", n)
	}
	if maxAbs(gKept) == 0 {
		t.Errorf("recompute: every gradient is zero (nothing was checked)")
	}
	checkBackwardTwice(t, dev, seqs[len(seqs)-1])
}

// gradsOf reads the trained tensors' gradients from dev's accelerator.
func gradsOf(t tb, dev *model.Model) []float32 {
	t.Helper()
	var g []float32
	for j, p := range dev.Trainable() {
		x := make([]float32, len(p.W))
		if err := dev.Accelerator().Grad(dev.TrainableIndex(j), x); err != nil {
			t.Fatal(err)
		}
		g = append(g, x...)
	}
	return g
}

// checkBackwardTwice: a second Backward of one recomputed forward adds
// what the first added (the gradients double, to rounding), as a second
// Backward of a forward that kept everything does: recomputing a layer
// must not spend what the kept forward holds (the CUDA library once ran
// the recomputed layers in the residual stream the final norm's backward
// reads).
func checkBackwardTwice(t tb, dev *model.Model, seq []int32) {
	t.Helper()
	acc := dev.Accelerator()
	rc, ok := acc.(model.RecomputeAccelerator)
	if !ok {
		t.Fatalf("%s does not recompute", acc.Name())
	}
	T := len(seq)
	if T < 2 {
		t.Fatalf("backward twice: a sequence of %d tokens scores nothing", T)
	}
	rows, targets := make([]int32, T-1), make([]int32, T-1)
	for i := range rows {
		rows[i], targets[i] = int32(i), seq[i+1]
	}
	dlp := randn(rand.New(rand.NewPCG(9, 60)), T-1, 1)
	rc.SetRecompute(true)
	defer rc.SetRecompute(false)
	if err := acc.ZeroGrad(); err != nil {
		t.Fatal(err)
	}
	if err := acc.Forward(seq, rows, targets, make([]float32, T-1), nil, true); err != nil {
		t.Fatal(err)
	}
	if err := acc.Backward(dlp); err != nil {
		t.Fatal(err)
	}
	once := gradsOf(t, dev)
	if err := acc.Backward(dlp); err != nil {
		t.Fatal(err)
	}
	twice := gradsOf(t, dev)
	for i := range once {
		once[i] *= 2
	}
	within(t, "recompute: a second backward of one forward, gradients against twice the first's, relative L2", relL2(twice, once), 1e-5)
}
