package strategy_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ktune/ktune/expr"
	"github.com/ktune/ktune/simulator"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/strategy"
	"github.com/ktune/ktune/tuning"
)

// This test lives in package strategy_test because the tuning session and the simulator
// import strategy; it reaches the population strategies through the registry.

var popStrategies = []string{"genetic", "pso", "firefly", "diffevo"}

var popRecordings = map[string]string{
	"pnpoly":      "../testdata/benchmark_hub/kerneltuner_pnpoly/RTX_2080_Ti.json.gz",
	"convolution": "../testdata/benchmark_hub/convolution_milo/A100.json.gz",
	"gemm":        "../testdata/benchmark_hub/kerneltuner_gemm/RTX_3090.json.gz",
}

func popSim(t testing.TB, name string) *simulator.Simulator {
	t.Helper()
	return recordedSim(t, popRecordings[name], simulator.Cartesian)
}

func popRun(t testing.TB, sim *simulator.Simulator, name string, opts map[string]any, budget int, seed uint64) tuning.Summary {
	t.Helper()
	st, err := strategy.New(name, opts)
	if err != nil {
		t.Fatalf("%v (is %s in registry.go's builtin list?)", err, name)
	}
	// under stochastic fitness a repeat is measured anew, as in simulator.Repeat
	sess, err := tuning.New(sim.Space(), st, sim.WithSeed(seed), tuning.Options{Budget: budget, Seed: seed,
		Maximize: sim.Maximize(), NoCache: sim.Options().Fitness == simulator.Stochastic})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := sess.Run(context.Background())
	if err != nil {
		t.Fatalf("%s seed %d: %v", name, seed, err)
	}
	return sum
}

// Same seed, same history; the budget is respected and used up; every evaluated
// configuration is valid. Run with non-default options too, so every reproduction,
// selection and mixing method is exercised.
func TestPopulationStrategiesAreDeterministicValidAndUseTheBudget(t *testing.T) {
	variants := map[string][]map[string]any{
		"genetic": {nil, {"crossover": "2point", "selection": "rank"}, {"crossover": "uniform", "elitism": 0, "mutation": 0.5}},
		"pso":     {nil, {"popsize": 5, "w": 0.9}},
		"firefly": {nil, {"popsize": 4, "alpha": 0.05}},
		"diffevo": {nil, {"method": "best2bin"}, {"method": "rand1bin"}, {"method": "best1exp", "popsize": 1}},
	}
	for _, space := range []string{"pnpoly", "convolution"} {
		sim := popSim(t, space)
		sp := sim.Space()
		t.Logf("%s: %d valid configurations of %.0f in the cartesian product", space, sp.Len(), sp.Product())
		for _, name := range popStrategies {
			for vi, opts := range variants[name] {
				for _, budget := range []int{7, 150} {
					a := popRun(t, sim, name, opts, budget, 11)
					b := popRun(t, sim, name, opts, budget, 11)
					if len(a.History) != len(b.History) {
						t.Fatalf("%s/%s/%d budget %d: %d vs %d evaluations for one seed", space, name, vi, budget, len(a.History), len(b.History))
					}
					for i := range a.History {
						if !slices.Equal(a.History[i].Config, b.History[i].Config) {
							t.Fatalf("%s/%s/%d budget %d: histories differ at %d", space, name, vi, budget, i)
						}
						if !sp.Contains(a.History[i].Config) {
							t.Fatalf("%s/%s/%d: evaluated invalid configuration %v", space, name, vi, a.History[i].Config)
						}
					}
					if want := min(budget, sp.Len()); a.Evaluations != want || a.Stop != tuning.StopBudget && a.Stop != tuning.StopExhausted {
						t.Errorf("%s/%s/%d: %d evaluations, stop %q; want %d (the whole budget)", space, name, vi, a.Evaluations, a.Stop, want)
					}
				}
			}
		}
	}
}

// A small space is exhausted without looping forever on cached configurations.
func TestPopulationStrategiesExhaustTheSpace(t *testing.T) {
	sim := popSim(t, "pnpoly")
	n := sim.Space().Len()
	if n > 20000 {
		t.Skipf("pnpoly space has %d configurations, too many to exhaust quickly", n)
	}
	for _, name := range popStrategies {
		sum := popRun(t, sim, name, nil, 0, 3)
		if sum.Evaluations != n {
			t.Errorf("%s: %d evaluations of %d, stop %q", name, sum.Evaluations, n, sum.Stop)
		}
	}
}

// popBeatsRandom says which strategies must beat random sampling, by more than two
// standard errors of the difference, at budget 200 on convolution (A100) over 50 repeats.
// All four do with their Table III / Kernel Tuner defaults (see the log of this test).
var popBeatsRandom = map[string]bool{"genetic": true, "pso": true, "firefly": true, "diffevo": true}

func TestPopulationStrategiesAgainstRandomSampling(t *testing.T) {
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
	t.Logf("convolution A100 (%d configurations), budget %d, %d repeats: random sampling mean fraction of optimum %.4f (sd %.4f)",
		sim.Space().Len(), budget, repeats, random.MeanFraction, random.StdFraction)
	for _, name := range popStrategies {
		s := repeat(name)
		diff := s.MeanFraction - random.MeanFraction
		// standard error of the difference of the two means
		se := math.Sqrt((s.StdFraction*s.StdFraction + random.StdFraction*random.StdFraction) / repeats)
		t.Logf("%-8s mean fraction of optimum %.4f (sd %.4f): %+.4f vs random, %.1f standard errors",
			name, s.MeanFraction, s.StdFraction, diff, diff/se)
		if popBeatsRandom[name] && diff <= 2*se {
			t.Errorf("%s: mean fraction %.4f is not significantly above random sampling's %.4f (difference %.4f, standard error %.4f)",
				name, s.MeanFraction, random.MeanFraction, diff, se)
		}
	}
}

// popProblem is a hand-made Problem over a restricted space: fitness is a function of the
// configuration, +Inf for every fifth one, the budget is enforced as a session would, and
// an invalid configuration or hint fails the test.
type popProblem struct {
	t         *testing.T
	sp        *space.Space
	rng       *rand.Rand
	budget    int
	seen      map[int]bool
	asked     int
	failAt    int // return errPop on this new evaluation (1-based); 0 never
	hints     int
	evaluated []int
}

var errPop = errors.New("evaluator broke")

func (p *popProblem) Space() *space.Space { return p.sp }
func (p *popProblem) Rand() *rand.Rand    { return p.rng }
func (p *popProblem) Budget() int         { return p.budget }
func (p *popProblem) Remaining() int {
	return min(p.budget-len(p.evaluated), p.sp.Len()-len(p.evaluated))
}

func (p *popProblem) Hint(cs ...space.Config) {
	for _, c := range cs {
		if !p.sp.Contains(c) {
			p.t.Errorf("hinted invalid configuration %v", c)
		}
	}
	p.hints += len(cs)
}

func (p *popProblem) Evaluate(_ context.Context, c space.Config) (float64, error) {
	p.asked++
	if p.Remaining() <= 0 {
		return math.NaN(), strategy.ErrStop
	}
	idx, ok := p.sp.Index(c)
	if !ok {
		p.t.Fatalf("evaluated invalid configuration %v", c)
	}
	f := 0.0
	for i, v := range c {
		f += float64((v - i) * (v - i))
	}
	if idx%5 == 0 {
		f = math.Inf(1)
	}
	if p.seen[idx] {
		return f, nil
	}
	if p.failAt > 0 && len(p.evaluated)+1 == p.failAt {
		return math.NaN(), errPop
	}
	p.seen[idx] = true
	p.evaluated = append(p.evaluated, idx)
	return f, nil
}

// Restricted spaces: children and mapped points that the restrictions forbid are repaired,
// by a Hamming neighbour or, when the configuration breaks two independent restrictions,
// by sampling; failed (+Inf) configurations are coped with; evaluator errors are passed on.
func TestPopulationStrategiesRepairRestrictedConfigurations(t *testing.T) {
	// two independent groups {a,b,c} and {d,e,f}, each with a tight restriction
	sp := intGrid(t, 6, 6, "a + b + c <= 4", "d == e or e == f")
	t.Logf("restricted space: %d valid configurations of %.0f", sp.Len(), sp.Product())
	for _, name := range popStrategies {
		checkRestrictedRuns(t, sp, name, nil, []int{60, sp.Len()}, true)
		checkEvaluatorErrorPassedOn(t, sp, name)
	}
}

func TestPopulationStrategiesRejectBadOptions(t *testing.T) {
	bad := []struct {
		name string
		opts map[string]any
	}{
		{"genetic", map[string]any{"crossover": "3point"}},
		{"pso", map[string]any{"popsize": 0}},
		{"firefly", map[string]any{"gamma": -1.0}},
		{"diffevo", map[string]any{"method": "best3bin"}},
		// a population of a billion would take the machine's memory before the first
		// evaluation, whatever the budget: refused up front
		{"genetic", map[string]any{"popsize": "1000000000"}},
		{"gls", map[string]any{"popsize": 200000}},
		{"pso", map[string]any{"popsize": "3000000000"}},
		{"firefly", map[string]any{"popsize": 1e9}},
		{"diffevo", map[string]any{"popsize": 5000}},
		{"irace", map[string]any{"nbConfigurations": 1000000}},
		{"saltelli", map[string]any{"n": "1000000000000000"}},
		// NaN passes comparisons; it and the infinities are refused for every option
		{"genetic", map[string]any{"mutation": "NaN"}},
		{"diffevo", map[string]any{"Fmin": "NaN"}},
		{"firefly", map[string]any{"gamma": "NaN"}},
		{"firefly", map[string]any{"alpha": -1.0}},
		{"firefly", map[string]any{"B0": "-1"}},
		{"pso", map[string]any{"w": "NaN"}},
		{"pso", map[string]any{"c1": "Inf"}},
		{"pso", map[string]any{"c2": -1}},
	}
	for _, tc := range bad {
		if _, err := strategy.New(tc.name, tc.opts); err == nil {
			t.Errorf("%s %v: no error", tc.name, tc.opts)
		}
	}
	if _, err := strategy.New("genetic", map[string]any{"popsize": 100000}); err != nil {
		t.Errorf("the largest population is refused: %v", err)
	}
}

// intGrid returns a space of n integer parameters a, b, c, ... with the values 0..k-1 under
// restrictions: the hand-made restricted spaces the strategy tests search.
func intGrid(t *testing.T, n, k int, restrictions ...string) *space.Space {
	t.Helper()
	params := make([]space.Param, n)
	for i := range params {
		params[i].Name = string(rune('a' + i))
		for v := range k {
			params[i].Values = append(params[i].Values, space.IntValue(int64(v)))
		}
	}
	sp, err := space.New(params, restrictions, expr.CompileRestriction)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// checkRestrictedRuns runs strategy name with opts twice per budget on sp through a
// popProblem and checks that each run uses exactly its budget (or the whole space), that
// the same seed gives the same run, and, with wantHints, that the strategy gave hints.
func checkRestrictedRuns(t *testing.T, sp *space.Space, name string, opts map[string]any, budgets []int, wantHints bool) {
	t.Helper()
	for _, budget := range budgets {
		var runs [][]int
		for range 2 {
			p := &popProblem{t: t, sp: sp, rng: rand.New(rand.NewPCG(5, 6)), budget: budget, seen: map[int]bool{}}
			st, err := strategy.New(name, opts)
			if err != nil {
				t.Fatal(err)
			}
			if err := st.Run(context.Background(), p); err != nil {
				t.Fatalf("%s %v: %v", name, opts, err)
			}
			if len(p.evaluated) != min(budget, sp.Len()) {
				t.Errorf("%s %v budget %d: %d evaluations of %d configurations", name, opts, budget, len(p.evaluated), sp.Len())
			}
			if wantHints && p.hints == 0 {
				t.Errorf("%s %v: gave no hints", name, opts)
			}
			runs = append(runs, p.evaluated)
		}
		if !slices.Equal(runs[0], runs[1]) {
			t.Errorf("%s %v budget %d: same seed, different runs", name, opts, budget)
		}
	}
}

// checkEvaluatorErrorPassedOn checks that an error from the evaluator ends strategy name's
// run and comes back from Run as it is.
func checkEvaluatorErrorPassedOn(t *testing.T, sp *space.Space, name string) {
	t.Helper()
	p := &popProblem{t: t, sp: sp, rng: rand.New(rand.NewPCG(5, 6)), budget: 100, seen: map[int]bool{}, failAt: 30}
	st, err := strategy.New(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Run(context.Background(), p); !errors.Is(err, errPop) {
		t.Errorf("%s: Run = %v, want the evaluator's error", name, err)
	}
}

// A swarm of one firefly is its own brightest, which a generation that brought nothing new
// did not re-scatter; it did not move either, so the run asked for the same configuration
// forever without using the budget (QA: popsize=1 on pnpoly never ended). It is
// re-scattered now and uses the budget.
func TestALoneFireflyUsesTheBudget(t *testing.T) {
	sim := popSim(t, "pnpoly")
	for _, budget := range []int{5, 60} {
		st, err := strategy.New("firefly", map[string]any{"popsize": 1})
		if err != nil {
			t.Fatal(err)
		}
		sess, err := tuning.New(sim.Space(), st, sim.WithSeed(4), tuning.Options{Budget: budget, Seed: 4})
		if err != nil {
			t.Fatal(err)
		}
		what := fmt.Sprintf("firefly popsize=1, budget %d", budget)
		sum, ended, err := runWithin(t, what, sess, endingLimit)
		if ended && (err != nil || sum.Evaluations != budget) {
			t.Errorf("%s: %d evaluations, stop %q, error %v", what, sum.Evaluations, sum.Stop, err)
		}
	}
}

// A tournament draws its size in members for every place it fills, so a size of 2^31
// (which 'at least 1' allowed) took minutes a generation: genetic and gls refuse sizes
// above 100,000, naming the range, and a run with the largest ends at its budget.
func TestTournamentSizeIsBounded(t *testing.T) {
	// hill climbs are short here, so gls's population of 4 reaches its tournaments
	sim := recordedSim(t, endingRecording, simulator.Cartesian)
	for _, name := range []string{"genetic", "gls"} {
		for _, v := range []any{100_001, "2147483647"} {
			_, err := strategy.New(name, map[string]any{"selection": "tournament", "tournament": v})
			if err == nil || !strings.Contains(err.Error(), "option tournament") || !strings.Contains(err.Error(), "1 to 100000") {
				t.Errorf("%s tournament=%v: %v, want the range 1 to 100000", name, v, err)
			}
		}
		st, err := strategy.New(name, map[string]any{"selection": "tournament", "tournament": 100_000, "popsize": 4})
		if err != nil {
			t.Fatalf("%s: the largest tournament is refused: %v", name, err)
		}
		sess, err := tuning.New(sim.Space(), st, sim.WithSeed(2), tuning.Options{Budget: 100, Seed: 2})
		if err != nil {
			t.Fatal(err)
		}
		what := name + " tournament=100000 popsize=4, budget 100"
		if sum, ended, err := runWithin(t, what, sess, endingLimit); ended && (err != nil || sum.Evaluations != 100) {
			t.Errorf("%s: %d evaluations, error %v", what, sum.Evaluations, err)
		}
	}
}
