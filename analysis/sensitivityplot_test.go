package analysis

import (
	"bytes"
	"context"
	"fmt"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ktune/ktune/format"
	"github.com/ktune/ktune/sensitivity"
	"github.com/ktune/ktune/simulator"
	"github.com/ktune/ktune/space"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// recordedTable is the table of a recorded space's successful configurations and their
// objective.
func recordedTable(tb testing.TB, path string) ([]space.Param, []space.Config, []float64) {
	tb.Helper()
	rec, err := format.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	sim, err := simulator.New(rec, simulator.Options{Mode: simulator.Recorded})
	if err != nil {
		tb.Fatal(err)
	}
	sp := sim.Space()
	var cfgs []space.Config
	var y []float64
	for i := range sp.Len() {
		c := sp.At(i, nil)
		if v, ok := sim.Objective(c); ok {
			cfgs = append(cfgs, c)
			y = append(y, v)
		}
	}
	return sp.Params(), cfgs, y
}

func TestPlotsAreWrittenAndLabelled(t *testing.T) {
	params, cfgs, y := recordedTable(t, "../testdata/benchmark_hub/kerneltuner_pnpoly/RTX_2080_Ti.json.gz")
	dir := t.TempDir()
	if d := os.Getenv("SENSITIVITY_PLOTS"); d != "" {
		dir = d // to look at the charts
	}
	cs := sensitivity.Significance(params, cfgs, y)
	files, err := plotSignificance(cs, "time", false, "pnpoly", dir, "significance")
	if err != nil {
		t.Fatal(err)
	}
	s, err := sensitivity.SobolTable(context.Background(), params, cfgs, y, sensitivity.Options{SecondOrder: true, Seed: 1, Bootstrap: 50})
	if err != nil {
		t.Fatal(err)
	}
	more, err := plotSensitivity(s, func(p string) bool { return p == "use_method" }, "pnpoly", dir, "sobol")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, more...)
	var want []string
	for _, n := range []string{"significance", "sobol", "sobol-second"} {
		want = append(want, filepath.Join(dir, n+".svg"), filepath.Join(dir, n+".png"))
	}
	if strings.Join(files, " ") != strings.Join(want, " ") {
		t.Fatalf("files %v, want %v", files, want)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(f, ".png") {
			img, err := png.Decode(bytes.NewReader(b))
			if err != nil || img.Bounds().Dx() < 400 {
				t.Errorf("%s: %v, %v", f, err, img.Bounds())
			}
			continue
		}
		svg := string(b)
		switch filepath.Base(f) {
		case "significance.svg":
			for _, label := range []string{">Correlation with time (lower is better)<", "blue", "block_size_x", "tile_size"} {
				if !strings.Contains(svg, label) {
					t.Errorf("%s lacks %q", f, label)
				}
			}
		case "sobol.svg":
			if !strings.Contains(svg, ">Sobol indices (empirical, ") || !strings.Contains(svg, "first order") || !strings.Contains(svg, "use_method (constant)") ||
				!strings.Contains(svg, ">0<") || !strings.Contains(svg, ">1<") {
				t.Errorf("%s lacks its labels", f)
			}
			// empirical totals are lower bounds, not the share with all interactions
			if !strings.Contains(svg, "total order (a lower bound: empirical)") || strings.Contains(svg, "with all interactions") {
				t.Errorf("%s does not call its empirical totals lower bounds", f)
			}
		case "sobol-second.svg":
			if !strings.Contains(svg, ">Strongest parameter interactions (second-order Sobol indices, by absolute value)<") || !strings.Contains(svg, "×") {
				t.Errorf("%s lacks pair labels", f)
			}
		}
	}
	if _, err := plotSignificance(nil, "time", false, "", dir, "x"); err == nil {
		t.Error("PlotSignificance of nothing succeeded")
	}
}

// handSobol is a Sobol result of two parameters with the given method and second-order
// index.
func handSobol(method string, params []string, second float64) *sensitivity.Sobol {
	iv := func(v float64) sensitivity.Interval {
		return sensitivity.Interval{Value: v, Low: math.NaN(), High: math.NaN()}
	}
	return &sensitivity.Sobol{
		Method: method, Params: params, Subset: []int{0, 1}, Samples: 6,
		First:  []sensitivity.Interval{iv(0.6), iv(0)},
		Total:  []sensitivity.Interval{iv(0.7), iv(0)},
		Second: []sensitivity.Pair{{I: 0, J: 1, Index: iv(second)}},
	}
}

// Exact total orders are the share with all interactions; only empirical ones are called
// lower bounds.
func TestExactTotalOrderKeepsItsLabel(t *testing.T) {
	dir := t.TempDir()
	files, err := plotSensitivity(handSobol(sensitivity.Exact, []string{"x", "y"}, 0.1), nil, "", dir, "exact")
	if err != nil || len(files) == 0 {
		t.Fatalf("files %v, %v", files, err)
	}
	svg, _ := os.ReadFile(filepath.Join(dir, "exact.svg"))
	if !strings.Contains(string(svg), "total order (with all interactions)") || strings.Contains(string(svg), "lower bound") {
		t.Error("the exact chart's label changed")
	}
}

// A chart of pairs whose indices are all 0 (one parameter constant) gets a share-of-
// variance axis from 0 to 1, not one around a point, and says so; the constant parameter
// is marked as in the first-order chart.
func TestPairsOfZeroAndConstantParameters(t *testing.T) {
	dir := t.TempDir()
	if d := os.Getenv("SENSITIVITY_PLOTS"); d != "" {
		dir = d
	}
	s := handSobol(sensitivity.Empirical, []string{"block_size_x", "unused"}, 0)
	if _, err := plotSensitivity(s, func(p string) bool { return p == "unused" }, "", dir, "zero"); err != nil {
		t.Fatal(err)
	}
	svg, _ := os.ReadFile(filepath.Join(dir, "zero-second.svg"))
	for _, want := range []string{"unused (constant)", "every index shown is 0", ">1.0<", ">0.0<"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("the pairs chart lacks %q", want)
		}
	}
	if strings.Contains(string(svg), "0.0005") {
		t.Error("the pairs chart's axis runs around 0")
	}
}

// Long pair labels widen the canvas instead of squeezing the bars.
func TestPairsWidenForLongLabels(t *testing.T) {
	width := func(params []string) int {
		dir := t.TempDir()
		if _, err := plotPairs(handSobol(sensitivity.Empirical, params, 0.1), nil, "", dir, "p"); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(filepath.Join(dir, "p.png"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		cfg, err := png.DecodeConfig(f)
		if err != nil {
			t.Fatal(err)
		}
		return cfg.Width
	}
	short := width([]string{"x", "y"})
	long := width([]string{"WORK_GROUP_SIZE_Y_AND_THEN_SOME", "INNER_UNROLL_FACTOR_AND_THEN_SOME"})
	if long < short+150 {
		t.Errorf("%d pixels wide for long labels, %d for short ones", long, short)
	}
}

// The significance bars are coloured by sign, in full colour however weak the
// correlation (a scale by size made |r| < 0.15 nearly grey): blue desirable, red not.
func TestSignificanceColoursWeakCorrelationsBySign(t *testing.T) {
	dir := t.TempDir()
	cs := []sensitivity.Correlation{{Param: "raises", Pearson: 0.05, N: 10}, {Param: "lowers", Pearson: -0.04, N: 10}}
	for _, maximize := range []bool{false, true} {
		if _, err := plotSignificance(cs, "time", maximize, "", dir, "weak"); err != nil {
			t.Fatal(err)
		}
		svg, _ := os.ReadFile(filepath.Join(dir, "weak.svg"))
		for _, c := range []color.NRGBA{desirableColor, undesirableColor} {
			if hex := fmt.Sprintf("fill:#%02X%02X%02X", c.R, c.G, c.B); !strings.Contains(string(svg), hex) {
				t.Errorf("maximize %v: no bar in %s", maximize, hex)
			}
		}
	}
	if chroma := func(c color.NRGBA) int { return int(max(c.R, c.G, c.B)) - int(min(c.R, c.G, c.B)) }; chroma(desirableColor) < 100 || chroma(undesirableColor) < 100 {
		t.Error("the bar colours are not saturated")
	}
}

// sobolOf is a Sobol result without intervals over params, parameter k's indices growing
// with k.
func sobolOf(params []string) *sensitivity.Sobol {
	s := &sensitivity.Sobol{Method: sensitivity.Exact, Params: params, Samples: 100}
	for k := range params {
		v := 0.5 * float64(k+1) / float64(len(params))
		s.First = append(s.First, sensitivity.Interval{Value: v, Low: math.NaN(), High: math.NaN()})
		s.Total = append(s.Total, sensitivity.Interval{Value: v + 0.1, Low: math.NaN(), High: math.NaN()})
	}
	return s
}

// The first- and total-order chart names its parameters level under their bars where
// they fit (wrapped after an underscore), upright where even wrapped they do not; its
// canvas grows with the names, the data starts at the vertical axis whatever the names
// (NominalX kept it half the first name's width away), and no bar touches the data
// area's edges.
func TestSobolChartIsSizedByItsLevelNames(t *testing.T) {
	long := []string{"WORK_GROUP_SIZE_X", "WORK_GROUP_SIZE_Y", "INNER_UNROLL_FACTOR", "Z_ITERATIONS",
		"USE_CONSTANT_MEMORY", "USE_SOA", "VECTOR_SIZE", "WORK_GROUP_SIZE_Z"}
	var unbreakable []string
	for k := range 16 {
		unbreakable = append(unbreakable, fmt.Sprintf("averyveryverylongparameternamewithoutbreaks%d", k))
	}
	var dataLeft vg.Length
	var prevW vg.Length
	for i, tt := range []struct {
		name    string
		params  []string
		upright bool
		wrapped bool
	}{
		{"short", []string{"a", "b", "c", "d", "e", "f", "g", "h"}, false, false},
		{"coulomb", long, false, true},
		{"unbreakable", unbreakable, true, false},
	} {
		p, w, h, err := sobolChart(sobolOf(tt.params), func(n string) bool { return n == "USE_SOA" }, "")
		if err != nil {
			t.Fatal(err)
		}
		if w <= prevW {
			t.Errorf("%s: %v wide, not wider than %v for shorter names", tt.name, w, prevW)
		}
		prevW = w
		if upright := p.X.Tick.Label.Rotation != 0; upright != tt.upright {
			t.Errorf("%s: rotated %v, want upright %v", tt.name, p.X.Tick.Label.Rotation, tt.upright)
		}
		if p.X.Tick.Label.Rotation != 0 && p.X.Tick.Label.Rotation != math.Pi/2 {
			t.Errorf("%s: names slanted at %v", tt.name, p.X.Tick.Label.Rotation)
		}
		wrapped := false
		for _, tk := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
			wrapped = wrapped || strings.Contains(tk.Label, "\n")
			if strings.HasPrefix(tk.Label, "USE_SOA") && !strings.Contains(tk.Label, "(constant)") {
				t.Errorf("%s: %q is not marked constant", tt.name, tk.Label)
			}
		}
		if wrapped != tt.wrapped {
			t.Errorf("%s: names wrapped %v, want %v", tt.name, wrapped, tt.wrapped)
		}
		dc := p.DataCanvas(draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: w, Y: h}}})
		if i == 0 {
			dataLeft = dc.Min.X
		} else if math.Abs(float64(dc.Min.X-dataLeft)) > 0.01 {
			t.Errorf("%s: the data starts %v from the left, %v with short names", tt.name, dc.Min.X, dataLeft)
		}
		if dw := dc.Max.X - dc.Min.X; dw < vg.Length(len(tt.params))*sobolMinSlot-0.01 {
			t.Errorf("%s: data %v wide for %d parameters", tt.name, dw, len(tt.params))
		}
		tx, _ := p.Transforms(&dc)
		if l, r := tx(-0.38)-dc.Min.X, dc.Max.X-tx(float64(len(tt.params)-1)+0.38); l < 3 || r < 3 {
			t.Errorf("%s: the bars are %v and %v from the data area's edges", tt.name, l, r)
		}
	}
}

func TestWrapWordsBreaksAfterUnderscoresAndBeforeSpaces(t *testing.T) {
	width := func(s string) vg.Length { return vg.Length(len(s)) }
	for _, tt := range []struct {
		s     string
		limit vg.Length
		want  string
	}{
		{"WORK_GROUP_SIZE_X", 20, "WORK_GROUP_SIZE_X"},
		{"WORK_GROUP_SIZE_X", 12, "WORK_GROUP_\nSIZE_X"},
		{"use_cmem (constant)", 12, "use_cmem\n(constant)"},
		{"averyverylongname", 5, "averyverylongname"},
		{"a_b_c", 2, "a_\nb_\nc"},
	} {
		if got := wrapWords(tt.s, tt.limit, width); got != tt.want {
			t.Errorf("%q at %v: %q, want %q", tt.s, tt.limit, got, tt.want)
		}
	}
}
