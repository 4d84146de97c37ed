package strategy

import (
	"context"

	"github.com/ktune/ktune/space"
)

// Multi-start local search (seed 000, section III-C1): hill climb random starting
// configurations to local minima, again and again, until the budget ends.

var firstMLSFactory = Factory{
	Doc: "Multi-start local search with first improvement (seed 000's FirstMLS): hill climbs " +
		"a random configuration by moving to the first improving neighbour met in random " +
		"order until it reaches a local minimum, then starts again from a new random " +
		"configuration, until the budget ends. Defaults follow seed 000's Table III for the " +
		"budget.",
	Options: []Option{
		restartOption(tableIIIDoc(firstMLSRestart) + " (seed 000 Table III, FirstMLS)"),
		neighbourhoodOption("Hamming (seed 000 Table III, FirstMLS)"),
	},
	New: func(opts Options) (Strategy, error) { return newMLS(opts, true) },
}

var bestMLSFactory = Factory{
	Doc: "Multi-start local search with best improvement (seed 000's BestMLS): hill climbs " +
		"a random configuration by moving to its best neighbour while that improves, then " +
		"starts again from a new random configuration, until the budget ends. Defaults follow " +
		"seed 000's Table III for the budget.",
	Options: []Option{
		neighbourhoodOption(tableIIIDoc(bestMLSNeighbourhood) + " (seed 000 Table III, BestMLS)"),
	},
	New: func(opts Options) (Strategy, error) { return newMLS(opts, false) },
}

// restartOption documents the restart-search option of the first-improvement searches.
func restartOption(def string) Option {
	return Option{Name: "restart", Kind: BoolKind(), Default: def,
		Doc: "after an improving move, start a new sweep over the parameters in a new random " +
			"order (true) or go on with the parameters not yet tried in this sweep (false)"}
}

// Seed 000's Table III for the multi-start local searches.
var (
	firstMLSRestart      = [7]bool{true, false, false, false, true, true, true}
	bestMLSNeighbourhood = [7]space.Neighbourhood{space.Adjacent, space.Adjacent, space.Adjacent,
		space.Hamming, space.Hamming, space.Hamming, space.Hamming}
)

type mls struct {
	first   bool
	restart optional[bool]
	nb      optional[space.Neighbourhood]
}

func newMLS(opts Options, first bool) (Strategy, error) {
	m := &mls{first: first}
	var err error
	if first {
		if m.restart, err = optBool(opts, "restart"); err != nil {
			return nil, err
		}
	}
	if m.nb.v, m.nb.set, err = neighbourhoodFrom(opts); err != nil {
		return nil, err
	}
	return m, nil
}

func (m *mls) Name() string {
	if m.first {
		return "firstmls"
	}
	return "bestmls"
}

func (m *mls) Run(ctx context.Context, p Problem) error {
	b := p.Budget()
	var nb space.Neighbourhood
	if m.first {
		nb = m.nb.or(space.Hamming)
	} else {
		nb = m.nb.or(tableIII(b, bestMLSNeighbourhood))
	}
	restart := m.restart.or(tableIII(b, firstMLSRestart))
	return stopped(newSearcher(ctx, p, nb).multiStart(m.first, restart))
}

// multiStart hill climbs random configurations until nothing is left to evaluate; it
// returns the error that ended a climb (ErrStop at the end of the budget), or nil.
func (s *searcher) multiStart(first, restart bool) error {
	for !s.exhausted() {
		c, f, err := s.start()
		if err != nil {
			return err
		}
		if _, _, err := s.climb(c, f, first, restart); err != nil {
			return err
		}
	}
	return nil
}
