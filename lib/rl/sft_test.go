package rl

import (
	"context"
	"testing"

	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/rollout/episodetest"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// TestSFTLossDecreases trains a small model on oracle demonstrations of
// household: the loss of the last steps is well below the first step's.
func TestSFTLossDecreases(t *testing.T) {
	rows, err := episodetest.Household(nil, 4, 1, 3, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := tokenizer.ShippedWordLevel()
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.New(episodetest.TinyConfig(tok.VocabSize()), 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckTokens("demos", rows, tok.Hash(), m.Cfg.VocabSize, m.Cfg.MaxPositionEmbeddings); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range rows {
		n += len(r.Tokens)
	}
	t.Logf("%d demonstrations, %d tokens", len(rows), n)
	cfg := DefaultSFT()
	cfg.Epochs, cfg.BatchTokens = 12, n+1
	cfg.Optim.LR = 1e-2
	opt := model.NewAdamW(m, model.DefaultAdamW())
	metrics, err := TrainSFT(context.Background(), m, opt, rows, cfg)
	if err != nil {
		t.Fatal(err)
	}
	first, last := metrics[0].Loss, metrics[len(metrics)-1].Loss
	t.Logf("%d steps: loss %.3f -> %.3f", len(metrics), first, last)
	if !(last < 0.6*first) {
		t.Errorf("loss %.3f -> %.3f: did not fall below 60%% of the first step", first, last)
	}
	for i, r := range metrics {
		if r.Step != int32(i+1) || r.Phase != "sft" || r.Tokens <= 0 || r.LR <= 0 || r.GradNorm <= 0 {
			t.Errorf("metrics row %d: %+v", i, r)
		}
	}
	if opt.StepN != len(metrics) {
		t.Errorf("optimizer took %d steps, metrics have %d", opt.StepN, len(metrics))
	}
}
