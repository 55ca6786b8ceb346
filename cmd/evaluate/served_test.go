package main

import (
	"path/filepath"
	"testing"

	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/policy/servedtest"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// TestServedPolicy: evaluate --policy URL plays its episodes through the
// server (SGLang's shape here) and records the server in the metrics'
// and the trajectories' metadata and the policy column.
func TestServedPolicy(t *testing.T) {
	dir := t.TempDir()
	tok, err := tokenizer.ShippedWordLevel()
	if err != nil {
		t.Fatal(err)
	}
	js, _ := tok.JSON()
	c := model.Tiny(tok.VocabSize())
	c.NumHiddenLayers = 1
	m, err := model.New(c, 3)
	if err != nil {
		t.Fatal(err)
	}
	ck := filepath.Join(dir, "ckpt")
	if err := m.Save(ck, js); err != nil {
		t.Fatal(err)
	}
	s := servedtest.New(m)
	defer s.Close()
	out, traj := filepath.Join(dir, "m.parquet"), filepath.Join(dir, "t.parquet")
	code, stderr := run(t, "--policy", s.URL, "--tokenizer", ck, "--model", "tiny", "--env", "household", "--split", "valid_seen",
		"--tasks", "2", "--max-context", "300", "-o", out, "--trajectories", traj)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows, metas, err := table.ReadFiles[table.Trajectory](traj)
	if err != nil {
		t.Fatal(err)
	}
	_, mm, err := table.ReadFiles[table.EvalMetrics](out)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Policy != s.URL+"#tiny" || len(s.Log()) == 0 {
		t.Fatalf("%d rows, policy %q, %d answers logged", len(rows), rows[0].Policy, len(s.Log()))
	}
	for _, meta := range []table.Meta{metas[0], mm[0]} {
		if meta.Extra["policy_server"] != s.URL || meta.Extra["policy_server_kind"] != "sglang" || meta.Extra["policy_model"] != "tiny" {
			t.Errorf("metadata %v", meta.Extra)
		}
	}
}
