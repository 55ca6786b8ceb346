package play

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/rollout"
	"github.com/pats-rl/pats/lib/stage/deviceflag"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// TestDeviceWhereModelRuns: with no CUDA library to load, --device cuda
// is no obstacle to the oracle and random policies (no model runs, the
// device is never opened) while a checkpoint policy, which would run on
// it, is refused with the device's line.
func TestDeviceWhereModelRuns(t *testing.T) {
	t.Setenv("PATS_CUDA_LIB", filepath.Join(t.TempDir(), "libpatscuda.so"))
	if _, err := deviceflag.Open("cuda"); err == nil {
		t.Fatal("the cuda device opened without its library: the test shows nothing")
	}
	for _, name := range []string{"oracle", "random"} {
		f := base()
		f.Policy, f.Device = name, "cuda"
		ep, err := f.Resolve(context.Background())
		if err != nil {
			t.Errorf("--policy %s --device cuda: %v", name, err)
			continue
		}
		rows, err := rollout.Run(context.Background(), ep.Options)
		if err != nil || len(rows) != 2 {
			t.Errorf("--policy %s --device cuda: %d rows, %v", name, len(rows), err)
		}
	}
	f := base()
	f.Policy, f.Device = tinyFolder(t), "cuda"
	_, err := f.Resolve(context.Background())
	if err == nil || command.Code(err) != command.ExitUsage || !strings.Contains(err.Error(), "--device cuda") {
		t.Errorf("a checkpoint on a cuda device without its library: %v, want the device refused", err)
	}
}

// tinyFolder writes a one-layer checkpoint over the built-in tokenizer.
func tinyFolder(t *testing.T) string {
	t.Helper()
	tok, err := tokenizer.ShippedWordLevel()
	if err != nil {
		t.Fatal(err)
	}
	cfg := model.Tiny(tok.VocabSize())
	cfg.NumHiddenLayers = 1
	m, err := model.New(cfg, 3)
	if err != nil {
		t.Fatal(err)
	}
	js, err := tok.JSON()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "ckpt")
	if err := m.Save(dir, js); err != nil {
		t.Fatal(err)
	}
	return dir
}
