package report

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/pats-rl/pats/lib/output"
	"github.com/pats-rl/pats/lib/plotcolor"
	"github.com/pats-rl/pats/lib/table"
)

// Primitives in the order the primitive plot stacks them.
var Primitives = []string{"EXPAND", "REVISE", "COMPRESS", "FORCED_PRUNE", "NONE"}

// Plots writes the run's plots as PNG files into dir and returns their
// paths: success.png (success against iteration on each split, with and
// without the scaffold), scaffold.png (items per layer against iteration),
// zero-variance.png (the share of each update's GRPO groups whose rewards
// were all equal), nll-gap.png (the NLL gap of each scaffold audit,
// RUN/audit/scaffold-trajK.parquet, against the audited checkpoint) and
// primitives.png (the controller's primitive per task
// type per iteration).
// A plot without data (a run with no scaffold, or no audits) is skipped.
// Legends are drawn beside the plot's area, never over the data (layout).
// The files are written as one unit (lib/output): all or, on an error or
// an interruption, none; the paths are returned once they are in place.
func Plots(r *Run, dir string) ([]string, error) {
	figs, err := runFigures(r)
	if err != nil {
		return nil, err
	}
	var u output.Unit
	defer u.Abort()
	var out []string
	for _, f := range figs {
		path := filepath.Join(dir, f.name)
		if err := save(&u, f.p, path); err != nil {
			return nil, err
		}
		out = append(out, path)
	}
	if err := u.Commit(); err != nil {
		return nil, err
	}
	return out, nil
}

// runFigures builds the run's plots, in the order Plots writes them.
func runFigures(r *Run) ([]namedPlot, error) {
	var out []namedPlot
	if len(r.Evals) > 0 {
		p := newPlot("success against iteration", "iteration (checkpoint)", "success")
		i := 0
		for _, s := range r.splits() {
			for _, sc := range []bool{false, true} {
				var xy plotter.XYs
				for _, e := range r.Evals {
					if e.Split == s && e.Scaffold == sc {
						xy = append(xy, plotter.XY{X: float64(e.Iteration), Y: e.Metrics.Success})
					}
				}
				if len(xy) == 0 {
					continue
				}
				name := s + ", no scaffold"
				if sc {
					name = s + ", scaffold"
				}
				if err := addLine(p, xy, name, i, sc); err != nil {
					return out, err
				}
				i++
			}
		}
		p.Y.Min, p.Y.Max = 0, 1
		p.X.Tick.Marker = intTicks{}
		out = append(out, namedPlot{"success.png", p})
	}
	if len(r.Snaps) > 0 {
		p := newPlot("scaffold size against iteration", "iteration (snapshot)", "items")
		for i, layer := range []string{"general", "task", "mistake"} {
			var xy plotter.XYs
			for _, s := range r.Snaps {
				xy = append(xy, plotter.XY{X: float64(s.Iteration), Y: float64(s.LayerItems[layer])})
			}
			if err := addLine(p, xy, layer, i, false); err != nil {
				return out, err
			}
		}
		p.Y.Min = 0
		p.Y.Max = math.Max(p.Y.Max, 1)
		p.X.Tick.Marker = intTicks{}
		out = append(out, namedPlot{"scaffold.png", p})
	}
	zv, err := zeroVariance(r.Dir)
	if err != nil {
		return out, err
	}
	if len(zv) > 0 {
		p := newPlot("groups with zero reward variance (no outcome credit)", "iteration (update k -> k+1)", "share of groups")
		if err := addLine(p, zv, "zero-variance groups", 0, false); err != nil {
			return out, err
		}
		p.Legend = plot.NewLegend() // one line: the title says it
		p.Y.Min, p.Y.Max = 0, 1
		p.X.Tick.Marker = intTicks{}
		out = append(out, namedPlot{"zero-variance.png", p})
	}
	audits, err := LoadAudits(r.Dir)
	if err != nil {
		return out, err
	}
	if len(audits) > 0 {
		p := newPlot("NLL gap (without - with the scaffold) against checkpoint", "iteration (checkpoint audited)", "NLL gap (nats per token)")
		for i, a := range audits {
			if err := addLine(p, a.Points, fmt.Sprintf("episodes of traj/%d", a.Traj), i, false); err != nil {
				return out, err
			}
		}
		p.X.Tick.Marker = intTicks{}
		out = append(out, namedPlot{"nll-gap.png", p})
	}
	ms, err := LoadMechanism(r.Dir)
	if err != nil {
		return out, err
	}
	if len(ms) > 0 {
		p := newPlot("the mechanism: scaffold lift, item precision and rule recall", "iteration (checkpoint and snapshot)", "lift (difference in success); precision, recall (shares)")
		var lift, lo, hi, prec, rec plotter.XYs
		for _, m := range ms {
			x := float64(m.Iteration)
			if m.HasLift {
				lift = append(lift, plotter.XY{X: x, Y: m.All.Lift})
				lo = append(lo, plotter.XY{X: x, Y: m.All.LiftLo})
				hi = append(hi, plotter.XY{X: x, Y: m.All.LiftHi})
			}
			if v := m.Precision(); m.HasTruth && v >= 0 {
				prec = append(prec, plotter.XY{X: x, Y: v})
			}
			if v := m.Recall(); m.HasTruth && v >= 0 {
				rec = append(rec, plotter.XY{X: x, Y: v})
			}
		}
		for _, l := range []struct {
			xy     plotter.XYs
			name   string
			colour int
			dashed bool
		}{{lift, "lift", 0, false}, {lo, "lift, 95% interval", 0, true}, {hi, "", 0, true}, {prec, "precision", 1, false}, {rec, "recall", 2, false}} {
			if len(l.xy) == 0 {
				continue
			}
			if err := addLine(p, l.xy, l.name, l.colour, l.dashed); err != nil {
				return out, err
			}
		}
		p.Y.Min, p.Y.Max = -1, 1
		p.X.Tick.Marker = intTicks{}
		out = append(out, namedPlot{"mechanism.png", p})
	}
	if len(r.States) > 0 {
		p, err := primitivePlot(r)
		if err != nil {
			return out, err
		}
		out = append(out, namedPlot{"primitives.png", p})
	}
	return out, nil
}

// zeroVariance reads metrics/grpo-K.parquet of a run folder: for each
// update, the share of its GRPO groups whose rewards were all equal (no
// outcome credit), from its first step's row.
func zeroVariance(dir string) (plotter.XYs, error) {
	var xy plotter.XYs
	for k := 0; ; k++ {
		path := filepath.Join(dir, "metrics", "grpo-"+strconv.Itoa(k)+".parquet")
		if _, err := os.Stat(path); err != nil {
			break
		}
		rows, _, err := table.ReadFiles[table.TrainMetrics](path)
		if err != nil {
			return nil, err
		}
		if len(rows) == 0 || rows[0].Groups == nil || *rows[0].Groups == 0 || rows[0].ZeroVarGroups == nil {
			continue
		}
		xy = append(xy, plotter.XY{X: float64(k), Y: float64(*rows[0].ZeroVarGroups) / float64(*rows[0].Groups)})
	}
	return xy, nil
}

// primitivePlot draws one marker per (iteration, task type), its shape and
// colour naming the primitive the controller chose.
func primitivePlot(r *Run) (*plot.Plot, error) {
	types := map[string]bool{}
	var ks []int
	for k, rows := range r.States {
		ks = append(ks, k)
		for _, s := range rows {
			types[typeLabel(s.TaskType)] = true
		}
	}
	sort.Ints(ks)
	var names []string
	for t := range types {
		names = append(names, t)
	}
	sort.Strings(names)
	row := map[string]int{}
	for i, t := range names {
		row[t] = i
	}
	p := newPlot("controller primitive per task type", "iteration", "")
	p.NominalY(names...)
	shapes := []draw.GlyphDrawer{draw.TriangleGlyph{}, draw.CircleGlyph{}, draw.SquareGlyph{}, draw.CrossGlyph{}, draw.RingGlyph{}}
	for i, prim := range Primitives {
		var xy plotter.XYs
		for _, k := range ks {
			for _, s := range r.States[k] {
				if s.Primitive == prim {
					xy = append(xy, plotter.XY{X: float64(k), Y: float64(row[typeLabel(s.TaskType)])})
				}
			}
		}
		if len(xy) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(xy)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle.Shape = shapes[i%len(shapes)]
		sc.GlyphStyle.Color = plotcolor.At(i)
		sc.GlyphStyle.Radius = vg.Points(5)
		p.Add(sc)
		p.Legend.Add(prim, sc)
	}
	if len(ks) > 0 {
		p.X.Min, p.X.Max = float64(ks[0])-0.5, float64(ks[len(ks)-1])+0.5
	}
	p.X.Tick.Marker = intTicks{}
	return p, nil
}

func typeLabel(t string) string {
	if t == "" {
		return "(general)"
	}
	return t
}

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.Left = true
	return p
}

func addLine(p *plot.Plot, xy plotter.XYs, name string, i int, dashed bool) error {
	l, pts, err := plotter.NewLinePoints(xy)
	if err != nil {
		return fmt.Errorf("plot %s: %w", name, err)
	}
	c := plotcolor.At(i)
	l.Color, pts.Color = c, c
	l.Width = vg.Points(1.5)
	if dashed {
		l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
	}
	p.Add(l, pts)
	if name != "" { // a second line of an entry already in the legend
		p.Legend.Add(name, l, pts)
	}
	return nil
}

// The size of a plot without its legend; the legend is added beside it.
const (
	plotWidth  = 7 * vg.Inch
	plotHeight = 4.5 * vg.Inch
	legendGap  = 8  // points between the plot's area and the legend's
	legendPad  = 12 // points between the legend and the image's edges
)

// layout places a plot and its legend (the entries added to p.Legend) on
// one image: the plot, axes and title in plotArea (plotWidth wide), the
// legend in legendArea to its right, outside the plot's area and so
// never over its data. The image grows to the right by the legend's width
// and, for a legend taller than the plot, in height. Without entries the
// legend area is empty.
func layout(p *plot.Plot) (w, h vg.Length, plotArea, legendArea vg.Rectangle, legend plot.Legend) {
	legend = p.Legend
	legend.Top, legend.Left = true, true
	w, h = plotWidth, plotHeight
	r := legend.Rectangle(draw.Canvas{})
	lw, lh := r.Size().X, r.Size().Y
	if lw == 0 {
		return w, h, vg.Rectangle{Max: vg.Point{X: w, Y: h}}, vg.Rectangle{}, legend
	}
	// the entries' text goes below the rectangle by the font's descent
	lh += legend.TextStyle.FontExtents().Descent
	w += legendGap + lw + legendPad
	if need := lh + 2*legendPad; need > h {
		h = need
	}
	plotArea = vg.Rectangle{Max: vg.Point{X: plotWidth, Y: h}}
	x0 := plotWidth + legendGap
	legendArea = vg.Rectangle{Min: vg.Point{X: x0, Y: h - legendPad - lh}, Max: vg.Point{X: x0 + lw, Y: h - legendPad}}
	return w, h, plotArea, legendArea, legend
}

// render draws p with its legend beside it (layout) as a PNG.
func render(p *plot.Plot) (io.WriterTo, error) {
	w, h, plotArea, legendArea, legend := layout(p)
	c, err := draw.NewFormattedCanvas(w, h, "png")
	if err != nil {
		return nil, err
	}
	dc := draw.New(c)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	q := *p
	q.Legend = plot.NewLegend() // drawn below, outside the data
	q.Draw(draw.Canvas{Canvas: c, Rectangle: plotArea})
	if legendArea != (vg.Rectangle{}) {
		legend.Draw(draw.Canvas{Canvas: c, Rectangle: legendArea})
	}
	return c, nil
}

// save stages a PNG in u (lib/output).
func save(u *output.Unit, p *plot.Plot, path string) error {
	wt, err := render(p)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return u.File(path, func(w io.Writer) error { _, err := wt.WriteTo(w); return err })
}

// intTicks labels the whole numbers of an axis (iterations).
type intTicks struct{}

func (intTicks) Ticks(lo, hi float64) []plot.Tick {
	step := math.Max(1, math.Ceil((hi-lo)/10))
	var ts []plot.Tick
	for x := math.Ceil(lo); x <= hi; x += step {
		ts = append(ts, plot.Tick{Value: x, Label: strconv.Itoa(int(x))})
	}
	return ts
}
