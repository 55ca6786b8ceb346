package rl

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/env"
	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/policy"
	"github.com/pats-rl/pats/lib/rollout"
	"github.com/pats-rl/pats/lib/rollout/episodetest"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// TestTailPastPositions: an episode without a window whose last answer
// fits the model's positions but whose final observation does not (the
// environment's reply is appended after the last answer) passes the check,
// trains with its tail cut (first GRPO step's ratio mean 1 within 1e-5, as
// every answer token's context is unchanged) and keeps every token in its
// advantages row; SFT trains on it too. One position less than the last
// answer's end is refused.
func TestTailPastPositions(t *testing.T) {
	tok, err := tokenizer.ShippedWordLevel()
	if err != nil {
		t.Fatal(err)
	}
	const positions = 300
	mc := episodetest.TinyConfig(tok.VocabSize())
	mc.MaxPositionEmbeddings = positions
	m, err := model.New(mc, 5)
	if err != nil {
		t.Fatal(err)
	}
	e, err := env.Open("household")
	if err != nil {
		t.Fatal(err)
	}
	ck := policy.New("ckpt", m, tok, policy.Options{Temperature: 1, TopP: 1, MaxActionTokens: 4})
	rows, err := rollout.Run(context.Background(), rollout.Options{Env: e, Split: "train", Tasks: 2, Group: 2, Seed: 4,
		Policy: rollout.CheckpointPolicy{Checkpoint: ck}, Tok: tok, ScaffoldVersion: -1, MaxContext: positions, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	// The rollout stops at the model's positions: the driver ends the
	// answer there, and the environment's reply to it follows.
	limit, over, end := positions, 0, 0
	for i := range rows {
		if len(rows[i].Tokens) > limit {
			over++
		}
		end = max(end, ScoredEnd(rows[i].Roles))
	}
	if over == 0 || end > limit {
		t.Fatalf("%d episodes longer than %d positions, last answers end by %d: the test needs an episode past the positions whose answers fit", over, limit, end)
	}
	if err := CheckTokens("traj", rows, tok.Hash(), m.Cfg.VocabSize, limit); err != nil {
		t.Fatalf("answers within %d positions refused: %v", limit, err)
	}
	err = CheckTokens("traj", rows, tok.Hash(), m.Cfg.VocabSize, end-1)
	if err == nil || !strings.Contains(err.Error(), "exceed the model's") {
		t.Fatalf("a last answer past %d positions: got %v, want a refusal", end-1, err)
	}
	cfg := DefaultGRPO()
	cfg.KL = 0
	prep, adv := Credits(rows, cfg)
	CutTails(prep, limit)
	for i := range prep {
		if n := len(prep[i].Row.Tokens); n > limit || len(prep[i].Mask) != n || len(prep[i].Adv) != n || len(prep[i].Channels) != n {
			t.Errorf("episode %d: %d tokens, %d mask, %d advantages, %d channels after the cut; want equal and <= %d",
				i, n, len(prep[i].Mask), len(prep[i].Adv), len(prep[i].Channels), limit)
		}
		if len(adv[i].Advantages) != len(rows[i].Tokens) {
			t.Errorf("episode %d: advantages row has %d values for %d tokens", i, len(adv[i].Advantages), len(rows[i].Tokens))
		}
		if len(rows[i].Tokens) <= limit && prep[i].Row != &rows[i] {
			t.Errorf("episode %d fits (%d tokens) but was copied", i, len(rows[i].Tokens))
		}
	}
	ms, err := TrainGRPO(context.Background(), m, model.NewAdamW(m, model.DefaultAdamW()), prep, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(orZero(ms[0].RatioMean)-1) > 1e-5 {
		t.Errorf("first step's ratio mean %v, want 1 within 1e-5", orZero(ms[0].RatioMean))
	}
	cut := make([]table.Trajectory, len(rows))
	for i := range rows {
		cut[i] = *CutTail(&rows[i], limit)
	}
	scfg := DefaultSFT()
	scfg.Epochs = 1
	if _, err := TrainSFT(context.Background(), m, model.NewAdamW(m, model.DefaultAdamW()), cut, scfg); err != nil {
		t.Fatalf("SFT on the cut episodes: %v", err)
	}
	t.Logf("%d of %d episodes past %d positions; first ratio mean %.8f", over, len(rows), limit, orZero(ms[0].RatioMean))
}
