package model

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/model/safetensors"
)

func TestSaveLoadIdentical(t *testing.T) {
	for _, tied := range []bool{true, false} {
		cfg := testConfig(tied)
		m := randomModel(t, cfg, 31)
		dir := filepath.Join(t.TempDir(), "ckpt")
		tok := []byte(`{"version":"1.0"}`)
		if err := m.Save(dir, tok); err != nil {
			t.Fatal(err)
		}
		got, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		if got.NumParams() != m.NumParams() || got.Cfg.TieWordEmbeddings != tied {
			t.Fatalf("loaded %d params tied=%v, saved %d tied=%v", got.NumParams(), got.Cfg.TieWordEmbeddings, m.NumParams(), tied)
		}
		seq := randomSeqs(1, cfg.VocabSize, 11)[0]
		a, _ := m.Logits(seq)
		b, _ := got.Logits(seq)
		if d := maxAbsDiff(a, b); d != 0 {
			t.Errorf("tied=%v: logits differ by %g after save/load", tied, d)
		}
		if b, err := os.ReadFile(filepath.Join(dir, TokenizerFile)); err != nil || string(b) != string(tok) {
			t.Errorf("tokenizer.json = %q, %v", b, err)
		}
		var raw map[string]any
		cb, _ := os.ReadFile(filepath.Join(dir, ConfigFile))
		if err := json.Unmarshal(cb, &raw); err != nil {
			t.Fatal(err)
		}
		if raw["model_type"] != "qwen2" || raw["architectures"].([]any)[0] != "Qwen2ForCausalLM" || raw["torch_dtype"] != "float32" {
			t.Errorf("config.json keys: %v", raw)
		}
		ts, _, err := safetensors.ReadFile(filepath.Join(dir, safetensors.SingleName))
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := ts["lm_head.weight"]; ok == tied {
			t.Errorf("tied=%v: lm_head.weight stored=%v", tied, ok)
		}
		for _, name := range []string{"model.embed_tokens.weight", "model.layers.1.self_attn.k_proj.bias", "model.layers.0.mlp.down_proj.weight", "model.norm.weight"} {
			if _, ok := ts[name]; !ok {
				t.Errorf("tensor %s not stored", name)
			}
		}
	}
}

// TestBF16ShardedLoad writes BF16 shards with an index and checks the
// loaded model's logits stay close to the F32 model's.
func TestBF16ShardedLoad(t *testing.T) {
	cfg := testConfig(false)
	m := randomModel(t, cfg, 41)
	dir := filepath.Join(t.TempDir(), "bf16")
	if err := m.SaveWith(dir, nil, SaveOptions{DType: safetensors.BF16, ShardBytes: 4000}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, safetensors.SingleName)); err == nil {
		t.Fatal("sharded save wrote model.safetensors")
	}
	shards, _ := filepath.Glob(filepath.Join(dir, "model-*-of-*.safetensors"))
	if len(shards) < 3 {
		t.Fatalf("%d shards, want several", len(shards))
	}
	got, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.Cfg.TorchDtype != "bfloat16" {
		t.Errorf("torch_dtype %q", got.Cfg.TorchDtype)
	}
	seq := randomSeqs(2, cfg.VocabSize, 12)[0]
	a, _ := m.Logits(seq)
	b, _ := got.Logits(seq)
	d := maxAbsDiff(a, b)
	var scale float64
	for _, v := range a {
		scale = math.Max(scale, math.Abs(float64(v)))
	}
	// BF16 keeps 8 significant bits: a relative weight error up to 2^-9.
	if d == 0 || d > 0.05*scale {
		t.Errorf("BF16 logits differ by %g (logit scale %g)", d, scale)
	}
}

// TestF16Read stores the weights as F16 through the writer and checks
// the loaded model is close to the original.
func TestF16Read(t *testing.T) {
	cfg := testConfig(true)
	m := randomModel(t, cfg, 5)
	dir := t.TempDir()
	if err := m.Save(dir, nil); err != nil {
		t.Fatal(err)
	}
	var ts []safetensors.Named
	for _, p := range m.Params() {
		ts = append(ts, safetensors.Named{Name: p.Name, Shape: p.Shape, Data: p.W})
	}
	if err := safetensors.WriteFile(filepath.Join(dir, safetensors.SingleName), ts, nil, safetensors.F16); err != nil {
		t.Fatal(err)
	}
	got, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range got.Params() {
		if d := maxAbsDiff(p.W, m.Params()[i].W); d == 0 || d > 2e-3 {
			t.Errorf("%s: F16 round trip differs by %g", p.Name, d)
		}
	}
}

func TestSaveAtomicAndReplace(t *testing.T) {
	cfg := testConfig(true)
	m := randomModel(t, cfg, 1)
	parent := t.TempDir()
	dir := filepath.Join(parent, "out")
	if err := m.SaveWith(dir, nil, SaveOptions{DType: "F64"}); err == nil {
		t.Fatal("unsupported dtype accepted")
	}
	// A failure inside the write leaves nothing behind.
	m.params[1].W = m.params[1].W[:3]
	if err := m.Save(dir, nil); err == nil {
		t.Fatal("save of a misshapen tensor succeeded")
	}
	m.params[1].W = randomModel(t, cfg, 1).params[1].W
	entries, _ := os.ReadDir(parent)
	if len(entries) != 0 {
		t.Fatalf("failed save left %v", entries)
	}
	if err := m.Save(dir, []byte("a")); err != nil {
		t.Fatal(err)
	}
	if err := m.Save(dir, nil); err != nil { // replace
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, TokenizerFile)); err == nil {
		t.Error("replaced checkpoint still has the old tokenizer.json")
	}
	entries, _ = os.ReadDir(parent)
	if len(entries) != 1 {
		t.Errorf("parent holds %d entries after replace", len(entries))
	}
}

func TestLoadErrors(t *testing.T) {
	cfg := testConfig(false)
	m := randomModel(t, cfg, 1)
	dir := t.TempDir()
	if err := m.Save(dir, nil); err != nil {
		t.Fatal(err)
	}
	// Drop lm_head: an untied model must refuse.
	ts, _, _ := safetensors.ReadFile(filepath.Join(dir, safetensors.SingleName))
	var keep []safetensors.Named
	for _, p := range m.Params() {
		if p.Name != "lm_head.weight" {
			f, _ := ts[p.Name].Float32()
			keep = append(keep, safetensors.Named{Name: p.Name, Shape: p.Shape, Data: f})
		}
	}
	safetensors.WriteFile(filepath.Join(dir, safetensors.SingleName), keep, nil, safetensors.F32)
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "lm_head.weight") {
		t.Errorf("missing lm_head: %v", err)
	}
	// Truncated file.
	b, _ := os.ReadFile(filepath.Join(dir, safetensors.SingleName))
	binary.LittleEndian.PutUint64(b, uint64(len(b)))
	os.WriteFile(filepath.Join(dir, safetensors.SingleName), b, 0o644)
	if _, err := Load(dir); err == nil {
		t.Error("corrupt header accepted")
	}
	if _, err := Load(t.TempDir()); err == nil {
		t.Error("empty folder accepted")
	}
}

func TestOptimizerSaveLoad(t *testing.T) {
	cfg := testConfig(true)
	m := randomModel(t, cfg, 3)
	opt := NewAdamW(m, DefaultAdamW())
	seqs := randomSeqs(1, cfg.VocabSize, 6, 8)
	w := [][]float32{{0, 1, 1, 1, 1, 1}, {0, 1, 1, 1, 1, 1, 1, 1}}
	for i := 0; i < 2; i++ {
		m.ZeroGrad()
		if err := m.Backward(seqs, w); err != nil {
			t.Fatal(err)
		}
		opt.Step(1e-3)
	}
	dir := t.TempDir()
	if _, err := LoadAdamW(dir, m); !os.IsNotExist(err) {
		t.Errorf("absent optimizer state: %v", err)
	}
	if err := m.SaveWith(dir, nil, SaveOptions{Optimizer: opt}); err != nil {
		t.Fatal(err)
	}
	m2, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	opt2, err := LoadAdamW(dir, m2)
	if err != nil {
		t.Fatal(err)
	}
	if opt2.StepN != 2 || opt2.Cfg != opt.Cfg {
		t.Errorf("loaded step %d cfg %+v", opt2.StepN, opt2.Cfg)
	}
	// One more identical step on both gives identical parameters.
	for _, mm := range []*Model{m, m2} {
		mm.ZeroGrad()
		mm.Backward(seqs, w)
	}
	opt.Step(1e-3)
	opt2.Step(1e-3)
	for i, p := range m.Params() {
		if d := maxAbsDiff(p.W, m2.Params()[i].W); d != 0 {
			t.Errorf("%s: resumed step differs by %g", p.Name, d)
		}
	}
}
