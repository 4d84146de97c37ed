package strategy

import (
	"context"
	"fmt"

	"github.com/ktune/ktune/space"
)

// Table III of seed 000, differential evolution rows, per budget column (25 ... 1600);
// blank cells repeat the cell to their left.
var (
	dePopTable    = [7]int{1, 2, 4, 8, 16, 32, 32}
	deMethodTable = [7]string{"best1bin", "best1bin", "best1bin", "best2bin", "best2bin", "best1exp", "best1exp"}
	deCRTable     = [7]float64{0.5, 0.7, 0.7, 0.7, 0.7, 0.7, 0.7}
)

var diffevoFactory = Factory{
	Doc: "Differential evolution (seed 000 III-C2, SciPy's scheme) on the unit cube mapped " +
		"to the discrete space as seed 000 does (value index = floor(x * number of values)). " +
		"For each member a mutant is built from the best and/or random members " +
		"(best1bin, best2bin, rand1bin, best1exp), crossed over with the member " +
		"(binomial or exponential) and replaces it when at least as good. Out-of-cube " +
		"coordinates are redrawn uniformly; a point that the restrictions forbid is " +
		"evaluated as the nearest valid configuration (a Hamming neighbour, else the nearest " +
		"of 64 random repairs of the broken parameter groups), whose cell centre then " +
		"replaces the trial point. A " +
		"generation that brings no new configuration re-initialises all but the best. Runs " +
		"until the budget or the space is exhausted. Defaults follow seed 000's Table III.",
	Options: []Option{
		{Name: "method", Kind: ChoiceKind(deMethods...), Default: tableIIIDoc(deMethodTable), Doc: "mixing strategy: best1bin, best2bin, rand1bin or best1exp"},
		{Name: "popsize", Kind: IntKind(), Default: tableIIIDoc(dePopTable), Doc: "population size per parameter, as SciPy (population = popsize x parameters, at least 5); 1 to 1,000"},
		{Name: "Fmin", Kind: FloatKind(), Default: "0.2 (Table III mutation (0.2, 0.7))", Doc: "lower end of the mutation factor F, drawn uniformly per generation (dithering); 0 <= Fmin <= Fmax <= 2"},
		{Name: "Fmax", Kind: FloatKind(), Default: "0.7 (Table III mutation (0.2, 0.7))", Doc: "upper end of F; set Fmin = Fmax for a constant F"},
		{Name: "CR", Kind: FloatKind(), Default: tableIIIDoc(deCRTable), Doc: "crossover (recombination) probability, in [0, 1]"},
	},
	New: newDiffEvo,
}

// deMethods are the values of method, SciPy's mixing strategies.
var deMethods = []string{"best1bin", "best2bin", "rand1bin", "best1exp"}

type diffevo struct{ opts Options }

type deParams struct {
	method         string
	pop            int
	fmin, fmax, cr float64
}

func deResolve(o Options, budget int) (deParams, error) {
	var q deParams
	var err error
	if q.method, err = o.Choice("method", tableIII(budget, deMethodTable), deMethods...); err != nil {
		return q, err
	}
	if q.pop, err = o.Int("popsize", tableIII(budget, dePopTable)); err != nil {
		return q, err
	}
	if q.fmin, err = o.Float("Fmin", 0.2); err != nil {
		return q, err
	}
	if q.fmax, err = o.Float("Fmax", 0.7); err != nil {
		return q, err
	}
	if q.cr, err = o.Float("CR", tableIII(budget, deCRTable)); err != nil {
		return q, err
	}
	switch {
	case q.pop < 1 || q.pop > deMaxPopsize:
		return q, fmt.Errorf("option popsize: %d, want 1 to %d (configurations per parameter)", q.pop, deMaxPopsize)
	case q.fmin < 0 || q.fmax < q.fmin || q.fmax > 2:
		return q, fmt.Errorf("options Fmin, Fmax: %v, %v, want 0 <= Fmin <= Fmax <= 2", q.fmin, q.fmax)
	case q.cr < 0 || q.cr > 1:
		return q, fmt.Errorf("option CR: %v, want a probability in [0, 1]", q.cr)
	}
	return q, nil
}

// deMaxPopsize bounds popsize, which counts configurations per parameter, so that the
// population stays within maxPopulation for spaces of up to 100 parameters.
const deMaxPopsize = maxPopulation / 100

func newDiffEvo(opts Options) (Strategy, error) {
	if _, err := deResolve(opts, 200); err != nil {
		return nil, err
	}
	return &diffevo{opts: opts}, nil
}

func (*diffevo) Name() string { return "diffevo" }

func (s *diffevo) Run(ctx context.Context, p Problem) error {
	q, err := deResolve(s.opts, p.Budget())
	if err != nil {
		return err
	}
	sp, r := p.Space(), p.Rand()
	sizes := popSizes(sp)
	d := len(sizes)
	n := max(q.pop*d, 5)
	ev := newPopEvaluator(ctx, p)

	cfg := make([]space.Config, n)
	x := make([][]float64, n)
	fit := make([]float64, n)
	for i := range n {
		cfg[i] = sp.Sample(r, nil)
		x[i] = popToPoint(sizes, cfg[i], nil)
	}
	if err := ev.generation(cfg, fit); err != nil {
		return stopped(err)
	}
	tcfg := make([]space.Config, n)
	tx := make([][]float64, n)
	tfit := make([]float64, n)
	for i := range n {
		tcfg[i] = make(space.Config, d)
		tx[i] = make([]float64, d)
	}
	mutant := make([]float64, d)
	others := func(i, k int) []int { // k distinct members other than i
		out := make([]int, 0, k)
		for len(out) < k {
			c := r.IntN(n)
			if c == i || deHas(out, c) {
				continue
			}
			out = append(out, c)
		}
		return out
	}
	for {
		if ev.done() {
			return nil
		}
		best := popBest(fit)
		f := q.fmin + (q.fmax-q.fmin)*r.Float64()
		for i := range n {
			switch q.method {
			case "best2bin":
				o := others(i, 4)
				for k := range d {
					mutant[k] = x[best][k] + f*(x[o[0]][k]+x[o[1]][k]-x[o[2]][k]-x[o[3]][k])
				}
			case "rand1bin":
				o := others(i, 3)
				for k := range d {
					mutant[k] = x[o[0]][k] + f*(x[o[1]][k]-x[o[2]][k])
				}
			default: // best1bin, best1exp
				o := others(i, 2)
				for k := range d {
					mutant[k] = x[best][k] + f*(x[o[0]][k]-x[o[1]][k])
				}
			}
			t := tx[i]
			copy(t, x[i])
			start := r.IntN(d)
			if q.method == "best1exp" {
				for k, j := 0, start; k < d; k, j = k+1, (j+1)%d {
					t[j] = mutant[j]
					if r.Float64() >= q.cr {
						break
					}
				}
			} else {
				for k := range d {
					if k == start || r.Float64() < q.cr {
						t[k] = mutant[k]
					}
				}
			}
			for k := range d {
				if t[k] < 0 || t[k] > 1 {
					t[k] = r.Float64()
				}
			}
			popRepair(sp, sizes, popToConfig(sizes, t, tcfg[i]), r)
			popToPoint(sizes, tcfg[i], t)
		}
		if err := ev.generation(tcfg, tfit); err != nil {
			return stopped(err)
		}
		for i := range n {
			if tfit[i] <= fit[i] { // +Inf <= +Inf holds: failed members move on too
				fit[i] = tfit[i]
				copy(cfg[i], tcfg[i])
				copy(x[i], tx[i])
			}
		}
		if ev.fresh == 0 {
			b := popBest(fit)
			for i := range n {
				if i != b {
					popToPoint(sizes, sp.Sample(r, cfg[i]), x[i])
				}
			}
			if err := ev.generation(cfg, fit); err != nil {
				return stopped(err)
			}
		}
	}
}

func deHas(s []int, v int) bool {
	for _, w := range s {
		if w == v {
			return true
		}
	}
	return false
}
