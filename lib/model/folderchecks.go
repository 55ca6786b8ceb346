package model

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pats-rl/pats/lib/model/safetensors"
)

// checkFolder is the one check of a checkpoint folder made before any of
// its weights is read, whoever reads them (Load, WeightsHash for a served
// policy, learn's --init): config.json (a regular file within its limit),
// the weight files' headers against their sizes (safetensors.ReadLayout:
// no FIFO, device or sparse tail, no shard outside the folder), every
// tensor config.json implies with the shape it implies (so that its
// vocab_size is never trusted over the embedding's rows), and the weight
// files together no larger than config.json's parameters need. It gives
// the config, the config.json bytes and the layout. Errors do not repeat
// dir.
func checkFolder(dir string) (Config, []byte, *safetensors.Layout, error) {
	path := filepath.Join(dir, ConfigFile)
	b, err := safetensors.ReadRegular(path)
	if err != nil {
		return Config{}, nil, nil, err
	}
	cfg, err := ParseConfig(b)
	if err != nil {
		return Config{}, nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	l, err := safetensors.ReadLayout(dir)
	if err != nil {
		return Config{}, nil, nil, err
	}
	if err := checkShapes(cfg, l.Tensors); err != nil {
		return Config{}, nil, nil, fmt.Errorf("%s: %w", dir, err)
	}
	if n, most := l.DataBytes(), maxWeightBytes(cfg); n > most {
		return Config{}, nil, nil, fmt.Errorf("%s: the weight files hold %d bytes, more than the %d that config.json's %d parameters take in float32 (with %d bytes for headers and buffers)",
			dir, n, most, cfg.NumParams(), weightSlack)
	}
	return cfg, b, l, nil
}

// weightSlack is what the weight files may hold beyond the parameters in
// float32: their headers and buffers a model does not load (rotary
// inv_freq tables): 64 MiB.
const weightSlack = 64 << 20

// maxWeightBytes bounds the weight files of a checkpoint of cfg.
func maxWeightBytes(cfg Config) int64 {
	return 4*int64(cfg.NumParams()) + weightSlack
}

// paramShapes lists every tensor a model of cfg loads, with its shape, in
// the order alloc makes them.
func paramShapes(cfg Config) []struct {
	Name  string
	Shape []int
} {
	h, q, kv, in, v := cfg.HiddenSize, cfg.QDim(), cfg.KVDim(), cfg.IntermediateSize, cfg.VocabSize
	var out []struct {
		Name  string
		Shape []int
	}
	add := func(name string, shape ...int) {
		out = append(out, struct {
			Name  string
			Shape []int
		}{name, shape})
	}
	add("model.embed_tokens.weight", v, h)
	for l := 0; l < cfg.NumHiddenLayers; l++ {
		p := fmt.Sprintf("model.layers.%d.", l)
		add(p+"input_layernorm.weight", h)
		add(p+"self_attn.q_proj.weight", q, h)
		if cfg.QKVBias() {
			add(p+"self_attn.q_proj.bias", q)
		}
		if cfg.QKNorm() { // Qwen3 (issue 60): per-head norms of queries and keys
			add(p+"self_attn.q_norm.weight", cfg.HeadDim())
		}
		add(p+"self_attn.k_proj.weight", kv, h)
		if cfg.QKVBias() {
			add(p+"self_attn.k_proj.bias", kv)
		}
		if cfg.QKNorm() {
			add(p+"self_attn.k_norm.weight", cfg.HeadDim())
		}
		add(p+"self_attn.v_proj.weight", kv, h)
		if cfg.QKVBias() {
			add(p+"self_attn.v_proj.bias", kv)
		}
		add(p+"self_attn.o_proj.weight", h, q)
		add(p+"post_attention_layernorm.weight", h)
		add(p+"mlp.gate_proj.weight", in, h)
		add(p+"mlp.up_proj.weight", in, h)
		add(p+"mlp.down_proj.weight", h, in)
	}
	add("model.norm.weight", h)
	if !cfg.TieWordEmbeddings {
		add("lm_head.weight", v, h)
	}
	return out
}

// checkShapes compares the shape config.json implies for every tensor a
// model loads with the stored one, so that a config.json that does not
// describe its weights is refused before anything is read or allocated.
func checkShapes(c Config, ts map[string]safetensors.Tensor) error {
	// the tensors every Qwen generation has first, then which generation
	// the weights are (their biases or head norms), then those
	generational := func(name string) bool {
		return strings.HasSuffix(name, "_norm.weight") && strings.Contains(name, ".self_attn.") || strings.HasSuffix(name, "_proj.bias")
	}
	var later []struct {
		Name  string
		Shape []int
	}
	for _, p := range paramShapes(c) {
		if generational(p.Name) {
			later = append(later, p)
			continue
		}
		if err := checkShape(c, ts, p.Name, p.Shape); err != nil {
			return err
		}
	}
	if err := checkQwenGeneration(c, ts); err != nil {
		return err
	}
	for _, p := range later {
		if err := checkShape(c, ts, p.Name, p.Shape); err != nil {
			return err
		}
	}
	return nil
}

// checkShape checks one tensor a model of c loads: present, of the shape
// config.json implies, of a known dtype.
func checkShape(c Config, ts map[string]safetensors.Tensor, name string, shape []int) error {
	t, ok := ts[name]
	if !ok {
		if strings.HasPrefix(name, "model.layers.") {
			return fmt.Errorf("config.json has %d layers, tensor %s missing", c.NumHiddenLayers, name)
		}
		return fmt.Errorf("tensor %s missing", name)
	}
	if !slices.Equal(t.Shape, shape) {
		return fmt.Errorf("tensor %s has shape %v, config.json wants %v", name, t.Shape, shape)
	}
	if t.DType.Size() == 0 {
		return fmt.Errorf("tensor %s: unsupported dtype %q", name, t.DType)
	}
	return nil
}
