package benchmark

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"sort"
	"strings"

	"github.com/ktune/ktune/figure"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// strategyColors are distinct colours (Tableau 10, then darker variants); past them lines
// are dashed, so every strategy stays distinguishable.
var strategyColors = []color.RGBA{
	{31, 119, 180, 255}, {255, 127, 14, 255}, {44, 160, 44, 255}, {214, 39, 40, 255}, {148, 103, 189, 255},
	{140, 86, 75, 255}, {227, 119, 194, 255}, {127, 127, 127, 255}, {188, 189, 34, 255}, {23, 190, 207, 255},
	{0, 0, 0, 255}, {120, 60, 0, 255}, {0, 90, 50, 255}, {90, 0, 90, 255}, {0, 60, 120, 255}, {150, 150, 0, 255},
}

// PlotCurves draws, per space, the mean fraction of optimum against the budget for every
// strategy with its 95% confidence interval shaded (as seed 000's Fig. 2), and writes each
// as SVG and PNG into dir. It returns the files written.
func PlotCurves(cells []Cell, dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	bySpace := map[string][]Cell{}
	var spaces []string
	for _, c := range cells {
		if _, ok := bySpace[c.Space]; !ok {
			spaces = append(spaces, c.Space)
		}
		bySpace[c.Space] = append(bySpace[c.Space], c)
	}
	var files []string
	for _, sp := range spaces {
		p := plot.New()
		p.Title.Text = sp
		p.X.Label.Text = "budget (unique evaluations)"
		p.Y.Label.Text = "fraction of optimum"
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
		p.Y.Min, p.Y.Max = 0, 1
		p.Legend.Top, p.Legend.Left = false, false
		byStrategy := map[string][]Cell{}
		var order []string
		for _, c := range bySpace[sp] {
			if _, ok := byStrategy[c.Strategy]; !ok {
				order = append(order, c.Strategy)
			}
			byStrategy[c.Strategy] = append(byStrategy[c.Strategy], c)
		}
		for i, st := range order {
			cs := byStrategy[st]
			sort.Slice(cs, func(a, b int) bool { return cs[a].Budget < cs[b].Budget })
			col := strategyColors[i%len(strategyColors)]
			line := make(plotter.XYs, len(cs))
			band := make(plotter.XYs, 0, 2*len(cs))
			for k, c := range cs {
				line[k] = plotter.XY{X: float64(c.Budget), Y: c.MeanFraction}
				half := 1.96 * c.StdFraction / math.Sqrt(float64(max(len(c.Fractions), 1)))
				band = append(band, plotter.XY{X: float64(c.Budget), Y: c.MeanFraction + half})
			}
			for k := len(cs) - 1; k >= 0; k-- {
				c := cs[k]
				half := 1.96 * c.StdFraction / math.Sqrt(float64(max(len(c.Fractions), 1)))
				band = append(band, plotter.XY{X: float64(c.Budget), Y: c.MeanFraction - half})
			}
			poly, err := plotter.NewPolygon(band)
			if err != nil {
				return nil, err
			}
			poly.Color = color.NRGBA{col.R, col.G, col.B, 60} // not premultiplied
			poly.LineStyle.Width = 0
			l, err := plotter.NewLine(line)
			if err != nil {
				return nil, err
			}
			l.Color = col
			l.Width = vg.Points(1.5)
			if i >= len(strategyColors) {
				l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
			}
			p.Add(poly, l)
			p.Legend.Add(st, l)
		}
		f, err := figure.Save(p, 6*vg.Inch, 4*vg.Inch, dir, CurvesFile(sp))
		files = append(files, f...)
		if err != nil {
			return files, err
		}
	}
	return files, nil
}

// CurvesFile is the base name (no extension) of the curves PlotCurves draws for a space.
func CurvesFile(space string) string { return "curves-" + safeName(space) }

func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == ' ' || r == '\\' {
			return '_'
		}
		return r
	}, s)
}

// winMatrix is a heat map grid: rows and columns are strategies, a cell the number of
// significant wins of the row's strategy over the column's.
type winMatrix struct {
	names []string
	wins  [][]float64
}

func (m winMatrix) Dims() (c, r int)   { return len(m.names), len(m.names) }
func (m winMatrix) Z(c, r int) float64 { return m.wins[r][c] }
func (m winMatrix) X(c int) float64    { return float64(c) }
func (m winMatrix) Y(r int) float64    { return float64(r) }

// PlotCompetition draws the pairwise wins (row strategy over column strategy, summed over
// spaces and budgets in [lo, hi]) as a heat map, as seed 000's Fig. 1, into dir as SVG and
// PNG named competition-<name>.
func PlotCompetition(cells []Cell, alpha float64, lo, hi int, name, label, dir string) ([]string, error) {
	var names []string
	idx := map[string]int{}
	for _, c := range cells {
		if _, ok := idx[c.Strategy]; !ok {
			idx[c.Strategy] = len(names)
			names = append(names, c.Strategy)
		}
	}
	m := winMatrix{names: names, wins: make([][]float64, len(names))}
	for i := range m.wins {
		m.wins[i] = make([]float64, len(names))
	}
	type key struct {
		space  string
		budget int
	}
	groups := map[key][]Cell{}
	for _, c := range cells {
		if c.Budget >= lo && c.Budget <= hi {
			groups[key{c.Space, c.Budget}] = append(groups[key{c.Space, c.Budget}], c)
		}
	}
	for _, g := range groups {
		for i := range g {
			for j := range g {
				if i == j {
					continue
				}
				if _, p := TTest(g[i].Fractions, g[j].Fractions); p < alpha && g[i].MeanFraction > g[j].MeanFraction {
					m.wins[idx[g[i].Strategy]][idx[g[j].Strategy]]++
				}
			}
		}
	}
	maxWins := 1.0
	for _, row := range m.wins {
		for _, v := range row {
			maxWins = max(maxWins, v)
		}
	}
	pal := moreland.SmoothBlueRed()
	pal.SetMin(0)
	pal.SetMax(maxWins)
	hm := plotter.NewHeatMap(m, pal.Palette(64))
	p := plot.New()
	p.Title.Text = fmt.Sprintf("significant wins of row over column (%s)", label)
	p.Add(hm)
	ticks := make([]plot.Tick, len(names))
	for i, n := range names {
		ticks[i] = plot.Tick{Value: float64(i), Label: n}
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Tick.Label.Rotation = math.Pi / 4
	p.X.Tick.Label.XAlign = draw.XRight
	for r := range names {
		for c := range names {
			lbl, err := plotter.NewLabels(plotter.XYLabels{XYs: []plotter.XY{{X: float64(c), Y: float64(r)}}, Labels: []string{fmt.Sprint(m.wins[r][c])}})
			if err != nil {
				return nil, err
			}
			p.Add(lbl)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	size := vg.Length(2+len(names)) * vg.Inch * 0.8
	return figure.Save(p, size+2*vg.Inch, size+vg.Inch, dir, "competition-"+safeName(name))
}
