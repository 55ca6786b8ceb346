package report

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/pats-rl/pats/lib/table"
)

// TestSweepCredit aggregates credit audits written as RUN/audit/
// credit.parquet over seeds, per variant, horizon and bin, worked out by
// hand: a run without an audit adds nothing, a bin without step keys has
// no coverage, a step-group size of 0 (a file older than the column) is
// missing, a bin without right reads has no negative share; and the table
// shows them. A broken audit file is an error naming it.
func TestSweepCredit(t *testing.T) {
	root := t.TempDir()
	x := func(v float64) *float64 { return &v }
	audits := map[string][]table.CreditAudit{
		"gigpo-s1": {
			{Horizon: "steps", Bin: 0, Lo: 5, Hi: 10, Episodes: 20, Turns: 100, AnchorCoverage: x(0.9), StepGroupSize: x(4)},
			{Horizon: "steps", Bin: 1, Lo: 11, Hi: 50, Episodes: 44, Turns: 2000, AnchorCoverage: x(0.99), StepGroupSize: x(7)},
			{Horizon: "tokens", Bin: 0, Lo: 100, Hi: 900, Episodes: 64, Turns: 2100, AnchorCoverage: x(0.95)},
		},
		"gigpo-s2": {
			{Horizon: "steps", Bin: 0, Lo: 4, Hi: 12, Episodes: 30, Turns: 150, AnchorCoverage: x(0.8), StepGroupSize: x(3)},
			{Horizon: "steps", Bin: 1, Lo: 13, Hi: 50, Episodes: 34, Turns: 1500, AnchorCoverage: x(0.97), StepGroupSize: x(5)},
		},
		"skillgate-s1": {
			{Horizon: "steps", Bin: 0, Lo: 3, Hi: 9, Episodes: 10, SkillNameShare: x(0.25), RightReads: 4, RightNegFrac: x(0)},
		},
	}
	for run, rows := range audits {
		p := filepath.Join(root, run, CreditFile)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := table.WriteFile(p, rows, table.Meta{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(root, "gigpo-s3"), 0o755); err != nil {
		t.Fatal(err)
	}
	var runs []SweepRun
	var got [][]table.CreditAudit
	for _, r := range []struct {
		v string
		s int64
	}{{"gigpo", 1}, {"gigpo", 2}, {"gigpo", 3}, {"skillgate", 1}} {
		dir := RunDir(root, r.v, r.s)
		rows, err := LoadCreditAudit(dir)
		if err != nil {
			t.Fatal(err)
		}
		runs, got = append(runs, SweepRun{Variant: r.v, Seed: r.s, Run: dir}), append(got, rows)
	}
	res := AggregateCredit(runs, got, []string{"skillgate", "gigpo", "grpo"})
	s2 := math.Sqrt2
	f := func(x float64) *float64 { return &x }
	want := []SweepCredit{
		{Variant: "skillgate", Horizon: "steps", Bin: 0, Seeds: 1, Lo: 3, Hi: 9, EpisodesMean: 10, ShareMean: f(0.25), ShareStd: f(0), RightNegMean: f(0), RightNegStd: f(0)},
		// steps 0: coverage 0.9, 0.8 -> 0.85 ± 0.05*sqrt(2); sizes 4, 3 ->
		// 3.5 ± 0.5*sqrt(2); range 4-12 over both runs.
		{Variant: "gigpo", Horizon: "steps", Bin: 0, Seeds: 2, Lo: 4, Hi: 12, EpisodesMean: 25,
			CoverageMean: f(0.85), CoverageStd: f(0.05 * s2), GroupSizeMean: f(3.5), GroupSizeStd: f(0.5 * s2)},
		{Variant: "gigpo", Horizon: "steps", Bin: 1, Seeds: 2, Lo: 11, Hi: 50, EpisodesMean: 39,
			CoverageMean: f(0.98), CoverageStd: f(0.01 * s2), GroupSizeMean: f(6), GroupSizeStd: f(s2)},
		{Variant: "gigpo", Horizon: "tokens", Bin: 0, Seeds: 1, Lo: 100, Hi: 900, EpisodesMean: 64,
			CoverageMean: f(0.95), CoverageStd: f(0)},
	}
	if d := cmp.Diff(want, res, cmpopts.EquateApprox(0, 1e-12), cmpopts.EquateNaNs()); d != "" {
		t.Errorf("aggregated credit (-want +got):\n%s", d)
	}

	var b bytes.Buffer
	WriteCreditMarkdown(&b, res)
	rows := []string{
		"| variant | horizon | bin | range | seeds | episodes/seed | skill-name share | right reads credited < 0 | anchor coverage | mean step-group size |",
		"| skillgate | steps | 0 | 3-9 | 1 | 10.0 | 0.2500 ± 0.0000 | 0.000 ± 0.000 | — | — |",
		"| gigpo | steps | 0 | 4-12 | 2 | 25.0 | — | — | 0.850 ± 0.071 | 3.50 ± 0.71 |",
		"| gigpo | steps | 1 | 11-50 | 2 | 39.0 | — | — | 0.980 ± 0.014 | 6.00 ± 1.41 |",
		"| gigpo | tokens | 0 | 100-900 | 1 | 64.0 | — | — | 0.950 ± 0.000 | — |",
	}
	for _, r := range rows {
		if !strings.Contains(b.String(), r+"\n") {
			t.Errorf("credit table lacks\n%s\nin\n%s", r, b.String())
		}
	}
	b.Reset()
	if WriteCreditMarkdown(&b, nil); b.Len() != 0 {
		t.Errorf("credit table without audits: %q", b.String())
	}

	broken := filepath.Join(root, "gigpo-s3", CreditFile)
	if err := os.MkdirAll(filepath.Dir(broken), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(broken, []byte("not a table"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadCreditAudit(filepath.Join(root, "gigpo-s3")); err == nil || !strings.Contains(err.Error(), broken) {
		t.Errorf("a broken credit audit: %v, want an error naming %s", err, broken)
	}
}
