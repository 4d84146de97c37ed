package analysis

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ktune/ktune/figure"
	"github.com/ktune/ktune/sensitivity"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// plotSignificance draws the Pearson correlation of each parameter with the objective as
// horizontal bars, sorted, coloured by sign, always showing the desirable direction in
// blue and the other in red: for a minimised objective a negative correlation (larger
// values of the parameter lower it), for a maximised one a positive correlation (seed 004,
// Section 5.3). It writes name.svg and name.png into dir and returns their paths.
func plotSignificance(cs []sensitivity.Correlation, objective string, maximize bool, space, dir, name string) ([]string, error) {
	if len(cs) == 0 {
		return nil, fmt.Errorf("sensitivity: no correlations to plot")
	}
	sorted := slices.Clone(cs)
	// Most desirable at the top (the last row of the y axis), undefined ones at the bottom.
	desirability := func(c sensitivity.Correlation) float64 {
		if math.IsNaN(c.Pearson) {
			return math.Inf(-1)
		}
		if maximize {
			return c.Pearson
		}
		return -c.Pearson
	}
	slices.SortStableFunc(sorted, func(a, b sensitivity.Correlation) int { return cmp.Compare(desirability(a), desirability(b)) })

	p := plot.New()
	better, verb := "lower", "lower it"
	if maximize {
		better, verb = "higher", "raise it"
	}
	p.Title.Text = titled(space, fmt.Sprintf("Correlation with %s (%s is better)", objective, better))
	p.X.Label.Text = fmt.Sprintf("Pearson correlation; blue: larger parameter values %s (desirable), red: the opposite", verb)
	p.X.Min, p.X.Max = -1, 1
	p.X.Tick.Marker = figure.Ticks{}
	labels := make([]string, len(sorted))
	ordinal := false
	for k, c := range sorted {
		labels[k] = c.Param
		if c.Ordinal {
			labels[k] += "*"
			ordinal = true
		}
		if math.IsNaN(c.Pearson) {
			labels[k] += " (constant)"
			continue
		}
		// by the sign alone: a weak correlation's bar keeps the key's full colour, where a
		// scale by size turned it grey
		col := undesirableColor
		if desirability(c) > 0 {
			col = desirableColor
		}
		bar, err := rect(0, c.Pearson, float64(k)-0.35, float64(k)+0.35, col)
		if err != nil {
			return nil, err
		}
		p.Add(bar)
	}
	if ordinal {
		p.X.Label.Text += "\n* string values, encoded by their position in the value list"
	}
	zero, err := plotter.NewLine(plotter.XYs{{X: 0, Y: -0.6}, {X: 0, Y: float64(len(sorted)) - 0.4}})
	if err != nil {
		return nil, err
	}
	zero.Width = vg.Points(1)
	p.Add(zero, plotter.NewGrid())
	p.NominalY(labels...)
	// bars beside however long the names are, as wide as the key centred under them
	data := max(4*vg.Inch, p.X.Label.TextStyle.Width(p.X.Label.Text)+vg.Points(12))
	w, h := figure.SizeFor(p, data, vg.Length(max(0.5, 0.3*float64(len(sorted))))*vg.Inch)
	w = max(w, 7*vg.Inch)
	return save(p, w, h, dir, name)
}

// desirableColor and undesirableColor fill the significance chart's bars: saturated
// enough to tell apart for any correlation, however weak.
var (
	desirableColor   = color.NRGBA{33, 102, 172, 255}
	undesirableColor = color.NRGBA{198, 40, 40, 255}
)

// lighter mixes c with white, for the total-order bar next to a first-order one.
func lighter(c color.RGBA) color.RGBA {
	mix := func(v uint8) uint8 { return uint8((int(v) + 2*255) / 3) }
	return color.RGBA{mix(c.R), mix(c.G), mix(c.B), 255}
}

// plotSensitivity draws the first- and total-order indices of each parameter side by side
// (first solid, total in a lighter shade of the parameter's own colour) with their 95%
// intervals as error bars, into dir as name.svg and name.png; when s has second-order
// indices, a second chart (name-second) shows the ten strongest pairs. It returns the
// paths written.
// Parameters for which constant holds (one value among the data) are labelled so: their
// indices are zero by construction, not by measurement.
func plotSensitivity(s *sensitivity.Sobol, constant func(param string) bool, space, dir, name string) ([]string, error) {
	p, w, h, err := sobolChart(s, constant, space)
	if err != nil {
		return nil, err
	}
	files, err := save(p, w, h, dir, name)
	if err != nil || len(s.Second) == 0 {
		return files, err
	}
	more, err := plotPairs(s, constant, space, dir, name+"-second")
	return append(files, more...), err
}

// sobolChart is plotSensitivity's first- and total-order chart and the size to save it
// at.
func sobolChart(s *sensitivity.Sobol, constant func(param string) bool, space string) (*plot.Plot, vg.Length, vg.Length, error) {
	if s == nil || len(s.First) == 0 {
		return nil, 0, 0, fmt.Errorf("sensitivity: no indices to plot")
	}
	p := plot.New()
	p.Title.Text = titled(space, fmt.Sprintf("Sobol indices (%s, %d samples, 95%% bootstrap intervals)", s.Method, s.Samples))
	switch {
	case s.Method == sensitivity.Exact:
		// the whole product: no sampling error, no interval (sensitivity.SobolTable)
		p.Title.Text = titled(space, fmt.Sprintf("Sobol indices (exact over the full product of %d configurations)", s.Samples))
	case s.Bootstrap == 0:
		p.Title.Text = titled(space, fmt.Sprintf("Sobol indices (%s, %d samples)", s.Method, s.Samples))
	}
	p.Y.Label.Text = "share of the objective's variance"
	p.X.Label.Text = "left, solid: first order (alone); right, light: total order (with all interactions)"
	if s.Method == sensitivity.Empirical {
		// from the configurations that share all other values: it can fall below the
		// first order, as the text output says
		p.X.Label.Text = "left, solid: first order (alone); right, light: total order (a lower bound: empirical)"
	}
	var errs plotter.XYs
	var lo plotter.YErrors
	const w = 0.38
	top := 1.0
	for k := range s.First {
		// each parameter's pair of bars is named under it, and past ten parameters the
		// colours come round again hatched, never in look-alike shades
		sty := figure.SeriesStyle(k)
		for side, iv := range []sensitivity.Interval{s.First[k], s.Total[k]} {
			v := iv.Value
			if math.IsNaN(v) {
				continue
			}
			x0 := float64(k) - w + float64(side)*w
			b := &bar{x0: x0, x1: x0 + w, y1: v, fill: sty.Color, edge: sty.Color, hatch: sty.Hatch, hatchColor: color.White}
			if side == 1 {
				b.fill, b.hatchColor = lighter(sty.Color), sty.Color
			}
			p.Add(b)
			if !math.IsNaN(iv.Low) && !math.IsNaN(iv.High) {
				errs = append(errs, plotter.XY{X: x0 + w/2, Y: v})
				lo = append(lo, struct{ Low, High float64 }{v - iv.Low, iv.High - v})
				top = max(top, iv.High)
			}
			top = max(top, v)
		}
	}
	if len(errs) > 0 {
		eb, err := plotter.NewYErrorBars(struct {
			plotter.XYs
			plotter.YErrors
		}{errs, lo})
		if err != nil {
			return nil, 0, 0, err
		}
		eb.CapWidth = vg.Points(4)
		p.Add(eb)
	}
	p.Add(plotter.NewGrid())
	p.Y.Min, p.Y.Max = math.Min(0, minIndex(s)), top*1.05
	p.Y.Tick.Marker = shareTicks{}
	labels := slices.Clone(s.Params)
	for k, n := range labels {
		if constant != nil && constant(n) {
			labels[k] += " (constant)"
		}
	}
	// a slot per parameter, its bars clear of the slot's edges and so of the data area's,
	// and the data area right at the vertical axis (gonum's NominalX kept it half the
	// first name's width away, for a name that might overhang)
	p.X.Min, p.X.Max = -0.5, float64(len(labels))-0.5
	p.X.Tick.Width, p.X.Tick.Length, p.X.Width = 0, 0, 0
	p.Y.Padding = 0
	slot := sobolLabels(p, labels)
	// bars beside however long the names are, and as wide as the key centred under them
	data := max(vg.Length(len(labels))*slot, p.X.Label.TextStyle.Width(p.X.Label.Text)+vg.Points(12))
	width, height := figure.SizeFor(p, data, 3.5*vg.Inch)
	return p, width, height, nil
}

// Room for the Sobol chart's parameter names: a slot is at least sobolMinSlot wide; the
// names wrap to keep the slots together within sobolMaxData, and where their longest word
// would still make them wider than sobolMaxLevel they are written upright.
const (
	sobolMinSlot  = vg.Length(0.7 * vg.Inch)
	sobolMaxData  = vg.Length(10 * vg.Inch)
	sobolMaxLevel = vg.Length(14 * vg.Inch)
	sobolSlotGap  = vg.Length(8) // between the names of neighbouring slots
)

// sobolLabels sets p's horizontal ticks to the parameter names under their bars and
// returns the width of a slot. The names are level, a slot as wide as the widest line:
// on one line where the chart stays within sobolMaxData, otherwise wrapped after an
// underscore or before a space (WORK_GROUP_ / SIZE_X), no narrower than their longest
// word; where that makes the slots wider than sobolMaxLevel, they are written upright, in
// slots of sobolMinSlot. Slanted, the first name reached left of the data and pushed the
// data away from the vertical axis.
func sobolLabels(p *plot.Plot, labels []string) vg.Length {
	font := p.X.Tick.Label
	n := vg.Length(len(labels))
	limit := max(sobolMinSlot, sobolMaxData/n) - sobolSlotGap
	for _, l := range labels {
		for _, wd := range words(l) {
			limit = max(limit, font.Width(strings.TrimPrefix(wd, " ")))
		}
	}
	lines := make([]string, len(labels))
	widest := vg.Length(0)
	for k, l := range labels {
		lines[k] = wrapWords(l, limit, font.Width)
		for _, line := range strings.Split(lines[k], "\n") {
			widest = max(widest, font.Width(line))
		}
	}
	slot := max(sobolMinSlot, widest+sobolSlotGap)
	if n*slot > sobolMaxLevel {
		lines, slot = labels, sobolMinSlot
		p.X.Tick.Label.Rotation = math.Pi / 2
		p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YCenter
	}
	ticks := make([]plot.Tick, len(labels))
	for k, l := range lines {
		ticks[k] = plot.Tick{Value: float64(k), Label: l}
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	return slot
}

// words splits a name where it may wrap: after each underscore, and before each space
// (which the word keeps).
func words(s string) []string {
	var out []string
	start := 0
	for i, r := range s {
		switch {
		case r == '_':
			out = append(out, s[start:i+1])
			start = i + 1
		case r == ' ' && i > start:
			out = append(out, s[start:i])
			start = i
		}
	}
	return append(out, s[start:])
}

// wrapWords breaks s into lines no wider than limit by width where it can (words), a line
// holding as many words as fit; a space at a break is dropped. A word wider than limit
// keeps a line of its own.
func wrapWords(s string, limit vg.Length, width func(string) vg.Length) string {
	var out []string
	line := ""
	for _, wd := range words(s) {
		if line != "" && width(line+wd) > limit {
			out = append(out, line)
			wd = strings.TrimPrefix(wd, " ")
			line = ""
		}
		line += wd
	}
	return strings.Join(append(out, line), "\n")
}

// bar is one bar of the Sobol chart, from 0 to its value: filled, outlined and hatched.
type bar struct {
	x0, x1, y1 float64
	fill, edge color.Color
	hatch      figure.Hatch
	hatchColor color.Color
}

// Plot implements plot.Plotter.
func (b *bar) Plot(c draw.Canvas, p *plot.Plot) {
	tx, ty := p.Transforms(&c)
	r := vg.Rectangle{
		Min: vg.Point{X: tx(b.x0), Y: min(ty(0), ty(b.y1))},
		Max: vg.Point{X: tx(b.x1), Y: max(ty(0), ty(b.y1))},
	}
	c.SetColor(b.fill)
	c.Fill(r.Path())
	hatch := draw.LineStyle{Color: b.hatchColor, Width: vg.Points(0.8)}
	for _, l := range b.hatch.Lines(r, vg.Points(4)) {
		c.StrokeLine2(hatch, l[0].X, l[0].Y, l[1].X, l[1].Y)
	}
	c.SetLineStyle(draw.LineStyle{Color: b.edge, Width: vg.Points(0.8)})
	c.Stroke(r.Path())
}

// DataRange implements plot.DataRanger.
func (b *bar) DataRange() (xmin, xmax, ymin, ymax float64) {
	return b.x0, b.x1, min(0, b.y1), max(0, b.y1)
}

// minIndex returns the smallest value or lower bound of s's first and total indices.
func minIndex(s *sensitivity.Sobol) float64 {
	m := 0.0
	for k := range s.First {
		for _, iv := range []sensitivity.Interval{s.First[k], s.Total[k]} {
			for _, v := range []float64{iv.Value, iv.Low} {
				if !math.IsNaN(v) {
					m = math.Min(m, v)
				}
			}
		}
	}
	return m
}

// shareTicks marks a share of variance at 0, 1 and the steps between (0.25 or 0.5 apart,
// or wider for a range far outside [0, 1]), so that the bounds every index should keep
// to are always on the axis.
type shareTicks struct{}

// Ticks implements plot.Ticker.
func (shareTicks) Ticks(lo, hi float64) []plot.Tick {
	step := 0.25
	for (hi-lo)/step > 8 {
		step *= 2
	}
	var ticks []plot.Tick
	for v := math.Ceil(lo/step) * step; v <= hi+1e-9; v += step {
		if math.Abs(v) < 1e-9 {
			v = 0
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', 4, 64)})
	}
	return ticks
}

// plotPairs draws the ten strongest second-order indices by size (absolute value: a
// negative estimate is noise or a real cancelling interaction, and either is worth
// seeing) as horizontal bars with their intervals, the strongest at the top. Parameters
// for which constant holds are labelled so, as in the first-order chart. The canvas is as
// wide as the longest pair's label needs beside bars of a fixed width.
func plotPairs(s *sensitivity.Sobol, constant func(param string) bool, space, dir, name string) ([]string, error) {
	pairs := slices.Clone(s.Second)
	pairs = slices.DeleteFunc(pairs, func(p sensitivity.Pair) bool { return math.IsNaN(p.Index.Value) })
	slices.SortStableFunc(pairs, func(a, b sensitivity.Pair) int {
		return cmp.Compare(math.Abs(b.Index.Value), math.Abs(a.Index.Value))
	})
	pairs = pairs[:min(10, len(pairs))]
	slices.Reverse(pairs)
	p := plot.New()
	p.Title.Text = titled(space, "Strongest parameter interactions (second-order Sobol indices, by absolute value)")
	p.X.Label.Text = "share of the objective's variance due to the pair beyond each parameter alone"
	labels := make([]string, len(pairs))
	var errs plotter.XYs
	var xe plotter.XErrors
	lo, hi := 0.0, 0.0
	for k, pr := range pairs {
		for _, v := range []float64{pr.Index.Value, pr.Index.Low, pr.Index.High} {
			if !math.IsNaN(v) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
		labels[k] = paramLabel(s.Params[pr.I], constant) + " × " + paramLabel(s.Params[pr.J], constant)
		v := pr.Index.Value
		bar, err := rect(0, v, float64(k)-0.35, float64(k)+0.35, color.NRGBA{90, 110, 140, 255})
		if err != nil {
			return nil, err
		}
		p.Add(bar)
		if !math.IsNaN(pr.Index.Low) && !math.IsNaN(pr.Index.High) {
			errs = append(errs, plotter.XY{X: v, Y: float64(k)})
			xe = append(xe, struct{ Low, High float64 }{v - pr.Index.Low, pr.Index.High - v})
		}
	}
	if len(errs) > 0 {
		eb, err := plotter.NewXErrorBars(struct {
			plotter.XYs
			plotter.XErrors
		}{errs, xe})
		if err != nil {
			return nil, err
		}
		eb.CapWidth = vg.Points(4)
		p.Add(eb)
	}
	zero, err := plotter.NewLine(plotter.XYs{{X: 0, Y: -0.6}, {X: 0, Y: float64(len(pairs)) - 0.4}})
	if err != nil {
		return nil, err
	}
	p.Add(zero, plotter.NewGrid())
	if hi-lo < 1e-12 {
		// every index 0 (a constant parameter's pairs are 0 by construction): no bar to
		// show, on the axis of a share of variance rather than around a point
		p.Title.Text += "\n(every index shown is 0)"
		p.X.Min, p.X.Max = 0, 1
	} else {
		pad := 0.05 * math.Max(hi-lo, 0.01)
		p.X.Min, p.X.Max = lo-pad, hi+pad
	}
	p.X.Tick.Marker = figure.Ticks{} // round numbers, 0 among them
	p.NominalY(labels...)
	// bars as wide as the axis's label centred under them, beside the pairs' labels
	data := max(5*vg.Inch, p.X.Label.TextStyle.Width(p.X.Label.Text)+vg.Points(12))
	w, h := figure.SizeFor(p, data, vg.Length(max(0.5, 0.35*float64(len(pairs))))*vg.Inch)
	return save(p, max(w, 7*vg.Inch), h, dir, name)
}

// paramLabel is a parameter's name on a chart, marked "(constant)" where constant says
// it had one value among the data (its indices are 0 by construction, not measured).
func paramLabel(name string, constant func(string) bool) string {
	if constant != nil && constant(name) {
		return name + " (constant)"
	}
	return name
}

// rect returns a filled rectangle in data coordinates.
func rect(x0, x1, y0, y1 float64, fill color.Color) (*plotter.Polygon, error) {
	poly, err := plotter.NewPolygon(plotter.XYs{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
	if err != nil {
		return nil, err
	}
	poly.Color = fill
	poly.LineStyle.Width = 0
	return poly, nil
}

// save writes p as dir/name.svg and dir/name.png.
// titled is a figure's title under the name of the space it is of (a figure copied
// elsewhere keeps what it shows); title alone where the name is empty.
func titled(space, title string) string {
	if space == "" {
		return title
	}
	return space + "\n" + title
}

func save(p *plot.Plot, w, h vg.Length, dir, name string) ([]string, error) {
	files, err := figure.Save(p, w, h, dir, name)
	if err != nil {
		return files, fmt.Errorf("sensitivity: %w", err)
	}
	return files, nil
}
