package strategy

import (
	"context"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"

	"github.com/ktune/ktune/space"
)

// Seed 002 (GSTuner, Section 4.6 and 5.1.3) searches with a multi-population genetic
// algorithm: sub-populations on a single ring exchange individuals with their two
// neighbours, each child is bred from parents among "the four neighborhoods" of its place
// by uniform crossover and bitwise mutation, and the search ends when the share of the
// most frequent individual in any sub-population (the max-count ratio, MCR) reaches a
// threshold. The paper gives 2 sub-populations of 16, crossover rate 0.8, mutation rate
// 0.005 and MCR threshold 0.5; the rest (how the four neighbours are arranged, how parents
// are weighted, which individuals a child and a migrant replace, how often and how many
// migrate) it leaves open, and the choices below are ktune's, said in the options' docs.

var mpgaFactory = Factory{
	Doc: "Multi-population genetic algorithm of seed 002 (GSTuner, Section 4.6): " +
		"sub-populations on a ring, each laid out on a grid whose edges wrap around. Every " +
		"generation each place breeds a child from parents drawn among its four grid " +
		"neighbours (the fitter by rank the likelier; failed configurations only when all " +
		"four failed), by uniform crossover (each parameter from either parent) with chance " +
		"crossover, else a copy of the first parent, then flips each bit of each " +
		"parameter's value index with chance mutation (seed 002 stores genes in binary; an " +
		"index past the last value wraps around). A child that the restrictions forbid is " +
		"repaired to the nearest valid configuration, as genetic does; it replaces its " +
		"place when it is at least as good. Every migration generations each " +
		"sub-population sends copies of its best migrants to both ring neighbours, where " +
		"they replace the worst. Seed 002 stops when the most frequent configuration fills " +
		"a share mcr of any sub-population; ktune then, and when a whole generation brings " +
		"no configuration not asked for before, starts afresh from random populations, each " +
		"keeping its best individual, so that the budget is used (restart=false stops there " +
		"instead, using less). Defaults " +
		"are seed 002's where it gives them (Section 5.1.3, 5.7.3), and none depends on the " +
		"budget. With sample=quota it first narrows the space as seed 002 does (Section 4.5, " +
		"Algorithm 2): a share ratio of the settings of a stencil spec from 'ktune stencil generate', " +
		"drawn from its optimisation combinations (which of block and cyclic merging, streaming, " +
		"retiming, prefetching and temporal blocking are on) in iterations of a share tr of the space, each " +
		"combination's share lowered by ar (not below lr) after an iteration unless it held the " +
		"setting with the best time that model predicts for the stencil, which gets the rest of " +
		"tr; the GA then searches only those settings and ends when it has asked for them all, so " +
		"a run may use less than its budget. There it breeds a gene per parameter as above " +
		"and moves a child outside the sample to the nearest sampled setting, by value steps " +
		"(encoding=nearest); encoding=reindex breeds as seed 002 does, an individual one gene, " +
		"the position of a sampled setting among them in ascending order of its values, bred " +
		"bit by bit (uniform crossover over the bits, each bit flipped with chance mutation, a " +
		"position past the last wrapping around), so that every child is a sampled setting. " +
		"On recorded stencils nearest found as good or better settings (BENCHMARKS.md), so " +
		"it is the default.",
	Options: []Option{
		{Name: "populations", Kind: IntKind(), Default: "2 (seed 002)", Doc: "sub-populations on the migration ring, 1 to 100"},
		{Name: "popsize", Kind: IntKind(), Default: "16 (seed 002)", Doc: "individuals per sub-population, 2 to 1,000; laid out ceil(sqrt(popsize)) per row"},
		{Name: "crossover", Kind: FloatKind(), Default: "0.8 (seed 002)", Doc: "chance that a child is a uniform crossover of two parents rather than a copy of one, in [0, 1]"},
		{Name: "mutation", Kind: FloatKind(), Default: "0.005 (seed 002)", Doc: "chance that each bit of a child's parameter value indices flips, in [0, 1]"},
		{Name: "migration", Kind: IntKind(), Default: "5 (not in seed 002; ktune's choice)", Doc: "generations between migrations, 0 for none"},
		{Name: "migrants", Kind: IntKind(), Default: "1 (not in seed 002; ktune's choice)", Doc: "best individuals a sub-population sends to each ring neighbour, 0 to popsize-1"},
		{Name: "mcr", Kind: FloatKind(), Default: "0.5 (seed 002, Section 5.7.3)", Doc: "max-count ratio that ends a search: share of a sub-population held by its most frequent configuration, in (0, 1]"},
		{Name: "sample", Kind: ChoiceKind("none", "quota"), Default: "none", Doc: "none searches the whole space; quota searches the settings seed 002's Algorithm 2 draws, guided by model (needs model and stencil)"},
		{Name: "model", Kind: fileKind(), Default: "none", Doc: "sample=quota: a stencil model file written by 'ktune stencil train'"},
		{Name: "stencil", Kind: stencilNameKind(), Default: "none", Doc: "sample=quota: the stencil's kernel name as 'ktune stencil generate' writes it (random2d3r_s14, star3d2r), which says its points"},
		{Name: "ratio", Kind: FloatKind(), Default: "0.1 (seed 002)", Doc: "sample=quota: share of the space's settings drawn, in (0, 1]"},
		{Name: "tr", Kind: FloatKind(), Default: "0.01 (seed 002)", Doc: "sample=quota: share of the space drawn per iteration (Algorithm 2's TR), in (0, 1]"},
		{Name: "ar", Kind: FloatKind(), Default: "0.001 (seed 002)", Doc: "sample=quota: share a combination loses per iteration it does not hold the best prediction (AR), in [0, tr]; 0 draws each combination in proportion to its size, the model unused"},
		{Name: "lr", Kind: FloatKind(), Default: "0.001 (seed 002)", Doc: "sample=quota: the lowest share a combination is lowered to (LR), in [0, tr]"},
		{Name: "encoding", Kind: ChoiceKind("nearest", "reindex"), Default: "nearest (ktune's; seed 002 reindexes)", Doc: "sample=quota: nearest breeds a gene per parameter and moves a child outside the sample to the nearest sampled setting; reindex breeds one binary gene, a sampled setting's position in ascending order, so every child is a sampled setting (seed 002, Section 4.6)"},
		{Name: "restart", Kind: BoolKind(), Default: "true (ktune's choice: seed 002 stops; seed 000 wants the budget used)", Doc: "start afresh from random populations, each keeping its best individual, when the max-count ratio is reached or a generation brings nothing new; false ends the run there"},
	},
	New: newMPGA,
}

type mpgaParams struct {
	pops, size, migration, migrants int
	crossover, mutation, mcr        float64
	restart                         bool
}

// The bounds of populations and popsize keep a generation within maxPopulation
// configurations.
const (
	mpgaMaxPops = 100
	mpgaMaxSize = 1000
)

func mpgaResolve(o Options) (mpgaParams, error) {
	var g mpgaParams
	var err error
	if g.pops, err = o.Int("populations", 2); err != nil {
		return g, err
	}
	if g.size, err = o.Int("popsize", 16); err != nil {
		return g, err
	}
	if g.crossover, err = o.Float("crossover", 0.8); err != nil {
		return g, err
	}
	if g.mutation, err = o.Float("mutation", 0.005); err != nil {
		return g, err
	}
	if g.migration, err = o.Int("migration", 5); err != nil {
		return g, err
	}
	if g.migrants, err = o.Int("migrants", 1); err != nil {
		return g, err
	}
	if g.mcr, err = o.Float("mcr", 0.5); err != nil {
		return g, err
	}
	if g.restart, err = o.Bool("restart", true); err != nil {
		return g, err
	}
	switch {
	case g.pops < 1 || g.pops > mpgaMaxPops:
		return g, fmt.Errorf("option populations: %d, want 1 to %d", g.pops, mpgaMaxPops)
	case g.size < 2 || g.size > mpgaMaxSize:
		return g, fmt.Errorf("option popsize: %d, want 2 to %d", g.size, mpgaMaxSize)
	case g.crossover < 0 || g.crossover > 1:
		return g, fmt.Errorf("option crossover: %v, want a chance in [0, 1]", g.crossover)
	case g.mutation < 0 || g.mutation > 1:
		return g, fmt.Errorf("option mutation: %v, want a chance in [0, 1]", g.mutation)
	case g.migration < 0:
		return g, fmt.Errorf("option migration: %d, want 0 (none) or more generations", g.migration)
	case g.migrants < 0 || g.migrants >= g.size:
		return g, fmt.Errorf("option migrants: %d, want 0 to popsize-1 (%d)", g.migrants, g.size-1)
	case !(g.mcr > 0 && g.mcr <= 1):
		return g, fmt.Errorf("option mcr: %v, want a share in (0, 1]", g.mcr)
	}
	return g, nil
}

type mpga struct {
	g       mpgaParams
	sampler *stencilSampler // nil unless sample=quota
	reindex bool            // sample=quota: one gene, a sampled setting's position (seed 002), not one per parameter
}

func newMPGA(opts Options) (Strategy, error) {
	g, err := mpgaResolve(opts)
	if err != nil {
		return nil, err
	}
	s := &mpga{g: g}
	mode, err := opts.Choice("sample", "none", "none", "quota")
	if err != nil {
		return nil, err
	}
	var q quotaParams
	if q.ratio, err = opts.Float("ratio", 0.1); err != nil {
		return nil, err
	}
	if q.tr, err = opts.Float("tr", 0.01); err != nil {
		return nil, err
	}
	if q.ar, err = opts.Float("ar", 0.001); err != nil {
		return nil, err
	}
	if q.lr, err = opts.Float("lr", 0.001); err != nil {
		return nil, err
	}
	switch {
	case !(q.ratio > 0 && q.ratio <= 1):
		return nil, fmt.Errorf("option ratio: %v, want a share in (0, 1]", q.ratio)
	case !(q.tr > 0 && q.tr <= 1):
		return nil, fmt.Errorf("option tr: %v, want a share in (0, 1]", q.tr)
	case !(q.ar >= 0 && q.ar <= q.tr):
		return nil, fmt.Errorf("option ar: %v, want a share in [0, tr (%v)]", q.ar, q.tr)
	case !(q.lr >= 0 && q.lr <= q.tr):
		return nil, fmt.Errorf("option lr: %v, want a share in [0, tr (%v)]", q.lr, q.tr)
	}
	encoding, err := opts.Choice("encoding", "nearest", "reindex", "nearest")
	if err != nil {
		return nil, err
	}
	s.reindex = encoding == "reindex"
	_, hasModel := opts["model"]
	_, hasStencil := opts["stencil"]
	if mode == "none" {
		if hasModel || hasStencil {
			return nil, fmt.Errorf("options model and stencil are for sample=quota; add sample=quota or leave them out")
		}
		return s, nil
	}
	var model, name string
	if hasModel {
		if model, err = opts.file("model"); err != nil {
			return nil, err
		}
	}
	if hasStencil {
		if name, err = opts.stencilName("stencil"); err != nil {
			return nil, err
		}
	}
	if s.sampler, err = newStencilSampler(q, model, name); err != nil {
		return nil, err
	}
	return s, nil
}

func (*mpga) Name() string { return "mpga" }

// mpgaPop is one sub-population: its configurations and their fitness, place by place.
type mpgaPop struct {
	cs  []space.Config
	fit []float64
}

func (s *mpga) Run(ctx context.Context, p Problem) error {
	g := s.g
	sp, r := p.Space(), p.Rand()
	sizes := popSizes(sp)
	widths := make([]int, len(sizes)) // bits of each parameter's value index
	for j, n := range sizes {
		widths[j] = bits.Len(uint(n - 1))
	}
	near := mpgaNeighbours(g.size)
	ev := newPopEvaluator(ctx, p)

	pops := make([]mpgaPop, g.pops)
	all := make([]space.Config, g.pops*g.size) // a generation, sub-population after sub-population
	allFit := make([]float64, len(all))
	for k := range pops {
		pops[k] = mpgaPop{cs: make([]space.Config, g.size), fit: make([]float64, g.size)}
		for i := range g.size {
			pops[k].cs[i] = make(space.Config, len(sizes))
		}
	}
	children := make([]space.Config, len(all))
	for i := range children {
		children[i] = make(space.Config, len(sizes))
	}
	var set *sampledSet // the settings searched, under sample=quota
	if s.sampler != nil {
		idx, err := s.sampler.sample(sp, r, nil)
		if err != nil {
			return err
		}
		set = newSampledSet(sp, idx)
	}
	var ranked []int
	var kept []space.Config // after a restart, each sub-population's best before it
	for {
		// a fresh start: random populations, each with its best so far in place 0
		for k := range pops {
			for i := range g.size {
				if set != nil {
					set.draw(r, pops[k].cs[i])
				} else {
					sp.Sample(r, pops[k].cs[i])
				}
				all[k*g.size+i] = pops[k].cs[i]
			}
			if k < len(kept) {
				copy(pops[k].cs[0], kept[k])
			}
		}
		if err := ev.generation(all, allFit); err != nil {
			return stopped(err)
		}
		if ev.done() || set != nil && set.exhausted(ev.seen) {
			return nil
		}
		for k := range pops {
			copy(pops[k].fit, allFit[k*g.size:])
		}
		for gen := 1; ; gen++ {
			for k, pop := range pops {
				for i := range g.size {
					child := children[k*g.size+i]
					ranked = mpgaRankNeighbours(pop.fit, near[i], ranked)
					pa := mpgaPick(len(ranked), r)
					a := ranked[pa]
					if set != nil && s.reindex {
						// seed 002's genes: the index of a sampled setting, in binary
						ga, gb := set.rank(pop.cs[a]), -1
						if r.Float64() < g.crossover {
							gb = ga
							if len(ranked) > 1 {
								rest := slices.Delete(ranked, pa, pa+1)
								gb = set.rank(pop.cs[rest[mpgaPick(len(rest), r)]])
							}
						}
						set.breed(ga, gb, g.mutation, r, child)
						continue
					}
					if r.Float64() < g.crossover {
						b := a
						if len(ranked) > 1 {
							rest := slices.Delete(ranked, pa, pa+1)
							b = rest[mpgaPick(len(rest), r)]
						}
						for j := range child {
							if r.IntN(2) == 0 {
								child[j] = pop.cs[a][j]
							} else {
								child[j] = pop.cs[b][j]
							}
						}
					} else {
						copy(child, pop.cs[a])
					}
					mpgaMutate(child, sizes, widths, g.mutation, r)
					popRepair(sp, sizes, child, r)
					if set != nil {
						set.snap(child, r)
					}
				}
			}
			if err := ev.generation(children, allFit); err != nil {
				return stopped(err)
			}
			if ev.done() || set != nil && set.exhausted(ev.seen) {
				return nil
			}
			stalled := ev.fresh == 0
			for k, pop := range pops {
				for i := range g.size {
					if f := allFit[k*g.size+i]; f <= pop.fit[i] {
						copy(pop.cs[i], children[k*g.size+i])
						pop.fit[i] = f
					}
				}
			}
			if g.migration > 0 && gen%g.migration == 0 {
				mpgaMigrate(pops, g.migrants)
			}
			if stalled || mpgaConverged(sp, pops, g.mcr) {
				break
			}
		}
		if !g.restart {
			return nil
		}
		// A restart that drops what the run found would spend the rest of the budget on
		// a search as blind as the first; the best of each sub-population, already
		// evaluated, costs nothing to keep.
		kept = kept[:0]
		for _, pop := range pops {
			kept = append(kept, pop.cs[popOrder(pop.fit)[0]].Clone())
		}
	}
}

// mpgaNeighbours returns, for each place of a sub-population of n, its neighbours on the
// grid: the places are laid out row by row, w = ceil(sqrt(n)) to a row, and the left,
// right, upper and lower neighbours of place i are i-1, i+1, i-w and i+w modulo n (the
// grid's edges wrap around, a row's end onto the next row's start). Repeats and the place
// itself are left out, so a sub-population of under five, or of six (two rows of three),
// has fewer than four neighbours per place (of two, one).
func mpgaNeighbours(n int) [][]int {
	w := 1
	for w*w < n {
		w++
	}
	out := make([][]int, n)
	for i := range n {
		for _, d := range []int{-1, 1, -w, w} {
			j := ((i+d)%n + n) % n
			if j != i && !slices.Contains(out[i], j) {
				out[i] = append(out[i], j)
			}
		}
	}
	return out
}

// mpgaRankNeighbours writes into dst the neighbours nb ordered from the fittest to the
// least fit (ties in nb's order), without those that failed (+Inf) unless all did.
func mpgaRankNeighbours(fit []float64, nb, dst []int) []int {
	dst = dst[:0]
	for _, j := range nb {
		if fit[j] < popInf {
			dst = append(dst, j)
		}
	}
	if len(dst) == 0 {
		dst = append(dst, nb...)
	}
	for i := 1; i < len(dst); i++ {
		for j := i; j > 0 && fit[dst[j]] < fit[dst[j-1]]; j-- {
			dst[j], dst[j-1] = dst[j-1], dst[j]
		}
	}
	return dst
}

// mpgaPick draws a position among m candidates ranked fittest first, with chance
// proportional to its rank weight: m for the fittest down to 1 for the least fit. The
// second parent is drawn the same way among the neighbours left.
func mpgaPick(m int, r *rand.Rand) int {
	t := r.IntN(m * (m + 1) / 2)
	pos := 0
	for ; pos < m-1; pos++ {
		t -= m - pos
		if t < 0 {
			break
		}
	}
	return pos
}

// mpgaMutate flips each of the widths[j] low bits of child[j] with chance rate; an index
// past the parameter's last value wraps around (modulo its number of values).
func mpgaMutate(child space.Config, sizes, widths []int, rate float64, r *rand.Rand) {
	if rate == 0 {
		return
	}
	for j, w := range widths {
		v := child[j]
		for b := range w {
			if r.Float64() < rate {
				v ^= 1 << b
			}
		}
		child[j] = v % sizes[j]
	}
}

// mpgaMigrate moves individuals around the ring: each sub-population sends copies of its
// best migrants (as ranked before anyone moves) to the sub-populations before and after it
// on the ring (once when those are the same one, as with two), where the arrivals, from
// the one before first, replace the worst individuals, at most all but the best.
func mpgaMigrate(pops []mpgaPop, migrants int) {
	n := len(pops)
	if n < 2 || migrants == 0 {
		return
	}
	type migrant struct {
		c   space.Config
		fit float64
	}
	best := make([][]migrant, n)
	worst := make([][]int, n) // places from the worst up
	for k, pop := range pops {
		order := popOrder(pop.fit)
		for _, i := range order[:migrants] {
			best[k] = append(best[k], migrant{pop.cs[i].Clone(), pop.fit[i]})
		}
		for i := len(order) - 1; i > 0; i-- {
			worst[k] = append(worst[k], order[i])
		}
	}
	for k, pop := range pops {
		from := []int{(k + n - 1) % n}
		if next := (k + 1) % n; next != from[0] {
			from = append(from, next)
		}
		w := 0
		for _, f := range from {
			for _, m := range best[f] {
				if w == len(worst[k]) {
					break
				}
				i := worst[k][w]
				copy(pop.cs[i], m.c)
				pop.fit[i] = m.fit
				w++
			}
		}
	}
}

// mpgaConverged reports whether the max-count ratio of any sub-population, the share its
// most frequent configuration holds, is at least mcr: seed 002's termination condition.
func mpgaConverged(sp *space.Space, pops []mpgaPop, mcr float64) bool {
	for _, pop := range pops {
		if mpgaMaxCountRatio(sp, pop.cs) >= mcr {
			return true
		}
	}
	return false
}

// mpgaMaxCountRatio returns the share of cs held by its most frequent configuration.
func mpgaMaxCountRatio(sp *space.Space, cs []space.Config) float64 {
	count := make(map[int]int, len(cs))
	most := 0
	for _, c := range cs {
		idx, _ := sp.Index(c)
		count[idx]++
		most = max(most, count[idx])
	}
	return float64(most) / float64(len(cs))
}
