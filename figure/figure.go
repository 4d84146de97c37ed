// Package figure writes ktune's plots: every figure goes out as SVG (for reports and
// papers) and PNG (for a quick look), under one name.
package figure

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/ktune/ktune/internal/outfile"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// margin keeps a title clear of the image's top edge, and tick labels clear of its left
// and right edges, where gonum's plot draws them flush (a long label lost its first
// letters).
const margin = vg.Length(6)

// Save writes p, w by h, as dir/name.svg and dir/name.png, creating dir, and returns the
// paths written (those written before a failure too).
func Save(p *plot.Plot, w, h vg.Length, dir, name string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var files []string
	for _, ext := range []string{"svg", "png"} {
		path := filepath.Join(dir, name+"."+ext)
		c, err := draw.NewFormattedCanvas(w, h, ext)
		if err != nil {
			return files, err
		}
		p.Draw(draw.Crop(draw.New(c), margin, -margin, 0, -margin))
		if err := writeCanvas(c, path); err != nil {
			return files, fmt.Errorf("write %s: %w", path, err)
		}
		files = append(files, path)
	}
	return files, nil
}

// SaveLegendRight is Save with p's legend drawn to the right of the plot instead of over
// its data, where many entries (a benchmark of twenty strategies) would hide the curves:
// the plot takes w by h and the legend the width it needs beside it.
func SaveLegendRight(p *plot.Plot, w, h vg.Length, dir, name string) ([]string, error) {
	orig, legend := p.Legend, p.Legend
	p.Legend = plot.NewLegend()
	defer func() { p.Legend = orig }()
	legend.Top, legend.Left = true, true
	r := legend.Rectangle(draw.Canvas{})
	gap := vg.Points(12)
	lw := r.Max.X - r.Min.X + 2*gap // a gap on either side of the legend
	// the legend's top meets the top of the data, below the title
	top := margin
	if p.Title.Text != "" {
		top += p.Title.TextStyle.Rectangle(p.Title.Text).Size().Y + p.Title.Padding
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var files []string
	for _, ext := range []string{"svg", "png"} {
		path := filepath.Join(dir, name+"."+ext)
		c, err := draw.NewFormattedCanvas(w+lw, h, ext)
		if err != nil {
			return files, err
		}
		dc := draw.New(c)
		p.Draw(draw.Crop(dc, margin, -lw, 0, -margin))
		legend.Draw(draw.Crop(dc, w+gap, 0, 0, -top))
		if err := writeCanvas(c, path); err != nil {
			return files, fmt.Errorf("write %s: %w", path, err)
		}
		files = append(files, path)
	}
	return files, nil
}

// writeCanvas writes a figure's file whole or not at all (outfile.Write).
func writeCanvas(c vg.CanvasWriterTo, path string) error {
	return outfile.Write(path, func(w io.Writer) error {
		_, err := c.WriteTo(w)
		return err
	})
}
