package model

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A config.json that does not describe its weights, or whose model would
// not fit in memory, is refused before the model is allocated.
func TestLoadChecksConfigFirst(t *testing.T) {
	m, err := New(Tiny(50), 1)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ from, to, want string }{
		{`"hidden_size": 128`, `"hidden_size": 1073741824`, "config.json wants [50 1073741824]"},
		{`"vocab_size": 50`, `"vocab_size": 4000000000`, "config.json wants [4000000000 128]"},
		{`"intermediate_size": 384`, `"intermediate_size": 4000000000`, "mlp.gate_proj.weight has shape [384 128], config.json wants [4000000000 128]"},
		{`"num_hidden_layers": 2`, `"num_hidden_layers": 3`, "config.json has 3 layers"},
		{`"max_position_embeddings": 4096`, `"max_position_embeddings": 4000000000000`, "GiB of memory"},
	}
	for _, c := range cases {
		dir := filepath.Join(t.TempDir(), "ck")
		if err := m.Save(dir, nil); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, ConfigFile)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), c.from) {
			t.Fatalf("config.json has no %s:\n%s", c.from, b)
		}
		os.WriteFile(p, []byte(strings.Replace(string(b), c.from, c.to, 1)), 0o644)
		if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error with %q", c.to, err, c.want)
		}
	}
}
