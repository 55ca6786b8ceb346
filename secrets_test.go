package pats

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/table"
)

// TestNoSecretsInMetadata runs control with credentials written into the
// endpoint URL of an unreachable refiner (the scope gets no proposals and
// a reason; the command succeeds) and checks that neither the outputs'
// metadata nor stderr carries the user or the password.
func TestNoSecretsInMetadata(t *testing.T) {
	built(t)
	work := t.TempDir()
	cmd := exec.Command(filepath.Join(binDir, "control"), "--cards", filepath.Join(fixDir, "cards.parquet"),
		"--scaffold", filepath.Join(fixDir, "snap.parquet"), "-o", "p.parquet", "--state-out", "s.parquet",
		"--refiner", "openai", "--endpoint", "http://alice:s3cret@127.0.0.1:1/v1", "--model", "m",
		"--retries", "0", "--timeout", "2s")
	cmd.Dir = work
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("control: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "s3cret") || strings.Contains(string(out), "alice") {
		t.Errorf("output keeps the credentials: %s", out)
	}
	_, metas, err := table.ReadFiles[table.Proposal](filepath.Join(work, "p.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	m := metas[0]
	all := m.Command
	for k, v := range m.Extra {
		all += " " + k + "=" + v
	}
	if !strings.Contains(m.Command, "REDACTED@127.0.0.1:1") {
		t.Errorf("pats.command %q does not show the redacted endpoint", m.Command)
	}
	if strings.Contains(all, "s3cret") || strings.Contains(all, "alice") {
		t.Errorf("metadata keeps the credentials: %s", all)
	}
}
