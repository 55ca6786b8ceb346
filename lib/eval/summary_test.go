package eval

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/pats-rl/pats/lib/table"
)

func TestSummarize(t *testing.T) {
	trajs := []table.Trajectory{
		{Env: "household", Split: "valid_seen", Policy: "oracle", TaskType: "b", Success: true, Score: 1, Steps: 4, NTokens: 100, NPolicyTokens: 10,
			Reads: []string{"x"}, ReadsRight: []bool{true}, ReadsMisleading: []bool{false}},
		{TaskType: "b", Success: false, Score: 0.5, Steps: 10, NTokens: 200, NPolicyTokens: 30,
			Reads: []string{"y", "z"}, ReadsRight: []bool{false, false}, ReadsMisleading: []bool{true, true}},
		{TaskType: "a", Success: true, Score: 1, Steps: 1, NTokens: 60, NPolicyTokens: 2},
	}
	got := Summarize(trajs, Labels{Run: "r"})
	zero := int32(0)
	third, twoThirds, half, none := 1.0/3, 2.0/3, 0.5, 0.0
	want := []table.EvalMetrics{
		{Run: "r", Env: "household", Split: "valid_seen", Policy: "oracle", Scope: "all", Episodes: 3,
			Success: 2.0 / 3, Score: 2.5 / 3, Steps: 5, Tokens: 120, PolicyTokens: 14, ReadsPerEp: 1, RightReadRate: &third, MisleadingRate: &twoThirds, MisleadingExposure: &third, Iteration: &zero},
		// no reads: NULL read rates, but an exposure of 0 (a share of episodes)
		{Run: "r", Env: "household", Split: "valid_seen", Policy: "oracle", Scope: "type", TaskType: "a", Episodes: 1,
			Success: 1, Score: 1, Steps: 1, Tokens: 60, PolicyTokens: 2, MisleadingExposure: &none, Iteration: &zero},
		{Run: "r", Env: "household", Split: "valid_seen", Policy: "oracle", Scope: "type", TaskType: "b", Episodes: 2,
			Success: 0.5, Score: 0.75, Steps: 7, Tokens: 150, PolicyTokens: 20, ReadsPerEp: 1.5, RightReadRate: &third, MisleadingRate: &twoThirds, MisleadingExposure: &half, Iteration: &zero},
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("Summarize (-want +got):\n%s", diff)
	}
	var buf bytes.Buffer
	if err := WriteMarkdown(&buf, got); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2+2+3 {
		t.Fatalf("table has %d lines, want 7:\n%s", len(lines), buf.String())
	}
	if !strings.HasPrefix(lines[4], "| **all** | 3 | 0.667 | 0.833 | 5.0 | 120.0 |") {
		t.Errorf("overall line = %q", lines[4])
	}
}

// TestSummarizeExposure: the misleading exposure is a share of episodes:
// 0 for episodes that read nothing (where the read rates are NULL), NULL
// only without episodes; the Markdown prints a NULL exposure as it prints
// the NULL read rates ("-"), as for a row read from an evaluation file
// older than the column.
func TestSummarizeExposure(t *testing.T) {
	noReads := Summarize([]table.Trajectory{{Env: "household", Split: "s", Policy: "oracle", TaskType: "a", Success: true, Score: 1}}, Labels{})
	if m := noReads[0]; m.MisleadingExposure == nil || *m.MisleadingExposure != 0 || m.RightReadRate != nil || m.MisleadingRate != nil {
		t.Errorf("episodes without reads: exposure %v, read rates %v %v; want 0 and NULL, NULL (NaN here)",
			table.OrNaN(m.MisleadingExposure), table.OrNaN(m.RightReadRate), table.OrNaN(m.MisleadingRate))
	}
	empty := Summarize(nil, Labels{Env: "household", Split: "s", Policy: "oracle"})
	if len(empty) != 1 || empty[0].Episodes != 0 {
		t.Fatalf("no episodes: %d rows; want one row without episodes", len(empty))
	}
	if x := empty[0].MisleadingExposure; x != nil {
		t.Errorf("no episodes: exposure %v; want NULL", *x)
	}
	for _, c := range []struct {
		rows []table.EvalMetrics
		want string
	}{
		{noReads[:1], "| **all** | 1 | 1.000 | 1.000 | 0.0 | 0.0 | 0.00 | - | - | 0.000 |"},
		{empty, "| **all** | 0 | 0.000 | 0.000 | 0.0 | 0.0 | 0.00 | - | - | - |"},
	} {
		var buf bytes.Buffer
		if err := WriteMarkdown(&buf, c.rows); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
		if got := lines[len(lines)-1]; got != c.want {
			t.Errorf("markdown row %q, want %q", got, c.want)
		}
	}
}

// TestSummarizeGroups: with --group-by policy,run each source gets its own
// "all" and "type" rows carrying its policy and run; iteration and
// temperature are columns where the row's episodes share them (the
// temperature only for a checkpoint policy), NULL otherwise.
func TestSummarizeGroups(t *testing.T) {
	ck := func(run string, it int32, temp float64, typ string, ok bool) table.Trajectory {
		return table.Trajectory{Env: "household", Split: "s", Policy: "ckpt/1", PolicyHash: "h", Run: run, Iteration: it, Temperature: &temp, TaskType: typ, Success: ok}
	}
	or := func(typ string, ok bool) table.Trajectory {
		return table.Trajectory{Env: "household", Split: "s", Policy: "oracle", Iteration: 3, TaskType: typ, Success: ok}
	}
	trajs := []table.Trajectory{ck("b", 1, 0.4, "x", true), or("x", true), ck("a", 1, 0.4, "x", false), ck("a", 2, 0.4, "y", true), or("y", false)}
	seed := int64(9)
	got := SummarizeGroups(trajs, Labels{Seed: &seed}, []string{ByRun, ByPolicy})
	i1, i2, i3, t4 := int32(1), int32(2), int32(3), 0.4
	type row struct {
		Run, Policy, Scope, TaskType string
		Episodes                     int32
		Success                      float64
		Iteration                    *int32
		Temperature                  *float64
		Seed                         *int64
	}
	want := []row{
		{"", "oracle", "all", "", 2, 0.5, &i3, nil, &seed},
		{"", "oracle", "type", "x", 1, 1, &i3, nil, &seed},
		{"", "oracle", "type", "y", 1, 0, &i3, nil, &seed},
		{"a", "ckpt/1", "all", "", 2, 0.5, nil, &t4, &seed},
		{"a", "ckpt/1", "type", "x", 1, 0, &i1, &t4, &seed},
		{"a", "ckpt/1", "type", "y", 1, 1, &i2, &t4, &seed},
		{"b", "ckpt/1", "all", "", 1, 1, &i1, &t4, &seed},
		{"b", "ckpt/1", "type", "x", 1, 1, &i1, &t4, &seed},
	}
	var gotRows []row
	for _, m := range got {
		gotRows = append(gotRows, row{m.Run, m.Policy, m.Scope, m.TaskType, m.Episodes, m.Success, m.Iteration, m.Temperature, m.Seed})
	}
	if diff := cmp.Diff(want, gotRows); diff != "" {
		t.Errorf("SummarizeGroups (-want +got):\n%s", diff)
	}
	var buf bytes.Buffer
	if err := WriteMarkdown(&buf, got); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), "| task type |"); n != 3 {
		t.Errorf("markdown has %d tables, want one per group (3):\n%s", n, buf.String())
	}
	if _, err := ParseGroupBy("env,seed"); err == nil {
		t.Error("ParseGroupBy accepted seed")
	}
	if by, err := ParseGroupBy("run, env"); err != nil || !cmp.Equal(by, []string{ByEnv, ByRun}) {
		t.Errorf("ParseGroupBy(run, env) = %v, %v", by, err)
	}
}
