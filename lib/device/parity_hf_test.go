//go:build cuda

package device_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/output"
	"github.com/pats-rl/pats/lib/rl"
	"github.com/pats-rl/pats/lib/rollout/episodetest"
	"github.com/pats-rl/pats/lib/stage"
	"github.com/pats-rl/pats/lib/stage/learn"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// Tolerances of scripts/hf-logits.py, written into each meta.json: our
// device logits against transformers' Qwen2ForCausalLM (Qwen3ForCausalLM
// for the Qwen3 shape) on the same checkpoint, as max|ours - theirs| / max|theirs|. In float32 the
// difference is our BF16 products alone: tolLogits. In bfloat16
// transformers also rounds every activation and the residual stream to
// BF16 (one rounding of u = 2^-8 per layer and sub-layer, partly
// cancelling over 2 x 24 additions: about sqrt(48) u = 2.7%), on top of
// ours: 6e-2.
const (
	tolHFFloat32  = tolLogits
	tolHFBFloat16 = 6e-2
)

// hfCase is one checkpoint for scripts/hf-logits.py: DIR/<name>/ckpt,
// DIR/<name>/logits.f32 (ours on the device, len(tokens) x vocab,
// little-endian float32), DIR/<name>/logits_cpu.f32 (ours on the CPU) and
// DIR/<name>/meta.json.
type hfMeta struct {
	Tokens   []int32 `json:"tokens"`
	Vocab    int     `json:"vocab"`
	Float32  float64 `json:"tolerance_float32"`
	BFloat16 float64 `json:"tolerance_bfloat16"`
	Source   string  `json:"source"`
}

func writeF32(t *testing.T, path string, x []float32) {
	t.Helper()
	b := make([]byte, 4*len(x))
	for i, v := range x {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// export writes the logits of the checkpoint folder dir for tokens, on the
// device and on the CPU, and meta.json beside dir.
func export(t *testing.T, dir string, tokens []int32, source string) {
	t.Helper()
	f, err := model.OpenFolder(dir)
	if err != nil {
		t.Fatal(err)
	}
	cpuLogits, err := f.Model.Logits(tokens)
	if err != nil {
		t.Fatal(err)
	}
	attach(t, f.Model)
	devLogits, err := f.Model.Logits(tokens)
	if err != nil {
		t.Fatal(err)
	}
	within(t, source+": device logits against the CPU's", relInf(devLogits, cpuLogits), tolLogits)
	base := filepath.Dir(dir)
	writeF32(t, filepath.Join(base, "logits.f32"), devLogits)
	writeF32(t, filepath.Join(base, "logits_cpu.f32"), cpuLogits)
	b, err := json.MarshalIndent(hfMeta{Tokens: tokens, Vocab: f.Model.Cfg.VocabSize, Float32: tolHFFloat32,
		BFloat16: tolHFBFloat16, Source: source}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(base, "meta.json"), append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestParityHFExport writes, under $PATS_GPU_SCRATCH/hf/, the checkpoints
// scripts/hf-logits.py loads with transformers: "small", trained for one
// epoch by learn sft --device cuda on oracle demonstrations (so the
// weights come back from the device through learn's own save), and a
// Qwen2.5-0.5B-shaped model with random weights saved through the same
// staged save learn uses, and a small Qwen3 shape saved the same way; each
// with our device and CPU logits of fixed token ids.
func TestParityHFExport(t *testing.T) {
	out := os.Getenv("PATS_GPU_OUT")
	if out == "" {
		t.Fatal("set PATS_GPU_OUT to the folder the GPU check writes to")
	}
	openGPU(t)
	// The checkpoints are large (the 0.5B shape in float32 is about 2 GB):
	// they go to the scratch folder, not to the output folder that comes
	// back from the GPU machine; scripts/gpu-check.sh gives hf-logits.py
	// the same folder.
	hf := scratchDir(t, "hf")
	if err := os.RemoveAll(hf); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(hf, 0o755); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(12, 1))
	ids := func(n, vocab int) []int32 {
		x := make([]int32, n)
		for i := range x {
			x[i] = int32(rng.IntN(vocab))
		}
		return x
	}

	// small, trained on the device by learn sft.
	rows, err := episodetest.Household(nil, 4, 1, 1, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	demos := filepath.Join(t.TempDir(), "demos.parquet")
	if err := table.WriteFile(demos, rows, table.Meta{}); err != nil {
		t.Fatal(err)
	}
	cfg := rl.DefaultSFT()
	cfg.Epochs = 1
	ckpt := filepath.Join(hf, "small", "ckpt")
	if err := os.MkdirAll(filepath.Dir(ckpt), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := learn.RunSFT(context.Background(), learn.SFTOptions{Init: "small", Demos: []string{demos}, Output: ckpt,
		Seed: 1, Config: cfg, WeightDecay: 0.01, Device: devName()}, stage.Streams{}); err != nil {
		t.Fatal(err)
	}
	tok, err := tokenizer.ShippedWordLevel()
	if err != nil {
		t.Fatal(err)
	}
	export(t, ckpt, append(rows[0].Tokens[:min(48, len(rows[0].Tokens))], ids(8, tok.VocabSize())...), "small after learn sft --device cuda")

	// A Qwen2.5-0.5B shape with random weights, saved from the device.
	shape := qwen05()
	if dryRun() {
		shape.NumHiddenLayers = 2
	}
	m, err := model.New(shape, 3)
	if err != nil {
		t.Fatal(err)
	}
	attach(t, m)
	js, err := tok.JSON()
	if err != nil {
		t.Fatal(err)
	}
	ckpt = stageSave(t, m, filepath.Join(hf, "qwen2.5-0.5b", "ckpt"), js)
	export(t, ckpt, ids(24, qwen05().VocabSize), "Qwen2.5-0.5B shape, random weights")

	// A small Qwen3 shape (issue 60: head norms, head_dim 96 over hidden
	// size 256, untied) over Qwen's vocabulary, random weights and head
	// norms, saved from the device the same way; transformers loads it as
	// Qwen3ForCausalLM.
	m3, err := model.New(qwen3Small(151936), 5)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range m3.Params() {
		if len(p.Shape) == 1 {
			for i := range p.W {
				p.W[i] = 1 + float32(rng.NormFloat64()*0.1)
			}
		}
	}
	attach(t, m3)
	ckpt = stageSave(t, m3, filepath.Join(hf, "qwen3-small", "ckpt"), js)
	export(t, ckpt, ids(24, 151936), "small Qwen3 shape, random weights")
}

// stageSave writes m at ckpt through the staged save learn uses (the
// weights come back from the device) and returns ckpt.
func stageSave(t *testing.T, m *model.Model, ckpt string, tokJSON []byte) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(ckpt), 0o755); err != nil {
		t.Fatal(err)
	}
	var u output.Unit
	defer u.Abort()
	if err := m.StageSave(&u, ckpt, tokJSON, model.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := u.Commit(); err != nil {
		t.Fatal(err)
	}
	return ckpt
}

func devName() string {
	if dryRun() {
		return "cpu"
	}
	return "cuda"
}
