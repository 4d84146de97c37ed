package strategy_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"
	"testing"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/simulator"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/strategy"
	"github.com/ktune/ktune/tuning"
)

const (
	pnpolyPath      = "../testdata/benchmark_hub/kerneltuner_pnpoly/RTX_2080_Ti.json.gz"
	convolutionPath = "../testdata/benchmark_hub/convolution_milo/A100.json.gz"
)

var registerOnce sync.Once

// localSearchNames registers the local-search factories under test names (the registry's
// builtin lines are added separately) and returns those names, sorted.
func localSearchNames() []string {
	registerOnce.Do(func() {
		for name, f := range strategy.LocalSearchFactories {
			strategy.Register("test-"+name, f)
		}
	})
	var names []string
	for name := range strategy.LocalSearchFactories {
		names = append(names, "test-"+name)
	}
	sort.Strings(names)
	return names
}

func cartesian(t testing.TB, path string) *simulator.Simulator {
	t.Helper()
	return recordedSim(t, path, simulator.Cartesian)
}

// checkingEvaluator passes evaluations to the simulator and fails the test for any
// configuration outside the space.
type checkingEvaluator struct {
	t   testing.TB
	sim *simulator.Simulator
}

func (e checkingEvaluator) Evaluate(ctx context.Context, c space.Config) (result.Evaluation, error) {
	if !e.sim.Space().Contains(c) {
		e.t.Errorf("evaluated %v, which is not a valid configuration", c)
	}
	return e.sim.Evaluate(ctx, c)
}

func runSession(t *testing.T, sim *simulator.Simulator, name string, opts map[string]any, budget int, seed uint64) tuning.Summary {
	t.Helper()
	st, err := strategy.New(name, opts)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := tuning.New(sim.Space(), st, checkingEvaluator{t, sim.WithSeed(seed)},
		tuning.Options{Budget: budget, Maximize: sim.Maximize(), Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := sess.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

func history(sum tuning.Summary) [][]int {
	out := make([][]int, len(sum.History))
	for i, h := range sum.History {
		out[i] = h.Config
	}
	return out
}

// TestLocalSearchIsReproducibleValidAndWithinBudget runs each local search on both recorded
// spaces at budgets that select different Table III columns, and with non-default options.
func TestLocalSearchIsReproducibleValidAndWithinBudget(t *testing.T) {
	names := localSearchNames()
	variants := map[string][]map[string]any{
		"test-firstmls":  {{"neighbourhood": "adjacent", "restart": true}},
		"test-bestmls":   {{"neighbourhood": "Hamming"}},
		"test-firstils":  {{"perturbation_size": 0.3, "exit_after_no_improve": 3, "restart": true, "neighbourhood": "adjacent"}},
		"test-bestils":   {{"perturbation_size": "0.5", "exit_after_no_improve": "2"}},
		"test-firsttabu": {{"tabu_size": 3, "neighbourhood": "adjacent"}},
		"test-besttabu":  {{"tabu_size": 0}},
		"test-annealing": {{"hill_climber": "best", "explore": 0.3, "temperature": 0}, {"hill_climber": "none", "temperature": 1.5}},
	}
	for _, path := range []string{pnpolyPath, convolutionPath} {
		sim := cartesian(t, path)
		for _, name := range names {
			for _, opts := range append([]map[string]any{nil}, variants[name]...) {
				for _, budget := range []int{30, 300, 900} {
					a := runSession(t, sim, name, opts, budget, 7)
					b := runSession(t, sim, name, opts, budget, 7)
					if a.Evaluations != budget || a.Distinct != budget {
						t.Errorf("%s %s %v budget %d: %d evaluations, %d distinct", path, name, opts, budget, a.Evaluations, a.Distinct)
					}
					if !slices.EqualFunc(history(a), history(b), slices.Equal) {
						t.Errorf("%s %s %v budget %d: same seed, different histories", path, name, opts, budget)
					}
					c := runSession(t, sim, name, opts, budget, 8)
					if slices.EqualFunc(history(a), history(c), slices.Equal) {
						t.Errorf("%s %s %v budget %d: seeds 7 and 8 gave the same history", path, name, opts, budget)
					}
				}
			}
		}
	}
}

func TestLocalSearchRejectsBadOptions(t *testing.T) {
	localSearchNames()
	bad := map[string]map[string]any{
		"test-firstmls":  {"neighbourhood": "strictly-adjacent"},
		"test-bestmls":   {"restart": true},
		"test-firstils":  {"perturbation_size": 0},
		"test-bestils":   {"exit_after_no_improve": 0},
		"test-firsttabu": {"tabu_size": -1},
		"test-besttabu":  {"tabu_size": "many"},
		"test-annealing": {"temperature": -1},
	}
	for name, opts := range bad {
		if _, err := strategy.New(name, opts); err == nil {
			t.Errorf("%s accepted %v", name, opts)
		}
	}
	if _, err := strategy.New("test-annealing", map[string]any{"explore": 1.5}); err == nil {
		t.Error("annealing accepted explore 1.5")
	}
	for name, f := range strategy.LocalSearchFactories {
		if f.Doc == "" {
			t.Errorf("%s has no Doc", name)
		}
		for _, o := range f.Options {
			if o.Name == "" || o.Default == "" || o.Doc == "" {
				t.Errorf("%s: option %+v is not documented", name, o)
			}
		}
	}
}

// TestLocalSearchBeatsRandomSampling compares the mean fraction of the optimum over 50
// runs at budget 200 on the convolution space in Cartesian mode (10,240 configurations,
// 59% of them failing) with random sampling's.
func TestLocalSearchBeatsRandomSampling(t *testing.T) {
	if testing.Short() {
		t.Skip("50 runs per strategy")
	}
	sim := cartesian(t, convolutionPath)
	repeat := func(name string) simulator.RepeatSummary {
		s, err := simulator.Repeat(context.Background(), sim, simulator.RepeatOptions{
			Strategy: name, Budget: 200, Repeats: 50, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	base := repeat("random")
	t.Logf("%-15s mean fraction of optimum %.4f (sd %.4f)", "random", base.MeanFraction, base.StdFraction)
	for _, name := range localSearchNames() {
		s := repeat(name)
		t.Logf("%-15s mean fraction of optimum %.4f (sd %.4f)", name, s.MeanFraction, s.StdFraction)
		if s.MeanFraction <= base.MeanFraction {
			t.Errorf("%s: mean fraction of optimum %.4f does not beat random sampling's %.4f",
				name, s.MeanFraction, base.MeanFraction)
		}
	}
}

// TestLocalSearchRunsToExhaustion gives no budget: each search must keep restarting until
// the whole pnpoly space (4,092 configurations) is evaluated, and then end.
func TestLocalSearchRunsToExhaustion(t *testing.T) {
	sim := cartesian(t, pnpolyPath)
	for _, name := range localSearchNames() {
		sum := runSession(t, sim, name, nil, 0, 3)
		if sum.Distinct != sim.Space().Len() || sum.Stop != tuning.StopExhausted {
			t.Errorf("%s: %d of %d configurations, stop %q", name, sum.Distinct, sim.Space().Len(), sum.Stop)
		}
	}
}

// Annealing told where to start evaluates that configuration first, every time it runs
// (the walk does not change the configuration it was given), then goes on as usual.
func TestAnnealingStartsWhereItIsTold(t *testing.T) {
	sim := recordedSim(t, pnpolyPath, simulator.Recorded)
	r := rand.New(rand.NewPCG(4, 5))
	for range 5 {
		c := sim.Space().Sample(r, nil)
		st := strategy.AnnealingFrom(c)
		var runs [2]tuning.Summary
		for i := range runs {
			sess, err := tuning.New(sim.Space(), st, sim, tuning.Options{Budget: 200, Seed: 9})
			if err != nil {
				t.Fatal(err)
			}
			if runs[i], err = sess.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			if got := runs[i].History[0].Config; !slices.Equal(got, c) {
				t.Fatalf("run %d began at %v, want %v", i, got, c)
			}
			if runs[i].Evaluations != 200 {
				t.Errorf("run %d used %d evaluations", i, runs[i].Evaluations)
			}
		}
		if !slices.EqualFunc(history(runs[0]), history(runs[1]), slices.Equal) {
			t.Errorf("start %v: same seed, different histories", c)
		}
	}
}
