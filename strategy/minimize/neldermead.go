package minimize

import (
	"math"
)

// NelderMead minimises f on the unit cube from x0 by the Nelder-Mead simplex method
// (Nelder and Mead 1965) with the standard coefficients: reflection 1, expansion 2,
// contraction 1/2, shrink 1/2. The initial simplex is x0 and x0 + s.Step along each axis
// (minus s.Step where plus would leave the cube). Reflected and expanded points are
// clamped into the cube, the bound-handling of SciPy's bounded Nelder-Mead; contractions
// and shrinks stay inside by convexity. Ties and failures (+Inf) are settled by comparison
// only. It converges when every vertex lies within s.XTol (max norm) of the best and their
// values within s.FTol (relative) of its value, or, when a discontinuity such as the edge
// of a failed region keeps the values apart, once the simplex has shrunk below s.XTol/1000.
func NelderMead(f Objective, x0 []float64, s Settings) (Result, error) {
	x := start(x0)
	d := len(x)
	s = s.withDefaults(d)
	t := newTracker(f, d, s.MaxEvals)
	return t.result(nelderMead(t, x, s))
}

func nelderMead(t *tracker, x0 []float64, s Settings) error {
	d := len(x0)
	n := d + 1
	pts := make([][]float64, n)
	val := make([]float64, n)
	for i := range pts {
		pts[i] = append([]float64(nil), x0...)
		if i > 0 {
			if k := i - 1; x0[k]+s.Step <= 1 {
				pts[i][k] += s.Step
			} else {
				pts[i][k] -= s.Step
			}
		}
		var err error
		if val[i], err = t.eval(pts[i]); err != nil {
			return err
		}
	}
	centroid := make([]float64, d)
	xr := make([]float64, d)
	xe := make([]float64, d)
	xc := make([]float64, d)
	// along returns c + a (p - c) in dst, clamped into the cube.
	along := func(dst, c, p []float64, a float64) []float64 {
		for i := range dst {
			dst[i] = c[i] + a*(p[i]-c[i])
		}
		clamp(dst)
		return dst
	}
	replaceWorst := func(p []float64, f float64) {
		copy(pts[n-1], p)
		val[n-1] = f
	}
	for {
		sortSimplex(pts, val)
		if simplexConverged(pts, val, s) {
			return nil
		}
		for i := range centroid {
			c := 0.0
			for _, p := range pts[:n-1] {
				c += p[i]
			}
			centroid[i] = c / float64(n-1)
		}
		worst := pts[n-1]
		fr, err := t.eval(along(xr, centroid, worst, -1))
		if err != nil {
			return err
		}
		switch {
		case fr < val[0]:
			fe, err := t.eval(along(xe, centroid, worst, -2))
			if err != nil {
				return err
			}
			if fe < fr {
				replaceWorst(xe, fe)
			} else {
				replaceWorst(xr, fr)
			}
			continue
		case fr < val[n-2]:
			replaceWorst(xr, fr)
			continue
		case fr < val[n-1]: // outside contraction, towards the reflected point
			fc, err := t.eval(along(xc, centroid, xr, 0.5))
			if err != nil {
				return err
			}
			if fc <= fr {
				replaceWorst(xc, fc)
				continue
			}
		default: // inside contraction, towards the worst point
			fc, err := t.eval(along(xc, centroid, worst, 0.5))
			if err != nil {
				return err
			}
			if fc < val[n-1] {
				replaceWorst(xc, fc)
				continue
			}
		}
		// shrink towards the best vertex
		for i := 1; i < n; i++ {
			along(pts[i], pts[0], pts[i], 0.5)
			if val[i], err = t.eval(pts[i]); err != nil {
				return err
			}
		}
	}
}

// sortSimplex orders the vertices from best to worst; equal values keep their order (an
// insertion sort, stable and comparison-only, so +Inf values are fine).
func sortSimplex(pts [][]float64, val []float64) {
	for i := 1; i < len(val); i++ {
		for j := i; j > 0 && val[j] < val[j-1]; j-- {
			val[j], val[j-1] = val[j-1], val[j]
			pts[j], pts[j-1] = pts[j-1], pts[j]
		}
	}
}

func simplexConverged(pts [][]float64, val []float64, s Settings) bool {
	size := 0.0
	for _, p := range pts[1:] {
		for i, v := range p {
			size = max(size, math.Abs(v-pts[0][i]))
		}
	}
	if size > s.XTol {
		return false
	}
	if size <= s.XTol/1000 {
		return true
	}
	best, worst := val[0], val[len(val)-1]
	if worst == best {
		return true
	}
	return !math.IsInf(worst, 1) && worst-best <= s.FTol*math.Abs(best)+1e-20
}
