package strategy

import (
	"context"
	"fmt"

	"github.com/ktune/ktune/space"
)

// Genetic local search, or memetic algorithm (seed 000, section III-C1, after Ishibuchi and
// Murata): a population of local minima. Every random initial configuration is hill
// climbed; each generation pairs the members at random, crosses every pair into two
// complementary children, hill climbs the children, and selects the next population from
// parents and children.
//
// Table III's selector "RTS" is restricted tournament selection (Harik), the selector of
// that name in BlooPy, the package seed 000 ran its algorithms with: a child competes only
// with the most similar member. It is not a rank-based tournament.
//
// A hill climb over Hamming neighbours costs tens of evaluations on the kernels of seed 000
// (it ends by evaluating every neighbour of the local minimum), so at Table III's
// population sizes the initial population alone takes most budgets up to 1600: GLS then
// behaves like multi-start local search, as seed 000 found (GLS close to FirstMLS).

// Table III of seed 000, genetic local search row, per budget column (25 ... 1600). The
// reproducer row of the table has three merged cells, "uniform | 2point | uniform", over
// seven columns; the text extraction loses their spans. We read them as uniform for 25 and
// 50, 2point for 100 and 200, uniform from 400, which is how the cells line up with the
// population-size row above them (2 2 | 4 16 | 20 40 80) and the only reading that gives
// each cell at least two columns.
var (
	glsPopTable       = [7]int{2, 2, 4, 16, 20, 40, 80}
	glsCrossoverTable = [7]string{"uniform", "uniform", "2point", "2point", "uniform", "uniform", "uniform"}
)

var glsFactory = Factory{
	Doc: "Genetic local search, or memetic algorithm (seed 000's GLS): a random initial " +
		"population whose members are hill climbed to local minima; each generation shuffles " +
		"the population into pairs, crosses each pair into two complementary children (1-point, " +
		"2-point or uniform crossover), repairs children the restrictions forbid, hill climbs " +
		"them, and selects the next population by restricted tournament selection (each child " +
		"replaces the most similar member when it is better, which keeps distinct basins) or " +
		"by tournaments over parents and children. A generation that evaluates nothing new " +
		"keeps only the best member and refills the population with new random local minima, " +
		"so the budget is always used. Defaults follow seed 000's Table III for the budget. " +
		"A hill climb costs tens of evaluations on typical kernels, so at Table III's " +
		"population sizes the initial population takes the whole budget up to about 400 " +
		"on seed 000's kernels: no generation runs, crossover, selection and tournament " +
		"change nothing, and GLS is multi-start local search, as seed 000 found.",
	Options: []Option{
		{Name: "popsize", Kind: IntKind(), Default: tableIIIDoc(glsPopTable), Doc: "population size (local minima kept per generation), 2 to 100,000"},
		{Name: "crossover", Kind: ChoiceKind(crossovers...), Default: tableIIIDoc(glsCrossoverTable) +
			" (our reading of the table's merged cells)", Doc: "reproduction: 1point, 2point or uniform crossover"},
		{Name: "selection", Kind: ChoiceKind(glsSelections...), Default: "RTS (seed 000 Table III)",
			Doc: "survivor selection: RTS (restricted tournament selection: a child replaces the " +
				"member with the most equal parameters, ties at random, when it is better) or " +
				"tournament (each place goes to the best of a few random parents and children)"},
		{Name: "tournament", Kind: IntKind(), Default: "2 (not in Table III)", Doc: "tournament size for selection=tournament, 1 to 100,000"},
		{Name: "hill_climber", Kind: ChoiceKind(glsClimbers...), Default: "first (seed 000 Table III: RandomFirst)",
			Doc: "hill climbing of every member: first (first improvement over neighbours in " +
				"random order) or best (best improvement)"},
		restartOption("false (not in Table III; ktune's choice: on the recorded GEMM, " +
			"convolution and pnpoly spaces it does better than true, mostly at budgets up to 200)"),
		neighbourhoodOption("Hamming (seed 000 Table III, GLS)"),
	},
	New: newGLS,
}

// The values of gls's selection and hill_climber (its crossover takes genetic's).
var (
	glsSelections = []string{"RTS", "tournament"}
	glsClimbers   = []string{"first", "best"}
)

type gls struct {
	pop       optional[int]
	crossover optional[string]
	rts       bool
	tour      int
	first     bool
	restart   bool
	nb        optional[space.Neighbourhood]
}

func newGLS(opts Options) (Strategy, error) {
	g := &gls{}
	var err error
	if g.pop, err = optInt(opts, "popsize", 2); err != nil {
		return nil, err
	}
	if g.pop.set {
		if err := checkPopulation("popsize", g.pop.v, 2); err != nil {
			return nil, err
		}
	}
	if _, set := opts["crossover"]; set {
		g.crossover.set = true
		if g.crossover.v, err = opts.Choice("crossover", "", crossovers...); err != nil {
			return nil, err
		}
	}
	sel, err := opts.Choice("selection", "RTS", glsSelections...)
	if err != nil {
		return nil, err
	}
	g.rts = sel == "RTS"
	if g.tour, err = opts.Int("tournament", 2); err != nil {
		return nil, err
	}
	if g.tour < 1 || g.tour > maxPopulation {
		// a tournament draws its size in members for each place: an unbounded size
		// (2^31) made a generation take minutes
		return nil, fmt.Errorf("option tournament: %d, want 1 to %d", g.tour, maxPopulation)
	}
	climber, err := opts.Choice("hill_climber", "first", glsClimbers...)
	if err != nil {
		return nil, err
	}
	g.first = climber == "first"
	if g.restart, err = opts.Bool("restart", false); err != nil {
		return nil, err
	}
	if g.nb.v, g.nb.set, err = neighbourhoodFrom(opts); err != nil {
		return nil, err
	}
	return g, nil
}

func (*gls) Name() string { return "gls" }

// member is a population member: a local minimum and its fitness.
type member struct {
	c space.Config
	f float64
}

func (g *gls) Run(ctx context.Context, p Problem) error {
	b := p.Budget()
	n := g.pop.or(tableIII(b, glsPopTable))
	crossover := g.crossover.or(tableIII(b, glsCrossoverTable))
	s := newSearcher(ctx, p, g.nb.or(space.Hamming))
	sp, r := s.sp, s.r
	sizes := popSizes(sp)
	climb := func(c space.Config, f float64) (space.Config, float64, error) {
		return s.climb(c, f, g.first, g.restart)
	}

	// randomMembers fills pop[from:] with random configurations climbed to local minima,
	// hinting the starting points first so that an evaluator can compile them together.
	randomMembers := func(pop []member, from int) error {
		for i := from; i < len(pop); i++ {
			pop[i].c = s.sampleNew(pop[i].c)
		}
		s.hintNew(pop[from:])
		for i := from; i < len(pop); i++ {
			f, err := s.eval(pop[i].c)
			if err != nil {
				return err
			}
			if pop[i].c, pop[i].f, err = climb(pop[i].c, f); err != nil {
				return err
			}
		}
		return nil
	}

	pop := make([]member, n)
	if err := randomMembers(pop, 0); err != nil {
		return stopped(err)
	}
	kids := make([]member, n)
	for i := range kids {
		kids[i].c = make(space.Config, len(sizes))
	}
	for !s.exhausted() {
		before := s.fresh
		// Reproduction: shuffle the parents and cross consecutive pairs, each pair giving two
		// complementary children; with an odd population the last parent pairs with the first.
		order := r.Perm(n)
		for k := 0; k < n; k += 2 {
			a, bb := pop[order[k]].c, pop[order[(k+1)%n]].c
			var twin space.Config
			if k+1 < n {
				twin = kids[k+1].c
			}
			gaCross(crossover, a, bb, kids[k].c, twin, r)
		}
		for i := range kids {
			popRepair(sp, sizes, kids[i].c, r)
		}
		s.hintNew(kids)
		for i := range kids {
			f, err := s.eval(kids[i].c)
			if err != nil {
				return stopped(err)
			}
			if kids[i].c, kids[i].f, err = climb(kids[i].c, f); err != nil {
				return stopped(err)
			}
		}
		if g.rts {
			glsRTS(pop, kids, r)
		} else {
			pop = glsTournament(pop, kids, g.tour, r)
		}
		if s.fresh == before {
			// The population has converged onto local minima it has climbed before: keep
			// the best and look for new basins.
			best := 0
			for i := range pop {
				if better(pop[i].f, pop[best].f) {
					best = i
				}
			}
			pop[0], pop[best] = pop[best], pop[0]
			if err := randomMembers(pop, 1); err != nil {
				return stopped(err)
			}
		}
	}
	return nil
}

// hintNew hints the configurations of ms not evaluated before by this search.
func (s *searcher) hintNew(ms []member) {
	if !takesHints(s.p) {
		return
	}
	var up []space.Config
	pending := map[int]bool{}
	for _, m := range ms {
		idx, _ := s.sp.Index(m.c)
		if _, seen := s.seen[idx]; !seen && !pending[idx] {
			pending[idx] = true
			up = append(up, m.c)
		}
	}
	hint(s.p, up...)
}

// glsRTS is restricted tournament selection (Harik): each child in turn competes with the
// member of pop that shares the most parameter values with it (ties broken at random) and
// replaces it when the child is better. A child only displaces a similar member, so the
// population keeps local minima of different basins instead of copies of the best one.
// Children are copied into pop, whose configurations keep their own storage.
func glsRTS(pop, kids []member, r interface{ IntN(int) int }) {
	for _, k := range kids {
		rival, most, ties := -1, -1, 0
		for i, m := range pop {
			same := 0
			for j := range k.c {
				if k.c[j] == m.c[j] {
					same++
				}
			}
			switch {
			case same > most:
				rival, most, ties = i, same, 1
			case same == most:
				if ties++; r.IntN(ties) == 0 {
					rival = i
				}
			}
		}
		if better(k.f, pop[rival].f) {
			copy(pop[rival].c, k.c)
			pop[rival].f = k.f
		}
	}
}

// glsTournament returns the next population: each place goes to the best of size members
// drawn at random, with replacement, from parents and children.
func glsTournament(pop, kids []member, size int, r interface{ IntN(int) int }) []member {
	pool := append(append(make([]member, 0, len(pop)+len(kids)), pop...), kids...)
	next := make([]member, len(pop))
	for i := range next {
		w := pool[r.IntN(len(pool))]
		for range size - 1 {
			if c := pool[r.IntN(len(pool))]; better(c.f, w.f) {
				w = c
			}
		}
		next[i] = member{c: w.c.Clone(), f: w.f}
	}
	return next
}
