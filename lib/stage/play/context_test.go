package play

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestWithContext checks that a checkpoint's agent.json fills in the
// context flags the user did not give, that a flag overrides it and the
// override is recorded, and that a bad file is one usage error naming it.
func TestWithContext(t *testing.T) {
	ckpt := func(agent string) string {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
		if agent != "" {
			if err := os.WriteFile(filepath.Join(dir, "agent.json"), []byte(agent), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	reading := ckpt(`{"prompt_format": "builtin", "history": 2, "admissible": "here", "max_action_tokens": 32}`)
	type got struct {
		Format     string
		History    int
		Admissible string
		MaxTokens  int
		Meta       map[string]string
	}
	cases := []struct {
		name string
		f    Options
		want got
		err  string
	}{
		{"no flags", Options{Policy: reading},
			got{"builtin", 2, "here", 32, map[string]string{"agent_context": "prompt_format=builtin history=2 admissible=here max_action_tokens=32"}}, ""},
		{"same flags", Options{Policy: reading, PolicyOptions: PolicyOptions{History: 2, HistorySet: true, Admissible: "here", AdmissibleSet: true, PromptFormat: "builtin", MaxActionTokens: 32, MaxActionTokensSet: true}},
			got{"builtin", 2, "here", 32, nil}, ""},
		{"overrides", Options{Policy: reading, PolicyOptions: PolicyOptions{History: 0, HistorySet: true, Admissible: "none", AdmissibleSet: true}},
			got{"builtin", 0, "none", 32, map[string]string{"agent_context": "prompt_format=builtin max_action_tokens=32",
				"agent_context_overrides": "--history 0 (agent.json: 2); --admissible none (agent.json: here)"}}, ""},
		{"no file", Options{Policy: ckpt(""), PolicyOptions: PolicyOptions{History: 1}}, got{"", 1, "", 0, nil}, ""},
		{"text policy", Options{Policy: "oracle"}, got{}, ""},
		{"unknown key", Options{Policy: ckpt(`{"histroy": 2}`)}, got{}, "agent.json: json: unknown field \"histroy\""},
		{"bad value", Options{Policy: ckpt(`{"admissible": "some"}`)}, got{}, "admissible \"some\""},
	}
	for _, c := range cases {
		f, meta, err := c.f.WithContext()
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%s: error %v, want one line with %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		g := got{f.PromptFormat, f.History, f.Admissible, f.MaxActionTokens, meta}
		if d := cmp.Diff(c.want, g); d != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, d)
		}
	}
}

// TestWithContextThinking: agent.json's enable_thinking (Qwen3's chat
// template switch) reaches the options and the metadata; under the
// builtin format it is refused with one line naming the file.
func TestWithContextThinking(t *testing.T) {
	ckpt := func(agent string) string {
		dir := t.TempDir()
		for name, b := range map[string]string{"config.json": "{}", "agent.json": agent} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(b), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	for _, on := range []bool{false, true} {
		f, meta, err := Options{Policy: ckpt(`{"prompt_format": "chatml", "enable_thinking": ` + map[bool]string{false: "false", true: "true"}[on] + `}`)}.WithContext()
		if err != nil {
			t.Fatal(err)
		}
		want := "prompt_format=chatml enable_thinking=" + map[bool]string{false: "false", true: "true"}[on]
		if f.EnableThinking == nil || *f.EnableThinking != on || meta["agent_context"] != want {
			t.Errorf("enable_thinking %v: options %v, metadata %v", on, f.EnableThinking, meta)
		}
	}
	f, _, err := Options{Policy: ckpt(`{"history": 1}`)}.WithContext()
	if err != nil || f.EnableThinking != nil {
		t.Errorf("no enable_thinking: %v, %v", f.EnableThinking, err)
	}
	_, _, err = Options{Policy: ckpt(`{"prompt_format": "builtin", "enable_thinking": false}`)}.WithContext()
	if err == nil || !strings.Contains(err.Error(), "agent.json: enable_thinking applies to the chatml format") || strings.Contains(err.Error(), "\n") {
		t.Errorf("builtin with enable_thinking: %v", err)
	}
}
