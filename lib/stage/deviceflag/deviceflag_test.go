package deviceflag

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/command"
)

// TestOpenDevice: cpu (and no value) opens; an unknown name and a cuda
// whose library is missing are usage errors (exit 2) of one line naming
// the flag and the problem.
func TestOpen(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "libpatscuda.so")
	t.Setenv("PATS_CUDA_LIB", missing)
	cases := []struct {
		in   string
		want string // "" when it opens; else the start of the message
	}{
		{"", ""},
		{"cpu", ""},
		{"tpu", `--device: unknown device "tpu": want cpu or cuda`},
		{"cuda", "--device cuda: "},
	}
	for _, c := range cases {
		d, err := Open(c.in)
		if c.want == "" {
			if err != nil || d.Name() != "cpu" {
				t.Errorf("Open(%q) = %v, %v", c.in, d, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("Open(%q) opened", c.in)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, c.want) || strings.Contains(msg, "\n") || command.Code(err) != command.ExitUsage {
			t.Errorf("Open(%q): %q (exit %d), want one line starting %q, exit 2", c.in, msg, command.Code(err), c.want)
		}
	}
}
