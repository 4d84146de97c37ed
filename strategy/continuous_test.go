package strategy_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/simulator"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/strategy"
	"github.com/ktune/ktune/tuning"
)

// Tests of the continuous strategies with local minimisers (basin hopping, dual
// annealing) on recorded spaces, in the manner of population_test.go, whose helpers
// (popSim, popRun, popProblem) they share.

var cubeStrategies = []string{"basinhopping", "dualannealing"}

// cubeRecorded is the recording of popRecordings[name] in recorded mode: only the
// configurations it holds are valid, so mapped points often need repair.
func cubeRecorded(t *testing.T, name string) *simulator.Simulator {
	t.Helper()
	return recordedSim(t, popRecordings[name], simulator.Recorded)
}

// Same seed, same history; another seed, another history; every evaluated configuration
// is valid; the budget is used exactly (Kernel Tuner's dual annealing stopped at 157 of
// 400). Budgets 30, 300 and 900 pick different Table III columns; the variants exercise
// every minimiser and the restart on a cold temperature.
func TestContinuousStrategiesAreDeterministicValidAndUseTheBudget(t *testing.T) {
	variants := map[string][]map[string]any{
		"basinhopping": {nil, {"method": "neldermead", "stepsize": 0.5}, {"method": "powell", "temperature": 0},
			{"method": "COBYLA", "temperature": 2.5, "stepsize": 0.05}},
		"dualannealing": {nil, {"method": "neldermead"}, {"method": "cobyla", "visit": 1.5, "accept": -50},
			{"initial_temp": 1, "restart_temp_ratio": 0.5}},
	}
	sims := map[string]*simulator.Simulator{
		"pnpoly cartesian":      popSim(t, "pnpoly"),
		"convolution cartesian": popSim(t, "convolution"),
		"convolution recorded":  cubeRecorded(t, "convolution"),
	}
	for _, simName := range []string{"pnpoly cartesian", "convolution cartesian", "convolution recorded"} {
		sim := sims[simName]
		sp := sim.Space()
		for _, name := range cubeStrategies {
			for vi, opts := range variants[name] {
				for _, budget := range []int{30, 300, 900} {
					a := popRun(t, sim, name, opts, budget, 7)
					b := popRun(t, sim, name, opts, budget, 7)
					c := popRun(t, sim, name, opts, budget, 8)
					what := func() string { return simName + " " + name + " " + strings.Repeat("'", vi) }
					if a.Evaluations != budget || a.Distinct != budget || a.Stop != tuning.StopBudget {
						t.Errorf("%s budget %d: %d evaluations, %d distinct, stop %q; want the whole budget",
							what(), budget, a.Evaluations, a.Distinct, a.Stop)
					}
					if !slices.EqualFunc(history(a), history(b), slices.Equal) {
						t.Errorf("%s budget %d: same seed, different histories", what(), budget)
					}
					if slices.EqualFunc(history(a), history(c), slices.Equal) {
						t.Errorf("%s budget %d: seeds 7 and 8 gave the same history", what(), budget)
					}
					for _, h := range a.History {
						if !sp.Contains(h.Config) {
							t.Fatalf("%s: evaluated invalid configuration %v", what(), h.Config)
						}
					}
				}
			}
		}
	}
}

// Without a budget a run goes on until every configuration of the space is evaluated,
// and then ends: restarts find the last configurations, and revisits never loop forever.
func TestContinuousStrategiesExhaustTheSpace(t *testing.T) {
	sim := popSim(t, "pnpoly")
	n := sim.Space().Len()
	for _, name := range cubeStrategies {
		start := time.Now()
		sum := popRun(t, sim, name, nil, 0, 3)
		t.Logf("%s: %d configurations in %v", name, sum.Distinct, time.Since(start).Round(time.Millisecond))
		if sum.Distinct != n || sum.Stop != tuning.StopExhausted {
			t.Errorf("%s: %d of %d configurations, stop %q", name, sum.Distinct, n, sum.Stop)
		}
	}
}

// Both strategies must beat random sampling by more than two standard errors of the
// difference at budget 200 on convolution (A100, Cartesian mode) over 50 repeats.
func TestContinuousStrategiesAgainstRandomSampling(t *testing.T) {
	if testing.Short() {
		t.Skip("50 runs per strategy")
	}
	sim := popSim(t, "convolution")
	const budget, repeats = 200, 50
	repeat := func(name string) simulator.RepeatSummary {
		s, err := simulator.Repeat(context.Background(), sim, simulator.RepeatOptions{
			Strategy: name, Budget: budget, Repeats: repeats, Seed: 1000})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	random := repeat("random")
	t.Logf("convolution A100, budget %d, %d repeats: random sampling mean fraction of optimum %.4f (sd %.4f)",
		budget, repeats, random.MeanFraction, random.StdFraction)
	for _, name := range cubeStrategies {
		s := repeat(name)
		diff := s.MeanFraction - random.MeanFraction
		se := math.Sqrt((s.StdFraction*s.StdFraction + random.StdFraction*random.StdFraction) / repeats)
		t.Logf("%-13s mean fraction of optimum %.4f (sd %.4f): %+.4f vs random, %.1f standard errors",
			name, s.MeanFraction, s.StdFraction, diff, diff/se)
		if diff <= 2*se {
			t.Errorf("%s: mean fraction %.4f is not significantly above random sampling's %.4f (difference %.4f, standard error %.4f)",
				name, s.MeanFraction, random.MeanFraction, diff, se)
		}
	}
}

// Restricted spaces: mapped points that the restrictions forbid are repaired (by a Hamming
// neighbour, or by sampling when two independent restrictions are broken), failed (+Inf)
// configurations are coped with, the budget is used exactly, and evaluator errors are
// passed on.
func TestContinuousStrategiesRepairRestrictedConfigurations(t *testing.T) {
	sp := intGrid(t, 6, 6, "a + b + c <= 4", "d == e or e == f")
	for _, name := range cubeStrategies {
		checkRestrictedRuns(t, sp, name, nil, []int{60, sp.Len()}, false)
		checkEvaluatorErrorPassedOn(t, sp, name)
	}
}

// A cancelled context ends a run with the context's error.
func TestContinuousStrategiesStopOnCancellation(t *testing.T) {
	sim := popSim(t, "pnpoly")
	for _, name := range cubeStrategies {
		st, err := strategy.New(name, nil)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		n := 0
		ev := cancellingEvaluator{sim: sim, after: 40, n: &n, cancel: cancel}
		sess, err := tuning.New(sim.Space(), st, ev, tuning.Options{Budget: 500, Seed: 1, Maximize: sim.Maximize()})
		if err != nil {
			t.Fatal(err)
		}
		sum, err := sess.Run(ctx)
		cancel()
		if !errors.Is(err, context.Canceled) && sum.Stop != tuning.StopCancelled {
			t.Errorf("%s: run ended with %v, stop %q after %d evaluations; want cancellation", name, err, sum.Stop, n)
		}
		if n > 41 {
			t.Errorf("%s: %d evaluations after cancelling at 40", name, n)
		}
	}
}

func TestContinuousStrategiesRejectBadOptions(t *testing.T) {
	bad := []struct {
		name string
		opts map[string]any
		want string // in the error
	}{
		{"basinhopping", map[string]any{"method": "SLSQP"}, "gradients"},
		{"basinhopping", map[string]any{"method": "newton"}, "method"},
		{"basinhopping", map[string]any{"method": 3}, "method"},
		{"basinhopping", map[string]any{"temperature": -1}, "temperature"},
		{"basinhopping", map[string]any{"temperature": "hot"}, "temperature"},
		{"basinhopping", map[string]any{"stepsize": 0}, "stepsize"},
		{"basinhopping", map[string]any{"stepsize": 1.5}, "stepsize"},
		{"basinhopping", map[string]any{"niter": 5}, "niter"},
		{"dualannealing", map[string]any{"method": "L-BFGS-B"}, "gradients"},
		{"dualannealing", map[string]any{"visit": 3}, "visit"},
		{"dualannealing", map[string]any{"visit": 1}, "visit"},
		{"dualannealing", map[string]any{"accept": 1}, "accept"},
		{"dualannealing", map[string]any{"accept": -2e4}, "accept"},
		{"dualannealing", map[string]any{"initial_temp": 0}, "initial_temp"},
		{"dualannealing", map[string]any{"restart_temp_ratio": 1}, "restart_temp_ratio"},
	}
	for _, b := range bad {
		_, err := strategy.New(b.name, b.opts)
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%s %v: error %v, want one naming %q", b.name, b.opts, err, b.want)
		}
	}
	for _, name := range cubeStrategies {
		f, ok := strategy.Lookup(name)
		if !ok || f.Doc == "" {
			t.Fatalf("%s is not registered with a Doc", name)
		}
		for _, o := range f.Options {
			if o.Name == "" || o.Default == "" || o.Doc == "" {
				t.Errorf("%s: option %+v is not documented", name, o)
			}
		}
	}
}

// cancellingEvaluator passes evaluations to the simulator and cancels the run's context
// at evaluation after.
type cancellingEvaluator struct {
	sim    *simulator.Simulator
	after  int
	n      *int
	cancel context.CancelFunc
}

func (e cancellingEvaluator) Evaluate(ctx context.Context, c space.Config) (result.Evaluation, error) {
	*e.n++
	if *e.n == e.after {
		e.cancel()
	}
	return e.sim.Evaluate(ctx, c)
}
