package benchmark

import (
	"fmt"
	"gonum.org/v1/gonum/stat/distuv"
	"hash/fnv"
	"image/color"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/ktune/ktune/figure"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// crowded is the number of strategies past which a curves figure tints its 95% intervals
// more lightly, so that a dozen overlapping bands do not drown the lines.
const crowded = 6

// PlotCurves draws, per space, the mean fraction of optimum against the budget for every
// strategy with its 95% confidence interval shaded (as seed 000's Fig. 2 and, per GPU, its
// appendix figures; an error bar at a point without neighbours, and a line broken where a
// point is missing; a strategy whose curve is exactly an earlier one's, and so hidden by
// it, is named in the legend as the same as that one), and writes each as SVG and PNG
// into dir (CurvesFile). It returns the files written.
func PlotCurves(cells []Cell, dir string) ([]string, error) {
	names, _ := CurveNames(cells)
	return plotCurves(cells, dir, func(sp string) string { return names[sp] }, func(sp string, gaps bool) string {
		if gaps {
			return sp + " (points not run left out: lines broken there)"
		}
		return sp
	})
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
	return plotCurves(complete, dir, func(k string) string { return names[k] }, func(k string, gaps bool) string {
		title := fmt.Sprintf("%s (over its %d spaces)", k, count[k])
		if partial[k] || gaps {
			title = fmt.Sprintf("%s (over its %d spaces; points not run on all of them left out)", k, count[k])
		}
		return title
	})
}

// plotCurves draws the curves of cells per space into dir under file(space), titled
// title(space, gaps) where gaps tells that some strategy lacks a point at a budget that
// cells have (an interrupted benchmark): its line is broken there.
func plotCurves(cells []Cell, dir string, file func(string) string, title func(string, bool) string) ([]string, error) {
	for _, c := range cells {
		// the budget axis is logarithmic: gonum panics at a budget below 1, which no
		// benchmark runs (DecodeCells refuses a file that has one)
		if c.Budget < 1 {
			return nil, fmt.Errorf("%s on %s at budget %d: a budget is 1 evaluation or more", c.Strategy, c.Space, c.Budget)
		}
	}
	bySpace := map[string][]Cell{}
	var spaces []string
	all := map[int]bool{}
	for _, c := range cells {
		if _, ok := bySpace[c.Space]; !ok {
			spaces = append(spaces, c.Space)
		}
		bySpace[c.Space] = append(bySpace[c.Space], c)
		all[c.Budget] = true
	}
	// a line joins only the points of budgets next to each other among all those run
	pos := map[int]int{}
	for i, b := range slices.Sorted(maps.Keys(all)) {
		pos[b] = i
	}
	var files []string
	for _, sp := range spaces {
		p := plot.New()
		p.X.Label.Text = "budget (evaluations)"
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
		// many strategies' bands, tinted as few strategies' are, would hide the lines
		alpha := uint8(60)
		if len(order) > crowded {
			alpha = 14
		}
		lo, hi := 1.0, 0.0
		gaps, shaded, barred := false, false, false
		// every strategy's band first, then the lines and marks over all of them, so that
		// no band tints another strategy's line away from its legend colour
		var front []plot.Plotter
		for _, st := range order {
			cs := byStrategy[st]
			sort.Slice(cs, func(a, b int) bool { return cs[a].Budget < cs[b].Budget })
		}
		// a strategy whose curve is another's lies exactly under it: its legend says so
		same := figure.SameAs(len(order), func(i, j int) bool {
			return sameCurve(byStrategy[order[i]], byStrategy[order[j]])
		})
		for i, st := range order {
			cs := byStrategy[st]
			sty := figure.SeriesStyle(i)
			col := sty.Color
			if len(cs) < len(all) {
				gaps = true
			}
			points := make(plotter.XYs, len(cs))
			for k, c := range cs {
				points[k] = plotter.XY{X: float64(c.Budget), Y: c.MeanFraction}
				if len(budgets) == 1 {
					// side by side, so that the strategies' error bars do not hide each other
					points[k].X *= math.Pow(1.06, float64(i)-float64(len(order)-1)/2)
				}
			}
			style, err := plotter.NewLine(points) // the legend's, and the lines'
			if err != nil {
				return nil, err
			}
			style.Color = col
			style.Width = vg.Points(1.5)
			style.Dashes = sty.Dashes
			first := 0 // the index in cs of run's first cell
			for _, run := range curveRuns(cs, pos) {
				xy := points[first : first+len(run)]
				first += len(run)
				// a fraction of the optimum lies in [0, 1], and so does its interval
				up, down := make([]float64, len(run)), make([]float64, len(run))
				for k, c := range run {
					half := halfInterval95(c.StdFraction, len(c.Fractions))
					up[k], down[k] = min(c.MeanFraction+half, 1), max(c.MeanFraction-half, 0)
					lo, hi = min(lo, down[k]), max(hi, up[k])
				}
				if len(run) == 1 {
					// a lone point: no line, and its interval as an error bar
					errs := plotter.YErrors{{Low: run[0].MeanFraction - down[0], High: up[0] - run[0].MeanFraction}}
					bars, err := plotter.NewYErrorBars(struct {
						plotter.XYs
						plotter.YErrors
					}{xy, errs})
					if err != nil {
						return nil, err
					}
					bars.Color = col
					bars.Width = vg.Points(1.5)
					front = append(front, bars)
					barred = true
					continue
				}
				band := make(plotter.XYs, 2*len(run))
				for k := range run {
					band[k] = plotter.XY{X: xy[k].X, Y: up[k]}
					band[len(band)-1-k] = plotter.XY{X: xy[k].X, Y: down[k]}
				}
				poly, err := plotter.NewPolygon(band)
				if err != nil {
					return nil, err
				}
				poly.Color = color.NRGBA{col.R, col.G, col.B, alpha} // not premultiplied
				poly.LineStyle.Width = 0
				p.Add(poly)
				shaded = true
				l, err := plotter.NewLine(xy)
				if err != nil {
					return nil, err
				}
				l.LineStyle = style.LineStyle
				front = append(front, l)
			}
			// a mark at every budget: with one budget there is no line to see
			pts, err := plotter.NewScatter(points)
			if err != nil {
				return nil, err
			}
			pts.GlyphStyle.Color = col
			pts.GlyphStyle.Radius = vg.Points(2.5)
			pts.GlyphStyle.Shape = sty.Glyph
			front = append(front, pts)
			label := st
			if same[i] >= 0 {
				label = figure.SameAsLabel(st, order[same[i]])
			}
			p.Legend.Add(label, style, pts)
		}
		p.Add(front...)
		p.Title.Text = title(sp, gaps)
		p.Y.Label.Text = "mean fraction of optimum " + intervalNote(shaded, barred)
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

// sameCurve tells whether two strategies' cells, sorted by budget, draw the same curve:
// the same budgets, and at each the same mean and interval.
func sameCurve(a, b []Cell) bool {
	return slices.EqualFunc(a, b, func(x, y Cell) bool {
		return x.Budget == y.Budget && x.MeanFraction == y.MeanFraction && x.StdFraction == y.StdFraction &&
			len(x.Fractions) == len(y.Fractions)
	})
}

// curveRuns splits one strategy's cells, sorted by budget, into runs of budgets next to
// each other in pos (the index of every budget run): a line joins the points of a run,
// and none crosses a budget whose cell is missing.
func curveRuns(cs []Cell, pos map[int]int) [][]Cell {
	var runs [][]Cell
	for k, c := range cs {
		if k == 0 || pos[c.Budget] != pos[cs[k-1].Budget]+1 {
			runs = append(runs, nil)
		}
		runs[len(runs)-1] = append(runs[len(runs)-1], c)
	}
	return runs
}

// intervalNote says, for a curves figure's axis label, how its 95% intervals are drawn:
// shaded bands along the lines, error bars at lone points, or both.
func intervalNote(shaded, barred bool) string {
	switch {
	case shaded && barred:
		return "(95% interval: shaded; bars at lone points)"
	case barred:
		return "(bars: its 95% interval)"
	default:
		return "(shaded: its 95% interval)"
	}
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
// high values often won. Counts are coloured from light (0) to dark (scale, or the map's
// own largest count where that is larger), with a colour bar beside the map; give every
// map of a benchmark the same scale (CompetitionScale) so that a colour means the same
// count in each. The diagonal, where a strategy would meet itself, is hatched grey and
// marked '–'. It is written into dir as SVG and PNG named competition-<name>, titled
// title. Nothing is drawn when no cell's budget is in [lo, hi] or there is only one
// strategy (nil, nil).
func PlotCompetition(cells []Cell, alpha float64, lo, hi int, scale float64, name, title, dir string) ([]string, error) {
	m, ok := competitionMatrix(cells, alpha, lo, hi)
	if !ok {
		return nil, nil
	}
	names := m.names
	maxWins := max(1, scale, m.max())
	cm, err := winColors(maxWins)
	if err != nil {
		return nil, err
	}
	p := plot.New()
	p.Title.Text = title
	p.Title.Padding = vg.Points(6) // off the figure's top edge
	p.X.Label.Text = "winning strategy: each cell its wins over the row's"
	p.Y.Label.Text = "wins over this strategy"
	p.Add(&winCells{m: m, colors: cm})
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
			txt := "–" // a strategy does not compete with itself
			if r != c {
				txt = fmt.Sprint(m.wins[r][c])
			}
			lbl, err := plotter.NewLabels(plotter.XYLabels{
				XYs:    []plotter.XY{{X: float64(c), Y: float64(m.row(r))}},
				Labels: []string{txt},
			})
			if err != nil {
				return nil, err
			}
			// white on the dark end of the palette, black on its light end
			if col := m.color(cm, r, c); luminance(col) < 0.45 {
				lbl.TextStyle[0].Color = color.White
			}
			lbl.TextStyle[0].XAlign, lbl.TextStyle[0].YAlign = draw.XCenter, draw.YCenter
			p.Add(lbl)
		}
	}
	// square cells, smaller with many strategies but never too small to read a count,
	// and room around them for the names however long they are
	cell := max(0.45*vg.Inch, min(0.8*vg.Inch, 6*vg.Inch/vg.Length(len(names))))
	w, h := figure.SizeFor(p, cell*vg.Length(len(names)), cell*vg.Length(len(names)))
	return figure.SaveColorBar(p, cm, "wins", true, w, h, dir, "competition-"+safeName(name))
}

// CompetitionScale is the largest count of the competition heat maps that Figures draws
// for cells (all spaces and each kernel, both budget ranges of split): the scale that
// gives a count the same colour in all of them.
func CompetitionScale(cells []Cell, alpha float64, split int) float64 {
	scale := 0.0
	for _, r := range CompetitionRanges(split) {
		// a kernel's counts are part of those over all spaces, so these bound theirs
		if m, ok := competitionMatrix(cells, alpha, r.Lo, r.Hi); ok {
			scale = max(scale, m.max())
		}
	}
	return scale
}

// winColors maps win counts in [0, top] to a sequential palette (ColorBrewer's YlGnBu),
// light yellow for none to dark blue for top, its lightness growing steadily with the
// count. No colour of it is a neutral grey, which marks the diagonal.
func winColors(top float64) (palette.ColorMap, error) {
	// darkest first: the palette's luminance must grow along its controls
	cm, err := moreland.NewLuminance([]color.Color{
		color.RGBA{8, 29, 88, 255}, color.RGBA{37, 52, 148, 255}, color.RGBA{34, 94, 168, 255},
		color.RGBA{29, 145, 192, 255}, color.RGBA{65, 182, 196, 255}, color.RGBA{127, 205, 187, 255},
		color.RGBA{199, 233, 180, 255}, color.RGBA{237, 248, 177, 255}, color.RGBA{255, 255, 217, 255},
	})
	if err != nil {
		return nil, err
	}
	rev := palette.Reverse(cm)
	rev.SetMin(0)
	rev.SetMax(top)
	return rev, nil
}

// diagonalColor and hatchColor draw the diagonal's cells: a neutral light grey crossed by
// darker grey hatching, unlike any colour of winColors.
var (
	diagonalColor = color.Gray{Y: 240}
	hatchColor    = color.Gray{Y: 150}
)

// max is the largest count of m (0 when none).
func (m winMatrix) max() float64 {
	top := 0.0
	for r, row := range m.wins {
		for c, v := range row {
			if r != c {
				top = max(top, v)
			}
		}
	}
	return top
}

// color is the fill of m's cell of row r and column c (strategy indices) under cm.
func (m winMatrix) color(cm palette.ColorMap, r, c int) color.Color {
	if r == c {
		return diagonalColor
	}
	col, err := cm.At(min(m.wins[r][c], cm.Max()))
	if err != nil {
		return diagonalColor // not reached: counts lie in [0, cm.Max()]
	}
	return col
}

// winCells draws the cells of a competition heat map: each count in its colour, and the
// diagonal hatched.
type winCells struct {
	m      winMatrix
	colors palette.ColorMap
}

// Plot implements plot.Plotter.
func (w *winCells) Plot(c draw.Canvas, p *plot.Plot) {
	tx, ty := p.Transforms(&c)
	n := len(w.m.names)
	hatch := draw.LineStyle{Color: hatchColor, Width: vg.Points(0.75)}
	for r := range n {
		for col := range n {
			y := float64(w.m.row(r))
			rect := vg.Rectangle{
				Min: vg.Point{X: tx(float64(col) - 0.5), Y: ty(y - 0.5)},
				Max: vg.Point{X: tx(float64(col) + 0.5), Y: ty(y + 0.5)},
			}
			c.SetColor(w.m.color(w.colors, r, col))
			c.Fill(rect.Path())
			if r == col {
				for _, l := range figure.Falling.Lines(rect, vg.Points(6)) {
					c.StrokeLine2(hatch, l[0].X, l[0].Y, l[1].X, l[1].Y)
				}
			}
		}
	}
}

// DataRange implements plot.DataRanger: a unit square around every cell.
func (w *winCells) DataRange() (xmin, xmax, ymin, ymax float64) {
	n := float64(len(w.m.names))
	return -0.5, n - 0.5, -0.5, n - 0.5
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
	scale := CompetitionScale(cells, alpha, split) // one colour scale for all the maps
	drawRanges := func(cells []Cell, name, scope string) error {
		for _, r := range CompetitionRanges(split) {
			f, err := PlotCompetition(cells, alpha, r.Lo, r.Hi, scale, name+r.Name, scope+", "+r.Label, dir)
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
