package benchmark

import (
	"fmt"
	"gonum.org/v1/gonum/stat/distuv"
	"hash/fnv"
	"image/color"
	"maps"
	"math"
	"os"
	"slices"
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
// strategy with its 95% confidence interval shaded (as seed 000's Fig. 2 and, per GPU, its
// appendix figures), and writes each as SVG and PNG into dir (CurvesFile). It returns the
// files written.
func PlotCurves(cells []Cell, dir string) ([]string, error) {
	names, _ := CurveNames(cells)
	return plotCurves(cells, dir, func(sp string) string { return names[sp] }, func(sp string) string { return sp })
}

// PlotKernelCurves draws seed 000's Fig. 2: for every kernel with several spaces (devices),
// the mean fraction of optimum over the runs on all of them against the budget, 95%
// confidence interval shaded, written into dir (KernelCurvesFile). spaces names every
// space of the benchmark, finished or not (nil: the spaces of cells). A point is drawn
// only where every one of the kernel's spaces has its cell (CompleteKernelCells, as in the
// kernel tables and JSON); a kernel that lacks points for that says so in its title, and
// one without any is not drawn. It returns the files written; none when no kernel has
// several spaces.
func PlotKernelCurves(cells []Cell, spaces []string, dir string) ([]string, error) {
	_, names := CurveNames(cells)
	if spaces == nil {
		for _, c := range cells {
			if !slices.Contains(spaces, c.Space) {
				spaces = append(spaces, c.Space)
			}
		}
	}
	_, count := KernelSpaces(spaces)
	complete := CompleteKernelCells(cells, spaces)
	type point struct {
		kernel, strategy string
		budget           int
	}
	drawn := map[point]bool{}
	for _, c := range complete {
		drawn[point{c.Space, c.Strategy, c.Budget}] = true
	}
	partial := map[string]bool{} // kernels with cells of some of their spaces only
	for _, c := range ByKernel(cells) {
		if count[c.Space] > 1 && !drawn[point{c.Space, c.Strategy, c.Budget}] {
			partial[c.Space] = true
		}
	}
	return plotCurves(complete, dir, func(k string) string { return names[k] }, func(k string) string {
		title := fmt.Sprintf("%s (over its %d spaces)", k, count[k])
		if partial[k] {
			title = fmt.Sprintf("%s (over its %d spaces; points not run on all of them left out)", k, count[k])
		}
		return title
	})
}

func plotCurves(cells []Cell, dir string, file, title func(string) string) ([]string, error) {
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
		p.Title.Text = title(sp)
		p.X.Label.Text = "budget (evaluations)"
		p.Y.Label.Text = "mean fraction of optimum (shaded: its 95% interval)"
		p.X.Scale = plot.LogScale{}
		byStrategy := map[string][]Cell{}
		var order []string
		budgets := map[int]bool{}
		for _, c := range bySpace[sp] {
			if _, ok := byStrategy[c.Strategy]; !ok {
				order = append(order, c.Strategy)
			}
			byStrategy[c.Strategy] = append(byStrategy[c.Strategy], c)
			budgets[c.Budget] = true
		}
		// a tick at every budget run, so each point can be read off
		var ticks []plot.Tick
		for _, b := range slices.Sorted(maps.Keys(budgets)) {
			ticks = append(ticks, plot.Tick{Value: float64(b), Label: fmt.Sprint(b)})
		}
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
		p.Y.Tick.Marker = figure.Ticks{} // round steps, whichever range the fractions span
		lo, hi := 1.0, 0.0
		// every strategy's band first, then the lines and marks over all of them, so that
		// no band tints another strategy's line away from its legend colour
		var front []plot.Plotter
		for i, st := range order {
			cs := byStrategy[st]
			sort.Slice(cs, func(a, b int) bool { return cs[a].Budget < cs[b].Budget })
			col := strategyColors[i%len(strategyColors)]
			line := make(plotter.XYs, len(cs))
			band := make(plotter.XYs, 2*len(cs))
			for k, c := range cs {
				line[k] = plotter.XY{X: float64(c.Budget), Y: c.MeanFraction}
				// a fraction of the optimum lies in [0, 1], and so does its interval
				half := halfInterval95(c.StdFraction, len(c.Fractions))
				up, down := min(c.MeanFraction+half, 1), max(c.MeanFraction-half, 0)
				band[k] = plotter.XY{X: float64(c.Budget), Y: up}
				band[len(band)-1-k] = plotter.XY{X: float64(c.Budget), Y: down}
				lo, hi = min(lo, down), max(hi, up)
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
			// a mark at every budget: with one budget there is no line to see, and the
			// interval is drawn as an error bar
			if len(budgets) == 1 {
				// side by side, so that the strategies' error bars do not hide each other
				line[0].X *= math.Pow(1.06, float64(i)-float64(len(order)-1)/2)
			}
			pts, err := plotter.NewScatter(line)
			if err != nil {
				return nil, err
			}
			pts.GlyphStyle.Color = col
			pts.GlyphStyle.Radius = vg.Points(2)
			pts.GlyphStyle.Shape = draw.CircleGlyph{}
			p.Add(poly)
			front = append(front, l, pts)
			if len(cs) == 1 {
				c := cs[0]
				errs := plotter.YErrors{{Low: c.MeanFraction - band[1].Y, High: band[0].Y - c.MeanFraction}}
				bars, err := plotter.NewYErrorBars(struct {
					plotter.XYs
					plotter.YErrors
				}{line, errs})
				if err != nil {
					return nil, err
				}
				bars.Color = col
				bars.Width = vg.Points(1.5)
				front = append(front, bars)
			}
			p.Legend.Add(st, l, pts)
		}
		p.Add(front...)
		if len(budgets) == 1 {
			// a single budget: room on either side of it on the log scale
			for b := range budgets {
				p.X.Min, p.X.Max = float64(b)/2, float64(b)*2
			}
		}
		// The vertical axis spans the data, in steps of 0.05 and at least 0.1, so that
		// strategies a few hundredths apart (most of them, at large budgets) stay apart.
		p.Y.Min, p.Y.Max = yRange(lo, hi)
		f, err := figure.SaveLegendRight(p, 6*vg.Inch, 4*vg.Inch, dir, file(sp))
		files = append(files, f...)
		if err != nil {
			return files, err
		}
	}
	return files, nil
}

// halfInterval95 is the half width of the 95% confidence interval of a mean of n runs
// whose sample standard deviation is sd: Student's t with n-1 degrees of freedom, which
// the normal approximation (1.96) understates for the few repeats of a quick check (4.30
// at 3 runs, 2.01 at 50). One run has no interval.
func halfInterval95(sd float64, n int) float64 {
	if n < 2 {
		return 0
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(0.975)
	return t * sd / math.Sqrt(float64(n))
}

// yRange is the vertical range of a curves figure for data within [lo, hi] in [0, 1]:
// rounded out to multiples of 0.05, at least 0.1 wide, within [0, 1].
func yRange(lo, hi float64) (float64, float64) {
	if lo > hi {
		return 0, 1
	}
	ymin := math.Floor(lo*20+1e-9) / 20
	ymax := math.Ceil(hi*20-1e-9) / 20
	if ymax-ymin < 0.1 {
		if ymax = ymin + 0.1; ymax > 1 {
			ymin, ymax = 0.9, 1
		}
	}
	return max(ymin, 0), min(ymax, 1)
}

// CurveNames gives the base file names (no extension) of the curves PlotCurves draws for
// each space of cells and PlotKernelCurves for each kernel: "curves-SPACE" and
// "curves-kernel-KERNEL", with '/', '\\' and ' ' written as '_'. Names that would then
// coincide (spaces a_b/c and a/b_c, or a space kernel-x and a kernel x) get '-' and eight
// hex digits of a hash of the space's or kernel's name, so no figure overwrites another.
func CurveNames(cells []Cell) (spaces, kernels map[string]string) {
	spaces, kernels = map[string]string{}, map[string]string{}
	count := map[string]int{}
	for _, c := range cells {
		if _, ok := spaces[c.Space]; !ok {
			spaces[c.Space] = "curves-" + safeName(c.Space)
			count[spaces[c.Space]]++
		}
		if k := Kernel(c.Space); kernels[k] == "" {
			kernels[k] = "curves-kernel-" + safeName(k)
			count[kernels[k]]++
		}
	}
	for _, m := range []map[string]string{spaces, kernels} {
		for name, file := range m {
			if count[file] > 1 {
				h := fnv.New32a()
				h.Write([]byte(name))
				m[name] = fmt.Sprintf("%s-%08x", file, h.Sum32())
			}
		}
	}
	return spaces, kernels
}

func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == ' ' || r == '\\' {
			return '_'
		}
		return r
	}, s)
}

// winMatrix is a heat map grid of strategies: the cell in row r and column c holds the
// wins of column c's strategy over row r's (NaN on the diagonal). Rows are drawn top to
// bottom in the order of the columns left to right.
type winMatrix struct {
	names []string
	wins  [][]float64 // wins[r][c]
}

func (m winMatrix) Dims() (c, r int)   { return len(m.names), len(m.names) }
func (m winMatrix) Z(c, r int) float64 { return m.wins[m.row(r)][c] }
func (m winMatrix) X(c int) float64    { return float64(c) }
func (m winMatrix) Y(r int) float64    { return float64(r) }

// row maps a heat map row (0 at the bottom) to the strategy drawn there.
func (m winMatrix) row(r int) int { return len(m.names) - 1 - r }

// PlotCompetition draws seed 000's Fig. 1 for the budgets of cells in [lo, hi]: a heat map
// whose cell in row r and column c counts the spaces and budgets where the column's
// strategy reached a significantly higher mean fraction of optimum than the row's
// (two-sample t-test, p < alpha). Rows with low values were rarely beaten; columns with
// high values often won. It is written into dir as SVG and PNG named
// competition-<name>, titled title. Nothing is drawn when no cell's budget is in [lo, hi]
// or there is only one strategy (nil, nil).
func PlotCompetition(cells []Cell, alpha float64, lo, hi int, name, title, dir string) ([]string, error) {
	m, ok := competitionMatrix(cells, alpha, lo, hi)
	if !ok {
		return nil, nil
	}
	names := m.names
	maxWins := 1.0
	for r, row := range m.wins {
		for c, v := range row {
			if r != c {
				maxWins = max(maxWins, v)
			}
		}
	}
	pal := moreland.SmoothBlueRed()
	pal.SetMin(0)
	pal.SetMax(maxWins)
	hm := plotter.NewHeatMap(m, pal.Palette(64))
	hm.Min, hm.Max = 0, maxWins
	hm.NaN = color.Gray{Y: 235}
	p := plot.New()
	p.Title.Text = title
	p.Title.Padding = vg.Points(6) // off the figure's top edge
	p.X.Label.Text = fmt.Sprintf("winning strategy: each cell its wins over the row's (colour: 0 blue to %v red)", maxWins)
	p.Y.Label.Text = "wins over this strategy"
	p.Add(hm)
	xt := make([]plot.Tick, len(names))
	yt := make([]plot.Tick, len(names))
	for i, n := range names {
		xt[i] = plot.Tick{Value: float64(i), Label: n}
		yt[i] = plot.Tick{Value: float64(m.row(i)), Label: n}
	}
	p.X.Tick.Marker = plot.ConstantTicks(xt)
	p.Y.Tick.Marker = plot.ConstantTicks(yt)
	p.X.Tick.Label.Rotation = math.Pi / 4
	p.X.Tick.Label.XAlign = draw.XRight
	for r := range names {
		for c := range names {
			if r == c {
				continue
			}
			v := m.wins[r][c]
			lbl, err := plotter.NewLabels(plotter.XYLabels{
				XYs:    []plotter.XY{{X: float64(c), Y: float64(m.row(r))}},
				Labels: []string{fmt.Sprint(v)},
			})
			if err != nil {
				return nil, err
			}
			// white on the dark ends of the palette, black on its pale middle
			if col, err := pal.At(v); err == nil && luminance(col) < 0.45 {
				lbl.TextStyle[0].Color = color.White
			}
			lbl.TextStyle[0].XAlign, lbl.TextStyle[0].YAlign = draw.XCenter, draw.YCenter
			p.Add(lbl)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	size := vg.Length(2+len(names)) * vg.Inch * 0.8
	return figure.Save(p, size+2*vg.Inch, size+vg.Inch, dir, "competition-"+safeName(name))
}

// competitionMatrix counts, over the spaces and budgets in [lo, hi] of cells, the
// significant wins of every strategy (column) over every other (row); false when no cell's
// budget is in [lo, hi] or there is only one strategy.
func competitionMatrix(cells []Cell, alpha float64, lo, hi int) (winMatrix, bool) {
	var names []string
	idx := map[string]int{}
	type key struct {
		space  string
		budget int
	}
	groups := map[key][]Cell{}
	for _, c := range cells {
		if _, ok := idx[c.Strategy]; !ok {
			idx[c.Strategy] = len(names)
			names = append(names, c.Strategy)
		}
		if c.Budget >= lo && c.Budget <= hi {
			groups[key{c.Space, c.Budget}] = append(groups[key{c.Space, c.Budget}], c)
		}
	}
	if len(groups) == 0 || len(names) < 2 {
		return winMatrix{}, false // no budget in range, or no one to compete with
	}
	m := winMatrix{names: names, wins: make([][]float64, len(names))}
	for i := range m.wins {
		m.wins[i] = make([]float64, len(names))
		m.wins[i][i] = math.NaN()
	}
	for _, g := range groups {
		for i := range g {
			for j := range g {
				if i == j {
					continue
				}
				if _, p := TTest(g[i].Fractions, g[j].Fractions); p < alpha && g[i].MeanFraction > g[j].MeanFraction {
					// i beat j: column i, row j
					m.wins[idx[g[j].Strategy]][idx[g[i].Strategy]]++
				}
			}
		}
	}
	return m, true
}

// luminance is the relative luminance of c in [0, 1] (sRGB weights on the gamma-encoded
// channels, which is enough to pick a readable text colour).
func luminance(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	return (0.2126*float64(r) + 0.7152*float64(g) + 0.0722*float64(b)) / 0xffff
}

// Figures draws every figure of a benchmark into dir: the curves per space (PlotCurves)
// and per kernel with several spaces (PlotKernelCurves, of the benchmark's spaces, nil for
// those of cells), and the competition heat maps for
// budgets up to split and above it, over all spaces (competition-low, competition-medium)
// and, when there are several kernels, per kernel as seed 000's Fig. 1
// (competition-<kernel>-low, ...). It returns the files written.
func Figures(cells []Cell, spaces []string, alpha float64, split int, dir string) ([]string, error) {
	files, err := PlotCurves(cells, dir)
	if err != nil {
		return files, err
	}
	more, err := PlotKernelCurves(cells, spaces, dir)
	files = append(files, more...)
	if err != nil {
		return files, err
	}
	kernels, _ := Kernels(cells)
	// a kernel's heat maps carry the name its curves have, which no other kernel's shares
	_, kernelCurves := CurveNames(cells)
	drawRanges := func(cells []Cell, name, scope string) error {
		for _, r := range CompetitionRanges(split) {
			f, err := PlotCompetition(cells, alpha, r.Lo, r.Hi, name+r.Name, scope+", "+r.Label, dir)
			files = append(files, f...)
			if err != nil {
				return err
			}
		}
		return nil
	}
	if err := drawRanges(cells, "", "all spaces"); err != nil {
		return files, err
	}
	if len(kernels) > 1 {
		for _, k := range kernels {
			var mine []Cell
			for _, c := range cells {
				if Kernel(c.Space) == k {
					mine = append(mine, c)
				}
			}
			if err := drawRanges(mine, strings.TrimPrefix(kernelCurves[k], "curves-kernel-")+"-", k); err != nil {
				return files, err
			}
		}
	}
	return files, nil
}

// CompetitionRange is one of the two budget ranges of the competition.
type CompetitionRange struct {
	Name, Label string // "low", "budgets <= 200"
	Lo, Hi      int
}

// CompetitionRanges are the low and medium budget ranges for a split.
func CompetitionRanges(split int) []CompetitionRange {
	return []CompetitionRange{
		{"low", fmt.Sprintf("budgets <= %d", split), 0, split},
		{"medium", fmt.Sprintf("budgets > %d", split), split + 1, math.MaxInt},
	}
}
