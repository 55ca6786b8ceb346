package report

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/report"
	"github.com/pats-rl/pats/lib/stage"
	"github.com/pats-rl/pats/lib/table"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// restoreRuns unpacks the named runs of an archived sweep (results/NAME,
// scripts/sweep-archive.sh's RUN.tar.xz) into dir/NAME, without the files
// report sweep does not read (trajectories, advantages, cards, the
// controller's proposals and decisions, metrics, logs).
func restoreRuns(t *testing.T, dir, sweep string, runs ...string) string {
	t.Helper()
	if _, err := exec.LookPath("tar"); err != nil {
		t.Skip("tar not found")
	}
	root := filepath.Join("..", "..", "..", "results", sweep)
	out := filepath.Join(dir, sweep)
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		cmd := exec.Command("tar", "-xJf", filepath.Join(root, r+".tar.xz"), "-C", out,
			"--exclude=*/traj/*", "--exclude=*/adv/*", "--exclude=*/cards/*", "--exclude=*/proposals/*",
			"--exclude=*/decisions/*", "--exclude=*/metrics/*", "--exclude=*/log/*")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("unpack %s/%s: %v\n%s", root, r, err, b)
		}
	}
	return out
}

// sweepOut runs report sweep and returns its Markdown and its result and
// run rows.
func sweepOut(t *testing.T, f SweepOptions) (string, []report.SweepResult, []report.SweepRun) {
	t.Helper()
	dir := t.TempDir()
	f.Output, f.Runs = filepath.Join(dir, "results.parquet"), filepath.Join(dir, "runs.parquet")
	var out bytes.Buffer
	if err := RunSweep(context.Background(), f, stage.Streams{Stdout: &out}); err != nil {
		t.Fatalf("report sweep %v: %v", f.Variants, err)
	}
	res, _, err := table.ReadFiles[report.SweepResult](f.Output)
	if err != nil {
		t.Fatal(err)
	}
	runs, _, err := table.ReadFiles[report.SweepRun](f.Runs)
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), res, runs
}

// TestSweepAcrossFolders reports real runs of three sweep folders in one
// table (issue 33's skillgate and broadcast, the run without a baseline
// and the composed run, seeds 1 and 2, restored from results/): each row
// is the row its own folder's report gives (the label aside), the paired
// tables pair the rows seed for seed across folders, and the Markdown is
// the golden file's (testdata/sweep-across.md; -update rewrites it).
// Two rows of one name and a malformed selector are usage errors.
func TestSweepAcrossFolders(t *testing.T) {
	if testing.Short() {
		t.Skip("unpacks archived runs")
	}
	dir := t.TempDir()
	sg := restoreRuns(t, dir, "sg", "skillgate-s1", "skillgate-s2", "broadcast-s1", "broadcast-s2")
	nb := restoreRuns(t, dir, "sg-nobaseline", "skillgate-s1", "skillgate-s2")
	sgc := restoreRuns(t, dir, "sgc", "pats-skillgate-gigpo-s1", "pats-skillgate-gigpo-s2")
	seeds := []int64{1, 2}
	md, res, runs := sweepOut(t, SweepOptions{Root: sg, Seeds: seeds, Baseline: "broadcast",
		Variants: []string{"broadcast", "skillgate", "skillgate-nobaseline=" + nb + ":skillgate", sgc + ":pats-skillgate-gigpo"}})

	// each row as its own folder reports it
	var want []report.SweepResult
	var wantRuns []report.SweepRun
	for _, c := range []struct{ root, variant, label string }{
		{sg, "broadcast", "broadcast"}, {sg, "skillgate", "skillgate"}, {nb, "skillgate", "skillgate-nobaseline"}, {sgc, "pats-skillgate-gigpo", "pats-skillgate-gigpo"},
	} {
		_, r, rr := sweepOut(t, SweepOptions{Root: c.root, Seeds: seeds, Variants: []string{c.variant}})
		if len(r) != 1 || len(rr) != 2 {
			t.Fatalf("%s in %s: %d rows, %d runs", c.variant, c.root, len(r), len(rr))
		}
		r[0].Variant = c.label
		for i := range rr {
			rr[i].Variant = c.label
		}
		want, wantRuns = append(want, r...), append(wantRuns, rr...)
	}
	if d := cmp.Diff(want, res); d != "" {
		t.Errorf("rows across folders against each folder's own (-want +got):\n%s", d)
	}
	if d := cmp.Diff(wantRuns, runs); d != "" {
		t.Errorf("runs across folders against each folder's own (-want +got):\n%s", d)
	}
	// the composed run's pairs with broadcast, by hand from the run rows
	var ds []float64
	for _, s := range seeds {
		var a, b float64
		for _, r := range runs {
			if r.Seed == s && r.Variant == "pats-skillgate-gigpo" {
				a = r.SeenSuccess
			}
			if r.Seed == s && r.Variant == "broadcast" {
				b = r.SeenSuccess
			}
		}
		ds = append(ds, a-b)
	}
	p := report.PairedDiffs(runs, []string{"broadcast", "pats-skillgate-gigpo"}, "broadcast")
	if len(p) != 1 || p[0].Pairs != 2 || !cmp.Equal(p[0].SeenDiff, (ds[0]+ds[1])/2, cmpopts.EquateApprox(0, 1e-12)) {
		t.Errorf("paired with broadcast: %+v, want 2 pairs of mean %v", p, (ds[0]+ds[1])/2)
	}
	for _, s := range []string{"| skillgate-nobaseline | 2 |", "in skill reads at evaluation", "| pats-skillgate-gigpo | valid_unseen | 2 |"} {
		if !strings.Contains(md, s) {
			t.Errorf("the table lacks %q:\n%s", s, md)
		}
	}

	golden := filepath.Join("testdata", "sweep-across.md")
	if *update {
		if err := os.WriteFile(golden, []byte(md), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(g), md); d != "" {
		t.Errorf("report sweep across folders (-golden +got):\n%s", d)
	}

	for _, c := range []struct {
		variants []string
		msg      string
	}{
		{[]string{"skillgate", nb + ":skillgate"}, `two rows named "skillgate"`},
		{[]string{"x=skillgate"}, "not VARIANT, ROOT:VARIANT or LABEL=ROOT:VARIANT"},
		{[]string{sg + ":"}, "no variant"},
		{[]string{":skillgate"}, "the sweep folder before : is empty"},
	} {
		err := RunSweep(context.Background(), SweepOptions{Root: sg, Seeds: seeds, Variants: c.variants}, stage.Streams{Stdout: &bytes.Buffer{}})
		var u *command.UsageError
		if !errors.As(err, &u) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("--variants %q: got %v, want a usage error with %q", c.variants, err, c.msg)
		}
	}
}
