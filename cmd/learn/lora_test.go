package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/env"
	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/rollout"
	"github.com/pats-rl/pats/lib/rollout/episodetest"
	"github.com/pats-rl/pats/lib/stage/learn"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// rollWith plays household-rl with the checkpoint folder ckpt (a full one or
// an adapter), records its weights' hash as the policy that played, and
// writes the rollouts to path.
func rollWith(t *testing.T, ckpt, path string, seed int64) []table.Trajectory {
	t.Helper()
	f, err := model.OpenFolder(ckpt)
	if err != nil {
		t.Fatal(err)
	}
	h, err := model.WeightsHash(ckpt)
	if err != nil {
		t.Fatal(err)
	}
	tok, _ := tokenizer.ShippedWordLevel()
	e, err := env.Open("household-rl")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := rollout.Run(context.Background(), rollout.Options{Env: e, Split: "train", Tasks: 2, Group: 3, Seed: seed,
		Policy: episodetest.ModelPolicy{PolicyName: ckpt, Model: f.Model, Tok: tok, MaxTokens: 5}, Tok: tok,
		ScaffoldVersion: -1, MaxContext: 150, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		rows[i].Reward = float64((int64(rows[i].Sample) + seed) % 2)
		rows[i].PolicyHash = h
	}
	if err := table.WriteFile(path, rows, table.Meta{}); err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestLoRAGRPOIterations runs three iterations of the LoRA loop on
// household-rl (roll out with the current checkpoint, learn grpo --lora-rank
// with the KL to the base, the adapter off), each from the previous
// iteration's adapter: the base's files are byte-identical afterwards,
// every iteration's adapter is a PEFT folder naming the base and its hash
// in provenance.json, the adapter moved, and --recompute writes the same
// bytes. learn merge of the last adapter gives a full checkpoint that
// scores the rollouts as base + adapter does.
func TestLoRAGRPOIterations(t *testing.T) {
	f := setup(t)
	baseBytes, err := os.ReadFile(filepath.Join(f.ckpt, "model.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	baseHash, _ := model.WeightsHash(f.ckpt)
	dir := t.TempDir()
	ckpt := f.ckpt
	var traj string
	for k := 0; k < 3; k++ {
		traj = filepath.Join(dir, "traj"+string(rune('0'+k))+".parquet")
		rollWith(t, ckpt, traj, int64(k+5))
		out := filepath.Join(dir, "ckpt"+string(rune('1'+k)))
		met := filepath.Join(dir, "m"+string(rune('1'+k))+".parquet")
		code, stderr := run(t, "grpo", "--init", ckpt, traj, "-o", out, "--lora-rank", "4", "--lora-alpha", "8",
			"--kl", "0.05", "--lr", "2e-2", "--minibatch", "3", "--seed", "3", "--metrics", met)
		if code != 0 {
			t.Fatalf("iteration %d: exit %d: %s", k, code, stderr)
		}
		// The reference is the base: the first step's KL is 0 while the
		// adapter is fresh (B = 0), and positive from an adapter that moved.
		ms, meta, err := table.ReadFiles[table.TrainMetrics](met)
		if err != nil || len(ms) == 0 || ms[0].KL == nil {
			t.Fatalf("iteration %d metrics: %v", k, err)
		}
		if kl := *ms[0].KL; (k == 0) != (kl == 0) || kl < 0 {
			t.Errorf("iteration %d: first step's KL to the base %g", k, kl)
		}
		if !strings.Contains(meta[0].Extra["reference"], "adapter off") {
			t.Errorf("iteration %d: metadata's reference %q", k, meta[0].Extra["reference"])
		}
		if !model.IsAdapter(out) {
			t.Fatalf("iteration %d wrote no adapter folder", k)
		}
		var prov learn.Provenance
		b, err := os.ReadFile(filepath.Join(out, learn.ProvenanceFile))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &prov); err != nil {
			t.Fatal(err)
		}
		abs, _ := filepath.Abs(f.ckpt)
		if prov.Base != abs || prov.BaseHash != baseHash || prov.Parent != ckpt {
			t.Errorf("iteration %d provenance: base %q %q, parent %q", k, prov.Base, prov.BaseHash, prov.Parent)
		}
		ckpt = out
	}
	if b, _ := os.ReadFile(filepath.Join(f.ckpt, "model.safetensors")); !bytes.Equal(b, baseBytes) {
		t.Error("the base's weights changed")
	}
	m, err := model.Load(ckpt)
	if err != nil {
		t.Fatal(err)
	}
	moved := 0
	for _, p := range m.Adapter().Params() {
		for _, x := range p.W {
			if strings.HasSuffix(p.Name, "lora_B.weight") && x != 0 {
				moved++
				break
			}
		}
	}
	if moved == 0 {
		t.Fatal("no B matrix moved in three iterations")
	}
	// --recompute: the same update, byte for byte.
	again := filepath.Join(dir, "recomputed")
	prev := filepath.Join(dir, "ckpt2")
	if code, stderr := run(t, "grpo", "--init", prev, traj, "-o", again, "--lora-rank", "4", "--lora-alpha", "8",
		"--kl", "0.05", "--lr", "2e-2", "--minibatch", "3", "--seed", "3", "--recompute"); code != 0 {
		t.Fatalf("recompute: exit %d: %s", code, stderr)
	}
	b1, _ := os.ReadFile(filepath.Join(ckpt, model.AdapterWeightsFile))
	b2, _ := os.ReadFile(filepath.Join(again, model.AdapterWeightsFile))
	if len(b1) == 0 || !bytes.Equal(b1, b2) {
		t.Error("--recompute wrote a different adapter")
	}
	// learn merge.
	merged := filepath.Join(dir, "merged")
	if code, stderr := run(t, "merge", "--adapter", ckpt, "-o", merged); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	mm, err := model.Load(merged)
	if err != nil || mm.Adapter() != nil {
		t.Fatalf("merged checkpoint: %v", err)
	}
	rows, _, err := table.ReadFiles[table.Trajectory](traj)
	if err != nil {
		t.Fatal(err)
	}
	var worst, moveBy float64
	bm, _ := model.Load(f.ckpt)
	for _, r := range rows[:3] {
		want, _, _ := m.LogProbs([][]int32{r.Tokens}, nil)
		got, _, _ := mm.LogProbs([][]int32{r.Tokens}, nil)
		base, _, _ := bm.LogProbs([][]int32{r.Tokens}, nil)
		for i := range want[0] {
			worst = math.Max(worst, math.Abs(float64(want[0][i]-got[0][i])))
			moveBy = math.Max(moveBy, math.Abs(float64(want[0][i]-base[0][i])))
		}
	}
	if worst > 1e-4 || moveBy < 1e-3 {
		t.Errorf("merged log-probs differ from base + adapter by %g (the adapter moves them by %g)", worst, moveBy)
	}
	for _, c := range [][]string{
		{"merge", "--adapter", f.ckpt, "-o", filepath.Join(dir, "x")},
		{"grpo", "--init", ckpt, traj, "-o", filepath.Join(dir, "y"), "--lora-rank", "8"},
		{"sft", "--init", "tiny", f.demos, "-o", filepath.Join(dir, "z"), "--lora-rank", "4"},
		{"merge", "--adapter", ckpt, "-o", f.ckpt},
		{"grpo", "--init", ckpt, traj, "-o", f.ckpt},
		// the adapter's rollouts are not the base's: the hash check covers base + adapter
		{"grpo", "--init", f.ckpt, traj, "-o", filepath.Join(dir, "w"), "--lora-rank", "4", "--lora-alpha", "8"},
	} {
		if code, stderr := run(t, c...); code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, %q", c, code, stderr)
		}
		if _, err := os.Stat(c[len(c)-1]); err == nil && c[0] == "merge" && c[len(c)-1] != f.ckpt {
			t.Errorf("%v wrote its output", c)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(f.ckpt, "model.safetensors")); !bytes.Equal(b, baseBytes) || model.IsAdapter(f.ckpt) {
		t.Error("a refused run changed the base")
	}
}
