package main

import (
	"context"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/env"
	_ "github.com/pats-rl/pats/lib/env/shipped" // registers the shipped environments
	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/policy"
	"github.com/pats-rl/pats/lib/policy/servedtest"
	"github.com/pats-rl/pats/lib/rollout"
	"github.com/pats-rl/pats/lib/rollout/episodetest"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// servedTrajectories rolls out the fixture's checkpoint through a stand-in
// server whose log-probabilities are off by shift (an engine's other
// precision or temperature) and writes them.
func servedTrajectories(t *testing.T, ckpt string, shift float32) string {
	t.Helper()
	fo, err := model.OpenFolder(ckpt)
	if err != nil {
		t.Fatal(err)
	}
	s := servedtest.New(fo.Model)
	defer s.Close()
	s.LogprobShift = shift
	p, err := policy.LoadServed(ckpt, policy.ServerOptions{URL: s.URL + "/v1", Model: "tiny", Backoff: time.Millisecond},
		policy.Options{Temperature: 1, TopP: 1, MaxActionTokens: 5})
	if err != nil {
		t.Fatal(err)
	}
	e, err := env.Open("household")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := rollout.Run(context.Background(), rollout.Options{Env: e, Split: "train", Tasks: 2, Group: 3, Seed: 4,
		Policy: rollout.ServedPolicy{Served: p}, Tok: p.Tok, MaxContext: 150, Workers: 4, Sampling: p.Rule(), PolicyHash: p.Hash})
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		rows[i].Reward = float64(rows[i].Sample % 2) // spread within every group
	}
	out := filepath.Join(t.TempDir(), "served.parquet")
	if err := table.WriteFile(out, rows, table.Meta{}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestGRPOServed: learn grpo on trajectories an inference server played
// recomputes their behaviour log-probabilities with --init before the
// first step (so its ratio is 1 within 1e-5 although the server's were off
// by 0.25), says so, and records how far the server's were; a served
// trajectory whose checkpoint hash is not --init's is refused.
func TestGRPOServed(t *testing.T) {
	f := setup(t)
	const shift = 0.25
	traj := servedTrajectories(t, f.ckpt, shift)
	dir := t.TempDir()
	met := filepath.Join(dir, "m.parquet")
	code, stderr := run(t, "grpo", "--init", f.ckpt, traj, "-o", filepath.Join(dir, "ckpt1"), "--metrics", met,
		"--epochs", "1", "--minibatch", "6", "--lr", "1e-3", "--kl", "0")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "played by an inference server: their behaviour log-probabilities were recomputed with --init") {
		t.Errorf("stderr does not say the log-probabilities were recomputed: %q", stderr)
	}
	ms, metas, err := table.ReadFiles[table.TrainMetrics](met)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) == 0 || ms[0].RatioMean == nil || math.Abs(*ms[0].RatioMean-1) > 1e-5 {
		t.Fatalf("first step ratio %v, want 1 within 1e-5", ms[0].RatioMean)
	}
	t.Logf("first-step ratio %.9f", *ms[0].RatioMean)
	x := metas[0].Extra
	mean, err1 := strconv.ParseFloat(x["served_logprob_diff_mean"], 64)
	mx, err2 := strconv.ParseFloat(x["served_logprob_diff_max"], 64)
	if err1 != nil || err2 != nil || x["behaviour_logprobs"] == "" || math.Abs(mean-shift) > 1e-3 || math.Abs(mx-shift) > 1e-3 {
		t.Fatalf("metadata %v: want the drift recorded (mean and max about %v)", x, shift)
	}
	t.Logf("server - recomputed: mean %v max %v over %s tokens", mean, mx, x["served_logprob_tokens"])

	// Another checkpoint than the one the server played is refused.
	tok, err := tokenizer.ShippedWordLevel()
	if err != nil {
		t.Fatal(err)
	}
	other, err := model.New(episodetest.TinyConfig(tok.VocabSize()), 10)
	if err != nil {
		t.Fatal(err)
	}
	js, _ := tok.JSON()
	otherDir := filepath.Join(t.TempDir(), "other")
	if err := other.Save(otherDir, js); err != nil {
		t.Fatal(err)
	}
	code, stderr = run(t, "grpo", "--init", otherDir, traj, "-o", filepath.Join(dir, "ckpt2"), "--kl", "0")
	if code != command.ExitUsage || !strings.Contains(stderr, "played by "+f.ckpt) && !strings.Contains(stderr, "played by http://") {
		t.Fatalf("exit %d, %q: want exit 2 naming who played", code, stderr)
	}
}
