package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadChatTemplate: chat_template.jinja comes first, then
// tokenizer_config.json's template (of a list, tool_use, else default,
// else the first); a folder without one is an error naming it.
func TestReadChatTemplate(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"jinja file", map[string]string{ChatTemplateFile: "J", TokenizerConfigFile: `{"chat_template": "C"}`}, "J"},
		{"string", map[string]string{TokenizerConfigFile: `{"chat_template": "C"}`}, "C"},
		{"tool_use", map[string]string{TokenizerConfigFile: `{"chat_template": [{"name": "default", "template": "D"}, {"name": "tool_use", "template": "T"}]}`}, "T"},
		{"default", map[string]string{TokenizerConfigFile: `{"chat_template": [{"name": "rag", "template": "R"}, {"name": "default", "template": "D"}]}`}, "D"},
		{"first", map[string]string{TokenizerConfigFile: `{"chat_template": [{"name": "rag", "template": "R"}]}`}, "R"},
		{"none", map[string]string{TokenizerConfigFile: `{}`}, "no chat_template"},
		{"no files", nil, "no chat template ("},
	}
	for _, c := range cases {
		dir := t.TempDir()
		for name, body := range c.files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := ReadChatTemplate(dir)
		if err != nil {
			got = "error: " + err.Error()
			if !strings.Contains(got, dir) {
				t.Errorf("%s: error %q does not name the folder", c.name, got)
			}
		}
		if strings.HasPrefix(got, "error: ") != strings.HasPrefix(c.want, "no ") || !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
