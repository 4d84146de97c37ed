package strategy_test

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/ktune/ktune/simulator"
	"github.com/ktune/ktune/strategy"
	"github.com/ktune/ktune/tuning"
)

// Tests of genetic local search (gls.go) and Kernel Tuner's greedy searches (greedymls.go,
// greedyils.go) on recorded spaces, through the registry and a tuning session.

// simIn returns the simulator of a recording in the given mode: recorded (the configurations
// the recording holds) or cartesian (the full product, unrecorded ones failing).
func simIn(t testing.TB, path string, mode simulator.Mode) *simulator.Simulator {
	t.Helper()
	return recordedSim(t, path, mode)
}

// memeticGreedyVariants are the options each strategy is run with besides its defaults:
// every crossover and selection, both hill climbers, every neighbourhood, a fixed order.
var memeticGreedyVariants = map[string][]map[string]any{
	"gls": {
		{"crossover": "1point", "selection": "tournament", "tournament": 3, "popsize": 5, "restart": true},
		{"crossover": "2point", "hill_climber": "best", "neighbourhood": "adjacent", "popsize": 6},
	},
	"greedymls": {
		{"neighbourhood": "strictly-adjacent"},
		{"order": []any{2.0, 0.0, 1.0}, "restart": false, "neighbourhood": "adjacent"},
		{"randomize": false},
	},
	"greedyils": {
		{"neighbourhood": "strictly-adjacent", "random_walk": 0.5},
		{"restart": false, "no_improvement": 5, "random_walk": 1.0},
	},
}

var memeticGreedyNames = []string{"gls", "greedymls", "greedyils"}

// TestGLSAndGreedySearchesAreReproducibleValidAndUseTheBudget runs every strategy and
// variant on pnpoly and convolution, in recorded and cartesian mode, at budgets that select
// different Table III columns: the same seed gives the same history, another seed another,
// every configuration is valid (checkingEvaluator) and the budget is used exactly, on new
// configurations only.
func TestGLSAndGreedySearchesAreReproducibleValidAndUseTheBudget(t *testing.T) {
	budgets := []int{30, 300, 900}
	if testing.Short() {
		budgets = []int{30, 300}
	}
	for _, mode := range []simulator.Mode{simulator.Recorded, simulator.Cartesian} {
		for _, path := range []string{pnpolyPath, convolutionPath} {
			sim := simIn(t, path, mode)
			for _, name := range memeticGreedyNames {
				for _, opts := range append([]map[string]any{nil}, memeticGreedyVariants[name]...) {
					for _, budget := range budgets {
						a := runSession(t, sim, name, opts, budget, 7)
						if a.Evaluations != budget || a.Distinct != budget || a.Stop != tuning.StopBudget {
							t.Errorf("%s %s %s %v budget %d: %d evaluations, %d distinct, stop %q",
								mode, path, name, opts, budget, a.Evaluations, a.Distinct, a.Stop)
						}
						b := runSession(t, sim, name, opts, budget, 7)
						if !slices.EqualFunc(history(a), history(b), slices.Equal) {
							t.Errorf("%s %s %s %v budget %d: same seed, different histories", mode, path, name, opts, budget)
						}
						c := runSession(t, sim, name, opts, budget, 8)
						if slices.EqualFunc(history(a), history(c), slices.Equal) {
							t.Errorf("%s %s %s %v budget %d: seeds 7 and 8 gave the same history", mode, path, name, opts, budget)
						}
					}
				}
			}
		}
	}
}

// TestStrictlyAdjacentMovesSeveralParametersOneStep checks that the greedy searches with the
// strictly-adjacent neighbourhood climb through neighbours that change several parameters
// at once, each by one step in its value list. Two evaluations in a row are mostly
// neighbours of the same configuration, so they differ by at most two steps per parameter,
// in many parameters; under Hamming or adjacent they would differ in at most two parameters.
func TestStrictlyAdjacentMovesSeveralParametersOneStep(t *testing.T) {
	sim := cartesian(t, pnpolyPath)
	for _, nb := range []string{"strictly-adjacent", "adjacent"} {
		for _, name := range []string{"greedymls", "greedyils"} {
			sum := runSession(t, sim, name, map[string]any{"neighbourhood": nb}, 300, 5)
			wide := 0
			for i := 1; i < len(sum.History); i++ {
				prev, cur := sum.History[i-1].Config, sum.History[i].Config
				changed, maxStep := 0, 0
				for j := range cur {
					if d := max(cur[j]-prev[j], prev[j]-cur[j]); d > 0 {
						changed++
						maxStep = max(maxStep, d)
					}
				}
				if changed >= 3 && maxStep <= 2 {
					wide++
				}
			}
			t.Logf("%s %s: %d of %d evaluations in a row changed 3 or more parameters by at most 2 steps",
				name, nb, wide, len(sum.History))
			if nb == "strictly-adjacent" && wide < len(sum.History)/3 {
				t.Errorf("%s: strictly-adjacent climbs do not move several parameters by one step", name)
			}
			if nb == "adjacent" && wide > len(sum.History)/10 {
				t.Errorf("%s: adjacent climbs move several parameters at once", name)
			}
		}
	}
}

// TestGreedyMLSClimbsOnlyTheOrderedParameters gives greedymls an order naming one
// parameter: a climb changes only that one, so every evaluation either differs from the
// one before in that parameter alone or is a new random start.
func TestGreedyMLSClimbsOnlyTheOrderedParameters(t *testing.T) {
	sim := cartesian(t, convolutionPath)
	params := sim.Space().Params()
	target := 0
	for i, p := range params {
		if len(p.Values) > len(params[target].Values) {
			target = i
		}
	}
	sum := runSession(t, sim, "greedymls", map[string]any{"order": params[target].Name}, 200, 3)
	climbSteps := 0
	for i := 1; i < len(sum.History); i++ {
		prev, cur := sum.History[i-1].Config, sum.History[i].Config
		others := 0
		for j := range cur {
			if j != target && cur[j] != prev[j] {
				others++
			}
		}
		if others == 0 {
			climbSteps++
		}
	}
	// With one parameter of n values, a climb is at most n-1 evaluations after its start.
	n := len(params[target].Values)
	if starts := len(sum.History) - climbSteps; starts*(n-1) < climbSteps || climbSteps == 0 {
		t.Errorf("%d climb steps and %d starts for a parameter of %d values", climbSteps, starts, n)
	}
	// An order naming no parameter of the space (or an index past its parameters) is
	// refused against the space, before a run starts.
	for _, order := range []any{"no_such_parameter", "[0, 10]", 10} {
		st, err := strategy.New("greedymls", map[string]any{"order": order})
		if err != nil {
			t.Fatal(err)
		}
		want := "strategy greedymls: option order: "
		if err := strategy.Check(st, sim.Space(), 10); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "index below 10") {
			t.Errorf("order %v: Check = %v, want an error naming the option", order, err)
		}
		if _, err := tuning.New(sim.Space(), st, sim.WithSeed(1), tuning.Options{Budget: 10, Seed: 1}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("order %v: tuning.New = %v, want an error naming the option", order, err)
		}
	}
	if err := strategy.Validate("greedymls", map[string]any{"order": "[9, 0]"}, sim.Space(), 10); err != nil {
		t.Errorf("order [9, 0] on a space of 10 parameters: %v", err)
	}
}

// TestGLSAndGreedySearchesBeatRandomSampling compares the mean fraction of the optimum over
// 50 runs at budget 200 on convolution in cartesian mode with random sampling's: each must
// be better by more than two standard errors of the difference.
func TestGLSAndGreedySearchesBeatRandomSampling(t *testing.T) {
	if testing.Short() {
		t.Skip("50 runs per strategy")
	}
	sim := cartesian(t, convolutionPath)
	const budget, repeats = 200, 50
	repeat := func(name string) simulator.RepeatSummary {
		s, err := simulator.Repeat(context.Background(), sim, simulator.RepeatOptions{
			Strategy: name, Budget: budget, Repeats: repeats, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	base := repeat("random")
	t.Logf("%-10s mean fraction of optimum %.4f (sd %.4f)", "random", base.MeanFraction, base.StdFraction)
	for _, name := range memeticGreedyNames {
		s := repeat(name)
		diff := s.MeanFraction - base.MeanFraction
		se := math.Sqrt((s.StdFraction*s.StdFraction + base.StdFraction*base.StdFraction) / repeats)
		t.Logf("%-10s mean fraction of optimum %.4f (sd %.4f): %+.4f, %.1f standard errors",
			name, s.MeanFraction, s.StdFraction, diff, diff/se)
		if diff <= 2*se {
			t.Errorf("%s: mean fraction %.4f is not significantly above random sampling's %.4f",
				name, s.MeanFraction, base.MeanFraction)
		}
	}
}

// TestGLSAndGreedySearchesRunToExhaustion gives no budget: each search must keep going
// until the whole pnpoly space is evaluated, and then end.
func TestGLSAndGreedySearchesRunToExhaustion(t *testing.T) {
	sim := cartesian(t, pnpolyPath)
	for _, name := range memeticGreedyNames {
		sum := runSession(t, sim, name, nil, 0, 3)
		if sum.Distinct != sim.Space().Len() || sum.Stop != tuning.StopExhausted {
			t.Errorf("%s: %d of %d configurations, stop %q", name, sum.Distinct, sim.Space().Len(), sum.Stop)
		}
	}
}

func TestGLSAndGreedySearchesRejectBadOptions(t *testing.T) {
	bad := []struct {
		name string
		opts map[string]any
		want string // the option the error must name
	}{
		{"gls", map[string]any{"popsize": 1}, "popsize"},
		{"gls", map[string]any{"crossover": "3point"}, "crossover"},
		{"gls", map[string]any{"selection": "roulette"}, "selection"},
		{"gls", map[string]any{"tournament": 0}, "tournament"},
		{"gls", map[string]any{"hill_climber": "none"}, "hill_climber"},
		{"gls", map[string]any{"neighbourhood": "strictly-adjacent"}, "neighbourhood"},
		{"gls", map[string]any{"mutation": 0.1}, "mutation"},
		{"gls", map[string]any{"restart": "sometimes"}, "restart"},
		{"greedymls", map[string]any{"neighbourhood": "diagonal"}, "neighbourhood"},
		{"greedymls", map[string]any{"restart": 3}, "restart"},
		{"greedymls", map[string]any{"order": "a,,b"}, "order"},
		{"greedymls", map[string]any{"order": []any{1.0, 1.0}}, "order"},
		{"greedymls", map[string]any{"order": map[string]int{"a": 1}}, "order"},
		{"greedymls", map[string]any{"order": "a,b", "randomize": true}, "randomize"},
		{"greedymls", map[string]any{"randomize": "maybe"}, "randomize"},
		{"greedyils", map[string]any{"no_improvement": 0}, "no_improvement"},
		{"greedyils", map[string]any{"random_walk": 1.5}, "random_walk"},
		{"greedyils", map[string]any{"random_walk": 0}, "random_walk"},
		{"greedyils", map[string]any{"order": "a"}, "order"},
	}
	for _, tc := range bad {
		if _, err := strategy.New(tc.name, tc.opts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %v: error %v, want one naming %s", tc.name, tc.opts, err, tc.want)
		}
	}
	for _, name := range memeticGreedyNames {
		f, ok := strategy.Lookup(name)
		if !ok {
			t.Fatalf("%s is not registered", name)
		}
		for _, o := range f.Options {
			if o.Name == "" || o.Default == "" || o.Doc == "" {
				t.Errorf("%s: option %+v is not documented", name, o)
			}
		}
	}
}

// TestGLSAndGreedySearchesOnRestrictedSpaces runs on a hand-made space whose restrictions
// forbid most of the product, with failed (+Inf) configurations: crossover children that
// the restrictions forbid are repaired, nothing invalid is evaluated or hinted, the budget
// is used exactly, and an evaluator's error is passed on.
func TestGLSAndGreedySearchesOnRestrictedSpaces(t *testing.T) {
	sp := intGrid(t, 6, 6, "a + b + c <= 4", "d == e or e == f")
	for _, name := range memeticGreedyNames {
		for vi, opts := range append([]map[string]any{nil}, memeticGreedyVariants[name]...) {
			// The defaults exhaust the space; the variants stop at half of it, where walks
			// that only revisit evaluated configurations are still rare.
			budgets := []int{60, sp.Len()}
			if vi > 0 {
				budgets[1] /= 2
			}
			checkRestrictedRuns(t, sp, name, opts, budgets, name == "gls")
		}
		checkEvaluatorErrorPassedOn(t, sp, name)
	}
}
