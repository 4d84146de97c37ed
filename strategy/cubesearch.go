package strategy

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/strategy/minimize"
)

// What basin hopping and dual annealing (seed 000 section III-C2) share: the objective
// their local minimisers see on the unit cube, and the minimiser option.
//
// The cube has one coordinate per parameter with more than one value (a parameter with a
// single value has nothing to search, and a minimiser would spend line searches and
// simplex vertices on it). A point maps to a configuration by seed 000's mapping
// (popToConfig); one that the restrictions forbid is evaluated as the nearest valid
// configuration (popRepair), remembered (when the product of the value counts fits in 64
// bits) so that the same point always gets the same answer. A configuration evaluated
// before is answered from this run's own record: it costs no budget and never reaches the
// session, but it still counts as a call of the objective against the minimiser's cap, and
// a minimisation whose recent calls found nothing new is ended. Because such answers never
// reach the session, the run itself ends once its record holds every configuration of the
// space (under stochastic fitness the session's budget is not bounded by the space, so it
// would never say so), and it checks the context on every answer, cached or not.

// minimiserNames are the local minimisers the continuous strategies offer.
var minimiserNames = []string{"powell", "neldermead", "cobyla"}

// minimiserOption documents the method option; def says how the default follows from
// Table III.
func minimiserOption(def string) Option {
	return Option{Name: "method", Kind: Kind{canonical: canonicalMinimiser}, Default: def,
		Doc: "local minimiser on the unit cube: powell (conjugate directions with bounded " +
			"Brent line searches), neldermead (simplex) or cobyla (linear interpolation in a " +
			"trust region); see package strategy/minimize"}
}

// minimiserFrom parses the method option, left unset when the user did not set it (Run
// then takes Table III's default for the budget). Case, '-' and '_' are ignored, so
// SciPy's spellings (Powell, Nelder-Mead, COBYLA) work. The gradient methods seed 000
// lists (SLSQP, CG, L-BFGS-B) are rejected with the reason: the mapped objective is
// piecewise constant, so its gradient is zero wherever it exists.
func minimiserFrom(opts Options) (optional[string], error) {
	v, set := opts["method"]
	if !set {
		return optional[string]{}, nil
	}
	s, _ := v.(string)
	name := strings.NewReplacer("-", "", "_", "").Replace(strings.ToLower(strings.TrimSpace(s)))
	switch name {
	case "powell", "neldermead", "cobyla":
		return optional[string]{name, true}, nil
	case "slsqp", "cg", "lbfgsb", "bfgs", "tnc":
		return optional[string]{}, fmt.Errorf("option method: %s needs gradients, which the "+
			"piecewise-constant mapped objective does not have; want one of %s", s, strings.Join(minimiserNames, ", "))
	}
	// as Options.Choice says it: "" quoted, null (from a JSON file) as JSON writes it
	return optional[string]{}, fmt.Errorf("option method: %s is not one of %s", valueText(v), strings.Join(minimiserNames, ", "))
}

// canonicalMinimiser writes the method option as minimiserFrom reads it: lower case,
// without '-' and '_' (Nelder-Mead is neldermead).
func canonicalMinimiser(o Options, _ string) (any, error) {
	m, err := minimiserFrom(o)
	return m.v, err
}

// errStalled ends a local minimisation whose recent calls only revisited configurations
// evaluated before; errSpent ends the run when nothing is left to evaluate.
var (
	errStalled = errors.New("local minimisation only revisits evaluated configurations")
	errSpent   = errors.New("nothing left to evaluate")
)

// cubeSearch is one run of a continuous strategy: the problem, the cube's coordinates and
// what this run has evaluated.
type cubeSearch struct {
	ctx   context.Context
	p     Problem
	sp    *space.Space
	r     *rand.Rand
	sizes []int // values per parameter
	free  []int // parameters with more than one value: the cube's coordinates
	xtol  float64
	fit   map[int]float64         // fitness by space index, of everything evaluated
	fixed map[uint64]space.Config // repaired configuration by mapped one (product index)
	full  []float64               // a point with one coordinate per parameter
	cfg   space.Config            // buffer for the mapped configuration
	fresh int                     // configurations evaluated for the first time
	radix bool                    // product index fits in uint64, so fixed may be used
}

func newCubeSearch(ctx context.Context, p Problem) *cubeSearch {
	sp := p.Space()
	s := &cubeSearch{ctx: ctx, p: p, sp: sp, r: p.Rand(), sizes: popSizes(sp),
		fit:   make(map[int]float64, min(max(p.Remaining(), 0), sp.Len(), maxPrealloc)),
		fixed: map[uint64]space.Config{}, radix: sp.Product() < 1<<62}
	largest := 1
	for i, n := range s.sizes {
		if n > 1 {
			s.free = append(s.free, i)
			largest = max(largest, n)
		}
	}
	// half the narrowest cell: a finer step rarely reaches another configuration
	s.xtol = 0.5 / float64(largest)
	s.full = make([]float64, len(s.sizes))
	for i := range s.full {
		s.full[i] = 0.5
	}
	return s
}

// dim is the number of cube coordinates (at least 1, so a space of one configuration
// still has a point to evaluate).
func (s *cubeSearch) dim() int { return max(len(s.free), 1) }

// config returns the valid configuration that point x of the cube stands for.
func (s *cubeSearch) config(x []float64) space.Config {
	for k, i := range s.free {
		s.full[i] = x[k]
	}
	c := popToConfig(s.sizes, s.full, s.cfg)
	s.cfg = c
	if s.sp.Contains(c) {
		return c
	}
	if !s.radix {
		return popRepair(s.sp, s.sizes, c, s.r)
	}
	key := uint64(0)
	for i, n := range s.sizes {
		key = key*uint64(n) + uint64(c[i])
	}
	if fc, ok := s.fixed[key]; ok {
		return append(c[:0], fc...)
	}
	popRepair(s.sp, s.sizes, c, s.r)
	s.fixed[key] = c.Clone()
	return c
}

// value returns the fitness of the configuration x stands for, evaluating it when this
// run has not; fresh says it did. It returns errSpent once nothing is left to evaluate,
// the context's error once it is cancelled, and the session's errors as they are.
func (s *cubeSearch) value(x []float64) (f float64, fresh bool, err error) {
	if s.exhausted() {
		return math.Inf(1), false, errSpent
	}
	if err := s.ctx.Err(); err != nil {
		return math.Inf(1), false, err
	}
	c := s.config(x)
	idx, _ := s.sp.Index(c)
	if f, ok := s.fit[idx]; ok {
		return f, false, nil
	}
	if f, err = s.p.Evaluate(s.ctx, c); err != nil {
		return math.Inf(1), false, err
	}
	s.fit[idx] = f
	s.fresh++
	return f, true, nil
}

// startPoint returns a random point to start a local minimisation from: the first of up
// to d+1 random configurations that did not fail, evaluated as random sampling would, or
// a further random point when all of them failed. A minimiser started where everything
// fails sees a flat function and learns nothing; in spaces where most configurations
// fail this made the difference at small budgets.
func (s *cubeSearch) startPoint() ([]float64, error) {
	for try := 0; ; try++ {
		x := s.randomPoint()
		if try > s.dim() {
			return x, nil
		}
		f, _, err := s.value(x)
		if err != nil || !math.IsInf(f, 1) {
			return x, err
		}
	}
}

// randomPoint returns a point uniformly distributed over the cells of valid
// configurations, preferring (a few draws at most) one not evaluated yet.
func (s *cubeSearch) randomPoint() []float64 {
	var c space.Config
	for try := 0; try < 16; try++ {
		c = s.sp.Sample(s.r, c)
		idx, _ := s.sp.Index(c)
		if _, seen := s.fit[idx]; !seen {
			break
		}
	}
	x := make([]float64, s.dim())
	for k, i := range s.free {
		x[k] = (float64(c[i]) + s.r.Float64()) / float64(s.sizes[i])
	}
	if len(s.free) == 0 {
		x[0] = 0.5
	}
	return x
}

// Local minimisation settings, in cube units and calls of the objective.
const (
	// cubeStep is Nelder-Mead's initial simplex edge and COBYLA's initial trust radius
	// (its largest): half the cube, so the first moves reach other values of every
	// parameter. On the recorded spaces it did better than 0.1 and 0.25.
	cubeStep = 0.5
	// cubeCallsPerDim caps the calls of one minimisation at this many per coordinate
	// (plus one).
	cubeCallsPerDim = 100
	// cubeIdlePerDim ends a minimisation after this many calls per coordinate (plus one)
	// in a row that found no configuration not evaluated before.
	cubeIdlePerDim = 10
)

// minimise runs the named local minimiser from x0. It ends when the minimiser converges,
// after cubeCallsPerDim(d+1) calls, or after cubeIdlePerDim(d+1) calls in a row that found
// nothing new; the result is the best point it evaluated. Errors are errSpent or the
// session's.
func (s *cubeSearch) minimise(method string, x0 []float64) (minimize.Result, error) {
	d := s.dim()
	idle, idleMax := 0, cubeIdlePerDim*(d+1)
	obj := func(x []float64) (float64, error) {
		f, fresh, err := s.value(x)
		if err != nil {
			return f, err
		}
		if fresh {
			idle = 0
		} else if idle++; idle >= idleMax {
			return f, errStalled
		}
		return f, nil
	}
	set := minimize.Settings{MaxEvals: cubeCallsPerDim * (d + 1), Step: cubeStep, XTol: s.xtol, FTol: 1e-9}
	run := minimize.Powell
	switch method {
	case "neldermead":
		run = minimize.NelderMead
	case "cobyla":
		run = minimize.COBYLA
	}
	res, err := run(obj, x0, set)
	if errors.Is(err, errStalled) {
		err = nil
	}
	return res, err
}

// exhausted reports whether nothing is left to evaluate: the session has no budget left,
// or this run has evaluated every configuration, so anything it proposes is answered from
// its own record. Under deterministic fitness the session's Remaining already says the
// second; under stochastic fitness (repeats cost budget) only this run's record does.
func (s *cubeSearch) exhausted() bool {
	return s.p.Remaining() <= 0 || len(s.fit) >= s.sp.Len()
}

// end maps the error that ended a continuous strategy to what Run returns.
func end(err error) error {
	if errors.Is(err, errSpent) {
		return nil
	}
	return stopped(err)
}
