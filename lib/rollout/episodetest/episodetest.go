// Package episodetest holds helpers for the tests of training code that
// play episodes (lib/rl, lib/audit, lib/device, cmd/learn): a rollout
// policy that samples from a model (recording behaviour log-probabilities
// at temperature 1) and small real rollouts of the built-in household
// environment.
package episodetest

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/pats-rl/pats/lib/agent"
	"github.com/pats-rl/pats/lib/env"
	_ "github.com/pats-rl/pats/lib/env/shipped" // registers the shipped environments
	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/rollout"
	"github.com/pats-rl/pats/lib/skill"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// ModelPolicy samples actions from a model at temperature 1, at most
// MaxTokens tokens per action (the last one forced to the end token).
type ModelPolicy struct {
	PolicyName string
	Model      *model.Model
	Tok        tokenizer.Tokenizer
	MaxTokens  int
}

// Name implements rollout.Policy.
func (p ModelPolicy) Name() string { return p.PolicyName }

// NewEpisode implements rollout.Policy.
func (p ModelPolicy) NewEpisode(_ string, seed int64) rollout.Driver {
	return &driver{p: p, dec: p.Model.NewDecoder(), rng: model.NewRand(uint64(seed), 1)}
}

type driver struct {
	p   ModelPolicy
	dec *model.Decoder
	fed int
	rng *rand.Rand
}

func (d *driver) Act(_ context.Context, c *agent.Context, _ env.Episode, _ string) (string, error) {
	logits, err := d.dec.Append(c.Tokens[d.fed:])
	if err != nil {
		return "", err
	}
	d.fed = len(c.Tokens)
	end, _ := d.p.Tok.TokenID(tokenizer.End)
	var ids []int32
	var lps []float32
	for {
		var tok int32
		var lp float32
		if len(ids) == d.p.MaxTokens-1 {
			tok, lp = end, logSoftmaxAt(logits, end)
		} else {
			tok, lp = model.Sample(logits, 1, 1, d.rng)
		}
		ids = append(ids, tok)
		lps = append(lps, lp)
		if tok == end {
			break
		}
		if logits, err = d.dec.Append([]int32{tok}); err != nil {
			return "", err
		}
	}
	// Every token but the end token is in the decoder already; the end
	// token goes in with the next observation.
	agent.AddAction(c, ids, lps)
	d.fed = len(c.Tokens) - 1
	return d.p.Tok.Decode(ids[:len(ids)-1]), nil
}

func logSoftmaxAt(logits []float32, i int32) float32 {
	mx := math.Inf(-1)
	for _, v := range logits {
		mx = math.Max(mx, float64(v))
	}
	var s float64
	for _, v := range logits {
		s += math.Exp(float64(v) - mx)
	}
	return float32(float64(logits[i]) - mx - math.Log(s))
}

// Household rolls out group episodes of each of tasks training tasks of the
// household environment with policy p (nil: the oracle), under the built-in
// tokenizer. skills shows the built-in slate; maxContext (0: none) cuts
// long episodes short.
func Household(p rollout.Policy, tasks, group int, seed int64, skills bool, maxContext int) ([]table.Trajectory, error) {
	e, err := env.Open("household")
	if err != nil {
		return nil, err
	}
	tok, err := tokenizer.ShippedWordLevel()
	if err != nil {
		return nil, err
	}
	if p == nil {
		p = rollout.TextPolicy{PolicyName: "oracle", New: e.Oracle}
	}
	o := rollout.Options{Env: e, Split: "train", Tasks: tasks, Group: group, Seed: seed, Policy: p, Tok: tok,
		ScaffoldVersion: -1, MaxContext: maxContext, Workers: 2}
	if skills {
		lib, err := skill.ShippedLibrary("household")
		if err != nil {
			return nil, err
		}
		o.Skills, o.Slate = lib, 16
	}
	rows, err := rollout.Run(context.Background(), o)
	if err != nil {
		return nil, fmt.Errorf("household rollout: %w", err)
	}
	return rows, nil
}

// TinyConfig is a model configuration small enough for unit tests over the
// built-in vocabulary: hidden 32, 1 layer, 2 heads, 1 key/value head.
func TinyConfig(vocab int) model.Config {
	c := model.Tiny(vocab)
	c.HiddenSize, c.NumHiddenLayers, c.NumAttentionHeads, c.NumKeyValueHeads, c.IntermediateSize = 32, 1, 2, 1, 64
	return c
}
