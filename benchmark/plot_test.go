package benchmark

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
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

// A line joins only the points of neighbouring budgets: an interrupted benchmark that
// lacks genetic@100 breaks genetic's line there, and a lone point stays a point.
func TestCurveRunsBreakAtMissingBudgets(t *testing.T) {
	pos := map[int]int{25: 0, 50: 1, 100: 2, 200: 3, 400: 4}
	cells := func(budgets ...int) []Cell {
		var cs []Cell
		for _, b := range budgets {
			cs = append(cs, Cell{Budget: b})
		}
		return cs
	}
	budgetsOf := func(runs [][]Cell) [][]int {
		var out [][]int
		for _, r := range runs {
			var bs []int
			for _, c := range r {
				bs = append(bs, c.Budget)
			}
			out = append(out, bs)
		}
		return out
	}
	for _, tc := range []struct {
		have []int
		want [][]int
	}{
		{[]int{25, 50, 100, 200, 400}, [][]int{{25, 50, 100, 200, 400}}},
		{[]int{25, 50, 200, 400}, [][]int{{25, 50}, {200, 400}}},
		{[]int{25, 100, 400}, [][]int{{25}, {100}, {400}}},
		{[]int{50, 100, 400}, [][]int{{50, 100}, {400}}},
	} {
		got := budgetsOf(curveRuns(cells(tc.have...), pos))
		if len(got) != len(tc.want) {
			t.Errorf("%v: runs %v, want %v", tc.have, got, tc.want)
			continue
		}
		for i := range got {
			if !slices.Equal(got[i], tc.want[i]) {
				t.Errorf("%v: runs %v, want %v", tc.have, got, tc.want)
			}
		}
	}
}

// A space's curves whose strategy lacks a point say so in the title.
func TestCurvesSayWhenPointsAreMissing(t *testing.T) {
	var cells []Cell
	for _, st := range []string{"random", "genetic"} {
		for _, b := range []int{25, 50, 100, 200} {
			if st == "genetic" && b == 100 {
				continue // an interrupted benchmark
			}
			cells = append(cells, Cell{Strategy: st, Space: "k/x", Budget: b, MeanFraction: 0.9, StdFraction: 0.05, Fractions: []float64{0.85, 0.9, 0.95}})
			cells = append(cells, Cell{Strategy: st, Space: "k/y", Budget: b, MeanFraction: 0.9, StdFraction: 0.05, Fractions: []float64{0.85, 0.9, 0.95}})
		}
	}
	// k/y has every point
	cells = append(cells, Cell{Strategy: "genetic", Space: "k/y", Budget: 100, MeanFraction: 0.9, StdFraction: 0.05, Fractions: []float64{0.85, 0.9, 0.95}})
	dir := t.TempDir()
	if _, err := PlotCurves(cells, dir); err != nil {
		t.Fatal(err)
	}
	x, _ := os.ReadFile(filepath.Join(dir, "curves-k_x.svg"))
	y, _ := os.ReadFile(filepath.Join(dir, "curves-k_y.svg"))
	if !strings.Contains(string(x), "points not run left out") {
		t.Error("k/x lacks genetic@100 and does not say so")
	}
	if strings.Contains(string(y), "left out") {
		t.Error("k/y has every point but says some were left out")
	}
}

// A strategy whose curve is exactly another's lies under it: its legend entry says so,
// and only where every point and interval is the same.
func TestCurvesNoteAStrategyThatCoincidesWithAnother(t *testing.T) {
	var cells []Cell
	for _, b := range []int{25, 50, 100} {
		f := []float64{0.8, 0.9, 0.95}
		cell := func(st string, mean float64) Cell {
			return Cell{Strategy: st, Space: "k/x", Budget: b, MeanFraction: mean, StdFraction: 0.075, Fractions: f}
		}
		near := 0.8833333
		if b == 100 {
			near += 1e-9 // one point a hair apart
		}
		cells = append(cells, cell("bayes", 0.8833333), cell("genetic", 0.7), cell("auto", 0.8833333),
			cell("annealing", near))
	}
	dir := t.TempDir()
	if _, err := PlotCurves(cells, dir); err != nil {
		t.Fatal(err)
	}
	svg, _ := os.ReadFile(filepath.Join(dir, "curves-k_x.svg"))
	if !strings.Contains(string(svg), ">auto (same as bayes)<") {
		t.Error("auto's curve is bayes's, but its legend does not say so")
	}
	if n := strings.Count(string(svg), "(same as"); n != 1 {
		t.Errorf("%d legend entries say 'same as', want 1 (annealing differs at one point)", n)
	}
}

// The axis label says what is drawn for the interval: a band, error bars, or both.
func TestIntervalNoteSaysWhatIsDrawn(t *testing.T) {
	if n := intervalNote(false, true); !strings.Contains(n, "bars") || strings.Contains(n, "shaded") {
		t.Errorf("single budget: %q", n)
	}
	if n := intervalNote(true, false); !strings.Contains(n, "shaded") || strings.Contains(n, "bars") {
		t.Errorf("bands only: %q", n)
	}
	if n := intervalNote(true, true); !strings.Contains(n, "shaded") || !strings.Contains(n, "bars") {
		t.Errorf("bands and a lone point: %q", n)
	}
}

// Curves of a cell whose budget is below 1 (a file edited by hand, given to 'ktune
// report' through BenchPage) are an error, not gonum's panic of the log scale.
func TestCurvesRefuseABudgetBelowOne(t *testing.T) {
	for _, budget := range []int{0, -50} {
		cells := []Cell{
			{Strategy: "random", Space: "k/a", Budget: 25, MeanFraction: 0.5, Fractions: []float64{0.4, 0.6}},
			{Strategy: "random", Space: "k/a", Budget: budget, MeanFraction: 0.5, Fractions: []float64{0.4, 0.6}},
		}
		files, err := PlotCurves(cells, t.TempDir())
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("random on k/a at budget %d: a budget is 1 evaluation or more", budget)) || len(files) != 0 {
			t.Errorf("budget %d: %v, %q", budget, err, files)
		}
	}
}
