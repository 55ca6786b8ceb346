package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pats-rl/pats/lib/model"
)

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestReadGenerationConfig(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	k := func(x int) *int { return &x }
	b := func(x bool) *bool { return &x }
	cases := []struct {
		name, text string
		want       GenerationConfig
		err        string
	}{
		{"qwen2.5 instruct", `{"bos_token_id": 151643, "pad_token_id": 151643, "do_sample": true, "eos_token_id": [151645, 151643],
			"repetition_penalty": 1.05, "temperature": 0.7, "top_p": 0.8, "top_k": 20, "transformers_version": "4.37.0"}`,
			GenerationConfig{EOS: []int32{151645, 151643}, Temperature: f(0.7), TopP: f(0.8), TopK: k(20), RepetitionPenalty: f(1.05), DoSample: b(true)}, ""},
		{"neutral unsupported keys", `{"min_p": null, "typical_p": 1.0, "num_beams": 1, "suppress_tokens": [], "no_repeat_ngram_size": 0}`, GenerationConfig{}, ""},
		{"min_p", `{"min_p": 0.05}`, GenerationConfig{}, "min_p 0.05 is not supported"},
		{"beams", `{"num_beams": 4}`, GenerationConfig{}, "num_beams 4 is not supported"},
		{"no repeat ngram", `{"no_repeat_ngram_size": 3}`, GenerationConfig{}, "no_repeat_ngram_size 3 is not supported"},
		{"suppressed tokens", `{"suppress_tokens": [1, 2]}`, GenerationConfig{}, "suppress_tokens [1,2] is not supported"},
		{"bad top_k", `{"top_k": -1}`, GenerationConfig{}, "top_k"},
		{"bad repetition_penalty", `{"repetition_penalty": 0}`, GenerationConfig{}, "repetition_penalty"},
		{"one eos id", `{"eos_token_id": 151643}`, GenerationConfig{EOS: []int32{151643}}, ""},
		{"no sampling keys", `{"bos_token_id": 1}`, GenerationConfig{}, ""},
		{"bad json", `{"eos_token_id": `, GenerationConfig{}, "generation_config.json"},
		{"bad eos", `{"eos_token_id": "x"}`, GenerationConfig{}, "eos_token_id"},
		{"bad top_p", `{"top_p": 1.5}`, GenerationConfig{}, "top_p"},
	}
	for _, c := range cases {
		dir := writeFiles(t, map[string]string{GenerationConfigFile: c.text})
		got, err := ReadGenerationConfig(dir)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want one naming %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
	got, err := ReadGenerationConfig(t.TempDir())
	if err != nil || got.EOS != nil || got.Temperature != nil {
		t.Errorf("no file: %+v, %v", got, err)
	}
}

func TestSamplingDefaults(t *testing.T) {
	t7, p8 := 0.7, 0.8
	for _, c := range []struct {
		tGiven, pGiven bool
		wantT, wantP   float32
	}{
		{false, false, 0.7, 0.8},
		{true, false, 1, 0.8},
		{false, true, 0.7, 1},
		{true, true, 1, 1},
	} {
		p := &Checkpoint{Opt: Options{Temperature: 1, TopP: 1}, Gen: GenerationConfig{Temperature: &t7, TopP: &p8}}
		p.SamplingDefaults(Given{Temperature: c.tGiven, TopP: c.pGiven})
		if p.Opt.Temperature != c.wantT || p.Opt.TopP != c.wantP {
			t.Errorf("given %v/%v: temperature %v top-p %v, want %v %v", c.tGiven, c.pGiven, p.Opt.Temperature, p.Opt.TopP, c.wantT, c.wantP)
		}
	}
}

func TestDefaultFormat(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"qwen template", map[string]string{TokenizerConfigFile: `{"chat_template": "{{'<|im_start|>' + m}}"}`}, "chatml"},
		{"named templates", map[string]string{TokenizerConfigFile: `{"chat_template": [{"name": "default", "template": "<|im_start|>"}]}`}, "chatml"},
		{"jinja file", map[string]string{TokenizerConfigFile: `{}`, ChatTemplateFile: "{{ '<|im_start|>' }}"}, "chatml"},
		{"other template", map[string]string{TokenizerConfigFile: `{"chat_template": "[INST]"}`}, "builtin"},
		{"no config", map[string]string{}, "builtin"},
	}
	for _, c := range cases {
		got, err := DefaultFormat(writeFiles(t, c.files))
		if err != nil || got != c.want {
			t.Errorf("%s: %q, %v; want %q", c.name, got, err, c.want)
		}
	}
	if _, err := DefaultFormat(writeFiles(t, map[string]string{TokenizerConfigFile: `{`})); err == nil || !strings.Contains(err.Error(), TokenizerConfigFile) {
		t.Errorf("bad tokenizer_config.json: %v", err)
	}
}

// TestSamplingDefaultsAll checks that every setting generation_config.json
// gives reaches the checkpoint's Rule unless a flag gave it, and that
// do_sample false is greedy unless a temperature was given.
func TestSamplingDefaultsAll(t *testing.T) {
	t7, p8, r105, k20, no := 0.7, 0.8, 1.05, 20, false
	gen := GenerationConfig{Temperature: &t7, TopP: &p8, TopK: &k20, RepetitionPenalty: &r105}
	cases := []struct {
		name  string
		gen   GenerationConfig
		given Given
		want  model.Rule
	}{
		{"qwen defaults", gen, Given{}, model.Rule{Temperature: 0.7, TopP: 0.8, TopK: 20, RepetitionPenalty: 1.05}},
		{"flags override", gen, Given{Temperature: true, TopP: true, TopK: true, RepetitionPenalty: true}, model.Rule{Temperature: 1, TopP: 1, RepetitionPenalty: 1}},
		{"no file", GenerationConfig{}, Given{}, model.Rule{Temperature: 1, TopP: 1, RepetitionPenalty: 1}},
		{"do_sample false", GenerationConfig{DoSample: &no}, Given{}, model.Rule{Temperature: 0, TopP: 1, RepetitionPenalty: 1}},
		{"do_sample false, temperature given", GenerationConfig{DoSample: &no}, Given{Temperature: true}, model.Rule{Temperature: 1, TopP: 1, RepetitionPenalty: 1}},
	}
	for _, c := range cases {
		p := &Checkpoint{Opt: Options{Temperature: 1, TopP: 1, RepetitionPenalty: 1}, Gen: c.gen}
		p.SamplingDefaults(c.given)
		if d := cmp.Diff(c.want, p.Rule()); d != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, d)
		}
	}
}
