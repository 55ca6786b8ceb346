package audit

import (
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/pats-rl/pats/lib/plotcolor"
	"github.com/pats-rl/pats/lib/table"
)

type series struct {
	name string
	xy   plotter.XYs
}

// linePlot draws named series as lines with points, skipping NaN values.
func linePlot(title, xlabel, ylabel string, ss []series) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.Legend.Top = true
	for k, s := range ss {
		var xy plotter.XYs
		for _, pt := range s.xy {
			if !math.IsNaN(pt.Y) && !math.IsNaN(pt.X) {
				xy = append(xy, pt)
			}
		}
		if len(xy) == 0 {
			continue
		}
		l, pts, err := plotter.NewLinePoints(xy)
		if err != nil {
			return nil, err
		}
		c := plotcolor.At(k)
		l.Color, pts.Color = c, c
		p.Add(l, pts)
		p.Legend.Add(s.name, l, pts)
	}
	return p, nil
}

// writePNG lays plots out side by side and writes one PNG.
func writePNG(w io.Writer, plots []*plot.Plot) error {
	const width, height = 5.5 * vg.Inch, 4 * vg.Inch
	img := vgimg.New(width*vg.Length(len(plots)), height)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: 1, Cols: len(plots), PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 2,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	canvases := plot.Align([][]*plot.Plot{plots}, tiles, dc)
	for j, p := range plots {
		p.Draw(canvases[0][j])
	}
	_, err := vgimg.PngCanvas{Canvas: img}.WriteTo(w)
	return err
}

// PlotCredit draws the credit audit: one panel per horizon measure, the
// bins' mid horizon on x, the four measures on y.
func PlotCredit(w io.Writer, rows []table.CreditAudit) error {
	var plots []*plot.Plot
	for _, hz := range []string{"steps", "tokens"} {
		ss := []series{{name: "skill-name share"}, {name: "right reads with negative credit"},
			{name: "mean sign, right reads"}, {name: "mean sign, wrong reads"}}
		for _, r := range rows {
			if r.Horizon != hz {
				continue
			}
			x := (r.Lo + r.Hi) / 2
			for k, y := range []float64{table.OrNaN(r.SkillNameShare), table.OrNaN(r.RightNegFrac), table.OrNaN(r.RightSign), table.OrNaN(r.WrongSign)} {
				ss[k].xy = append(ss[k].xy, plotter.XY{X: x, Y: y})
			}
		}
		p, err := linePlot("credit by horizon ("+hz+")", "episode horizon ("+hz+", bin middle)", "", ss)
		if err != nil {
			return err
		}
		p.Y.Min, p.Y.Max = -1.05, 1.05
		plots = append(plots, p)
	}
	return writePNG(w, plots)
}

// PlotScaffold draws the NLL with and without the scaffold and the gap
// per checkpoint.
func PlotScaffold(w io.Writer, rows []table.ScaffoldAudit) error {
	ss := []series{{name: "NLL with scaffold"}, {name: "NLL without scaffold"}, {name: "gap"}}
	for _, r := range rows {
		x := float64(r.Index)
		for k, y := range []*float64{r.NLLWith, r.NLLWithout, r.Gap} {
			if y != nil { // NULL: no scored tokens, no point
				ss[k].xy = append(ss[k].xy, plotter.XY{X: x, Y: *y})
			}
		}
	}
	p, err := linePlot("scaffold internalisation", "checkpoint (order given)", "nats per policy token", ss)
	if err != nil {
		return err
	}
	names := make([]string, len(rows))
	for i, r := range rows {
		names[i] = r.Checkpoint
	}
	p.NominalX(names...)
	return writePNG(w, []*plot.Plot{p})
}
