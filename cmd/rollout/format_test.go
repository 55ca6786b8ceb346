package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/command"
	_ "github.com/pats-rl/pats/lib/env/shipped" // registers the shipped environments
	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// smallBPE writes a byte-level BPE tokenizer.json with Qwen's pipeline,
// the 256 byte tokens and the given added tokens (no merges).
func smallBPE(t *testing.T, added ...string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "lib", "tokenizer", "testdata", "qwen3", "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		t.Fatal(err)
	}
	var qm struct {
		Vocab map[string]int32 `json:"vocab"`
	}
	if err := json.Unmarshal(top["model"], &qm); err != nil {
		t.Fatal(err)
	}
	vocab := map[string]int32{}
	for tok, id := range qm.Vocab {
		if id < 256 {
			vocab[tok] = id
		}
	}
	var at []map[string]any
	for i, a := range added {
		at = append(at, map[string]any{"id": 256 + i, "content": a, "single_word": false, "lstrip": false,
			"rstrip": false, "normalized": false, "special": true})
	}
	out, err := json.Marshal(map[string]any{
		"version": "1.0", "added_tokens": at, "normalizer": top["normalizer"], "pre_tokenizer": top["pre_tokenizer"],
		"post_processor": nil, "decoder": top["decoder"],
		"model": map[string]any{"type": "BPE", "vocab": vocab, "merges": []string{}, "unk_token": nil,
			"continuing_subword_prefix": "", "end_of_word_suffix": "", "fuse_unk": false, "byte_fallback": false, "ignore_merges": false},
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkpoint writes a one-layer checkpoint with tokenizer.json js and, when
// chat is set, a tokenizer_config.json with a ChatML template.
func checkpoint(t *testing.T, js []byte, vocab int, chat bool) string {
	t.Helper()
	cfg := model.Tiny(vocab)
	cfg.NumHiddenLayers, cfg.HiddenSize, cfg.IntermediateSize = 1, 32, 64
	m, err := model.New(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "ckpt")
	if err := m.Save(dir, js); err != nil {
		t.Fatal(err)
	}
	if chat {
		tc := `{"chat_template": "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}{% endfor %}"}`
		if err := os.WriteFile(filepath.Join(dir, "tokenizer_config.json"), []byte(tc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestPromptFormatBadInput: a format the checkpoint's tokenizer cannot
// write is one clear line and exit 2, with no output file.
func TestPromptFormatBadInput(t *testing.T) {
	wl, err := tokenizer.ShippedWordLevel()
	if err != nil {
		t.Fatal(err)
	}
	wlJSON, err := wl.JSON()
	if err != nil {
		t.Fatal(err)
	}
	word := checkpoint(t, wlJSON, wl.VocabSize(), false)
	noEnd := checkpoint(t, smallBPE(t, "<|im_start|>", "<|endoftext|>"), 300, true)
	chat := checkpoint(t, smallBPE(t, "<|im_start|>", "<|im_end|>"), 300, true)
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"chatml with a word-level checkpoint", []string{"--policy", word, "--prompt-format", "chatml"}, "word-level tokenizer"},
		{"chatml with the built-in tokenizer", []string{"--policy", "oracle", "--prompt-format", "chatml"}, "word-level tokenizer"},
		{"no end-of-turn token, chatml asked", []string{"--policy", noEnd, "--prompt-format", "chatml"}, "no end-of-turn token <|im_end|>"},
		{"no end-of-turn token, chatml from the template", []string{"--policy", noEnd}, "no end-of-turn token <|im_end|>"},
		{"builtin with a chat tokenizer", []string{"--policy", chat, "--prompt-format", "builtin"}, "builtin format needs"},
		{"unknown format", []string{"--policy", "oracle", "--prompt-format", "jinja"}, `"jinja"`},
		{"tool calls with the builtin format", []string{"--policy", "oracle", "--action-format", "tools"}, "--action-format tools needs the chatml prompt format"},
		{"unknown action format", []string{"--policy", "oracle", "--action-format", "json"}, `--action-format "json"`},
		{"tool calls without a chat template", []string{"--policy", "oracle", "--tokenizer", chat, "--prompt-format", "chatml", "--action-format", "tools"}, "chat template"},
		{"negative penalty", []string{"--policy", "oracle", "--invalid-penalty", "-1"}, "--invalid-penalty"},
		{"tokenizer with a checkpoint", []string{"--policy", chat, "--tokenizer", chat}, "--tokenizer is for the oracle and random"},
		{"missing tokenizer", []string{"--policy", "oracle", "--tokenizer", filepath.Join(t.TempDir(), "none")}, "--tokenizer"},
		{"oracle, no end-of-turn token", []string{"--policy", "oracle", "--tokenizer", noEnd}, "no end-of-turn token <|im_end|>"},
	}
	for _, c := range cases {
		out := filepath.Join(t.TempDir(), "out.parquet")
		code, stderr := run(t, append(c.args, "--tasks", "1", "-o", out)...)
		if code != command.ExitUsage {
			t.Errorf("%s: exit %d, want 2 (%q)", c.name, code, stderr)
		}
		if strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: stderr %q is not one line saying %q", c.name, stderr, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: output written", c.name)
		}
	}
	// The oracle writes with a chat checkpoint's tokenizer and format.
	out := filepath.Join(t.TempDir(), "out.parquet")
	if code, stderr := run(t, "--policy", "oracle", "--tokenizer", chat, "--tasks", "1", "-o", out); code != 0 {
		t.Errorf("oracle with a chat tokenizer: exit %d: %s", code, stderr)
	}
	// The chat checkpoint itself runs under its own format.
	out = filepath.Join(t.TempDir(), "out.parquet")
	if code, stderr := run(t, "--policy", chat, "--tasks", "1", "--max-action-tokens", "4", "--max-context", "300", "-o", out); code != 0 {
		t.Errorf("chat checkpoint: exit %d: %s", code, stderr)
	}
}
