package benchmark

import (
	"context"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/ktune/ktune/format/kerneltuner"
	"github.com/ktune/ktune/simulator"
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

func TestCompetitionRanksBruteForceBelowRandomAtSmallBudgets(t *testing.T) {
	f, err := os.Open("../testdata/benchmark_hub/convolution_milo/A100.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rec, err := kerneltuner.Read(f, "A100")
	if err != nil {
		t.Fatal(err)
	}
	sim, err := simulator.New(rec, simulator.Options{Mode: simulator.Cartesian})
	if err != nil {
		t.Fatal(err)
	}
	cells, err := Run(context.Background(), Config{
		Strategies: []Strategy{{Name: "random"}, {Name: "bruteforce"}},
		Spaces:     []Space{{Name: "conv-A100", Sim: sim}},
		Budgets:    []int{50, 400},
		Repeats:    30,
		Seed:       1,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != 4 {
		t.Fatalf("%d cells", len(cells))
	}
	scores := Compete(cells, 0.05)
	// Brute force walks a prefix of the index order, the same for every seed: at these
	// budgets it is far from the optimum and random sampling beats it.
	if scores[0].Strategy != "random" || scores[0].WinsLow != 1 || scores[0].WinsHigh != 1 || scores[1].LossesLow != 1 {
		t.Fatalf("scores %+v", scores)
	}
}

func TestFiguresAreWritten(t *testing.T) {
	cells := []Cell{
		{Strategy: "a", Space: "s/x", Budget: 25, MeanFraction: 0.5, StdFraction: 0.1, Fractions: []float64{0.4, 0.6, 0.5}},
		{Strategy: "a", Space: "s/x", Budget: 400, MeanFraction: 0.8, StdFraction: 0.1, Fractions: []float64{0.7, 0.9, 0.8}},
		{Strategy: "b", Space: "s/x", Budget: 25, MeanFraction: 0.3, StdFraction: 0.01, Fractions: []float64{0.29, 0.31, 0.3}},
		{Strategy: "b", Space: "s/x", Budget: 400, MeanFraction: 0.6, StdFraction: 0.01, Fractions: []float64{0.59, 0.61, 0.6}},
	}
	dir := t.TempDir()
	files, err := PlotCurves(cells, dir)
	if err != nil {
		t.Fatal(err)
	}
	more, err := PlotCompetition(cells, 0.05, 0, 200, "low", "budgets <= 200", dir)
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, more...)
	if len(files) != 4 {
		t.Fatalf("files %v", files)
	}
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
	}
}
