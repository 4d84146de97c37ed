package strategy

import (
	"context"
	"math"

	"github.com/ktune/ktune/space"
)

// Tabu search (seed 000, section III-C1, after Glover): move every step to a neighbour
// that was not visited in the last tabu-size steps, improving or not.

var firstTabuFactory = Factory{
	Doc: "Tabu search with first improvement (seed 000's FirstTabu): every step moves to a " +
		"neighbour not visited in the last tabu_size steps: the first improving one met in " +
		"random order, or the best of them when none improves. When every neighbour is tabu, " +
		"or the walk only revisits evaluated configurations, it restarts from a random " +
		"configuration. Defaults follow seed 000's Table III for the budget.",
	Options: []Option{
		tabuSizeOption(tableIIIDoc(firstTabuSize) + " (seed 000 Table III, FirstTabu)"),
		neighbourhoodOption("Hamming (seed 000 Table III, FirstTabu)"),
	},
	New: func(opts Options) (Strategy, error) { return newTabu(opts, true) },
}

var bestTabuFactory = Factory{
	Doc: "Tabu search with best improvement (seed 000's BestTabu): every step evaluates all " +
		"neighbours and moves to the best one not visited in the last tabu_size steps, " +
		"improving or not. When every neighbour is tabu, or the walk only revisits evaluated " +
		"configurations, it restarts from a random configuration. Defaults follow seed 000's " +
		"Table III.",
	Options: []Option{
		tabuSizeOption("2000 (seed 000 Table III, BestTabu)"),
		neighbourhoodOption("Hamming (seed 000 Table III, BestTabu)"),
	},
	New: func(opts Options) (Strategy, error) { return newTabu(opts, false) },
}

func tabuSizeOption(def string) Option {
	return Option{Name: "tabu_size", Kind: IntKind(), Default: def,
		Doc: "number of most recently visited configurations the search may not move to (0 or more)"}
}

// firstTabuSize is seed 000's Table III for FirstTabu's tabu list.
var firstTabuSize = [7]int{4, 2000, 2000, 2000, 2000, 2000, 2000}

type tabu struct {
	first bool
	size  optional[int]
	nb    optional[space.Neighbourhood]
}

func newTabu(opts Options, first bool) (Strategy, error) {
	t := &tabu{first: first}
	var err error
	if t.size, err = optInt(opts, "tabu_size", 0); err != nil {
		return nil, err
	}
	if t.nb.v, t.nb.set, err = neighbourhoodFrom(opts); err != nil {
		return nil, err
	}
	return t, nil
}

func (t *tabu) Name() string {
	if t.first {
		return "firsttabu"
	}
	return "besttabu"
}

// tabuList is a queue of the last size visited configurations (by space index) with a
// count per index for membership.
type tabuList struct {
	size  int
	queue []int
	count map[int]int
}

func (l *tabuList) has(idx int) bool { return l.count[idx] > 0 }

func (l *tabuList) push(idx int) {
	if l.size == 0 {
		return
	}
	l.queue = append(l.queue, idx)
	l.count[idx]++
	if len(l.queue) > l.size {
		old := l.queue[0]
		l.queue = l.queue[1:]
		if l.count[old]--; l.count[old] == 0 {
			delete(l.count, old)
		}
	}
}

func (t *tabu) Run(ctx context.Context, p Problem) error {
	size := t.size.or(2000)
	if t.first {
		size = t.size.or(tableIII(p.Budget(), firstTabuSize))
	}
	s := newSearcher(ctx, p, t.nb.or(space.Hamming))
	list := &tabuList{size: size, count: map[int]int{}}
	for !s.exhausted() {
		c, f, err := s.start()
		if err != nil {
			return stopped(err)
		}
		idx, _ := s.sp.Index(c)
		list.push(idx)
		for stall := 0; stall < stallLimit && !s.exhausted(); {
			before := s.fresh
			nbrs := s.sp.NeighbourList(c, s.nb)
			s.r.Shuffle(len(nbrs), func(i, j int) { nbrs[i], nbrs[j] = nbrs[j], nbrs[i] })
			var next space.Config
			nextIdx, nextF := -1, math.Inf(1)
			for _, n := range nbrs {
				ni, _ := s.sp.Index(n)
				if list.has(ni) {
					continue
				}
				fn, err := s.eval(n)
				if err != nil {
					return stopped(err)
				}
				// The first allowed neighbour is taken even when failed (+Inf), since
				// tabu search always moves.
				if next == nil || better(fn, nextF) {
					next, nextIdx, nextF = n, ni, fn
				}
				if t.first && better(fn, f) {
					break
				}
			}
			if next == nil {
				break // every neighbour is tabu: restart
			}
			c, f = next, nextF
			list.push(nextIdx)
			if s.fresh == before {
				stall++
			} else {
				stall = 0
			}
		}
	}
	return nil
}
