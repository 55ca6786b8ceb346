package model

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The memory table of docs/real-models.md, recomputed from each
// Qwen2.5-Instruct size's config.json (the published shapes) with the
// counts the code uses:
//   - parameters: Config.NumParams (the tied lm_head once); weights in
//     F32 with the rotary tables: Config.MemoryBytes;
//   - rollout on the CPU: the weights;
//   - learn on the CPU: weights, gradients and the two AdamW moments, 4
//     times the weights (the reference of the KL term, 1 more, is scored
//     before the policy's gradients exist and its optimizer state is not
//     read, so the peak stays 4);
//   - on the GPU (cuda/model.cu, pc_model_new): every model placed there,
//     for rollout as for learn, holds weights, gradients and both moments
//     in F32 and a BF16 copy of every linear weight (the vocabulary
//     projection included), and the rotary tables; learn places the
//     reference there, scores, and frees it before the policy goes there,
//     so its peak is one model; the host keeps what the CPU columns say;
//   - KV cache: keys and values, layers x kv heads x head size floats
//     each, per token of every episode decoding together;
//   - activations a learn step keeps on the GPU per token of its longest
//     sequence: (4 hidden + 2 q + 2 kv + heads + 3 intermediate + 2)
//     floats a layer (docs/cuda.md);
//   - a checkpoint on disk: F32 weights and the two moments.

// qwenSizes are the published Qwen2.5-Instruct shapes.
var qwenSizes = []struct {
	name string
	cfg  Config
}{
	{"Qwen2.5-0.5B-Instruct", qwenShape(151936, 896, 4864, 24, 14, 2, true)},
	{"Qwen2.5-1.5B-Instruct", qwenShape(151936, 1536, 8960, 28, 12, 2, true)},
	{"Qwen2.5-3B-Instruct", qwenShape(151936, 2048, 11008, 36, 16, 2, true)},
	{"Qwen2.5-7B-Instruct", qwenShape(152064, 3584, 18944, 28, 28, 4, false)},
}

func qwenShape(vocab, hidden, inter, layers, heads, kv int, tied bool) Config {
	c := base(vocab, hidden, layers, heads, kv, inter)
	c.MaxPositionEmbeddings, c.RopeTheta, c.TieWordEmbeddings = 32768, 1e6, tied
	return c
}

// memoryRow is the table's row for one size.
func memoryRow(name string, c Config) string {
	p := float64(c.NumParams())
	h, in, q, kv := float64(c.HiddenSize), float64(c.IntermediateSize), float64(c.QDim()), float64(c.KVDim())
	layers := float64(c.NumHiddenLayers)
	weights := c.MemoryBytes()
	rope := weights - 4*p
	linear := layers*(q*h+2*kv*h+h*q+3*h*in) + float64(c.VocabSize)*h
	gpu := 16*p + 2*linear + rope
	kvTok := 2 * layers * kv * 4
	act := (4*h + 2*q + 2*kv + float64(c.NumAttentionHeads) + 3*in + 2) * layers * 4
	gb := func(b float64) string { return fmt.Sprintf("%.1f GB", b/1e9) }
	return fmt.Sprintf("| %s | %.2f B | %s | %s | %s | %s | %.0f KB | %.1f MB | %s |", name, p/1e9,
		gb(weights), gb(gpu), gb(4*weights), gb(gpu), kvTok/1e3, act/1e6, gb(12*p))
}

func TestMemoryTable(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "real-models.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, s := range qwenSizes {
		want := memoryRow(s.name, s.cfg)
		var got string
		for _, l := range strings.Split(doc, "\n") {
			if strings.HasPrefix(l, "| "+s.name+" |") && got == "" { // the first table; the update table follows
				got = l
			}
		}
		if got != want {
			t.Errorf("docs/real-models.md's row of %s:\n got  %s\n want %s", s.name, got, want)
		}
	}
	if n := qwenSizes[0].cfg.NumParams(); n != 494032768 {
		t.Errorf("Qwen2.5-0.5B: %d parameters, want the published 494,032,768", n)
	}
}
