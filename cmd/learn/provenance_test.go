package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/stage/learn"
	"github.com/pats-rl/pats/lib/table"
)

// TestCheckpointProvenance: a checkpoint folder carries provenance.json
// (the command, its inputs' hashes, the parent checkpoint), written fresh
// by each update rather than carried over from the parent.
func TestCheckpointProvenance(t *testing.T) {
	f := setup(t)
	out := filepath.Join(t.TempDir(), "ckpt1")
	if code, stderr := run(t, "grpo", "--init", f.ckpt, "--ref", f.ckpt, f.traj, "-o", out, "--progress", "none"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	read := func(dir string) learn.Provenance {
		b, err := os.ReadFile(filepath.Join(dir, learn.ProvenanceFile))
		if err != nil {
			t.Fatal(err)
		}
		var p learn.Provenance
		if err := json.Unmarshal(b, &p); err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		return p
	}
	p := read(out)
	parentHash, err := model.WeightsHash(f.ckpt)
	if err != nil {
		t.Fatal(err)
	}
	trajHash, err := table.HashFile(f.traj)
	if err != nil {
		t.Fatal(err)
	}
	want := learn.Provenance{Stage: "learn grpo", Seed: 1, Parent: f.ckpt, ParentHash: parentHash, Ref: f.ckpt,
		Inputs: map[string]string{f.traj: trajHash, f.ckpt: parentHash}}
	got := p
	got.Command, got.Toolkit, got.Commit, got.Time, got.Host = "", "", "", "", ""
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("provenance (-want +got):\n%s", diff)
	}
	if p.Command == "" || p.Time != "2025-12-01T00:00:00Z" || p.Host != "test-host" || p.Toolkit == "" {
		t.Errorf("command, time, host or toolkit missing: %+v", p)
	}
}
