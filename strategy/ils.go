package strategy

import (
	"context"

	"github.com/ktune/ktune/space"
)

// Iterated local search (seed 000, section III-C1, after Lourenço et al.): after reaching a
// local minimum, perturb it and hill climb again, keeping the result when it is better;
// restart from a random configuration after a number of tries without improvement.

var firstILSFactory = Factory{
	Doc: "Iterated local search with first improvement (seed 000's FirstILS): hill climbs to " +
		"a local minimum, then repeatedly perturbs it (sets a fraction of its parameters to " +
		"random values) and hill climbs the result, moving when that is better; after a " +
		"number of tries without improvement it restarts from a random configuration. " +
		"Defaults follow seed 000's Table III for the budget.",
	Options: []Option{
		perturbationOption("1.0 below budget 800, 0.05 from 800 (seed 000 Table III, FirstILS)"),
		noImproveOption("25 below budget 800, 10 from 800 (seed 000 Table III, FirstILS)"),
		restartOption("false below budget 400, true from 400 (seed 000 Table III, FirstILS)"),
		neighbourhoodOption("Hamming below budget 800, adjacent from 800 (seed 000 Table III, FirstILS)"),
	},
	New: func(opts Options) (Strategy, error) { return newILS(opts, true) },
}

var bestILSFactory = Factory{
	Doc: "Iterated local search with best improvement (seed 000's BestILS): as FirstILS, but " +
		"each hill-climbing step moves to the best improving neighbour. Defaults follow seed " +
		"000's Table III for the budget.",
	Options: []Option{
		perturbationOption("1.0 below budget 800, 0.05 from 800 (seed 000 Table III, BestILS)"),
		noImproveOption("25 (seed 000 Table III, BestILS)"),
		neighbourhoodOption("adjacent below budget 50, Hamming from 50 to 799, adjacent from 800 " +
			"(seed 000 Table III, BestILS)"),
	},
	New: func(opts Options) (Strategy, error) { return newILS(opts, false) },
}

func perturbationOption(def string) Option {
	return Option{Name: "perturbation_size", Default: def,
		Doc: "fraction of the parameters, in (0, 1], set to other random values to perturb a " +
			"local minimum (at least one)"}
}

func noImproveOption(def string) Option {
	return Option{Name: "exit_after_no_improve", Default: def,
		Doc: "perturb-and-climb tries in a row without improvement after which the search " +
			"restarts from a random configuration (at least 1)"}
}

type ils struct {
	first     bool
	perturb   optional[float64]
	noImprove optional[int]
	restart   optional[bool]
	nb        optional[space.Neighbourhood]
}

func newILS(opts Options, first bool) (Strategy, error) {
	s := &ils{first: first}
	var err error
	if s.perturb, err = optFraction(opts, "perturbation_size"); err != nil {
		return nil, err
	}
	if s.noImprove, err = optInt(opts, "exit_after_no_improve", 1); err != nil {
		return nil, err
	}
	if first {
		if s.restart, err = optBool(opts, "restart"); err != nil {
			return nil, err
		}
	}
	if s.nb.v, s.nb.set, err = neighbourhoodFrom(opts); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *ils) Name() string {
	if s.first {
		return "firstils"
	}
	return "bestils"
}

func (s *ils) Run(ctx context.Context, p Problem) error {
	b := p.Budget()
	perturb := s.perturb.or(tableIII(b, [7]float64{1, 1, 1, 1, 1, 0.05, 0.05}))
	var noImprove int
	var nb space.Neighbourhood
	H, A := space.Hamming, space.Adjacent
	if s.first {
		noImprove = s.noImprove.or(tableIII(b, [7]int{25, 25, 25, 25, 25, 10, 10}))
		nb = s.nb.or(tableIII(b, [7]space.Neighbourhood{H, H, H, H, H, A, A}))
	} else {
		noImprove = s.noImprove.or(25)
		nb = s.nb.or(tableIII(b, [7]space.Neighbourhood{A, H, H, H, H, A, A}))
	}
	restart := s.restart.or(tableIII(b, [7]bool{false, false, false, false, true, true, true}))

	ls := newSearcher(ctx, p, nb)
	for !ls.exhausted() {
		// A fresh start: a random configuration climbed to a local minimum.
		c, f, err := ls.start()
		if err != nil {
			return stopped(err)
		}
		if c, f, err = ls.climb(c, f, s.first, restart); err != nil {
			return stopped(err)
		}
		for tries, stall := 0, 0; tries < noImprove && stall < stallLimit && !ls.exhausted(); {
			before := ls.fresh
			n := ls.perturb(c, perturb)
			fn, err := ls.eval(n)
			if err != nil {
				return stopped(err)
			}
			if n, fn, err = ls.climb(n, fn, s.first, restart); err != nil {
				return stopped(err)
			}
			if better(fn, f) {
				c, f, tries = n, fn, 0
			} else {
				tries++
			}
			if ls.fresh == before {
				stall++
			} else {
				stall = 0
			}
		}
	}
	return nil
}
