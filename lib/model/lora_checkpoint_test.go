package model

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/model/safetensors"
)

// saveLoRA writes a random base checkpoint and, beside it, a trained-looking
// adapter of it with its optimizer state; it returns the model (base +
// adapter), the base folder and the adapter folder.
func saveLoRA(t *testing.T, targets []string) (*Model, string, string) {
	t.Helper()
	dir := t.TempDir()
	cfg := testConfig(false)
	m := randomModel(t, cfg, 21)
	base := filepath.Join(dir, "base")
	if err := m.Save(base, nil); err != nil {
		t.Fatal(err)
	}
	ad := randomAdapter(t, m, LoRAConfig{Rank: 4, Alpha: 16, Targets: targets}, 3)
	h, err := WeightsHash(base)
	if err != nil {
		t.Fatal(err)
	}
	ad.Base, ad.BaseHash = base, h
	opt := NewAdamW(m, DefaultAdamW())
	m.ZeroGrad()
	if err := m.Backward(randomSeqs(2, cfg.VocabSize, 8), [][]float32{{0, 1, 1, 1, 1, 1, 1, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := opt.Step(1e-3); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "adapter")
	if err := m.SaveWith(out, nil, SaveOptions{Optimizer: opt}); err != nil {
		t.Fatal(err)
	}
	return m, base, out
}

// TestAdapterFolderLayout reads an adapter folder as PEFT documents it,
// apart from this package's reader: adapter_config.json's keys
// (peft_type LORA, base_model_name_or_path, r, lora_alpha,
// target_modules) and adapter_model.safetensors' tensors named
// base_model.model.model.layers.N.<module>.lora_A.weight [r, in] and
// .lora_B.weight [out, r]; no config.json or model.safetensors (the base
// is not copied); the optimizer state covers the adapter only.
func TestAdapterFolderLayout(t *testing.T) {
	m, base, out := saveLoRA(t, []string{"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"})
	cfg := m.Cfg
	var pc map[string]any
	b, err := os.ReadFile(filepath.Join(out, "adapter_config.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &pc); err != nil {
		t.Fatal(err)
	}
	if pc["peft_type"] != "LORA" || pc["base_model_name_or_path"] != base || pc["r"] != 4.0 || pc["lora_alpha"] != 16.0 || pc["task_type"] != "CAUSAL_LM" {
		t.Errorf("adapter_config.json: %v", pc)
	}
	tm, _ := pc["target_modules"].([]any)
	if len(tm) != 7 || tm[0] != "q_proj" || tm[6] != "down_proj" {
		t.Errorf("target_modules %v", pc["target_modules"])
	}
	for _, f := range []string{"config.json", "model.safetensors"} {
		if _, err := os.Stat(filepath.Join(out, f)); err == nil {
			t.Errorf("the adapter folder holds %s", f)
		}
	}
	ts, _, err := safetensors.ReadFile(filepath.Join(out, "adapter_model.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	H, I, q, kv := cfg.HiddenSize, cfg.IntermediateSize, cfg.QDim(), cfg.KVDim()
	shapes := map[string][2]int{"self_attn.q_proj": {q, H}, "self_attn.k_proj": {kv, H}, "self_attn.v_proj": {kv, H},
		"self_attn.o_proj": {H, q}, "mlp.gate_proj": {I, H}, "mlp.up_proj": {I, H}, "mlp.down_proj": {H, I}}
	want := 0
	for l := 0; l < cfg.NumHiddenLayers; l++ {
		for mod, sh := range shapes {
			for _, c := range []struct {
				ab    string
				shape []int
			}{{"A", []int{4, sh[1]}}, {"B", []int{sh[0], 4}}} {
				name := fmt.Sprintf("base_model.model.model.layers.%d.%s.lora_%s.weight", l, mod, c.ab)
				want++
				if tt, ok := ts[name]; !ok || !slices.Equal(tt.Shape, c.shape) {
					t.Errorf("%s: present %v, shape %v, want %v", name, ok, tt.Shape, c.shape)
				}
			}
		}
	}
	if len(ts) != want {
		t.Errorf("%d tensors, want %d", len(ts), want)
	}
	opt, _, err := safetensors.ReadFile(filepath.Join(out, OptimizerFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(opt) != 2*want {
		t.Errorf("optimizer state holds %d tensors, want the adapter's %d moments", len(opt), 2*want)
	}
	for name := range opt {
		if !strings.Contains(name, ".lora_") {
			t.Errorf("optimizer state holds %s", name)
		}
	}
}

// TestAdapterFolderLoads: Load of the adapter folder gives base + adapter
// (the same log-probs bit for bit), LoadAdamW its moments; its
// WeightsHash differs from the base's and changes with the adapter; a
// base whose weights changed since is refused; an adapter and its base
// moved together still load.
func TestAdapterFolderLoads(t *testing.T) {
	m, base, out := saveLoRA(t, []string{"q_proj", "v_proj", "down_proj"})
	seqs := randomSeqs(7, m.Cfg.VocabSize, 12)
	want, _, _ := m.LogProbs(seqs, nil)
	got, err := Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if got.Adapter() == nil || !slices.Equal(got.Adapter().Cfg.Targets, []string{"q_proj", "v_proj", "down_proj"}) {
		t.Fatalf("loaded adapter %+v", got.Adapter())
	}
	lp, _, _ := got.LogProbs(seqs, nil)
	if !bitsEqual(lp[0], want[0]) {
		t.Error("the loaded adapter scores differently")
	}
	opt, err := LoadAdamW(out, got)
	if err != nil || opt.StepN != 1 || len(opt.M) != len(got.Trainable()) {
		t.Errorf("optimizer: %v %+v", err, opt)
	}
	hb, _ := WeightsHash(base)
	ha, err := WeightsHash(out)
	if err != nil || ha == hb || ha == "" {
		t.Errorf("adapter hash %q (%v), base %q", ha, err, hb)
	}
	moved := filepath.Join(t.TempDir(), "runs")
	if err := os.Mkdir(moved, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{base, out} {
		if err := os.Rename(d, filepath.Join(moved, filepath.Base(d))); err != nil {
			t.Fatal(err)
		}
	}
	mv, err := Load(filepath.Join(moved, "adapter"))
	if err != nil {
		t.Fatalf("moved together: %v", err)
	}
	if lp, _, _ := mv.LogProbs(seqs, nil); !bitsEqual(lp[0], want[0]) {
		t.Error("the moved adapter scores differently")
	}
	if h, _ := WeightsHash(filepath.Join(moved, "adapter")); h != ha {
		t.Error("moving the folders changed the adapter's hash")
	}
	other := randomModel(t, m.Cfg, 22)
	if err := other.Save(filepath.Join(moved, "base"), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(filepath.Join(moved, "adapter")); err == nil || !strings.Contains(err.Error(), "trained on") {
		t.Errorf("a changed base: %v", err)
	}
}
