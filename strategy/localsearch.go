package strategy

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/ktune/ktune/space"
)

// This file holds what the local-search strategies of seed 000 (multi-start local search,
// iterated local search, tabu search, simulated annealing, genetic local search) and Kernel
// Tuner's greedy ones share: budget-dependent defaults from Table III, the neighbourhood
// option, the first- and best-improvement steps and the random perturbation.

// tableIIIBudgets are the budget columns of seed 000's Table III.
var tableIIIBudgets = [7]int{25, 50, 100, 200, 400, 800, 1600}

// tableIII picks a hyperparameter for a budget from a row of Table III, one value per
// budget column. A budget between two columns interpolates on the logarithm of the budget
// (the columns double): a float linearly, an integer geometrically and rounded (sizes
// double with the budget, as the table's populations do), and any other value (a name, a
// choice) comes from the nearer column. A budget below 25 takes the first column, one
// above 1,600 and no budget (0) the last, the one tuned for the most evaluations.
func tableIII[T any](budget int, row [7]T) T {
	if budget <= 0 {
		return row[len(row)-1]
	}
	i, t := tableIIIPosition(budget)
	if t == 0 {
		return row[i]
	}
	switch r := any(row).(type) {
	case [7]float64:
		return any(r[i] + t*(r[i+1]-r[i])).(T)
	case [7]int:
		a, b := float64(r[i]), float64(r[i+1])
		if a > 0 && b > 0 {
			return any(int(math.Round(a * math.Pow(b/a, t)))).(T)
		}
		return any(int(math.Round(a + t*(b-a)))).(T)
	}
	if t >= 0.5 {
		return row[i+1]
	}
	return row[i]
}

// tableIIIPosition places a budget (above 0) among Table III's columns: the column at or
// below it and how far it is towards the next, in [0, 1) on the logarithm of the budget;
// 0 at a column and outside the table.
func tableIIIPosition(budget int) (col int, t float64) {
	last := len(tableIIIBudgets) - 1
	switch {
	case budget <= tableIIIBudgets[0]:
		return 0, 0
	case budget >= tableIIIBudgets[last]:
		return last, 0
	}
	for col+1 < last && budget >= tableIIIBudgets[col+1] {
		col++
	}
	lo, hi := float64(tableIIIBudgets[col]), float64(tableIIIBudgets[col+1])
	return col, math.Log(float64(budget)/lo) / math.Log(hi/lo)
}

// tableIIIDoc documents a default that follows a row of Table III: its values by budget
// column, equal neighbours merged, and how budgets between columns get theirs.
func tableIIIDoc[T any](row [7]T) string {
	var parts []string
	for i := 0; i < len(row); {
		j := i
		for j+1 < len(row) && fmt.Sprint(row[j+1]) == fmt.Sprint(row[i]) {
			j++
		}
		v, from, to := fmt.Sprint(row[i]), tableIIIBudgets[i], tableIIIBudgets[j]
		switch {
		case len(parts) == 0 && j == len(row)-1:
			return v
		case j == len(row)-1:
			parts = append(parts, fmt.Sprintf("%s from %d", v, from))
		case i == j:
			parts = append(parts, fmt.Sprintf("%s at %d", v, from))
		case i == 0:
			parts = append(parts, fmt.Sprintf("%s up to %d", v, to))
		default:
			parts = append(parts, fmt.Sprintf("%s at %d-%d", v, from, to))
		}
		i = j + 1
	}
	between := "between columns the nearer one on a log scale"
	switch any(row).(type) {
	case [7]float64:
		between = "interpolated between columns, linearly in log budget"
	case [7]int:
		between = "interpolated between columns, geometrically"
	}
	return "by budget " + strings.Join(parts, ", ") + " (and without a budget); " + between
}

// better reports whether fitness a is strictly lower than b. +Inf (failed) is never better
// than anything, and nothing is subtracted, so two failures compare without Inf - Inf.
func better(a, b float64) bool { return a < b }

// neighbourhoodOption documents the neighbourhood option; def says how the default follows
// from Table III.
func neighbourhoodOption(def string) Option {
	return Option{Name: "neighbourhood", Kind: ChoiceKind(seedNeighbourhoods...), Default: def,
		Doc: "neighbours of a configuration: Hamming (one parameter changed to any other " +
			"value) or adjacent (one parameter moved to the previous or next value in its list)"}
}

// seedNeighbourhoods are the neighbourhoods seed 000's searches know.
var seedNeighbourhoods = []string{"Hamming", "adjacent"}

// neighbourhoodFrom parses the neighbourhood option; ok is false when it is not set, so
// Run takes Table III's default for the budget. Seed 000's searches know Hamming and
// adjacent; allowed widens that (the greedy searches also take strictly-adjacent).
func neighbourhoodFrom(opts Options, allowed ...string) (n space.Neighbourhood, ok bool, err error) {
	if _, set := opts["neighbourhood"]; !set {
		return 0, false, nil
	}
	if len(allowed) == 0 {
		allowed = seedNeighbourhoods
	}
	s, err := opts.Choice("neighbourhood", "Hamming", allowed...)
	if err != nil {
		return 0, false, err
	}
	n, err = space.ParseNeighbourhood(s)
	return n, true, err
}

// optional is an option that the user set, or whose default depends on the budget and is
// only known when the run starts.
type optional[T any] struct {
	v   T
	set bool
}

func (o optional[T]) or(def T) T {
	if o.set {
		return o.v
	}
	return def
}

func optInt(opts Options, name string, lo int) (optional[int], error) {
	if _, set := opts[name]; !set {
		return optional[int]{}, nil
	}
	v, err := opts.Int(name, 0)
	if err == nil && v < lo {
		err = fmt.Errorf("option %s: %d is below %d", name, v, lo)
	}
	return optional[int]{v, true}, err
}

// optFraction reads an option that must lie in (0, 1].
func optFraction(opts Options, name string) (optional[float64], error) {
	if _, set := opts[name]; !set {
		return optional[float64]{}, nil
	}
	v, err := opts.Float(name, 0)
	if err == nil && !(v > 0 && v <= 1) {
		err = fmt.Errorf("option %s: %v is not in (0, 1]", name, v)
	}
	return optional[float64]{v, true}, err
}

// optShare reads an option that must lie in [0, 1]: a share or a probability.
func optShare(opts Options, name string) (optional[float64], error) {
	if _, set := opts[name]; !set {
		return optional[float64]{}, nil
	}
	v, err := opts.Float(name, 0)
	if err == nil && !(v >= 0 && v <= 1) {
		err = fmt.Errorf("option %s: %v is not in [0, 1]", name, v)
	}
	return optional[float64]{v, true}, err
}

func optBool(opts Options, name string) (optional[bool], error) {
	if _, set := opts[name]; !set {
		return optional[bool]{}, nil
	}
	v, err := opts.Bool(name, false)
	return optional[bool]{v, true}, err
}

// stallLimit is how many steps in a row a walk may take without evaluating a configuration
// it had not evaluated before, before it restarts from a random one. Repeats cost no budget
// where the session answers them from its cache, so without it a walk that cycles through
// evaluated configurations would never end (see also searcher.stalled).
const stallLimit = 100

// stalled reports whether a walk that has taken stall steps in a row without evaluating a
// new configuration should restart: after stallLimit of them where repeats are free, and
// after the first where they are measured anew, since that step spent budget on
// configurations the walk had measured already (iterated local search; the other walks
// keep stallLimit).
func (s *searcher) stalled(stall int) bool {
	return stall >= stallLimit || (stall > 0 && s.remeasures)
}

// searcher is one local-search run: the problem, its space and generator, the neighbourhood
// and the configurations evaluated so far (to tell new evaluations from repeats).
type searcher struct {
	ctx  context.Context
	p    Problem
	sp   *space.Space
	r    *rand.Rand
	nb   space.Neighbourhood
	seen map[int]float64 // fitness of the first evaluation, by space index
	// fresh counts evaluations of configurations not evaluated before by this run.
	fresh int
	// spent counts the evaluations that cost budget: the fresh ones and, once remeasures
	// is set, every repeat too.
	spent int
	// remeasures is set once a repeat was measured anew rather than answered from the
	// session's cache: it cost budget, or its fitness differs from the first answer (under
	// stochastic fitness, where every evaluation is a new measurement). Until then repeats
	// are taken to be free, as they are in every real tuning session.
	remeasures bool
	// sweep, when not nil, fixes the parameters first improvement tries and their order,
	// and makes it try each parameter's values in list order (Kernel Tuner's order option
	// of the greedy searches); nil means random orders, drawn anew for every sweep.
	sweep []int
	// from, when not nil, is where the first start begins instead of a random
	// configuration (a hand-off from another strategy); later starts are random.
	from space.Config
}

func newSearcher(ctx context.Context, p Problem, nb space.Neighbourhood) *searcher {
	return &searcher{ctx: ctx, p: p, sp: p.Space(), r: p.Rand(), nb: nb,
		seen: make(map[int]float64, min(max(p.Remaining(), 0), maxPrealloc))}
}

// eval evaluates c, which must come from the space, and counts it when it is new, or when
// it is a repeat that was measured anew.
func (s *searcher) eval(c space.Config) (float64, error) {
	idx, ok := s.sp.Index(c)
	if !ok {
		return s.p.Evaluate(s.ctx, c)
	}
	first, dup := s.seen[idx]
	if !dup || s.remeasures {
		f, err := s.p.Evaluate(s.ctx, c)
		if err == nil && !dup {
			s.seen[idx] = f
			s.fresh++
		}
		if err == nil {
			s.spent++
		}
		return f, err
	}
	before := s.p.Remaining()
	f, err := s.p.Evaluate(s.ctx, c)
	if err == nil && (s.p.Remaining() < before || f != first) {
		s.remeasures = true
		s.spent++
	}
	return f, err
}

// start returns s.from the first time when it is set, otherwise a uniformly random
// configuration, preferring one not evaluated yet (a few draws at most), and its fitness.
func (s *searcher) start() (space.Config, float64, error) {
	c := s.from
	if c != nil {
		s.from = nil
	} else {
		c = s.sampleNew(nil)
	}
	f, err := s.eval(c)
	return c, f, err
}

// sampleNew writes into dst (allocated when nil) a uniformly random configuration,
// preferring one not evaluated yet: a few draws, then, when all of them were evaluated
// (most of the space is), the first unevaluated configuration from a random position on.
// Without that last step a search whose budget covers the space spent ever more draws on
// its last configurations (annealing took 17 s to exhaust 10,240 of them).
func (s *searcher) sampleNew(dst space.Config) space.Config {
	for try := 0; try < 16; try++ {
		dst = s.sp.Sample(s.r, dst)
		idx, _ := s.sp.Index(dst)
		if _, dup := s.seen[idx]; !dup {
			return dst
		}
	}
	n := s.sp.Len()
	if len(s.seen) >= n {
		return dst
	}
	from := s.r.IntN(n)
	for k := range n {
		if _, dup := s.seen[(from+k)%n]; !dup {
			return s.sp.At((from+k)%n, dst)
		}
	}
	return dst
}

// candidates lists the other values parameter p may take from value v under the
// neighbourhood, in random order.
func (s *searcher) candidates(p, v int, buf []int) []int {
	buf = buf[:0]
	n := len(s.sp.Params()[p].Values)
	if s.nb == space.Adjacent {
		if v > 0 {
			buf = append(buf, v-1)
		}
		if v+1 < n {
			buf = append(buf, v+1)
		}
	} else {
		for w := range n {
			if w != v {
				buf = append(buf, w)
			}
		}
	}
	if s.sweep == nil {
		s.r.Shuffle(len(buf), func(i, j int) { buf[i], buf[j] = buf[j], buf[i] })
	}
	return buf
}

// firstImprovement hill climbs c (fitness f, modified in place) to a local minimum, moving
// to the first improving neighbour it meets. Parameters are visited in random order (or in
// s.sweep's) and each one's values in random order (or in list order); after a move,
// restart begins a new sweep in a new random order, otherwise the sweep goes on with the
// remaining parameters. It stops when every parameter in a row gave no improvement.
// Strictly-adjacent neighbours change several parameters at once, so they cannot be swept
// parameter by parameter: firstInList takes them as one list.
func (s *searcher) firstImprovement(c space.Config, f float64, restart bool) (space.Config, float64, error) {
	if s.nb == space.StrictlyAdjacent {
		return s.firstInList(c, f)
	}
	order := s.sweep
	if order == nil {
		order = s.r.Perm(len(c))
	}
	var vals []int
	cand := c.Clone()
	for i, failed := 0, 0; failed < len(order); i++ {
		if i == len(order) {
			i = 0
		}
		p := order[i]
		improved := false
		vals = s.candidates(p, c[p], vals)
		for _, w := range vals {
			copy(cand, c)
			cand[p] = w
			if !s.sp.Contains(cand) {
				continue
			}
			fc, err := s.eval(cand)
			if err != nil {
				return c, f, err
			}
			if better(fc, f) {
				copy(c, cand)
				f, improved = fc, true
				break
			}
		}
		if !improved {
			failed++
			continue
		}
		failed = 0
		if restart {
			if s.sweep == nil {
				s.r.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
			}
			i = -1
		}
	}
	return c, f, nil
}

// firstInList hill climbs c (fitness f, modified in place) to a local minimum of any
// neighbourhood, moving to the first improving neighbour in its neighbour list, taken in
// random order (or in the space's order when s.sweep is set), and listing the neighbours of
// the new configuration after every move.
func (s *searcher) firstInList(c space.Config, f float64) (space.Config, float64, error) {
	// A strictly-adjacent neighbourhood can hold thousands of configurations: they are
	// kept in one flat buffer, reused from step to step, rather than one slice each.
	d := len(c)
	var flat, order []int
	for {
		flat = flat[:0]
		s.sp.Neighbours(c, s.nb, func(n space.Config) { flat = append(flat, n...) })
		order = order[:0]
		for i := range len(flat) / max(d, 1) {
			order = append(order, i)
		}
		if s.sweep == nil {
			s.r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		}
		moved := false
		for _, i := range order {
			n := space.Config(flat[i*d : (i+1)*d])
			fn, err := s.eval(n)
			if err != nil {
				return c, f, err
			}
			if better(fn, f) {
				copy(c, n)
				f, moved = fn, true
				break
			}
		}
		if !moved {
			return c, f, nil
		}
	}
}

// bestImprovement hill climbs c (fitness f, modified in place) to a local minimum, moving
// each step to the best of all its neighbours while that improves on c. Neighbours are
// evaluated in random order, so that a budget ending mid-step does not favour any
// parameter; ties go to the first met.
func (s *searcher) bestImprovement(c space.Config, f float64) (space.Config, float64, error) {
	for {
		nbrs := s.sp.NeighbourList(c, s.nb)
		s.r.Shuffle(len(nbrs), func(i, j int) { nbrs[i], nbrs[j] = nbrs[j], nbrs[i] })
		var best space.Config
		bestF := f
		for _, n := range nbrs {
			fn, err := s.eval(n)
			if err != nil {
				return c, f, err
			}
			if better(fn, bestF) {
				best, bestF = n, fn
			}
		}
		if best == nil {
			return c, f, nil
		}
		copy(c, best)
		f = bestF
	}
}

// climb hill climbs with first or best improvement.
func (s *searcher) climb(c space.Config, f float64, first, restart bool) (space.Config, float64, error) {
	if first {
		return s.firstImprovement(c, f, restart)
	}
	return s.bestImprovement(c, f)
}

// perturb returns a copy of c with a fraction of its parameters (at least one, rounded)
// set to other random values, as ILS's perturbation and annealing's mutation do. When
// the space's restrictions reject a few such draws, it walks as many random Hamming steps
// instead, which always stays in the space; if c has no neighbour at all it returns a
// random configuration.
func (s *searcher) perturb(c space.Config, fraction float64) space.Config {
	k := min(max(int(math.Round(fraction*float64(len(c)))), 1), len(c))
	params := s.sp.Params()
	out := c.Clone()
	for try := 0; try < 16; try++ {
		copy(out, c)
		changed := false
		for _, p := range s.r.Perm(len(c))[:k] {
			if n := len(params[p].Values); n > 1 {
				w := s.r.IntN(n - 1)
				if w >= c[p] {
					w++
				}
				out[p], changed = w, true
			}
		}
		if changed && s.sp.Contains(out) {
			return out
		}
	}
	copy(out, c)
	for range k {
		nbrs := s.sp.NeighbourList(out, space.Hamming)
		if len(nbrs) == 0 {
			break
		}
		copy(out, nbrs[s.r.IntN(len(nbrs))])
	}
	if slices.Equal(out, c) {
		return s.sp.Sample(s.r, out)
	}
	return out
}

// exhausted reports whether nothing is left to evaluate, so a restart loop must end.
func (s *searcher) exhausted() bool { return s.p.Remaining() <= 0 }
