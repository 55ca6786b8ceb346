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
	want := []table.EvalMetrics{
		{Run: "r", Env: "household", Split: "valid_seen", Policy: "oracle", TaskType: "all", Episodes: 3,
			Success: 2.0 / 3, Score: 2.5 / 3, Steps: 5, Tokens: 120, PolicyTokens: 14, ReadsPerEp: 1, RightReadRate: 1.0 / 3, MisleadingRate: 2.0 / 3, MisleadingExposure: 1.0 / 3},
		{Run: "r", Env: "household", Split: "valid_seen", Policy: "oracle", TaskType: "a", Episodes: 1,
			Success: 1, Score: 1, Steps: 1, Tokens: 60, PolicyTokens: 2},
		{Run: "r", Env: "household", Split: "valid_seen", Policy: "oracle", TaskType: "b", Episodes: 2,
			Success: 0.5, Score: 0.75, Steps: 7, Tokens: 150, PolicyTokens: 20, ReadsPerEp: 1.5, RightReadRate: 1.0 / 3, MisleadingRate: 2.0 / 3, MisleadingExposure: 0.5},
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
