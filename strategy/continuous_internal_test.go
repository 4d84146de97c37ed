package strategy

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

// Table III of seed 000, read column by column: basin hopping Powell at 25, COBYLA from 50
// (SLSQP from 800 replaced by COBYLA), temperature 0.1 below 400 and 1.0 from 400; dual
// annealing COBYLA at 25, Powell from 50. Budgets between columns take the lower one.
func TestContinuousTableIIIDefaults(t *testing.T) {
	cases := []struct {
		budget   int
		bhMethod string
		bhTemp   float64
		daMethod string
		note     string // why the row is there
	}{
		{10, "powell", 0.1, "cobyla", "below the first column"},
		{25, "powell", 0.1, "cobyla", ""},
		{35, "powell", 0.1, "cobyla", "a method comes from the nearer column on a log scale"},
		{36, "cobyla", 0.1, "powell", ""},
		{49, "cobyla", 0.1, "powell", ""},
		{50, "cobyla", 0.1, "powell", ""},
		{283, "cobyla", 0.1 + 0.9*math.Log2(283.0/200), "powell", "a temperature is interpolated on log budget"},
		{400, "cobyla", 1.0, "powell", ""},
		{800, "cobyla", 1.0, "powell", "SLSQP substituted"},
		{1600, "cobyla", 1.0, "powell", ""},
		{5000, "cobyla", 1.0, "powell", "above the last column"},
		{0, "cobyla", 1.0, "powell", "no budget: the last column"},
	}
	for _, c := range cases {
		if m := tableIII(c.budget, bhMethodTable); m != c.bhMethod {
			t.Errorf("basin hopping budget %d: method %s, want %s", c.budget, m, c.bhMethod)
		}
		if v := tableIII(c.budget, bhTempTable); math.Abs(v-c.bhTemp) > 1e-12 {
			t.Errorf("basin hopping budget %d: temperature %v, want %v", c.budget, v, c.bhTemp)
		}
		if m := tableIII(c.budget, daMethodTable); m != c.daMethod {
			t.Errorf("dual annealing budget %d: method %s, want %s", c.budget, m, c.daMethod)
		}
	}
}

// The Gamma sampler has the right mean and variance (both equal the shape) for shapes below
// and above 1, the latter through the boost the former uses.
func TestGammaRandMoments(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, shape := range []float64{0.117, 0.5, 1, 3.5} {
		const n = 200000
		sum, sq := 0.0, 0.0
		for range n {
			x := gammaRand(r, shape)
			sum += x
			sq += x * x
		}
		mean := sum / n
		variance := sq/n - mean*mean
		if math.Abs(mean-shape) > 0.02*max(shape, 0.5) || math.Abs(variance-shape) > 0.06*max(shape, 0.5) {
			t.Errorf("shape %v: mean %.4f, variance %.4f; want both %v", shape, mean, variance, shape)
		}
	}
}

// The visiting distribution is Tsallis' for q_v: a Student t with (3-q_v)/(q_v-1) degrees
// of freedom scaled by T^(1/(3-q_v))/sqrt(3-q_v). For q_v = 2 that is a Cauchy distribution
// of scale T (quartiles at ±T); its quartiles are checked at a low temperature, where no
// step wraps around the cube, and at the default q_v a high temperature spreads the
// moves uniformly over the cube.
func TestVisitingDistribution(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const n = 100000
	v := newVisitor(2)
	steps := make([]float64, n)
	for i := range steps {
		steps[i] = studentT(r, v.nu) * math.Pow(0.001, 1/(3-v.qv)) / math.Sqrt(3-v.qv)
	}
	sort.Float64s(steps)
	if q1, q3 := steps[n/4], steps[3*n/4]; math.Abs(q1+0.001) > 5e-5 || math.Abs(q3-0.001) > 5e-5 {
		t.Errorf("q_v 2, T 0.001: quartiles %.6f, %.6f; want -0.001, 0.001 (Cauchy of scale T)", q1, q3)
	}
	v = newVisitor(daVisit)
	var bins [10]int
	for range n {
		x := v.move(r, 0.3, daInitialTemp)
		if !(x >= 0 && x < 1) {
			t.Fatalf("move left the cube: %v", x)
		}
		bins[int(x*10)]++
	}
	for i, b := range bins {
		if math.Abs(float64(b)-n/10) > 0.05*n/10 {
			t.Errorf("T %v: bin %d holds %d of %d moves, not uniform", float64(daInitialTemp), i, b, n)
		}
	}
	if x := v.move(r, 0.3, 1e-12); math.Abs(x-0.3) > 1e-3 {
		t.Errorf("T 1e-12: moved from 0.3 to %v", x)
	}
}

// The generalized acceptance: improvements and failure-to-failure moves always, failures
// from a success never, and for a loss the probability (1 - (1-q_a) d/T)^(1/(1-q_a)),
// zero once the bracket is not positive.
func TestGeneralizedAcceptance(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	inf := math.Inf(1)
	for _, c := range []struct {
		cur, next float64
		want      bool
	}{{2, 1, true}, {inf, inf, true}, {inf, 3, true}, {2, inf, false}, {1, 2, false}} {
		if got := gsaAccept(r, c.cur, c.next, 0.1, -5); got != c.want {
			t.Errorf("%v -> %v at T 0.1: %v, want %v", c.cur, c.next, got, c.want)
		}
	}
	// loss 10% at T 1, q_a -5: (1 - 6*0.1)^(1/6) = 0.4^(1/6) = 0.8584
	const n = 100000
	acc := 0
	for range n {
		if gsaAccept(r, 10, 11, 1, -5) {
			acc++
		}
	}
	if p := float64(acc) / n; math.Abs(p-math.Pow(0.4, 1.0/6)) > 0.01 {
		t.Errorf("acceptance rate %.4f, want %.4f", p, math.Pow(0.4, 1.0/6))
	}
}

// Table III gives values at seven budgets; between them numbers are interpolated on the
// logarithm of the budget (floats linearly, integer sizes geometrically) and other values
// come from the nearer column.
func TestTableIIIInterpolatesBetweenColumns(t *testing.T) {
	floats := [7]float64{1, 1, 1, 1, 0.7, 0.1, 0.1}
	ints := [7]int{8, 10, 20, 40, 80, 128, 320}
	bools := [7]bool{true, false, false, false, true, true, true}
	for _, c := range []struct {
		budget int
		f      float64
		i      int
		b      bool
	}{
		{1, 1, 8, true},
		{25, 1, 8, true},
		{200, 1, 40, false},
		{282, 1 - 0.3*math.Log2(1.41), 56, false}, // just below halfway (log scale) between 200 and 400: 40 * 1.41 = 56.4
		{300, 1 - 0.3*math.Log2(1.5), 60, true},
		{400, 0.7, 80, true},
		{600, 0.7 - 0.6*math.Log2(1.5), 105, true}, // 80 * 1.6^0.585 = 105.0
		{1600, 0.1, 320, true},
		{100000, 0.1, 320, true},
		{0, 0.1, 320, true},
	} {
		if f := tableIII(c.budget, floats); math.Abs(f-c.f) > 0.001 {
			t.Errorf("budget %d: float %v, want %v", c.budget, f, c.f)
		}
		if i := tableIII(c.budget, ints); i != c.i {
			t.Errorf("budget %d: int %d, want %d", c.budget, i, c.i)
		}
		if b := tableIII(c.budget, bools); b != c.b {
			t.Errorf("budget %d: bool %v, want %v", c.budget, b, c.b)
		}
	}
	// a size that is 0 in one column is interpolated linearly
	if v := tableIII(35, [7]int{0, 10, 10, 10, 10, 10, 10}); v != 5 {
		t.Errorf("from 0: %d", v)
	}
	want := "by budget 1 up to 200, 0.7 at 400, 0.1 from 800 (and without a budget); interpolated between columns, linearly in log budget"
	if d := tableIIIDoc(floats); d != want {
		t.Errorf("doc %q, want %q", d, want)
	}
	if d := tableIIIDoc([7]int{5, 5, 5, 5, 5, 5, 5}); d != "5" {
		t.Errorf("doc of a constant row %q", d)
	}
}
