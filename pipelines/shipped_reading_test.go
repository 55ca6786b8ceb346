package pipelines

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/audit"
	"github.com/pats-rl/pats/lib/stage"
	stageaudit "github.com/pats-rl/pats/lib/stage/audit"
	"github.com/pats-rl/pats/lib/stage/play"
	"github.com/pats-rl/pats/lib/table"
)

// TestShippedReadingBase checks the shipped reading base
// (pipelines/bases/reading, recipe 14): its files have the hashes its
// SHA256SUMS records, and with no context flags, in the context its
// agent.json says it was trained in (the two-turn window, the admissible
// actions at the place), it plays household-rl:
// it solves tasks with no text, and the task's right rules raise its
// success on the first 30 valid_seen tasks of the reading test's draw.
func TestShippedReadingBase(t *testing.T) {
	dir := filepath.Join(repoRoot(t), "pipelines", "bases", "reading")
	checkShippedSums(t, dir)

	out := filepath.Join(t.TempDir(), "reading.parquet")
	err := stageaudit.RunReading(context.Background(), stageaudit.ReadingOptions{Options: play.Options{
		Policy: filepath.Join(dir, "ckpt", "0"), Env: "household-rl", Split: "valid_seen", Tasks: 30, Group: 1, Seed: 7,
		PolicyOptions: play.PolicyOptions{Temperature: play.EvalTemperature, MaxContext: play.DefaultMaxContext}}, Output: out}, stage.Streams{Stdout: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	rows, metas, err := table.ReadFiles[table.ReadingAudit](out)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := metas[0].Extra["agent_context"], "prompt_format=builtin history=2 admissible=here max_action_tokens=32"; got != want {
		t.Errorf("agent context recorded %q, want %q", got, want)
	}
	by := map[string]table.ReadingAudit{}
	for _, r := range rows {
		by[r.Condition] = r
	}
	none, right := by[audit.CondNone], by[audit.CondRightHint]
	if none.Episodes != 30 || right.Episodes != 30 {
		t.Fatalf("rows %+v", rows)
	}
	if none.Successes == 0 || right.Successes <= none.Successes {
		t.Errorf("the shipped base: %d of 30 with no text, %d with the right rules; want some, and more with the rules", none.Successes, right.Successes)
	}
}

// checkShippedSums checks that a shipped base's six checkpoint files have
// the hashes its SHA256SUMS records and that its SFT metrics are there.
func checkShippedSums(t *testing.T, dir string) {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	files := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("%s/SHA256SUMS: bad line %q", dir, sc.Text())
		}
		b, err := os.ReadFile(filepath.Join(dir, "ckpt", "0", name))
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.Sum256(b)
		if hex.EncodeToString(h[:]) != sum {
			t.Errorf("%s: %s: sha256 %x, SHA256SUMS says %s", dir, name, h, sum)
		}
		files++
	}
	if files != 6 {
		t.Fatalf("%s/SHA256SUMS lists %d files, want 6", dir, files)
	}
	if _, err := os.Stat(filepath.Join(dir, "metrics", "sft.parquet")); err != nil {
		t.Error(err)
	}
}

// TestShippedBasesFiles checks the files of the other shipped reading
// bases (the skills twin, the PATS sweep's base): the hashes their
// SHA256SUMS record, their SFT metrics, and the context their agent.json
// says they were trained in (the recorded recipe's two-turn window and
// admissible actions at the place), which runs from them take.
func TestShippedBasesFiles(t *testing.T) {
	for _, name := range []string{"reading-skills", "reading-e1"} {
		dir := filepath.Join(repoRoot(t), "pipelines", "bases", name)
		checkShippedSums(t, dir)
		b, err := os.ReadFile(filepath.Join(dir, "ckpt", "0", "agent.json"))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := strings.TrimSpace(string(b)), `{"prompt_format": "builtin", "history": 2, "admissible": "here", "max_action_tokens": 32}`; got != want {
			t.Errorf("%s: agent.json %s, want %s", name, got, want)
		}
	}
}
