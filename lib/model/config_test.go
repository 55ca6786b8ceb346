package model

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A Qwen2.5-0.5B-style config.json: absent keys take Qwen2 defaults and
// extra keys are ignored.
const hubConfig = `{
  "architectures": ["Qwen2ForCausalLM"],
  "attention_dropout": 0.0,
  "bos_token_id": 151643,
  "eos_token_id": 151643,
  "hidden_act": "silu",
  "hidden_size": 896,
  "initializer_range": 0.02,
  "intermediate_size": 4864,
  "max_position_embeddings": 32768,
  "max_window_layers": 24,
  "model_type": "qwen2",
  "num_attention_heads": 14,
  "num_hidden_layers": 24,
  "num_key_value_heads": 2,
  "rms_norm_eps": 1e-06,
  "rope_theta": 1000000.0,
  "sliding_window": 32768,
  "tie_word_embeddings": true,
  "torch_dtype": "bfloat16",
  "use_cache": true,
  "use_sliding_window": false,
  "vocab_size": 151936
}`

func TestParseConfig(t *testing.T) {
	c, err := ParseConfig([]byte(hubConfig))
	if err != nil {
		t.Fatal(err)
	}
	if c.HeadDim() != 64 || c.KVDim() != 128 || c.RopeTheta != 1e6 || !c.TieWordEmbeddings || *c.EOSTokenID != 151643 {
		t.Errorf("parsed %+v", c)
	}
	if n := c.NumParams(); n != 494032768 { // Qwen2.5-0.5B's published count
		t.Errorf("NumParams = %d", n)
	}
	d, err := ParseConfig([]byte(`{"hidden_size":8,"num_hidden_layers":1,"num_attention_heads":2,"intermediate_size":4,"vocab_size":5}`))
	if err != nil {
		t.Fatal(err)
	}
	if d.NumKeyValueHeads != 2 || d.RopeTheta != 10000 || d.RMSNormEps != 1e-6 || d.MaxPositionEmbeddings != 32768 {
		t.Errorf("defaults %+v", d)
	}
	bad := map[string]string{
		"model_type":        `{"model_type":"llama","hidden_size":8,"num_hidden_layers":1,"num_attention_heads":2,"intermediate_size":4,"vocab_size":5}`,
		"heads":             `{"hidden_size":9,"num_hidden_layers":1,"num_attention_heads":2,"intermediate_size":4,"vocab_size":5}`,
		"kv heads":          `{"hidden_size":12,"num_hidden_layers":1,"num_attention_heads":3,"num_key_value_heads":2,"intermediate_size":4,"vocab_size":5}`,
		"odd head":          `{"hidden_size":6,"num_hidden_layers":1,"num_attention_heads":2,"intermediate_size":4,"vocab_size":5}`,
		"rope_scaling":      `{"hidden_size":8,"num_hidden_layers":1,"num_attention_heads":2,"intermediate_size":4,"vocab_size":5,"rope_scaling":{"type":"yarn"}}`,
		"sliding":           `{"hidden_size":8,"num_hidden_layers":1,"num_attention_heads":2,"intermediate_size":4,"vocab_size":5,"use_sliding_window":true}`,
		"zero vocab":        `{"hidden_size":8,"num_hidden_layers":1,"num_attention_heads":2,"intermediate_size":4}`,
		"not json":          `{`,
		"activation gelu":   `{"hidden_size":8,"num_hidden_layers":1,"num_attention_heads":2,"intermediate_size":4,"vocab_size":5,"hidden_act":"gelu"}`,
		"negative rope":     `{"hidden_size":8,"num_hidden_layers":1,"num_attention_heads":2,"intermediate_size":4,"vocab_size":5,"rope_theta":-1}`,
		"zero max position": `{"hidden_size":8,"num_hidden_layers":1,"num_attention_heads":2,"intermediate_size":4,"vocab_size":5,"max_position_embeddings":0}`,
	}
	for name, js := range bad {
		if _, err := ParseConfig([]byte(js)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := ParseConfig([]byte(`{"hidden_size":8,"num_hidden_layers":1,"num_attention_heads":2,"intermediate_size":4,"vocab_size":5,"rope_scaling":null}`)); err != nil {
		t.Errorf("rope_scaling null: %v", err)
	}
	path := filepath.Join(t.TempDir(), "config.json")
	os.WriteFile(path, []byte(`{"hidden_size":9}`), 0o644)
	if _, err := LoadConfig(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("LoadConfig error %v does not name the file", err)
	}
}

// TestConfigRoundTrip: a saved config parses back to the same values.
func TestConfigRoundTrip(t *testing.T) {
	c := Small(6000)
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseConfig(b)
	if err != nil {
		t.Fatal(err)
	}
	g, _ := json.Marshal(got)
	if string(g) != string(b) {
		t.Errorf("round trip:\n%s\n%s", b, g)
	}
}
