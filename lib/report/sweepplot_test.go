package report

import (
	"bytes"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/pats-rl/pats/lib/table"
)

// writeAudit writes RUN/audit/scaffold-trajK.parquet with one row per
// checkpoint iteration and its gap (NaN: NULL, no scored tokens).
func writeAudit(t *testing.T, dir string, k int, gaps map[int]float64) {
	t.Helper()
	var rows []table.ScaffoldAudit
	for i := 0; i <= 4; i++ {
		if g, ok := gaps[i]; ok {
			rows = append(rows, table.ScaffoldAudit{Checkpoint: filepath.Join(dir, "ckpt", itoa(i)), Index: int32(len(rows)), Gap: table.NullNaN(g)})
		}
	}
	p := filepath.Join(dir, "audit", "scaffold-traj"+itoa(k)+".parquet")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := table.WriteFile(p, rows, table.Meta{}); err != nil {
		t.Fatal(err)
	}
}

// sweepFixture writes a sweep folder: pats and grpo, seeds 1 and 2 (fakeRun
// runs of different success; the grpo runs without a scaffold), scaffold
// audits on the pats runs when audits is set, and a warm-up folder that
// is not a run of the sweep.
func sweepFixture(t *testing.T, audits bool) string {
	t.Helper()
	root := t.TempDir()
	for i, v := range []string{"pats", "grpo"} {
		for _, seed := range []int64{1, 2} {
			dir := RunDir(root, v, seed)
			if err := os.Rename(fakeRun(t, 0.1*float64(seed)+0.05*float64(i)), dir); err != nil {
				t.Fatal(err)
			}
			groups, zv := int32(8), int32(seed+2*int64(i))
			m := []table.TrainMetrics{{Phase: "grpo", Groups: &groups, ZeroVarGroups: &zv}}
			if err := table.WriteFile(filepath.Join(dir, "metrics", "grpo-1.parquet"), m, table.Meta{}); err != nil {
				t.Fatal(err)
			}
			if v == "grpo" {
				for _, d := range []string{"snap", "state"} {
					os.RemoveAll(filepath.Join(dir, d))
				}
				for _, k := range []string{"0", "2"} {
					os.Remove(filepath.Join(dir, "eval", k, "scaffold-valid_seen.parquet"))
					os.Remove(filepath.Join(dir, "eval", k, "scaffold-valid_unseen.parquet"))
				}
			}
			if v == "pats" && audits {
				s := float64(seed)
				writeAudit(t, dir, 1, map[int]float64{0: 0.5 * s, 2: 0.25 * s, 4: 0.1 * s})
				// seed 2 scored no token at checkpoint 4 of the late audit
				late4 := map[int64]float64{1: 0.2, 2: math.NaN()}[seed]
				writeAudit(t, dir, 3, map[int]float64{0: 0.4 * s, 2: 0.3 * s, 4: late4})
			}
		}
	}
	if err := os.MkdirAll(filepath.Join(root, "warmup-format-s1", "ckpt", "0"), 0o755); err != nil {
		t.Fatal(err)
	}
	return root
}

var sweepRefsFixture = []SweepRunRef{{"pats", 1}, {"pats", 2}, {"keep", 1}, {"keep", 2}, {"grpo", 1}, {"grpo", 2}}

// last is the last point of a variant's series with the label.
func last(t *testing.T, ss []Series, variant, label string) Point {
	t.Helper()
	for _, s := range ss {
		if s.Variant == variant && s.Label == label {
			return s.Points[len(s.Points)-1]
		}
	}
	t.Fatalf("no series %s %q", variant, label)
	return Point{}
}

// TestSweepPlotSeries: the success lines end where report sweep's table
// is (the same mean and sample sd over seeds of the final evaluation,
// with and without the scaffold, keep reading the pats runs' scaffold
// evaluations), and the zero-variance, scaffold and NLL-gap lines are the
// mean and sd over seeds of what the runs' own plots draw.
func TestSweepPlotSeries(t *testing.T) {
	root := sweepFixture(t, true)
	d, err := LoadSweepPlots(root, sweepRefsFixture)
	if err != nil {
		t.Fatal(err)
	}
	var runs []SweepRun
	for _, r := range sweepRefsFixture {
		sr, err := LoadSweepRun(RunDir(root, r.Variant, r.Seed), r.Variant, r.Seed)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, sr)
	}
	res := map[string]SweepResult{}
	for _, r := range Aggregate(runs, []string{"pats", "keep", "grpo"}) {
		res[r.Variant] = r
	}
	approx := cmpopts.EquateApprox(0, 1e-12)
	cases := []struct {
		variant, label string
		want           func(SweepResult) Point
	}{
		{"pats", "valid_seen", func(r SweepResult) Point { return Point{2, r.SeenMean, r.SeenStd, 2} }},
		{"pats", "valid_unseen", func(r SweepResult) Point { return Point{2, r.UnseenMean, r.UnseenStd, 2} }},
		{"pats", "valid_seen, scaffold", func(r SweepResult) Point { return Point{2, *r.ReattachSeenMean, *r.ReattachSeenStd, 2} }},
		{"pats", "valid_unseen, scaffold", func(r SweepResult) Point { return Point{2, *r.ReattachUnseenMean, *r.ReattachUnseenStd, 2} }},
		{"keep", "valid_seen, scaffold", func(r SweepResult) Point { return Point{2, r.SeenMean, r.SeenStd, 2} }},
		{"keep", "valid_unseen, scaffold", func(r SweepResult) Point { return Point{2, r.UnseenMean, r.UnseenStd, 2} }},
		{"grpo", "valid_seen", func(r SweepResult) Point { return Point{2, r.SeenMean, r.SeenStd, 2} }},
		{"grpo", "valid_unseen", func(r SweepResult) Point { return Point{2, r.UnseenMean, r.UnseenStd, 2} }},
	}
	for _, c := range cases {
		v := c.variant
		if v == "keep" {
			v = "pats" // keep is pats' scaffold line
		}
		if diff := cmp.Diff(c.want(res[c.variant]), last(t, d.Success, v, c.label), approx); diff != "" {
			t.Errorf("%s %s, final point (-report sweep +plot):\n%s", c.variant, c.label, diff)
		}
	}
	// grpo has no scaffold: no dashed line, no scaffold size, no audits;
	// keep adds no line of its own.
	var names []string
	for _, ss := range [][]Series{d.Success, d.ZeroVar, d.Items, d.Gap} {
		for _, s := range ss {
			names = append(names, s.Variant+" "+s.Label)
		}
		names = append(names, "|")
	}
	want := []string{"pats valid_seen", "pats valid_seen, scaffold", "pats valid_unseen", "pats valid_unseen, scaffold",
		"grpo valid_seen", "grpo valid_unseen", "|",
		"pats ", "grpo ", "|", "pats ", "|", "pats early", "pats late", "|"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("series (-want +got):\n%s", diff)
	}
	// The other lines: the runs' own figures, mean and sd over seeds.
	runLines := func(v string, f func(r *Run) map[int]float64) []Point {
		c := collect{}
		for _, seed := range []int64{1, 2} {
			r, err := Load(RunDir(root, v, seed))
			if err != nil {
				t.Fatal(err)
			}
			for k, x := range f(r) {
				c.add(k, x)
			}
		}
		return c.points()
	}
	zv := func(r *Run) map[int]float64 {
		xy, err := zeroVariance(r.Dir)
		if err != nil {
			t.Fatal(err)
		}
		m := map[int]float64{}
		for _, p := range xy {
			m[int(p.X)] = p.Y
		}
		return m
	}
	items := func(r *Run) map[int]float64 {
		m := map[int]float64{}
		for _, s := range r.Snaps {
			m[s.Iteration] = float64(s.Items)
		}
		return m
	}
	gap := func(i int) func(r *Run) map[int]float64 {
		return func(r *Run) map[int]float64 {
			a, err := LoadAudits(r.Dir)
			if err != nil {
				t.Fatal(err)
			}
			m := map[int]float64{}
			for _, p := range a[i].Points {
				m[int(p.X)] = p.Y
			}
			return m
		}
	}
	lines := []struct {
		name string
		got  []Series
		i    int
		want []Point
	}{
		{"pats zero-variance", d.ZeroVar, 0, runLines("pats", zv)},
		{"grpo zero-variance", d.ZeroVar, 1, runLines("grpo", zv)},
		{"pats items", d.Items, 0, runLines("pats", items)},
		{"pats early gap", d.Gap, 0, runLines("pats", gap(0))},
		{"pats late gap", d.Gap, 1, runLines("pats", gap(1))},
	}
	for _, l := range lines {
		if diff := cmp.Diff(l.want, l.got[l.i].Points, approx); diff != "" {
			t.Errorf("%s (-runs +sweep):\n%s", l.name, diff)
		}
	}
	// spot values: zero-variance 3/8 at 0 for all; at 1, pats seeds 1/8 and 2/8
	if p := d.ZeroVar[0].Points[1]; p.Mean != 1.5/8 || p.Seeds != 2 {
		t.Errorf("pats zero-variance at 1: %+v, want mean 1.5/8 over 2 seeds", p)
	}
	// a NULL gap is no point: the late line's last point is seed 1's alone
	if p := last(t, d.Gap, "pats", "late"); p != (Point{Iteration: 4, Mean: 0.2, Seeds: 1}) {
		t.Errorf("pats late gap at 4: %+v, want seed 1's 0.2 alone (seed 2's gap is NULL)", p)
	}
	// an unfinished run is an error naming it, as in report sweep
	os.Remove(filepath.Join(RunDir(root, "grpo", 2), SummaryFile))
	if _, err := LoadSweepPlots(root, sweepRefsFixture); err == nil || !strings.Contains(err.Error(), "grpo-s2") {
		t.Errorf("unfinished run: %v", err)
	}
}

// TestSweepPlotsFiles: the sweep's PNG files decode, the same folders give
// the same bytes, and a sweep without audits has no NLL-gap plot but a
// note.
func TestSweepPlotsFiles(t *testing.T) {
	for _, audits := range []bool{true, false} {
		root := sweepFixture(t, audits)
		d, err := LoadSweepPlots(root, sweepRefsFixture)
		if err != nil {
			t.Fatal(err)
		}
		var first map[string][]byte
		tries := 1
		if audits {
			tries = 2 // the same bytes twice
		}
		for try := 0; try < tries; try++ {
			out := filepath.Join(t.TempDir(), "plots")
			paths, notes, err := SweepPlots(d, out)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			files := map[string][]byte{}
			for _, p := range paths {
				names = append(names, filepath.Base(p))
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := png.Decode(bytes.NewReader(b)); err != nil {
					t.Errorf("%s: %v", p, err)
				}
				files[filepath.Base(p)] = b
			}
			want := []string{"success-valid_seen.png", "success-valid_unseen.png", "zero-variance.png", "scaffold.png"}
			var wantNotes []string
			if audits {
				want = append(want, "nll-gap.png")
			} else {
				wantNotes = []string{"no run has scaffold audits (RUN/audit/scaffold-traj*.parquet, scripts/sweep-audits.sh): nll-gap.png not drawn"}
			}
			if diff := cmp.Diff(want, names); diff != "" {
				t.Errorf("audits %v: files (-want +got):\n%s", audits, diff)
			}
			if diff := cmp.Diff(wantNotes, notes); diff != "" {
				t.Errorf("audits %v: notes (-want +got):\n%s", audits, diff)
			}
			if first == nil {
				first = files
			} else if diff := cmp.Diff(first, files); diff != "" {
				t.Errorf("two runs gave different bytes")
			}
		}
	}
	// A run's own plots add its NLL gap.
	r, err := Load(RunDir(sweepFixture(t, true), "pats", 1))
	if err != nil {
		t.Fatal(err)
	}
	paths, err := Plots(r, t.TempDir())
	if err != nil || len(paths) != 5 || filepath.Base(paths[3]) != "nll-gap.png" {
		t.Errorf("run plots %v, %v; want nll-gap.png fourth of five", paths, err)
	}
}

// legendClear checks a plot's layout: the legend's rectangle, as gonum
// measures it in the legend's area, lies in that area, the area lies in
// the image, and neither meets the data area (the plot's data canvas in
// its area), in canvas coordinates.
func legendClear(p *plot.Plot, place func(*plot.Plot) (vg.Length, vg.Length, vg.Rectangle, vg.Rectangle, plot.Legend)) string {
	w, h, plotArea, legendArea, legend := place(p)
	data := p.DataCanvas(draw.Canvas{Rectangle: plotArea}).Rectangle
	if legendArea == (vg.Rectangle{}) {
		return "" // no legend
	}
	lr := legend.Rectangle(draw.Canvas{Rectangle: legendArea})
	switch {
	case !inside(lr, legendArea):
		return "the legend overflows its area"
	case !inside(legendArea, vg.Rectangle{Max: vg.Point{X: w, Y: h}}):
		return "the legend's area leaves the image"
	case meets(lr, data) || meets(legendArea, data):
		return "the legend covers the data area"
	}
	return ""
}

func inside(a, b vg.Rectangle) bool {
	return a.Min.X >= b.Min.X && a.Min.Y >= b.Min.Y && a.Max.X <= b.Max.X && a.Max.Y <= b.Max.Y
}

func meets(a, b vg.Rectangle) bool {
	return a.Min.X < b.Max.X && b.Min.X < a.Max.X && a.Min.Y < b.Max.Y && b.Min.Y < a.Max.Y
}

// insideLayout places the legend as gonum does by default: in the top
// left corner of the axes' area, over the data (the placement the check
// must refuse).
func insideLayout(p *plot.Plot) (w, h vg.Length, plotArea, legendArea vg.Rectangle, legend plot.Legend) {
	w, h, plotArea, _, legend = layout(p)
	plotArea = vg.Rectangle{Max: vg.Point{X: plotWidth, Y: plotHeight}}
	w, h = plotWidth, plotHeight
	data := p.DataCanvas(draw.Canvas{Rectangle: plotArea}).Rectangle
	r := legend.Rectangle(draw.Canvas{})
	legendArea = vg.Rectangle{Min: vg.Point{X: data.Min.X, Y: data.Max.Y - r.Size().Y}, Max: vg.Point{X: data.Min.X + r.Size().X, Y: data.Max.Y}}
	return w, h, plotArea, legendArea, legend
}

// TestLegendsBesideData: no legend of a run's or a sweep's plots covers
// its data area; the same check refuses the legend placed inside.
func TestLegendsBesideData(t *testing.T) {
	root := sweepFixture(t, true)
	d, err := LoadSweepPlots(root, sweepRefsFixture)
	if err != nil {
		t.Fatal(err)
	}
	figs, _, err := sweepFigures(d)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Load(RunDir(root, "pats", 1))
	if err != nil {
		t.Fatal(err)
	}
	rf, err := runFigures(r)
	if err != nil {
		t.Fatal(err)
	}
	figs = append(figs, rf...)
	if len(figs) != 10 {
		t.Fatalf("%d plots, want 5 of the sweep and 5 of a run", len(figs))
	}
	cases := []struct {
		name   string
		place  func(*plot.Plot) (vg.Length, vg.Length, vg.Rectangle, vg.Rectangle, plot.Legend)
		refuse bool
	}{
		{"beside (layout)", layout, false},
		{"inside (planted)", insideLayout, true},
	}
	for _, c := range cases {
		n := 0
		for _, f := range figs {
			if !hasLegend(f.p) {
				continue // the run's zero-variance plot: one line, named by the title
			}
			n++
			if msg := legendClear(f.p, c.place); (msg != "") != c.refuse {
				t.Errorf("%s, %s: %q", c.name, f.name, msg)
			}
		}
		if n != 9 {
			t.Errorf("%s: %d plots with a legend, want 9", c.name, n)
		}
	}
}

func hasLegend(p *plot.Plot) bool { return p.Legend.Rectangle(draw.Canvas{}).Size().X > 0 }

// TestPartialSweepPlots: a sweep with one run cut short (grpo seed 2:
// no summary.md, no evaluation at iteration 2) and one not started
// (grpo seed 3). LoadSweepPlots refuses it; LoadSweepPlotsPartial draws
// it: the short run contributes the iteration it has (grpo's point at 0
// is over both seeds, at 2 over seed 1 alone), both runs are named, and
// every plot's title says partial.
func TestPartialSweepPlots(t *testing.T) {
	root := sweepFixture(t, true)
	short := RunDir(root, "grpo", 2)
	for _, p := range []string{SummaryFile, filepath.Join("eval", "2")} {
		if err := os.RemoveAll(filepath.Join(short, p)); err != nil {
			t.Fatal(err)
		}
	}
	refs := append(append([]SweepRunRef{}, sweepRefsFixture...), SweepRunRef{"grpo", 3})
	if _, err := LoadSweepPlots(root, refs); err == nil || !strings.Contains(err.Error(), "grpo-s2") {
		t.Errorf("unfinished run without --partial: %v, want an error naming grpo-s2", err)
	}
	d, err := LoadSweepPlotsPartial(root, refs)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"grpo seed 2", "grpo seed 3"}, d.Unfinished); diff != "" {
		t.Errorf("unfinished runs (-want +got):\n%s", diff)
	}
	var seeds []int
	for _, s := range d.Success {
		if s.Variant == "grpo" && s.Label == "valid_seen" {
			for _, p := range s.Points {
				seeds = append(seeds, p.Seeds)
			}
		}
	}
	if diff := cmp.Diff([]int{2, 1}, seeds); diff != "" {
		t.Errorf("grpo valid_seen seeds per iteration 0, 2 (-want +got):\n%s", diff)
	}
	figs, _, err := sweepFigures(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range figs {
		if !strings.HasPrefix(f.p.Title.Text, "partial (2 runs unfinished): ") {
			t.Errorf("%s: title %q does not say partial", f.name, f.p.Title.Text)
		}
	}
	// all finished: no partial title
	full, err := LoadSweepPlotsPartial(sweepFixture(t, true), sweepRefsFixture)
	if err != nil {
		t.Fatal(err)
	}
	if figs, _, err = sweepFigures(full); err != nil || len(full.Unfinished) != 0 || strings.Contains(figs[0].p.Title.Text, "partial") {
		t.Errorf("finished sweep: %v, unfinished %v, title %q", err, full.Unfinished, figs[0].p.Title.Text)
	}
}
