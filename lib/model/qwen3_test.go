package model

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestQwen3Decoding: on a Qwen3 model (head_dim 6 over hidden 16, head
// norms, no biases) the KV-cache decoder fed in chunks and the batched
// decoder give the logits of a full forward, within 1e-5, and sampling
// from them is deterministic for a seed.
func TestQwen3Decoding(t *testing.T) {
	cfg := qwen3TestConfig(false)
	m := randomModel(t, cfg, 31)
	seqs := randomSeqs(6, cfg.VocabSize, 11, 7)
	V := cfg.VocabSize
	full := make([][]float32, len(seqs))
	for i, s := range seqs {
		var err error
		if full[i], err = m.Logits(s); err != nil {
			t.Fatal(err)
		}
	}
	d := m.NewDecoder()
	pos := 0
	for _, n := range []int{4, 1, 1, 5} {
		logits, err := d.Append(seqs[0][pos : pos+n])
		if err != nil {
			t.Fatal(err)
		}
		pos += n
		if diff := maxAbsDiff(logits, full[0][(pos-1)*V:pos*V]); diff > 1e-5 {
			t.Errorf("Append: position %d differs from the forward by %g", pos-1, diff)
		}
	}
	decs := []*Decoder{m.NewDecoder(), m.NewDecoder()}
	got, err := m.AppendBatch(decs, [][]int32{seqs[0][:6], seqs[1][:3]})
	if err != nil {
		t.Fatal(err)
	}
	for i, at := range []int{5, 2} {
		if diff := maxAbsDiff(got[i], full[i][at*V:(at+1)*V]); diff > 1e-5 {
			t.Errorf("AppendBatch: decoder %d differs from the forward by %g", i, diff)
		}
	}
	got, err = m.AppendBatch(decs, [][]int32{seqs[0][6:7], seqs[1][3:7]})
	if err != nil {
		t.Fatal(err)
	}
	for i, at := range []int{6, 6} {
		if diff := maxAbsDiff(got[i], full[i][at*V:(at+1)*V]); diff > 1e-5 {
			t.Errorf("AppendBatch, second step: decoder %d differs from the forward by %g", i, diff)
		}
	}
	sample := func() []int32 {
		rng := NewRand(4, 0)
		dec := m.NewDecoder()
		logits, err := dec.Append(seqs[0][:3])
		if err != nil {
			t.Fatal(err)
		}
		var out []int32
		for len(out) < 20 {
			tok, _ := Sample(logits, 1, 0.9, rng)
			out = append(out, tok)
			if logits, err = dec.Append([]int32{tok}); err != nil {
				t.Fatal(err)
			}
		}
		return out
	}
	a, b := sample(), sample()
	distinct := map[int32]bool{}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("sampling twice with one seed: %v and %v", a, b)
		}
		distinct[a[i]] = true
	}
	if len(distinct) < 3 {
		t.Errorf("20 tokens sampled at temperature 1 take %d values: %v", len(distinct), a)
	}
}

// TestQwen3SaveLoad: a Qwen3 checkpoint's config.json says qwen3 (its
// architecture, head_dim, attention_bias false), holds q_norm and k_norm
// and no biases, and loads back to the same logits.
func TestQwen3SaveLoad(t *testing.T) {
	for _, tied := range []bool{true, false} {
		m := randomModel(t, qwen3TestConfig(tied), 12)
		dir := filepath.Join(t.TempDir(), "ck")
		if err := m.Save(dir, nil); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, ConfigFile))
		if err != nil {
			t.Fatal(err)
		}
		var raw map[string]any
		if err := json.Unmarshal(b, &raw); err != nil {
			t.Fatal(err)
		}
		if raw["model_type"] != "qwen3" || raw["head_dim"] != 6.0 || raw["attention_bias"] != false ||
			raw["tie_word_embeddings"] != tied || len(raw["architectures"].([]any)) != 1 || raw["architectures"].([]any)[0] != "Qwen3ForCausalLM" {
			t.Errorf("tied=%v: config.json %s", tied, b)
		}
		l, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, p := range l.Params() {
			names = append(names, p.Name)
		}
		all := strings.Join(names, " ")
		if !strings.Contains(all, "layers.1.self_attn.q_norm.weight") || !strings.Contains(all, "layers.1.self_attn.k_norm.weight") ||
			strings.Contains(all, "bias") || strings.Contains(all, "lm_head") == tied {
			t.Errorf("tied=%v: loaded tensors %s", tied, all)
		}
		seq := randomSeqs(3, m.Cfg.VocabSize, 9)[0]
		want, _ := m.Logits(seq)
		got, err := l.Logits(seq)
		if err != nil {
			t.Fatal(err)
		}
		if d := maxAbsDiff(want, got); d != 0 {
			t.Errorf("tied=%v: loaded logits differ by %g", tied, d)
		}
	}
}

// Qwen3-8B's config.json as published, every key kept.
const qwen3Config = `{
  "architectures": ["Qwen3ForCausalLM"],
  "attention_bias": false,
  "attention_dropout": 0.0,
  "bos_token_id": 151643,
  "eos_token_id": 151645,
  "head_dim": 128,
  "hidden_act": "silu",
  "hidden_size": 4096,
  "initializer_range": 0.02,
  "intermediate_size": 12288,
  "max_position_embeddings": 40960,
  "max_window_layers": 36,
  "model_type": "qwen3",
  "num_attention_heads": 32,
  "num_hidden_layers": 36,
  "num_key_value_heads": 8,
  "rms_norm_eps": 1e-06,
  "rope_scaling": null,
  "rope_theta": 1000000,
  "sliding_window": null,
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.51.0",
  "use_cache": true,
  "use_sliding_window": false,
  "vocab_size": 151936
}`

// TestQwen3Config: the published Qwen3 configs parse (head_dim 128 where
// hidden/heads would give another width) and their parameter counts are
// the model cards' (0.6B: 0.44B without embeddings; 4B: 3.6B; 8B: 8.2B,
// 6.95B without embeddings); inconsistent ones are refused with one line
// naming the problem.
func TestQwen3Config(t *testing.T) {
	c, err := ParseConfig([]byte(qwen3Config))
	if err != nil {
		t.Fatal(err)
	}
	if c.HeadDim() != 128 || c.QDim() != 4096 || c.KVDim() != 1024 || !c.QKNorm() || c.QKVBias() {
		t.Errorf("parsed %+v", c)
	}
	emb := func(c Config) float64 {
		n := float64(c.VocabSize * c.HiddenSize)
		if !c.TieWordEmbeddings {
			n *= 2
		}
		return n
	}
	cards := []struct {
		name            string
		edit            map[string]any
		total, nonEmbed float64 // billions, as the cards round them
		places          int     // decimal places of nonEmbed
	}{
		{"Qwen3-0.6B", map[string]any{"hidden_size": 1024, "intermediate_size": 3072, "num_hidden_layers": 28, "num_attention_heads": 16, "tie_word_embeddings": true}, 0.6, 0.44, 2},
		{"Qwen3-4B", map[string]any{"hidden_size": 2560, "intermediate_size": 9728, "num_hidden_layers": 36, "tie_word_embeddings": true}, 4.0, 3.6, 1},
		{"Qwen3-8B", nil, 8.2, 6.95, 2},
	}
	round := func(x float64, places int) float64 {
		return math.Round(x/1e9*math.Pow(10, float64(places))) / math.Pow(10, float64(places))
	}
	for _, card := range cards {
		var raw map[string]any
		json.Unmarshal([]byte(qwen3Config), &raw)
		for k, v := range card.edit {
			raw[k] = v
		}
		b, _ := json.Marshal(raw)
		c, err := ParseConfig(b)
		if err != nil {
			t.Fatalf("%s: %v", card.name, err)
		}
		n := float64(c.NumParams())
		if round(n, 1) != card.total || round(n-emb(c), card.places) != card.nonEmbed {
			t.Errorf("%s: %d parameters (%.4g B, %.4g B without embeddings), the card says %g B and %g B", card.name, c.NumParams(), n/1e9, (n-emb(c))/1e9, card.total, card.nonEmbed)
		}
	}
	// absent head_dim: Qwen3Config's default, 128
	if c, err := ParseConfig([]byte(`{"model_type":"qwen3","hidden_size":64,"num_hidden_layers":1,"num_attention_heads":2,"intermediate_size":4,"vocab_size":5}`)); err != nil || c.HeadDim() != 128 {
		t.Errorf("qwen3 without head_dim: %v, head dim %d", err, c.HeadDim())
	}
	bad := map[string]struct{ edit, want string }{
		"attention bias":  {`"attention_bias": true`, "attention_bias true is not supported for qwen3"},
		"odd head_dim":    {`"head_dim": 127`, "head dimension 127 is odd"},
		"negative":        {`"head_dim": -128`, "head_dim -128 is negative"},
		"architecture":    {`"architectures": ["Qwen2ForCausalLM"]`, "architectures names Qwen2ForCausalLM but model_type is qwen3"},
		"kv heads":        {`"num_key_value_heads": 5`, "num_attention_heads 32 is not a multiple of num_key_value_heads 5"},
		"sliding windows": {`"use_sliding_window": true`, "use_sliding_window is not supported"},
		"other type":      {`"model_type": "qwen3_moe"`, `model_type "qwen3_moe" is not qwen2 or qwen3`},
	}
	for name, c := range bad {
		key := c.edit[:strings.Index(c.edit, ":")]
		var out []string
		for _, line := range strings.Split(qwen3Config, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), key) {
				line = "  " + c.edit + ","
			}
			out = append(out, line)
		}
		_, err := ParseConfig([]byte(strings.Join(out, "\n")))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: got %v, want one line with %q", name, err, c.want)
		}
	}
	if _, err := ParseConfig([]byte(`{"architectures":["Qwen3ForCausalLM"],"hidden_size":8,"num_hidden_layers":1,"num_attention_heads":2,"intermediate_size":4,"vocab_size":5}`)); err == nil ||
		err.Error() != "architectures names Qwen3ForCausalLM but model_type is qwen2" {
		t.Errorf("a Qwen3 architecture without model_type: %v", err)
	}
}

// TestQwen3LoadChecks: weights of the other generation than config.json
// says, or head norms of another width than head_dim, are refused before
// the model is allocated, with one line naming the tensor.
func TestQwen3LoadChecks(t *testing.T) {
	q2, err := New(testConfig(true), 1)
	if err != nil {
		t.Fatal(err)
	}
	q3, err := New(qwen3TestConfig(true), 1)
	if err != nil {
		t.Fatal(err)
	}
	save := func(m *Model, edit func(map[string]any)) string {
		dir := filepath.Join(t.TempDir(), "ck")
		if err := m.Save(dir, nil); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, ConfigFile)
		b, _ := os.ReadFile(p)
		var raw map[string]any
		json.Unmarshal(b, &raw)
		edit(raw)
		b, _ = json.Marshal(raw)
		os.WriteFile(p, b, 0o644)
		return dir
	}
	cases := []struct {
		name string
		dir  string
		want string
	}{
		{"qwen2 weights, qwen3 config", save(q2, func(r map[string]any) {
			r["model_type"], r["architectures"], r["head_dim"] = "qwen3", []string{"Qwen3ForCausalLM"}, 4
		}), "tensor model.layers.0.self_attn.q_proj.bias is present but model_type qwen3 has no attention biases"},
		{"qwen3 weights, qwen2 config", save(q3, func(r map[string]any) {
			r["model_type"], r["architectures"] = "qwen2", []string{"Qwen2ForCausalLM"}
			delete(r, "head_dim")
		}), "config.json wants [16 16]"}, // hidden/heads 4: q_proj is 24 wide
		{"qwen3 weights, qwen2 config with head_dim", save(q3, func(r map[string]any) {
			r["model_type"], r["architectures"] = "qwen2", []string{"Qwen2ForCausalLM"}
		}), "tensor model.layers.0.self_attn.q_norm.weight is present but model_type is qwen2"},
		{"head_dim edited", save(q3, func(r map[string]any) { r["head_dim"], r["num_attention_heads"], r["num_key_value_heads"] = 12, 2, 1 }),
			""}, // q_proj keeps its shape (2 x 12 = 4 x 6): the norms' width tells
	}
	cases[3].want = "tensor model.layers.0.self_attn.q_norm.weight has shape [6], config.json wants [12] (head_dim)"
	for _, c := range cases {
		_, err := Load(c.dir)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: got %v, want one line with %q", c.name, err, c.want)
		}
	}
}

// TestQwen3ScriptCheckpoint: the checkpoint scripts/qwen3-checkpoint
// writes (Qwen3's published config keys, head_dim 16 over hidden 32, the
// real vocabulary of 151,936 ids, random weights with random head norms)
// loads as Qwen3, and its logits match the float64 reference within 1e-4.
func TestQwen3ScriptCheckpoint(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "qwen3")
	cmd := exec.Command("go", "run", "./scripts/qwen3-checkpoint", "-o", dir, "--tied=false")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("scripts/qwen3-checkpoint: %v\n%s", err, out)
	}
	m, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	c := m.Cfg
	if !c.QKNorm() || c.HeadDim() != 16 || c.QDim() != 64 || c.HiddenSize != 32 || c.VocabSize != 151936 || c.TieWordEmbeddings {
		t.Fatalf("loaded config %+v", c)
	}
	for _, w := range []*Tensor{m.Layers[1].QNorm, m.Layers[1].KNorm} {
		ones := 0
		for _, v := range w.W {
			if v == 1 {
				ones++
			}
		}
		if len(w.W) != 16 || ones > 0 {
			t.Errorf("%s: %d values, %d of them 1", w.Name, len(w.W), ones)
		}
	}
	seq := []int32{151644, 872, 198, 9707, 11, 1879, 0, 151645, 198, 151644, 77091, 198}
	if worst := refDistance(t, m, seq); worst > 1e-4 {
		t.Errorf("logits differ from the float64 reference by %g", worst)
	}
}
