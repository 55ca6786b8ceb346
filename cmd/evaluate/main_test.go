package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/table"
)

func run(t *testing.T, args ...string) (code int, stderr string) {
	t.Helper()
	var e bytes.Buffer
	code = command.Run(app(), append([]string{"evaluate"}, args...), &e)
	return code, e.String()
}

// TestBadInput: every bad input file gets exit 2, one line naming the file,
// and no output file.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := filepath.Join(dir, "good.parquet")
	rows := []table.Trajectory{{TaskID: "t", TaskType: "a", Success: true, Tokens: []int32{1, 2}, Roles: []int8{0, 6}, Logprobs: []float32{0, -1}}}
	if err := table.WriteFile(good, rows, table.Meta{Kind: "trajectory"}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(good)
	metrics := filepath.Join(dir, "metrics.parquet")
	if err := table.WriteFile(metrics, []table.EvalMetrics{{Scope: table.ScopeAll}}, table.Meta{Kind: "eval_metrics"}); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		"missing":   filepath.Join(dir, "nope.parquet"),
		"empty":     write("empty.parquet", nil),
		"truncated": write("trunc.parquet", data[:len(data)/2]),
		"text":      write("notes.parquet", []byte("task_id,success\nt,1\n")),
		"otherkind": metrics,
	}
	for name, in := range cases {
		out := filepath.Join(dir, name+"-out.parquet")
		code, stderr := run(t, in, "-o", out)
		if code != command.ExitUsage {
			t.Errorf("%s: exit %d, want 2 (stderr %q)", name, code, stderr)
		}
		if strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, in) {
			t.Errorf("%s: stderr %q is not one line naming %s", name, stderr, in)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: output file written despite the error", name)
		}
	}
	code, stderr := run(t, good, "-o", filepath.Join(dir, "ok.parquet"))
	if code != 0 {
		t.Fatalf("good input: exit %d: %s", code, stderr)
	}
	back, _, err := table.ReadFiles[table.EvalMetrics](filepath.Join(dir, "ok.parquet"))
	if err != nil || len(back) != 2 || back[0].Success != 1 {
		t.Errorf("metrics read back: %v %+v", err, back)
	}
}
