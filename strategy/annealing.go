package strategy

import (
	"context"
	"fmt"
	"math"

	"github.com/ktune/ktune/space"
)

// Simulated annealing (seed 000, section III-C1, after Kirkpatrick et al.): mutate the
// current configuration, optionally hill climb the mutant, and move to it when it is better
// or, with a probability that shrinks with the temperature, when it is worse.

var annealingFactory = Factory{
	Doc: "Simulated annealing as in seed 000: each step mutates the current configuration " +
		"(sets an explore fraction of its parameters to random values), optionally hill " +
		"climbs the mutant, and moves to it when it is no worse, or when worse with " +
		"probability exp(-relative loss / temperature); the temperature falls linearly to 0 " +
		"as the budget is used (by 0.5% a step without a budget). It restarts from a random " +
		"configuration when it only revisits evaluated configurations. Defaults follow seed " +
		"000's Table III for the budget.",
	Options: []Option{
		{Name: "explore", Kind: FloatKind(), Default: tableIIIDoc(annealingExplore) + " (seed 000 Table III, explore (p))",
			Doc: "fraction of the parameters, in (0, 1], set to other random values by each mutation (at least one)"},
		{Name: "hill_climber", Kind: ChoiceKind(annealingClimbers...), Default: tableIIIDoc(annealingClimber) + " (seed 000 Table III: None, RandomFirst)",
			Doc: "hill climbing of each mutant before the acceptance test: none, first (first " +
				"improvement over random-order neighbours) or best (best improvement)"},
		{Name: "temperature", Kind: FloatKind(), Default: "0.1 (not given by seed 000; ktune's choice)",
			Doc: "initial temperature, 0 or more: a mutant worse by a fraction d of the current " +
				"fitness is accepted with probability exp(-d / temperature); 0 accepts no worse move"},
		neighbourhoodOption("Hamming (seed 000 Table III, simulated annealing)"),
	},
	New: newAnnealing,
}

// Seed 000's Table III for simulated annealing.
var (
	annealingExplore = [7]float64{1, 1, 1, 1, 0.7, 0.1, 0.1}
	annealingClimber = [7]string{"none", "first", "first", "first", "first", "first", "first"}
)

// annealingClimbers are the values of hill_climber.
var annealingClimbers = []string{"none", "first", "best"}

type annealing struct {
	explore optional[float64]
	climber optional[string]
	temp    float64
	nb      optional[space.Neighbourhood]
	// from, when not nil, is the first walk's starting configuration (see startingAt)
	from space.Config
}

func newAnnealing(opts Options) (Strategy, error) {
	a := &annealing{}
	var err error
	if a.explore, err = optFraction(opts, "explore"); err != nil {
		return nil, err
	}
	if _, set := opts["hill_climber"]; set {
		a.climber.set = true
		if a.climber.v, err = opts.Choice("hill_climber", "first", annealingClimbers...); err != nil {
			return nil, err
		}
	}
	if a.temp, err = opts.Float("temperature", 0.1); err != nil {
		return nil, err
	}
	if !(a.temp >= 0) || math.IsInf(a.temp, 1) {
		return nil, fmt.Errorf("option temperature: %v is not a finite number >= 0", a.temp)
	}
	if a.nb.v, a.nb.set, err = neighbourhoodFrom(opts); err != nil {
		return nil, err
	}
	return a, nil
}

func (a *annealing) Name() string { return "annealing" }

// startingAt returns a copy of a whose first walk starts at c instead of a random
// configuration: the second stage of auto's hand-off.
func (a *annealing) startingAt(c space.Config) Strategy {
	b := *a
	b.from = c.Clone()
	return &b
}

// accept decides whether to move from fitness cur to fitness next at temperature t. A
// failed mutant (+Inf) is never taken over a success, a success always over a failure, and
// one failure over another is a free move; only two finite fitnesses are subtracted.
func accept(r interface{ Float64() float64 }, cur, next, t float64) bool {
	switch {
	case next <= cur: // includes +Inf over +Inf
		return true
	case math.IsInf(next, 1) || t <= 0:
		return false
	}
	loss := next - cur
	if cur != 0 {
		loss /= math.Abs(cur)
	}
	return r.Float64() < math.Exp(-loss/t)
}

func (a *annealing) Run(ctx context.Context, p Problem) error {
	b := p.Budget()
	explore := a.explore.or(tableIII(b, annealingExplore))
	climber := a.climber.or(tableIII(b, annealingClimber))
	s := newSearcher(ctx, p, a.nb.or(space.Hamming))
	if a.from != nil {
		s.from = a.from.Clone() // the walk changes its configuration in place
	}
	temperature := func(step int) float64 {
		if b > 0 {
			return a.temp * max(0, 1-float64(s.fresh)/float64(b))
		}
		return a.temp * math.Pow(0.995, float64(step))
	}
	climb := func(c space.Config, f float64) (space.Config, float64, error) {
		if climber == "none" {
			return c, f, nil
		}
		return s.climb(c, f, climber == "first", false)
	}
	step := 0
	for !s.exhausted() {
		c, f, err := s.start()
		if err != nil {
			return stopped(err)
		}
		if c, f, err = climb(c, f); err != nil {
			return stopped(err)
		}
		for stall := 0; stall < stallLimit && !s.exhausted(); step++ {
			before := s.fresh
			n := s.perturb(c, explore)
			fn, err := s.eval(n)
			if err != nil {
				return stopped(err)
			}
			if n, fn, err = climb(n, fn); err != nil {
				return stopped(err)
			}
			if accept(s.r, f, fn, temperature(step)) {
				c, f = n, fn
			}
			if s.fresh == before {
				stall++
			} else {
				stall = 0
			}
		}
	}
	return nil
}
