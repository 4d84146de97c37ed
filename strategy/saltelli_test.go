package strategy_test

import (
	"context"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/ktune/ktune/sensitivity"
	"github.com/ktune/ktune/simulator"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/strategy"
	"github.com/ktune/ktune/tuning"
)

// TestSaltelliMeasuresTheDesignRunDesignRebuilds runs the strategy in simulation and maps
// the stored history back onto the design RunDesign rebuilds from the run's seed.
func TestSaltelliMeasuresTheDesignRunDesignRebuilds(t *testing.T) {
	sim := recordedSim(t, pnpolyPath, simulator.Recorded)
	sp := sim.Space()
	const budget, seed = 300, 9
	opts := map[string]any{"second_order": true}
	a := runSession(t, sim, "saltelli", opts, budget, seed)
	b := runSession(t, sim, "saltelli", opts, budget, seed)
	if !slices.EqualFunc(history(a), history(b), slices.Equal) {
		t.Error("same seed, different histories")
	}
	if c := runSession(t, sim, "saltelli", opts, budget, seed+1); slices.EqualFunc(history(a), history(c), slices.Equal) {
		t.Error("seeds 9 and 10 gave the same history")
	}
	ro, err := strategy.SaltelliOptions(opts)
	if err != nil {
		t.Fatal(err)
	}
	d, err := sensitivity.RunDesign(sp, seed, budget, ro)
	if err != nil {
		t.Fatal(err)
	}
	if want := budget / sensitivity.DesignRows(len(sp.Params()), 0, true); d.N != want {
		t.Fatalf("rebuilt design has %d rows, want %d", d.N, want)
	}
	// The history is the design's distinct valid points, in order of first appearance.
	var want []space.Config
	seen := map[int]bool{}
	valid := 0
	for i, c := range d.Points {
		idx, ok := sp.Index(c)
		if d.Valid[i] != ok {
			t.Fatalf("point %d: Valid %v, in space %v", i, d.Valid[i], ok)
		}
		if ok {
			valid++
		}
		if ok && !seen[idx] {
			seen[idx] = true
			want = append(want, c)
		}
	}
	if got := history(a); !slices.EqualFunc(got, toInts(want), slices.Equal) {
		t.Fatalf("history of %d configurations is not the rebuilt design's %d distinct points", len(got), len(want))
	}
	if a.Evaluations > budget || a.Requests != valid {
		t.Errorf("%d evaluations (budget %d), %d requests for %d valid design points", a.Evaluations, budget, a.Requests, valid)
	}
	// The stored objectives map back onto the design and give indices.
	obj := map[int]float64{}
	for _, h := range a.History {
		idx, _ := sp.Index(h.Config)
		obj[idx] = h.Evaluation.Objective
	}
	y := make([]float64, len(d.Points))
	for i, c := range d.Points {
		y[i] = math.NaN()
		if idx, ok := sp.Index(c); ok {
			y[i] = obj[idx]
		}
	}
	s, err := d.Estimate(context.Background(), y)
	if err != nil {
		t.Fatal(err)
	}
	if s.Method != sensitivity.Saltelli || len(s.First) != len(sp.Params()) || len(s.Second) != 6 {
		t.Errorf("estimate: method %s, %d firsts, %d pairs", s.Method, len(s.First), len(s.Second))
	}
}

func toInts(cs []space.Config) [][]int {
	out := make([][]int, len(cs))
	for i, c := range cs {
		out[i] = c
	}
	return out
}

// TestSaltelliStopsAtTheBudget asks for more rows than the budget pays for: the run uses
// exactly the budget and ends normally.
func TestSaltelliStopsAtTheBudget(t *testing.T) {
	sim := recordedSim(t, pnpolyPath, simulator.Cartesian)
	for _, budget := range []int{1, 37, 200} {
		sum := runSession(t, sim, "saltelli", map[string]any{"n": 500, "params": "block_size_x,tile_size"}, budget, 3)
		if sum.Evaluations != budget || sum.Distinct != budget || sum.Stop != tuning.StopBudget {
			t.Errorf("budget %d: %d evaluations, %d distinct, stop %q", budget, sum.Evaluations, sum.Distinct, sum.Stop)
		}
	}
}

// Options that do not fit the space or the budget are refused before the run, by
// strategy.Check and so by tuning.New, naming the option or the budget at fault. pnpoly has
// 4 parameters: a row is 10 points with second order, 6 without.
func TestSaltelliNeedsABudgetOrRows(t *testing.T) {
	sim := recordedSim(t, pnpolyPath, simulator.Recorded)
	for _, c := range []struct {
		opts   map[string]any
		budget int
		want   string
	}{
		{nil, 0, "neither a budget nor a number of base rows (option n)"},
		{map[string]any{"n": 2, "params": "nope"}, 0, `option params: no parameter "nope" (the space has between_method, block_size_x, tile_size, use_method)`},
		{map[string]any{"n": 2, "params": "[tile_size, nope]"}, 0, `option params: no parameter "nope"`},
		{map[string]any{"n": 100_001}, 0, "option n: 100001 base rows of 10 points each are more than the 1000000 points a design may have; give at most 100000"},
		{map[string]any{"n": 166_667, "second_order": false}, 0, "option n: 166667 base rows of 6 points"},
		{nil, 9, "a budget of 9 evaluations is below one design row of 10 points"},
		{nil, 1_000_010, "a budget of 1000010 evaluations makes 100001 base rows of 10 points each"},
	} {
		st, err := strategy.New("saltelli", c.opts)
		if err != nil {
			t.Fatal(err)
		}
		want := "strategy saltelli: " + c.want
		if err := strategy.Check(st, sim.Space(), c.budget); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v, budget %d: Check = %v, want %q", c.opts, c.budget, err, want)
		}
		if _, err := tuning.New(sim.Space(), st, sim, tuning.Options{Seed: 1, Budget: c.budget}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v, budget %d: tuning.New = %v, want %q", c.opts, c.budget, err, want)
		}
	}
	// the largest designs that fit, and a budget of one row, pass
	for _, c := range []struct {
		opts   map[string]any
		budget int
	}{
		{map[string]any{"n": 100_000}, 0}, {map[string]any{"n": 166_666, "second_order": false}, 0}, {nil, 10}, {nil, 1_000_009},
		{map[string]any{"params": "tile_size,use_method"}, 6},
	} {
		if err := strategy.Validate("saltelli", c.opts, sim.Space(), c.budget); err != nil {
			t.Errorf("%v, budget %d: %v", c.opts, c.budget, err)
		}
	}
	if _, err := strategy.New("saltelli", map[string]any{"n": "many"}); err == nil {
		t.Error("n = many accepted")
	}
}

func TestSaltelliOptionsAcceptGoJSONAndCommandLineForms(t *testing.T) {
	var fromJSON map[string]any
	dec := json.NewDecoder(strings.NewReader(`{"n": 12, "second_order": false, "params": ["x3", "x1"]}`))
	dec.UseNumber()
	if err := dec.Decode(&fromJSON); err != nil {
		t.Fatal(err)
	}
	for _, opts := range []map[string]any{
		fromJSON,
		{"n": 12, "second_order": false, "params": []string{"x3", "x1"}},
		{"n": "12", "second_order": "false", "params": "x3, x1"},
		{"n": 12.0, "second_order": "false", "params": "x3,x1"},
	} {
		got, err := strategy.SaltelliOptions(opts)
		if err != nil || got.N != 12 || got.SecondOrder || !slices.Equal(got.Params, []string{"x3", "x1"}) {
			t.Errorf("SaltelliOptions(%v) = %+v, %v", opts, got, err)
		}
	}
	def, err := strategy.SaltelliOptions(nil)
	if err != nil || def.N != 0 || !def.SecondOrder || def.Params != nil {
		t.Errorf("defaults = %+v, %v", def, err)
	}
	for _, bad := range []map[string]any{
		{"n": -1}, {"n": 1.5}, {"second_order": "maybe"}, {"params": ""}, {"params": true}, {"popsize": 4},
	} {
		if _, err := strategy.SaltelliOptions(bad); err == nil {
			t.Errorf("SaltelliOptions(%v) accepted", bad)
		}
	}
}
