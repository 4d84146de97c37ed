// Package figure writes ktune's plots: every figure goes out as SVG (for reports and
// papers) and PNG (for a quick look), under one name.
package figure

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/ktune/ktune/internal/outfile"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// margin keeps a title clear of the image's top edge, and tick labels clear of its left
// and right edges, where gonum's plot draws them flush (a long label lost its first
// letters).
const margin = vg.Length(6)

// legendSlack widens the room of a legend placed at a figure's right edge beyond its width
// as measured, so that a viewer's fallback font a little wider does not cut its text.
const legendSlack = 1.12

// Dir makes dir ready for figures before they are drawn: it creates dir (and its parents)
// and checks that a file can be written in it, so that a command whose figures come after
// minutes of work says at once that --plot names a file or a folder it may not write.
func Dir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".ktune-figure-*")
	if err != nil {
		return err
	}
	name := f.Name()
	err = f.Close()
	if rerr := os.Remove(name); err == nil {
		err = rerr
	}
	return err
}

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
			return files, fmt.Errorf("write %s: %w", path, outfile.Cause(err, path))
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
	// a gap on either side of the legend, and slack for a fallback font wider than the
	// one the legend was measured in (withFallbackFonts)
	lw := (r.Max.X-r.Min.X)*legendSlack + 2*gap
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
			return files, fmt.Errorf("write %s: %w", path, outfile.Cause(err, path))
		}
		files = append(files, path)
	}
	return files, nil
}

// writeCanvas writes a figure's file whole or not at all (outfile.Write); an SVG names
// fallback fonts (withFallbackFonts).
func writeCanvas(c vg.CanvasWriterTo, path string) error {
	return outfile.Write(path, func(w io.Writer) error {
		if !strings.EqualFold(filepath.Ext(path), ".svg") {
			_, err := c.WriteTo(w)
			return err
		}
		var buf bytes.Buffer
		if _, err := c.WriteTo(&buf); err != nil {
			return err
		}
		_, err := w.Write(withFallbackFonts(buf.Bytes()))
		return err
	})
}

// fontFamily matches a font-family of an SVG's style that names a single font.
var fontFamily = regexp.MustCompile(`font-family:([^;,"'<>]+);`)

// withFallbackFonts gives every font-family of svg generic fallbacks after the one font
// gonum names (Liberation Serif): where a browser lacks it, the text is set in a font of
// the same kind rather than the browser's default, whose other widths cut text the
// layout measured in the named font.
func withFallbackFonts(svg []byte) []byte {
	return fontFamily.ReplaceAllFunc(svg, func(m []byte) []byte {
		name := strings.TrimSpace(string(fontFamily.FindSubmatch(m)[1]))
		fallback := "'Times New Roman', Times, serif"
		switch {
		case strings.Contains(name, "Mono"):
			fallback = "'Courier New', Courier, monospace"
		case strings.Contains(name, "Sans"):
			fallback = "Arial, Helvetica, sans-serif"
		}
		return []byte(fmt.Sprintf("font-family:'%s', %s;", name, fallback))
	})
}
