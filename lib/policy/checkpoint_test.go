package policy_test

import (
	"context"
	"math"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pats-rl/pats/lib/env"
	_ "github.com/pats-rl/pats/lib/env/shipped" // registers the shipped environments
	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/policy"
	"github.com/pats-rl/pats/lib/rollout"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
)

func tinyCheckpoint(t testing.TB) string {
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

func roll(t *testing.T, ck *policy.Checkpoint, seed int64) []table.Trajectory {
	t.Helper()
	e, err := env.Open("household")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := rollout.Run(context.Background(), rollout.Options{Env: e, Split: "train", Tasks: 2, Group: 3, Seed: seed,
		Policy: rollout.CheckpointPolicy{Checkpoint: ck}, Tok: ck.Tok, MaxContext: 300})
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestLogprobsMatchRecompute: the behaviour log-probability rollout records
// for each generated token equals what the model computes for the whole
// sequence in one forward (what learn uses for the PPO ratio).
func TestLogprobsMatchRecompute(t *testing.T) {
	dir := tinyCheckpoint(t)
	ck, err := policy.Load(dir, policy.Options{Temperature: 1, TopP: 1})
	if err != nil {
		t.Fatal(err)
	}
	rows := roll(t, ck, 11)
	var seqs [][]int32
	var masks [][]bool
	for _, r := range rows {
		seqs = append(seqs, r.Tokens)
		mask := make([]bool, len(r.Tokens))
		for i, role := range r.Roles {
			mask[i] = table.PolicyWritten(role)
		}
		masks = append(masks, mask)
	}
	lp, _, err := ck.M.LogProbs(seqs, masks)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for i, r := range rows {
		if r.NPolicyTokens == 0 {
			t.Fatalf("episode %d wrote nothing", i)
		}
		for j, role := range r.Roles {
			if !table.PolicyWritten(role) {
				continue
			}
			// LogProbs scores position j-1 predicting token j.
			got := float64(lp[i][j])
			if d := math.Abs(got - float64(r.Logprobs[j])); d > 1e-4 {
				t.Fatalf("episode %d token %d: recorded %v, recomputed %v", i, j, r.Logprobs[j], got)
			}
			n++
		}
	}
	if n < 20 {
		t.Errorf("only %d policy tokens compared", n)
	}
}

// TestSamplingDeterministic: the same seed gives the same episodes; another
// seed gives others; greedy decoding repeats itself across a group.
func TestSamplingDeterministic(t *testing.T) {
	dir := tinyCheckpoint(t)
	ck, err := policy.Load(dir, policy.Options{Temperature: 1, TopP: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	a, b := roll(t, ck, 5), roll(t, ck, 5)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Fatalf("same seed, different episodes:\n%s", diff)
	}
	c := roll(t, ck, 6)
	if cmp.Equal(a[0].Tokens, c[0].Tokens) && cmp.Equal(a[1].Tokens, c[1].Tokens) {
		t.Error("seeds 5 and 6 gave the same episodes")
	}
	prev := runtime.GOMAXPROCS(1)
	one := roll(t, ck, 5)
	runtime.GOMAXPROCS(prev)
	if diff := cmp.Diff(a, one); diff != "" {
		t.Fatalf("GOMAXPROCS=1 gave other episodes than %d:\n%s", prev, diff)
	}
	greedy, _ := policy.Load(dir, policy.Options{Greedy: true})
	g := roll(t, greedy, 5)
	if !cmp.Equal(g[0].Tokens, g[1].Tokens) || !cmp.Equal(g[0].Tokens, g[2].Tokens) {
		t.Error("greedy episodes of one group differ")
	}
}

// TestDeviceSamplingSameEpisodes: a checkpoint whose model is attached to
// an accelerator samples each written token on the "device"
// (AppendSample, with the host generator's uniform) instead of pulling
// its logits; over model.NewHostAccelerator, which runs the CPU code, the
// episodes are those of the CPU path, token for token, batched and not.
func TestDeviceSamplingSameEpisodes(t *testing.T) {
	dir := tinyCheckpoint(t)
	for _, o := range []policy.Options{{Temperature: 1, TopP: 0.9}, {Temperature: 0.7, TopP: 1}, {Greedy: true}} {
		cpu, err := policy.Load(dir, o)
		if err != nil {
			t.Fatal(err)
		}
		dev, err := policy.Load(dir, o)
		if err != nil {
			t.Fatal(err)
		}
		acc, err := model.NewHostAccelerator(dev.M.Cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := dev.M.Attach(acc); err != nil {
			t.Fatal(err)
		}
		for _, batch := range []int{1, 0} {
			e, err := env.Open("household")
			if err != nil {
				t.Fatal(err)
			}
			run := func(ck *policy.Checkpoint) []table.Trajectory {
				rows, err := rollout.Run(context.Background(), rollout.Options{Env: e, Split: "train", Tasks: 2, Group: 3, Seed: 4,
					Policy: rollout.CheckpointPolicy{Checkpoint: ck}, Tok: ck.Tok, MaxContext: 300, Batch: batch})
				if err != nil {
					t.Fatal(err)
				}
				return rows
			}
			want, got := run(cpu), run(dev)
			for i := range want {
				want[i].Policy, got[i].Policy = "", ""
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%+v batch %d: episodes differ (-cpu +device):\n%s", o, batch, diff)
			}
		}
	}
}
