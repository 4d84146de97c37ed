package figure

import (
	"fmt"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/ktune/ktune/internal/outfile"
)

// colorBarWidth is the strip beside a figure that SaveColorBar gives its colour bar: the
// bar, its tick labels and its axis label.
const colorBarWidth = vg.Length(1.1 * vg.Inch)

// SaveColorBar is Save with a vertical colour bar of cm to the right of p, as tall as p's
// data and labelled label, so that a colour in p can be read as a value: the plot takes w
// by h and the bar a strip beside it. integer keeps the bar's ticks at whole numbers (for
// counts).
func SaveColorBar(p *plot.Plot, cm palette.ColorMap, label string, integer bool, w, h vg.Length, dir, name string) ([]string, error) {
	bar := colorBar(cm, label, integer)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var files []string
	for _, ext := range []string{"svg", "png"} {
		path := filepath.Join(dir, name+"."+ext)
		c, err := draw.NewFormattedCanvas(w+colorBarWidth, h, ext)
		if err != nil {
			return files, err
		}
		pc, bc := colorBarLayout(p, bar, draw.New(c), w)
		p.Draw(pc)
		bar.Draw(bc)
		if err := writeCanvas(c, path); err != nil {
			return files, fmt.Errorf("write %s: %w", path, outfile.Cause(err, path))
		}
		files = append(files, path)
	}
	return files, nil
}

// colorBar is the plot of SaveColorBar's bar: cm from bottom to top beside an axis
// labelled label.
func colorBar(cm palette.ColorMap, label string, integer bool) *plot.Plot {
	bar := plot.New()
	bar.HideX()
	bar.X.Padding = 0
	bar.Y.Label.Text = label
	bar.Y.Tick.Marker = Ticks{Integer: integer}
	bar.Y.Padding = 0
	bar.Add(colorStrip{cm})
	bar.Y.Min, bar.Y.Max = cm.Min(), cm.Max()
	return bar
}

// colorBarLayout splits dc, a figure's canvas with p w wide to the left of a colour bar,
// into the canvases to draw p and bar in: the bar's strip spans the height of p's data
// exactly (a heat map's cells), its axis on its left.
func colorBarLayout(p, bar *plot.Plot, dc draw.Canvas, w vg.Length) (pc, bc draw.Canvas) {
	pc = draw.Crop(dc, margin, -colorBarWidth, 0, -margin)
	data := p.DataCanvas(pc)
	bc = draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
		Min: vg.Point{X: w, Y: data.Min.Y},
		Max: vg.Point{X: w + colorBarWidth - 2*margin, Y: data.Max.Y},
	}}
	// without its axis, whose width the bar's own plot takes on its left
	bw := bc.Max.X - bc.Min.X
	bc = draw.Crop(bc, 0, -max(0, bw-barAxisWidth(bar)-vg.Points(14)), 0, 0)
	// gonum keeps the bar's data clear of its tick labels that overhang its ends: stretch
	// the canvas by as much, so that the strip's ends meet those of p's data (the padding
	// grows a little with the canvas, hence a few rounds)
	for range 4 {
		d := bar.DataCanvas(bc)
		bc.Min.Y += data.Min.Y - d.Min.Y
		bc.Max.Y += data.Max.Y - d.Max.Y
	}
	return pc, bc
}

// barAxisWidth is the width of bar's vertical axis: its label, tick labels and ticks.
func barAxisWidth(bar *plot.Plot) vg.Length {
	c := draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: 1000, Y: 1000}}}
	return bar.DataCanvas(c).Min.X
}

// SizeFor returns the size to give Save for p so that its data area is at least dataW by
// dataH, whatever room p's title, axis labels and tick labels take (long or slanted
// labels no longer squeeze the data).
func SizeFor(p *plot.Plot, dataW, dataH vg.Length) (w, h vg.Length) {
	w, h = dataW+2*margin, dataH+margin
	// the padding for labels that overhang the data depends on the data's size, and on a
	// canvas too small for them gonum's padding turns the data area inside out; so grow
	// the canvas until the data area is sound, then correct it by what the data lacks or
	// has too much, a few rounds
	goodW, goodH := vg.Length(0), vg.Length(0) // the last size with room for the data
	for range 40 {
		cw, ch := w-2*margin, h-margin
		dc := p.DataCanvas(draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: cw, Y: ch}}})
		dw, dh := dc.Max.X-dc.Min.X, dc.Max.Y-dc.Min.Y
		badX := dw <= 0 || dc.Min.X < 0 || dc.Max.X > cw
		badY := dh <= 0 || dc.Min.Y < 0 || dc.Max.Y > ch
		if badX || badY {
			if badX {
				w *= 1.5
			}
			if badY {
				h *= 1.5
			}
			continue
		}
		if dw >= dataW-0.01 && dh >= dataH-0.01 {
			goodW, goodH = w, h
			if dw < dataW+0.5 && dh < dataH+0.5 {
				break
			}
		}
		w += dataW - dw
		h += dataH - dh
	}
	if goodW > 0 {
		return goodW, goodH
	}
	return w, h
}

// colorStrip draws cm from bottom (its minimum) to top as a stack of filled bands: vector
// shapes, where gonum's ColorBar embeds an image that some SVG renderers leave out.
type colorStrip struct {
	cm palette.ColorMap
}

// Plot implements plot.Plotter.
func (s colorStrip) Plot(c draw.Canvas, p *plot.Plot) {
	const bands = 128
	_, ty := p.Transforms(&c)
	lo, hi := s.cm.Min(), s.cm.Max()
	for i := range bands {
		v0 := lo + (hi-lo)*float64(i)/bands
		v1 := lo + (hi-lo)*float64(i+1)/bands
		col, err := s.cm.At((v0 + v1) / 2)
		if err != nil {
			continue
		}
		c.SetColor(col)
		// overlapping the next band, so that no seam shows between them
		r := vg.Rectangle{Min: vg.Point{X: c.Min.X, Y: ty(v0)}, Max: vg.Point{X: c.Max.X, Y: ty(v1) + overlap(i < bands-1)}}
		c.Fill(r.Path())
	}
}

// DataRange implements plot.DataRanger.
func (s colorStrip) DataRange() (xmin, xmax, ymin, ymax float64) {
	return 0, 1, s.cm.Min(), s.cm.Max()
}

// overlap is how far a band of a colour strip reaches into the next one, if there is one.
func overlap(next bool) vg.Length {
	if next {
		return 1
	}
	return 0
}
