package strategy_test

import (
	"context"
	"errors"
	"fmt"
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

// edgeOption is one documented option of a strategy with values that must be refused at
// construction (outside the documented range, or of the wrong kind) and values at the
// edges of the range that must run.
type edgeOption struct {
	name string
	bad  []any
	good []any
}

// nonNumbers are values no numeric option takes.
var nonNumbers = []any{"", "abc", true, []any{1.0}, map[string]any{}, nil, math.NaN(), math.Inf(1), math.Inf(-1), "NaN", "Inf"}

// nonInts are values no integer option takes.
var nonInts = append([]any{1.5, "2.5", 1e300, "1e300", -1e300}, nonNumbers...)

// neighbourhoodOption is the neighbourhood option of the local searches.
var neighbourhoodOption = edgeOption{"neighbourhood", []any{"", "hamming-ish", "strictly-adjacent", 1, true, nil}, []any{"Hamming", "adjacent", "ADJACENT", " hamming "}}

// minimiserOption is the method option of the cube strategies.
var minimiserOption = edgeOption{"method", []any{"", "slsqp", "cg", 1, nil}, []any{"powell", "neldermead", "cobyla", "COBYLA"}}

func boolOption(name string) edgeOption {
	return edgeOption{name, []any{"", "maybe", 2, 0.5, "yes", nil, []any{true}}, []any{true, false, "true", "False", 1, 0, "1", "0"}}
}

// fraction in (0, 1]
func openClosedUnit(name string) edgeOption {
	return edgeOption{name, append([]any{0, 0.0, -0.1, 1.0000001, 2, -1, 1e300}, nonNumbers...), []any{1e-9, 0.01, 0.5, 1, 1.0, "1"}}
}

// fraction in [0, 1]
func closedUnit(name string) edgeOption {
	return edgeOption{name, append([]any{-1e-9, -1, 1.0000001, 2, 1e300}, nonNumbers...), []any{0, 0.0, 1e-9, 0.5, 1, "1"}}
}

// number at least 0, without an upper bound
func nonNegative(name string) edgeOption {
	return edgeOption{name, append([]any{-1e-9, -1, -1e300}, nonNumbers...), []any{0, 1e-12, 1, 1e6, 1e300}}
}

// integer at least lo, without an upper bound
func intAtLeast(name string, lo int) edgeOption {
	return edgeOption{name, append([]any{lo - 1, -1, math.MinInt32, math.MaxInt32 + 1}, nonInts...), []any{lo, lo + 1, float64(lo), fmt.Sprint(lo), 1000, math.MaxInt32}}
}

// integer in [lo, hi]
func intIn(name string, lo, hi int) edgeOption {
	return edgeOption{name, append([]any{lo - 1, hi + 1, -1, math.MaxInt32}, nonInts...), []any{lo, lo + 1, float64(lo + 1), hi}}
}

// together is a good value of an option that holds only beside other options' values:
// the run sets all of them.
type together map[string]any

// edgeOptions lists, for every registered strategy, its documented options (`ktune help
// strategies`) with their documented ranges.
var edgeOptions = map[string][]edgeOption{
	"bruteforce": nil,
	"random":     nil,
	"firstmls":   {boolOption("restart"), neighbourhoodOption},
	"bestmls":    {neighbourhoodOption},
	"firstils":   {openClosedUnit("perturbation_size"), intAtLeast("exit_after_no_improve", 1), boolOption("restart"), neighbourhoodOption},
	"bestils":    {openClosedUnit("perturbation_size"), intAtLeast("exit_after_no_improve", 1), neighbourhoodOption},
	"firsttabu":  {intAtLeast("tabu_size", 0), neighbourhoodOption},
	"besttabu":   {intAtLeast("tabu_size", 0), neighbourhoodOption},
	"annealing": {openClosedUnit("explore"), {"hill_climber", []any{"", "firstimprovement", 1}, []any{"none", "first", "best", "Best"}},
		nonNegative("temperature"), neighbourhoodOption},
	"genetic": {intIn("popsize", 2, 100_000), closedUnit("mutation"),
		{"crossover", []any{"", "3point", 1}, []any{"1point", "2point", "uniform", "Uniform"}},
		{"selection", []any{"", "roulette", 1}, []any{"tournament", "rank"}},
		intIn("tournament", 1, 100_000), {"elitism", append([]any{-1, 1000}, nonInts...), []any{0, 1, 7}}},
	// mpga's restart=false ends a run when its populations converge, before the budget is
	// spent, by design: mpga_test.go checks it; here only its spellings of true run.
	"mpga": {intIn("populations", 1, 100), intIn("popsize", 2, 1000), closedUnit("crossover"), closedUnit("mutation"),
		intAtLeast("migration", 0),
		{"migrants", append([]any{-1, 16, 1000}, nonInts...), []any{0, 1, 15, together{"popsize": 2, "migrants": 1}, together{"populations": 5, "popsize": 4, "migrants": 3}}},
		openClosedUnit("mcr"),
		{"restart", []any{"", "maybe", 2, 0.5, "yes", nil, []any{true}}, []any{true, "true", "True", 1, "1"}},
		// sample=quota needs a stencil space and a model: stencil_test.go in cmd/ktune runs it
		{"sample", []any{"", "random", 1, nil}, []any{"none", "None"}},
		{"model", []any{"", 1, true, nil, "no-such-model.json"}, nil},
		{"stencil", []any{"", "star2d1r", 1, nil}, nil},
		openClosedUnit("ratio"),
		{"encoding", []any{"", "snap", 1, nil}, []any{"reindex", "nearest", "Nearest"}},
		// ar and lr, 0.001 by default, may not exceed tr
		{"tr", append([]any{0, 0.0, -0.1, 1.0000001, 2, -1, 1e300}, nonNumbers...), []any{0.001, 0.5, 1, "1", together{"tr": 1e-9, "ar": 0, "lr": 1e-9}}},
		{"ar", append([]any{-1e-9, -1, 0.0100001, 2, 1e300}, nonNumbers...), []any{0, 0.001, 0.01, together{"tr": 0.5, "ar": 0.5}}},
		{"lr", append([]any{-1e-9, -1, 0.0100001, 2, 1e300}, nonNumbers...), []any{0, 0.001, 0.01, together{"tr": 0.5, "lr": 0.5}}}},
	"gls": {intIn("popsize", 2, 100_000), {"crossover", []any{"", "3point", 1}, []any{"1point", "2point", "uniform"}},
		{"selection", []any{"", "roulette", 1}, []any{"RTS", "tournament", "rts"}},
		intIn("tournament", 1, 100_000), {"hill_climber", []any{"", "none", 1}, []any{"first", "best"}},
		boolOption("restart"), neighbourhoodOption},
	"pso":     {intIn("popsize", 1, 100_000), nonNegative("w"), nonNegative("c1"), nonNegative("c2")},
	"firefly": {intIn("popsize", 1, 100_000), nonNegative("B0"), nonNegative("gamma"), nonNegative("alpha")},
	"diffevo": {{"method", []any{"", "best3bin", 1}, []any{"best1bin", "best2bin", "rand1bin", "best1exp"}},
		intIn("popsize", 1, 1000),
		{"Fmin", append([]any{-1e-9, 2.0000001, 3}, nonNumbers...), []any{0, 0.2, 0.7}},
		{"Fmax", append([]any{-1e-9, 0.1, 2.0000001, 3}, nonNumbers...), []any{0.2, 0.7, 2}},
		closedUnit("CR")},
	"basinhopping": {minimiserOption, nonNegative("temperature"), openClosedUnit("stepsize")},
	"dualannealing": {minimiserOption,
		{"visit", append([]any{1, 3, 0.5, 3.5}, nonNumbers...), []any{1.0001, 2.62, 2.9999}},
		{"accept", append([]any{1, -10000.0001, -1e6}, nonNumbers...), []any{-10000, -5, 0, 0.9999}},
		{"initial_temp", append([]any{0, -1}, nonNumbers...), []any{1e-9, 1, 5230, 1e12}},
		{"restart_temp_ratio", append([]any{0, 1, -0.1, 1.5}, nonNumbers...), []any{1e-12, 2e-5, 0.5, 0.9999}}},
	"irace": {
		{"firstTest", append([]any{0, 1, -2}, nonInts...), []any{2, 3, 4, 10}},
		{"eachTest", append([]any{0, -1, math.MaxInt32 + 1}, nonInts...), []any{1, 2, together{"eachTest": 2, "firstTest": 4}, together{"eachTest": math.MaxInt32, "firstTest": math.MaxInt32}}},
		intIn("nbConfigurations", 0, 100_000),
		{"testType", []any{"", "wilcoxon", 1}, []any{"F-test", "t-test", "t-test-bonferroni", "t-test-holm", "f-test"}},
		{"confidence", append([]any{0.5, 1, 0, 1.5, -1}, nonNumbers...), []any{0.5000001, 0.95, 0.9999999}},
		boolOption("elitist")},
	"bayes": {{"acquisition", []any{"", "pi", "logei", 1}, []any{"ei", "lcb", "EI"}},
		nonNegative("xi"), nonNegative("kappa"), intAtLeast("initial", 1), intIn("candidates", 1, 100_000), intAtLeast("max_train", 4),
		closedUnit("local"), boolOption("adjacent_first"), nonNegative("ard_gain"),
		{"failure_model", []any{"", "none", 1}, []any{"kernel", "forest"}},
		closedUnit("min_success"), closedUnit("min_success_local"),
		{"start", []any{"", "center-ish", 1}, []any{"centre", "random"}},
		nonNegative("patience"), intAtLeast("other_basins", 0), closedUnit("plateau"), neighbourhoodOption},
	"auto": {{"confirm", append([]any{1, -1e-9, 1.5, -1}, nonNumbers...), []any{0, 1e-9, 0.5, 0.9999999}}},
	"greedymls": {{"neighbourhood", []any{"", "x", 1}, []any{"Hamming", "adjacent", "strictly-adjacent"}},
		boolOption("restart"),
		{"order", []any{"", "[]", "a,a", "0,0", true, []any{}, "[a,[b]]"}, nil}, // good values depend on the space: see edgeSpaceOptions
		boolOption("randomize")},
	"greedyils": {{"neighbourhood", []any{"", "x", 1}, []any{"Hamming", "adjacent", "strictly-adjacent"}},
		boolOption("restart"), intAtLeast("no_improvement", 1), openClosedUnit("random_walk")},
	"profile": {{"model", []any{"", 1, true, nil, "no-such-recording.json"}, nil},
		{"train", []any{"", "some", 1}, []any{"all", "sample", "Sample"}},
		{"learner", []any{"", "forest", 1}, []any{"least_squares", "tree"}},
		intIn("batch", 1, 100_000), intAtLeast("cores", 0),
		{"inst_reaction", append([]any{-1e-9, 1, 2}, nonNumbers...), []any{0, 0.5, 0.999}}},
	"saltelli": {{"n", append([]any{-1, 1_000_001, math.MaxInt32}, nonInts...), []any{0, 1, 2}},
		boolOption("second_order"),
		{"params", []any{"", "[]", "a,a", true, []any{}}, nil}},
	"smac": {{"acquisition", []any{"", "pi", 1}, []any{"ei", "lcb", "logei"}},
		{"xi", append([]any{-1e-9, 1, 2}, nonNumbers...), []any{0, 0.5, 0.9999999}},
		{"kappa", append([]any{-1e-9, 100.0000001, 1e300}, nonNumbers...), []any{0, 0.5, 100}},
		closedUnit("interleave"), intAtLeast("initial", 1), intIn("trees", 1, 1000)},
}

// TestEdgeOptionsListEveryDocumentedOption keeps the table above complete: every strategy
// and every option it documents has an entry, and no entry names an undocumented one.
func TestEdgeOptionsListEveryDocumentedOption(t *testing.T) {
	for _, name := range strategy.Names() {
		f, _ := strategy.Lookup(name)
		var doc, table []string
		for _, o := range f.Options {
			doc = append(doc, o.Name)
		}
		entries, ok := edgeOptions[name]
		if !ok {
			t.Errorf("%s: not in edgeOptions", name)
			continue
		}
		for _, e := range entries {
			table = append(table, e.name)
		}
		slices.Sort(doc)
		slices.Sort(table)
		if !slices.Equal(doc, table) {
			t.Errorf("%s: documented options %v, edgeOptions %v", name, doc, table)
		}
	}
}

// Every value outside an option's documented range, or of a kind it does not take, is
// refused by New with an error that names the option.
func TestEdgeValuesOutsideTheRangeAreRefused(t *testing.T) {
	for _, name := range strategy.Names() {
		for _, o := range edgeOptions[name] {
			for _, v := range o.bad {
				st, err := strategy.New(name, map[string]any{o.name: v})
				if err == nil {
					t.Errorf("%s %s=%#v: accepted (%T)", name, o.name, v, st)
					continue
				}
				if !strings.Contains(err.Error(), o.name) {
					t.Errorf("%s %s=%#v: error %q does not name the option", name, o.name, v, err)
				}
				if testing.Verbose() {
					t.Logf("%s %s=%#v: %v", name, o.name, v, err)
				}
			}
		}
	}
}

// edgeScenario is one space, mode and budget a strategy must cope with.
type edgeScenario struct {
	name   string
	sim    *simulator.Simulator
	budget int
	noisy  bool
}

func ints(vs ...int64) []space.Value {
	out := make([]space.Value, len(vs))
	for i, v := range vs {
		out[i] = space.IntValue(v)
	}
	return out
}

// tinyRecording builds a recording over params holding every configuration that keep
// accepts, with a time that is a fixed function of the configuration (three samples
// around it), failed where fail says.
func tinyRecording(params []space.Param, keep, fail func(c []int) bool, maximize bool) *result.Recording {
	rec := &result.Recording{Format: "ktune", Params: params, Objective: "time", Maximize: maximize}
	if maximize {
		rec.Objective = "GFLOP/s"
	}
	sizes := make([]int, len(params))
	for i, p := range params {
		sizes[i] = len(p.Values)
	}
	c := make([]int, len(params))
	for {
		if keep == nil || keep(c) {
			vals := make([]space.Value, len(c))
			obj := 1.0
			for i, j := range c {
				vals[i] = params[i].Values[j]
				obj += float64((j*7+i*3)%5) * float64(i+1)
			}
			e := result.Evaluation{Config: vals, Status: result.OK, Objective: obj, Samples: []float64{obj * 0.9, obj, obj * 1.1}}
			if fail != nil && fail(c) {
				e = result.Evaluation{Config: vals, Status: result.RuntimeError, Objective: math.NaN()}
			}
			if maximize {
				e.Samples = nil
			}
			rec.Evaluations = append(rec.Evaluations, e)
		}
		i := 0
		for ; i < len(c); i++ {
			if c[i]++; c[i] < sizes[i] {
				break
			}
			c[i] = 0
		}
		if i == len(c) {
			return rec
		}
	}
}

func tinySim(t testing.TB, rec *result.Recording, mode simulator.Mode, fitness simulator.Fitness) *simulator.Simulator {
	t.Helper()
	sim, err := simulator.New(rec, simulator.Options{Mode: mode, Fitness: fitness})
	if err != nil {
		t.Fatal(err)
	}
	return sim
}

// edgeScenarios are the spaces, modes and budgets every strategy runs in with every
// edge value.
func edgeScenarios(t testing.TB) []edgeScenario {
	one := []space.Param{{Name: "a", Values: ints(1)}}
	two := []space.Param{{Name: "a", Values: ints(1, 2)}}
	seven := []space.Param{{Name: "a", Values: ints(1, 2, 4, 8, 16, 32, 64)}}
	grid := []space.Param{{Name: "x", Values: ints(1, 2, 3, 4)}, {Name: "y", Values: ints(8, 16, 32)}, {Name: "z", Values: ints(0, 1)}, {Name: "k", Values: ints(5)}}
	half := func(c []int) bool { return (c[0]+c[1]+c[2])%2 == 0 }
	all := func([]int) bool { return true }
	sometimes := func(c []int) bool { return c[0] == 3 || c[1] == 0 }
	cache := func(mode simulator.Mode, fit simulator.Fitness) *simulator.Simulator {
		return recordedSimWith(t, endingRecording, simulator.Options{Mode: mode, Fitness: fit})
	}
	R, C := simulator.Recorded, simulator.Cartesian
	D, S := simulator.Deterministic, simulator.Stochastic
	return []edgeScenario{
		{"one configuration, budget 3", tinySim(t, tinyRecording(one, nil, nil, false), R, D), 3, false},
		{"one configuration, stochastic, budget 3", tinySim(t, tinyRecording(one, nil, nil, false), R, S), 3, true},
		{"two configurations, budget 1", tinySim(t, tinyRecording(two, nil, nil, false), R, D), 1, false},
		{"two configurations, budget 5", tinySim(t, tinyRecording(two, nil, nil, false), R, D), 5, false},
		{"one parameter of 7, budget 2", tinySim(t, tinyRecording(seven, nil, nil, false), R, D), 2, false},
		{"one parameter of 7, stochastic, budget 12", tinySim(t, tinyRecording(seven, nil, nil, false), C, S), 12, true},
		{"restricted grid, recorded, budget 9", tinySim(t, tinyRecording(grid, half, sometimes, false), R, D), 9, false},
		{"restricted grid, recorded, budget 30", tinySim(t, tinyRecording(grid, half, sometimes, false), R, D), 30, false},
		{"restricted grid, cartesian, stochastic, budget 20", tinySim(t, tinyRecording(grid, half, sometimes, false), C, S), 20, true},
		{"every configuration fails, budget 10", tinySim(t, tinyRecording(grid, nil, all, false), R, D), 10, false},
		{"every configuration fails, budget 30", tinySim(t, tinyRecording(grid, nil, all, false), R, D), 30, false},
		{"maximised, budget 8", tinySim(t, tinyRecording(grid, nil, sometimes, true), C, D), 8, false},
		{"Kernel Tuner cache, recorded, budget 7", cache(R, D), 7, false},
		{"Kernel Tuner cache, cartesian, budget 40", cache(C, D), 40, false},
		{"Kernel Tuner cache, cartesian, stochastic, budget 40", cache(C, S), 40, true},
	}
}

// edgeLimit bounds one run on the scenarios' spaces, all of them far smaller than
// anything that takes a strategy a second.
const edgeLimit = 20 * time.Second

type edgeRun struct {
	refused bool // by tuning.New, as documented
	sum     tuning.Summary
	err     error
	hung    bool
}

func runEdge(t *testing.T, name string, opts map[string]any, sc edgeScenario, seed uint64, askTell bool) edgeRun {
	t.Helper()
	st, err := strategy.New(name, opts)
	if err != nil {
		return edgeRun{err: fmt.Errorf("New: %w", err)}
	}
	sim := sc.sim.WithSeed(seed)
	var ev tuning.Evaluator = sim
	if askTell {
		ev = nil
	}
	sess, err := tuning.New(sim.Space(), st, ev, tuning.Options{Budget: sc.budget, Seed: seed, Maximize: sim.Maximize(), NoCache: sc.noisy})
	if err != nil && name == "saltelli" && strings.Contains(err.Error(), "is below one design row") {
		return edgeRun{refused: true} // documented: a budget needs room for one row of the design
	}
	if err != nil {
		return edgeRun{err: fmt.Errorf("tuning.New: %w", err)}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan edgeRun, 1)
	go func() { done <- driveEdge(ctx, sess, sim, askTell) }()
	select {
	case r := <-done:
		return r
	case <-time.After(edgeLimit):
	}
	cancel()
	select {
	case r := <-done:
		r.hung = true
		return r
	case <-time.After(5 * time.Second):
		t.Fatalf("%s %v on %s: did not end within %v, nor within 5 s of cancelling its context", name, opts, sc.name, edgeLimit)
	}
	return edgeRun{}
}

// driveEdge runs sess to its end: by Run, or by Ask and Tell with sim as the evaluator.
func driveEdge(ctx context.Context, sess *tuning.Session, sim *simulator.Simulator, askTell bool) edgeRun {
	if !askTell {
		sum, err := sess.Run(ctx)
		return edgeRun{sum: sum, err: err}
	}
	if err := sess.Start(ctx); err != nil {
		return edgeRun{err: err}
	}
	defer sess.Close()
	for {
		c, err := sess.Ask(ctx)
		if errors.Is(err, tuning.ErrDone) {
			break
		}
		if err != nil {
			return edgeRun{sum: sess.Summary(), err: err}
		}
		e, err := sim.Evaluate(ctx, c)
		if err != nil {
			return edgeRun{sum: sess.Summary(), err: err}
		}
		if err := sess.Tell(c, e); err != nil && !errors.Is(err, tuning.ErrDone) {
			return edgeRun{sum: sess.Summary(), err: err}
		}
	}
	return edgeRun{sum: sess.Summary(), err: sess.Err()}
}

// checkEdgeRun checks one run against what every run must do.
func checkEdgeRun(t *testing.T, what, name string, sc edgeScenario, r edgeRun) {
	t.Helper()
	n := sc.sim.Space().Len()
	sum := r.sum
	switch {
	case r.refused:
		return
	case r.hung:
		t.Errorf("%s: did not end within %v", what, edgeLimit)
		return
	case r.err != nil:
		t.Errorf("%s: %v", what, r.err)
		return
	}
	if sum.Evaluations > sc.budget {
		t.Errorf("%s: %d evaluations, budget %d", what, sum.Evaluations, sc.budget)
	}
	if !sc.noisy && sum.Distinct != sum.Evaluations {
		t.Errorf("%s: %d evaluations of %d distinct configurations in a deterministic session", what, sum.Evaluations, sum.Distinct)
	}
	if name == "saltelli" {
		return // measures its design, which may be smaller than the budget
	}
	want := min(sc.budget, n)
	if sc.noisy {
		want = sc.budget
	}
	if sum.Evaluations != want {
		ok := sc.noisy && sum.Distinct == n && sum.Stop == tuning.StopFinished
		if !ok {
			t.Errorf("%s: %d evaluations (%d distinct of %d), stop %q; want %d", what, sum.Evaluations, sum.Distinct, n, sum.Stop, want)
		}
	}
}

// edgeCostly reports the variants that take a good part of a second a run even on the
// tiny spaces (irace samples its 100,000 candidates per iteration whatever the budget):
// they run on every fifth scenario only, to keep the test quick.
func edgeCostly(name string, opts map[string]any) bool {
	return name == "irace" && opts["nbConfigurations"] == 100_000
}

func sameHistory(a, b tuning.Summary) bool {
	return slices.EqualFunc(a.History, b.History, func(x, y tuning.Evaluated) bool {
		return slices.Equal(x.Config, y.Config) && (x.Fitness == y.Fitness || math.IsNaN(x.Fitness) && math.IsNaN(y.Fitness))
	})
}

// Every value inside an option's documented range runs on every scenario without a panic,
// a hang or an error, uses the budget exactly (or the whole space), and gives the same
// run for the same seed, run or driven by ask and tell.
func TestEdgeValuesInsideTheRangeRunEverywhere(t *testing.T) {
	scenarios := edgeScenarios(t)
	for _, name := range strategy.Names() {
		variants := []map[string]any{nil}
		for _, o := range edgeOptions[name] {
			for _, v := range o.good {
				if m, ok := v.(together); ok {
					variants = append(variants, map[string]any(m))
					continue
				}
				variants = append(variants, map[string]any{o.name: v})
			}
		}
		t.Run(name, func(t *testing.T) {
			for _, opts := range variants {
				for si, sc := range scenarios {
					if edgeCostly(name, opts) && si%5 != 0 {
						continue
					}
					what := fmt.Sprintf("%s %v on %s", name, opts, sc.name)
					r := runEdge(t, name, opts, sc, 7, false)
					checkEdgeRun(t, what, name, sc, r)
					if r.err != nil || r.hung || r.refused {
						continue
					}
					if si%3 == 0 {
						again := runEdge(t, name, opts, sc, 7, false)
						if !sameHistory(r.sum, again.sum) {
							t.Errorf("%s: the same seed gave another run", what)
						}
					}
					if si%4 == 1 {
						at := runEdge(t, name, opts, sc, 7, true)
						checkEdgeRun(t, what+" (ask/tell)", name, sc, at)
						if at.err == nil && !sameHistory(r.sum, at.sum) {
							t.Errorf("%s: ask/tell gave another run than Run", what)
						}
					}
				}
			}
		})
	}
}
