package report

import (
	"fmt"
	"image/color"
	"math"
	"os"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/ktune/ktune/figure"
	"github.com/ktune/ktune/result"
)

// convergence is what the convergence figure draws of a recording.
type convergence struct {
	all, best          plotter.XYs // the successes by evaluation number; the best so far's step line
	improved           []bool      // whether each of all improved the best so far
	failed, foundWrong int         // evaluations left out: failed, and successes of configurations found wrong
}

// convergenceOf is the convergence of rec's evaluations in their order. A configuration
// found wrong anywhere in the run is no best so far: its successes are left out, however
// fast (result.Recording.FoundWrong).
func convergenceOf(rec *result.Recording) convergence {
	var c convergence
	cur := math.NaN()
	wrong := rec.FoundWrong()
	for i := range rec.Evaluations {
		e := &rec.Evaluations[i]
		if e.Failed() {
			c.failed++
			continue
		}
		if wrong(e) {
			c.foundWrong++
			continue
		}
		x := float64(i + 1)
		c.all = append(c.all, plotter.XY{X: x, Y: e.Objective})
		better := math.IsNaN(cur) || rec.Maximize && e.Objective > cur || !rec.Maximize && e.Objective < cur
		c.improved = append(c.improved, better)
		if better {
			if !math.IsNaN(cur) {
				c.best = append(c.best, plotter.XY{X: x, Y: cur}) // a step, not a slope
			}
			cur = e.Objective
			c.best = append(c.best, plotter.XY{X: x, Y: cur})
		}
	}
	// the best so far is a step line: its corners draw it whole
	if len(c.all) > 0 {
		if last := c.all[len(c.all)-1]; c.best[len(c.best)-1].X != last.X {
			c.best = append(c.best, plotter.XY{X: last.X, Y: cur})
		}
	}
	return c
}

// convergenceSection draws the objective of every evaluation in the order the run made
// them, the best found so far and, when ref is not nil, the default configuration's
// objective as a dashed line; nil when nothing succeeded that was not found wrong.
func convergenceSection(rec *result.Recording, ref *float64) (*Section, error) {
	c := convergenceOf(rec)
	all, best, improved, failed, foundWrong := c.all, c.best, c.improved, c.failed, c.foundWrong
	if len(all) == 0 {
		return nil, nil
	}
	// A long run's evaluations are thinned to a few thousand (the improvements, the worst
	// and an even spread), so that the page stays small and draws the same picture.
	worst := 0
	for k, p := range all {
		if rec.Maximize && p.Y < all[worst].Y || !rec.Maximize && p.Y > all[worst].Y {
			worst = k
		}
	}
	keep := figure.Thin(len(all), figure.MaxPoints, func(k int) bool { return improved[k] || k == worst })
	pts := make(plotter.XYs, len(keep))
	for k, i := range keep {
		pts[k] = all[i]
	}
	obj := objectiveName(rec)
	p := plot.New()
	p.Title.Text = "Convergence"
	p.X.Label.Text = "evaluation"
	p.Y.Label.Text = headWithUnit(obj)
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return nil, err
	}
	sc.GlyphStyle.Color = color.RGBA{120, 120, 120, 255}
	sc.GlyphStyle.Radius = vg.Points(1.5)
	sc.GlyphStyle.Shape = draw.CircleGlyph{}
	line, err := plotter.NewLine(best)
	if err != nil {
		return nil, err
	}
	line.Color = color.RGBA{31, 119, 180, 255}
	line.Width = vg.Points(2)
	p.Add(plotter.NewGrid(), sc, line)
	p.Legend.Add("evaluation", sc)
	p.Legend.Add("best so far", line)
	// Ranges with room around the data, so that no point or line lies on an edge.
	lastX := float64(len(rec.Evaluations))
	p.X.Min, p.X.Max = 0, lastX+max(0.5, 0.03*lastX)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, q := range pts {
		lo, hi = min(lo, q.Y), max(hi, q.Y)
	}
	if ref != nil {
		lo, hi = min(lo, *ref), max(hi, *ref)
		d, err := plotter.NewLine(plotter.XYs{{X: p.X.Min, Y: *ref}, {X: p.X.Max, Y: *ref}})
		if err != nil {
			return nil, err
		}
		d.Color = color.RGBA{214, 39, 40, 255}
		d.Width = vg.Points(1.2)
		d.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		p.Add(d)
		p.Legend.Add("default configuration", d)
	}
	pad := 0.06 * (hi - lo)
	if pad == 0 {
		pad = 0.06*math.Abs(hi) + 1e-9
	}
	p.Y.Min, p.Y.Max = lo-pad, hi+pad
	p.X.Tick.Marker = figure.Ticks{Integer: true}
	p.Y.Tick.Marker = figure.Ticks{}
	dir, err := os.MkdirTemp("", "ktune-report-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	// the legend beside the plot, where it hides no point
	files, err := figure.SaveLegendRight(p, 7*vg.Inch, 4*vg.Inch, dir, "convergence")
	if err != nil {
		return nil, err
	}
	caption := fmt.Sprintf("%s of each successful evaluation (grey) and the best so far (blue)", headWithUnit(obj))
	if len(pts) < len(all) {
		caption = fmt.Sprintf("%s of the successful evaluations (grey: %d of %d, every improvement and an even spread) and the best so far (blue)",
			headWithUnit(obj), len(pts), len(all))
	}
	if ref != nil {
		caption += fmt.Sprintf("; the default configuration's %s dashed (red)", withUnit(*ref, obj))
	}
	if failed > 0 {
		caption += fmt.Sprintf("; %s not drawn", plural(failed, "failed evaluation", "failed evaluations"))
	}
	if foundWrong > 0 {
		caption += fmt.Sprintf("; %s of configurations found wrong in the run (a wrong_answer evaluation) not drawn", plural(foundWrong, "successful evaluation", "successful evaluations"))
	}
	fig, err := FigureFile(files[0], caption)
	if err != nil {
		return nil, err
	}
	return &Section{Title: "Convergence", Figures: []Figure{fig}}, nil
}
