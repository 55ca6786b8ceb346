package learn

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/rl"
	"github.com/pats-rl/pats/lib/rollout/episodetest"
	"github.com/pats-rl/pats/lib/stage"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// TestLoRAReferenceOnDevice (issue 60): under LoRA, learn grpo scores the
// KL reference (the base, adapter off) on the device the update runs on,
// whose base is BF16. Through the host accelerator, which keeps the base
// in BF16 as the CUDA library does, the first PPO step's KL of a fresh
// adapter (B = 0) is then exactly 0. Scored on the CPU's F32 base before
// the policy is attached (the order before issue 60's device work), the
// same step reports a KL that is not 0: the test tells the two orders
// apart.
func TestLoRAReferenceOnDevice(t *testing.T) {
	dir := t.TempDir()
	tok, err := tokenizer.ShippedWordLevel()
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.New(episodetest.TinyConfig(tok.VocabSize()), 9)
	if err != nil {
		t.Fatal(err)
	}
	js, err := tok.JSON()
	if err != nil {
		t.Fatal(err)
	}
	ckpt := filepath.Join(dir, "ckpt0")
	if err := m.Save(ckpt, js); err != nil {
		t.Fatal(err)
	}
	hash, err := model.WeightsHash(ckpt)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := episodetest.Household(episodetest.ModelPolicy{PolicyName: ckpt, Model: m, Tok: tok, MaxTokens: 5}, 2, 3, 4, false, 150)
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		rows[i].Reward = float64(rows[i].Sample % 2)
		rows[i].PolicyHash = hash
	}
	traj := filepath.Join(dir, "traj.parquet")
	if err := table.WriteFile(traj, rows, table.Meta{}); err != nil {
		t.Fatal(err)
	}
	var f GRPOOptions
	var stderr bytes.Buffer
	if code := command.Run(grpoApp(&f), []string{"learn", "--init", ckpt, "-o", filepath.Join(dir, "out"),
		"--lora-rank", "4", "--lora-alpha", "8", "--kl", "0.05", "--lr", "2e-2", "--minibatch", "3", "--seed", "3", traj}, &stderr); code != 0 {
		t.Fatalf("options: exit %d: %s", code, stderr.String())
	}
	hostAttach := func(m *model.Model) error {
		acc, err := model.NewHostAcceleratorLoRA(m.Cfg, m.Adapter().Cfg, nil)
		if err != nil {
			return err
		}
		return m.Attach(acc)
	}
	// firstKL runs reference with attach, attaches the policy if reference
	// did not, and returns the first step's KL.
	firstKL := func(attach func(*model.Model) error) float64 {
		t.Helper()
		g, err := f.inputs(stage.Streams{})
		if err != nil {
			t.Fatal(err)
		}
		c := f.Config
		c.Seed = f.Seed
		prep, _ := rl.Credits(g.rows, c)
		rl.CutTails(prep, g.in.Model.Cfg.MaxPositionEmbeddings)
		if err := f.reference(context.Background(), g, prep, attach); err != nil {
			t.Fatal(err)
		}
		if !g.in.Model.OnDevice() {
			if err := hostAttach(g.in.Model); err != nil {
				t.Fatal(err)
			}
		}
		ms, err := rl.TrainGRPO(context.Background(), g.in.Model, model.NewAdamW(g.in.Model, adamCfg(f.WeightDecay)), prep, c)
		if err != nil {
			t.Fatal(err)
		}
		if len(ms) == 0 || ms[0].KL == nil {
			t.Fatalf("no KL in the first step's metrics: %+v", ms)
		}
		return *ms[0].KL
	}
	if kl := firstKL(hostAttach); kl != 0 {
		t.Errorf("reference scored on the device's BF16 base: first step's KL %g, want 0", kl)
	}
	cpuFirst := func(*model.Model) error { return nil } // the reference on the F32 base
	if kl := firstKL(cpuFirst); kl == 0 {
		t.Error("reference scored on the CPU's F32 base: first step's KL 0, so this test cannot tell the orders apart")
	}
}
