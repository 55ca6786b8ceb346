package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// TestScaffoldAdapter: audit scaffold takes a LoRA adapter folder among
// its checkpoints (issue 60) and scores with base + adapter: a fresh
// adapter (B = 0) scores as its base to the bit, one whose B moved does
// not.
func TestScaffoldAdapter(t *testing.T) {
	dir := t.TempDir()
	tok, err := tokenizer.ShippedWordLevel()
	if err != nil {
		t.Fatal(err)
	}
	js, _ := tok.JSON()
	base := filepath.Join(dir, "base")
	tinyCheckpoint(t, base, 1)
	hash, _ := model.WeightsHash(base)
	adapter := func(name string, b float32) string {
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
					p.W[i] = b
				}
			}
		}
		ad.Base, ad.BaseHash = base, hash
		out := filepath.Join(dir, name)
		if err := m.Save(out, js); err != nil {
			t.Fatal(err)
		}
		return out
	}
	ckpts := []string{base, adapter("fresh", 0), adapter("moved", 0.3)}
	var traj []table.Trajectory
	for i, s := range []int{1, 3} {
		tr, _ := episode(string(rune('a'+i)), s, 0)
		tr.Tokenizer = tok.Hash()
		traj = append(traj, tr)
	}
	tp := filepath.Join(dir, "traj.parquet")
	if err := table.WriteFile(tp, traj, table.Meta{}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "nll.parquet")
	if code, stderr := run(t, "scaffold", "--checkpoints", strings.Join(ckpts, ","), "--traj", tp, "-o", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows, _, err := table.ReadFiles[table.ScaffoldAudit](out)
	if err != nil || len(rows) != 3 {
		t.Fatalf("%d rows: %v", len(rows), err)
	}
	nll := func(i int) float64 { return table.OrNaN(rows[i].NLLWith) }
	if rows[1].Checkpoint != ckpts[1] || nll(1) != nll(0) || nll(2) == nll(0) {
		t.Errorf("NLL with the scaffold: base %v, fresh adapter %v, moved adapter %v", nll(0), nll(1), nll(2))
	}
}
