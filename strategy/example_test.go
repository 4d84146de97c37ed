package strategy_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/ktune/ktune/format"
	_ "github.com/ktune/ktune/format/all" // registers the Kernel Tuner, KTT and T4 readers
	"github.com/ktune/ktune/simulator"
	"github.com/ktune/ktune/strategy"
	"github.com/ktune/ktune/tuning"
)

// coordinateSearch is a strategy of one's own: from a random configuration it tries every
// value of one parameter at a time, keeps the best, and goes round the parameters until a
// round improves nothing. It sees only the Problem, so the same code tunes on a device,
// in the simulator and step by step.
type coordinateSearch struct{}

func (coordinateSearch) Name() string { return "coordinate" }

func (coordinateSearch) Run(ctx context.Context, p strategy.Problem) error {
	sp := p.Space()
	best := sp.Sample(p.Rand(), nil)
	bestFit, err := p.Evaluate(ctx, best)
	for improved := true; improved && err == nil; {
		improved = false
		for i, param := range sp.Params() {
			for v := range param.Values {
				c := best.Clone()
				c[i] = v
				if !sp.Contains(c) { // a restricted combination: not part of the space
					continue
				}
				var f float64
				if f, err = p.Evaluate(ctx, c); err != nil {
					break
				}
				if f < bestFit {
					best, bestFit, improved = c, f, true
				}
			}
		}
	}
	if errors.Is(err, strategy.ErrStop) { // the budget is spent: a normal end
		return nil
	}
	return err
}

// A strategy of one's own runs in a tuning session like the built-in ones; here on a
// recorded space, where the simulator answers for the device.
func Example_ownStrategy() {
	rec, err := format.Open("../testdata/benchmark_hub/kerneltuner_pnpoly/RTX_2080_Ti.json.gz")
	if err != nil {
		fmt.Println(err)
		return
	}
	sim, err := simulator.New(rec, simulator.Options{Mode: simulator.Recorded})
	if err != nil {
		fmt.Println(err)
		return
	}
	var _ strategy.Strategy = coordinateSearch{}
	s, err := tuning.New(sim.Space(), coordinateSearch{}, sim, tuning.Options{Budget: 60, Seed: 3})
	if err != nil {
		fmt.Println(err)
		return
	}
	sum, err := s.Run(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: %d evaluations (%s); best %s, %.3f of the optimum\n", sum.Strategy, sum.Evaluations, sum.Stop,
		sim.Space().Format(sum.Best), sim.FractionOfOptimum(sum.BestObjective))
	// Output:
	// coordinate: 60 evaluations (budget); best between_method=1, block_size_x=512, tile_size=20, use_method=1, 0.855 of the optimum
}
