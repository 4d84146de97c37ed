package strategy

import (
	"context"
	"fmt"
	"math"

	"github.com/ktune/ktune/space"
)

var fireflyFactory = Factory{
	Doc: "Firefly algorithm, as in Kernel Tuner, on the unit cube mapped to the discrete " +
		"space as seed 000 does (value index = floor(x * number of values)). Each generation " +
		"every firefly moves towards each brighter (lower-fitness) one with attractiveness " +
		"B0*exp(-gamma*r^2), r the Euclidean distance in the unit cube, plus a random step of " +
		"size alpha; the brightest only takes the random step. A mapped point that the " +
		"restrictions forbid is evaluated as the nearest valid configuration (a Hamming " +
		"neighbour, else the nearest of 64 random repairs of the broken parameter groups). " +
		"A generation that brings no " +
		"new configuration re-scatters all but the brightest (a lone firefly too). Runs until the budget or the " +
		"space is exhausted. Not in seed 000's Table III: defaults are Kernel Tuner's.",
	Options: []Option{
		{Name: "popsize", Kind: IntKind(), Default: "20 (Kernel Tuner)", Doc: "number of fireflies, 1 to 100,000"},
		{Name: "B0", Kind: FloatKind(), Default: "1.0 (Kernel Tuner)", Doc: "attractiveness at distance 0 (0 or more)"},
		{Name: "gamma", Kind: FloatKind(), Default: "1.0 (Kernel Tuner)", Doc: "light absorption: how fast attractiveness falls with distance (0 or more)"},
		{Name: "alpha", Kind: FloatKind(), Default: "0.2 (Kernel Tuner)", Doc: "size of the random step, in the unit cube, per coordinate uniform in [-alpha/2, alpha/2) (0 or more)"},
	},
	New: newFirefly,
}

type firefly struct {
	n                int
	b0, gamma, alpha float64
}

func newFirefly(opts Options) (Strategy, error) {
	s := &firefly{}
	var err error
	if s.n, err = opts.Int("popsize", 20); err != nil {
		return nil, err
	}
	if s.b0, err = opts.Float("B0", 1.0); err != nil {
		return nil, err
	}
	if s.gamma, err = opts.Float("gamma", 1.0); err != nil {
		return nil, err
	}
	if s.alpha, err = opts.Float("alpha", 0.2); err != nil {
		return nil, err
	}
	if err := checkPopulation("popsize", s.n, 1); err != nil {
		return nil, err
	}
	switch {
	case s.b0 < 0:
		return nil, fmt.Errorf("option B0: %v, want at least 0", s.b0)
	case s.alpha < 0:
		return nil, fmt.Errorf("option alpha: %v, want at least 0", s.alpha)
	case s.gamma < 0:
		return nil, fmt.Errorf("option gamma: %v, want at least 0", s.gamma)
	}
	return s, nil
}

func (*firefly) Name() string { return "firefly" }

func (s *firefly) Run(ctx context.Context, p Problem) error {
	sp, r := p.Space(), p.Rand()
	sizes := popSizes(sp)
	d := len(sizes)
	ev := newPopEvaluator(ctx, p)
	n := s.n
	x := make([][]float64, n)
	prev := make([][]float64, n) // positions of the evaluated generation
	cfg := make([]space.Config, n)
	fit := make([]float64, n)
	for i := range n {
		cfg[i] = sp.Sample(r, nil)
		x[i] = popToPoint(sizes, cfg[i], nil)
		prev[i] = make([]float64, d)
	}
	first := true
	for {
		if !first {
			for i := range n {
				popRepair(sp, sizes, popToConfig(sizes, x[i], cfg[i]), r)
			}
		}
		first = false
		if err := ev.generation(cfg, fit); err != nil {
			return stopped(err)
		}
		if ev.done() {
			return nil
		}
		best := popBest(fit)
		if ev.fresh == 0 {
			// A lone firefly is the brightest: it is re-scattered too, or its random
			// steps (smaller than its cell for a small alpha) keep it on the
			// configuration it was evaluated as, and the run spins without using budget.
			for i := range n {
				if i != best || n == 1 {
					popToPoint(sizes, sp.Sample(r, cfg[i]), x[i])
				}
			}
			continue
		}
		for i := range n {
			copy(prev[i], x[i])
		}
		for i := range n {
			moved := false
			for j := range n {
				if !(fit[j] < fit[i]) {
					continue
				}
				r2 := 0.0
				for k := range d {
					dk := prev[j][k] - x[i][k]
					r2 += dk * dk
				}
				beta := s.b0 * math.Exp(-s.gamma*r2)
				for k := range d {
					x[i][k] += beta*(prev[j][k]-x[i][k]) + s.alpha*(r.Float64()-0.5)
				}
				moved = true
			}
			if !moved {
				for k := range d {
					x[i][k] += s.alpha * (r.Float64() - 0.5)
				}
			}
			for k := range d {
				x[i][k] = min(max(x[i][k], 0), 1)
			}
		}
	}
}
