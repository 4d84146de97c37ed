package landscape

import (
	"context"
	"fmt"
	"image/color"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/ktune/ktune/figure"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Named is one analysed space to plot: its name, analysis and landscape.
type Named struct {
	Name string
	A    *Analysis
	L    *Landscape
}

// save writes p as dir/name.svg and dir/name.png.
func save(p *plot.Plot, w, h vg.Length, dir, name string) ([]string, error) {
	files, err := figure.Save(p, w, h, dir, name)
	if err != nil {
		return files, fmt.Errorf("landscape: %w", err)
	}
	return files, nil
}

// quantile is the linearly interpolated q-quantile of sorted values (position q·(n-1)).
func quantile(sorted []float64, q float64) float64 {
	h := q * float64(len(sorted)-1)
	lo := int(math.Floor(h))
	if lo+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[lo] + (h-float64(lo))*(sorted[lo+1]-sorted[lo])
}

// fullBox is a box plot whose whiskers reach the full extent of the data, as seed 000's
// Fig. 3 draws them (gonum's BoxPlot stops them at 1.5 IQR).
type fullBox struct {
	x                   float64
	lo, q1, med, q3, hi float64
	width               vg.Length
	line                draw.LineStyle
	fill                color.Color
}

func newFullBox(x float64, values []float64) *fullBox {
	s := slices.Clone(values)
	slices.Sort(s)
	return &fullBox{
		x: x, lo: s[0], q1: quantile(s, 0.25), med: quantile(s, 0.5), q3: quantile(s, 0.75), hi: s[len(s)-1],
		width: vg.Points(28),
		line:  draw.LineStyle{Color: color.Black, Width: vg.Points(1)},
		fill:  color.NRGBA{200, 200, 200, 120},
	}
}

// Plot implements plot.Plotter.
func (b *fullBox) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	x := trX(b.x)
	l, r := x-b.width/2, x+b.width/2
	q1, q3 := trY(b.q1), trY(b.q3)
	c.FillPolygon(b.fill, []vg.Point{{X: l, Y: q1}, {X: r, Y: q1}, {X: r, Y: q3}, {X: l, Y: q3}})
	c.StrokeLines(b.line, []vg.Point{{X: l, Y: q1}, {X: r, Y: q1}, {X: r, Y: q3}, {X: l, Y: q3}, {X: l, Y: q1}})
	med := b.line
	med.Width = vg.Points(2)
	c.StrokeLine2(med, l, trY(b.med), r, trY(b.med))
	c.StrokeLine2(b.line, x, q3, x, trY(b.hi))
	c.StrokeLine2(b.line, x, q1, x, trY(b.lo))
	c.StrokeLine2(b.line, x-b.width/4, trY(b.hi), x+b.width/4, trY(b.hi))
	c.StrokeLine2(b.line, x-b.width/4, trY(b.lo), x+b.width/4, trY(b.lo))
}

// DataRange implements plot.DataRanger.
func (b *fullBox) DataRange() (xmin, xmax, ymin, ymax float64) {
	return b.x - 0.5, b.x + 0.5, b.lo, b.hi
}

// PlotMinima draws seed 000's Fig. 3: per space, a box plot (median line, quartile box,
// whiskers to the full extent) of the fraction of optimal fitness of its local minima, with
// each minimum as a dot jittered sideways (deterministically), spaces ordered by
// descending median. Spaces whose fraction is undefined (Analysis.FractionNote) are left
// out and named under the axis. It writes dir/name.svg and dir/name.png and returns their
// paths.
func PlotMinima(items []Named, dir, name string) ([]string, error) {
	type entry struct {
		name   string
		values []float64
		median float64
	}
	var es []entry
	var undefined []string
	for _, it := range items {
		if it.A != nil && it.A.FractionNote != "" {
			undefined = append(undefined, it.Name)
		}
		if it.A == nil || len(it.A.MinimaFractions) == 0 {
			continue
		}
		s := slices.Clone(it.A.MinimaFractions)
		slices.Sort(s)
		es = append(es, entry{it.Name, s, quantile(s, 0.5)})
	}
	if len(es) == 0 {
		return nil, fmt.Errorf("landscape: no space with local minima to plot")
	}
	slices.SortStableFunc(es, func(a, b entry) int { return cmpFloat(b.median, a.median) })
	p := plot.New()
	p.Title.Text = "Fraction of optimal fitness of local optima"
	p.Y.Label.Text = "fraction of optimal fitness"
	p.Y.Max = 1
	names := make([]string, len(es))
	for i, e := range es {
		optima := "optima"
		if len(e.values) == 1 {
			optima = "optimum"
		}
		// a line per part of the name, so that the labels stay level and narrow
		names[i] = fmt.Sprintf("%s\n(%d %s)", strings.ReplaceAll(e.name, "/", "/\n"), len(e.values), optima)
		p.Add(newFullBox(float64(i), e.values))
		r := rand.New(rand.NewPCG(uint64(i), 0x6a6974746572))
		// the values are sorted: an even spread of ranks (the extremes included) keeps
		// their distribution in a few thousand points; the box is drawn from them all
		keep := figure.Thin(len(e.values), figure.MaxPoints, nil)
		pts := make(plotter.XYs, len(keep))
		for k, j := range keep {
			pts[k] = plotter.XY{X: float64(i) + 0.6*(r.Float64()-0.5), Y: e.values[j]}
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, err
		}
		// each box is named under it: its dots' colour need not be unique
		col := figure.Colors[i%len(figure.Colors)]
		sc.GlyphStyle = draw.GlyphStyle{Color: color.NRGBA{col.R, col.G, col.B, 170}, Radius: vg.Points(2), Shape: draw.CircleGlyph{}}
		p.Add(sc)
	}
	p.NominalX(names...)
	// NominalX keeps the vertical axis half the first name's width away from the data, in
	// case the name overhangs it; a slot as wide as the widest name (below) does not
	p.Y.Padding = vg.Points(5)
	if len(undefined) > 0 {
		p.X.Label.Text = "not shown (fraction of optimum undefined): " + listSome(undefined, 4)
	}
	p.Add(plotter.NewGrid())
	p.Y.Tick.Marker = figure.Ticks{} // round steps, five to eight of them
	// Space names are long ("kerneltuner_convolution/RTX_2080_Ti"): written level, a line
	// per part, under a slot as wide as the widest line. Slanted, the first label reached
	// left of the data and pushed the data away from the vertical axis.
	slot := 0.9 * vg.Inch
	for _, n := range names {
		for _, line := range strings.Split(n, "\n") {
			slot = max(slot, p.X.Tick.Label.Width(line)+vg.Points(10))
		}
	}
	w, h := figure.SizeFor(p, max(3.5*vg.Inch, vg.Length(len(es))*slot), 4*vg.Inch)
	w = max(w, p.X.Label.TextStyle.Width(p.X.Label.Text)+vg.Inch)
	return save(p, w, h, dir, name)
}

// PlotCentrality draws seed 000's Fig. 7: the proportion of centrality C_p against p (in
// percent) for each space, one line with markers per space (a space whose curve is
// exactly an earlier one's is named in the legend as the same as that one). It writes
// dir/name.svg and dir/name.png and returns their paths.
func PlotCentrality(items []Named, dir, name string) ([]string, error) {
	p := plot.New()
	p.Title.Text = "Proportion of centrality of local optima"
	p.X.Label.Text = "p (% of the optimal fitness)"
	p.Y.Label.Text = "proportion of centrality C_p"
	p.Y.Min = 0
	p.Y.Tick.Marker = plot.ConstantTicks{{Value: 0, Label: "0"}, {Value: 0.25, Label: "0.25"}, {Value: 0.5, Label: "0.5"},
		{Value: 0.75, Label: "0.75"}, {Value: 1, Label: "1"}}
	p.Legend.Top, p.Legend.Left = true, true
	p.Add(plotter.NewGrid())
	var shown []Named
	for _, it := range items {
		if it.A != nil && len(it.A.Proportions) > 0 {
			shown = append(shown, it)
		}
	}
	// a space whose curve is an earlier one's (two recordings of the same measurements)
	// lies exactly over it: its legend says so
	same := figure.SameAs(len(shown), func(i, j int) bool {
		return slices.Equal(shown[i].A.Proportions, shown[j].A.Proportions)
	})
	for i, it := range shown {
		pts := make(plotter.XYs, len(it.A.Proportions))
		for k, q := range it.A.Proportions {
			pts[k] = plotter.XY{X: 100 * q.P, Y: q.C}
		}
		l, s, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, err
		}
		sty := figure.SeriesStyle(i)
		l.Color, l.Width, l.Dashes = sty.Color, vg.Points(1.5), sty.Dashes
		s.Color, s.Shape, s.Radius = sty.Color, sty.Glyph, vg.Points(2.5)
		p.Add(l, s)
		label := it.Name
		if same[i] >= 0 {
			label = figure.SameAsLabel(it.Name, shown[same[i]].Name)
		}
		p.Legend.Add(label, l, s)
	}
	drawn := len(shown)
	if drawn == 0 {
		return nil, fmt.Errorf("landscape: no space with proportions of centrality to plot")
	}
	// Headroom above C_p = 1 for the legend, so it never hides a curve.
	p.Y.Max = 1.02 + 0.065*float64(drawn)
	return save(p, 7*vg.Inch, 4*vg.Inch+vg.Length(drawn)*0.18*vg.Inch, dir, name)
}

// Colours of the flow graph's nodes.
var (
	// undefinedColor marks the successful nodes of a landscape without a fraction of
	// optimum; it is none of fractionStops' colours.
	undefinedColor = color.NRGBA{31, 119, 180, 255}
	failedColor    = color.NRGBA{190, 190, 190, 255}
	optimumColor   = color.NRGBA{0, 170, 0, 255}
	edgeColor      = color.NRGBA{190, 190, 190, 140}
)

// fractionStops are the colours of fractions of optimal fitness fractionFloor, ..., 1 in
// equal steps (dark blue through purple and orange to yellow: no grey or green, which mark
// failures and the optimum).
var fractionStops = []color.NRGBA{{13, 8, 135, 255}, {126, 3, 168, 255}, {204, 71, 120, 255}, {248, 149, 64, 255}, {240, 249, 33, 255}}

// fractionColor interpolates fractionStops; fractions below fractionFloor share its colour.
func fractionColor(f float64) color.NRGBA {
	t := (math.Min(1, math.Max(fractionFloor, f)) - fractionFloor) / (1 - fractionFloor) * float64(len(fractionStops)-1)
	i := min(int(t), len(fractionStops)-2)
	u := t - float64(i)
	a, b := fractionStops[i], fractionStops[i+1]
	mix := func(x, y uint8) uint8 { return uint8(math.Round(float64(x) + u*(float64(y)-float64(x)))) }
	return color.NRGBA{mix(a.R, b.R), mix(a.G, b.G), mix(a.B, b.B), 255}
}

// fractionFloor is the lowest fraction of optimal fitness the flow graph's colours resolve.
const fractionFloor = 0.75

// flowGraphPlotter draws a laid-out flow graph: edges, then nodes from worst to best.
type flowGraphPlotter struct {
	pos    []point
	g      *Graph
	colors []color.Color
	radius []vg.Length
	order  []int
	minX   float64
	maxX   float64
	minY   float64
	maxY   float64
}

// Plot implements plot.Plotter.
func (f *flowGraphPlotter) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	// One stroke per edge: the rasteriser slows down quadratically on one long path.
	sty := draw.LineStyle{Color: edgeColor, Width: vg.Points(0.3)}
	for u := range f.g.N() {
		for _, v := range f.g.Successors(u) {
			if int(v) < u && f.g.hasEdge(int(v), int32(u)) {
				continue // drawn once for both directions
			}
			c.StrokeLine2(sty, trX(f.pos[u].x), trY(f.pos[u].y), trX(f.pos[v].x), trY(f.pos[v].y))
		}
	}
	for _, i := range f.order {
		c.DrawGlyph(draw.GlyphStyle{Color: f.colors[i], Radius: f.radius[i], Shape: outlinedDot{}},
			vg.Point{X: trX(f.pos[i].x), Y: trY(f.pos[i].y)})
	}
}

// DataRange implements plot.DataRanger.
func (f *flowGraphPlotter) DataRange() (xmin, xmax, ymin, ymax float64) {
	return f.minX, f.maxX, f.minY, f.maxY
}

// outlinedDot is a filled circle with a thin dark rim, so that light dots (the yellow of
// fraction 1) stand out on white.
type outlinedDot struct{}

// dotRim is outlinedDot's rim.
var dotRim = draw.LineStyle{Color: color.Gray{Y: 60}, Width: vg.Points(0.3)}

// DrawGlyph implements draw.GlyphDrawer.
func (outlinedDot) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	draw.CircleGlyph{}.DrawGlyph(c, sty, pt)
	c.SetLineStyle(dotRim)
	var rim vg.Path
	rim.Move(vg.Point{X: pt.X + sty.Radius, Y: pt.Y})
	rim.Arc(pt, sty.Radius, 0, 2*math.Pi)
	rim.Close()
	c.Stroke(rim)
}

// PlotFlowGraph draws seed 000's Fig. 6 for a small space: the fitness flow graph g of
// item's landscape under a deterministic force-directed layout, edges as thin grey lines,
// nodes coloured by fraction of optimal fitness over [0.75, 1] (lower fractions share the
// colour of 0.75; all successful nodes one colour where the fraction is undefined), failed
// nodes grey, the global optimum green, local minima larger. It
// refuses graphs of more than maxNodes nodes (0 means 5000). It writes dir/name.svg and
// dir/name.png and returns their paths. The layout, a minute for 20,000 nodes, stops when
// ctx is done, and PlotFlowGraph then returns ctx's error and writes nothing.
func PlotFlowGraph(ctx context.Context, item Named, g *Graph, dir, name string, maxNodes int) ([]string, error) {
	if maxNodes == 0 {
		maxNodes = 5000
	}
	switch {
	case item.L == nil || item.A == nil:
		return nil, fmt.Errorf("landscape: flow graph plot needs the landscape and its analysis")
	case g.N() > maxNodes:
		return nil, fmt.Errorf("landscape: flow graph of %d nodes is over the limit of %d", g.N(), maxNodes)
	case g.N() != len(item.L.Objective) || len(item.A.Classes) != g.N():
		return nil, fmt.Errorf("landscape: flow graph of %d nodes for a landscape of %d and an analysis of %d",
			g.N(), len(item.L.Objective), len(item.A.Classes))
	}
	pos, err := layout(ctx, g, 300, 1)
	if err != nil {
		return nil, err
	}
	fp := &flowGraphPlotter{pos: pos, g: g, colors: make([]color.Color, g.N()), radius: make([]vg.Length, g.N()),
		minX: math.Inf(1), maxX: math.Inf(-1), minY: math.Inf(1), maxY: math.Inf(-1)}
	opt, at := item.L.optimum()
	// without a fraction of optimum (optimum 0, negative values) successes share one colour
	undefined := item.L.fractionUndefined(opt) != ""
	rank := make([]float64, g.N()) // drawing order: failed, then by fraction, minima last
	failed, floor := false, false  // whether the legend's last classes occur
	for i, v := range item.L.Objective {
		p := pos[i]
		fp.minX, fp.maxX = math.Min(fp.minX, p.x), math.Max(fp.maxX, p.x)
		fp.minY, fp.maxY = math.Min(fp.minY, p.y), math.Max(fp.maxY, p.y)
		fp.radius[i] = vg.Points(1.3)
		switch {
		case !ok(v):
			fp.colors[i], rank[i] = failedColor, -1
			failed = true
		case undefined:
			fp.colors[i] = undefinedColor
		default:
			frac := item.L.fraction(v, opt)
			fp.colors[i], rank[i] = fractionColor(frac), frac
			floor = floor || frac <= fractionFloor
		}
		if item.A.Classes[i] == Minimum {
			fp.radius[i] = vg.Points(3.5)
			rank[i] += 2
		}
	}
	// room for the dots at the edges (their radius lies outside the positions' range), and
	// for the legend above the graph
	padX, padY := 0.03*(fp.maxX-fp.minX), 0.03*(fp.maxY-fp.minY)
	fp.minX, fp.maxX, fp.minY = fp.minX-padX, fp.maxX+padX, fp.minY-padY
	fp.maxY += 0.25 * (fp.maxY - fp.minY)
	if at >= 0 {
		fp.colors[at], fp.radius[at], rank[at] = optimumColor, vg.Points(5), 10
	}
	fp.order = make([]int, g.N())
	for i := range fp.order {
		fp.order[i] = i
	}
	slices.SortStableFunc(fp.order, func(a, b int) int { return cmpFloat(rank[a], rank[b]) })

	p := plot.New()
	p.Title.Text = fmt.Sprintf("Fitness flow graph: %s (%s, %d nodes, %d edges)", item.Name, item.A.Neighbourhood, g.N(), g.Edges())
	p.HideAxes()
	p.Add(fp)
	legend := func(label string, col color.Color, r vg.Length) {
		sc, _ := plotter.NewScatter(plotter.XYs{})
		sc.GlyphStyle = draw.GlyphStyle{Color: col, Radius: r, Shape: outlinedDot{}}
		p.Legend.Add(label, sc)
	}
	legend("global optimum", optimumColor, vg.Points(5))
	if undefined {
		legend("successful (fraction of optimum undefined)", undefinedColor, vg.Points(3))
	} else {
		for _, f := range []float64{1, 0.95, 0.9, 0.85, 0.8} {
			legend(fmt.Sprintf("fraction of optimum %.2f", f), fractionColor(f), vg.Points(3))
		}
	}
	if floor {
		legend(fmt.Sprintf("fraction of optimum <= %.2f", fractionFloor), fractionColor(fractionFloor), vg.Points(3))
	}
	if failed {
		legend("failed", failedColor, vg.Points(3))
	}
	// a local optimum is drawn in its own colour, larger: so is its legend's dot
	minimum := undefinedColor
	if !undefined {
		minimum = fractionColor(0.9)
	}
	legend("local optimum (larger dot, in its colour)", minimum, vg.Points(3.5))
	p.Legend.Top, p.Legend.Left = true, false
	p.Legend.XOffs = vg.Points(-4)
	return save(p, 8*vg.Inch, 8*vg.Inch, dir, name)
}

// listSome lists up to n names, and how many more there are.
func listSome(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}
