package minimize

import (
	"math"
)

// Powell minimises f on the unit cube from x0 by Powell's conjugate-direction method
// (Powell 1964): each sweep minimises along every direction of a set, starting with the
// coordinate axes, by a bounded line search; the net move of the sweep then becomes a new
// direction, replacing the one along which f fell most, unless Powell's test says that
// would make the set nearly dependent. The line search is Brent's method (golden sections
// with parabolic steps) over the whole segment of the line inside the cube, started at the
// current point, so a move never leaves the cube and never makes the point worse. Points
// outside the cube are never evaluated: the extrapolated point of Powell's test is clamped
// into it. It converges when a sweep lowers f by a relative amount below s.FTol, or moves
// nowhere.
func Powell(f Objective, x0 []float64, s Settings) (Result, error) {
	x := start(x0)
	d := len(x)
	s = s.withDefaults(d)
	t := newTracker(f, d, s.MaxEvals)
	return t.result(powell(t, x, s))
}

func powell(t *tracker, x []float64, s Settings) error {
	d := len(x)
	fx, err := t.eval(x)
	if err != nil {
		return err
	}
	dirs := make([][]float64, d)
	for i := range dirs {
		dirs[i] = make([]float64, d)
		dirs[i][i] = 1
	}
	x0 := make([]float64, d)
	move := make([]float64, d)
	xe := make([]float64, d)
	for {
		copy(x0, x)
		f0 := fx
		// the direction with the largest decrease; from a failure to a success counts as
		// the largest possible
		big, bigDrop := -1, 0.0
		for i, u := range dirs {
			before := fx
			if fx, err = lineSearch(t, x, fx, u, s.XTol); err != nil {
				return err
			}
			var drop float64
			switch {
			case !(fx < before):
			case math.IsInf(before, 1):
				drop = math.Inf(1)
			default:
				drop = before - fx
			}
			if drop > bigDrop || big < 0 {
				big, bigDrop = i, drop
			}
		}
		moved := false
		for i := range x {
			move[i] = x[i] - x0[i]
			moved = moved || move[i] != 0
		}
		if !moved || !decreased(f0, fx, s.FTol) {
			return nil
		}
		// Powell's test on the extrapolated point 2x - x0: adopt the sweep's net move as a
		// direction only when f keeps falling along it and the direction of largest
		// decrease was not what made the sweep good.
		for i := range xe {
			xe[i] = x[i] + move[i]
		}
		fe, err := t.eval(xe)
		if err != nil {
			return err
		}
		if !(fe < f0) {
			continue
		}
		replace := true
		if finite(f0, fx, fe, bigDrop) {
			a, b := f0-fx-bigDrop, f0-fe
			replace = 2*(f0-2*fx+fe)*a*a < bigDrop*b*b
		}
		if !replace {
			continue
		}
		if fx, err = lineSearch(t, x, fx, move, s.XTol); err != nil {
			return err
		}
		last := len(dirs) - 1
		dirs[big], dirs[last] = dirs[last], dirs[big]
		copy(dirs[last], move)
	}
}

func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return false
		}
	}
	return true
}

// golden is the golden-section fraction (3 - sqrt 5) / 2.
var golden = (3 - math.Sqrt(5)) / 2

// lineSearch minimises f along x + a u for the a that keep the point in the cube, starting
// from a = 0 where f is fx, with Brent's method to an interval of length tol (in x). It
// moves x (in place) to the best point found and returns its value, never above fx.
func lineSearch(t *tracker, x []float64, fx float64, u []float64, tol float64) (float64, error) {
	lo, hi := math.Inf(-1), math.Inf(1)
	norm := 0.0
	for i, ui := range u {
		norm += ui * ui
		switch {
		case ui > 0:
			lo = max(lo, -x[i]/ui)
			hi = min(hi, (1-x[i])/ui)
		case ui < 0:
			lo = max(lo, (1-x[i])/ui)
			hi = min(hi, -x[i]/ui)
		}
	}
	if norm == 0 || !(hi > lo) {
		return fx, nil
	}
	lo, hi = min(lo, 0), max(hi, 0)
	tol /= math.Sqrt(norm) // in units of a
	base := append([]float64(nil), x...)
	pt := make([]float64, len(x))
	phi := func(a float64) (float64, error) {
		for i := range pt {
			pt[i] = base[i] + a*u[i]
		}
		return t.eval(pt)
	}
	a, fa, err := brent(phi, lo, hi, fx, tol)
	if a != 0 {
		for i := range x {
			x[i] = base[i] + a*u[i]
		}
		clamp(x)
	}
	return fa, err
}

// brent minimises phi on [lo, hi], which holds 0 where phi is f0, by Brent's method: a
// parabola through the three best points when its vertex is well inside the interval and
// all three values are finite, a golden section of the larger part otherwise. It returns
// the best abscissa and its value; on an error, the best so far with the error.
func brent(phi func(float64) (float64, error), lo, hi, f0, tol float64) (float64, float64, error) {
	const eps = 1e-10 // relative resolution of the abscissa
	x, w, v := 0.0, 0.0, 0.0
	fx, fw, fv := f0, f0, f0
	step, prev := 0.0, 0.0 // the last step and the one before it
	for {
		mid := (lo + hi) / 2
		tol1 := eps*math.Abs(x) + tol/3
		tol2 := 2 * tol1
		if math.Abs(x-mid) <= tol2-(hi-lo)/2 {
			return x, fx, nil
		}
		parabolic := false
		if math.Abs(prev) > tol1 && finite(fx, fw, fv) {
			r := (x - w) * (fx - fv)
			q := (x - v) * (fx - fw)
			p := (x-v)*q - (x-w)*r
			q = 2 * (q - r)
			if q > 0 {
				p = -p
			} else {
				q = -q
			}
			// accept the parabola's vertex only when it is inside the interval and the
			// step is less than half the step before last (else it is not converging)
			if math.Abs(p) < math.Abs(0.5*q*prev) && p > q*(lo-x) && p < q*(hi-x) {
				prev, step = step, p/q
				parabolic = true
				if u := x + step; u-lo < tol2 || hi-u < tol2 {
					step = math.Copysign(tol1, mid-x)
				}
			}
		}
		if !parabolic {
			if x >= mid {
				prev = lo - x
			} else {
				prev = hi - x
			}
			step = golden * prev
		}
		u := x + step
		if math.Abs(step) < tol1 {
			u = x + math.Copysign(tol1, step)
		}
		u = min(max(u, lo), hi)
		fu, err := phi(u)
		if err != nil {
			return x, fx, err
		}
		if fu <= fx {
			if u >= x {
				lo = x
			} else {
				hi = x
			}
			v, fv = w, fw
			w, fw = x, fx
			x, fx = u, fu
			continue
		}
		if u < x {
			lo = u
		} else {
			hi = u
		}
		if fu <= fw || w == x {
			v, fv = w, fw
			w, fw = u, fu
		} else if fu <= fv || v == x || v == w {
			v, fv = u, fu
		}
	}
}
