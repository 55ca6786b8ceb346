//go:build cgo && !cuda

package device_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/rl"
	"github.com/pats-rl/pats/lib/rollout/episodetest"
	"github.com/pats-rl/pats/lib/stage"
	"github.com/pats-rl/pats/lib/stage/learn"
	"github.com/pats-rl/pats/lib/table"
)

// TestDeviceFailsMidRun: learn sft --device cuda over the fake library
// (testdata/fakelib.c: a device is found and the model uploaded, but the
// backward is not implemented) fails with the library's message and the
// call's name, as a run failure (exit 1), and writes nothing; with
// --recompute, and a LoRA adapter on a saved checkpoint, too (issue 60:
// no longer refused on cuda; the fake checks every upload's element
// count, the adapter's at its indices after the base's).
func TestDeviceFailsMidRun(t *testing.T) {
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Fatalf("gcc is needed to build the fake CUDA library: %v", err)
	}
	dir := t.TempDir()
	lib := filepath.Join(dir, "libfake.so")
	if b, err := exec.Command(gcc, "-shared", "-fPIC", "-o", lib, "-I", filepath.Join("..", "..", "cuda"),
		filepath.Join("testdata", "fakelib.c")).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, b)
	}
	t.Setenv("PATS_CUDA_LIB", lib)
	rows, err := episodetest.Household(nil, 2, 1, 1, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	demos := filepath.Join(dir, "demos.parquet")
	if err := table.WriteFile(demos, rows, table.Meta{}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "ckpt")
	cfg := rl.DefaultSFT()
	cfg.Epochs = 1
	base := filepath.Join(t.TempDir(), "base")
	if err := learn.RunSFT(context.Background(), learn.SFTOptions{Init: "tiny", Demos: []string{demos}, Output: base,
		Seed: 1, Config: cfg}, stage.Streams{}); err != nil {
		t.Fatal(err)
	}
	for _, run := range []struct {
		init string
		lora learn.LoRAOptions
	}{{"tiny", learn.LoRAOptions{}}, {"tiny", learn.LoRAOptions{Recompute: true}}, {base, learn.LoRAOptions{Rank: 4, Targets: []string{"q_proj", "v_proj", "down_proj"}, Recompute: true}}} {
		err = learn.RunSFT(context.Background(), learn.SFTOptions{Init: run.init, Demos: []string{demos}, Output: out,
			Seed: 1, Config: cfg, Device: "cuda", LoRA: run.lora}, stage.Streams{})
		if err == nil || !strings.Contains(err.Error(), "cuda: pc_backward: not implemented by the fake") || command.Code(err) != command.ExitFailure {
			t.Fatalf("%+v: got %v (exit %d), want the fake's pc_backward failure, exit 1", run.lora, err, command.Code(err))
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "demos.parquet libfake.so" {
		t.Errorf("left in the folder: %v", names)
	}
}
