package benchmark

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ktune/ktune/format/kerneltuner"
	"github.com/ktune/ktune/simulator"
	"github.com/ktune/ktune/space"
)

// Reference values computed independently: t from the pooled-variance formula, p by
// numerically integrating the Student t density (df = 14) over its tails.
func TestTTestMatchesScipy(t *testing.T) {
	a := []float64{0.91, 0.85, 0.88, 0.95, 0.79, 0.90, 0.87, 0.93}
	b := []float64{0.81, 0.84, 0.78, 0.86, 0.80, 0.83, 0.77, 0.85}
	tt, p := TTest(a, b)
	if math.Abs(tt-3.1851419473) > 1e-8 || math.Abs(p-0.0066130816) > 1e-7 {
		t.Fatalf("t %.5f p %.5f", tt, p)
	}
	if _, p := TTest(a, a); p != 1 {
		t.Fatalf("identical samples: p %v", p)
	}
}

// The t-test at the edges a benchmark meets, on fractions of the optimum of configurations
// recorded on an RTX A4000 (vector_add): two runs a side, a side with no spread, runs that
// all reached one fraction, and too few runs for any test. References from the pooled
// formula with p by the regularised incomplete beta function (Numerical Recipes' continued
// fraction), as scipy's ttest_ind computes it. QA: one run a side (a --checkpoint file
// edited to one repeat) panicked in gonum's Student's t with 0 degrees of freedom; a
// fraction reached by every run of two samples of 3 and 7 runs was "significantly"
// different from itself (p 0.03), the rounding of its summed mean read as a spread.
func TestTTestAtTheEdgesOfFewRepeats(t *testing.T) {
	sim := newSim(t, "../testdata/kernel_tuner/vector_add_A4000.json", simulator.Options{})
	frac := func(blockSizeIndex int) float64 {
		obj, ok := sim.Objective(space.Config{blockSizeIndex})
		if !ok {
			t.Fatalf("configuration %d not recorded", blockSizeIndex)
		}
		return sim.FractionOfOptimum(obj)
	}
	f128, f256, f512, f1024 := frac(0), frac(2), frac(6), frac(14) // block_size_x 128, 256, 512, 1024
	if math.Abs(f128-0.7795982341529613) > 1e-15 {
		t.Fatalf("fraction of block_size_x=128: %v", f128)
	}
	same := func(v float64, n int) []float64 { return slices.Repeat([]float64{v}, n) }
	for _, tc := range []struct {
		name   string
		a, b   []float64
		tt, p  float64
		signif bool
	}{
		{"two runs a side", []float64{f128, f256}, []float64{f512, f1024}, -0.056545865894695596, 0.9600479580376454, false},
		{"one side without spread", same(1, 3), []float64{f128, f256, f512}, 37.13956842891046, 3.138395821443845e-06, true},
		{"one run against two", []float64{f128}, []float64{f256, f512}, 2.171650289090991, 0.2747232420151587, false},
		{"both without spread, apart", same(1, 2), same(f128, 2), math.Inf(1), 0, true},
		{"one fraction reached by every run", same(f128, 50), same(f128, 50), 0, 1, false},
		{"one fraction, samples of 3 and 7", same(f128, 3), same(f128, 7), 0, 1, false},
		{"one fraction, samples of 3 and 7, other value", same(0.1, 3), same(0.1, 7), 0, 1, false},
		{"one run a side: no test", []float64{f128}, []float64{f256}, math.NaN(), math.NaN(), false},
	} {
		tt, p := TTest(tc.a, tc.b)
		close := func(got, want float64) bool {
			if math.IsNaN(want) || math.IsInf(want, 0) || want == 0 {
				return got == want || math.IsNaN(got) && math.IsNaN(want)
			}
			return math.Abs(got-want) <= 1e-9*math.Abs(want)
		}
		if !close(tt, tc.tt) || !close(p, tc.p) {
			t.Errorf("%s: t %v p %v, want t %v p %v", tc.name, tt, p, tc.tt, tc.p)
		}
		if got := p < 0.05; got != tc.signif {
			t.Errorf("%s: significant %v, want %v", tc.name, got, tc.signif)
		}
	}
}

// Cells of one run each (no t-test) count no win, in the table and in the heat maps alike.
func TestCompetitionCountsNoWinWithoutATest(t *testing.T) {
	sim := newSim(t, "../testdata/kernel_tuner/vector_add_A4000.json", simulator.Options{})
	obj, _ := sim.Objective(space.Config{0})
	f := sim.FractionOfOptimum(obj)
	cells := []Cell{
		{Strategy: "a", Space: "vector_add", Budget: 5, MeanFraction: 1, Fractions: []float64{1}},
		{Strategy: "b", Space: "vector_add", Budget: 5, MeanFraction: f, Fractions: []float64{f}},
	}
	for _, s := range Compete(cells, 0.05, DefaultSplit) {
		if s.WinsLow+s.LossesLow+s.WinsHigh+s.LossesHigh != 0 {
			t.Errorf("%+v: a win without a test", s)
		}
	}
	m, ok := competitionMatrix(cells, 0.05, 0, DefaultSplit)
	if !ok || m.max() != 0 {
		t.Errorf("heat map: %+v", m)
	}
}

func TestCompetitionRanksBruteForceBelowRandomAtSmallBudgets(t *testing.T) {
	sim := newSim(t, "../testdata/benchmark_hub/convolution_milo/A100.json.gz", simulator.Options{Mode: simulator.Cartesian})
	var seen []Progress
	cells, err := Run(context.Background(), Config{
		Strategies: []Strategy{{Name: "random"}, {Name: "bruteforce"}},
		Spaces:     []Space{{Name: "conv-A100", Sim: sim}},
		Budgets:    []int{50, 400},
		Repeats:    30,
		Seed:       1,
		Progress:   func(p Progress) { seen = append(seen, p) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != 4 {
		t.Fatalf("%d cells", len(cells))
	}
	// progress after every run, in evaluations budgeted: 2 x 30 x (50 + 400) in all
	last := seen[len(seen)-1]
	if len(seen) < 4*30 || last.Cells != 4 || last.TotalCells != 4 || last.Evaluations != 27000 || last.TotalEvaluations != 27000 {
		t.Fatalf("%d progress reports, the last %+v", len(seen), last)
	}
	for i := 1; i < len(seen); i++ {
		if seen[i].Evaluations < seen[i-1].Evaluations || seen[i].Cells < seen[i-1].Cells {
			t.Fatalf("progress went back: %+v after %+v", seen[i], seen[i-1])
		}
	}
	scores := Compete(cells, 0.05, DefaultSplit)
	// Brute force walks a prefix of the index order, the same for every seed: at these
	// budgets it is far from the optimum and random sampling beats it.
	if scores[0].Strategy != "random" || scores[0].WinsLow != 1 || scores[0].WinsHigh != 1 || scores[1].LossesLow != 1 {
		t.Fatalf("scores %+v", scores)
	}
}

func TestFiguresAreWritten(t *testing.T) {
	cells := []Cell{
		{Strategy: "a", Space: "k/x", Budget: 25, MeanFraction: 0.5, StdFraction: 0.1, Fractions: []float64{0.4, 0.6, 0.5}},
		{Strategy: "a", Space: "k/x", Budget: 400, MeanFraction: 0.8, StdFraction: 0.1, Fractions: []float64{0.7, 0.9, 0.8}},
		{Strategy: "b", Space: "k/x", Budget: 25, MeanFraction: 0.3, StdFraction: 0.01, Fractions: []float64{0.29, 0.31, 0.3}},
		{Strategy: "b", Space: "k/x", Budget: 400, MeanFraction: 0.6, StdFraction: 0.01, Fractions: []float64{0.59, 0.61, 0.6}},
		{Strategy: "a", Space: "k/y", Budget: 25, MeanFraction: 0.5, StdFraction: 0.1, Fractions: []float64{0.4, 0.6, 0.5}},
		{Strategy: "a", Space: "k/y", Budget: 400, MeanFraction: 0.8, StdFraction: 0.1, Fractions: []float64{0.7, 0.9, 0.8}},
		{Strategy: "b", Space: "k/y", Budget: 25, MeanFraction: 0.3, StdFraction: 0.01, Fractions: []float64{0.29, 0.31, 0.3}},
		{Strategy: "b", Space: "k/y", Budget: 400, MeanFraction: 0.6, StdFraction: 0.01, Fractions: []float64{0.59, 0.61, 0.6}},
		{Strategy: "a", Space: "solo", Budget: 25, MeanFraction: 0.5, StdFraction: 0.1, Fractions: []float64{0.4, 0.6, 0.5}},
		{Strategy: "a", Space: "solo", Budget: 400, MeanFraction: 0.8, StdFraction: 0.1, Fractions: []float64{0.7, 0.9, 0.8}},
		{Strategy: "b", Space: "solo", Budget: 25, MeanFraction: 0.3, StdFraction: 0.01, Fractions: []float64{0.29, 0.31, 0.3}},
		{Strategy: "b", Space: "solo", Budget: 400, MeanFraction: 0.6, StdFraction: 0.01, Fractions: []float64{0.59, 0.61, 0.6}},
	}
	dir := t.TempDir()
	files, err := Figures(cells, nil, 0.05, DefaultSplit, dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		png := string(b[:4]) == "\x89PNG"
		svg := strings.Contains(string(b[:min(len(b), 200)]), "<svg") || strings.Contains(string(b[:min(len(b), 200)]), "<?xml")
		if !png && !svg {
			t.Errorf("%s is neither PNG nor SVG", f)
		}
		if filepath.Dir(f) != dir {
			t.Errorf("%s is not in %s", f, dir)
		}
		if strings.HasSuffix(f, ".svg") {
			names = append(names, strings.TrimSuffix(filepath.Base(f), ".svg"))
		}
	}
	// curves per space and for the one kernel with several spaces; heat maps over all
	// spaces and per kernel ("solo" is a kernel of its own), low and medium
	want := []string{
		"curves-k_x", "curves-k_y", "curves-solo", "curves-kernel-k",
		"competition-low", "competition-medium",
		"competition-k-low", "competition-k-medium", "competition-solo-low", "competition-solo-medium",
	}
	if !slices.Equal(names, want) || len(files) != 2*len(want) {
		t.Fatalf("figures %v, want %v as SVG and PNG", names, want)
	}
	// one strategy: nothing to compete, no heat maps
	var alone []Cell
	for _, c := range cells {
		if c.Strategy == "a" {
			alone = append(alone, c)
		}
	}
	files, err = Figures(alone, nil, 0.05, DefaultSplit, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.Contains(f, "competition") {
			t.Errorf("%s drawn for one strategy", f)
		}
	}
	// no budget above the split: no medium heat maps rather than empty ones
	files, err = Figures(cells, nil, 0.05, 400, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.Contains(f, "medium") {
			t.Errorf("%s drawn for a range without budgets", f)
		}
	}
}

// Seed 000's Fig. 1 counts in row r, column c the wins of the column's strategy over the
// row's.
func TestCompetitionMatrixCountsColumnWinsOverRows(t *testing.T) {
	good := []float64{0.9, 0.91, 0.92, 0.93}
	bad := []float64{0.5, 0.52, 0.51, 0.53}
	same := []float64{0.9, 0.93, 0.91, 0.92}
	var cells []Cell
	for _, sp := range []string{"k/x", "k/y"} {
		for _, b := range []int{25, 400} {
			for _, s := range []struct {
				name string
				f    []float64
			}{{"weak", bad}, {"strong", good}, {"level", same}} {
				m, _ := meanVar(s.f)
				cells = append(cells, Cell{Strategy: s.name, Space: sp, Budget: b, MeanFraction: m, Fractions: s.f})
			}
		}
	}
	m, ok := competitionMatrix(cells, 0.05, 0, 200)
	if !ok {
		t.Fatal("no matrix")
	}
	// rows and columns: weak, strong, level; two spaces at budget 25 in range
	want := [][]float64{{math.NaN(), 2, 2}, {0, math.NaN(), 0}, {0, 0, math.NaN()}}
	for r := range want {
		for c := range want[r] {
			if g := m.wins[r][c]; !(g == want[r][c] || math.IsNaN(g) && math.IsNaN(want[r][c])) {
				t.Fatalf("wins %v, want %v", m.wins, want)
			}
		}
	}
	// drawn with the first strategy in the top row
	if m.Z(1, 2) != 2 || m.Z(0, 0) != 0 {
		t.Fatalf("heat map rows: Z(1, top) %v Z(0, bottom) %v", m.Z(1, 2), m.Z(0, 0))
	}
	if _, ok := competitionMatrix(cells, 0.05, 1000, 2000); ok {
		t.Fatal("a matrix for a range without budgets")
	}
	scores := Compete(cells, 0.05, 25)
	if scores[0].Strategy == "weak" || scores[0].WinsLow != 2 || scores[0].WinsHigh != 2 {
		t.Fatalf("split at 25: %+v", scores)
	}
}

func TestByKernelPoolsTheRunsOfAKernelsSpaces(t *testing.T) {
	cells := []Cell{
		{Strategy: "a", Space: "gemm/A100", Budget: 25, MeanFraction: 0.5, MeanEvaluations: 25, MicrosPerEvaluation: 10, Fractions: []float64{0.4, 0.6}},
		{Strategy: "a", Space: "gemm/MI250X", Budget: 25, MeanFraction: 0.9, MeanEvaluations: 23, MicrosPerEvaluation: 20, Fractions: []float64{0.8, 1.0}},
		{Strategy: "a", Space: "pnpoly", Budget: 25, MeanFraction: 0.7, MeanEvaluations: 25, MicrosPerEvaluation: 5, Fractions: []float64{0.7, 0.7}},
	}
	if k := Kernel("benchmark_hub/gemm/A100"); k != "benchmark_hub/gemm" {
		t.Fatalf("kernel %q", k)
	}
	kernels, spaces := Kernels(cells)
	if !slices.Equal(kernels, []string{"gemm", "pnpoly"}) || spaces["gemm"] != 2 || spaces["pnpoly"] != 1 {
		t.Fatalf("kernels %v %v", kernels, spaces)
	}
	got := ByKernel(cells)
	if len(got) != 2 || got[0].Space != "gemm" || got[1].Space != "pnpoly" {
		t.Fatalf("cells %+v", got)
	}
	g := got[0]
	// runs 0.4 0.6 0.8 1.0: mean 0.7, sample std sqrt(0.2/3)
	if math.Abs(g.MeanFraction-0.7) > 1e-12 || math.Abs(g.StdFraction-math.Sqrt(0.2/3)) > 1e-12 ||
		g.MeanEvaluations != 24 || math.Abs(g.MicrosPerEvaluation-(25*10+23*20)/48.0) > 1e-12 ||
		!slices.Equal(g.Fractions, []float64{0.4, 0.6, 0.8, 1.0}) {
		t.Fatalf("gemm %+v", g)
	}
	if got[1].MeanFraction != 0.7 || got[1].StdFraction != 0 {
		t.Fatalf("pnpoly %+v", got[1])
	}
}

func TestCurvesSpanTheirData(t *testing.T) {
	for _, c := range []struct{ lo, hi, min, max float64 }{
		{0.87, 0.999, 0.85, 1},
		{0.5, 0.62, 0.5, 0.65},
		{0.99, 1, 0.9, 1},
		{0, 0.03, 0, 0.1},
		{0.3, 0.3, 0.3, 0.4},
		{1, 0, 0, 1}, // no data
	} {
		if lo, hi := yRange(c.lo, c.hi); math.Abs(lo-c.min) > 1e-12 || math.Abs(hi-c.max) > 1e-12 {
			t.Errorf("yRange(%v, %v) = %v, %v, want %v, %v", c.lo, c.hi, lo, hi, c.min, c.max)
		}
	}
}

// An interrupted benchmark returns the cells it finished, with the error.
func TestRunReturnsTheFinishedCellsWhenInterrupted(t *testing.T) {
	sim := newSim(t, "../testdata/benchmark_hub/kerneltuner_pnpoly/RTX_2080_Ti.json.gz", simulator.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cells, err := Run(ctx, Config{
		Strategies: []Strategy{{Name: "random"}, {Name: "firstils"}},
		Spaces:     []Space{{Name: "p", Sim: sim}},
		Budgets:    []int{20, 40},
		Repeats:    10,
		Seed:       1,
		Progress: func(p Progress) {
			if p.Cells == 2 {
				cancel()
			}
		},
	})
	if !errors.Is(err, context.Canceled) || len(cells) != 2 || cells[0].Strategy != "random" || cells[1].Budget != 20 {
		t.Fatalf("%d cells, %v", len(cells), err)
	}
}

// A strategy's options that do not fit a space are refused before the first cell, naming
// the entry, space, budget and option, with no cell run.
func TestRunRefusesOptionsThatDoNotFitASpaceBeforeAnyCell(t *testing.T) {
	sim := newSim(t, "../testdata/benchmark_hub/kerneltuner_pnpoly/RTX_2080_Ti.json.gz", simulator.Options{})
	finished := 0
	cfg := Config{
		Strategies: []Strategy{{Name: "random"}, {Name: "greedymls", Label: "g", Options: map[string]any{"order": "[tile_size, 4]"}}},
		Spaces:     []Space{{Name: "p", Sim: sim}},
		Budgets:    []int{20, 40},
		Repeats:    2,
		Seed:       1,
		Finished:   func([]Cell) { finished++ },
	}
	want := `g on p at budget 20: strategy greedymls: option order: "4" is neither a parameter of the space nor an index below 4`
	if err := cfg.Check(); err == nil || err.Error() != want {
		t.Errorf("Check = %v, want %q", err, want)
	}
	cells, err := Run(context.Background(), cfg)
	if err == nil || err.Error() != want || cells != nil || finished != 0 {
		t.Errorf("Run: %d cells (%d finished), %v; want none and %q", len(cells), finished, err, want)
	}
	cfg.Strategies[1].Options["order"] = "[tile_size, 3]"
	if err := cfg.Check(); err != nil {
		t.Errorf("an order that fits: %v", err)
	}
}

// newSim reads a Kernel Tuner cache from testdata into a simulator.
func newSim(t *testing.T, path string, opts simulator.Options) *simulator.Simulator {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rec, err := kerneltuner.Read(f, path)
	if err != nil {
		t.Fatal(err)
	}
	sim, err := simulator.New(rec, opts)
	if err != nil {
		t.Fatal(err)
	}
	return sim
}

// With a single budget there is no line to draw: each strategy gets a mark and an error
// bar of its 95% interval, side by side, on an axis with room around the budget.
func TestASingleBudgetIsDrawnAsMarksWithErrorBars(t *testing.T) {
	cells := []Cell{
		{Strategy: "a", Space: "solo", Budget: 20, MeanFraction: 0.9, StdFraction: 0.05, Fractions: []float64{0.85, 0.95, 0.9}},
		{Strategy: "b", Space: "solo", Budget: 20, MeanFraction: 0.8, StdFraction: 0.05, Fractions: []float64{0.75, 0.85, 0.8}},
	}
	dir := t.TempDir()
	if _, err := Figures(cells, nil, 0.05, DefaultSplit, dir); err != nil {
		t.Fatal(err)
	}
	svg, err := os.ReadFile(filepath.Join(dir, "curves-solo.svg"))
	if err != nil {
		t.Fatal(err)
	}
	// each strategy's colour strokes its legend line and its error bar with two caps, and
	// fills its mark on the plot and in the legend (before, only the legend line was drawn)
	for _, col := range []string{"#1F77B4", "#FF7F0E"} {
		strokes := strings.Count(string(svg), "stroke:"+col+";stroke-width:1.5")
		fills := strings.Count(string(svg), `style="fill:`+col+`"`)
		if strokes < 4 || fills != 2 {
			t.Errorf("colour %s: %d strokes, %d filled marks; want an error bar with caps and a mark", col, strokes, fills)
		}
	}
}

// Space names that write as one file name (a_b/c and a/b_c; a space kernel-k and the kernel
// k of spaces k/x and k/y) get names of their own, so no figure overwrites another; names
// that do not collide keep their plain form.
func TestCurveNamesNeverCollide(t *testing.T) {
	var cells []Cell
	for _, sp := range []string{"a_b/c", "a/b_c", "kernel-k", "k/x", "k/y", "plain"} {
		cells = append(cells, Cell{Strategy: "s", Space: sp, Budget: 25, MeanFraction: 0.5, Fractions: []float64{0.5}})
	}
	spaces, kernels := CurveNames(cells)
	seen := map[string]string{}
	for _, m := range []map[string]string{spaces, kernels} {
		for name, file := range m {
			if other, ok := seen[file]; ok {
				t.Errorf("%s and %s both write %s", name, other, file)
			}
			seen[file] = name
		}
	}
	if spaces["plain"] != "curves-plain" || spaces["k/x"] != "curves-k_x" {
		t.Errorf("names that do not collide changed: %v", spaces)
	}
	if !strings.HasPrefix(spaces["a_b/c"], "curves-a_b_c-") || !strings.HasPrefix(kernels["k"], "curves-kernel-k-") {
		t.Errorf("colliding names: %v %v", spaces, kernels)
	}
	dir := t.TempDir()
	files, err := PlotCurves(cells, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2*6 {
		t.Errorf("%d files for 6 spaces: %v", len(files), files)
	}
	// kernels "a b" and "a_b" (two spaces each) have heat maps of their own
	var two []Cell
	for _, sp := range []string{"a b/x", "a b/y", "a_b/x", "a_b/y"} {
		for _, st := range []string{"s", "t"} {
			two = append(two, Cell{Strategy: st, Space: sp, Budget: 25, MeanFraction: 0.5, StdFraction: 0.1, Fractions: []float64{0.4, 0.6}})
		}
	}
	all, err := Figures(two, nil, 0.05, DefaultSplit, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	seenFile := map[string]bool{}
	for _, f := range all {
		if seenFile[f] {
			t.Errorf("%s is written twice", f)
		}
		seenFile[f] = true
	}
}

// The curves' 95% band is Student's t interval of the mean: at 3 runs t(0.975, 2) = 4.303,
// more than twice the normal 1.96; at many runs it tends to 1.96.
func TestIntervalUsesStudentsT(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want float64 // t quantile
	}{{2, 12.706}, {3, 4.303}, {50, 2.010}, {10000, 1.960}} {
		got := halfInterval95(1, tc.n) * math.Sqrt(float64(tc.n))
		if math.Abs(got-tc.want) > 0.001 {
			t.Errorf("n=%d: t quantile %.4f, want %.3f", tc.n, got, tc.want)
		}
	}
	if halfInterval95(1, 1) != 0 {
		t.Error("one run has an interval")
	}
}

func TestRunRefusesASpaceWithoutASimulator(t *testing.T) {
	cfg := Config{Strategies: []Strategy{{Name: "random"}}, Spaces: []Space{{Name: "empty"}}, Budgets: []int{5}, Repeats: 2}
	if _, err := Run(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), `space 0 ("empty") has no simulator`) {
		t.Errorf("Run = %v", err)
	}
}

// An option that fits some budgets only (genetic's elitism below a popsize that Table III
// sets per budget) is refused by Check, before any cell runs, naming the budget where it
// does not fit (QA: budget 25's cell met it after the others ran, and nothing was written).
func TestCheckFindsOptionsThatFitSomeBudgetsOnly(t *testing.T) {
	sim := newSim(t, "../testdata/benchmark_hub/kerneltuner_pnpoly/RTX_2080_Ti.json.gz", simulator.Options{})
	sts, err := ParseStrategies("random,genetic:elitism=20")
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Strategies: sts, Spaces: []Space{{Name: "p", Sim: sim}}, Budgets: []int{400, 800}, Repeats: 2}
	if err := cfg.Check(); err != nil {
		t.Errorf("budgets 400 and 800 (popsize 80 and 128): %v", err)
	}
	cfg.Budgets = []int{400, 800, 25}
	if err := cfg.Check(); err == nil || !strings.Contains(err.Error(), "at budget 25") || !strings.Contains(err.Error(), "popsize is 8") {
		t.Errorf("budget 25 (popsize 8): %v", err)
	}
	h := HypertuneConfig{Strategy: "genetic", Grid: Grid{{Name: "elitism", Values: []string{"1", "20"}}}, Spaces: cfg.Spaces, Budgets: []int{400, 25}, Repeats: 2}
	if err := h.Check(); err == nil || !strings.Contains(err.Error(), "elitism=20") || !strings.Contains(err.Error(), "at budget 25") {
		t.Errorf("a hypertune grid: %v", err)
	}
}

// Progress names the leader over the spaces and budgets every strategy finished: the
// strategy of the highest mean fraction of optimum over those cells, and that mean.
func TestProgressNamesTheLeaderOverFinishedPairs(t *testing.T) {
	sim := newSim(t, "../testdata/benchmark_hub/kerneltuner_pnpoly/RTX_2080_Ti.json.gz", simulator.Options{})
	var seen []Progress
	cfg := Config{
		Strategies: []Strategy{{Name: "random"}, {Name: "firstils"}},
		Spaces:     []Space{{Name: "p", Sim: sim}},
		Budgets:    []int{20, 200},
		Repeats:    10,
		Seed:       1,
		Progress:   func(p Progress) { seen = append(seen, p) },
	}
	cells, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	sums := map[string]float64{}
	for _, c := range cells {
		sums[c.Strategy] += c.MeanFraction
	}
	lead := "random"
	if sums["firstils"] > sums["random"] {
		lead = "firstils"
	}
	last := seen[len(seen)-1]
	if last.Leader != lead || last.Pairs != 2 || math.Abs(last.LeaderMean-sums[lead]/2) > 1e-12 {
		t.Errorf("last progress %+v, want %s at %v over 2 pairs", last, lead, sums[lead]/2)
	}
	// before the first budget's strategies have all finished there is no leader
	if seen[0].Leader != "" {
		t.Errorf("first progress %+v: a leader before any pair finished", seen[0])
	}
}

// A space smaller than the budget caps a run's evaluations under deterministic fitness
// only, where a repeat is free: under stochastic fitness a repeat is a new measurement
// that costs budget, and a run that stops at the space's size stopped early (QA: random
// sampling's 15 evaluations at budget 300 on the 15 configurations of vector_add were said
// to be capped by the space, beside irace's 300).
func TestBudgetUseCapsBySpaceOnlyUnderDeterministicFitness(t *testing.T) {
	const path = "../testdata/kernel_tuner/vector_add_A4000.json"
	strategies, err := ParseStrategies("random,firstils")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		fitness       simulator.Fitness
		short, capped []string // strategy at budget
	}{
		{simulator.Deterministic, nil, []string{"random 300", "firstils 300"}},
		{simulator.Stochastic, []string{"random 300"}, nil},
	} {
		sp := Space{Name: "v", Sim: newSim(t, path, simulator.Options{Mode: simulator.Cartesian, Fitness: tc.fitness})}
		if n := sp.Sim.Space().Len(); n != 15 {
			t.Fatalf("%d configurations", n)
		}
		cells, err := Run(context.Background(), Config{Strategies: strategies, Spaces: []Space{sp}, Budgets: []int{10, 300}, Repeats: 2, Seed: 1, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		names := func(cells []Cell) (out []string) {
			for _, c := range cells {
				out = append(out, fmt.Sprintf("%s %d", c.Strategy, c.Budget))
			}
			return out
		}
		short, capped := BudgetUse(cells, []Space{sp})
		if !slices.Equal(names(short), tc.short) || !slices.Equal(names(capped), tc.capped) {
			t.Errorf("%v fitness: short %v, capped %v; want %v, %v (cells %+v)", tc.fitness, names(short), names(capped), tc.short, tc.capped, cells)
		}
		if want := map[simulator.Fitness]int{simulator.Deterministic: 15, simulator.Stochastic: 300}[tc.fitness]; Usable(sp, 300) != want {
			t.Errorf("%v fitness: %d evaluations usable at budget 300, want %d", tc.fitness, Usable(sp, 300), want)
		}
	}
}
