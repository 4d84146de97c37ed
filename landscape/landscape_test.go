package landscape

import (
	"context"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/ktune/ktune/space"
)

// grid builds the unrestricted space of parameters with sizes[i] integer values 0..n-1.
func grid(t *testing.T, sizes ...int) *space.Space {
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
	return sp
}

// landscapeOf fills a landscape of sp with obj(config), whatever the space's index order.
func landscapeOf(sp *space.Space, maximize bool, obj func(c space.Config) float64) *Landscape {
	l := &Landscape{Space: sp, Objective: make([]float64, sp.Len()), Maximize: maximize}
	for i := range l.Objective {
		l.Objective[i] = obj(sp.At(i, nil))
	}
	return l
}

// line is a 1-D landscape with the given objective per value.
func line(t *testing.T, maximize bool, obj ...float64) *Landscape {
	return landscapeOf(grid(t, len(obj)), maximize, func(c space.Config) float64 { return obj[c[0]] })
}

// classesByConfig returns the class of each configuration, keyed by its value indices.
func classesByConfig(t *testing.T, l *Landscape, nb space.Neighbourhood) map[[2]int]Class {
	t.Helper()
	cs, err := Classify(context.Background(), l, nb)
	if err != nil {
		t.Fatal(err)
	}
	out := map[[2]int]Class{}
	for i, c := range cs {
		cfg := l.Space.At(i, nil)
		k := [2]int{cfg[0], -1}
		if len(cfg) > 1 {
			k[1] = cfg[1]
		}
		out[k] = c
	}
	return out
}

const (
	R = Regular
	m = Minimum
	M = Maximum
	S = Saddle
)

func TestClassifyHandWorkedSpaces(t *testing.T) {
	nan := math.NaN()
	// The 3×3 table, rows a, columns b:
	//   1 5 2
	//   3 4 0
	//   6 8 7
	table := [3][3]float64{{1, 5, 2}, {3, 4, 0}, {6, 8, 7}}
	square := landscapeOf(grid(t, 3, 3), false, func(c space.Config) float64 { return table[c[0]][c[1]] })
	for _, tc := range []struct {
		name string
		l    *Landscape
		nb   space.Neighbourhood
		want []Class // by value index (1-D) or row-major (2-D)
	}{
		{"line adjacent", line(t, false, 3, 1, 2, 0, 4), space.Adjacent, []Class{M, m, M, m, M}},
		{"line Hamming", line(t, false, 3, 1, 2, 0, 4), space.Hamming, []Class{R, R, R, m, M}},
		{"line adjacent maximised", line(t, true, 3, 1, 2, 0, 4), space.Adjacent, []Class{m, M, m, M, m}},
		{"line Hamming maximised", line(t, true, 3, 1, 2, 0, 4), space.Hamming, []Class{R, R, R, M, m}},
		// An equal successful neighbour counts as no better: x1 stays a minimum, x2 sees
		// one equal and one better neighbour and is regular.
		{"line with a tie", line(t, false, 3, 1, 1, 0, 4), space.Adjacent, []Class{M, m, R, m, M}},
		{"all equal", line(t, false, 2, 2, 2), space.Hamming, []Class{m, m, m}},
		// Failures: x1 and x2 form a failure plateau (regular); x4 failed next to a success
		// only and is a maximum; successes next to failures are minima.
		{"line with failures adjacent", line(t, false, 2, nan, nan, 1, nan), space.Adjacent, []Class{m, R, R, m, M}},
		{"line with failures Hamming", line(t, false, 2, nan, nan, 1, nan), space.Hamming, []Class{R, R, R, m, R}},
		{"square adjacent", square, space.Adjacent, []Class{m, M, S, R, S, m, S, M, S}},
		{"square Hamming", square, space.Hamming, []Class{m, R, R, R, S, m, S, M, R}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := classesByConfig(t, tc.l, tc.nb)
			for k, c := range got {
				i := k[0]
				if k[1] >= 0 {
					i = 3*k[0] + k[1]
				}
				if c != tc.want[i] {
					t.Errorf("config %v: got %v, want %v", k, c, tc.want[i])
				}
			}
		})
	}
}

// restricted is a 3×3 space holding only (0,0) 3, (0,1) 2, (0,2) 1, (1,1) 5 and the failed
// (2,2): under adjacency (2,2) has no neighbour at all; under Hamming (0,2) is its neighbour.
func restricted(t *testing.T) *Landscape {
	t.Helper()
	params := grid(t, 3, 3).Params()
	sp, err := space.FromConfigs(params, []space.Config{{0, 0}, {0, 1}, {0, 2}, {1, 1}, {2, 2}})
	if err != nil {
		t.Fatal(err)
	}
	obj := map[[2]int]float64{{0, 0}: 3, {0, 1}: 2, {0, 2}: 1, {1, 1}: 5, {2, 2}: math.NaN()}
	return landscapeOf(sp, false, func(c space.Config) float64 { return obj[[2]int{c[0], c[1]}] })
}

func TestClassifyRestrictedSpaceSkipsDimensionsWithoutNeighbours(t *testing.T) {
	l := restricted(t)
	for _, tc := range []struct {
		nb   space.Neighbourhood
		want map[[2]int]Class
	}{
		// the failed (2,2) has no neighbour: no critical point, and never a minimum
		{space.Adjacent, map[[2]int]Class{{0, 0}: M, {0, 1}: R, {0, 2}: m, {1, 1}: M, {2, 2}: R}},
		{space.Hamming, map[[2]int]Class{{0, 0}: M, {0, 1}: R, {0, 2}: m, {1, 1}: M, {2, 2}: M}},
	} {
		got := classesByConfig(t, l, tc.nb)
		if len(got) != len(tc.want) {
			t.Fatalf("%v: %d classes, want %d", tc.nb, len(got), len(tc.want))
		}
		for k, c := range tc.want {
			if got[k] != c {
				t.Errorf("%v: config %v is %v, want %v", tc.nb, k, got[k], c)
			}
		}
	}
	// The isolated failure is no minimum: the count agrees with the fractions and C_p.
	a, err := Analyze(context.Background(), l, Options{Neighbourhood: space.Adjacent})
	if err != nil {
		t.Fatal(err)
	}
	if a.Minima != 1 || a.Maxima != 2 || a.Regular != 2 || a.Saddles != 0 || a.Failed != 1 || a.Points != 5 {
		t.Errorf("counts %+v", a)
	}
	if !slices.Equal(a.MinimaFractions, []float64{1}) || a.Optimum != 1 {
		t.Errorf("fractions %v, optimum %v; want [1], 1", a.MinimaFractions, a.Optimum)
	}
	if a.ProportionAt(0) != 1 {
		t.Errorf("C_0 = %v, want 1", a.ProportionAt(0))
	}
}

func TestClassifyRejectsStrictlyAdjacent(t *testing.T) {
	if _, err := Classify(context.Background(), line(t, false, 1, 2), space.StrictlyAdjacent); err == nil {
		t.Error("no error")
	}
	if _, err := Classify(context.Background(), &Landscape{Space: grid(t, 3), Objective: []float64{1}}, space.Hamming); err == nil {
		t.Error("no error for an objective shorter than the space")
	}
}

func TestClassStrings(t *testing.T) {
	for c, s := range map[Class]string{Regular: "regular", Minimum: "minimum", Maximum: "maximum", Saddle: "saddle"} {
		if c.String() != s {
			t.Errorf("%d: %q, want %q", c, c.String(), s)
		}
	}
}

// edges lists a graph's edges as index pairs.
func edges(g *Graph) [][2]int32 {
	var out [][2]int32
	for u := range g.N() {
		for _, v := range g.Successors(u) {
			out = append(out, [2]int32{int32(u), v})
		}
	}
	return out
}

func TestFlowGraphEdgesGoToNoWorseNeighbours(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name string
		l    *Landscape
		nb   space.Neighbourhood
		want [][2]int32
	}{
		{"strict", line(t, false, 3, 1, 2, 0, 4), space.Adjacent, [][2]int32{{0, 1}, {2, 1}, {2, 3}, {4, 3}}},
		// A tie gives edges both ways.
		{"tie", line(t, false, 3, 1, 1, 0, 4), space.Adjacent, [][2]int32{{0, 1}, {1, 2}, {2, 1}, {2, 3}, {4, 3}}},
		// Failures point to each other and to successful neighbours, never the reverse.
		{"failures", line(t, false, 2, nan, nan, 1, nan), space.Adjacent, [][2]int32{{1, 0}, {1, 2}, {2, 1}, {2, 3}, {4, 3}}},
		{"Hamming", line(t, false, 3, 1, 2), space.Hamming, [][2]int32{{0, 1}, {0, 2}, {2, 1}}},
		{"maximised", line(t, true, 3, 1, 2), space.Hamming, [][2]int32{{1, 0}, {1, 2}, {2, 0}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := FlowGraph(context.Background(), tc.l, tc.nb)
			if err != nil {
				t.Fatal(err)
			}
			if got := edges(g); !slices.Equal(got, tc.want) {
				t.Errorf("edges %v, want %v", got, tc.want)
			}
			if g.Edges() != len(tc.want) || g.N() != tc.l.Space.Len() {
				t.Errorf("N %d, Edges %d", g.N(), g.Edges())
			}
		})
	}
}

func TestProportionOfCentralityHandBuilt(t *testing.T) {
	// Flow graph 0->1, 2->1, 2->3, 4->3 in both: the two minima are symmetric, so they get
	// equal PageRank and C_p jumps from 1/2 to 1 once the second minimum is within p.
	for _, tc := range []struct {
		name      string
		l         *Landscape
		fractions []float64
		optimum   float64
	}{
		{"minimise", line(t, false, 4, 1.08, 3, 1, 5), []float64{1, 1 / 1.08}, 1},
		{"maximise", line(t, true, 1, 3.7, 2, 4, 0.5), []float64{1, 3.7 / 4}, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := Analyze(context.Background(), tc.l, Options{Neighbourhood: space.Adjacent, Ps: []float64{0, 0.05, 0.1}})
			if err != nil {
				t.Fatal(err)
			}
			want := []Proportion{{0, 0.5}, {0.05, 0.5}, {0.1, 1}}
			if len(a.Proportions) != len(want) {
				t.Fatalf("proportions %v", a.Proportions)
			}
			for i, p := range a.Proportions {
				if p.P != want[i].P || math.Abs(p.C-want[i].C) > 1e-12 {
					t.Errorf("proportion %d: %v, want %v", i, p, want[i])
				}
			}
			if !slices.EqualFunc(a.MinimaFractions, tc.fractions, func(x, y float64) bool { return math.Abs(x-y) < 1e-15 }) || a.Optimum != tc.optimum {
				t.Errorf("fractions %v optimum %v, want %v %v", a.MinimaFractions, a.Optimum, tc.fractions, tc.optimum)
			}
			if a.Minima != 2 || a.Maxima != 3 || a.Edges != 4 || a.Neighbourhood != "adjacent" {
				t.Errorf("analysis %+v", a)
			}
			if got := a.ProportionAt(0.2); got != 1 {
				t.Errorf("ProportionAt(0.2) = %v", got)
			}
		})
	}
}

// TestProportionOfCentralityNegativeObjective: the threshold is taken on |optimum|, so a
// negative optimum counts itself and the minima within p·|optimum| above it (below, when
// maximising), as a positive one does, and C_p grows with p. (1+p)·optimum would lie below
// a negative optimum and leave every minimum out.
func TestProportionOfCentralityNegativeObjective(t *testing.T) {
	// adjacent minima -10 (the optimum), -9.96 (within 0.4% of |-10|) and -9.1 (within 9%)
	values := []float64{-10, -5, -9.96, -3, -9.1}
	negated := make([]float64, len(values))
	for i, v := range values {
		negated[i] = -v
	}
	ps := []float64{0, 0.003, 0.005, 0.01, 0.08, 0.1, 0.15}
	for _, tc := range []struct {
		name string
		l    *Landscape
	}{
		{"minimise negative values", line(t, false, values...)},
		{"maximise negated values", line(t, true, negated...)},
		{"maximise negative values", line(t, true, -1, -5, -1.004, -7, -1.091)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := Analyze(context.Background(), tc.l, Options{Neighbourhood: space.Adjacent, Ps: ps})
			if err != nil {
				t.Fatal(err)
			}
			// the three minima by their position on the line: 0 is the optimum
			rank := map[int]float64{}
			var all float64
			for i, c := range a.Classes {
				if c == Minimum {
					rank[tc.l.Space.At(i, nil)[0]] = a.Centrality[i]
					all += a.Centrality[i]
				}
			}
			if len(rank) != 3 {
				t.Fatalf("minima %v, want those at 0, 2 and 4", rank)
			}
			want := []float64{rank[0] / all, rank[0] / all, (rank[0] + rank[2]) / all, (rank[0] + rank[2]) / all,
				(rank[0] + rank[2]) / all, 1, 1}
			for i, p := range ps {
				if got := a.ProportionAt(p); math.Abs(got-want[i]) > 1e-12 {
					t.Errorf("C_%g = %v, want %v", p, got, want[i])
				}
			}
		})
	}
}

func TestAnalyzeDefaultsAndErrors(t *testing.T) {
	a, err := Analyze(context.Background(), line(t, false, 3, 1, 2, 0, 4), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a.Neighbourhood != "Hamming" || len(a.Proportions) != 16 || a.Proportions[15].P != 0.15 {
		t.Errorf("defaults: %s, %v", a.Neighbourhood, a.Proportions)
	}
	nan := math.NaN()
	if _, err := Analyze(context.Background(), line(t, false, nan, nan), Options{}); err == nil {
		t.Error("no error when nothing succeeded")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Analyze(ctx, line(t, false, 1, 2), Options{}); err == nil {
		t.Error("no error for a cancelled context")
	}
}

func TestAnalysisJSON(t *testing.T) {
	a, err := Analyze(context.Background(), line(t, false, 4, 1.08, 3, 1, 5), Options{Neighbourhood: space.Adjacent, Ps: []float64{0, 0.1}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(b, &keys); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"neighbourhood", "points", "failed", "minima", "maxima", "saddles", "regular", "optimum",
		"minima_fraction_of_optimum", "edges", "pagerank_iterations", "proportion_of_centrality"} {
		if _, ok := keys[k]; !ok {
			t.Errorf("no %q in %s", k, b)
		}
	}
	if len(keys) != 12 {
		t.Errorf("%d keys in %s", len(keys), b)
	}
	var back Analysis
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.ProportionAt(0.1) != 1 || back.ProportionAt(0) != 0.5 || !math.IsNaN(back.ProportionAt(0.05)) {
		t.Errorf("read back: C_0.1 %v, C_0 %v, C_0.05 %v (want 1, 0.5, NaN: not listed)", back.ProportionAt(0.1), back.ProportionAt(0), back.ProportionAt(0.05))
	}
}

func TestFlowGraphStrictlyAdjacent(t *testing.T) {
	// On a 2×2 grid every configuration is a strictly-adjacent neighbour of every other
	// (diagonals too), so each node points to all nodes no worse than itself.
	table := [2][2]float64{{1, 2}, {3, 4}}
	l := landscapeOf(grid(t, 2, 2), false, func(c space.Config) float64 { return table[c[0]][c[1]] })
	g, err := FlowGraph(context.Background(), l, space.StrictlyAdjacent)
	if err != nil {
		t.Fatal(err)
	}
	for u := range g.N() {
		var want []int32
		for v := range int32(g.N()) {
			if int(v) != u && l.Objective[v] <= l.Objective[u] {
				want = append(want, v)
			}
		}
		if got := g.Successors(u); !slices.Equal(got, want) {
			t.Errorf("node %d: successors %v, want %v", u, got, want)
		}
	}
	if g.Edges() != 6 {
		t.Errorf("%d edges, want 6", g.Edges())
	}
}

// TestFractionOfOptimumUndefinedWithoutAPositiveOptimum: a ratio to an optimum of 0, or
// between values of either sign, means nothing; it is left out (null in JSON) with a note
// that says why, and everything else is still computed.
func TestFractionOfOptimumUndefinedWithoutAPositiveOptimum(t *testing.T) {
	for _, tc := range []struct {
		name string
		l    *Landscape
		note string    // in FractionNote; "" when the fraction is defined
		want []float64 // MinimaFractions when defined
	}{
		{"optimum 0", line(t, false, 0, 1, 2, 0.5), "the optimum is 0", nil},
		{"optimum 0 maximised", line(t, true, 0, -1, -2, -0.5), "the optimum is 0", nil},
		{"negative values", line(t, false, -10, -5, -9.96), "negative values (as low as -10)", nil},
		{"mixed signs maximised", line(t, true, 4, -1, 2), "negative values (as low as -1)", nil},
		// a zero beside a positive optimum is a fraction of 0, not an undefined one
		{"zero beside a positive optimum maximised", line(t, true, 5, 1, 0, 0), "", []float64{1, 0}},
		{"positive", line(t, false, 2, 3, 4, 1), "", []float64{1, 0.5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := Analyze(context.Background(), tc.l, Options{Neighbourhood: space.Adjacent})
			if err != nil {
				t.Fatal(err)
			}
			if tc.note == "" {
				if a.FractionNote != "" || !slices.Equal(a.MinimaFractions, tc.want) {
					t.Errorf("fractions %v, note %q; want %v and no note", a.MinimaFractions, a.FractionNote, tc.want)
				}
				return
			}
			if a.MinimaFractions != nil || !strings.Contains(a.FractionNote, tc.note) {
				t.Errorf("fractions %v, note %q; want none and a note saying %q", a.MinimaFractions, a.FractionNote, tc.note)
			}
			if a.Minima == 0 || len(a.Proportions) != 16 || a.ProportionAt(0) <= 0 || a.ProportionAt(0.15) > 1 {
				t.Errorf("the rest of the analysis is missing: %+v", a)
			}
			b, err := json.Marshal(a)
			if err != nil {
				t.Fatal(err)
			}
			var keys map[string]json.RawMessage
			if err := json.Unmarshal(b, &keys); err != nil {
				t.Fatal(err)
			}
			if string(keys["minima_fraction_of_optimum"]) != "null" || !strings.Contains(string(keys["fraction_of_optimum_note"]), tc.note) {
				t.Errorf("JSON %s: want the fractions null and the note", b)
			}
		})
	}
}
