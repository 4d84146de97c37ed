package figure

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/plot/vg"
)

// Past the ten colours, series differ by dashes and markers (lines) or hatching (bars):
// no two of them are drawn alike (the 17th strategy was the 1st's twin, and the 11th
// parameter's bars a darker 1st's).
func TestSeriesStylesAreDistinct(t *testing.T) {
	lines, bars := map[string]int{}, map[string]int{}
	for i := range 160 {
		s := SeriesStyle(i)
		key := fmt.Sprint(s.Color, s.Dashes, fmt.Sprintf("%T", s.Glyph))
		if j, ok := lines[key]; ok {
			t.Fatalf("lines %d and %d are drawn alike: %s", j, i, key)
		}
		lines[key] = i
		if i >= 40 {
			continue
		}
		key = fmt.Sprint(s.Color, s.Hatch)
		if j, ok := bars[key]; ok {
			t.Fatalf("bars %d and %d are drawn alike: %s", j, i, key)
		}
		bars[key] = i
	}
	// the colours themselves are far apart
	for i, a := range Colors {
		for _, b := range Colors[:i] {
			d := math.Abs(float64(a.R)-float64(b.R)) + math.Abs(float64(a.G)-float64(b.G)) + math.Abs(float64(a.B)-float64(b.B))
			if d < 90 {
				t.Errorf("colours %v and %v are near-duplicates", a, b)
			}
		}
	}
}

// A hatch's segments stay within the area they fill, at 45 degrees: rising, falling or
// both.
func TestHatchLinesStayInTheArea(t *testing.T) {
	cell := vg.Rectangle{Min: vg.Point{X: 10, Y: 20}, Max: vg.Point{X: 40, Y: 50}}
	if l := NoHatch.Lines(cell, 6); len(l) != 0 {
		t.Errorf("no hatch: %d lines", len(l))
	}
	for _, tt := range []struct {
		h               Hatch
		rising, falling bool
	}{{Rising, true, false}, {Falling, false, true}, {Crossed, true, true}} {
		lines := tt.h.Lines(cell, 6)
		if len(lines) < 8 {
			t.Fatalf("%v: %d lines", tt.h, len(lines))
		}
		rising, falling := false, false
		for _, l := range lines {
			for _, p := range l {
				if p.X < 10-1e-9 || p.X > 40+1e-9 || p.Y < 20-1e-9 || p.Y > 50+1e-9 {
					t.Fatalf("%v: point %v outside the area", tt.h, p)
				}
			}
			dx, dy := l[1].X-l[0].X, l[1].Y-l[0].Y
			switch {
			case math.Abs(float64(dx-dy)) < 1e-9:
				rising = true
			case math.Abs(float64(dx+dy)) < 1e-9:
				falling = true
			default:
				t.Fatalf("%v: segment %v not at 45 degrees", tt.h, l)
			}
		}
		if rising != tt.rising || falling != tt.falling {
			t.Errorf("%v: rising %v falling %v", tt.h, rising, falling)
		}
	}
}

// A series is noted as the same as an earlier one only where the two coincide exactly,
// and then as the same as the first of those it coincides with.
func TestSameAsOnlyForExactDuplicates(t *testing.T) {
	series := [][]float64{{0.1, 0.2}, {0.1, 0.2}, {0.1, 0.2000001}, {0.1, 0.2}, {0.1, 0.2000001}, {0.1}}
	equal := func(i, j int) bool {
		if len(series[i]) != len(series[j]) {
			return false
		}
		for k := range series[i] {
			if series[i][k] != series[j][k] {
				return false
			}
		}
		return true
	}
	got := fmt.Sprint(SameAs(len(series), equal))
	if want := "[-1 0 -1 0 2 -1]"; got != want {
		t.Errorf("same as %s, want %s", got, want)
	}
	for _, tt := range []struct{ name, earlier, want string }{
		{"convolution_milo/A100_T4", "convolution_milo/A100", "convolution_milo/A100_T4 (same as A100)"},
		{"gemm/A100", "convolution_milo/A100", "gemm/A100 (same as convolution_milo/A100)"},
		{"auto", "bayes", "auto (same as bayes)"},
	} {
		if got := SameAsLabel(tt.name, tt.earlier); got != tt.want {
			t.Errorf("%q after %q: %q, want %q", tt.name, tt.earlier, got, tt.want)
		}
	}
}
