package strategy_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/ktune/ktune/format/kerneltuner"
	"github.com/ktune/ktune/simulator"
	"github.com/ktune/ktune/strategy"
	"github.com/ktune/ktune/tuning"
)

var (
	iraceSimMu sync.Mutex
	iraceSims  = map[string]*simulator.Simulator{}
)

// iraceSim loads a recorded space once per mode and fitness.
func iraceSim(t *testing.T, path string, mode simulator.Mode, fitness simulator.Fitness) *simulator.Simulator {
	t.Helper()
	iraceSimMu.Lock()
	defer iraceSimMu.Unlock()
	key := path + "/" + mode.String() + "/" + fitness.String()
	if s, ok := iraceSims[key]; ok {
		return s
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rec, err := kerneltuner.Read(f, filepath.Base(path))
	if err != nil {
		t.Fatal(err)
	}
	s, err := simulator.New(rec, simulator.Options{Mode: mode, Fitness: fitness})
	if err != nil {
		t.Fatal(err)
	}
	iraceSims[key] = s
	return s
}

// iraceRun runs irace in a session as ktune simulate and bench do: stochastic fitness
// without the cache (repeats are new samples and cost budget), deterministic with it.
func iraceRun(t *testing.T, sim *simulator.Simulator, opts map[string]any, budget int, seed uint64) tuning.Summary {
	t.Helper()
	st, err := strategy.New("irace", opts)
	if err != nil {
		t.Fatal(err)
	}
	sim = sim.WithSeed(seed)
	sess, err := tuning.New(sim.Space(), st, checkingEvaluator{t, sim}, tuning.Options{Budget: budget,
		Maximize: sim.Maximize(), Seed: seed, NoCache: sim.Options().Fitness == simulator.Stochastic})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := sess.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// maxRepeats is the largest number of times one configuration was measured.
func maxRepeats(sum tuning.Summary) int {
	n := map[string]int{}
	most := 0
	for _, h := range sum.History {
		k := fmt.Sprint(h.Config)
		n[k]++
		most = max(most, n[k])
	}
	return most
}

// Deterministic and stochastic sessions on a restricted (recorded pnpoly) and a cartesian
// space (convolution, most configurations failing), with irace's options varied: the whole
// budget is used, on valid configurations only; a cached session never measures twice
// (each configuration is raced on its one sample), a stochastic one races (measures
// candidates again); the same seed gives the same history, another seed another.
func TestIraceUsesTheBudgetRacesAndIsReproducible(t *testing.T) {
	variants := []map[string]any{
		nil,
		{"testType": "t-test-holm", "elitist": false},
		{"testType": "t-test", "firstTest": 4, "eachTest": 2, "nbConfigurations": 12, "confidence": 0.9},
	}
	spaces := []struct {
		path string
		mode simulator.Mode
	}{{pnpolyPath, simulator.Recorded}, {convolutionPath, simulator.Cartesian}}
	for _, sp := range spaces {
		for _, fit := range []simulator.Fitness{simulator.Deterministic, simulator.Stochastic} {
			sim := iraceSim(t, sp.path, sp.mode, fit)
			for vi, opts := range variants {
				for _, budget := range []int{30, 300, 900} {
					name := filepath.Base(sp.path) + "/" + sp.mode.String() + "/" + fit.String()
					a := iraceRun(t, sim, opts, budget, 7)
					if a.Evaluations != budget {
						t.Errorf("%s variant %d budget %d: %d evaluations", name, vi, budget, a.Evaluations)
					}
					rep := maxRepeats(a)
					switch {
					case fit == simulator.Deterministic && a.Distinct != budget:
						t.Errorf("%s variant %d budget %d: %d distinct of %d evaluations in a cached session", name, vi, budget, a.Distinct, a.Evaluations)
					case fit == simulator.Stochastic && budget >= 300 && rep < 2:
						t.Errorf("%s variant %d budget %d: no configuration measured twice: no race", name, vi, budget)
					}
					b := iraceRun(t, sim, opts, budget, 7)
					if !slices.EqualFunc(history(a), history(b), slices.Equal) {
						t.Errorf("%s variant %d budget %d: same seed, different histories", name, vi, budget)
					}
					if c := iraceRun(t, sim, opts, budget, 8); slices.EqualFunc(history(a), history(c), slices.Equal) {
						t.Errorf("%s variant %d budget %d: seeds 7 and 8 gave the same history", name, vi, budget)
					}
					if budget == 900 {
						t.Logf("%s variant %d budget %d: %d distinct configurations, measured at most %d times", name, vi, budget, a.Distinct, rep)
					}
				}
			}
		}
	}
}

// Without a budget a cached session goes on until the whole space is evaluated.
func TestIraceRunsToExhaustion(t *testing.T) {
	sim := iraceSim(t, pnpolyPath, simulator.Cartesian, simulator.Deterministic)
	sum := iraceRun(t, sim, nil, 0, 3)
	if sum.Distinct != sim.Space().Len() || sum.Stop != tuning.StopExhausted {
		t.Errorf("%d of %d configurations, stop %q", sum.Distinct, sim.Space().Len(), sum.Stop)
	}
}

// irace against random sampling on convolution (A100, cartesian) at budget 200 over 50
// runs, in both of seed 000's settings: it must be better by more than two standard errors
// of the difference.
func TestIraceBeatsRandomSampling(t *testing.T) {
	if testing.Short() {
		t.Skip("50 runs per strategy and setting")
	}
	const budget, repeats = 200, 50
	for _, fit := range []simulator.Fitness{simulator.Deterministic, simulator.Stochastic} {
		sim := iraceSim(t, convolutionPath, simulator.Cartesian, fit)
		repeat := func(name string) simulator.RepeatSummary {
			s, err := simulator.Repeat(context.Background(), sim, simulator.RepeatOptions{
				Strategy: name, Budget: budget, Repeats: repeats, Seed: 500})
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		rnd, ir := repeat("random"), repeat("irace")
		diff := ir.MeanFraction - rnd.MeanFraction
		se := math.Sqrt((ir.StdFraction*ir.StdFraction + rnd.StdFraction*rnd.StdFraction) / repeats)
		t.Logf("%s: irace %.4f (sd %.4f), random %.4f (sd %.4f): %+.1f standard errors",
			fit, ir.MeanFraction, ir.StdFraction, rnd.MeanFraction, rnd.StdFraction, diff/se)
		if diff <= 2*se {
			t.Errorf("%s: irace's mean fraction %.4f is not significantly above random sampling's %.4f", fit, ir.MeanFraction, rnd.MeanFraction)
		}
	}
}

func TestIraceRejectsBadOptions(t *testing.T) {
	for _, opts := range []map[string]any{
		{"firstTest": 1},
		{"firstTest": 3, "eachTest": 2},
		{"eachTest": 0},
		{"nbConfigurations": -1},
		{"testType": "wilcoxon"},
		{"confidence": 1.0},
		{"confidence": "high"},
		{"elitist": "sometimes"},
		{"first_test": 2},
	} {
		if _, err := strategy.New("irace", opts); err == nil {
			t.Errorf("irace accepted %v", opts)
		}
	}
	f, ok := strategy.Lookup("irace")
	if !ok {
		t.Fatal("irace is not registered")
	}
	for _, o := range f.Options {
		if o.Name == "" || o.Default == "" || o.Doc == "" {
			t.Errorf("option %+v is not documented", o)
		}
	}
}
