package strategy

import (
	"context"
	"fmt"
	"math"
)

// Basin hopping (seed 000 section III-C2, after Wales and Doye 1997) on the unit cube:
// local minimisation, then repeated hops (a random perturbation of the current minimum,
// minimised again) accepted by the Metropolis criterion.

// Table III of seed 000, basin hopping rows, per budget column (25 ... 1600); blank cells
// repeat the cell to their left. The method row reads Powell, COBYLA, -, -, -, SLSQP, -:
// SLSQP (from 800) is a gradient method, and the gradient of the mapped objective is zero
// wherever it exists (the function is constant on each configuration's cell), so ktune
// keeps COBYLA there, the derivative-free method of the columns before it. The
// temperature row reads 0.1, -, -, -, 1.0, -, -: 0.1 below budget 400, 1.0 from 400.
var (
	bhMethodTable = [7]string{"powell", "cobyla", "cobyla", "cobyla", "cobyla", "cobyla", "cobyla"}
	bhTempTable   = [7]float64{0.1, 0.1, 0.1, 0.1, 1.0, 1.0, 1.0}
)

// bhStepsize is the default hop: up to 0.15 of the cube per coordinate. On the nine
// recorded spaces (Cartesian mode) 0.05 to 0.2 did about equally well and 0.5 clearly
// worse: a long hop throws the minimum's neighbourhood away.
const bhStepsize = 0.15

// bhIdleHops is how many hops in a row may bring no new configuration before basin
// hopping restarts from a new random configuration.
const bhIdleHops = 3

var basinHoppingFactory = Factory{
	Doc: "Basin hopping (seed 000 III-C2; Wales and Doye) on the unit cube mapped to the " +
		"discrete space as seed 000 does: one coordinate per parameter with more than one " +
		"value, value index = floor(x * number of values), and a point the restrictions " +
		"forbid stands for the nearest valid configuration. It minimises locally from a " +
		"random configuration that did not fail (the first of up to n+1 drawn, n " +
		"coordinates), then hops: every coordinate of the current minimum moves by a " +
		"uniform random amount of at most stepsize (reflected at the cube's faces), the " +
		"result is minimised locally and becomes the current minimum when no worse, or when " +
		"worse by a fraction d of the current fitness with probability exp(-d / " +
		"temperature) (the Metropolis criterion on relative fitness, so the temperature " +
		"does not depend on the objective's unit). Configurations evaluated before cost " +
		"nothing; a local minimisation ends when it converges or its recent calls found " +
		"nothing new, and after 3 hops in a row that found nothing new the search restarts " +
		"from a new random configuration, so the whole budget is used; a run that has " +
		"evaluated every configuration ends (under stochastic fitness too: a repeat is " +
		"never measured again). Defaults follow seed " +
		"000's Table III, except that SLSQP (from budget 800) is replaced by COBYLA.",
	Options: []Option{
		minimiserOption(tableIIIDoc(bhMethodTable) + " (seed 000 Table III; its " +
			"SLSQP from 800 needs gradients, so cobyla stays)"),
		{Name: "temperature", Kind: FloatKind(), Default: tableIIIDoc(bhTempTable) + " (seed 000 Table III)",
			Doc: "Metropolis temperature, 0 or more: a hop to a minimum worse by a fraction d " +
				"of the current fitness is accepted with probability exp(-d / temperature); 0 " +
				"accepts no worse minimum"},
		{Name: "stepsize", Kind: FloatKind(), Default: fmtFloat(bhStepsize) + " (not given by seed 000; ktune's choice)",
			Doc: "largest perturbation of each coordinate in a hop, in (0, 1] (the cube is [0,1] " +
				"per parameter)"},
	},
	New: newBasinHopping,
}

type basinHopping struct {
	method optional[string]
	temp   optional[float64]
	step   float64
}

func newBasinHopping(opts Options) (Strategy, error) {
	b := &basinHopping{}
	var err error
	if b.method, err = minimiserFrom(opts); err != nil {
		return nil, err
	}
	if _, set := opts["temperature"]; set {
		if b.temp.v, err = opts.Float("temperature", 0); err != nil {
			return nil, err
		}
		if !(b.temp.v >= 0) || math.IsInf(b.temp.v, 1) {
			return nil, fmt.Errorf("option temperature: %v is not a finite number >= 0", b.temp.v)
		}
		b.temp.set = true
	}
	if b.step, err = opts.Float("stepsize", bhStepsize); err != nil {
		return nil, err
	}
	if !(b.step > 0 && b.step <= 1) {
		return nil, fmt.Errorf("option stepsize: %v is not in (0, 1]", b.step)
	}
	return b, nil
}

func (*basinHopping) Name() string { return "basinhopping" }

func (b *basinHopping) Run(ctx context.Context, p Problem) error {
	method := b.method.or(tableIII(p.Budget(), bhMethodTable))
	temp := b.temp.or(tableIII(p.Budget(), bhTempTable))
	s := newCubeSearch(ctx, p)
	var cur []float64
	var fcur float64
	restart := func() error {
		x0, err := s.startPoint()
		if err != nil {
			return err
		}
		res, err := s.minimise(method, x0)
		cur, fcur = res.X, res.F
		return err
	}
	if s.exhausted() {
		return nil
	}
	if err := restart(); err != nil {
		return end(err)
	}
	trial := make([]float64, len(cur))
	for idle := 0; !s.exhausted(); {
		before := s.fresh
		for k, v := range cur {
			t := v + b.step*(2*s.r.Float64()-1)
			switch { // reflect at the faces; step <= 1 keeps it one reflection
			case t < 0:
				t = -t
			case t > 1:
				t = 2 - t
			}
			trial[k] = min(max(t, 0), 1)
		}
		res, err := s.minimise(method, trial)
		if err != nil {
			return end(err)
		}
		if accept(s.r, fcur, res.F, temp) {
			cur, fcur = res.X, res.F
		}
		if s.fresh > before {
			idle = 0
			continue
		}
		if idle++; idle >= bhIdleHops {
			idle = 0
			if err := restart(); err != nil {
				return end(err)
			}
		}
	}
	return nil
}
