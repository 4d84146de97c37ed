package strategy

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/ktune/ktune/space"
)

// Table III of seed 000, genetic algorithm row, per budget column (25 ... 1600).
var (
	gaPopTable       = [7]int{8, 10, 20, 40, 80, 128, 320}
	gaMutationTable  = [7]float64{0.02, 0.02, 0.02, 0.05, 0.05, 0.02, 0.02}
	gaCrossoverTable = [7]string{"1point", "1point", "1point", "1point", "1point", "2point", "2point"}
	gaTourTable      = [7]int{8, 8, 8, 8, 8, 4, 4}
)

var geneticFactory = Factory{
	Doc: "Genetic algorithm (seed 000 III-C1): a population of valid configurations evolves " +
		"by selection (tournament or rank-based), crossover (1-point, 2-point or uniform) and " +
		"per-parameter mutation, keeping the best few unchanged (elitism). A child that the " +
		"restrictions forbid is repaired to the nearest valid configuration (a Hamming " +
		"neighbour, else the nearest of 64 random repairs of the broken parameter groups), " +
		"and a child already evaluated " +
		"is mutated again a few times to spend the budget on new configurations. When a " +
		"whole generation brings nothing new, all but the elite are replaced by random " +
		"configurations. Runs until the budget or the space is exhausted. Defaults follow " +
		"seed 000's Table III for the run's budget.",
	Options: []Option{
		{Name: "popsize", Kind: IntKind(), Default: tableIIIDoc(gaPopTable), Doc: "population size (configurations per generation), 2 to 100,000"},
		{Name: "mutation", Kind: FloatKind(), Default: tableIIIDoc(gaMutationTable), Doc: "chance that each parameter of a child is set to a random value, in [0, 1]"},
		{Name: "crossover", Kind: ChoiceKind(crossovers...), Default: tableIIIDoc(gaCrossoverTable), Doc: "reproduction: 1point, 2point or uniform crossover"},
		{Name: "selection", Kind: ChoiceKind(gaSelections...), Default: "tournament (Table III: tour8/tour4)", Doc: "parent selection: tournament or rank (linear rank-based roulette)"},
		{Name: "tournament", Kind: IntKind(), Default: tableIIIDoc(gaTourTable), Doc: "tournament size for selection=tournament, 1 to 100,000"},
		{Name: "elitism", Kind: IntKind(), Default: "1 (not in Table III)", Doc: "best configurations copied unchanged into the next generation, 0 to popsize-1"},
	},
	New: newGenetic,
}

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// crossovers are the values of crossover, here and in gls; gaSelections those of
// selection.
var (
	crossovers   = []string{"1point", "2point", "uniform"}
	gaSelections = []string{"tournament", "rank"}
)

type genetic struct {
	opts Options // resolved at Run, when the budget is known
}

func newGenetic(opts Options) (Strategy, error) {
	// Validate with the defaults of one column; Run resolves the budget's own.
	if _, err := gaResolve(opts, 200); err != nil {
		return nil, err
	}
	return &genetic{opts: opts}, nil
}

func (*genetic) Name() string { return "genetic" }

// CheckSpace resolves the options at the run's budget, whose Table III column gives the
// defaults: elitism=20 fits the population of 40 at budget 200 but not the 8 at budget
// 25, which a benchmark must hear of before its first cell, not when that cell runs.
func (s *genetic) CheckSpace(_ *space.Space, budget int) error {
	_, err := gaResolve(s.opts, budget)
	if _, set := s.opts["popsize"]; err != nil && !set {
		return fmt.Errorf("%w (popsize is %d, Table III's at this budget: set popsize, or less elitism)", err, tableIII(budget, gaPopTable))
	}
	return err
}

type gaParams struct {
	pop, tour, elite int
	mutation         float64
	crossover        string
	selection        string
}

func gaResolve(o Options, budget int) (gaParams, error) {
	var g gaParams
	var err error
	if g.pop, err = o.Int("popsize", tableIII(budget, gaPopTable)); err != nil {
		return g, err
	}
	if g.mutation, err = o.Float("mutation", tableIII(budget, gaMutationTable)); err != nil {
		return g, err
	}
	if g.crossover, err = o.Choice("crossover", tableIII(budget, gaCrossoverTable), crossovers...); err != nil {
		return g, err
	}
	if g.selection, err = o.Choice("selection", "tournament", gaSelections...); err != nil {
		return g, err
	}
	if g.tour, err = o.Int("tournament", tableIII(budget, gaTourTable)); err != nil {
		return g, err
	}
	if g.elite, err = o.Int("elitism", 1); err != nil {
		return g, err
	}
	if err := checkPopulation("popsize", g.pop, 2); err != nil {
		return g, err
	}
	switch {
	case g.mutation < 0 || g.mutation > 1:
		return g, fmt.Errorf("option mutation: %v, want a chance in [0, 1]", g.mutation)
	case g.tour < 1 || g.tour > maxPopulation:
		// a tournament draws its size in members for each parent: an unbounded size
		// (2^31) made a generation take minutes
		return g, fmt.Errorf("option tournament: %d, want 1 to %d", g.tour, maxPopulation)
	case g.elite < 0 || g.elite >= g.pop:
		return g, fmt.Errorf("option elitism: %d, want 0 to popsize-1", g.elite)
	}
	return g, nil
}

// gaRetries is how often a child that was evaluated before is mutated again.
const gaRetries = 8

func (s *genetic) Run(ctx context.Context, p Problem) error {
	g, err := gaResolve(s.opts, p.Budget())
	if err != nil {
		return err
	}
	sp, r := p.Space(), p.Rand()
	sizes := popSizes(sp)
	ev := newPopEvaluator(ctx, p)

	pop := make([]space.Config, g.pop)
	for i := range pop {
		pop[i] = sp.Sample(r, nil)
	}
	fit := make([]float64, g.pop)
	next := make([]space.Config, g.pop)
	for i := range next {
		next[i] = make(space.Config, len(sizes))
	}
	// weights for rank selection: best gets n, worst gets 1
	total := g.pop * (g.pop + 1) / 2
	for {
		if err := ev.generation(pop, fit); err != nil {
			return stopped(err)
		}
		if ev.done() {
			return nil
		}
		order := popOrder(fit)
		if ev.fresh == 0 { // converged: keep the elite, restart the rest
			for i, o := range order {
				if i < max(g.elite, 1) {
					copy(next[i], pop[o])
				} else {
					sp.Sample(r, next[i])
				}
			}
			pop, next = next, pop
			continue
		}
		rank := make([]int, g.pop) // rank[i] = position of pop[i] in order
		for pos, o := range order {
			rank[o] = pos
		}
		selectOne := func() space.Config {
			if g.selection == "rank" {
				t := r.IntN(total)
				for pos := range g.pop {
					t -= g.pop - pos
					if t < 0 {
						return pop[order[pos]]
					}
				}
				return pop[order[0]]
			}
			best := r.IntN(g.pop)
			for range g.tour - 1 {
				if c := r.IntN(g.pop); rank[c] < rank[best] {
					best = c
				}
			}
			return pop[best]
		}
		for i := range g.elite {
			copy(next[i], pop[order[i]])
		}
		for i := g.elite; i < g.pop; i++ {
			a, b := selectOne(), selectOne()
			child := next[i]
			gaCross(g.crossover, a, b, child, nil, r)
			for j := range child {
				if r.Float64() < g.mutation {
					child[j] = r.IntN(sizes[j])
				}
			}
			popRepair(sp, sizes, child, r)
			for try := 0; try < gaRetries && (ev.isSeen(child) || gaIn(next[:i], child)); try++ {
				j := r.IntN(len(sizes))
				child[j] = r.IntN(sizes[j])
				popRepair(sp, sizes, child, r)
			}
		}
		pop, next = next, pop
	}
}

// gaCross writes into child a crossover of a and b, and into twin, unless it is nil, the
// complementary crossover (each parameter from the other parent), so that a pair of parents
// can give two children from the same draws, as genetic local search's reproduction does.
func gaCross(kind string, a, b, child, twin space.Config, r interface{ IntN(int) int }) {
	n := len(child)
	set := func(j int, fromB bool) {
		x, y := a[j], b[j]
		if fromB {
			x, y = y, x
		}
		child[j] = x
		if twin != nil {
			twin[j] = y
		}
	}
	if kind == "uniform" {
		for j := range n {
			set(j, r.IntN(2) != 0)
		}
		return
	}
	// 1-point and 2-point: child takes b's values in [lo, hi) and a's elsewhere.
	lo, hi := r.IntN(n+1), n
	if kind == "2point" {
		if hi = r.IntN(n + 1); lo > hi {
			lo, hi = hi, lo
		}
	}
	for j := range n {
		set(j, j >= lo && j < hi)
	}
}

func gaIn(cs []space.Config, c space.Config) bool {
	for _, d := range cs {
		if slices.Equal(d, c) {
			return true
		}
	}
	return false
}
