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
		"number of tries without improvement it restarts from a random configuration, and " +
		"also after a try that measured no new configuration where a repeat is measured " +
		"anew and costs budget (stochastic fitness). Defaults follow seed 000's Table III " +
		"for the budget.",
	Options: []Option{
		perturbationOption(tableIIIDoc(ilsPerturbation) + " (seed 000 Table III, FirstILS)"),
		noImproveOption(tableIIIDoc(firstILSNoImprove) + " (seed 000 Table III, FirstILS)"),
		restartOption(tableIIIDoc(firstILSRestart) + " (seed 000 Table III, FirstILS)"),
		neighbourhoodOption(tableIIIDoc(firstILSNeighbourhood) + " (seed 000 Table III, FirstILS)"),
	},
	New: func(opts Options) (Strategy, error) { return newILS(opts, true) },
}

var bestILSFactory = Factory{
	Doc: "Iterated local search with best improvement (seed 000's BestILS): as FirstILS, but " +
		"each hill-climbing step moves to the best improving neighbour (and restarts as " +
		"FirstILS does). Defaults follow seed 000's Table III for the budget.",
	Options: []Option{
		perturbationOption(tableIIIDoc(ilsPerturbation) + " (seed 000 Table III, BestILS)"),
		noImproveOption("25 (seed 000 Table III, BestILS)"),
		neighbourhoodOption(tableIIIDoc(bestILSNeighbourhood) + " (seed 000 Table III, BestILS)"),
	},
	New: func(opts Options) (Strategy, error) { return newILS(opts, false) },
}

func perturbationOption(def string) Option {
	return Option{Name: "perturbation_size", Kind: FloatKind(), Default: def,
		Doc: "fraction of the parameters, in (0, 1], set to other random values to perturb a " +
			"local minimum (at least one)"}
}

func noImproveOption(def string) Option {
	return Option{Name: "exit_after_no_improve", Kind: IntKind(), Default: def,
		Doc: "perturb-and-climb tries in a row without improvement after which the search " +
			"restarts from a random configuration (at least 1)"}
}

// Seed 000's Table III for the iterated local searches.
var (
	ilsPerturbation       = [7]float64{1, 1, 1, 1, 1, 0.05, 0.05}
	firstILSNoImprove     = [7]int{25, 25, 25, 25, 25, 10, 10}
	firstILSRestart       = [7]bool{false, false, false, false, true, true, true}
	firstILSNeighbourhood = [7]space.Neighbourhood{space.Hamming, space.Hamming, space.Hamming,
		space.Hamming, space.Hamming, space.Adjacent, space.Adjacent}
	bestILSNeighbourhood = [7]space.Neighbourhood{space.Adjacent, space.Hamming, space.Hamming,
		space.Hamming, space.Hamming, space.Adjacent, space.Adjacent}
)

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
	perturb := s.perturb.or(tableIII(b, ilsPerturbation))
	var noImprove int
	var nb space.Neighbourhood
	if s.first {
		noImprove = s.noImprove.or(tableIII(b, firstILSNoImprove))
		nb = s.nb.or(tableIII(b, firstILSNeighbourhood))
	} else {
		noImprove = s.noImprove.or(25)
		nb = s.nb.or(tableIII(b, bestILSNeighbourhood))
	}
	restart := s.restart.or(tableIII(b, firstILSRestart))

	return stopped(newSearcher(ctx, p, nb).iterate(iteration{first: s.first, restart: restart,
		perturb: perturb, patience: noImprove}))
}

// iteration configures searcher.iterate, the loop that seed 000's iterated local search and
// Kernel Tuner's greedy one share.
type iteration struct {
	first, restart bool    // the hill climber: first or best improvement, restart search
	perturb        float64 // fraction of the parameters a perturbation sets to random values
	// patience is how many perturb-and-climb tries without improving on the best local
	// minimum of the walk end it with a random restart; perEvaluation counts the
	// evaluations that cost budget instead of tries (searcher.spent, at least one per try).
	patience      int
	perEvaluation bool
	// walk perturbs the latest local minimum, improving or not (a random walk over local
	// minima); otherwise the best one of the walk is perturbed.
	walk bool
}

// iterate runs iterated local search until nothing is left to evaluate: climb a random
// configuration to a local minimum, then repeatedly perturb a local minimum and climb the
// result, starting again from a random configuration when it.patience runs out or the walk
// only revisits evaluated configurations (searcher.stalled: at once where repeats are
// measured anew and cost budget). It returns the error that ended it (ErrStop at the end
// of the budget), or nil.
func (s *searcher) iterate(it iteration) error {
	for !s.exhausted() {
		// A fresh start: a random configuration climbed to a local minimum.
		c, best, err := s.start()
		if err != nil {
			return err
		}
		if c, best, err = s.climb(c, best, it.first, it.restart); err != nil {
			return err
		}
		for since, stall := 0, 0; since < it.patience && !s.stalled(stall) && !s.exhausted(); {
			before, spent := s.fresh, s.spent
			n := s.perturb(c, it.perturb)
			fn, err := s.eval(n)
			if err != nil {
				return err
			}
			if n, fn, err = s.climb(n, fn, it.first, it.restart); err != nil {
				return err
			}
			improved := better(fn, best)
			if improved || it.walk {
				c = n
			}
			switch {
			case improved:
				best, since = fn, 0
			case it.perEvaluation:
				// Evaluations that cost budget count: new configurations, and repeats
				// where they are measured anew. A try that cost nothing (it only revisited
				// configurations the session answers from its cache) counts as one, so a
				// walk trapped among them still runs out of patience.
				since += max(s.spent-spent, 1)
			default:
				since++
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
