package strategy

import (
	"context"
	"math"
	"math/rand/v2"

	"github.com/ktune/ktune/space"
)

// Shared machinery of the population-based strategies (genetic.go, pso.go, firefly.go,
// diffevo.go): budget-dependent defaults from seed 000's Table III, evaluation of a whole
// generation with compile hints and progress tracking, the unit-cube mapping of seed 000
// section III-C2, and the repair of configurations that the restrictions forbid.

// popEvaluator evaluates generations for a population strategy. It remembers which
// configurations it has asked for, so that a strategy can tell a generation that brought
// nothing new (everything answered from the session's cache, no budget used) and restart
// instead of looping forever on a converged population.
type popEvaluator struct {
	ctx   context.Context
	p     Problem
	sp    *space.Space
	seen  map[int]struct{}
	fresh int // configurations not asked for before, in the current generation
}

func newPopEvaluator(ctx context.Context, p Problem) *popEvaluator {
	n := min(p.Remaining(), p.Space().Len(), maxPrealloc)
	return &popEvaluator{ctx: ctx, p: p, sp: p.Space(), seen: make(map[int]struct{}, n)}
}

// isSeen reports whether c was asked for before.
func (e *popEvaluator) isSeen(c space.Config) bool {
	idx, _ := e.sp.Index(c)
	_, ok := e.seen[idx]
	return ok
}

// generation evaluates cs (valid configurations) in order into fit, after hinting the
// configurations not asked for before. It returns the error of Problem.Evaluate as is.
func (e *popEvaluator) generation(cs []space.Config, fit []float64) error {
	e.fresh = 0
	if takesHints(e.p) {
		var up []space.Config
		pending := map[int]bool{}
		for _, c := range cs {
			idx, _ := e.sp.Index(c)
			if _, ok := e.seen[idx]; !ok && !pending[idx] {
				pending[idx] = true
				up = append(up, c)
			}
		}
		hint(e.p, up...)
	}
	for i, c := range cs {
		idx, _ := e.sp.Index(c)
		if _, ok := e.seen[idx]; !ok {
			e.seen[idx] = struct{}{}
			e.fresh++
		}
		f, err := e.p.Evaluate(e.ctx, c)
		if err != nil {
			return err
		}
		fit[i] = f
	}
	return nil
}

// done reports whether nothing is left to evaluate: the strategy then returns.
func (e *popEvaluator) done() bool { return e.p.Remaining() <= 0 }

// popSizes returns the number of values of each parameter.
func popSizes(sp *space.Space) []int {
	ps := sp.Params()
	n := make([]int, len(ps))
	for i, p := range ps {
		n[i] = len(p.Values)
	}
	return n
}

// cubeCentre returns the configuration at the centre of the unit cube of seed 000's
// mapping (every coordinate 0.5: value index floor(n/2) of a parameter's n values, the
// upper of the two middle values when n is even), or, when the restrictions forbid it, the
// nearest valid configuration (popRepair, ties broken with r).
func cubeCentre(sp *space.Space, r *rand.Rand) space.Config {
	sizes := popSizes(sp)
	c := make(space.Config, len(sizes))
	for i, n := range sizes {
		c[i] = n / 2
	}
	return popRepair(sp, sizes, c, r)
}

// popToConfig maps a point of the unit cube to a configuration of the cartesian product
// (seed 000 section III-C2): parameter i with n values takes value index floor(x_i * n),
// which is the value whose grid point (2j+1)/2n is closest to x_i. Coordinates outside
// [0, 1] are clamped.
func popToConfig(sizes []int, x []float64, dst space.Config) space.Config {
	if cap(dst) < len(sizes) {
		dst = make(space.Config, len(sizes))
	}
	dst = dst[:len(sizes)]
	for i, n := range sizes {
		v := int(math.Floor(x[i] * float64(n)))
		if math.IsNaN(x[i]) {
			v = 0
		}
		dst[i] = max(0, min(v, n-1))
	}
	return dst
}

// popToPoint returns the centre of c's cell in the unit cube: ((j+0.5)/n per parameter).
func popToPoint(sizes []int, c space.Config, dst []float64) []float64 {
	if cap(dst) < len(sizes) {
		dst = make([]float64, len(sizes))
	}
	dst = dst[:len(sizes)]
	for i, n := range sizes {
		dst[i] = (float64(c[i]) + 0.5) / float64(n)
	}
	return dst
}

// popRepairSamples is how many random repairs popRepair compares when no single-parameter
// change makes a configuration valid.
const popRepairSamples = 64

// popRepair returns c itself when it is valid, and otherwise the nearest valid
// configuration it finds, distance being the sum over parameters of |value index
// difference| / number of values (the distance in the unit cube of seed 000's mapping):
// first among the Hamming neighbours of c (configurations differing in one parameter), and
// when none of those is valid, among popRepairSamples configurations that keep c's values
// in every independent group of parameters whose restrictions c satisfies and draw the
// others' uniformly from their valid combinations (in a space of one group, uniformly
// drawn valid configurations). Ties are broken uniformly at random with r. A restricted
// configuration is thus never proposed and never costs budget.
func popRepair(sp *space.Space, sizes []int, c space.Config, r *rand.Rand) space.Config {
	var buf [4]int
	broken := sp.Broken(c, buf[:0])
	if len(broken) == 0 {
		return c
	}
	best := math.Inf(1)
	ties := 0
	var pick space.Config
	consider := func(cand space.Config, d float64) {
		switch {
		case d < best-1e-12:
			best, ties = d, 1
			pick = append(pick[:0], cand...)
		case math.Abs(d-best) <= 1e-12:
			ties++
			if r.IntN(ties) == 0 {
				pick = append(pick[:0], cand...)
			}
		}
	}
	// A Hamming neighbour can only be valid when c breaks a single group, by changing one
	// of that group's parameters.
	if len(broken) == 1 {
		orig := c.Clone()
		sp.GroupMoves(c, broken[0], func(p int, m space.Config) {
			consider(m, math.Abs(float64(m[p]-orig[p]))/float64(sizes[p]))
		})
	}
	if pick == nil {
		// Random valid combinations of the broken groups, the others kept.
		s := c.Clone()
		inv := make([]float64, len(sizes))
		for i, n := range sizes {
			inv[i] = 1 / float64(n)
		}
		for range popRepairSamples {
			var d float64
			ok := true
			if len(broken) == 1 {
				// The other parameters are c's: the group's distance is the whole.
				d, ok = sp.SampleGroupWithin(r, broken[0], c, s, inv, best+1e-12)
			} else {
				for _, g := range broken {
					sp.SampleGroup(r, g, s)
				}
				d, ok = popDistanceWithin(inv, c, s, best+1e-12)
			}
			if ok {
				consider(s, d)
			}
		}
	}
	return append(c[:0], pick...)
}

// popDistanceWithin returns the distance of popRepair between a and b, inv holding 1 /
// number of values of each parameter, and whether it is at most limit: it stops summing
// once past it.
func popDistanceWithin(inv []float64, a, b space.Config, limit float64) (float64, bool) {
	d := 0.0
	for i, w := range inv {
		if a[i] != b[i] {
			d += math.Abs(float64(a[i]-b[i])) * w
			if d > limit {
				return d, false
			}
		}
	}
	return d, true
}

// popOrder returns the indices of fit sorted from best to worst, ties (+Inf included) in
// index order. It compares only, so failed configurations (+Inf) never enter arithmetic.
func popOrder(fit []float64) []int {
	order := make([]int, len(fit))
	for i := range order {
		order[i] = i
	}
	// insertion sort keeps it stable and allocation-free; populations are small
	for i := 1; i < len(order); i++ {
		for j := i; j > 0 && fit[order[j]] < fit[order[j-1]]; j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	return order
}

// popBest returns the index of the lowest fitness, the first of equals.
func popBest(fit []float64) int {
	b := 0
	for i, f := range fit {
		if f < fit[b] {
			b = i
		}
	}
	return b
}

var popInf = math.Inf(1)
