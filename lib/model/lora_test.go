package model

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// randomAdapter attaches an adapter to m whose A and B are both random, so
// that it changes the model and every adapter gradient is non-zero.
func randomAdapter(t testing.TB, m *Model, cfg LoRAConfig, seed uint64) *Adapter {
	t.Helper()
	ad, err := m.AddAdapter(cfg, seed)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 5))
	for _, p := range ad.Params() {
		if strings.HasSuffix(p.Name, "lora_B.weight") {
			for i := range p.W {
				p.W[i] = float32(rng.NormFloat64() * 0.3)
			}
		}
	}
	return ad
}

// paramBytes is every base parameter's values, for comparisons.
func paramBytes(m *Model) [][]float32 {
	var out [][]float32
	for _, p := range m.Params() {
		out = append(out, slices.Clone(p.W))
	}
	return out
}

// TestLoRAZeroBIsBase: a fresh adapter (B = 0) leaves the log-probs, the
// entropies and the decoder's logits bit for bit those of the base; an
// adapter switched off (SetEnabled(false)) with a non-zero B too, and
// switched on it changes them.
func TestLoRAZeroBIsBase(t *testing.T) {
	cfg := testConfig(false)
	seqs := randomSeqs(3, cfg.VocabSize, 9, 14)
	base := randomModel(t, cfg, 4)
	lp0, ent0, err := base.LogProbs(seqs, nil)
	if err != nil {
		t.Fatal(err)
	}
	dec0, err := base.NewDecoder().Append(seqs[1])
	if err != nil {
		t.Fatal(err)
	}
	m := randomModel(t, cfg, 4)
	ad, err := m.AddAdapter(LoRAConfig{Rank: 4, Alpha: 8}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(ad.Params()) != 2*7*cfg.NumHiddenLayers {
		t.Fatalf("%d adapter tensors, want A and B of 7 projections in %d layers", len(ad.Params()), cfg.NumHiddenLayers)
	}
	same := func(what string, want bool) {
		t.Helper()
		lp, ent, err := m.LogProbs(seqs, nil)
		if err != nil {
			t.Fatal(err)
		}
		dec, err := m.NewDecoder().Append(seqs[1])
		if err != nil {
			t.Fatal(err)
		}
		eq := true
		for i := range lp {
			eq = eq && bitsEqual(lp[i], lp0[i]) && bitsEqual(ent[i], ent0[i])
		}
		eq = eq && bitsEqual(dec, dec0)
		if eq != want {
			t.Errorf("%s: equal to the base's bits is %v, want %v", what, eq, want)
		}
	}
	same("B = 0", true)
	for _, p := range ad.Params() {
		if strings.HasSuffix(p.Name, "lora_B.weight") {
			for i := range p.W {
				p.W[i] = 0.05
			}
		}
	}
	same("B != 0", false)
	ad.SetEnabled(false)
	same("adapter off", true)
}

func bitsEqual(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}

// TestLoRAGradientFiniteDifference compares the adapter gradients of
// Backward with central differences, as TestGradientFiniteDifference does
// for the base, for every adapter tensor (A and B of each projection of
// each layer, with a subset of targets too); the base tensors get no
// gradient at all.
func TestLoRAGradientFiniteDifference(t *testing.T) {
	for _, targets := range [][]string{nil, {"q_proj", "v_proj", "down_proj"}} {
		cfg := testConfig(false)
		m := randomModel(t, cfg, 3)
		ad := randomAdapter(t, m, LoRAConfig{Rank: 3, Alpha: 6, Targets: targets}, 2)
		seqs := randomSeqs(5, cfg.VocabSize, 7, 9)
		rng := rand.New(rand.NewPCG(9, 9))
		w := make([][]float32, len(seqs))
		for i, s := range seqs {
			w[i] = make([]float32, len(s))
			for j := 1; j < len(s); j++ {
				if rng.IntN(3) > 0 {
					w[i][j] = float32(rng.NormFloat64())
				}
			}
		}
		m.ZeroGrad()
		if err := m.Backward(seqs, w); err != nil {
			t.Fatal(err)
		}
		for _, p := range m.Params() {
			if p.G != nil {
				t.Errorf("base tensor %s has a gradient under LoRA", p.Name)
			}
		}
		want := 2 * 7 * cfg.NumHiddenLayers
		if targets != nil {
			want = 2 * len(targets) * cfg.NumHiddenLayers
		}
		if len(ad.Params()) != want || len(m.Trainable()) != want {
			t.Fatalf("%d adapter tensors (%d trainable), want %d", len(ad.Params()), len(m.Trainable()), want)
		}
		for _, p := range ad.Params() {
			rel, zero := fdRelError(t, m, p, rng, seqs, w)
			if zero {
				t.Errorf("%s: gradient and differences all zero", p.Name)
				continue
			}
			if rel > 2e-2 {
				t.Errorf("targets %v %s: relative error %.3g", targets, p.Name, rel)
			}
		}
	}
}

// TestLoRAStepsLeaveBase: AdamW steps under LoRA move the adapter (B
// leaves 0) and leave every base weight bit for bit as it was; the
// optimizer holds moments for the adapter's tensors only.
func TestLoRAStepsLeaveBase(t *testing.T) {
	cfg := testConfig(true)
	m := randomModel(t, cfg, 6)
	before := paramBytes(m)
	ad, err := m.AddAdapter(LoRAConfig{Rank: 2, Alpha: 4}, 3)
	if err != nil {
		t.Fatal(err)
	}
	opt := NewAdamW(m, DefaultAdamW())
	if len(opt.M) != len(ad.Params()) {
		t.Fatalf("optimizer holds %d tensors' moments, the adapter has %d", len(opt.M), len(ad.Params()))
	}
	seqs := randomSeqs(8, cfg.VocabSize, 10, 6)
	w := [][]float32{make([]float32, 10), make([]float32, 6)}
	for i := range w {
		for j := 1; j < len(w[i]); j++ {
			w[i][j] = -1
		}
	}
	for step := 0; step < 3; step++ {
		m.ZeroGrad()
		if err := m.Backward(seqs, w); err != nil {
			t.Fatal(err)
		}
		m.ClipGradNorm(1)
		if err := opt.Step(1e-2); err != nil {
			t.Fatal(err)
		}
	}
	for i, p := range m.Params() {
		if !bitsEqual(p.W, before[i]) {
			t.Errorf("base tensor %s changed under LoRA", p.Name)
		}
	}
	moved := 0
	for _, p := range ad.Params() {
		if strings.HasSuffix(p.Name, "lora_B.weight") && slices.ContainsFunc(p.W, func(x float32) bool { return x != 0 }) {
			moved++
		}
	}
	if moved != len(ad.Params())/2 {
		t.Errorf("%d of %d B matrices moved", moved, len(ad.Params())/2)
	}
}

// TestLoRAInit: A is uniform in +-1/sqrt(in) (PEFT's Kaiming-uniform with
// a = sqrt(5)), filling that range; B is zero; the same seed gives the
// same bits.
func TestLoRAInit(t *testing.T) {
	cfg := testConfig(false)
	m1 := randomModel(t, cfg, 1)
	m2 := randomModel(t, cfg, 1)
	a1, _ := m1.AddAdapter(LoRAConfig{Rank: 8, Alpha: 16}, 7)
	a2, _ := m2.AddAdapter(LoRAConfig{Rank: 8, Alpha: 16}, 7)
	for i, p := range a1.Params() {
		if !bitsEqual(p.W, a2.Params()[i].W) {
			t.Errorf("%s differs between two adapters of one seed", p.Name)
		}
		if strings.HasSuffix(p.Name, "lora_B.weight") {
			if slices.ContainsFunc(p.W, func(x float32) bool { return x != 0 }) {
				t.Errorf("%s is not zero", p.Name)
			}
			continue
		}
		bound := 1 / math.Sqrt(float64(p.Shape[1]))
		var lo, hi float64
		for _, x := range p.W {
			lo, hi = math.Min(lo, float64(x)), math.Max(hi, float64(x))
		}
		if lo < -bound || hi > bound || hi < 0.8*bound || lo > -0.8*bound {
			t.Errorf("%s spans [%g, %g], want most of +-%g", p.Name, lo, hi, bound)
		}
	}
	if _, err := m1.AddAdapter(LoRAConfig{Rank: 8, Alpha: 16}, 7); err == nil {
		t.Error("a second adapter was accepted")
	}
	for _, bad := range []LoRAConfig{{Rank: 0, Alpha: 1}, {Rank: 2, Alpha: 0}, {Rank: 2, Alpha: 1, Targets: []string{"lm_head"}}} {
		if _, err := randomModel(t, cfg, 1).AddAdapter(bad, 1); err == nil {
			t.Errorf("%+v was accepted", bad)
		}
	}
}

// TestLoRAMerge: MergeAdapter folds the adapter into the base so that the
// merged model scores what base + adapter scores (to float rounding), and
// removes the adapter.
func TestLoRAMerge(t *testing.T) {
	cfg := testConfig(false)
	m := randomModel(t, cfg, 12)
	randomAdapter(t, m, LoRAConfig{Rank: 3, Alpha: 5, Targets: []string{"q_proj", "o_proj", "up_proj", "down_proj"}}, 4)
	seqs := randomSeqs(2, cfg.VocabSize, 11)
	want, _, err := m.LogProbs(seqs, nil)
	if err != nil {
		t.Fatal(err)
	}
	base := randomModel(t, cfg, 12)
	lb, _, _ := base.LogProbs(seqs, nil)
	if maxAbsDiff(lb[0], want[0]) < 1e-3 {
		t.Fatal("the adapter barely changes the log-probs: the test cannot tell a merge from none")
	}
	if err := m.MergeAdapter(); err != nil {
		t.Fatal(err)
	}
	if m.Adapter() != nil || len(m.Trainable()) != len(m.Params()) {
		t.Error("the adapter is still attached after the merge")
	}
	got, _, _ := m.LogProbs(seqs, nil)
	if d := maxAbsDiff(got[0], want[0]); d > 1e-5 {
		t.Errorf("merged log-probs differ from base + adapter by %g", d)
	}
}

func TestParseLoRATargets(t *testing.T) {
	got, err := ParseLoRATargets("down, q,v_proj")
	if err != nil || !slices.Equal(got, []string{"q_proj", "v_proj", "down_proj"}) {
		t.Errorf("got %v, %v", got, err)
	}
	for _, bad := range []string{"", "q,lm_head", ","} {
		if _, err := ParseLoRATargets(bad); err == nil {
			t.Errorf("%q was accepted", bad)
		}
	}
}

// TestLoRADecoders: with an adapter, the decoder (one chunk after
// another) and batched decoding give the full forward's logits (within
// 1e-5), which differ from the base's.
func TestLoRADecoders(t *testing.T) {
	cfg := testConfig(true)
	m := randomModel(t, cfg, 17)
	seqs := randomSeqs(6, cfg.VocabSize, 9, 7)
	base, _ := m.Logits(seqs[0])
	randomAdapter(t, m, LoRAConfig{Rank: 2, Alpha: 2}, 5)
	V := cfg.VocabSize
	var full [][]float32
	for _, s := range seqs {
		l, err := m.Logits(s)
		if err != nil {
			t.Fatal(err)
		}
		full = append(full, l)
	}
	if maxAbsDiff(full[0], base) < 1e-3 {
		t.Fatal("the adapter does not change the logits")
	}
	d := m.NewDecoder()
	if _, err := d.Append(seqs[0][:4]); err != nil {
		t.Fatal(err)
	}
	l, err := d.Append(seqs[0][4:])
	if err != nil {
		t.Fatal(err)
	}
	if diff := maxAbsDiff(l, full[0][(len(seqs[0])-1)*V:]); diff > 1e-5 {
		t.Errorf("decoder: %g from the forward", diff)
	}
	decs := []*Decoder{m.NewDecoder(), m.NewDecoder()}
	out, err := m.AppendBatch(decs, seqs)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range seqs {
		if diff := maxAbsDiff(out[i], full[i][(len(s)-1)*V:]); diff > 1e-5 {
			t.Errorf("batched decoder %d: %g from the forward", i, diff)
		}
	}
}
