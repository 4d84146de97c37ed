package simulator_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ktune/ktune/simulator"
	"github.com/ktune/ktune/tuning"
)

// Under stochastic fitness a repeated configuration is a new sample and costs budget, so
// irace can race on a space of four configurations for the whole budget; under
// deterministic fitness repeats are cached and the run ends when the space is exhausted.
func TestRepeatChargesRepeatsUnderStochasticFitness(t *testing.T) {
	cases := []struct {
		fitness               simulator.Fitness
		evaluations, distinct int
		stop                  tuning.StopReason
	}{
		{simulator.Deterministic, 4, 4, tuning.StopExhausted},
		{simulator.Stochastic, 40, 4, tuning.StopBudget},
	}
	for _, tc := range cases {
		sim := mustNew(t, small(), simulator.Options{Fitness: tc.fitness})
		sum, err := simulator.Repeat(context.Background(), sim, simulator.RepeatOptions{
			Strategy: "irace", Budget: 40, Repeats: 5, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range sum.Runs {
			if r.Evaluations != tc.evaluations || r.Distinct != tc.distinct || r.Stop != tc.stop {
				t.Errorf("%s: %d evaluations, %d distinct, stop %q; want %d, %d, %q",
					tc.fitness, r.Evaluations, r.Distinct, r.Stop, tc.evaluations, tc.distinct, tc.stop)
			}
			// the runs find the optimum, (1,1), and are scored by its recorded mean 1 ms
			if r.BestObjective == nil || *r.BestObjective != 1 || r.Fraction != 1 {
				t.Errorf("%s: best %v fraction %v, want the recorded mean 1 and fraction 1", tc.fitness, r.BestObjective, r.Fraction)
			}
		}
	}
}

// On a real recording the score of a stochastic run is the recorded mean of the
// configuration it found, not the sample it happened to draw.
func TestRepeatScoresStochasticRunsOnTheRecordedMean(t *testing.T) {
	rec := loadKernelTuner(t, "../testdata/benchmark_hub/kerneltuner_pnpoly/RTX_2080_Ti.json.gz")
	sim := mustNew(t, rec, simulator.Options{Fitness: simulator.Stochastic})
	sum, err := simulator.Repeat(context.Background(), sim, simulator.RepeatOptions{
		Strategy: "irace", Budget: 300, Repeats: 8, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range sum.Runs {
		c, err := sim.Space().ConfigOf(r.Best)
		if err != nil {
			t.Fatal(err)
		}
		mean, ok := sim.Objective(c)
		if !ok || r.BestObjective == nil || *r.BestObjective != mean || r.Fraction != sim.FractionOfOptimum(mean) {
			t.Errorf("seed %d: best objective %v, fraction %v; recorded mean %v", r.Seed, r.BestObjective, r.Fraction, mean)
		}
		if r.Evaluations != 300 || r.Distinct >= r.Evaluations {
			t.Errorf("seed %d: %d evaluations of %d distinct configurations: irace did not race", r.Seed, r.Evaluations, r.Distinct)
		}
	}
}

// Options that name what the space lacks fail Repeat once, before any run, not as the
// first run's error ("run 0 (seed 1): ..."), and no progress is reported.
func TestRepeatRefusesOptionsThatDoNotFitTheSpaceUpFront(t *testing.T) {
	sim := mustNew(t, small(), simulator.Options{}) // parameters a and b
	for _, tc := range []struct {
		strategy string
		opts     map[string]any
		want     string
	}{
		{"greedymls", map[string]any{"order": "[b, c]"}, `strategy greedymls: option order: "c" is neither a parameter of the space nor an index below 2`},
		{"saltelli", map[string]any{"params": "a,zzz"}, `strategy saltelli: option params: no parameter "zzz" (the space has a, b)`},
	} {
		progressed := false
		_, err := simulator.Repeat(context.Background(), sim, simulator.RepeatOptions{Strategy: tc.strategy, StrategyOptions: tc.opts,
			Budget: 20, Repeats: 5, Seed: 1, Progress: func(int, int, float64) { progressed = true }})
		if err == nil || err.Error() != tc.want || progressed {
			t.Errorf("%s %v: %v (progress: %v), want %q before any run", tc.strategy, tc.opts, err, progressed, tc.want)
		}
	}
}

// Cut short by its context, Repeat returns the runs that finished, in seed order, with
// the context's error, so that 'ktune simulate' can summarise them (QA: Ctrl-C printed
// nothing and wrote empty JSON).
func TestRepeatInterruptedKeepsTheFinishedRuns(t *testing.T) {
	sim := mustNew(t, loadKernelTuner(t, "../testdata/benchmark_hub/kerneltuner_pnpoly/RTX_2080_Ti.json.gz"), simulator.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sum, err := simulator.Repeat(ctx, sim, simulator.RepeatOptions{Strategy: "random", Budget: 50, Repeats: 1000, Seed: 7, Workers: 1,
		Progress: func(done, _ int, _ float64) {
			if done == 3 {
				cancel()
			}
		}})
	if !errors.Is(err, context.Canceled) || len(sum.Runs) != 3 {
		t.Fatalf("%d runs, %v; want 3 and context.Canceled", len(sum.Runs), err)
	}
	whole, err := simulator.Repeat(context.Background(), sim, simulator.RepeatOptions{Strategy: "random", Budget: 50, Repeats: 3, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range sum.Runs {
		if r.Seed != 7+uint64(i) || r.Fraction != whole.Runs[i].Fraction {
			t.Errorf("run %d: seed %d fraction %v, want seed %d fraction %v", i, r.Seed, r.Fraction, 7+i, whole.Runs[i].Fraction)
		}
	}
	if sum.MeanFraction != whole.MeanFraction || sum.StdFraction != whole.StdFraction {
		t.Errorf("summary %v (%v), the same 3 runs uninterrupted %v (%v)", sum.MeanFraction, sum.StdFraction, whole.MeanFraction, whole.StdFraction)
	}
}

// Without a budget, a time limit or a target, runs must end on their own: bruteforce's
// and saltelli's given its design's size n do; any other strategy is refused up front.
// Before, saltelli, whose help says it needs a budget or n, was refused with n too.
func TestRepeatWithoutABudgetRunsOnlyStrategiesThatEndOnTheirOwn(t *testing.T) {
	sim := mustNew(t, loadKernelTuner(t, "../testdata/benchmark_hub/kerneltuner_pnpoly/RTX_2080_Ti.json.gz"), simulator.Options{})
	for _, tc := range []struct {
		strategy string
		opts     map[string]any
		ends     bool
	}{
		{"saltelli", map[string]any{"n": 5}, true},
		{"bruteforce", nil, true},
		{"saltelli", nil, false},
		{"random", nil, false},
	} {
		sum, err := simulator.Repeat(context.Background(), sim, simulator.RepeatOptions{Strategy: tc.strategy, StrategyOptions: tc.opts,
			Repeats: 2, Seed: 1})
		switch {
		case tc.ends && (err != nil || len(sum.Runs) != 2 || sum.Runs[0].Evaluations == 0):
			t.Errorf("%s %v: %v, %d runs; want two runs that ended on their own", tc.strategy, tc.opts, err, len(sum.Runs))
		case !tc.ends && (err == nil || !strings.Contains(err.Error(), "give a budget, a time limit, a target fraction of the optimum or a target objective")):
			t.Errorf("%s %v: %v; want it refused up front", tc.strategy, tc.opts, err)
		}
	}
}

// Options out of range are refused, each naming itself, before any run: a negative budget
// was refused as if none had been given ("give a budget, ..."), and a nil simulator
// panicked.
func TestRepeatRefusesOptionsOutOfRange(t *testing.T) {
	sim := mustNew(t, small(), simulator.Options{})
	for _, tc := range []struct {
		name string
		sim  *simulator.Simulator
		o    simulator.RepeatOptions
		want string
	}{
		{"no simulator", nil, simulator.RepeatOptions{Strategy: "random", Budget: 4, Repeats: 2}, "without a simulator"},
		{"no repeats", sim, simulator.RepeatOptions{Strategy: "random", Budget: 4}, "repeats must be positive"},
		{"a negative budget", sim, simulator.RepeatOptions{Strategy: "random", Budget: -3, Repeats: 2}, "budget -3"},
		{"a negative budget beside a target", sim, simulator.RepeatOptions{Strategy: "random", Budget: -3, Within: 0.9, Repeats: 2}, "budget -3"},
		{"a negative time limit", sim, simulator.RepeatOptions{Strategy: "random", TimeLimit: -time.Second, Repeats: 2}, "time limit -1s"},
		{"a negative target", sim, simulator.RepeatOptions{Strategy: "random", Budget: 4, Within: -0.5, Repeats: 2}, "within -0.5"},
		{"a target that is no number", sim, simulator.RepeatOptions{Strategy: "random", Budget: 4, Within: math.NaN(), Repeats: 2}, "within NaN"},
		{"a target objective that is no number", sim, simulator.RepeatOptions{Strategy: "random", Budget: 4, Target: ptr(math.NaN()), Repeats: 2}, "target NaN"},
	} {
		sum, err := simulator.Repeat(context.Background(), tc.sim, tc.o)
		if err == nil || !strings.Contains(err.Error(), tc.want) || len(sum.Runs) != 0 {
			t.Errorf("%s: %v (%d runs); want an error saying %q", tc.name, err, len(sum.Runs), tc.want)
		}
	}
}

// --within is judged as runs are scored, by the recorded mean of the run's best
// configuration. Under stochastic fitness the session's best objective is the mean of the
// samples drawn; on pnpoly one lucky sample below the optimum's mean used to end every run
// as "optimum" after about 6 evaluations, runs scored at 0.73 to 0.93 of the optimum.
func TestRepeatWithinJudgesTheRecordedMeanUnderStochasticFitness(t *testing.T) {
	const within = 0.97
	for _, fitness := range []simulator.Fitness{simulator.Deterministic, simulator.Stochastic} {
		sim := mustNew(t, loadKernelTuner(t, "../testdata/benchmark_hub/kerneltuner_pnpoly/RTX_2080_Ti.json.gz"), simulator.Options{Fitness: fitness})
		sum, err := simulator.Repeat(context.Background(), sim, simulator.RepeatOptions{
			Strategy: "random", Budget: 300, Within: within, Repeats: 60, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		reached := 0
		for _, r := range sum.Runs {
			stopped := r.Stop == tuning.StopWithin || r.Stop == tuning.StopOptimum
			if stopped != (r.Fraction >= within) || (r.Stop == tuning.StopOptimum) != (r.Fraction == 1) {
				t.Errorf("%v, seed %d: stopped %q at fraction %.4f after %d evaluations", fitness, r.Seed, r.Stop, r.Fraction, r.Evaluations)
			}
			if stopped {
				reached++
			}
		}
		// random search with 300 evaluations reaches 0.97 of pnpoly's optimum now and then,
		// not always: both branches above are exercised
		if reached == 0 || reached == len(sum.Runs) {
			t.Errorf("%v: %d of %d runs reached %v of the optimum; want some, not all", fitness, reached, len(sum.Runs), within)
		}
	}
}

func ptr(x float64) *float64 { return &x }

// Target (simulate --stop-at) stops a run once its best's recorded mean objective is at
// least as good as the target, in the objective's direction, under either fitness: on
// pnpoly (time, minimised) a target 3% slower than the optimum stops the runs whose best
// is at most it and no other, and a target under the optimum stops none.
func TestRepeatTargetStopsAtAnObjectiveValue(t *testing.T) {
	for _, fitness := range []simulator.Fitness{simulator.Deterministic, simulator.Stochastic} {
		sim := mustNew(t, loadKernelTuner(t, "../testdata/benchmark_hub/kerneltuner_pnpoly/RTX_2080_Ti.json.gz"), simulator.Options{Fitness: fitness})
		optimum, _ := sim.Optimum()
		target := optimum / 0.97
		sum, err := simulator.Repeat(context.Background(), sim, simulator.RepeatOptions{
			Strategy: "random", Budget: 300, Target: &target, Repeats: 60, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		reached := 0
		for _, r := range sum.Runs {
			stopped := r.Stop == tuning.StopTarget
			if r.BestObjective == nil || stopped != (*r.BestObjective <= target) || (stopped && r.Evaluations >= 300) {
				t.Errorf("%v, seed %d: stopped %q with best %v (target %v) after %d evaluations", fitness, r.Seed, r.Stop, r.BestObjective, target, r.Evaluations)
			}
			if stopped {
				reached++
			}
		}
		if reached == 0 || reached == len(sum.Runs) {
			t.Errorf("%v: %d of %d runs reached the target %v ms; want some, not all", fitness, reached, len(sum.Runs), target)
		}
		below := optimum * 0.99
		none, err := simulator.Repeat(context.Background(), sim, simulator.RepeatOptions{
			Strategy: "random", Budget: 50, Target: &below, Repeats: 10, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range none.Runs {
			if r.Stop != tuning.StopBudget {
				t.Errorf("%v: a target below the optimum stopped seed %d: %q", fitness, r.Seed, r.Stop)
			}
		}
	}
}

// RepeatOptions' zero Strategy is "auto", as tuner.Options' is: it was refused as an
// unknown strategy "". A misspelled name is refused as such even without a budget, where
// it was told to give a budget first.
func TestRepeatOfNoStrategyNamedIsAuto(t *testing.T) {
	sim := mustNew(t, loadKernelTuner(t, "../testdata/benchmark_hub/kerneltuner_pnpoly/RTX_2080_Ti.json.gz"), simulator.Options{})
	ctx := context.Background()
	unnamed, err := simulator.Repeat(ctx, sim, simulator.RepeatOptions{Budget: 30, Repeats: 3, Seed: 5, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	auto, err := simulator.Repeat(ctx, sim, simulator.RepeatOptions{Strategy: "auto", Budget: 30, Repeats: 3, Seed: 5, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	for i := range auto.Runs {
		if u, a := unnamed.Runs[i], auto.Runs[i]; u.Fraction != a.Fraction || u.Evaluations != a.Evaluations || fmt.Sprint(u.Best) != fmt.Sprint(a.Best) {
			t.Errorf("run %d: no strategy named found %v (%.3f), auto %v (%.3f)", i, u.Best, u.Fraction, a.Best, a.Fraction)
		}
	}
	_, err = simulator.Repeat(ctx, sim, simulator.RepeatOptions{Strategy: "genetic_algorithm", Repeats: 2})
	if err == nil || !strings.Contains(err.Error(), `unknown strategy "genetic_algorithm"`) {
		t.Errorf("Repeat of a Kernel Tuner name without a budget = %v, want it refused as unknown", err)
	}
}
