package rl

import (
	"context"
	"testing"

	"github.com/pats-rl/pats/lib/env"
	_ "github.com/pats-rl/pats/lib/env/shipped" // registers the shipped environments
	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/rollout"
	"github.com/pats-rl/pats/lib/skill"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// BenchmarkGRPOWindow times one GRPO epoch of the tiny preset on oracle
// episodes of household under a two-turn window with the slate in the
// prompt (8 tasks x group 4, minibatch 8), with each episode's prompt run
// once for its turn sequences (shared) and with every turn sequence run
// whole (whole). The rewards are spread by sample so that groups carry
// credit.
func BenchmarkGRPOWindow(b *testing.B) {
	e, err := env.Open("household")
	if err != nil {
		b.Fatal(err)
	}
	tok, err := tokenizer.ShippedWordLevel()
	if err != nil {
		b.Fatal(err)
	}
	lib, err := skill.ShippedLibrary("household")
	if err != nil {
		b.Fatal(err)
	}
	rows, err := rollout.Run(context.Background(), rollout.Options{Env: e, Split: "train", Tasks: 8, Group: 4, Seed: 3,
		Policy: rollout.TextPolicy{PolicyName: "oracle", New: e.Oracle}, Tok: tok, Skills: lib, Slate: 16,
		History: 2, ScaffoldVersion: -1, MaxContext: 4096})
	if err != nil {
		b.Fatal(err)
	}
	for i := range rows {
		rows[i].Reward = float64(rows[i].Sample % 3)
	}
	for _, shared := range []bool{true, false} {
		name := map[bool]string{true: "shared", false: "whole"}[shared]
		b.Run(name, func(b *testing.B) {
			cfg := DefaultGRPO()
			cfg.Minibatch, cfg.KL = 8, 0
			prep, _ := Credits(rows, cfg)
			tokens := 0
			for i := range prep {
				if !shared {
					prep[i].Prefix = 0
				}
				ps, _ := sequences([]*Prepared{&prep[i]})
				for _, p := range ps {
					tokens += len(p.Row.Tokens)
				}
			}
			m, err := model.New(model.Tiny(tok.VocabSize()), 1)
			if err != nil {
				b.Fatal(err)
			}
			opt := model.NewAdamW(m, model.DefaultAdamW())
			b.ResetTimer()
			for range b.N {
				if _, err := TrainGRPO(context.Background(), m, opt, prep, cfg); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(tokens)*float64(b.N)/b.Elapsed().Seconds(), "seqtokens/s")
		})
	}
}
