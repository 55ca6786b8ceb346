package main

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// TestAdapterPolicy: rollout --policy takes a LoRA adapter folder (issue
// 60): the base is resolved from it once, the episodes are played by base
// + adapter (their behaviour log-probabilities are those of base +
// adapter, not of the base) and policy_hash is the adapter folder's hash,
// not the base's.
func TestAdapterPolicy(t *testing.T) {
	tok, err := tokenizer.ShippedWordLevel()
	if err != nil {
		t.Fatal(err)
	}
	js, _ := tok.JSON()
	base := checkpoint(t, js, tok.VocabSize(), false)
	m, err := model.Load(base)
	if err != nil {
		t.Fatal(err)
	}
	ad, err := m.AddAdapter(model.LoRAConfig{Rank: 2, Alpha: 4}, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ad.Params() {
		if strings.HasSuffix(p.Name, "lora_B.weight") {
			for i := range p.W {
				p.W[i] = 0.5
			}
		}
	}
	ad.Base = base
	if ad.BaseHash, err = model.WeightsHash(base); err != nil {
		t.Fatal(err)
	}
	adapter := filepath.Join(t.TempDir(), "adapter")
	if err := m.Save(adapter, js); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "t.parquet")
	if code, stderr := run(t, "--policy", adapter, "--env", "household", "--tasks", "1", "--group", "2",
		"--max-action-tokens", "4", "--max-context", "300", "--temperature", "1", "-o", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows, _, err := table.ReadFiles[table.Trajectory](out)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := model.WeightsHash(adapter)
	bm, _ := model.Load(base)
	for _, r := range rows {
		if r.PolicyHash != want || r.PolicyHash == ad.BaseHash {
			t.Errorf("policy_hash %q, want the adapter's %q", r.PolicyHash, want)
		}
		lp, _, _ := m.LogProbs([][]int32{r.Tokens}, nil)
		lb, _, _ := bm.LogProbs([][]int32{r.Tokens}, nil)
		var dAdapter, dBase float64
		n := 0
		for i, role := range r.Roles { // the first action (before any history window)
			if !table.PolicyWritten(role) {
				if n > 0 {
					break
				}
				continue
			}
			n++
			dAdapter = math.Max(dAdapter, math.Abs(float64(r.Logprobs[i]-lp[0][i])))
			dBase = math.Max(dBase, math.Abs(float64(r.Logprobs[i]-lb[0][i])))
		}
		if n == 0 || dAdapter > 1e-4 || dBase < 1e-3 {
			t.Errorf("%d policy tokens: behaviour log-probs %g from base + adapter, %g from the base", n, dAdapter, dBase)
		}
	}
}
