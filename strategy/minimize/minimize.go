// Package minimize holds derivative-free local minimisers for functions on the unit cube
// [0,1]^d: Powell's conjugate-direction method, the Nelder-Mead simplex method and a
// bound-constrained form of Powell's COBYLA (linear interpolation in a trust region).
//
// They are written for the continuous strategies of seed 000 (section III-C2), where the
// function is a tuning space seen through the unit-cube mapping: piecewise constant, with
// +Inf wherever a configuration failed. So every method
//   - evaluates only points inside the cube (the box is the only constraint),
//   - compares fitness values rather than subtracting them wherever one may be +Inf (NaN
//     from the objective is taken as +Inf), and
//   - stops on convergence (steps below Settings.XTol), at Settings.MaxEvals calls of the
//     objective, or at the first error the objective returns.
//
// Each returns the best point it evaluated, also when it stops early. The methods do not
// remember values: a caller whose function is expensive and piecewise constant (like
// ktune's strategies) caches them itself.
package minimize

import (
	"errors"
	"math"
)

// Objective is the function to minimise. It returns +Inf for a point that failed and may
// return an error to end the minimisation at once (the budget is spent, the context was
// cancelled); the minimiser then returns that error with the best point so far. It must not
// modify or keep x.
type Objective func(x []float64) (float64, error)

// Settings bound and tune a minimisation. A zero field takes its default.
type Settings struct {
	// MaxEvals caps the calls of the objective; default 200(d+1).
	MaxEvals int
	// Step is the initial scale of the search in the cube: the edge of Nelder-Mead's
	// initial simplex and COBYLA's initial trust-region radius (at most 0.5). Powell's line
	// searches span the whole cube and do not use it. Default 0.1.
	Step float64
	// XTol is the resolution in x: the final length of Powell's line-search intervals,
	// the simplex size at which Nelder-Mead stops and COBYLA's final trust-region radius.
	// Default 1e-6.
	XTol float64
	// FTol is the relative decrease below which Powell's sweep and the spread of values
	// below which Nelder-Mead's simplex count as converged; COBYLA does not use it.
	// Default 1e-10.
	FTol float64
}

func (s Settings) withDefaults(d int) Settings {
	if s.MaxEvals <= 0 {
		s.MaxEvals = 200 * (d + 1)
	}
	if !(s.Step > 0) {
		s.Step = 0.1
	}
	s.Step = min(s.Step, 1)
	if !(s.XTol > 0) {
		s.XTol = 1e-6
	}
	if !(s.FTol > 0) {
		s.FTol = 1e-10
	}
	return s
}

// Status says why a minimisation ended without an error.
type Status int

const (
	// Converged: the method's convergence test held.
	Converged Status = iota
	// EvalLimit: Settings.MaxEvals calls of the objective were made.
	EvalLimit
)

// String says why the minimisation ended: "converged" or "evaluation limit".
func (s Status) String() string {
	if s == EvalLimit {
		return "evaluation limit"
	}
	return "converged"
}

// Result is the outcome of a minimisation.
type Result struct {
	X      []float64 // the best point evaluated
	F      float64   // its value (+Inf when every point failed)
	Evals  int       // calls of the objective
	Status Status    // why it ended, when it ended without an error
}

// errLimit ends a method from inside when MaxEvals calls were made.
var errLimit = errors.New("minimize: evaluation limit")

// tracker calls the objective, counts the calls, enforces the cap and keeps the best point
// evaluated, so every method returns its best point however it ends.
type tracker struct {
	f     Objective
	max   int
	n     int
	bestX []float64
	bestF float64
}

func newTracker(f Objective, d, max int) *tracker {
	return &tracker{f: f, max: max, bestX: make([]float64, d), bestF: math.Inf(1)}
}

// eval returns f(x) for x in the cube (clamped, against rounding), +Inf for NaN, and
// errLimit once the cap is reached.
func (t *tracker) eval(x []float64) (float64, error) {
	if t.n >= t.max {
		return math.Inf(1), errLimit
	}
	clamp(x)
	t.n++
	v, err := t.f(x)
	if err != nil {
		return math.Inf(1), err
	}
	if math.IsNaN(v) {
		v = math.Inf(1)
	}
	if t.n == 1 || v < t.bestF {
		t.bestF = v
		copy(t.bestX, x)
	}
	return v, nil
}

// result ends a minimisation that stopped with err (nil when it converged).
func (t *tracker) result(err error) (Result, error) {
	r := Result{X: t.bestX, F: t.bestF, Evals: t.n}
	switch {
	case err == nil:
		r.Status = Converged
	case errors.Is(err, errLimit):
		r.Status = EvalLimit
		err = nil
	}
	return r, err
}

// clamp puts x into the cube in place; NaN goes to 0.
func clamp(x []float64) {
	for i, v := range x {
		switch {
		case v > 1:
			x[i] = 1
		case v >= 0:
		default: // negative or NaN
			x[i] = 0
		}
	}
}

// start copies x0 into a new point in the cube, checking its dimension.
func start(x0 []float64) []float64 {
	if len(x0) == 0 {
		panic("minimize: empty start point")
	}
	x := append([]float64(nil), x0...)
	clamp(x)
	return x
}

// decreased reports whether going from a to b is a decrease of more than the relative
// tolerance ftol; from +Inf to anything finite is, +Inf to +Inf is not, and no +Inf is
// subtracted.
func decreased(a, b, ftol float64) bool {
	if !(b < a) {
		return false
	}
	if math.IsInf(a, 1) {
		return true
	}
	return 2*(a-b) > ftol*(math.Abs(a)+math.Abs(b))+1e-20
}
