package strategy

import (
	"context"
	"fmt"

	"github.com/ktune/ktune/space"
)

// psoSwarmTable is seed 000's Table III "Number of particles" row as extracted (25, 10,
// 20, 40, 80, 160, and the 1600 column left blank, read as 160).
var psoSwarmTable = [7]int{25, 10, 20, 40, 80, 160, 160}

var psoFactory = Factory{
	Doc: "Particle swarm optimisation (seed 000 III-C2) on the unit cube, mapped to the " +
		"discrete space as seed 000 does (value index = floor(x * number of values)). Each " +
		"particle is pulled towards its own best and the swarm's best position; a mapped " +
		"point that the restrictions forbid is evaluated as the nearest valid configuration " +
		"(a Hamming neighbour, else the nearest of 64 random repairs of the broken " +
		"parameter groups). A generation that " +
		"brings no new configuration re-scatters the swarm (the best found is kept). Runs " +
		"until the budget or the space is exhausted.",
	Options: []Option{
		{Name: "popsize", Kind: IntKind(), Default: tableIIIDoc(psoSwarmTable), Doc: "number of particles, 1 to 100,000"},
		{Name: "w", Kind: FloatKind(), Default: "0.5 (Kernel Tuner; seed 000 keeps it constant)", Doc: "inertia: fraction of the velocity kept each step (0 or more)"},
		{Name: "c1", Kind: FloatKind(), Default: "2.0 (Kernel Tuner; seed 000 keeps it constant)", Doc: "cognitive constant: pull towards the particle's own best (0 or more)"},
		{Name: "c2", Kind: FloatKind(), Default: "1.0 (Kernel Tuner; seed 000 keeps it constant)", Doc: "social constant: pull towards the swarm's best (0 or more)"},
	},
	New: newPSO,
}

type pso struct {
	opts      Options
	w, c1, c2 float64
}

func newPSO(opts Options) (Strategy, error) {
	s := &pso{opts: opts}
	var err error
	if s.w, err = opts.Float("w", 0.5); err != nil {
		return nil, err
	}
	if s.c1, err = opts.Float("c1", 2.0); err != nil {
		return nil, err
	}
	if s.c2, err = opts.Float("c2", 1.0); err != nil {
		return nil, err
	}
	n, err := opts.Int("popsize", 1)
	if err != nil {
		return nil, err
	}
	if err := checkPopulation("popsize", n, 1); err != nil {
		return nil, err
	}
	for _, o := range []struct {
		name string
		v    float64
	}{{"w", s.w}, {"c1", s.c1}, {"c2", s.c2}} {
		if o.v < 0 {
			return nil, fmt.Errorf("option %s: %v, want at least 0", o.name, o.v)
		}
	}
	return s, nil
}

func (*pso) Name() string { return "pso" }

func (s *pso) Run(ctx context.Context, p Problem) error {
	n, _ := s.opts.Int("popsize", tableIII(p.Budget(), psoSwarmTable))
	sp, r := p.Space(), p.Rand()
	sizes := popSizes(sp)
	d := len(sizes)
	ev := newPopEvaluator(ctx, p)

	x := make([][]float64, n)      // positions
	v := make([][]float64, n)      // velocities
	pb := make([][]float64, n)     // personal best positions
	pbf := make([]float64, n)      // personal best fitness
	cfg := make([]space.Config, n) // what each position is evaluated as
	fit := make([]float64, n)
	scatter := func(i int) {
		x[i] = popToPoint(sizes, sp.Sample(r, cfg[i]), x[i])
		if v[i] == nil {
			v[i] = make([]float64, d)
		}
		for j := range v[i] {
			v[i][j] = (r.Float64() - 0.5) / 2 // uniform in [-0.25, 0.25)
		}
		pb[i] = append(pb[i][:0], x[i]...)
		pbf[i] = popInf
	}
	for i := range n {
		cfg[i] = make(space.Config, d)
		scatter(i)
	}
	var gb []float64
	gbf := popInf
	for {
		for i := range n {
			popRepair(sp, sizes, popToConfig(sizes, x[i], cfg[i]), r)
		}
		if err := ev.generation(cfg, fit); err != nil {
			return stopped(err)
		}
		if ev.done() {
			return nil
		}
		for i := range n {
			if fit[i] < pbf[i] || pbf[i] == popInf && fit[i] == popInf {
				pbf[i] = fit[i]
				pb[i] = append(pb[i][:0], x[i]...)
			}
			if gb == nil || fit[i] < gbf {
				gbf = fit[i]
				gb = append(gb[:0], x[i]...)
			}
		}
		if ev.fresh == 0 {
			for i := range n {
				scatter(i)
			}
			continue
		}
		for i := range n {
			for j := range d {
				r1, r2 := r.Float64(), r.Float64()
				v[i][j] = s.w*v[i][j] + s.c1*r1*(pb[i][j]-x[i][j]) + s.c2*r2*(gb[j]-x[i][j])
				x[i][j] += v[i][j]
				if x[i][j] < 0 || x[i][j] > 1 {
					x[i][j] = min(max(x[i][j], 0), 1)
					v[i][j] = 0
				}
			}
		}
	}
}
