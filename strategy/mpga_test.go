package strategy_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ktune/ktune/simulator"
	"github.com/ktune/ktune/strategy"
	"github.com/ktune/ktune/tuning"
)

// mpgaSim returns the simulator of one of popRecordings (pnpoly, convolution, gemm) in mode.
func mpgaSim(t testing.TB, name string, mode simulator.Mode) *simulator.Simulator {
	t.Helper()
	return recordedSim(t, popRecordings[name], mode)
}

// Same seed, same history; every evaluated configuration is valid; the whole budget is
// used, in recorded mode (restrictions known) and in Cartesian mode (where configurations
// fail and cost budget), with seed 002's defaults and with other settings that exercise
// migration on a larger ring, no crossover, heavy mutation and an immediate max-count stop.
func TestMPGAIsDeterministicValidAndUsesTheBudget(t *testing.T) {
	variants := []map[string]any{
		nil,
		{"populations": 4, "popsize": 9, "migration": 1, "migrants": 2},
		{"crossover": 0, "mutation": 0.2},
		{"populations": 1, "mcr": 0.01},
		{"migration": 0, "mcr": 1},
	}
	for _, mode := range []simulator.Mode{simulator.Recorded, simulator.Cartesian} {
		for _, name := range []string{"pnpoly", "convolution", "gemm"} {
			sim := mpgaSim(t, name, mode)
			sp := sim.Space()
			for vi, opts := range variants {
				for _, budget := range []int{7, 150, 400} {
					a := popRun(t, sim, "mpga", opts, budget, 11)
					b := popRun(t, sim, "mpga", opts, budget, 11)
					if !sameHistory(a, b) {
						t.Fatalf("%s %s %v budget %d: one seed, two runs", mode, name, opts, budget)
					}
					for _, e := range a.History {
						if !sp.Contains(e.Config) {
							t.Fatalf("%s %s %v: evaluated invalid configuration %v", mode, name, opts, e.Config)
						}
					}
					if want := min(budget, sp.Len()); a.Evaluations != want || a.Distinct != want || a.Stop != tuning.StopBudget {
						t.Errorf("%s %s variant %d budget %d: %d evaluations (%d distinct), stop %q; want %d",
							mode, name, vi, budget, a.Evaluations, a.Distinct, a.Stop, want)
					}
				}
			}
		}
	}
}

// Seed 002 ends its search when the max-count ratio reaches its threshold: restart=false
// does so, well within a large budget, and its run is the beginning of the default run of
// the same seed, which goes on from random populations until the budget is spent.
func TestMPGAWithoutRestartStopsAtTheMaxCountRatio(t *testing.T) {
	const budget = 3000
	for _, name := range []string{"pnpoly", "convolution", "gemm"} {
		sim := mpgaSim(t, name, simulator.Recorded)
		for seed := uint64(1); seed <= 5; seed++ {
			once := popRun(t, sim, "mpga", map[string]any{"restart": false}, budget, seed)
			full := popRun(t, sim, "mpga", nil, budget, seed)
			if once.Evaluations >= budget || once.Evaluations < 32 {
				t.Errorf("%s seed %d: restart=false made %d evaluations; want at least the first generation (32) and under %d",
					name, seed, once.Evaluations, budget)
			}
			if full.Evaluations != budget {
				t.Errorf("%s seed %d: with restarts %d evaluations; want %d", name, seed, full.Evaluations, budget)
			}
			if !slices.EqualFunc(once.History, full.History[:min(len(once.History), len(full.History))],
				func(x, y tuning.Evaluated) bool { return slices.Equal(x.Config, y.Config) }) {
				t.Errorf("%s seed %d: the run without restarts is not the start of the run with them", name, seed)
			}
			if testing.Verbose() {
				t.Logf("%s seed %d: converged after %d evaluations", name, seed, once.Evaluations)
			}
		}
	}
}

// The problem hands strategies fitness to minimise, the objective negated when it is to be
// maximised: searching for the slowest configuration, mpga finds slower ones than random
// sampling does, on the same seeds (measured when written, the mean over seeds 1-10 at
// budget 200: GEMM 88.0 against 82.7, pnpoly 0.497 against 0.295; on convolution, whose
// slowest configurations are many, random sampling's 16.74 is level with mpga's 16.68).
func TestMPGAMaximizes(t *testing.T) {
	for _, space := range []string{"gemm", "pnpoly"} {
		sim := mpgaSim(t, space, simulator.Recorded)
		best := func(name string, seed uint64) float64 {
			st, err := strategy.New(name, nil)
			if err != nil {
				t.Fatal(err)
			}
			sess, err := tuning.New(sim.Space(), st, sim.WithSeed(seed), tuning.Options{Budget: 200, Seed: seed, Maximize: true})
			if err != nil {
				t.Fatal(err)
			}
			sum, err := sess.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range sum.History {
				if !e.Evaluation.Failed() && sum.BestObjective < e.Evaluation.Objective {
					t.Fatalf("seed %d: best %v below an evaluated %v while maximising", seed, sum.BestObjective, e.Evaluation.Objective)
				}
			}
			return sum.BestObjective
		}
		var mpga, random float64
		for seed := uint64(1); seed <= 10; seed++ {
			mpga += best("mpga", seed)
			random += best("random", seed)
		}
		if mpga <= random {
			t.Errorf("%s maximising: mpga's mean best %v, random sampling's %v", space, mpga/10, random/10)
		}
	}
}

// A cancelled context ends a run with its error at once.
func TestMPGAStopsOnCancellation(t *testing.T) {
	sim := recordedSimWith(t, popRecordings["convolution"], simulator.Options{Mode: simulator.Cartesian, Fitness: simulator.Stochastic})
	for _, at := range []int{1, 20, 33, 500} {
		st, err := strategy.New("mpga", nil)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		p := &stochasticProblem{cancel: cancel, sim: sim.WithSeed(2), rng: rand.New(rand.NewPCG(2, 3)), cancelAt: at}
		err = st.Run(ctx, p)
		cancel()
		// the request after the cancelling one is answered with the context's error
		if !errors.Is(err, context.Canceled) || p.afterCancel > 1 || p.requests != at {
			t.Errorf("cancelled during request %d: returned %v after %d requests, %d of them after cancelling",
				at, err, p.requests, p.afterCancel)
		}
	}
}

// Over 50 seeds at budget 200 in recorded mode, mpga's mean fraction of the optimum beats
// random sampling's by more than two standard errors of the difference on convolution
// (A100) and GEMM (RTX 3090). Measured when written (seeds 1000-1049): convolution 0.853
// against 0.781, GEMM 0.938 against 0.880 (3.7 and 6.1 standard errors; over seeds
// 1000-1019 convolution was 2.6).
func TestMPGAAgainstRandomSampling(t *testing.T) {
	const budget, repeats = 200, 50
	for _, name := range []string{"convolution", "gemm"} {
		sim := mpgaSim(t, name, simulator.Recorded)
		repeat := func(st string) simulator.RepeatSummary {
			s, err := simulator.Repeat(context.Background(), sim, simulator.RepeatOptions{
				Strategy: st, Budget: budget, Repeats: repeats, Seed: 1000, Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		m, r := repeat("mpga"), repeat("random")
		diff := m.MeanFraction - r.MeanFraction
		se := math.Sqrt((m.StdFraction*m.StdFraction + r.StdFraction*r.StdFraction) / repeats)
		t.Logf("%s recorded, budget %d, %d repeats: mpga %.4f (sd %.4f), random %.4f (sd %.4f), difference %.1f standard errors",
			name, budget, repeats, m.MeanFraction, m.StdFraction, r.MeanFraction, r.StdFraction, diff/se)
		if diff <= 2*se {
			t.Errorf("%s: mpga %.4f does not beat random sampling %.4f by two standard errors (%.4f)", name, m.MeanFraction, r.MeanFraction, 2*se)
		}
	}
}
