package tuning_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/ktune/ktune/simulator"
	"github.com/ktune/ktune/strategy"
	"github.com/ktune/ktune/tuning"
)

// BenchmarkSimulateRandom measures one simulated run of random sampling: session set-up,
// the strategy, the cache and the simulator's replay. Seed 000's harness runs thousands of
// these per strategy and budget, so this is its hot path.
func BenchmarkSimulateRandom(b *testing.B) {
	cases := []struct {
		name   string
		path   string
		opts   simulator.Options
		budget int
	}{
		{"pnpoly/recorded/budget=100", pnpolyPath, simulator.Options{}, 100},
		{"pnpoly/stochastic/budget=100", pnpolyPath, simulator.Options{Fitness: simulator.Stochastic}, 100},
		{"convolution/cartesian/budget=100", convolutionPath, simulator.Options{Mode: simulator.Cartesian}, 100},
		{"pnpoly/recorded/budget=1000", pnpolyPath, simulator.Options{}, 1000},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			sim := newSim(b, tc.path, tc.opts)
			st := newStrategy(b, "random")
			ctx := context.Background()
			b.ReportAllocs()
			seed := uint64(0)
			for b.Loop() {
				seed++
				s, err := tuning.New(sim.Space(), st, sim, tuning.Options{Budget: tc.budget, Seed: seed})
				if err != nil {
					b.Fatal(err)
				}
				sum, err := s.Run(ctx)
				if err != nil || sum.Evaluations != tc.budget {
					b.Fatal(fmt.Sprint(err, sum.Evaluations))
				}
			}
		})
	}
}

// BenchmarkStrategies measures every registered strategy's cost per evaluation in
// simulation (one run of budget 200 on the cartesian pnpoly space, session and simulator
// included), the figure seed 000's harness and Kernel Tuner's simulation mode are compared
// by. It reports µs/eval besides ns/op.
func BenchmarkStrategies(b *testing.B) {
	sim := newSim(b, pnpolyPath, simulator.Options{Mode: simulator.Cartesian})
	const budget = 200
	for _, name := range strategy.Names() {
		if name == "bruteforce" {
			continue
		}
		b.Run(name, func(b *testing.B) {
			st := newStrategy(b, name)
			ctx := context.Background()
			seed := uint64(0)
			for b.Loop() {
				seed++
				s, err := tuning.New(sim.Space(), st, sim, tuning.Options{Budget: budget, Seed: seed})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := s.Run(ctx); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*budget), "µs/eval")
		})
	}
}
