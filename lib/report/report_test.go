package report

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/pats-rl/pats/lib/table"
)

func TestMixGroups(t *testing.T) {
	tr := func(g string, s int32, ok bool) table.Trajectory {
		return table.Trajectory{GroupID: g, Sample: s, Success: ok, TaskID: g, TaskType: "x"}
	}
	oracle := []table.Trajectory{tr("0:a", 0, true), tr("0:a", 1, true), tr("0:b", 0, true)}
	weak := []table.Trajectory{tr("0:a", 0, false), tr("0:b", 0, false), tr("0:b", 1, false)}
	got := MixGroups(oracle, weak)
	want := []struct {
		g  string
		s  int32
		ok bool
	}{{"0:a", 0, true}, {"0:a", 1, true}, {"0:b", 0, true}, {"0:a", 2, false}, {"0:b", 1, false}, {"0:b", 2, false}}
	if len(got) != len(want) {
		t.Fatalf("got %d rows, want %d", len(got), len(want))
	}
	for i, w := range want {
		if got[i].GroupID != w.g || got[i].Sample != w.s || got[i].Success != w.ok {
			t.Errorf("row %d = %s/%d/%v, want %s/%d/%v", i, got[i].GroupID, got[i].Sample, got[i].Success, w.g, w.s, w.ok)
		}
	}
	if oracle[1].Sample != 1 || weak[0].Sample != 0 {
		t.Error("MixGroups changed its inputs")
	}
}

func TestMeanStd(t *testing.T) {
	cases := []struct {
		xs        []float64
		mean, std float64
	}{
		{[]float64{0.5}, 0.5, 0},
		{[]float64{1, 2, 3}, 2, 1},
		{[]float64{0.2, 0.4}, 0.3, math.Sqrt(0.02)},
	}
	for _, c := range cases {
		m, s := MeanStd(c.xs)
		if math.Abs(m-c.mean) > 1e-12 || math.Abs(s-c.std) > 1e-12 {
			t.Errorf("MeanStd(%v) = %v, %v; want %v, %v", c.xs, m, s, c.mean, c.std)
		}
	}
	if m, s := MeanStd(nil); !math.IsNaN(m) || !math.IsNaN(s) {
		t.Errorf("MeanStd(nil) = %v, %v; want NaN", m, s)
	}
}

func TestParseEntry(t *testing.T) {
	cases := []struct {
		in   string
		want Entry
		err  bool
	}{
		{"pats=runs/x", Entry{Label: "pats", Dir: "runs/x", Iteration: -1}, false},
		{"warm-up=runs/x@0", Entry{Label: "warm-up", Dir: "runs/x", Iteration: 0}, false},
		{"keep=runs/x@3+scaffold", Entry{Label: "keep", Dir: "runs/x", Iteration: 3, Scaffold: true}, false},
		{"k=runs/x+scaffold", Entry{Label: "k", Dir: "runs/x", Iteration: -1, Scaffold: true}, false},
		{"runs/x", Entry{}, true},
		{"a=runs/x@-1", Entry{}, true},
		{"a=runs/x@z", Entry{}, true},
		{"=runs/x", Entry{}, true},
	}
	for _, c := range cases {
		got, err := ParseEntry(c.in)
		if (err != nil) != c.err {
			t.Errorf("ParseEntry(%q) error %v, want error %v", c.in, err, c.err)
			continue
		}
		if !c.err && got != c.want {
			t.Errorf("ParseEntry(%q) = %+v, want %+v", c.in, got, c.want)
		}
	}
}

// writeEval writes one evaluation file of a fake run.
func writeEval(t *testing.T, dir string, k int, kind, split string, success, tokens float64) {
	t.Helper()
	writeEvalAll(t, dir, k, kind, table.EvalMetrics{Split: split, Episodes: 10, Success: success, Score: success, Tokens: tokens})
}

// writeEvalAll writes one evaluation file whose overall row is all, beside
// a task-type row with other figures that the report must not read.
func writeEvalAll(t *testing.T, dir string, k int, kind string, all table.EvalMetrics) {
	t.Helper()
	p := filepath.Join(dir, "eval", itoa(k), kind+"-"+all.Split+".parquet")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	all.Scope, all.TaskType = table.ScopeAll, ""
	rows := []table.EvalMetrics{
		all,
		{Split: all.Split, Scope: table.ScopeType, TaskType: "t1", Episodes: 10, Success: 0.99, Tokens: 1, ReadsPerEp: 9, RightReadRate: table.NullNaN(0.99), MisleadingRate: table.NullNaN(0.99)},
	}
	if err := table.WriteFile(p, rows, table.Meta{}); err != nil {
		t.Fatal(err)
	}
}

func itoa(k int) string { return strconv.Itoa(k) }

// fakeRun writes a two-iteration run folder: evaluations at 0 and 2,
// snapshots 0..2, controller states 0..1, rollouts and GRPO metrics.
func fakeRun(t *testing.T, succ float64) string {
	dir := t.TempDir()
	finish(t, dir)
	for _, k := range []int{0, 2} {
		for _, s := range []string{"valid_seen", "valid_unseen"} {
			writeEval(t, dir, k, "bare", s, succ*float64(k), 100)
			writeEval(t, dir, k, "scaffold", s, succ*float64(k)+0.1, 200)
		}
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"snap", "state", "traj", "metrics", "ckpt/0", "ckpt/1"} {
		must(os.MkdirAll(filepath.Join(dir, d), 0o755))
	}
	for k := 0; k <= 2; k++ {
		var items []table.ScaffoldItem
		for i := 0; i <= k; i++ {
			items = append(items, table.ScaffoldItem{ID: "g" + itoa(i), Layer: "general", Text: "x", Tokens: 3})
		}
		items = append(items, table.ScaffoldItem{ID: "t", Layer: "task", TaskType: "t1", Text: "y", Tokens: 5})
		must(table.WriteFile(filepath.Join(dir, "snap", itoa(k)+".parquet"), items, table.Meta{}))
	}
	for k := 0; k < 2; k++ {
		st := []table.ControllerState{{TaskType: "", Primitive: "EXPAND"}, {TaskType: "t1", Primitive: []string{"EXPAND", "REVISE"}[k]}}
		must(table.WriteFile(filepath.Join(dir, "state", itoa(k)+".parquet"), st, table.Meta{}))
	}
	// groups: a (a success and a failure), b (one failure: all-failure),
	// c (one success): two of three with equal rewards
	trajs := []table.Trajectory{{GroupID: "a", Success: true, Reward: 1}, {GroupID: "a", Sample: 1}, {GroupID: "b"}, {GroupID: "c", Success: true, Reward: 1}}
	must(table.WriteFile(filepath.Join(dir, "traj", "0.parquet"), trajs, table.Meta{}))
	f := func(x float64) *float64 { return &x }
	n := func(x int32) *int32 { return &x }
	m := []table.TrainMetrics{{Phase: "grpo", Loss: 1, KL: f(0.1), Groups: n(8), ZeroVarGroups: n(3)}, {Phase: "grpo", Loss: 3, KL: f(0.3), Groups: n(8), ZeroVarGroups: n(3)}}
	must(table.WriteFile(filepath.Join(dir, "metrics", "grpo-0.parquet"), m, table.Meta{}))
	must(os.WriteFile(filepath.Join(dir, "ckpt", "0", "config.json"), []byte("{}"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "ckpt", "1", "config.json"), []byte("{}"), 0o644))
	return dir
}

func TestLoadAndTables(t *testing.T) {
	dir := fakeRun(t, 0.25)
	r, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Evals) != 8 || r.LastEval() != 2 {
		t.Fatalf("%d evaluations, last %d; want 8, 2", len(r.Evals), r.LastEval())
	}
	e, ok := r.Find(-1, true, "valid_unseen")
	if !ok || math.Abs(e.Metrics.Success-0.6) > 1e-12 {
		t.Errorf("final scaffold valid_unseen = %+v, %v; want success 0.6", e, ok)
	}
	if len(r.Snaps) != 3 || r.Snaps[2].LayerItems["general"] != 3 || r.Snaps[2].Tokens != 14 {
		t.Errorf("snapshots %+v", r.Snaps)
	}
	var b bytes.Buffer
	WriteRunMarkdown(&b, r)
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 4 || lines[3] != "| 2 | 0.500 | 0.600 | 0.500 | 0.600 | 100 | 200 |" {
		t.Errorf("run table:\n%s", b.String())
	}
	b.Reset()
	es := []Entry{{Label: "w", Dir: dir, Iteration: 0}, {Label: "f", Dir: dir, Iteration: -1, Scaffold: true}}
	if err := WriteCompareMarkdown(&b, es, []string{"valid_seen", "valid_unseen"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "| w | no scaffold | "+dir+"/ckpt/0 | 0.000 (10) | 0.000 (10) | 0.000 | 100 |") ||
		!strings.Contains(b.String(), "| f | scaffold | "+dir+"/ckpt/2 | 0.600 (10) | 0.600 (10) | 0.600 | 200 |") {
		t.Errorf("compare table:\n%s", b.String())
	}
	if err := WriteCompareMarkdown(&b, []Entry{{Label: "x", Dir: dir, Iteration: 1}}, []string{"valid_seen"}); err == nil {
		t.Error("comparing an unevaluated iteration: no error")
	}
}

func TestIteration(t *testing.T) {
	dir := fakeRun(t, 0.25)
	s, err := Iteration(dir, 0, filepath.Join(dir, "snap", "0.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Episodes != 4 || s.Success != 0.5 || s.Items != 2 || s.NextItems != 3 || s.Loss != 2 || math.Abs(s.KL-0.2) > 1e-12 {
		t.Errorf("stats %+v", s)
	}
	line := s.String()
	if s.Groups != 3 || s.ZeroVarGroups != 2 || s.AllFail != 1 {
		t.Errorf("groups %d, zero-variance %d, all-failure %d; want 3, 2, 1", s.Groups, s.ZeroVarGroups, s.AllFail)
	}
	for _, want := range []string{"iteration 0:", "success 0.500 (4 episodes)", "scaffold 2 items 8 tok -> 3 items 11 tok", "loss 2.0000",
		"zero-variance groups 2/3 (0.67; all-failure 1)", "control EXPAND 2 REVISE 0 COMPRESS 0 FORCED_PRUNE 0 NONE 0"} {
		if !strings.Contains(line, want) {
			t.Errorf("line %q lacks %q", line, want)
		}
	}
	if _, err := Iteration(dir, 1, ""); err == nil {
		t.Error("iteration without rollouts: no error")
	}
}

func TestSweep(t *testing.T) {
	root := t.TempDir()
	for i, seed := range []int64{1, 2} {
		src := fakeRun(t, 0.1*float64(i+1))
		if err := os.Rename(src, RunDir(root, "pats", seed)); err != nil {
			t.Fatal(err)
		}
	}
	if RunDir(root, "keep", 1) != RunDir(root, "pats", 1) {
		t.Error("keep does not read the pats run")
	}
	var runs []SweepRun
	for _, v := range []string{"pats", "keep"} {
		for _, s := range []int64{1, 2} {
			r, err := LoadSweepRun(RunDir(root, v, s), v, s)
			if err != nil {
				t.Fatal(err)
			}
			runs = append(runs, r)
		}
	}
	res := Aggregate(runs, []string{"pats", "keep", "grpo"})
	if len(res) != 2 {
		t.Fatalf("%d results, want 2 (grpo has no runs)", len(res))
	}
	p, k := res[0], res[1]
	if math.Abs(p.SeenMean-0.3) > 1e-12 || math.Abs(p.SeenStd-math.Sqrt(0.02)) > 1e-12 || p.PaperSuccess == nil || *p.PaperSuccess != 80.71 {
		t.Errorf("pats %+v", p)
	}
	if !k.Scaffold || math.Abs(k.SeenMean-0.4) > 1e-12 || k.PaperSuccess != nil || k.TokensMean != 200 {
		t.Errorf("keep %+v", k)
	}
	var b bytes.Buffer
	WriteSweepMarkdown(&b, res, []string{"grpo seed 1"})
	out := b.String()
	for _, want := range []string{"| pats | 2 | none | 30.0 ± 14.1 | 30.0 ± 14.1 | 0.300 ± 0.141 | 100 ± 0 | 80.71 (full PATS) |",
		"| keep | 2 | scaffold | 40.0 ± 14.1 |", "their figure, not ours", "Not finished (left out): grpo seed 1"} {
		if !strings.Contains(out, want) {
			t.Errorf("sweep table lacks %q:\n%s", want, out)
		}
	}
	if _, err := LoadSweepRun(filepath.Join(root, "nothing"), "pats", 1); err == nil {
		t.Error("a missing run loads without error")
	}
	// A run under way has evaluated its ckpt/0 but written no summary: it
	// is not finished, and its ckpt/0 is not a final figure.
	running := RunDir(root, "grpo", 1)
	for _, s := range []string{"valid_seen", "valid_unseen"} {
		writeEval(t, running, 0, "bare", s, 0.5, 100)
	}
	if _, err := LoadSweepRun(running, "grpo", 1); err == nil || !strings.Contains(err.Error(), "not finished") {
		t.Errorf("a run without its summary: %v", err)
	}
}

// finish writes the summary that marks a run folder finished.
func finish(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, SummaryFile), []byte("summary\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestPlots(t *testing.T) {
	dir := fakeRun(t, 0.25)
	r, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	paths, err := Plots(r, out)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 4 || filepath.Base(paths[2]) != "zero-variance.png" {
		t.Fatalf("plots %v, want success, scaffold, zero-variance and primitives", paths)
	}
	if zv, err := zeroVariance(dir); err != nil || len(zv) != 1 || zv[0].Y != 3.0/8 {
		t.Errorf("zero-variance shares %v, %v; want 3/8 at iteration 0", zv, err)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil || len(b) < 1000 || !bytes.HasPrefix(b, []byte("\x89PNG")) {
			t.Errorf("%s: not a PNG (%d bytes, %v)", p, len(b), err)
		}
	}
	// A run without a scaffold has only the success plot.
	bare := &Run{Evals: r.Evals, States: map[int][]table.ControllerState{}}
	paths, err = Plots(bare, t.TempDir())
	if err != nil || len(paths) != 1 {
		t.Errorf("plots of a run without scaffold: %v, %v", paths, err)
	}
}

// TestSweepReads checks the skill reads of a sweep: per run as the final
// evaluations hold them, over seeds (the shares over the seeds that read),
// and the second Markdown table, printed only when some variant read.
func TestSweepReads(t *testing.T) {
	root := t.TempDir()
	type split struct{ reads, right, misleading, exposure float64 }
	// Final (iteration 3) zero-scaffold evaluations; an earlier one and the
	// scaffold ones carry other figures that must not be read.
	final := map[string][2]split{ // run folder -> valid_seen, valid_unseen
		"skillgate-s1": {{2, 0.5, 0.25, 0.4}, {3, 0.4, 0.2, 0.5}},
		"skillgate-s2": {{4, 0.7, 0.15, 0.2}, {0, 0, 0, 0}},
		"broadcast-s1": {{0, 0, 0, 0}, {0, 0, 0, 0}},
		"broadcast-s2": {{0, 0, 0, 0}, {0, 0, 0, 0}},
	}
	for run, sp := range final {
		dir := filepath.Join(root, run)
		finish(t, dir)
		for i, name := range []string{"valid_seen", "valid_unseen"} {
			m := table.EvalMetrics{Split: name, Episodes: 10, Success: 0.5, Score: 0.5, Tokens: 100,
				ReadsPerEp: sp[i].reads, RightReadRate: table.NullNaN(sp[i].right), MisleadingRate: table.NullNaN(sp[i].misleading), MisleadingExposure: table.NullNaN(sp[i].exposure)}
			writeEvalAll(t, dir, 3, "bare", m)
			other := table.EvalMetrics{Split: name, Episodes: 10, ReadsPerEp: 7, RightReadRate: table.NullNaN(0.9), MisleadingRate: table.NullNaN(0.05), MisleadingExposure: table.NullNaN(0.3)}
			writeEvalAll(t, dir, 1, "bare", other)
			writeEvalAll(t, dir, 3, "scaffold", other)
		}
	}
	var runs []SweepRun
	for _, v := range []string{"skillgate", "broadcast"} {
		for _, s := range []int64{1, 2} {
			r, err := LoadSweepRun(RunDir(root, v, s), v, s)
			if err != nil {
				t.Fatal(err)
			}
			runs = append(runs, r)
		}
	}
	// A split without reads has NULL shares (NaN here), not 0.
	type reads struct{ SeenReads, SeenRight, SeenMis, SeenExpo, UnseenReads, UnseenRight, UnseenMis, UnseenExpo float64 }
	var gotRuns []reads
	for _, r := range runs {
		gotRuns = append(gotRuns, reads{r.SeenReads, table.OrNaN(r.SeenRightReads), table.OrNaN(r.SeenMisleading), table.OrNaN(r.SeenExposure),
			r.UnseenReads, table.OrNaN(r.UnseenRightReads), table.OrNaN(r.UnseenMisleading), table.OrNaN(r.UnseenExposure)})
	}
	nan := math.NaN()
	none := reads{0, nan, nan, 0, 0, nan, nan, 0}
	wantRuns := []reads{{2, 0.5, 0.25, 0.4, 3, 0.4, 0.2, 0.5}, {4, 0.7, 0.15, 0.2, 0, nan, nan, 0}, none, none}
	if d := cmp.Diff(wantRuns, gotRuns, cmpopts.EquateNaNs()); d != "" {
		t.Errorf("per-run reads (-want +got):\n%s", d)
	}

	res := Aggregate(runs, []string{"skillgate", "broadcast"})
	f := func(x float64) *float64 { return &x }
	// skillgate, valid_seen: reads 2 and 4 -> 3 ± sqrt(2); right 0.5 and 0.7
	// -> 0.6 ± 0.1*sqrt(2); misleading 0.25 and 0.15 -> 0.2 ± 0.05*sqrt(2).
	// valid_unseen: reads 3 and 0 -> 1.5 ± 1.5*sqrt(2); only seed 1 read,
	// so the shares are its own, 0.4 and 0.2, with deviation 0. Exposure
	// is per episode, over every seed: 0.4 and 0.2 -> 0.3 ± 0.1*sqrt(2);
	// 0.5 and 0 -> 0.25 ± 0.25*sqrt(2).
	want := []SweepResult{
		{Variant: "skillgate", Seeds: 2, SeenMean: 0.5, UnseenMean: 0.5, ScoreMean: 0.5, TokensMean: 100,
			SeenReadsMean: 3, SeenReadsStd: math.Sqrt2, SeenReadSeeds: 2,
			SeenRightReadsMean: f(0.6), SeenRightReadsStd: f(0.1 * math.Sqrt2), SeenMisleadingMean: f(0.2), SeenMisleadingStd: f(0.05 * math.Sqrt2),
			UnseenReadsMean: 1.5, UnseenReadsStd: 1.5 * math.Sqrt2, UnseenReadSeeds: 1,
			UnseenRightReadsMean: f(0.4), UnseenRightReadsStd: f(0), UnseenMisleadingMean: f(0.2), UnseenMisleadingStd: f(0),
			SeenExposureMean: f(0.3), SeenExposureStd: f(0.1 * math.Sqrt2), UnseenExposureMean: f(0.25), UnseenExposureStd: f(0.25 * math.Sqrt2),
			SeenExposureSeeds: 2, UnseenExposureSeeds: 2,
			// the scaffold evaluations at iteration 3: success 0, tokens 0
			ReattachSeeds: 2, ReattachSeenMean: f(0), ReattachSeenStd: f(0), ReattachUnseenMean: f(0), ReattachUnseenStd: f(0), ReattachTokensMean: f(0), ReattachTokensStd: f(0)},
		// no reads: NULL shares, but an exposure of 0; no paper figure for
		// either: NULL
		{Variant: "broadcast", Seeds: 2, SeenMean: 0.5, UnseenMean: 0.5, ScoreMean: 0.5, TokensMean: 100,
			SeenExposureMean: f(0), SeenExposureStd: f(0), UnseenExposureMean: f(0), UnseenExposureStd: f(0), SeenExposureSeeds: 2, UnseenExposureSeeds: 2,
			ReattachSeeds: 2, ReattachSeenMean: f(0), ReattachSeenStd: f(0), ReattachUnseenMean: f(0), ReattachUnseenStd: f(0), ReattachTokensMean: f(0), ReattachTokensStd: f(0)},
	}
	approx := cmp.Options{cmpopts.EquateApprox(0, 1e-12)}
	if d := cmp.Diff(want, res, approx); d != "" {
		t.Errorf("aggregated reads (-want +got):\n%s", d)
	}

	// Both kinds survive a Parquet round trip at schema version 6, the
	// absent values stored as NULLs.
	p := filepath.Join(t.TempDir(), "results.parquet")
	if err := table.WriteFile(p, res, table.Meta{}); err != nil {
		t.Fatal(err)
	}
	back, metas, err := table.ReadFiles[SweepResult](p)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(res, back, approx); d != "" {
		t.Errorf("sweep_result round trip (-wrote +read):\n%s", d)
	}
	if metas[0].Kind != "sweep_result" || metas[0].SchemaVersion != 6 {
		t.Errorf("metadata %s version %d, want sweep_result version 6", metas[0].Kind, metas[0].SchemaVersion)
	}
	if d := cmp.Diff(map[string]int64{"paper_success": 2, "paper_variant": 2, "seen_right_reads_mean": 1, "unseen_misleading_reads_std": 1, "reattach_seen_mean": 0, "seen_mean": 0},
		nullCounts(t, p, "paper_success", "paper_variant", "seen_right_reads_mean", "unseen_misleading_reads_std", "reattach_seen_mean", "seen_mean")); d != "" {
		t.Errorf("sweep_result NULL counts (-want +got):\n%s", d)
	}
	p = filepath.Join(t.TempDir(), "runs.parquet")
	if err := table.WriteFile(p, runs, table.Meta{}); err != nil {
		t.Fatal(err)
	}
	backRuns, metas, err := table.ReadFiles[SweepRun](p)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(runs, backRuns); d != "" {
		t.Errorf("sweep_run round trip (-wrote +read):\n%s", d)
	}
	if metas[0].Kind != "sweep_run" || metas[0].SchemaVersion != 6 {
		t.Errorf("metadata %s version %d, want sweep_run version 6", metas[0].Kind, metas[0].SchemaVersion)
	}
	if d := cmp.Diff(map[string]int64{"seen_right_reads": 2, "seen_misleading_reads": 2, "unseen_right_reads": 3, "unseen_misleading_reads": 3, "reattach_seen_success": 0, "seen_reads": 0},
		nullCounts(t, p, "seen_right_reads", "seen_misleading_reads", "unseen_right_reads", "unseen_misleading_reads", "reattach_seen_success", "seen_reads")); d != "" {
		t.Errorf("sweep_run NULL counts (-want +got):\n%s", d)
	}

	first := "| variant | seeds | eval context | valid_seen success % | valid_unseen success % | score | tokens/episode | PATS paper, 1.5B ALFWorld success % (their figure, not ours) |\n" +
		"| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |\n" +
		"| skillgate | 2 | none | 50.0 ± 0.0 | 50.0 ± 0.0 | 0.500 ± 0.000 | 100 ± 0 | — |\n" +
		"| broadcast | 2 | none | 50.0 ± 0.0 | 50.0 ± 0.0 | 0.500 ± 0.000 | 100 ± 0 | — |\n"
	second := "\nSkill reads of the same evaluations (variants that read), beside success: reads per episode, right reads in percent of all reads, misleading exposure in percent of episodes (episodes that read at least one misleading skill, SkillGate's exposure) and misleading reads in percent of all reads.\n\n" +
		"| variant | split | seeds | success % | reads/episode | right reads % of reads | misleading exposure % of episodes | misleading reads % of reads |\n" +
		"| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n" +
		"| skillgate | valid_seen | 2 | 50.0 ± 0.0 | 3.00 ± 1.41 | 60.0 ± 14.1 | 30.0 ± 14.1 | 20.0 ± 7.1 |\n" +
		"| skillgate | valid_unseen | 2 | 50.0 ± 0.0 | 1.50 ± 2.12 | 40.0 ± 0.0 (1 of 2 seeds) | 25.0 ± 35.4 | 20.0 ± 0.0 (1 of 2 seeds) |\n"
	// broadcast read nothing in these fixtures: no row in the reads table.
	broadcastOnly := strings.Replace(first, "| skillgate | 2 | none | 50.0 ± 0.0 | 50.0 ± 0.0 | 0.500 ± 0.000 | 100 ± 0 | — |\n", "", 1)
	missing := "\nNot finished (left out): skillgate seed 3\n"
	cases := []struct {
		name    string
		res     []SweepResult
		missing []string
		want    string
	}{
		{"reads", res, nil, first + second},
		{"reads, partial", res, []string{"skillgate seed 3"}, first + second + missing},
		{"no reads", res[1:], nil, broadcastOnly},
		{"no reads, partial", res[1:], []string{"skillgate seed 3"}, broadcastOnly + missing},
	}
	for _, c := range cases {
		var b bytes.Buffer
		WriteSweepMarkdown(&b, c.res, c.missing)
		if d := cmp.Diff(c.want, b.String()); d != "" {
			t.Errorf("%s: sweep Markdown (-want +got):\n%s", c.name, d)
		}
	}
}

// TestTrainingTable: one row per rolled-out iteration with the zero-variance
// and all-failure shares of its groups and the controller's primitives.
func TestTrainingTable(t *testing.T) {
	dir := fakeRun(t, 0.25)
	var b bytes.Buffer
	if err := WriteTrainingMarkdown(&b, dir); err != nil {
		t.Fatal(err)
	}
	want := "| iteration | training success | groups | zero-variance share | all-failure share | EXPAND | REVISE | COMPRESS | FORCED_PRUNE | NONE |\n" +
		"| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n" +
		"| 0 | 0.500 | 3 | 0.667 | 0.333 | 2 | 0 | 0 | 0 | 0 |\n"
	if d := cmp.Diff(want, b.String()); d != "" {
		t.Errorf("training table (-want +got):\n%s", d)
	}
	b.Reset()
	if err := WriteTrainingMarkdown(&b, t.TempDir()); err != nil || b.Len() != 0 {
		t.Errorf("a folder without rollouts: %q, %v", b.String(), err)
	}
}

// TestPairedDiffs: per-seed differences from the baseline, their mean and
// a percentile bootstrap interval; a variant without a common seed is
// left out, and the interval repeats exactly.
func TestPairedDiffs(t *testing.T) {
	run := func(v string, seed int64, seen, unseen, tok float64) SweepRun {
		return SweepRun{Variant: v, Seed: seed, SeenSuccess: seen, UnseenSucc: unseen, Tokens: tok}
	}
	runs := []SweepRun{
		run("grpo", 1, 0.5, 0.4, 100), run("grpo", 2, 0.6, 0.5, 110), run("grpo", 3, 0.7, 0.6, 120),
		run("same", 1, 0.5, 0.4, 100), run("same", 2, 0.6, 0.5, 110), run("same", 3, 0.7, 0.6, 120),
		run("up", 1, 0.6, 0.5, 90), run("up", 2, 0.7, 0.6, 100), run("up", 3, 0.8, 0.7, 110),
		run("mixed", 1, 0.5, 0.4, 100), run("mixed", 2, 0.8, 0.5, 110),
		run("alone", 9, 0.9, 0.9, 1),
	}
	got := PairedDiffs(runs, []string{"grpo", "same", "up", "mixed", "alone"}, "grpo")
	approx := cmpopts.EquateApprox(0, 1e-9)
	want := []Paired{
		{Variant: "same", Baseline: "grpo", Pairs: 3},
		{Variant: "up", Baseline: "grpo", Pairs: 3, SeenDiff: 0.1, SeenLo: 0.1, SeenHi: 0.1, UnseenDiff: 0.1, UnseenLo: 0.1, UnseenHi: 0.1, TokensDiff: -10, TokensLo: -10, TokensHi: -10},
		// differences 0 and 0.2: mean 0.1; with 10,000 resamples of two
		// pairs both extremes (a quarter of the resamples each) are inside
		{Variant: "mixed", Baseline: "grpo", Pairs: 2, SeenDiff: 0.1, SeenLo: 0, SeenHi: 0.2},
	}
	if d := cmp.Diff(want, got, approx); d != "" {
		t.Errorf("paired differences (-want +got):\n%s", d)
	}
	if d := cmp.Diff(got, PairedDiffs(runs, []string{"grpo", "same", "up", "mixed", "alone"}, "grpo")); d != "" {
		t.Errorf("the bootstrap does not repeat:\n%s", d)
	}
	var b bytes.Buffer
	WritePairedMarkdown(&b, got[1:2])
	if !strings.Contains(b.String(), "| up | 3 | +10.0 [+10.0, +10.0] | +10.0 [+10.0, +10.0] | -10 [-10, -10] |") {
		t.Errorf("paired table:\n%s", b.String())
	}
}

func TestSummariseGroups(t *testing.T) {
	dir := fakeRun(t, 0.25)
	g, err := SummariseGroups(filepath.Join(dir, "traj", "0.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "episodes 4, success 0.500 | groups 3, zero-variance 2 (0.667), all-failure 1 (0.333)"; g.String() != want {
		t.Errorf("got %q, want %q", g.String(), want)
	}
}

// TestPairedReadDiffs: per-seed differences from the baseline in the skill
// reads of the same evaluations: reads per episode over every pair, the
// misleading exposure over the pairs whose evaluations both have it (an
// older file's NULL leaves its pair out), the right reads' share over the
// pairs that both read; a variant whose pairs never read and one without
// a common seed are left out.
func TestPairedReadDiffs(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	run := func(v string, seed int64, reads, right, expo float64) SweepRun {
		r := SweepRun{Variant: v, Seed: seed, SeenReads: reads, UnseenReads: reads, SeenRightReads: f(right), UnseenRightReads: f(right),
			SeenExposure: f(expo), UnseenExposure: f(expo)}
		if reads == 0 {
			r.SeenRightReads, r.UnseenRightReads = nil, nil
		}
		return r
	}
	old := run("sg", 3, 1.0, 0.5, 0)
	old.SeenExposure, old.UnseenExposure = nil, nil
	runs := []SweepRun{
		run("bc", 1, 1.0, 0.5, 0.2), run("bc", 2, 1.2, 0.6, 0.1), run("bc", 3, 1.0, 0.5, 0.3),
		run("sg", 1, 0.9, 0.7, 0.1), run("sg", 2, 1.1, 0.8, 0.0), old,
		run("none", 1, 0, 0, 0), // reads 0 against 1.0: its right share has no pair
		run("alone", 9, 1, 1, 0),
	}
	got := PairedReadDiffs(runs, []string{"bc", "sg", "none", "alone"}, "bc")
	approx := cmpopts.EquateApprox(0, 1e-9)
	same := func(d float64, n int) PairedStat { return PairedStat{N: n, Diff: d, Lo: d, Hi: d} }
	want := []PairedReads{
		// reads -0.1, -0.1, 0; exposure -0.1, -0.1 (seed 3 has none);
		// right +0.2, +0.2, 0
		{Variant: "sg", Baseline: "bc", Pairs: 3,
			Exposure: [2]PairedStat{same(-0.1, 2), same(-0.1, 2)}},
		{Variant: "none", Baseline: "bc", Pairs: 1,
			Reads: [2]PairedStat{same(-1, 1), same(-1, 1)}, Exposure: [2]PairedStat{same(-0.2, 1), same(-0.2, 1)}},
	}
	// the three-pair means with their bootstrap intervals, as computed
	for i := range 2 {
		m, lo, hi := bootstrapMean([]float64{-0.1, -0.1, 0})
		want[0].Reads[i] = PairedStat{N: 3, Diff: m, Lo: lo, Hi: hi}
		m, lo, hi = bootstrapMean([]float64{0.2, 0.2, 0})
		want[0].Right[i] = PairedStat{N: 3, Diff: m, Lo: lo, Hi: hi}
	}
	if d := cmp.Diff(want, got, approx); d != "" {
		t.Errorf("paired read differences (-want +got):\n%s", d)
	}
	if r := want[0].Reads[0]; math.Abs(r.Diff+0.2/3) > 1e-9 || math.Abs(r.Lo+0.1) > 1e-9 || math.Abs(r.Hi) > 1e-9 {
		t.Errorf("reads: mean %v [%v, %v], want -0.0667 [-0.1, 0]", r.Diff, r.Lo, r.Hi)
	}
	var b bytes.Buffer
	WritePairedReadsMarkdown(&b, got)
	for _, row := range []string{
		"| sg | 3 | -0.07 [-0.10, +0.00] | -0.07 [-0.10, +0.00] | -10.0 [-10.0, -10.0] (2 pairs) | -10.0 [-10.0, -10.0] (2 pairs) | +13.3 [+0.0, +20.0] | +13.3 [+0.0, +20.0] |",
		"| none | 1 | -1.00 [-1.00, -1.00] | -1.00 [-1.00, -1.00] | -20.0 [-20.0, -20.0] | -20.0 [-20.0, -20.0] | — | — |",
	} {
		if !strings.Contains(b.String(), row) {
			t.Errorf("paired reads table lacks\n%s\nin\n%s", row, b.String())
		}
	}
	if got := PairedReadDiffs([]SweepRun{run("bc", 1, 0, 0, 0), run("x", 1, 0, 0, 0)}, []string{"bc", "x"}, "bc"); len(got) != 0 {
		t.Errorf("no reads on either side: want no row, got %+v", got)
	}
}
