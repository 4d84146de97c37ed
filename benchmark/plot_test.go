package benchmark

import (
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
)

// chroma is how far c is from a grey: its largest channel less its smallest, 0 to 255.
func chroma(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	return float64(max(r, g, b)-min(r, g, b)) / 257
}

// A count of wins must never look like the diagonal (a strategy against itself): the
// palette is sequential, light to dark, and no colour of it is a grey.
func TestWinColorsAreSequentialAndNeverTheDiagonalsGrey(t *testing.T) {
	for _, top := range []float64{1, 2, 11, 60} {
		cm, err := winColors(top)
		if err != nil {
			t.Fatal(err)
		}
		prev := math.Inf(1)
		for k := 0; k <= 100; k++ {
			v := top * float64(k) / 100
			c, err := cm.At(v)
			if err != nil {
				t.Fatalf("top %v: At(%v): %v", top, v, err)
			}
			if l := luminance(c); l >= prev {
				t.Fatalf("top %v: luminance %v at %v, not below %v", top, l, v, prev)
			} else {
				prev = l
			}
			if chroma(c) < 30 {
				t.Errorf("top %v: the colour of %v, %v, is nearly grey like the diagonal", top, v, c)
			}
		}
	}
	if chroma(diagonalColor) != 0 {
		t.Error("the diagonal is not a neutral grey")
	}
}

// Every heat map of a benchmark has one colour scale: the largest count of any of them.
func TestCompetitionScaleIsTheLargestCountOfAllMaps(t *testing.T) {
	good := []float64{0.9, 0.91, 0.92, 0.93}
	bad := []float64{0.5, 0.52, 0.51, 0.53}
	var cells []Cell
	add := func(name, sp string, b int, f []float64) {
		m, _ := meanVar(f)
		cells = append(cells, Cell{Strategy: name, Space: sp, Budget: b, MeanFraction: m, Fractions: f})
	}
	// strong beats weak at 3 low budgets of two spaces (6 wins) and at one medium (2)
	for _, sp := range []string{"k/x", "k/y"} {
		for _, b := range []int{25, 50, 100, 400} {
			add("weak", sp, b, bad)
			add("strong", sp, b, good)
		}
	}
	if s := CompetitionScale(cells, 0.05, DefaultSplit); s != 6 {
		t.Fatalf("scale %v, want 6", s)
	}
	low, _ := competitionMatrix(cells, 0.05, 0, DefaultSplit)
	medium, _ := competitionMatrix(cells, 0.05, DefaultSplit+1, math.MaxInt)
	if low.max() != 6 || medium.max() != 2 {
		t.Fatalf("maxima %v %v", low.max(), medium.max())
	}
	// both maps drawn, each with the colour bar of the common scale
	dir := t.TempDir()
	files, err := Figures(cells, nil, 0.05, DefaultSplit, dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"competition-low.svg", "competition-medium.svg"} {
		svg, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("%v (files %v)", err, files)
		}
		// the bar's axis is labelled up to the scale, 6, on both
		if !strings.Contains(string(svg), ">wins<") || !strings.Contains(string(svg), ">6<") {
			t.Errorf("%s lacks the colour bar of the common scale", name)
		}
	}
}

// The diagonal's cells are hatched: segments within the cell, at 45 degrees.
func TestHatchLinesStayInTheCell(t *testing.T) {
	cell := rect(10, 20, 40, 50)
	lines := hatchLines(cell, 6)
	if len(lines) < 8 {
		t.Fatalf("%d lines", len(lines))
	}
	for _, l := range lines {
		for _, p := range l {
			if p.X < 10-1e-9 || p.X > 40+1e-9 || p.Y < 20-1e-9 || p.Y > 50+1e-9 {
				t.Fatalf("point %v outside the cell", p)
			}
		}
		if dx, dy := l[0].X-l[1].X, l[1].Y-l[0].Y; math.Abs(float64(dx-dy)) > 1e-9 {
			t.Fatalf("segment %v not at 45 degrees", l)
		}
	}
}

func rect(x0, y0, x1, y1 vg.Length) vg.Rectangle {
	return vg.Rectangle{Min: vg.Point{X: x0, Y: y0}, Max: vg.Point{X: x1, Y: y1}}
}
