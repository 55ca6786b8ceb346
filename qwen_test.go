package pats

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pats-rl/pats/lib/model"
)

// qwenConfig is Qwen2.5-1.5B-Instruct's config.json as the hub ships it,
// every key kept, with small dimensions: hidden size 32, intermediate 64,
// 2 layers, 4 heads, 2 key/value heads (the vocabulary, positions, rope
// theta and tied embeddings are the real ones).
const qwenConfig = `{
  "architectures": [
    "Qwen2ForCausalLM"
  ],
  "attention_dropout": 0.0,
  "bos_token_id": 151643,
  "eos_token_id": 151645,
  "hidden_act": "silu",
  "hidden_size": 32,
  "initializer_range": 0.02,
  "intermediate_size": 64,
  "max_position_embeddings": 32768,
  "max_window_layers": 21,
  "model_type": "qwen2",
  "num_attention_heads": 4,
  "num_hidden_layers": 2,
  "num_key_value_heads": 2,
  "rms_norm_eps": 1e-06,
  "rope_theta": 1000000.0,
  "sliding_window": 32768,
  "tie_word_embeddings": true,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.43.1",
  "use_cache": true,
  "use_sliding_window": false,
  "vocab_size": 151936
}
`

// qwenGeneration is Qwen2.5-Instruct's generation_config.json.
const qwenGeneration = `{
  "bos_token_id": 151643,
  "pad_token_id": 151643,
  "do_sample": true,
  "eos_token_id": [
    151645,
    151643
  ],
  "repetition_penalty": 1.05,
  "temperature": 0.7,
  "top_p": 0.8,
  "top_k": 20,
  "transformers_version": "4.37.0"
}
`

// qwenCheckpoint writes, at dir, a folder as a user downloads a
// Qwen2.5-Instruct model, with random weights of small dimensions:
// config.json (qwenConfig), model.safetensors, the real Qwen tokenizer
// and chat template of lib/tokenizer's tests (tokenizer.json,
// tokenizer_config.json) and generation_config.json; no agent.json.
func qwenCheckpoint(t *testing.T, dir string) {
	t.Helper()
	cfg, err := model.ParseConfig([]byte(qwenConfig))
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.New(cfg, 7)
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join("lib", "tokenizer", "testdata", "qwen3")
	js, err := os.ReadFile(filepath.Join(src, "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Save(dir, js); err != nil {
		t.Fatal(err)
	}
	tc, err := os.ReadFile(filepath.Join(src, "tokenizer_config.json"))
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"config.json": []byte(qwenConfig), "generation_config.json": []byte(qwenGeneration),
		"tokenizer_config.json": tc} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A downloaded folder has no optimizer state.
	for _, name := range []string{model.OptimizerFile, model.OptimizerJSONFile} {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
}
