package space_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ktune/ktune/expr"
	"github.com/ktune/ktune/format/t1"
	"github.com/ktune/ktune/space"
)

func convolution(t testing.TB) *space.Space {
	t.Helper()
	d, err := t1.ReadFile("../testdata/t1/benchmark_hub/convolution_milo.json")
	if err != nil {
		t.Fatal(err)
	}
	s, err := d.Space()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func all(s *space.Space) []space.Config {
	out := make([]space.Config, s.Len())
	for i := range out {
		out[i] = s.At(i, nil)
	}
	return out
}

// bruteNeighbours scans the whole space: the definition, which Neighbours must not need.
func bruteNeighbours(s *space.Space, every []space.Config, c space.Config, n space.Neighbourhood) []space.Config {
	var out []space.Config
	for _, x := range every {
		diff, far := 0, false
		for p := range c {
			d := x[p] - c[p]
			if d != 0 {
				diff++
			}
			if d > 1 || d < -1 {
				far = true
			}
		}
		switch {
		case diff == 0:
		case n == space.Hamming && diff == 1,
			n == space.Adjacent && diff == 1 && !far,
			n == space.StrictlyAdjacent && !far:
			out = append(out, x)
		}
	}
	return out
}

func sorted(cs []space.Config) []space.Config {
	slices.SortFunc(cs, func(a, b space.Config) int { return slices.Compare(a, b) })
	return cs
}

func TestNeighboursMatchTheirDefinition(t *testing.T) {
	s := convolution(t)
	every := all(s)
	r := rand.New(rand.NewPCG(7, 7))
	for _, n := range []space.Neighbourhood{space.Hamming, space.Adjacent, space.StrictlyAdjacent} {
		total := 0
		for k := 0; k < 150; k++ {
			c := s.Sample(r, nil)
			got := sorted(s.NeighbourList(c, n))
			want := sorted(bruteNeighbours(s, every, c, n))
			if !slices.EqualFunc(got, want, func(a, b space.Config) bool { return slices.Equal(a, b) }) {
				t.Fatalf("%v neighbours of %s: got %d, want %d", n, s.Format(c), len(got), len(want))
			}
			total += len(got)
		}
		if total == 0 {
			t.Fatalf("%v: no neighbours at all", n)
		}
	}
}

func TestSampleIsUniform(t *testing.T) {
	d, err := t1.ReadFile("../testdata/t1/ktt/coulomb_sum_3d_space.json")
	if err != nil {
		t.Fatal(err)
	}
	s, err := d.Space()
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 1))
	counts := make([]int, s.Len())
	const draws = 210 * 400
	for k := 0; k < draws; k++ {
		i, ok := s.Index(s.Sample(r, nil))
		if !ok {
			t.Fatal("sampled an invalid configuration")
		}
		counts[i]++
	}
	// Pearson chi-square with 209 degrees of freedom: mean 209, sd ~20.4.
	exp := float64(draws) / float64(s.Len())
	chi := 0.0
	for _, c := range counts {
		chi += (float64(c) - exp) * (float64(c) - exp) / exp
	}
	if chi > 209+5*20.4 {
		t.Fatalf("chi-square %.1f: sampling is not uniform", chi)
	}
	idx := s.SampleIndices(r, 50)
	seen := map[int]bool{}
	for _, i := range idx {
		if seen[i] || i < 0 || i >= s.Len() {
			t.Fatalf("SampleIndices gave %v", idx)
		}
		seen[i] = true
	}
}

func TestFromConfigsIndexesExactlyTheGivenOnes(t *testing.T) {
	s := convolution(t)
	r := rand.New(rand.NewPCG(3, 4))
	var picked []space.Config
	for _, i := range s.SampleIndices(r, 500) {
		picked = append(picked, s.At(i, nil))
	}
	picked = append(picked, picked[0].Clone()) // a duplicate is ignored
	e, err := space.FromConfigs(s.Params(), picked)
	if err != nil {
		t.Fatal(err)
	}
	if e.Len() != 500 {
		t.Fatalf("Len %d, want 500", e.Len())
	}
	for _, c := range picked {
		if !e.Contains(c) {
			t.Fatalf("%s missing", s.Format(c))
		}
	}
	for i := 0; i < e.Len(); i++ {
		if j, ok := e.Index(e.At(i, nil)); !ok || j != i {
			t.Fatalf("round trip %d -> %d", i, j)
		}
	}
	for _, nb := range e.NeighbourList(picked[0], space.Hamming) {
		if !s.Contains(nb) || !e.Contains(nb) {
			t.Fatalf("neighbour %s outside the recorded set", s.Format(nb))
		}
	}
}

func TestTypedParametersAndEmptySpaces(t *testing.T) {
	params := []space.Param{
		{Name: "method", Values: []space.Value{space.StringValue("global"), space.StringValue("shared")}},
		{Name: "unroll", Values: []space.Value{space.BoolValue(false), space.BoolValue(true)}},
		{Name: "scale", Values: []space.Value{space.FloatValue(0.5), space.FloatValue(1), space.FloatValue(2)}},
	}
	s, err := expr.NewSpace(params, []string{"method == 'shared' or not unroll", "scale * 2 >= 1.5 or method != 'global'"})
	if err != nil {
		t.Fatal(err)
	}
	// (global,F,1) (global,F,2) (shared,*,*)=6: 8
	if s.Len() != 8 {
		t.Fatalf("Len %d, want 8", s.Len())
	}
	if _, err := expr.NewSpace(params, []string{"scale > 5"}); err == nil {
		t.Fatal("an empty space was accepted")
	}
	if _, err := expr.NewSpace(append(params, params[0]), nil); err == nil {
		t.Fatal("a duplicate parameter was accepted")
	}
	// a value listed twice would give two configurations of one key; a zero Value has no
	// kind; values of two kinds (True and 1, as recordings may hold) stay apart
	for _, bad := range [][]space.Value{
		{space.IntValue(1), space.IntValue(1), space.IntValue(2)},
		{space.StringValue("a"), space.StringValue("a")},
		{space.IntValue(1), {}},
	} {
		if _, err := expr.NewSpace([]space.Param{{Name: "x", Values: bad}}, nil); err == nil {
			t.Errorf("values %v were accepted", bad)
		}
	}
	if s, err := expr.NewSpace([]space.Param{{Name: "x", Values: []space.Value{space.BoolValue(true), space.IntValue(1)}}}, nil); err != nil || s.Len() != 2 {
		t.Errorf("True and 1: %v", err)
	}
	c, err := s.ConfigOf([]space.Value{space.StringValue("shared"), space.BoolValue(true), space.IntValue(2)})
	if err != nil || !s.Contains(c) {
		t.Fatalf("ConfigOf with an int for a float value: %v %v", c, err)
	}
}

func TestHugeProductIsIndexedWithoutEnumeration(t *testing.T) {
	d, err := t1.ReadFile("../testdata/t1/bat/FFT-CAFF.json")
	if err != nil {
		t.Fatal(err)
	}
	s, err := d.Space()
	if err != nil {
		t.Fatal(err)
	}
	if s.Product() < 1e11 || float64(s.Len()) != s.Product() {
		t.Fatalf("product %v len %d", s.Product(), s.Len())
	}
	if s.MemoryBytes() > 1<<16 {
		t.Fatalf("independent parameters cost %d bytes", s.MemoryBytes())
	}
	i := s.Len() - 12345
	if j, ok := s.Index(s.At(i, nil)); !ok || j != i {
		t.Fatal("round trip failed")
	}
}

func TestMemoryIsAFewWordsPerValidConfiguration(t *testing.T) {
	d, err := t1.ReadFile("../testdata/t1/bat/hotspot-CAFF.json")
	if err != nil {
		t.Fatal(err)
	}
	s, err := d.Space()
	if err != nil {
		t.Fatal(err)
	}
	perConfig := float64(s.MemoryBytes()) / float64(s.Len())
	if perConfig > 16 || math.IsNaN(perConfig) {
		t.Fatalf("%.1f bytes per valid configuration", perConfig)
	}
}

func BenchmarkNeighbours(b *testing.B) {
	s := convolution(b)
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []space.Neighbourhood{space.Hamming, space.Adjacent, space.StrictlyAdjacent} {
		b.Run(n.String(), func(b *testing.B) {
			count := 0
			for b.Loop() {
				s.Neighbours(s.Sample(r, nil), n, func(space.Config) { count++ })
			}
		})
	}
}

func BenchmarkIndex(b *testing.B) {
	s := convolution(b)
	c := s.At(s.Len()/2, nil)
	for b.Loop() {
		s.Index(c)
	}
}

// twoGroups is a space of two independent restricted groups (x,y) and (u,v,w) plus a free
// parameter f: three groups in all.
func twoGroups(t testing.TB) *space.Space {
	t.Helper()
	ints := func(name string, vs ...int64) space.Param {
		p := space.Param{Name: name}
		for _, v := range vs {
			p.Values = append(p.Values, space.IntValue(v))
		}
		return p
	}
	params := []space.Param{
		ints("x", 1, 2, 4, 8), ints("u", 1, 2, 3, 4, 5), ints("y", 1, 2, 4, 8),
		ints("f", 0, 1, 2), ints("v", 0, 1, 2), ints("w", 1, 2),
	}
	s, err := expr.NewSpace(params, []string{"x * y <= 16", "u + v * w <= 6 and u != v"})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Groups()) != 3 {
		t.Fatalf("groups %v, want 3", s.Groups())
	}
	return s
}

func TestMovesBrokenAndSampleGroupInASpaceOfGroups(t *testing.T) {
	s := twoGroups(t)
	r := rand.New(rand.NewPCG(3, 4))
	dims := make([]int, len(s.Params()))
	for p, par := range s.Params() {
		dims[p] = len(par.Values)
	}
	product := 1
	for _, d := range dims {
		product *= d
	}
	// Every configuration of the product, valid or not.
	every := make([]space.Config, 0, product)
	for k := 0; k < product; k++ {
		c := make(space.Config, len(dims))
		for p, rest := 0, k; p < len(dims); p++ {
			c[p], rest = rest%dims[p], rest/dims[p]
		}
		every = append(every, c)
	}
	brokenSeen := map[int]bool{}
	for _, c := range every {
		broken := s.Broken(c, nil)
		if (len(broken) == 0) != s.Contains(c) {
			t.Fatalf("%v: Broken %v but Contains %v", c, broken, s.Contains(c))
		}
		for _, g := range broken {
			brokenSeen[g] = true
			// Redrawing a broken group repairs it and leaves the other parameters alone.
			d := slices.Clone(c)
			s.SampleGroup(r, g, d)
			for p := range d {
				if s.GroupOf(p) != g && d[p] != c[p] {
					t.Fatalf("SampleGroup(%d) changed parameter %d of %v", g, p, c)
				}
			}
			if slices.Contains(s.Broken(d, nil), g) {
				t.Fatalf("SampleGroup(%d) left %v broken", g, d)
			}
		}
		// Moves: exactly the one-parameter changes that keep that parameter's group valid.
		for p := range c {
			for _, n := range []space.Neighbourhood{space.Hamming, space.Adjacent} {
				var got []space.Config
				s.Moves(c, p, n, func(m space.Config) { got = append(got, slices.Clone(m)) })
				var want []space.Config
				for w := range dims[p] {
					if w == c[p] || (n == space.Adjacent && (w < c[p]-1 || w > c[p]+1)) {
						continue
					}
					m := slices.Clone(c)
					m[p] = w
					if !slices.Contains(s.Broken(m, nil), s.GroupOf(p)) {
						want = append(want, m)
					}
				}
				if !slices.EqualFunc(sorted(got), sorted(want), func(a, b space.Config) bool { return slices.Equal(a, b) }) {
					t.Fatalf("%v moves of parameter %d from %v: got %v, want %v", n, p, c, got, want)
				}
			}
		}
		// GroupMoves: the Hamming moves of each of the group's parameters, in order.
		for g := range s.Groups() {
			var got, want []space.Config
			var order []int
			s.GroupMoves(c, g, func(p int, m space.Config) {
				got = append(got, slices.Clone(m))
				order = append(order, p)
			})
			for p := range c {
				if s.GroupOf(p) == g {
					s.Moves(c, p, space.Hamming, func(m space.Config) { want = append(want, slices.Clone(m)) })
				}
			}
			if !slices.EqualFunc(got, want, func(a, b space.Config) bool { return slices.Equal(a, b) }) || !slices.IsSorted(order) {
				t.Fatalf("GroupMoves(%d) from %v: got %v (parameters %v), want %v", g, c, got, order, want)
			}
		}
	}
	if !brokenSeen[s.GroupOf(0)] || !brokenSeen[s.GroupOf(1)] || brokenSeen[s.GroupOf(3)] {
		t.Fatalf("broken groups seen %v", brokenSeen)
	}
	// SampleGroupWithin draws what SampleGroup draws from the same stream, with its
	// weighted distance, and stops past the limit.
	weight := []float64{1, 0.5, 0.25, 2, 1, 3}
	for k := range 200 {
		c := every[k*7%len(every)]
		for g := range s.Groups() {
			a, b := slices.Clone(c), slices.Clone(c)
			s.SampleGroup(rand.New(rand.NewPCG(uint64(k), 9)), g, a)
			d, ok := s.SampleGroupWithin(rand.New(rand.NewPCG(uint64(k), 9)), g, c, b, weight, math.Inf(1))
			want := 0.0
			for p := range c {
				want += math.Abs(float64(a[p]-c[p])) * weight[p]
			}
			if !ok || !slices.Equal(a, b) || math.Abs(d-want) > 1e-12 {
				t.Fatalf("SampleGroupWithin(%d) from %v: %v %v %v, SampleGroup %v distance %v", g, c, b, d, ok, a, want)
			}
			if want > 0 {
				if _, ok := s.SampleGroupWithin(rand.New(rand.NewPCG(uint64(k), 9)), g, c, b, weight, want/2); ok {
					t.Fatalf("SampleGroupWithin(%d) from %v: distance %v within %v", g, c, want, want/2)
				}
			}
		}
	}
	// SampleGroup redraws uniformly: every valid (x,y) pair turns up.
	g := s.GroupOf(0)
	pairs := map[[2]int]int{}
	c := s.Sample(r, nil)
	for range 4000 {
		s.SampleGroup(r, g, c)
		pairs[[2]int{c[0], c[2]}]++
	}
	if len(pairs) != 13 { // x*y <= 16 over {1,2,4,8}^2: 4+4+3+2
		t.Fatalf("%d distinct (x,y) pairs, want 13", len(pairs))
	}
	for k, n := range pairs { // about 308 each, sd about 17
		if n < 230 || n > 390 {
			t.Fatalf("pair %v drawn %d times of 4000, want about 308", k, n)
		}
	}
}

// TestFromConfigsOfAProductLargerThanAnInt: a sparse recording of 16 parameters of 20
// values each (20^16 > MaxInt64) indexes its configurations, though the product cannot be.
func TestFromConfigsOfAProductLargerThanAnInt(t *testing.T) {
	params := make([]space.Param, 16)
	for p := range params {
		params[p].Name = fmt.Sprintf("p%d", p)
		for v := range 20 {
			params[p].Values = append(params[p].Values, space.IntValue(int64(v+1)))
		}
	}
	if _, err := space.NewCompiled(params, nil); !errors.Is(err, space.ErrTooLarge) {
		t.Fatalf("the product: %v, want ErrTooLarge", err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	var picked []space.Config
	for range 200 {
		c := make(space.Config, len(params))
		for p := range c {
			c[p] = r.IntN(20)
		}
		picked = append(picked, c)
	}
	// a neighbour of the first under Hamming: one parameter changed
	nb := picked[0].Clone()
	nb[7] = (nb[7] + 3) % 20
	picked = append(picked, nb)
	e, err := space.FromConfigs(params, picked)
	if err != nil {
		t.Fatal(err)
	}
	if e.Len() != len(picked) || e.Product() != math.Pow(20, 16) {
		t.Fatalf("Len %d, product %g; want %d, 20^16", e.Len(), e.Product(), len(picked))
	}
	for i := range e.Len() {
		if j, ok := e.Index(e.At(i, nil)); !ok || j != i {
			t.Fatalf("round trip %d -> %d", i, j)
		}
	}
	if got := e.NeighbourList(picked[0], space.Hamming); len(got) != 1 || !slices.Equal(got[0], nb) {
		t.Errorf("Hamming neighbours of the first configuration %v, want %v", got, nb)
	}
}

// Restrictions given to New without a compile function are an error that says which to
// give (it panicked); without restrictions none is needed.
func TestNewWithoutACompilerRefusesRestrictions(t *testing.T) {
	params := []space.Param{{Name: "a", Values: []space.Value{space.IntValue(1), space.IntValue(2)}}}
	if _, err := space.New(params, []string{"a > 1"}, nil); err == nil {
		t.Error("restrictions with a nil compile function built a space")
	} else if !strings.Contains(err.Error(), "expr.CompileRestriction") {
		t.Errorf("the error does not say what to give: %v", err)
	}
	s, err := space.New(params, nil, nil)
	if err != nil || s.Len() != 2 {
		t.Errorf("no restrictions and no compile function: %v", err)
	}
	if s, err := space.New(params, []string{"a > 1"}, expr.CompileRestriction); err != nil || s.Len() != 1 {
		t.Errorf("with expr.CompileRestriction: %v", err)
	}
}

// restrictionOf is a restriction of one's own, as NewCompiled takes them, reading the
// parameters at params.
type restrictionOf struct{ params []int }

func (r restrictionOf) Source() string               { return "mine" }
func (r restrictionOf) Params() []int                { return r.params }
func (r restrictionOf) Holds(b *space.Bindings) bool { return true }

// A compiled restriction that is nil, or reads what is no parameter, is an error that
// names it, not a panic in the construction.
func TestNewCompiledRefusesRestrictionsItCannotEvaluate(t *testing.T) {
	params := []space.Param{{Name: "a", Values: []space.Value{space.IntValue(1), space.IntValue(2)}}}
	for _, tc := range []struct {
		r    space.Restriction
		want string
	}{
		{nil, "restriction 0 is nil"},
		{restrictionOf{[]int{0, 3}}, `restriction 0 "mine" reads parameter 3, but there are 1 parameters`},
		{restrictionOf{[]int{-1}}, `restriction 0 "mine" reads parameter -1`},
	} {
		if _, err := space.NewCompiled(params, []space.Restriction{tc.r}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error saying %q", tc.r, err, tc.want)
		}
	}
	if s, err := space.NewCompiled(params, []space.Restriction{restrictionOf{[]int{0}}}); err != nil || s.Len() != 2 {
		t.Errorf("a restriction of the one parameter: %v", err)
	}
}

func TestSampleIndicesOfNoneIsEmpty(t *testing.T) {
	s, err := space.New([]space.Param{{Name: "a", Values: []space.Value{space.IntValue(1), space.IntValue(2)}}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, -1} {
		if got := s.SampleIndices(r, n); len(got) != 0 {
			t.Errorf("SampleIndices(%d) = %v, want none", n, got)
		}
	}
}
