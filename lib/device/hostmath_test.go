//go:build !cuda

package device_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostMath compiles cuda/hostmath_test.cc (the host-side sizing and
// index math of the CUDA library, cuda/hostmath.h, with a host reference
// of the column-major cuBLAS calls and attention's strided-batch plan)
// with the host's C++ compiler and runs it; then shows that it fails with
// a wrong gemm mapping and a wrong attention stride planted. g++ is on
// every machine of the project: its absence fails the test.
func TestHostMath(t *testing.T) {
	gxx, err := exec.LookPath("g++")
	if err != nil {
		t.Fatalf("g++ is needed to check cuda/hostmath.h: %v", err)
	}
	src := filepath.Join("..", "..", "cuda", "hostmath_test.cc")
	text, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	// Each section of checks ends with done("what"): as built, every one
	// says ok.
	sections := strings.Count(string(text), "done(\"")
	if sections == 0 {
		t.Fatalf("%s: no done(\"...\") sections", src)
	}
	inc := filepath.Join("..", "..", "cuda")
	cases := []struct {
		plant string
		fails string // "" when every group must pass
	}{
		{"", ""},
		{"-DPLANT_GEMM", "hostmath: FAIL: gemm.cu's row-major mapping"},
		{"-DPLANT_ATT", "hostmath: FAIL: attention's strided-batch plan"},
	}
	for _, c := range cases {
		name := strings.TrimPrefix(c.plant, "-D")
		if name == "" {
			name = "as-built"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			bin := filepath.Join(t.TempDir(), "hostmath")
			args := []string{"-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror", "-I", inc, "-o", bin, src}
			if c.plant != "" {
				args = append([]string{c.plant}, args...)
			}
			if b, err := exec.Command(gxx, args...).CombinedOutput(); err != nil {
				t.Fatalf("g++ %s: %v\n%s", strings.Join(args, " "), err, b)
			}
			b, err := exec.Command(bin).CombinedOutput()
			out := string(b)
			if c.fails == "" {
				if err != nil || strings.Count(out, "hostmath: ok: ") != sections {
					t.Fatalf("hostmath: %v\n%s", err, out)
				}
				t.Log(out)
				return
			}
			if err == nil || !strings.Contains(out, c.fails) {
				t.Errorf("with %s: %v, output:\n%s\nwant a failure %q", c.plant, err, out, c.fails)
			}
		})
	}
}
