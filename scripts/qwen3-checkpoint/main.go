// Command qwen3-checkpoint writes a Qwen3-shaped checkpoint folder with
// random weights, laid out as a user downloads a Qwen3 model from the hub,
// for tests and trials without the download:
//
//	config.json             Qwen3-8B's published keys, every one kept, with the
//	                        dimensions of the flags (head_dim is its own flag,
//	                        so the query width may differ from the hidden size)
//	model.safetensors       F32 weights: matrices from N(0, 0.02^2) (model.New),
//	                        norm weights, q_norm and k_norm included, 1 + N(0, 0.1^2)
//	tokenizer.json,         the real Qwen3 tokenizer and chat template (from
//	tokenizer_config.json   --tokenizer, lib/tokenizer's test copy by default)
//	generation_config.json  Qwen3's published sampling settings
//	agent.json              only with --no-thinking: {"enable_thinking": false}
//
// Usage, from the repository root:
//
//	go run ./scripts/qwen3-checkpoint -o models/qwen3-tiny [--hidden 32 --layers 2 --heads 4 --kv-heads 2 --head-dim 16 --intermediate 64 --tied=true --seed 7 --no-thinking]
//
// The same flags and seed write the same bytes. An existing -o, a missing
// tokenizer file or a shape the model refuses is one line on stderr, exit
// 2, and nothing written.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/pats-rl/pats/lib/model"
)

// generation is Qwen3's generation_config.json as the hub ships it.
const generation = `{
  "bos_token_id": 151643,
  "do_sample": true,
  "eos_token_id": [
    151645,
    151643
  ],
  "pad_token_id": 151643,
  "temperature": 0.6,
  "top_k": 20,
  "top_p": 0.95,
  "transformers_version": "4.51.0"
}
`

func main() {
	out := flag.String("o", "", "the checkpoint folder to write (must not exist)")
	hidden := flag.Int("hidden", 32, "hidden_size")
	layers := flag.Int("layers", 2, "num_hidden_layers")
	heads := flag.Int("heads", 4, "num_attention_heads")
	kvHeads := flag.Int("kv-heads", 2, "num_key_value_heads")
	headDim := flag.Int("head-dim", 16, "head_dim")
	inter := flag.Int("intermediate", 64, "intermediate_size")
	tied := flag.Bool("tied", true, "tie_word_embeddings")
	seed := flag.Uint64("seed", 7, "seed of the random weights")
	tokDir := flag.String("tokenizer", filepath.Join("lib", "tokenizer", "testdata", "qwen3"), "folder with the Qwen3 tokenizer.json and tokenizer_config.json")
	noThinking := flag.Bool("no-thinking", false, "write agent.json with enable_thinking false")
	flag.Parse()
	if err := run(*out, *tokDir, *seed, *tied, *noThinking, *hidden, *layers, *heads, *kvHeads, *headDim, *inter); err != nil {
		fmt.Fprintln(os.Stderr, "qwen3-checkpoint:", err)
		os.Exit(2)
	}
}

func run(out, tokDir string, seed uint64, tied, noThinking bool, hidden, layers, heads, kvHeads, headDim, inter int) error {
	if out == "" || flag.NArg() > 0 {
		return fmt.Errorf("usage: qwen3-checkpoint -o DIR [flags]")
	}
	if _, err := os.Stat(out); err == nil {
		return fmt.Errorf("%s exists; remove it first", out)
	}
	cfgJSON, err := hubConfig(hidden, layers, heads, kvHeads, headDim, inter, tied)
	if err != nil {
		return err
	}
	cfg, err := model.ParseConfig(cfgJSON)
	if err != nil {
		return fmt.Errorf("config.json: %v", err)
	}
	files := map[string][]byte{"generation_config.json": []byte(generation)}
	var tokJSON []byte
	for _, name := range []string{model.TokenizerFile, "tokenizer_config.json"} {
		b, err := os.ReadFile(filepath.Join(tokDir, name))
		if err != nil {
			return err
		}
		if name == model.TokenizerFile {
			tokJSON = b
		} else {
			files[name] = b
		}
	}
	if noThinking {
		files["agent.json"] = []byte("{\"enable_thinking\": false}\n")
	}
	m, err := model.New(cfg, seed)
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(seed, 0x9e3))
	for _, p := range m.Params() {
		if len(p.Shape) == 1 { // the norms (Qwen3 has no biases)
			for i := range p.W {
				p.W[i] = 1 + float32(rng.NormFloat64()*0.1)
			}
		}
	}
	// Written beside out, then renamed into place: a failure leaves nothing.
	tmp := filepath.Join(filepath.Dir(out), "."+filepath.Base(out)+".writing")
	os.RemoveAll(tmp)
	if err := m.SaveWith(tmp, tokJSON, model.SaveOptions{Files: files}); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, model.ConfigFile), cfgJSON, 0o644); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	if err := os.Rename(tmp, out); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	return nil
}

// hubConfig is Qwen3-8B's config.json, every published key, with the
// given dimensions (Qwen3's vocabulary of 151,936 ids and its positions,
// rope theta and norm epsilon kept).
func hubConfig(hidden, layers, heads, kvHeads, headDim, inter int, tied bool) ([]byte, error) {
	c := map[string]any{
		"architectures":           []string{"Qwen3ForCausalLM"},
		"attention_bias":          false,
		"attention_dropout":       0.0,
		"bos_token_id":            151643,
		"eos_token_id":            151645,
		"head_dim":                headDim,
		"hidden_act":              "silu",
		"hidden_size":             hidden,
		"initializer_range":       0.02,
		"intermediate_size":       inter,
		"max_position_embeddings": 40960,
		"max_window_layers":       layers,
		"model_type":              "qwen3",
		"num_attention_heads":     heads,
		"num_hidden_layers":       layers,
		"num_key_value_heads":     kvHeads,
		"rms_norm_eps":            1e-06,
		"rope_scaling":            nil,
		"rope_theta":              1000000,
		"sliding_window":          nil,
		"tie_word_embeddings":     tied,
		"torch_dtype":             "float32",
		"transformers_version":    "4.51.0",
		"use_cache":               true,
		"use_sliding_window":      false,
		"vocab_size":              151936,
	}
	b, err := json.MarshalIndent(c, "", "  ")
	return append(b, '\n'), err
}
