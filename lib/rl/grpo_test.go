package rl

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/rollout/episodetest"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// modelRollouts samples household episodes from a fresh small model. An
// untrained model never succeeds, so the first two tasks' episodes are
// rewarded by a deterministic function of the episode (the sum of its
// written token ids mod 5)
// to give their groups spread; the third task keeps its real reward (all
// 0: a zero-variance group).
func modelRollouts(t *testing.T, m *model.Model) []table.Trajectory {
	t.Helper()
	tok, err := tokenizer.ShippedWordLevel()
	if err != nil {
		t.Fatal(err)
	}
	p := episodetest.ModelPolicy{PolicyName: "ckpt/0", Model: m, Tok: tok, MaxTokens: 5}
	rows, err := episodetest.Household(p, 3, 3, 7, false, 160)
	if err != nil {
		t.Fatal(err)
	}
	last := rows[len(rows)-1].GroupID
	for i := range rows {
		if rows[i].GroupID != last {
			var sum int
			for tk, id := range rows[i].Tokens {
				if table.PolicyWritten(rows[i].Roles[tk]) {
					sum += int(id)
				}
			}
			rows[i].Reward = float64(sum % 5)
		}
	}
	return rows
}

// TestGRPOOnModelRollouts runs the GRPO update on real rollouts of a small
// model: the first step is on-policy (ratios 1, nothing clipped, KL 0 to a
// reference equal to the policy), the zero-variance group is counted, and
// the update raises the advantage-weighted log-likelihood it optimises.
func TestGRPOOnModelRollouts(t *testing.T) {
	tok, err := tokenizer.ShippedWordLevel()
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.New(episodetest.TinyConfig(tok.VocabSize()), 4)
	if err != nil {
		t.Fatal(err)
	}
	rows := modelRollouts(t, m)
	if err := CheckTokens("traj", rows, tok.Hash(), m.Cfg.VocabSize, m.Cfg.MaxPositionEmbeddings); err != nil {
		t.Fatal(err)
	}
	paths := make([]string, len(rows))
	if err := CheckGRPO(rows, paths); err != nil {
		t.Fatal(err)
	}
	cfg := DefaultGRPO()
	cfg.Optim.LR = 1e-3
	prep, adv := Credits(rows, cfg)
	if err := RefLogProbs(context.Background(), m, prep); err != nil {
		t.Fatal(err)
	}
	objective := func() float64 {
		seqs := make([][]int32, len(prep))
		masks := make([][]bool, len(prep))
		for i := range prep {
			seqs[i], masks[i] = prep[i].Row.Tokens, prep[i].Mask
		}
		lp, _, err := m.LogProbs(seqs, masks)
		if err != nil {
			t.Fatal(err)
		}
		var j float64
		for i := range prep {
			var s float64
			for tk, on := range prep[i].Mask {
				if on {
					s += float64(lp[i][tk])
				}
			}
			j += prep[i].Outcome * s / float64(prep[i].NLoss)
		}
		return j
	}
	before := objective()
	opt := model.NewAdamW(m, model.DefaultAdamW())
	metrics, err := TrainGRPO(context.Background(), m, opt, prep, cfg)
	if err != nil {
		t.Fatal(err)
	}
	after := objective()
	if len(metrics) != 1 {
		t.Fatalf("%d metrics rows, want 1", len(metrics))
	}
	r := metrics[0]
	t.Logf("step 1: %+v", r)
	t.Logf("advantage-weighted mean log-likelihood %.5f -> %.5f", before, after)
	if r.RatioMean == nil || r.ClipFrac == nil || r.KL == nil || r.Groups == nil || r.ZeroVarGroups == nil {
		t.Fatalf("a GRPO column is NULL: %+v", r)
	}
	if math.Abs(*r.RatioMean-1) > 1e-3 || *r.ClipFrac != 0 {
		t.Errorf("first step not on-policy: ratio mean %v, clip fraction %v", *r.RatioMean, *r.ClipFrac)
	}
	if math.Abs(*r.KL) > 1e-6 {
		t.Errorf("KL to a reference equal to the policy: %v", *r.KL)
	}
	if *r.ZeroVarGroups != 1 || *r.Groups != 3 || r.Sequences != 9 {
		t.Errorf("groups %d (zero-variance %d), sequences %d; want 3 (1), 9", *r.Groups, *r.ZeroVarGroups, r.Sequences)
	}
	if !(after > before) {
		t.Errorf("update did not raise the objective: %v -> %v", before, after)
	}
	for i, a := range adv {
		if len(a.Advantages) != len(rows[i].Tokens) || len(a.Channels) != len(rows[i].Tokens) {
			t.Errorf("advantages row %d: %d/%d values for %d tokens", i, len(a.Advantages), len(a.Channels), len(rows[i].Tokens))
		}
	}
}

// TestNonFiniteStep: a behaviour log-probability far below the model's
// makes the ratio overflow; with a negative advantage the loss is +Inf and
// the step is refused by number.
func TestNonFiniteStep(t *testing.T) {
	m := microModel(t, 1)
	rows := microEpisodes(1)
	cfg := GRPOConfig{Credit: Broadcast, Agg: SeqMean, Clip: 0.2, Epochs: 1, Optim: OptimConfig{LR: 1e-3}}
	prep, _ := Credits(rows, cfg)
	setBehaviour(t, m, rows, prep)
	for i := range prep {
		if prep[i].Outcome < 0 {
			for tk, on := range prep[i].Mask {
				if on {
					rows[i].Logprobs[tk] = -1e4
				}
			}
		}
	}
	_, err := TrainGRPO(context.Background(), m, model.NewAdamW(m, model.DefaultAdamW()), prep, cfg)
	nf, ok := err.(*NonFiniteError)
	if !ok || nf.Step != 1 {
		t.Fatalf("got %v, want a non-finite error at step 1", err)
	}
}

// TestKLNeedsReference: a KL term over sequences whose reference
// log-probabilities were never computed is refused with an error, not a
// panic; with them (RefLogProbs) the same step runs.
func TestKLNeedsReference(t *testing.T) {
	m := microModel(t, 1)
	rows := microEpisodes(1)
	cfg := GRPOConfig{Credit: Broadcast, Agg: SeqMean, Clip: 0.2, KL: 0.1, Epochs: 1, Optim: OptimConfig{LR: 1e-3}}
	prep, _ := Credits(rows, cfg)
	setBehaviour(t, m, rows, prep) // sets a reference too: drop it
	for i := range prep {
		prep[i].Ref = nil
	}
	_, err := TrainGRPO(context.Background(), m, model.NewAdamW(m, model.DefaultAdamW()), prep, cfg)
	if err == nil || !strings.Contains(err.Error(), "reference log-probabilities") {
		t.Fatalf("KL without a reference: %v, want it refused", err)
	}
	if err := RefLogProbs(context.Background(), m, prep); err != nil {
		t.Fatal(err)
	}
	if _, err := TrainGRPO(context.Background(), m, model.NewAdamW(m, model.DefaultAdamW()), prep, cfg); err != nil {
		t.Errorf("KL with its reference: %v", err)
	}
}
