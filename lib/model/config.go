package model

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/pats-rl/pats/lib/model/safetensors"
)

// Config is a Qwen2 or Qwen3 model configuration as stored in a Hugging
// Face config.json. Field names follow the JSON keys.
type Config struct {
	Architectures         []string `json:"architectures"`
	ModelType             string   `json:"model_type"`
	HiddenSize            int      `json:"hidden_size"`
	NumHiddenLayers       int      `json:"num_hidden_layers"`
	NumAttentionHeads     int      `json:"num_attention_heads"`
	NumKeyValueHeads      int      `json:"num_key_value_heads"`
	IntermediateSize      int      `json:"intermediate_size"`
	VocabSize             int      `json:"vocab_size"`
	MaxPositionEmbeddings int      `json:"max_position_embeddings"`
	RopeTheta             float64  `json:"rope_theta"`
	RMSNormEps            float64  `json:"rms_norm_eps"`
	TieWordEmbeddings     bool     `json:"tie_word_embeddings"`
	TorchDtype            string   `json:"torch_dtype"`
	HiddenAct             string   `json:"hidden_act"`
	InitializerRange      float64  `json:"initializer_range"`
	AttentionDropout      float64  `json:"attention_dropout"`
	UseSlidingWindow      bool     `json:"use_sliding_window"`
	UseCache              bool     `json:"use_cache"`
	// BOSTokenID and EOSTokenID are optional; the tokenizer is the
	// authority, these only mirror it for other tools.
	BOSTokenID *int `json:"bos_token_id,omitempty"`
	EOSTokenID *int `json:"eos_token_id,omitempty"`
	// RopeScaling must be absent or null: scaled RoPE variants are not
	// implemented.
	RopeScaling json.RawMessage `json:"rope_scaling,omitempty"`
	// HeadDimension is head_dim, the width of one attention head; 0
	// (absent) means hidden_size / num_attention_heads. Qwen3 configs
	// state it, and it may differ from that quotient (Qwen3-4B: hidden
	// 2560, 32 heads of 128).
	HeadDimension int `json:"head_dim,omitempty"`
	// AttentionBias is Qwen3's attention_bias. Qwen3 checkpoints have no
	// q/k/v/o biases and only false (or absent) is accepted for qwen3;
	// Qwen2 always has q/k/v biases and does not read it.
	AttentionBias *bool `json:"attention_bias,omitempty"`
}

// Model types (config.json's model_type) and their architectures.
const (
	Qwen2 = "qwen2" // Qwen2ForCausalLM: q/k/v biases
	Qwen3 = "qwen3" // Qwen3ForCausalLM: RMSNorm on each query and key head, no biases
)

// architecture is the architectures entry of a model type.
func architecture(modelType string) string {
	if modelType == Qwen3 {
		return "Qwen3ForCausalLM"
	}
	return "Qwen2ForCausalLM"
}

// QKNorm says whether the layers normalise each query and key head (RMSNorm
// with q_norm and k_norm weights of head_dim, before RoPE): Qwen3.
func (c Config) QKNorm() bool { return c.ModelType == Qwen3 }

// QKVBias says whether the q, k and v projections have biases: Qwen2.
func (c Config) QKVBias() bool { return c.ModelType != Qwen3 }

// base returns a Config with the Qwen2 constants and defaults filled in.
func base(vocab, hidden, layers, heads, kvHeads, inter int) Config {
	return Config{
		Architectures:         []string{"Qwen2ForCausalLM"},
		ModelType:             "qwen2",
		HiddenSize:            hidden,
		NumHiddenLayers:       layers,
		NumAttentionHeads:     heads,
		NumKeyValueHeads:      kvHeads,
		IntermediateSize:      inter,
		VocabSize:             vocab,
		MaxPositionEmbeddings: 4096,
		RopeTheta:             10000,
		RMSNormEps:            1e-6,
		TieWordEmbeddings:     true,
		TorchDtype:            "float32",
		HiddenAct:             "silu",
		InitializerRange:      0.02,
		UseCache:              true,
	}
}

// Tiny is the built-in ~1M-parameter configuration: hidden 128, 2 layers,
// 4 heads of 32, 2 key/value heads, intermediate 384, tied embeddings.
// With a vocabulary of 6000 it has 1,162,368 parameters.
func Tiny(vocab int) Config { return base(vocab, 128, 2, 4, 2, 384) }

// Small is the built-in ~5M-parameter configuration: hidden 256, 4 layers,
// 4 heads of 64, 2 key/value heads, intermediate 768, tied embeddings.
// With a vocabulary of 6000 it has 4,686,080 parameters.
func Small(vocab int) Config { return base(vocab, 256, 4, 4, 2, 768) }

// HeadDim is the width of one attention head: head_dim when the config
// gives it, else hidden_size / num_attention_heads.
func (c Config) HeadDim() int {
	if c.HeadDimension > 0 {
		return c.HeadDimension
	}
	return c.HiddenSize / c.NumAttentionHeads
}

// QDim is the width of the query projection (heads x head dim).
func (c Config) QDim() int { return c.NumAttentionHeads * c.HeadDim() }

// KVDim is the width of the key and value projections.
func (c Config) KVDim() int { return c.NumKeyValueHeads * c.HeadDim() }

// Validate checks the configuration describes a model this package runs.
func (c Config) Validate() error {
	switch {
	case c.ModelType != "" && c.ModelType != Qwen2 && c.ModelType != Qwen3:
		return fmt.Errorf("model_type %q is not qwen2 or qwen3", c.ModelType)
	case c.HiddenSize <= 0, c.NumHiddenLayers <= 0, c.NumAttentionHeads <= 0,
		c.NumKeyValueHeads <= 0, c.IntermediateSize <= 0, c.VocabSize <= 0:
		return fmt.Errorf("sizes must be positive (hidden %d, layers %d, heads %d, kv heads %d, intermediate %d, vocab %d)",
			c.HiddenSize, c.NumHiddenLayers, c.NumAttentionHeads, c.NumKeyValueHeads, c.IntermediateSize, c.VocabSize)
	case c.HeadDimension < 0:
		return fmt.Errorf("head_dim %d is negative", c.HeadDimension)
	case c.HeadDimension == 0 && c.HiddenSize%c.NumAttentionHeads != 0:
		return fmt.Errorf("hidden_size %d is not a multiple of num_attention_heads %d", c.HiddenSize, c.NumAttentionHeads)
	case c.NumAttentionHeads%c.NumKeyValueHeads != 0:
		return fmt.Errorf("num_attention_heads %d is not a multiple of num_key_value_heads %d", c.NumAttentionHeads, c.NumKeyValueHeads)
	case c.HeadDim()%2 != 0:
		return fmt.Errorf("head dimension %d is odd; rotary embedding needs it even", c.HeadDim())
	case c.MaxPositionEmbeddings <= 0:
		return fmt.Errorf("max_position_embeddings %d must be positive", c.MaxPositionEmbeddings)
	case c.RopeTheta <= 0:
		return fmt.Errorf("rope_theta %g must be positive", c.RopeTheta)
	case c.RMSNormEps <= 0:
		return fmt.Errorf("rms_norm_eps %g must be positive", c.RMSNormEps)
	case c.HiddenAct != "" && c.HiddenAct != "silu":
		return fmt.Errorf("hidden_act %q is not silu", c.HiddenAct)
	case c.UseSlidingWindow:
		return fmt.Errorf("use_sliding_window is not supported")
	case len(c.RopeScaling) > 0 && string(c.RopeScaling) != "null":
		return fmt.Errorf("rope_scaling %s is not supported", c.RopeScaling)
	case c.ModelType == Qwen3 && c.AttentionBias != nil && *c.AttentionBias:
		return fmt.Errorf("attention_bias true is not supported for qwen3 (Qwen3 checkpoints have no attention biases)")
	}
	return c.checkArchitectures()
}

// checkArchitectures refuses a config whose architectures name the causal
// LM of one Qwen generation while model_type names the other (a Qwen3
// config.json edited into a Qwen2 one, or the reverse).
func (c Config) checkArchitectures() error {
	mt := c.ModelType
	if mt == "" {
		mt = Qwen2
	}
	for _, a := range c.Architectures {
		for _, other := range []string{Qwen2, Qwen3} {
			if other != mt && a == architecture(other) {
				return fmt.Errorf("architectures names %s but model_type is %s", a, mt)
			}
		}
	}
	return nil
}

// NumParams is the number of parameters of a model with this
// configuration (the tied lm_head counted once).
func (c Config) NumParams() int { return int(c.numParams()) }

// numParams counts the parameters in float64, so that absurd sizes do not
// overflow: per layer two norms, the q, k, v and o projections, the
// q/k/v biases (Qwen2) or the q and k head norms (Qwen3), and the MLP.
func (c Config) numParams() float64 {
	h, in, v := float64(c.HiddenSize), float64(c.IntermediateSize), float64(c.VocabSize)
	q := float64(c.NumAttentionHeads) * float64(c.HeadDim())
	kv := float64(c.NumKeyValueHeads) * float64(c.HeadDim())
	layer := 2*h + q*h + 2*kv*h + h*q + 3*h*in
	if c.QKVBias() {
		layer += q + 2*kv
	}
	if c.QKNorm() {
		layer += 2 * float64(c.HeadDim())
	}
	n := v*h + float64(c.NumHiddenLayers)*layer + h
	if !c.TieWordEmbeddings {
		n += v * h
	}
	return n
}

// MemoryBytes is the memory the model's weights and rotary tables take in
// float32, computed in float64 so that absurd sizes do not overflow.
func (c Config) MemoryBytes() float64 {
	rope := float64(c.MaxPositionEmbeddings) * float64(c.HeadDim())
	return 4 * (c.numParams() + rope)
}

// checkMemory refuses a configuration whose weights would not fit in the
// machine's memory (MemTotal of /proc/meminfo; 1 TiB where that is not
// known), before anything is allocated.
func (c Config) checkMemory() error { return c.CheckMemory(1, "for its weights alone") }

// CheckMemory refuses a configuration when factor times its weights'
// memory (MemoryBytes) exceeds the machine's memory; what names the use
// in the message (training keeps gradients and two optimizer moments
// beside the weights: factor 4).
func (c Config) CheckMemory(factor float64, what string) error {
	need := factor * c.MemoryBytes()
	have := totalMemory()
	if need > have {
		return fmt.Errorf("the model would take %.3g GiB of memory %s, more than the machine's %.3g GiB (hidden_size %d, intermediate_size %d, vocab_size %d, layers %d, max_position_embeddings %d)",
			need/(1<<30), what, have/(1<<30), c.HiddenSize, c.IntermediateSize, c.VocabSize, c.NumHiddenLayers, c.MaxPositionEmbeddings)
	}
	return nil
}

func totalMemory() float64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
				if kb, err := strconv.ParseFloat(f[1], 64); err == nil && kb > 0 {
					return kb * 1024
				}
			}
		}
	}
	return 1 << 40
}

// ParseConfig decodes a config.json, fills the defaults of Hugging Face's
// configuration classes for absent keys (model_type qwen2,
// num_key_value_heads = num_attention_heads, rope_theta 10000,
// rms_norm_eps 1e-6, max_position_embeddings 32768; head_dim 128 for
// qwen3, as Qwen3Config has it) and validates it.
func ParseConfig(b []byte) (Config, error) {
	c := Config{RopeTheta: 10000, RMSNormEps: 1e-6, MaxPositionEmbeddings: 32768, HiddenAct: "silu", InitializerRange: 0.02}
	if err := json.Unmarshal(b, &c); err != nil {
		return Config{}, err
	}
	if c.NumKeyValueHeads == 0 {
		c.NumKeyValueHeads = c.NumAttentionHeads
	}
	if c.ModelType == "" {
		c.ModelType = Qwen2
	}
	if c.ModelType == Qwen3 && c.HeadDimension == 0 {
		c.HeadDimension = 128
	}
	if err := c.Validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}

// LoadConfig reads and validates a config.json file.
func LoadConfig(path string) (Config, error) {
	b, err := safetensors.ReadRegular(path)
	if err != nil {
		return Config{}, err
	}
	c, err := ParseConfig(b)
	if err != nil {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}
