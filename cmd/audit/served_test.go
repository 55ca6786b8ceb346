package main

import (
	"path/filepath"
	"testing"

	"github.com/pats-rl/pats/lib/policy/servedtest"
	"github.com/pats-rl/pats/lib/table"
)

// TestReadingServed: audit reading plays every condition through a served
// policy (vLLM's shape) and names it in its rows.
func TestReadingServed(t *testing.T) {
	dir := t.TempDir()
	ck := filepath.Join(dir, "ckpt")
	s := servedtest.New(tinyCheckpoint(t, ck, 3))
	defer s.Close()
	out := filepath.Join(dir, "reading.parquet")
	code, stderr := run(t, "reading", "--policy", s.URL+"/v1", "--tokenizer", ck, "--model", "tiny", "--env", "household",
		"--split", "valid_seen", "--tasks", "2", "--max-context", "300", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows, metas, err := table.ReadFiles[table.ReadingAudit](out)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 || len(s.Log()) == 0 || metas[0].Extra["policy_server"] != s.URL+"/v1" {
		t.Fatalf("%d rows, %d answers logged, metadata %v", len(rows), len(s.Log()), metas[0].Extra)
	}
	for i, r := range rows {
		if r.Policy != s.URL+"/v1#tiny" || r.Episodes != 2 {
			t.Errorf("row %d: policy %q, %d episodes", i, r.Policy, r.Episodes)
		}
	}
}
