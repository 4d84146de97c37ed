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

// convergenceSection draws the objective of every evaluation in the order the run made
// them and the best found so far; nil when nothing succeeded.
func convergenceSection(rec *result.Recording) (*Section, error) {
	var pts, best plotter.XYs
	cur := math.NaN()
	failed := 0
	for i := range rec.Evaluations {
		e := &rec.Evaluations[i]
		if e.Failed() {
			failed++
			continue
		}
		x := float64(i + 1)
		pts = append(pts, plotter.XY{X: x, Y: e.Objective})
		if math.IsNaN(cur) || rec.Maximize && e.Objective > cur || !rec.Maximize && e.Objective < cur {
			if !math.IsNaN(cur) {
				best = append(best, plotter.XY{X: x, Y: cur}) // a step, not a slope
			}
			cur = e.Objective
		}
		best = append(best, plotter.XY{X: x, Y: cur})
	}
	if len(pts) == 0 {
		return nil, nil
	}
	obj := rec.Objective
	if obj == "" {
		obj = "time"
	}
	p := plot.New()
	p.Title.Text = "Convergence"
	p.X.Label.Text = "evaluation"
	p.Y.Label.Text = obj
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
	p.Legend.Top = !rec.Maximize
	p.Legend.Left = false
	dir, err := os.MkdirTemp("", "ktune-report-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	files, err := figure.Save(p, 7*vg.Inch, 4*vg.Inch, dir, "convergence")
	if err != nil {
		return nil, err
	}
	fig, err := FigureFile(files[0], fmt.Sprintf("%s of each successful evaluation (grey) and the best so far (blue); %d failed evaluations not drawn", obj, failed))
	if err != nil {
		return nil, err
	}
	return &Section{Title: "Convergence", Figures: []Figure{fig}}, nil
}
