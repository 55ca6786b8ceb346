package report

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/pats-rl/pats/lib/output"
	"github.com/pats-rl/pats/lib/plotcolor"
	"github.com/pats-rl/pats/lib/table"
)

// Point is one iteration of a sweep's series: the mean and the sample
// standard deviation (n-1, as report sweep's table) over the seeds that
// have a value there (Seeds of them).
type Point struct {
	Iteration int
	Mean, Std float64
	Seeds     int
}

// Series is one variant's line of a sweep plot. Label says which line of
// the variant it is: the split and the evaluation context for success
// ("valid_seen", "valid_seen, scaffold"), the audit's episodes for the NLL
// gap ("early", "late"), empty for the others.
type Series struct {
	Variant string
	Label   string
	Points  []Point
}

// SweepPlotData is what the sweep's plots draw, per variant and
// iteration, over the seeds of each variant:
//   - Success: evaluation success of each split (eval/K/bare-SPLIT, and
//     eval/K/scaffold-SPLIT where the run evaluated with its scaffold);
//   - ZeroVar: the share of the update's GRPO groups with equal rewards
//     (metrics/grpo-K);
//   - Items: the scaffold's items, all layers (snap/K);
//   - Gap: the NLL gap without minus with the scaffold (audit scaffold's
//     gap column) per audited checkpoint, on the episodes of the first
//     (early) and of the last (late) audited iteration
//     (RUN/audit/scaffold-trajK.parquet, scripts/sweep-audits.sh; one
//     audit file is both).
//
// The keep variant is left out: it is the pats runs evaluated with their
// scaffold, which is pats' "SPLIT, scaffold" line (whose last point is
// keep's row of report sweep).
type SweepPlotData struct {
	Success, ZeroVar, Items, Gap []Series
	// The mechanism audits (lift/K, truth/K; MECHANISM=1): the scaffold's
	// lift on the iteration's training groups, and the precision and
	// recall of snapshot snap/K's items.
	Lift, Precision, Recall []Series
	// Unfinished names the runs ("VARIANT seed S") drawn as far as they
	// go (LoadSweepPlotsPartial); the plots' titles then say partial.
	Unfinished []string
}

// SweepRunRef names one run of a sweep.
type SweepRunRef struct {
	Variant string
	Seed    int64
}

// AuditCurve is one audit scaffold file of a run: the NLL gap (nats per
// token) against the audited checkpoint's iteration, on the episodes of
// traj/Traj.
type AuditCurve struct {
	Traj   int
	Points plotter.XYs
}

var auditFile = regexp.MustCompile(`^scaffold-traj([0-9]+)\.parquet$`)

// LoadAudits reads a run's scaffold audits, RUN/audit/scaffold-trajK.parquet,
// sorted by K. Each checkpoint must be a RUN/ckpt/K folder, whose K is the
// point's iteration; a checkpoint whose gap is NULL (no scored tokens) has
// no point.
func LoadAudits(dir string) ([]AuditCurve, error) {
	ents, err := os.ReadDir(filepath.Join(dir, "audit"))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []AuditCurve
	for _, e := range ents {
		m := auditFile.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		k, _ := strconv.Atoi(m[1])
		path := filepath.Join(dir, "audit", e.Name())
		rows, _, err := table.ReadFiles[table.ScaffoldAudit](path)
		if err != nil {
			return nil, err
		}
		c := AuditCurve{Traj: k}
		for _, r := range rows {
			it, err := strconv.Atoi(filepath.Base(r.Checkpoint))
			if err != nil {
				return nil, &table.InputError{Path: path, Problem: fmt.Sprintf("checkpoint %q is not a RUN/ckpt/K folder", r.Checkpoint)}
			}
			if r.Gap != nil { // NULL: no scored tokens, no point
				c.Points = append(c.Points, plotter.XY{X: float64(it), Y: *r.Gap})
			}
		}
		sort.SliceStable(c.Points, func(i, j int) bool { return c.Points[i].X < c.Points[j].X })
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Traj < out[j].Traj })
	return out, nil
}

// collect gathers values per iteration over seeds.
type collect map[int][]float64

func (c collect) add(k int, v float64) { c[k] = append(c[k], v) }

func (c collect) points() []Point {
	var ks []int
	for k := range c {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	var out []Point
	for _, k := range ks {
		m, s := MeanStd(c[k])
		out = append(out, Point{Iteration: k, Mean: m, Std: s, Seeds: len(c[k])})
	}
	return out
}

// LoadSweepPlots reads the finished runs of a sweep, as report sweep does
// (LoadSweepRun: a run without summary.md or without its final
// evaluations is an error), and gathers their series by variant in the
// order of runs.
func LoadSweepPlots(root string, runs []SweepRunRef) (*SweepPlotData, error) {
	return loadSweepPlots(root, runs, false)
}

// LoadSweepPlotsPartial is LoadSweepPlots for a sweep whose runs are not
// all finished: a run without summary.md contributes the iterations it
// has (each point's mean and band are over the seeds present there), a
// run whose folder does not exist yet contributes nothing, and both are
// named in Unfinished, in the order of runs.
func LoadSweepPlotsPartial(root string, runs []SweepRunRef) (*SweepPlotData, error) {
	return loadSweepPlots(root, runs, true)
}

func loadSweepPlots(root string, runs []SweepRunRef, partial bool) (*SweepPlotData, error) {
	var variants, unfinished []string
	byVariant := map[string][]*Run{}
	for _, ref := range runs {
		if ref.Variant == "keep" {
			continue // pats' scaffold lines
		}
		dir := RunDir(root, ref.Variant, ref.Seed)
		if _, err := os.Stat(filepath.Join(dir, SummaryFile)); partial && err != nil {
			unfinished = append(unfinished, fmt.Sprintf("%s seed %d", ref.Variant, ref.Seed))
			if _, err := os.Stat(dir); os.IsNotExist(err) {
				continue // not started
			}
		} else if _, err := LoadSweepRun(dir, ref.Variant, ref.Seed); err != nil {
			return nil, err
		}
		r, err := Load(dir)
		if err != nil {
			return nil, err
		}
		if _, ok := byVariant[ref.Variant]; !ok {
			variants = append(variants, ref.Variant)
		}
		byVariant[ref.Variant] = append(byVariant[ref.Variant], r)
	}
	d := &SweepPlotData{Unfinished: unfinished}
	for _, v := range variants {
		rs := byVariant[v]
		for _, split := range splitsOf(rs) {
			for _, sc := range []bool{false, true} {
				c := collect{}
				for _, r := range rs {
					for _, e := range r.Evals {
						if e.Split == split && e.Scaffold == sc {
							c.add(e.Iteration, e.Metrics.Success)
						}
					}
				}
				if len(c) == 0 {
					continue
				}
				label := split
				if sc {
					label += ", scaffold"
				}
				d.Success = append(d.Success, Series{Variant: v, Label: label, Points: c.points()})
			}
		}
		lift, prec, rec := collect{}, collect{}, collect{}
		for _, r := range rs {
			ms, err := LoadMechanism(r.Dir)
			if err != nil {
				return nil, err
			}
			for _, m := range ms {
				if m.HasLift {
					lift.add(m.Iteration, m.All.Lift)
				}
				if x := m.Precision(); m.HasTruth && x >= 0 {
					prec.add(m.Iteration, x)
				}
				if x := m.Recall(); m.HasTruth && x >= 0 {
					rec.add(m.Iteration, x)
				}
			}
		}
		for _, c := range []struct {
			c   collect
			dst *[]Series
		}{{lift, &d.Lift}, {prec, &d.Precision}, {rec, &d.Recall}} {
			if len(c.c) > 0 {
				*c.dst = append(*c.dst, Series{Variant: v, Points: c.c.points()})
			}
		}
		zv, items := collect{}, collect{}
		gap := [2]collect{{}, {}}
		for _, r := range rs {
			xy, err := zeroVariance(r.Dir)
			if err != nil {
				return nil, err
			}
			for _, p := range xy {
				zv.add(int(p.X), p.Y)
			}
			for _, s := range r.Snaps {
				items.add(s.Iteration, float64(s.Items))
			}
			audits, err := LoadAudits(r.Dir)
			if err != nil {
				return nil, err
			}
			if len(audits) > 0 {
				for i, a := range []AuditCurve{audits[0], audits[len(audits)-1]} {
					for _, p := range a.Points {
						gap[i].add(int(p.X), p.Y)
					}
				}
			}
		}
		if len(zv) > 0 {
			d.ZeroVar = append(d.ZeroVar, Series{Variant: v, Points: zv.points()})
		}
		if len(items) > 0 {
			d.Items = append(d.Items, Series{Variant: v, Points: items.points()})
		}
		for i, label := range []string{"early", "late"} {
			if len(gap[i]) > 0 {
				d.Gap = append(d.Gap, Series{Variant: v, Label: label, Points: gap[i].points()})
			}
		}
	}
	return d, nil
}

// splitsOf lists the splits the runs evaluated, sorted.
func splitsOf(rs []*Run) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range rs {
		for _, e := range r.Evals {
			if !seen[e.Split] {
				seen[e.Split] = true
				out = append(out, e.Split)
			}
		}
	}
	sort.Strings(out)
	return out
}

// bandNote says what the sweep plots' bands are.
const bandNote = "line: mean over seeds; band: mean ± 1 sample sd"

// SweepPlots writes the sweep's plots as PNG files into dir and returns
// their paths and notes on the plots not drawn:
// success-SPLIT.png per split (solid: evaluated without the scaffold,
// dashed: with it), zero-variance.png, scaffold.png (items) and
// nll-gap.png (absent, with a note, when no run has scaffold audits).
// Each variant is one colour; a line is the mean over its seeds and the
// band around it the mean ± one sample standard deviation (none for one
// seed). The files are written as one unit (lib/output): all or none.
func SweepPlots(d *SweepPlotData, dir string) (paths, notes []string, err error) {
	figs, notes, err := sweepFigures(d)
	if err != nil {
		return nil, nil, err
	}
	var u output.Unit
	defer u.Abort()
	for _, f := range figs {
		path := filepath.Join(dir, f.name)
		if err := save(&u, f.p, path); err != nil {
			return nil, nil, err
		}
		paths = append(paths, path)
	}
	if err := u.Commit(); err != nil {
		return nil, nil, err
	}
	return paths, notes, nil
}

// namedPlot is a plot and the file it is written to.
type namedPlot struct {
	name string
	p    *plot.Plot
}

func sweepFigures(d *SweepPlotData) ([]namedPlot, []string, error) {
	var figs []namedPlot
	var notes []string
	colour := variantColours(d)
	var splits []string
	for _, s := range d.Success {
		if sp, _, _ := strings.Cut(s.Label, ","); !contains(splits, sp) {
			splits = append(splits, sp)
		}
	}
	sort.Strings(splits)
	for _, sp := range splits {
		p := newPlot("success on "+sp+" against iteration\n"+bandNote, "iteration (checkpoint evaluated)", "success (share of episodes)")
		var ss []Series
		for _, s := range d.Success {
			if s.Label == sp || s.Label == sp+", scaffold" {
				ss = append(ss, s)
			}
		}
		if err := addBands(p, ss, colour, func(s Series) bool { return s.Label != sp }); err != nil {
			return nil, nil, err
		}
		styleKey(p, "solid: evaluated without the scaffold", false)
		styleKey(p, "dashed: with the scaffold in the context", true)
		p.Y.Min, p.Y.Max = 0, 1
		p.X.Tick.Marker = intTicks{}
		figs = append(figs, namedPlot{"success-" + sp + ".png", p})
	}
	if len(d.ZeroVar) > 0 {
		p := newPlot("groups with zero reward variance (no outcome credit)\n"+bandNote, "iteration (update k -> k+1)", "share of GRPO groups")
		if err := addBands(p, d.ZeroVar, colour, nil); err != nil {
			return nil, nil, err
		}
		p.Y.Min, p.Y.Max = 0, 1
		p.X.Tick.Marker = intTicks{}
		figs = append(figs, namedPlot{"zero-variance.png", p})
	}
	if len(d.Items) > 0 {
		p := newPlot("scaffold size against iteration\n"+bandNote, "iteration (snapshot)", "scaffold items (all layers)")
		if err := addBands(p, d.Items, colour, nil); err != nil {
			return nil, nil, err
		}
		p.Y.Min = 0
		p.Y.Max = math.Max(p.Y.Max, 1)
		p.X.Tick.Marker = intTicks{}
		figs = append(figs, namedPlot{"scaffold.png", p})
	}
	if len(d.Gap) > 0 {
		p := newPlot("NLL gap (without - with the scaffold) against checkpoint\n"+bandNote, "iteration (checkpoint audited)", "NLL gap (nats per token)")
		if err := addBands(p, d.Gap, colour, func(s Series) bool { return s.Label == "late" }); err != nil {
			return nil, nil, err
		}
		styleKey(p, "solid: episodes of the first audited iteration", false)
		styleKey(p, "dashed: episodes of the last audited iteration", true)
		p.X.Tick.Marker = intTicks{}
		figs = append(figs, namedPlot{"nll-gap.png", p})
	} else {
		notes = append(notes, "no run has scaffold audits (RUN/audit/scaffold-traj*.parquet, scripts/sweep-audits.sh): nll-gap.png not drawn")
	}
	for _, m := range []struct {
		ss          []Series
		name, title string
		y           string
		lo          float64
	}{
		{d.Lift, "lift.png", "scaffold lift: training success with minus without the scaffold", "difference in success (share of episodes)", -1},
		{d.Precision, "precision.png", "item precision: true items of the judgeable ones", "precision", 0},
		{d.Recall, "recall.png", "rule recall: the environment's rules the scaffold states", "recall", 0},
	} {
		if len(m.ss) == 0 {
			continue
		}
		p := newPlot(m.title+"\n"+bandNote, "iteration (checkpoint and snapshot)", m.y)
		if err := addBands(p, m.ss, colour, nil); err != nil {
			return nil, nil, err
		}
		p.Y.Min, p.Y.Max = m.lo, 1
		p.X.Tick.Marker = intTicks{}
		figs = append(figs, namedPlot{m.name, p})
	}
	if len(d.Unfinished) > 0 {
		for _, f := range figs {
			f.p.Title.Text = fmt.Sprintf("partial (%d runs unfinished): %s", len(d.Unfinished), f.p.Title.Text)
		}
	}
	return figs, notes, nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// variantColours gives each variant of the sweep, in order of first
// appearance, its colour index.
func variantColours(d *SweepPlotData) map[string]int {
	m := map[string]int{}
	for _, ss := range [][]Series{d.Success, d.ZeroVar, d.Items, d.Gap} {
		for _, s := range ss {
			if _, ok := m[s.Variant]; !ok {
				m[s.Variant] = len(m)
			}
		}
	}
	return m
}

var glyphs = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.TriangleGlyph{}, draw.SquareGlyph{}}

// addBands draws each series as its variant's colour: a band of mean ±
// sd (where some point has a spread), then the mean as a line with points,
// dashed where dashed says so. The legend names each variant once.
func addBands(p *plot.Plot, ss []Series, colour map[string]int, dashed func(Series) bool) error {
	named := map[string]bool{}
	// bands first, so that no band covers another variant's line
	for _, s := range ss {
		var upper, lower plotter.XYs
		spread := false
		for _, pt := range s.Points {
			upper = append(upper, plotter.XY{X: float64(pt.Iteration), Y: pt.Mean + pt.Std})
			lower = append(lower, plotter.XY{X: float64(pt.Iteration), Y: pt.Mean - pt.Std})
			spread = spread || pt.Std > 0
		}
		if !spread || len(s.Points) < 2 {
			continue
		}
		for i, j := 0, len(lower)-1; i < j; i, j = i+1, j-1 {
			lower[i], lower[j] = lower[j], lower[i]
		}
		poly, err := plotter.NewPolygon(append(upper, lower...))
		if err != nil {
			return fmt.Errorf("plot %s: %w", s.Variant, err)
		}
		r, g, b, _ := plotcolor.At(colour[s.Variant]).RGBA()
		poly.Color = color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 0x30}
		poly.LineStyle.Width = 0
		p.Add(poly)
	}
	for _, s := range ss {
		var xy plotter.XYs
		for _, pt := range s.Points {
			xy = append(xy, plotter.XY{X: float64(pt.Iteration), Y: pt.Mean})
		}
		l, pts, err := plotter.NewLinePoints(xy)
		if err != nil {
			return fmt.Errorf("plot %s: %w", s.Variant, err)
		}
		i := colour[s.Variant]
		c := plotcolor.At(i)
		l.Color, pts.Color = c, c
		pts.Shape = glyphs[(i/len(plotcolor.Palette))%len(glyphs)]
		l.Width = vg.Points(1.5)
		if dashed != nil && dashed(s) {
			l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		p.Add(l, pts)
		if !named[s.Variant] {
			named[s.Variant] = true
			solid := *l
			solid.Dashes = nil
			p.Legend.Add(s.Variant, &solid, pts)
		}
	}
	return nil
}

// styleKey adds a legend entry in grey explaining a line style.
func styleKey(p *plot.Plot, text string, dashed bool) {
	l := &plotter.Line{LineStyle: draw.LineStyle{Color: color.Gray{Y: 0x60}, Width: vg.Points(1.5)}}
	if dashed {
		l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
	}
	p.Legend.Add(text, l)
}
