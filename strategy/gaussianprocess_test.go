package strategy

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The Gaussian process interpolates a smooth function it was fitted to, is unsure away
// from its data, and prefers a long length scale for a dimension the function ignores.
func TestGaussianProcessFitsAKnownFunction(t *testing.T) {
	f := func(a, b float64) float64 { return math.Sin(6*a) + 0.5*a*a } // b is irrelevant
	var x, y []float64
	for i := range 12 {
		a := float64(i) / 11
		b := float64((i*7)%12) / 11
		x = append(x, a, b)
		y = append(y, f(a, b))
	}
	g := newGPData(x, 2, y)
	h, ok := gpSelect(g, []float64{0.05, 0.1, 0.2, 0.4, 0.8}, []float64{1e-6, 1e-3}, true, 0)
	if !ok {
		t.Fatal("no fit")
	}
	m := g.model(h)
	work := make([]float64, m.n)
	for _, a := range []float64{0.13, 0.42, 0.77} {
		mu, sd := m.predict([]float64{a, 0.5}, work)
		if want := f(a, 0.5); math.Abs(mu-want) > 0.05 {
			t.Errorf("prediction at %.2f: %.4f, want %.4f (sd %.4f)", a, mu, want, sd)
		}
	}
	_, near := m.predict([]float64{x[0], x[1]}, work)
	_, far := m.predict([]float64{3, 3}, work)
	if !(near < 0.05*far) {
		t.Errorf("sd at a training point %.4g, far away %.4g: want far >> near", near, far)
	}
	if !(h.ls[1] > 2*h.ls[0]) {
		t.Errorf("length scales %v: the ignored dimension should get the longer one", h.ls)
	}
	// A per-parameter length scale must pay for itself: ll(ARD) - ll(shared) is what the
	// refinement gained, and a larger ard_gain keeps the shared scale.
	shared, _ := gpSelect(g, []float64{0.05, 0.1, 0.2, 0.4, 0.8}, []float64{1e-6, 1e-3}, false, 0)
	llShared, _, _ := g.logLik(shared)
	llARD, _, _ := g.logLik(h)
	gain := llARD - llShared
	if !(gain > 0) {
		t.Fatalf("the per-parameter scales gained %v nats", gain)
	}
	kept, _ := gpSelect(g, []float64{0.05, 0.1, 0.2, 0.4, 0.8}, []float64{1e-6, 1e-3}, true, gain+1)
	if kept.ls[0] != kept.ls[1] || kept.ls[0] != shared.ls[0] {
		t.Errorf("with ard_gain above the gain (%.2f nats) the scales are %v, want the shared %v", gain, kept.ls, shared.ls)
	}
}

func TestExpectedImprovement(t *testing.T) {
	// at mu == best with sd 1, EI = phi(0) = 0.3989
	if got := expectedImprovement(0, 1, 0, 0); math.Abs(got-0.398942) > 1e-5 {
		t.Errorf("EI = %v", got)
	}
	if got := expectedImprovement(2, 0, 1, 0); got != 0 {
		t.Errorf("EI without uncertainty above the best = %v", got)
	}
	if a, b := expectedImprovement(0, 1, 0, 0), expectedImprovement(0, 2, 0, 0); !(b > a) {
		t.Errorf("EI must grow with the uncertainty: %v, %v", a, b)
	}
}

// The model's target keeps the fitness order whatever its sign: times (positive), negated
// maximised objectives (negative) and mixed signs.
func TestFitnessTransformKeepsTheOrder(t *testing.T) {
	inf := math.Inf(1)
	for _, fit := range [][]float64{{0.5, 2, 8, inf}, {-8, -2, -0.5, inf}, {-1, 0, 3, inf}} {
		tr := fitnessTransform(fit)
		for i := 1; i < 3; i++ {
			if !(tr(fit[i-1]) < tr(fit[i])) {
				t.Errorf("%v: transform %v -> %v, %v -> %v is not increasing", fit, fit[i-1], tr(fit[i-1]), fit[i], tr(fit[i]))
			}
		}
	}
}

// A model grown point by point (extend) predicts what a model fitted to all the points at
// once does, also past the room it was made with.
func TestGaussianProcessGrowsByRows(t *testing.T) {
	const d, n0, n = 3, 5, 40
	rng := rand.New(rand.NewPCG(1, 2))
	var x, y []float64
	for range n {
		p := []float64{rng.Float64(), rng.Float64(), rng.Float64()}
		x = append(x, p...)
		y = append(y, math.Sin(4*p[0])+p[1]*p[2])
	}
	h := gpHyper{ls: []float64{0.3, 0.5, 0.8}, noise: 1e-3}
	grown := newGPData(x[:n0*d], d, y[:n0]).model(h)
	for i := n0; i < n; i++ {
		if !grown.extend(x[i*d : (i+1)*d]) {
			t.Fatalf("extend failed at point %d", i)
		}
	}
	grown.setTargets(y)
	whole := newGPData(x, d, y).model(h)
	w1, w2 := make([]float64, n), make([]float64, n)
	for range 20 {
		p := []float64{rng.Float64(), rng.Float64(), rng.Float64()}
		m1, s1 := grown.predict(p, w1)
		m2, s2 := whole.predict(p, w2)
		if math.Abs(m1-m2) > 1e-9 || math.Abs(s1-s2) > 1e-9 {
			t.Errorf("at %v: grown %.12f ± %.12f, fitted at once %.12f ± %.12f", p, m1, s1, m2, s2)
		}
	}
	// a duplicate point without noise makes the covariance singular: refused, model kept
	h.noise = 0
	m := newGPData(x[:n0*d], d, y[:n0]).model(h)
	if m.extend(x[:d]) || m.n != n0 {
		t.Errorf("extending by a duplicate point without noise: accepted (n = %d)", m.n)
	}
}

// sdBound never falls below the standard deviation it bounds.
func TestGaussianProcessSDBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var x, y []float64
	for range 30 {
		x = append(x, rng.Float64(), rng.Float64())
		y = append(y, rng.Float64())
	}
	for _, noise := range []float64{1e-6, 1e-3, 1e-1} {
		m := newGPData(x, 2, y).model(gpHyper{ls: []float64{0.2, 0.4}, noise: noise})
		work := make([]float64, m.n)
		tight := 0
		for range 500 {
			p := []float64{rng.Float64(), rng.Float64()}
			m.predictMean(p, work)
			b := m.sdBound(work)
			sd := m.predictSD(work)
			if sd > b {
				t.Fatalf("noise %g at %v: sd %.17g above its bound %.17g", noise, p, sd, b)
			}
			if b < 2*sd {
				tight++
			}
		}
		if tight < 200 {
			t.Errorf("noise %g: the bound is within 2x of the sd in only %d of 500 points (want 200)", noise, tight)
		}
	}
}
