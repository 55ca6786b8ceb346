package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/table"
)

func run(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var e bytes.Buffer
	code := command.Run(app(), append([]string{"rollout"}, args...), &e)
	return code, e.String()
}

func TestBadUsage(t *testing.T) {
	dir := t.TempDir()
	cases := map[string][]string{
		"unknown env":    {"--env", "castle"},
		"unknown split":  {"--split", "holdout"},
		"bad shard":      {"--shard", "3/2"},
		"bad shard 2":    {"--shard", "x"},
		"zero group":     {"--group", "0"},
		"bad policy":     {"--policy", filepath.Join(dir, "no-such-ckpt")},
		"unknown flag":   {"--frobnicate"},
		"bad admissible": {"--admissible", "some"},
	}
	for name, args := range cases {
		out := filepath.Join(dir, "out.parquet")
		code, stderr := run(t, append(args, "--tasks", "2", "-o", out)...)
		if code != command.ExitUsage {
			t.Errorf("%s: exit %d, want 2 (%q)", name, code, stderr)
		}
		if strings.Count(strings.TrimSpace(stderr), "\n") != 0 || stderr == "" {
			t.Errorf("%s: stderr %q is not one line", name, stderr)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: output written", name)
		}
	}
}

// TestDeterministicBytes: the same command and seed write the same bytes
// whatever GOMAXPROCS is.
func TestDeterministicBytes(t *testing.T) {
	dir := t.TempDir()
	var files [][]byte
	for _, procs := range []int{1, 2} {
		prev := runtime.GOMAXPROCS(procs)
		out := filepath.Join(dir, "t.parquet")
		code, stderr := run(t, "--env", "household", "--split", "train", "--tasks", "4", "--group", "3",
			"--policy", "random", "--skills", "--seed", "5", "-o", out)
		runtime.GOMAXPROCS(prev)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, b)
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Error("GOMAXPROCS=1 and 2 wrote different files")
	}
	rows, _, err := table.ReadFiles[table.Trajectory](filepath.Join(dir, "t.parquet"))
	if err != nil || len(rows) != 12 {
		t.Fatalf("read back %d rows: %v", len(rows), err)
	}
	for _, r := range rows {
		if len(r.Slate) != 16 {
			t.Errorf("%s: slate of %d, want 16", r.TaskID, len(r.Slate))
		}
	}
}
