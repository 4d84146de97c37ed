package strategy

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ktune/ktune/space"
)

// fakeProblem is a minimal session: fitness is a function of the index, the budget is
// enforced as a session would, and every evaluated index is kept in order.
type fakeProblem struct {
	sp        *space.Space
	rng       *rand.Rand
	budget    int
	evaluated []int
	failAt    int // return errFake on this evaluation (1-based); 0 never
}

var errFake = errors.New("evaluator broke")

func newFake(t *testing.T, sizes []int, budget int, seed uint64) *fakeProblem {
	t.Helper()
	params := make([]space.Param, len(sizes))
	for i, n := range sizes {
		params[i].Name = string(rune('a' + i))
		for v := range n {
			params[i].Values = append(params[i].Values, space.IntValue(int64(v)))
		}
	}
	sp, err := space.NewCompiled(params, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &fakeProblem{sp: sp, rng: rand.New(rand.NewPCG(seed, 1)), budget: budget}
}

func (f *fakeProblem) Space() *space.Space { return f.sp }
func (f *fakeProblem) Rand() *rand.Rand    { return f.rng }
func (f *fakeProblem) Budget() int         { return f.budget }
func (f *fakeProblem) Remaining() int      { return f.budget - len(f.evaluated) }

func (f *fakeProblem) Evaluate(_ context.Context, c space.Config) (float64, error) {
	if len(f.evaluated) >= f.budget {
		return math.NaN(), ErrStop
	}
	if f.failAt > 0 && len(f.evaluated)+1 == f.failAt {
		return math.NaN(), errFake
	}
	i, ok := f.sp.Index(c)
	if !ok {
		return math.NaN(), errors.New("not in the space")
	}
	f.evaluated = append(f.evaluated, i)
	return float64(i), nil
}

func TestBuiltinStrategiesAreRegisteredAndDocumented(t *testing.T) {
	names := Names()
	for _, want := range []string{"bruteforce", "random"} {
		if !slices.Contains(names, want) {
			t.Errorf("Names() = %v, missing %s", names, want)
		}
	}
	if !slices.IsSorted(names) {
		t.Errorf("Names() = %v, not sorted", names)
	}
	for _, name := range names {
		f, _ := Lookup(name)
		if len(f.Doc) < 40 {
			t.Errorf("%s: Doc %q is too short to help anyone", name, f.Doc)
		}
		s, err := New(name, nil)
		if err != nil {
			t.Fatalf("New(%s): %v", name, err)
		}
		if s.Name() != name {
			t.Errorf("New(%s).Name() = %s", name, s.Name())
		}
	}
}

func TestNewRejectsUnknownNamesAndOptions(t *testing.T) {
	if _, err := New("annealing-ish", nil); err == nil || !strings.Contains(err.Error(), "random") {
		t.Errorf("unknown strategy: err = %v, want one listing the known strategies", err)
	}
	for name, want := range map[string]string{"FirstILS": "case-sensitive: did you mean firstils?", "anealing": "did you mean annealing?"} {
		if _, err := New(name, nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("New(%q): %v, want %q", name, err, want)
		}
	}
	if _, err := New("random", map[string]any{"popsize": 4}); err == nil || !strings.Contains(err.Error(), "popsize") {
		t.Errorf("unknown option: err = %v, want one naming popsize", err)
	}
}

func TestRegisterPanicsOnProgrammingErrors(t *testing.T) {
	cases := []struct {
		name string
		f    Factory
	}{
		{"random", randomFactory},     // taken
		{"", randomFactory},           // empty
		{"no-new", Factory{Doc: "x"}}, // no New
	}
	for _, tc := range cases {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q) did not panic", tc.name)
				}
			}()
			Register(tc.name, tc.f)
		}()
	}
}

func TestOptionsAcceptGoJSONAndCommandLineForms(t *testing.T) {
	var fromJSON map[string]any
	dec := json.NewDecoder(strings.NewReader(`{"n": 8, "p": 0.5}`))
	dec.UseNumber()
	if err := dec.Decode(&fromJSON); err != nil {
		t.Fatal(err)
	}
	o := Options{"i": 3, "f": 8.0, "s": "12", "b": "True", "bb": true, "nb": "adjacent",
		"x": 2.5, "n": fromJSON["n"], "p": fromJSON["p"], "lower": " hamming", "upper": "T-TEST"}
	ints := []struct {
		name string
		want int
		bad  bool
	}{{"i", 3, false}, {"f", 8, false}, {"s", 12, false}, {"n", 8, false}, {"missing", 42, false}, {"x", 0, true}, {"bb", 0, true}}
	for _, tc := range ints {
		got, err := o.Int(tc.name, 42)
		if (err != nil) != tc.bad || (!tc.bad && got != tc.want) {
			t.Errorf("Int(%s) = %v, %v; want %v (error %v)", tc.name, got, err, tc.want, tc.bad)
		}
	}
	// every form has the same bound, and a large whole number is out of range, not "not
	// an integer"
	for _, v := range []any{"3000000000", 3000000000, int64(-3000000000), 1e12, "1e12"} {
		if _, err := (Options{"k": v}).Int("k", 0); err == nil || !strings.Contains(err.Error(), "out of range") {
			t.Errorf("Int(%v): %v, want out of range", v, err)
		}
	}
	for _, v := range []any{"NaN", "inf", "-Inf", math.NaN(), math.Inf(1), "1e309"} {
		if _, err := (Options{"x": v}).Float("x", 0); err == nil || !strings.Contains(err.Error(), "finite") {
			t.Errorf("Float(%v): %v, want not finite", v, err)
		}
	}
	if got, err := o.Float("p", 0); err != nil || got != 0.5 {
		t.Errorf("Float(p) = %v, %v", got, err)
	}
	if got, err := o.Float("i", 0); err != nil || got != 3 {
		t.Errorf("Float(i) = %v, %v", got, err)
	}
	if got, err := o.Bool("b", false); err != nil || !got {
		t.Errorf("Bool(b) = %v, %v", got, err)
	}
	if _, err := o.Bool("i", false); err == nil {
		t.Error("Bool accepted an integer")
	}
	if got, err := o.Choice("nb", "Hamming", "Hamming", "adjacent"); err != nil || got != "adjacent" {
		t.Errorf("Choice(nb) = %v, %v", got, err)
	}
	if got, err := o.Choice("lower", "adjacent", "Hamming", "adjacent"); err != nil || got != "Hamming" {
		t.Errorf("Choice(lower) = %v, %v; want the list's spelling Hamming", got, err)
	}
	if got, err := o.Choice("upper", "F-test", "F-test", "t-test"); err != nil || got != "t-test" {
		t.Errorf("Choice(upper) = %v, %v; want t-test", got, err)
	}
	if _, err := o.Choice("s", "Hamming", "Hamming", "adjacent"); err == nil {
		t.Error("Choice accepted a value outside its list")
	}
}

func TestBruteForceEvaluatesInIndexOrderWithinBudget(t *testing.T) {
	p := newFake(t, []int{3, 4}, 5, 1)
	if err := (bruteForce{}).Run(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	if want := []int{0, 1, 2, 3, 4}; !slices.Equal(p.evaluated, want) {
		t.Errorf("evaluated %v, want %v", p.evaluated, want)
	}
	p = newFake(t, []int{3, 4}, 100, 1)
	if err := (bruteForce{}).Run(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	if len(p.evaluated) != 12 {
		t.Errorf("with budget beyond the space: %d evaluations, want all 12", len(p.evaluated))
	}
}

func TestStrategiesPassOnEvaluatorErrors(t *testing.T) {
	for _, s := range []Strategy{bruteForce{}, random{}} {
		p := newFake(t, []int{5, 5}, 100, 1)
		p.failAt = 3
		if err := s.Run(context.Background(), p); !errors.Is(err, errFake) {
			t.Errorf("%s: Run = %v, want the evaluator's error", s.Name(), err)
		}
	}
}

func TestRandomNeverRepeatsAndCoversTheSpace(t *testing.T) {
	p := newFake(t, []int{7, 5, 3}, 1000, 2)
	if err := (random{}).Run(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	got := slices.Clone(p.evaluated)
	slices.Sort(got)
	for i, v := range got {
		if v != i {
			t.Fatalf("evaluated indices (sorted) %v: not each of 0..104 exactly once", got)
		}
	}
	if len(got) != 105 {
		t.Fatalf("%d evaluations, want 105", len(got))
	}
	if slices.IsSorted(p.evaluated) {
		t.Error("random evaluated the space in index order")
	}
}

func TestRandomIsReproducibleFromTheSeed(t *testing.T) {
	run := func(seed uint64) []int {
		p := newFake(t, []int{10, 10, 10}, 20, seed)
		if err := (random{}).Run(context.Background(), p); err != nil {
			t.Fatal(err)
		}
		return p.evaluated
	}
	if a, b := run(5), run(5); !slices.Equal(a, b) {
		t.Errorf("same seed, different runs:\n%v\n%v", a, b)
	}
	if a, b := run(5), run(6); slices.Equal(a, b) {
		t.Errorf("seeds 5 and 6 gave the same run %v", a)
	}
}

// TestLazyPermutationIsUniform checks all 24 orders of 4 elements appear equally often
// (chi-square, 23 degrees of freedom; 49.7 is the 0.999 quantile; the seed is fixed, so the
// test is deterministic).
func TestLazyPermutationIsUniform(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	const trials = 24000
	counts := map[[4]int]int{}
	for range trials {
		p := newLazyPermutation(4, 4)
		var order [4]int
		for i := range order {
			order[i] = p.next(r)
		}
		if p.more() {
			t.Fatal("more() after n draws")
		}
		counts[order]++
	}
	if len(counts) != 24 {
		t.Fatalf("%d distinct orders, want 24", len(counts))
	}
	chi2 := 0.0
	for _, c := range counts {
		d := float64(c) - trials/24
		chi2 += d * d / (trials / 24)
	}
	if chi2 > 49.7 {
		t.Errorf("chi-square %.1f over 23 degrees of freedom: the orders are not uniform", chi2)
	}
}

// TestLazyPermutationMemoryFollowsDraws draws from a range of 2^50 elements: a shuffle
// that materialised it could not run at all.
func TestLazyPermutationMemoryFollowsDraws(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	p := newLazyPermutation(1<<50, math.MaxInt)
	seen := map[int]bool{}
	for range 10000 {
		v := p.next(r)
		if v < 0 || v >= 1<<50 || seen[v] {
			t.Fatalf("drew %d: out of range or repeated", v)
		}
		seen[v] = true
	}
	if len(p.swapped) > 10000 {
		t.Errorf("%d positions stored after 10000 draws", len(p.swapped))
	}
}

// A restart in a space that is nearly all evaluated still finds an unevaluated
// configuration: random draws alone would rarely hit the last few.
func TestSampleNewFindsTheLastUnevaluatedConfigurations(t *testing.T) {
	p := newFake(t, []int{10, 10, 10}, 1000, 1)
	s := newSearcher(context.Background(), p, space.Hamming)
	for idx := range 1000 {
		if idx != 637 {
			s.seen[idx] = 0
		}
	}
	for range 5 {
		c := s.sampleNew(nil)
		if idx, _ := p.sp.Index(c); idx != 637 {
			t.Fatalf("sampleNew gave %v (index %d), want the only unevaluated configuration 637", c, idx)
		}
	}
}

// A Kernel Tuner strategy name gets ktune's name for the same algorithm, and a typo the
// nearest name.
func TestUnknownStrategyNamesKernelTunersCounterpart(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"genetic_algorithm", "Kernel Tuner's genetic_algorithm is ktune's genetic"},
		{"simulated_annealing", "Kernel Tuner's simulated_annealing is ktune's annealing"},
		{"Random_Sample", "Kernel Tuner's random_sample is ktune's random"},
		{"ordered_greedy_mls", "Kernel Tuner's ordered_greedy_mls is ktune's greedymls with its option order"},
		{"bayes_opt", "Kernel Tuner's bayes_opt is ktune's bayes"},
		{"anealing", "did you mean annealing?"},
		{"BAYES", "names are case-sensitive: did you mean bayes?"},
	} {
		_, err := New(tc.name, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}
