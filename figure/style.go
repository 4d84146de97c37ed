package figure

import (
	"image/color"
	"strings"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Colors are ten clearly distinct colours (Tableau 10). A figure with more series than
// these comes round to them again with other dash patterns, point markers and hatching
// (SeriesStyle), never with darker or lighter variants, which are hard to tell apart from
// the first ten.
var Colors = []color.RGBA{
	{31, 119, 180, 255}, {255, 127, 14, 255}, {44, 160, 44, 255}, {214, 39, 40, 255}, {148, 103, 189, 255},
	{140, 86, 75, 255}, {227, 119, 194, 255}, {127, 127, 127, 255}, {188, 189, 34, 255}, {23, 190, 207, 255},
}

// Hatch is a pattern of lines over a filled area (a bar), which tells apart two bars of
// one colour as a dash pattern tells apart two lines.
type Hatch int

// The hatch patterns: none, lines rising to the right (/), falling (\), and both.
const (
	NoHatch Hatch = iota
	Rising
	Falling
	Crossed
)

// Lines are the segments, gap apart, of h's lines (at 45 degrees) that cross r.
func (h Hatch) Lines(r vg.Rectangle, gap vg.Length) [][2]vg.Point {
	var out [][2]vg.Point
	if h == Falling || h == Crossed {
		out = append(out, hatchLines(r, gap, false)...)
	}
	if h == Rising || h == Crossed {
		out = append(out, hatchLines(r, gap, true)...)
	}
	return out
}

// hatchLines are the segments, gap apart, of the lines at 45 degrees that cross r: rising
// to the right, or falling.
func hatchLines(r vg.Rectangle, gap vg.Length, rising bool) [][2]vg.Point {
	wd, ht := r.Max.X-r.Min.X, r.Max.Y-r.Min.Y
	var out [][2]vg.Point
	// the line x + y = t (from r.Min) for t in (0, wd+ht), mirrored left to right when rising
	for t := gap / 2; t < wd+ht; t += gap {
		a := vg.Point{X: r.Min.X + min(t, wd), Y: r.Min.Y + t - min(t, wd)}
		b := vg.Point{X: r.Min.X + t - min(t, ht), Y: r.Min.Y + min(t, ht)}
		if rising {
			a.X, b.X = r.Min.X+r.Max.X-a.X, r.Min.X+r.Max.X-b.X
		}
		out = append(out, [2]vg.Point{a, b})
	}
	return out
}

// Style is how one series of a figure is drawn: a line series by its colour, dashes and
// point marker, a bar series by its colour and hatching.
type Style struct {
	Color  color.RGBA
	Dashes []vg.Length // nil: a solid line
	Glyph  draw.GlyphDrawer
	Hatch  Hatch
}

// styleDashes, styleGlyphs and styleHatches mark the rounds of Colors: solid lines, dots
// and plain bars in the first, then dashed lines, squares and rising hatching; dotted,
// triangles and falling hatching; dash-dotted, crosses and crossed hatching.
var (
	styleDashes = [][]vg.Length{
		nil,
		{vg.Points(5), vg.Points(2.5)},
		{vg.Points(1.5), vg.Points(1.5)},
		{vg.Points(6), vg.Points(2), vg.Points(1.5), vg.Points(2)},
	}
	styleGlyphs  = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.BoxGlyph{}, draw.TriangleGlyph{}, draw.CrossGlyph{}}
	styleHatches = []Hatch{NoHatch, Rising, Falling, Crossed}
)

// SeriesStyle is how the i-th series of a figure is drawn. No two of the first 160 lines
// share colour, dashes and marker, and no two of the first 40 bars colour and hatching.
func SeriesStyle(i int) Style {
	round := i / len(Colors)
	// the markers shift against the dashes every four rounds, so that pairs do not recur
	glyph := (round + round/len(styleDashes)) % len(styleGlyphs)
	return Style{
		Color:  Colors[i%len(Colors)],
		Dashes: styleDashes[round%len(styleDashes)],
		Glyph:  styleGlyphs[glyph],
		Hatch:  styleHatches[round%len(styleHatches)],
	}
}

// SameAs returns, for each of n series, the index of the first earlier series that equal
// says it coincides with, or -1: drawn later, it would lie exactly over that one and hide
// it, so its legend entry should say so (SameAsLabel).
func SameAs(n int, equal func(i, j int) bool) []int {
	same := make([]int, n)
	for i := range same {
		same[i] = -1
		for j := range i {
			if same[j] < 0 && equal(i, j) {
				same[i] = j
				break
			}
		}
	}
	return same
}

// SameAsLabel is the legend entry of a series named name that coincides with the series
// named earlier: "name (same as earlier)", earlier written without the folder it shares
// with name ("convolution/A100_T4 (same as A100)").
func SameAsLabel(name, earlier string) string {
	if i := strings.LastIndexByte(name, '/'); i >= 0 && strings.HasPrefix(earlier, name[:i+1]) {
		earlier = earlier[i+1:]
	}
	return name + " (same as " + earlier + ")"
}
