package strategy

import (
	"math"
	"slices"
)

// A Gaussian-process regression model for the Bayesian optimisation strategy (bayes.go):
// Matérn 5/2 covariance over encoded configurations, constant prior mean, standardised
// targets, length scale and noise chosen by the log marginal likelihood over a small grid.
// Inputs are points of [0, 1]^d; the model keeps them row-major in one slice so that a
// prediction touches memory in order.

// gpModel is a fitted Gaussian process. Training points can be added one at a time
// (extend): the Cholesky factor then grows by a row, O(n^2), instead of being computed
// anew, O(n^3); the targets are set (setTargets) after the points.
type gpModel struct {
	d      int       // input dimension
	x      []float64 // n points of dimension d, row-major
	n      int
	inv    []float64 // 1 / length scale^2 per dimension (automatic relevance determination)
	noise  float64
	l      []float64 // lower Cholesky factor of K + noise*I, row i at l[i*stride:]
	stride int
	alpha  []float64 // (K + noise*I)^-1 y
	mean   float64   // of the raw targets
	scale  float64   // their standard deviation
}

// gpHyper are a Gaussian process's hyperparameters.
type gpHyper struct {
	ls    []float64
	noise float64
}

// matern52 is the Matérn 5/2 correlation at squared scaled distance r2.
func matern52(r2 float64) float64 {
	r := math.Sqrt(5 * r2)
	return (1 + r + r*r/3) * math.Exp(-r)
}

// scaledSqDist is the squared distance between a and b with dimension i weighted by inv[i].
func scaledSqDist(a, b, inv []float64) float64 {
	s := 0.0
	for i := range a {
		d := a[i] - b[i]
		s += d * d * inv[i]
	}
	return s
}

func sqDist(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		d := a[i] - b[i]
		s += d * d
	}
	return s
}

// gpData holds training data prepared for fitting: standardised targets and the squared
// differences of every pair of points per dimension, shared by every hyperparameter tried.
type gpData struct {
	x           []float64
	d, n        int
	y           []float64 // standardised
	mean, scale float64
	diff        []float64 // per pair i > j (in order), d squared differences
	l           []float64 // scratch for the Cholesky factor
}

func newGPData(x []float64, d int, y []float64) *gpData {
	n := len(y)
	g := &gpData{x: x[:n*d], d: d, n: n, y: make([]float64, n), l: make([]float64, n*n)}
	g.mean, g.scale = meanStd(y)
	if g.scale <= 1e-12 {
		g.scale = 1
	}
	for i, v := range y {
		g.y[i] = (v - g.mean) / g.scale
	}
	g.diff = make([]float64, 0, n*(n-1)/2*d)
	for i := range n {
		for j := range i {
			a, b := x[i*d:(i+1)*d], x[j*d:(j+1)*d]
			for k := range d {
				t := a[k] - b[k]
				g.diff = append(g.diff, t*t)
			}
		}
	}
	return g
}

// logLik factors the covariance for h into g.l and returns the log marginal likelihood
// (without the constant) and alpha; ok is false when the factorisation failed.
func (g *gpData) logLik(h gpHyper) (ll float64, alpha []float64, ok bool) {
	n, d := g.n, g.d
	inv := make([]float64, d)
	for k, v := range h.ls {
		inv[k] = 1 / (v * v)
	}
	p := 0
	for i := range n {
		for j := range i {
			r2 := 0.0
			for k := range d {
				r2 += g.diff[p+k] * inv[k]
			}
			p += d
			g.l[i*n+j] = matern52(r2)
		}
		g.l[i*n+i] = 1 + h.noise
	}
	return g.factor()
}

// logLikOf is logLik for the correlations corr of the pairs i > j (in order) and noise.
func (g *gpData) logLikOf(corr []float64, noise float64) (float64, bool) {
	n := g.n
	p := 0
	for i := range n {
		copy(g.l[i*n:i*n+i], corr[p:p+i])
		p += i
		g.l[i*n+i] = 1 + noise
	}
	ll, _, ok := g.factor()
	return ll, ok
}

// factor factors the covariance logLik or logLikOf left in g.l's lower triangle in place
// and returns the log marginal likelihood and alpha.
func (g *gpData) factor() (ll float64, alpha []float64, ok bool) {
	n := g.n
	if !cholesky(g.l, n) {
		return 0, nil, false
	}
	alpha = cholSolve(g.l, n, g.y)
	ll = -0.5 * dot(g.y, alpha)
	for i := range n {
		ll -= math.Log(g.l[i*n+i])
	}
	return ll, alpha, true
}

// model returns the fitted model for h, or nil when the factorisation fails. The model
// has room for a quarter more points before extend reallocates its factor.
func (g *gpData) model(h gpHyper) *gpModel {
	_, alpha, ok := g.logLik(h)
	if !ok {
		return nil
	}
	n := g.n
	stride := n + n/4 + 8
	m := &gpModel{d: g.d, n: n, x: append(make([]float64, 0, stride*g.d), g.x...), l: restride(g.l, n, n, stride),
		stride: stride, alpha: alpha, mean: g.mean, scale: g.scale, noise: h.noise}
	m.inv = make([]float64, g.d)
	for k, v := range h.ls {
		m.inv[k] = 1 / (v * v)
	}
	return m
}

// extend adds training point p to the model, keeping its hyperparameters: the factor gains
// a row. It returns false, leaving the model as it was, when the new point makes the
// covariance numerically singular (a duplicate point with little noise). The targets
// (setTargets) must be set again before the model predicts.
func (g *gpModel) extend(p []float64) bool {
	n := g.n
	if n+1 > g.stride {
		stride := 2*g.stride + 8
		g.l, g.stride = restride(g.l, g.stride, n, stride), stride
	}
	row := g.l[n*g.stride : n*g.stride+n+1]
	for j := range n {
		row[j] = matern52(scaledSqDist(p, g.x[j*g.d:(j+1)*g.d], g.inv))
	}
	// solve L v = k in place: the new row of the factor is (v, sqrt(1 + noise - v.v))
	forwardSolve(g.l, g.stride, row[:n])
	dd := 1 + g.noise - dot(row[:n], row[:n])
	if !(dd > 1e-10) {
		return false
	}
	row[n] = math.Sqrt(dd)
	g.x = append(g.x, p...)
	g.n++
	return true
}

// setTargets standardises the raw targets y, one per training point in order, and solves
// for the weights of the posterior mean.
func (g *gpModel) setTargets(y []float64) {
	g.mean, g.scale = meanStd(y)
	if g.scale <= 1e-12 {
		g.scale = 1
	}
	a := g.alpha[:0]
	for _, v := range y {
		a = append(a, (v-g.mean)/g.scale)
	}
	forwardSolve(g.l, g.stride, a)
	backSolve(g.l, g.stride, a)
	g.alpha = a
}

// gpSelect chooses hyperparameters by the marginal likelihood: first one length scale for
// every dimension from scales and a noise from noises, then, when ard is set, each
// dimension's length scale in turn from multiples of it (the largest makes a dimension
// irrelevant). It returns the hyperparameters and false when no factorisation succeeded.
func gpSelect(g *gpData, scales, noises []float64, ard bool, ardGain float64) (gpHyper, bool) {
	best, bestLL, found := gpHyper{}, math.Inf(-1), false
	// With one length scale the covariances depend on the plain squared distances, and
	// the noises tried only change the diagonal: the correlations are computed once per
	// scale.
	n, d := g.n, g.d
	r2 := make([]float64, 0, n*(n-1)/2)
	for p := 0; p < len(g.diff); p += d {
		t := 0.0
		for _, v := range g.diff[p : p+d] {
			t += v
		}
		r2 = append(r2, t)
	}
	corr := make([]float64, len(r2))
	for _, s := range scales {
		inv := 1 / (s * s)
		for i, v := range r2 {
			corr[i] = matern52(v * inv)
		}
		for _, nz := range noises {
			if ll, ok := g.logLikOf(corr, nz); ok && ll > bestLL {
				ls := make([]float64, d)
				for k := range ls {
					ls[k] = s
				}
				best, bestLL, found = gpHyper{ls: ls, noise: nz}, ll, true
			}
		}
	}
	if !found || !ard || g.d < 2 {
		return best, found
	}
	for k := range g.d {
		base := best.ls[k]
		for _, f := range []float64{0.25, 0.5, 2, 4, 100} {
			h := gpHyper{ls: slices.Clone(best.ls), noise: best.noise}
			h.ls[k] = base * f
			if ll, _, ok := g.logLik(h); ok && ll > bestLL+ardGain {
				best, bestLL = h, ll
			}
		}
	}
	return best, true
}

// predict returns the posterior mean and standard deviation at point p, in the units of
// the targets. work must have room for n values.
func (g *gpModel) predict(p []float64, work []float64) (mu, sd float64) {
	mu = g.predictMean(p, work)
	return mu, g.predictSD(work)
}

// predictMean returns the posterior mean at p and leaves p's covariances with the training
// points in work, for predictSD.
func (g *gpModel) predictMean(p []float64, work []float64) float64 {
	k := work[:g.n]
	for i := range g.n {
		k[i] = matern52(scaledSqDist(p, g.x[i*g.d:(i+1)*g.d], g.inv))
	}
	return g.mean + g.scale*dot(k, g.alpha)
}

// sdBound returns an upper bound of predictSD from the covariances predictMean left in
// work, in O(n): the standard deviation given the most correlated training point alone
// (conditioning on the others only lowers it), widened by a hair against rounding.
func (g *gpModel) sdBound(work []float64) float64 {
	kmax := 0.0
	for _, k := range work[:g.n] {
		kmax = max(kmax, k)
	}
	v := max(1-kmax*kmax/(1+g.noise), 1e-12)
	return g.scale * math.Sqrt(v) * (1 + 1e-9)
}

// predictSD returns the posterior standard deviation at the point whose covariances
// predictMean left in work; it overwrites work. It costs O(n^2), the mean O(n).
func (g *gpModel) predictSD(work []float64) float64 {
	k := work[:g.n]
	// v = L^-1 k, in place; variance 1 - v.v
	forwardSolve(g.l, g.stride, k)
	v := 1 - dot(k, k)
	if v < 1e-12 {
		v = 1e-12
	}
	return g.scale * math.Sqrt(v)
}

// cholesky factors the symmetric positive definite matrix a (lower triangle read,
// row-major n x n) in place into its lower Cholesky factor; false when a is not
// numerically positive definite (the caller then tries a larger noise).
func cholesky(a []float64, n int) bool {
	for i := range n {
		for j := 0; j <= i; j++ {
			s := a[i*n+j]
			ri, rj := a[i*n:i*n+j], a[j*n:j*n+j]
			for k := range ri {
				s -= ri[k] * rj[k]
			}
			if i == j {
				if !(s > 0) {
					return false
				}
				a[i*n+i] = math.Sqrt(s)
			} else {
				a[i*n+j] = s / a[j*n+j]
			}
		}
	}
	return true
}

// cholSolve solves (L L^T) x = b for the lower Cholesky factor l (row-major n x n).
func cholSolve(l []float64, n int, b []float64) []float64 {
	x := append([]float64(nil), b...)
	forwardSolve(l, n, x)
	backSolve(l, n, x)
	return x
}

// forwardSolve solves L v = x in place for the lower triangular L whose row i starts at
// l[i*stride], len(x) being its size.
func forwardSolve(l []float64, stride int, x []float64) {
	for i := range x {
		s := x[i]
		for j, lij := range l[i*stride : i*stride+i] {
			s -= lij * x[j]
		}
		x[i] = s / l[i*stride+i]
	}
}

// backSolve solves L^T v = x in place, L as for forwardSolve.
func backSolve(l []float64, stride int, x []float64) {
	for i := len(x) - 1; i >= 0; i-- {
		s := x[i]
		for j := i + 1; j < len(x); j++ {
			s -= l[j*stride+i] * x[j]
		}
		x[i] = s / l[i*stride+i]
	}
}

// restride copies the first n rows of the lower triangular matrix l, row i at
// l[i*from], into a new one with room for stride rows of stride values.
func restride(l []float64, from, n, stride int) []float64 {
	out := make([]float64, stride*stride)
	for i := range n {
		copy(out[i*stride:i*stride+i+1], l[i*from:i*from+i+1])
	}
	return out
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func meanStd(y []float64) (m, s float64) {
	if len(y) == 0 {
		return 0, 0
	}
	for _, v := range y {
		m += v
	}
	m /= float64(len(y))
	for _, v := range y {
		s += (v - m) * (v - m)
	}
	return m, math.Sqrt(s / float64(len(y)))
}

// normCDF and normPDF are the standard normal distribution's.
func normCDF(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }
func normPDF(z float64) float64 { return math.Exp(-0.5*z*z) / math.Sqrt(2*math.Pi) }

// expectedImprovement of a normal prediction N(mu, sd^2) below best - xi (minimising; xi
// is an exploration margin). The model-based strategies (bayes, smac) share it.
func expectedImprovement(mu, sd, best, xi float64) float64 {
	imp := best - mu - xi
	if sd <= 1e-12 {
		return max(imp, 0)
	}
	z := imp / sd
	return imp*normCDF(z) + sd*normPDF(z)
}
