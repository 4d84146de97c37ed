package landscape

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/ktune/ktune/space"
)

// Proportion is the proportion of centrality C_p at one p.
type Proportion struct {
	P float64 `json:"p"`
	C float64 `json:"c"`
}

// Analysis is the landscape analysis of one space under one neighbourhood.
type Analysis struct {
	Neighbourhood string `json:"neighbourhood"`
	Points        int    `json:"points"` // configurations in the space
	Failed        int    `json:"failed"` // configurations without a successful objective
	Minima        int    `json:"minima"`
	Maxima        int    `json:"maxima"`
	Saddles       int    `json:"saddles"`
	Regular       int    `json:"regular"`
	// Optimum is the best successful objective, in objective units.
	Optimum float64 `json:"optimum"`
	// MinimaFractions is the fraction of optimal fitness of every successful local
	// minimum, in descending order (seed 000's Fig. 3); nil (null) where it is undefined,
	// as FractionNote says.
	MinimaFractions []float64 `json:"minima_fraction_of_optimum"`
	// FractionNote says why MinimaFractions is left out: the optimum is 0 or the objective
	// has negative values, where a ratio to the optimum means nothing. Empty when given.
	FractionNote string `json:"fraction_of_optimum_note,omitempty"`
	// Edges is the number of edges of the fitness flow graph.
	Edges int `json:"edges"`
	// PageRankIterations is the number of power iterations PageRank took.
	PageRankIterations int `json:"pagerank_iterations"`
	// Proportions is C_p for each p asked for (seed 000's Fig. 7).
	Proportions []Proportion `json:"proportion_of_centrality"`
	// Classes is the class of every configuration, by space index.
	Classes []Class `json:"-"`
	// Centrality is the PageRank of every configuration in the fitness flow graph.
	Centrality []float64 `json:"-"`

	minima []minimum // successful minima, for ProportionAt at any p
	max    bool
}

// minimum is a successful local minimum's objective and centrality.
type minimum struct {
	objective, rank float64
}

// Options configure Analyze.
type Options struct {
	// Neighbourhood is space.Hamming or space.Adjacent; zero means Hamming.
	Neighbourhood space.Neighbourhood
	// Ps are the proportions p at which C_p is computed; nil means 0, 0.01, ..., 0.15.
	Ps []float64
	// PageRank configures the centrality.
	PageRank PageRankOptions
}

// DefaultPs are seed 000's proportions: 0% to 15% of the optimum in steps of 1%.
func DefaultPs() []float64 {
	ps := make([]float64, 16)
	for i := range ps {
		ps[i] = float64(i) / 100
	}
	return ps
}

// Analyze classifies every configuration of l, builds its fitness flow graph, ranks the
// nodes by PageRank and computes the proportion of centrality C_p: the PageRank of the
// successful local minima whose objective is within p·|optimum| of the optimum (at most
// optimum + p·|optimum|, or at least optimum - p·|optimum| when maximising), over the
// PageRank of all successful local minima. For a positive optimum that is seed 000's
// (1+p)·optimum; taking the magnitude keeps the threshold on the worse side of a
// negative optimum, so C_p never leaves out the optimum itself.
func Analyze(ctx context.Context, l *Landscape, o Options) (*Analysis, error) {
	nb := o.Neighbourhood
	if nb == 0 {
		nb = space.Hamming
	}
	if nb != space.Hamming && nb != space.Adjacent {
		return nil, fmt.Errorf("landscape: analysis needs a Hamming or adjacent neighbourhood, not %v", nb)
	}
	ns, err := listNeighbours(ctx, l, nb)
	if err != nil {
		return nil, err
	}
	opt, _ := l.optimum()
	if math.IsNaN(opt) {
		return nil, fmt.Errorf("landscape: no configuration succeeded")
	}
	f := l.fitness()
	a := &Analysis{
		Neighbourhood: nb.String(),
		Points:        len(f),
		Optimum:       opt,
		Classes:       classify(f, ns, len(l.Space.Params())),
		FractionNote:  l.fractionUndefined(opt),
		max:           l.Maximize,
	}
	g := flowGraph(f, ns)
	a.Edges = g.Edges()
	a.Centrality, a.PageRankIterations, err = PageRank(ctx, g, o.PageRank)
	if err != nil {
		return nil, err
	}
	for i, c := range a.Classes {
		v := l.Objective[i]
		if !ok(v) {
			a.Failed++
		}
		switch c {
		case Minimum:
			a.Minima++
			if ok(v) {
				a.minima = append(a.minima, minimum{v, a.Centrality[i]})
				if a.FractionNote == "" {
					a.MinimaFractions = append(a.MinimaFractions, l.fraction(v, opt))
				}
			}
		case Maximum:
			a.Maxima++
		case Saddle:
			a.Saddles++
		default:
			a.Regular++
		}
	}
	slices.SortFunc(a.MinimaFractions, func(x, y float64) int { return -cmpFloat(x, y) })
	ps := o.Ps
	if ps == nil {
		ps = DefaultPs()
	}
	for _, p := range ps {
		a.Proportions = append(a.Proportions, Proportion{P: p, C: a.proportion(p)})
	}
	return a, nil
}

// proportion computes C_p from the successful minima.
func (a *Analysis) proportion(p float64) float64 {
	var in, all float64
	limit := a.threshold(p)
	for _, m := range a.minima {
		all += m.rank
		if (!a.max && m.objective <= limit) || (a.max && m.objective >= limit) {
			in += m.rank
		}
	}
	if all == 0 {
		return math.NaN()
	}
	return in / all
}

// threshold is the worst objective within p of the optimum: optimum + p·|optimum| when
// minimising, optimum - p·|optimum| when maximising. It is written as a factor of the
// optimum so that a positive optimum gives exactly seed 000's (1±p)·optimum, bit for bit.
func (a *Analysis) threshold(p float64) float64 {
	// above the optimum when minimising a non-negative or maximising a negative one
	if (a.Optimum >= 0) != a.max {
		return (1 + p) * a.Optimum
	}
	return (1 - p) * a.Optimum
}

// ProportionAt returns C_p. An Analysis made by Analyze computes it for any p; one read
// back from JSON has only the proportions it lists, and returns NaN for any other p.
func (a *Analysis) ProportionAt(p float64) float64 {
	if a.minima != nil {
		return a.proportion(p)
	}
	for _, q := range a.Proportions {
		if math.Abs(q.P-p) < 1e-9 {
			return q.C
		}
	}
	return math.NaN()
}

func cmpFloat(x, y float64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}
