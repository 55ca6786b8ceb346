//go:build cgo && !cuda

package device

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pats-rl/pats/lib/model"
)

// fake builds testdata/fakelib.c with gcc and the given -D flags into a
// shared library and returns its path. gcc is on every machine of the
// project; its absence fails the test.
func fake(t *testing.T, defs ...string) string {
	t.Helper()
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Fatalf("gcc is needed to build the fake CUDA library: %v", err)
	}
	out := filepath.Join(t.TempDir(), "libfake.so")
	args := append([]string{"-shared", "-fPIC", "-o", out, "-I", filepath.Join("..", "..", "cuda")}, defs...)
	args = append(args, filepath.Join("testdata", "fakelib.c"))
	if b, err := exec.Command(gcc, args...).CombinedOutput(); err != nil {
		t.Fatalf("gcc %v: %v\n%s", args, err, b)
	}
	return out
}

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in, want, err string
	}{
		{"cpu", "cpu", ""},
		{"cuda", "cuda", ""},
		{"", "", `unknown device "": want cpu or cuda`},
		{"CUDA", "", `unknown device "CUDA": want cpu or cuda`},
		{"gpu", "", `unknown device "gpu": want cpu or cuda`},
	} {
		got, err := Parse(c.in)
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if got != c.want || msg != c.err {
			t.Errorf("Parse(%q) = %q, %q; want %q, %q", c.in, got, msg, c.want, c.err)
		}
	}
}

// TestLoadRefuses: each way a library can be wrong gives one line naming
// the library and the problem.
func TestLoadRefuses(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none", LibName)
	cases := []struct {
		name string
		path string
		want string // the whole message, with PATH for the library's path
	}{
		{"missing", missing, "cannot load PATH: PATH: cannot open shared object file: No such file or directory"},
		{"wrong interface version", fake(t, "-DONLY_ABI", "-DFAKE_ABI=7"), "PATH has interface version 7, this binary wants 4: rebuild it with make cuda"},
		{"right version, no functions", fake(t, "-DONLY_ABI"), "PATH is not the pats CUDA library: it has no pc_device_count"},
		{"no device", fake(t, "-DFAKE_DEVICES=0"), "no CUDA device found (PATH loaded, the driver sees none)"},
		{"driver fails", fake(t, "-DCOUNT_FAILS"), "cuda: pc_device_count: no driver: fake failure"},
	}
	for _, c := range cases {
		_, err := openPath(c.path)
		if err == nil {
			t.Errorf("%s: opened", c.name)
			continue
		}
		want := strings.ReplaceAll(c.want, "PATH", c.path)
		if err.Error() != want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, err, want)
		}
	}
	if ABI != 4 {
		t.Errorf("ABI = %d; the messages above assume 4", ABI)
	}
}

// TestLibPath: $PATS_CUDA_LIB first, else beside the executable (not
// there for a test binary), else the bare name for the loader.
func TestLibPath(t *testing.T) {
	t.Setenv(EnvLib, "/x/y/lib.so")
	if got := libPath(); got != "/x/y/lib.so" {
		t.Errorf("with %s set: %q", EnvLib, got)
	}
	t.Setenv(EnvLib, "")
	if got := libPath(); got != LibName {
		t.Errorf("unset: %q, want %q", got, LibName)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	beside := filepath.Join(filepath.Dir(exe), LibName)
	if err := os.WriteFile(beside, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(beside)
	if got := libPath(); got != beside {
		t.Errorf("beside the executable: %q, want %q", got, beside)
	}
}

// TestAttachThroughFake: over the fake library (parameters kept in host
// memory, a forward that writes its row numbers) the model uploads every
// parameter in Params order and reads them back with Sync, scatters the
// scored rows of LogProbs to the tokens they predict, and reports a failing
// call with its name and the library's message.
func TestAttachThroughFake(t *testing.T) {
	d, err := openPath(fake(t))
	if err != nil {
		t.Fatal(err)
	}
	if got := d.String(); got != "cuda: Fake GPU 0" {
		t.Errorf("String = %q", got)
	}
	m, err := model.New(model.Tiny(300), 5)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]float32{}
	for _, p := range m.Params() {
		want[p.Name] = append([]float32(nil), p.W...)
	}
	if err := d.Attach(m); err != nil {
		t.Fatal(err)
	}
	if !m.OnDevice() {
		t.Fatal("not on the device after Attach")
	}
	for _, p := range m.Params() {
		clear(p.W)
	}
	if err := m.Sync(); err != nil {
		t.Fatal(err)
	}
	got := map[string][]float32{}
	for _, p := range m.Params() {
		got[p.Name] = p.W
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("parameters after upload and Sync (-want +got):\n%s", diff)
	}
	seq := []int32{3, 9, 4, 7, 2}
	lp, ent, err := m.LogProbs([][]int32{seq}, [][]bool{{false, true, false, true, true}})
	if err != nil {
		t.Fatal(err)
	}
	// Rows 0, 2, 3 predict tokens 1, 3, 4: lp = -(row+1), ent = target.
	if diff := cmp.Diff([][]float32{{0, -1, 0, -3, -4}}, lp); diff != "" {
		t.Errorf("lp (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([][]float32{{0, 9, 0, 7, 2}}, ent); diff != "" {
		t.Errorf("ent (-want +got):\n%s", diff)
	}
	opt := model.NewAdamW(m, model.DefaultAdamW())
	for i := range opt.M {
		for j := range opt.M[i] {
			opt.M[i][j], opt.V[i][j] = float32(i), float32(j%7)
		}
	}
	var wantM [2][][]float32
	for i := range opt.M {
		wantM[0] = append(wantM[0], append([]float32(nil), opt.M[i]...))
		wantM[1] = append(wantM[1], append([]float32(nil), opt.V[i]...))
	}
	err = opt.Step(1e-3)
	if err == nil || err.Error() != "cuda: pc_adamw_step: not implemented by the fake" {
		t.Errorf("AdamW step on the fake: %v", err)
	}
	for i := range opt.M {
		opt.M[i], opt.V[i] = make([]float32, len(opt.M[i])), make([]float32, len(opt.V[i]))
	}
	if err := opt.Sync(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantM, [2][][]float32{opt.M, opt.V}); diff != "" {
		t.Errorf("moments after upload and Sync (-want +got):\n%s", diff)
	}
	if _, err := m.Logits(seq); err == nil || !strings.Contains(err.Error(), "pc_logits: not implemented by the fake") {
		t.Errorf("Logits on the fake: %v", err)
	}
	if mem, err := m.Accelerator().Memory(); err != nil || mem <= 0 {
		t.Errorf("Memory = %d, %v", mem, err)
	}
}
