package command

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenDevice: cpu (and no value) opens; an unknown name and a cuda
// whose library is missing are usage errors (exit 2) of one line naming
// the flag and the problem.
func TestOpenDevice(t *testing.T) {
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
		d, err := OpenDevice(c.in)
		if c.want == "" {
			if err != nil || d.Name() != "cpu" {
				t.Errorf("OpenDevice(%q) = %v, %v", c.in, d, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("OpenDevice(%q) opened", c.in)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, c.want) || strings.Contains(msg, "\n") || Code(err) != ExitUsage {
			t.Errorf("OpenDevice(%q): %q (exit %d), want one line starting %q, exit 2", c.in, msg, Code(err), c.want)
		}
	}
}
