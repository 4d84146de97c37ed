package strategy_test

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/ktune/ktune/format/kerneltuner"
	"github.com/ktune/ktune/simulator"
	"github.com/ktune/ktune/tuning"
)

// sparseNoisySim is the point-in-polygon recording of the RTX 2080 Ti cut down to keep of
// its configurations, drawn at random, under stochastic fitness in recorded mode: most
// configurations have no neighbour in the space, so a local search's walk is soon trapped
// among the few it has measured, and every repeat there is a new measurement that costs
// budget (a QA found greedyils measuring 3 to 7 configurations in 60 evaluations on such a
// recording).
func sparseNoisySim(t *testing.T, keep int) *simulator.Simulator {
	t.Helper()
	f, err := os.Open(popRecordings["pnpoly"])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rec, err := kerneltuner.Read(f, filepath.Base(popRecordings["pnpoly"]))
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(7, 7))
	r.Shuffle(len(rec.Evaluations), func(i, j int) {
		rec.Evaluations[i], rec.Evaluations[j] = rec.Evaluations[j], rec.Evaluations[i]
	})
	rec.Evaluations = rec.Evaluations[:keep]
	sim, err := simulator.New(rec, simulator.Options{Mode: simulator.Recorded, Fitness: simulator.Stochastic})
	if err != nil {
		t.Fatal(err)
	}
	return sim
}

// Under stochastic fitness a repeat costs budget, so an iterated local search whose walk
// only measures configurations again must move on rather than spend its budget there.
// greedyils, whose no_improvement counted only new configurations, measured under a quarter
// as many distinct configurations as firstils on these spaces, a few per run; now at least
// half as many, both where the budget exceeds the space (as in the QA's report) and where
// it does not. Every run uses its whole budget.
func TestGreedyILSMeasuresNewConfigurationsUnderNoise(t *testing.T) {
	const seeds = 10
	for _, tc := range []struct{ keep, budget int }{{40, 80}, {150, 100}} {
		sim := sparseNoisySim(t, tc.keep)
		distinct := map[string]int{}
		for _, name := range []string{"firstils", "greedyils"} {
			for seed := uint64(1); seed <= seeds; seed++ {
				sum := popRun(t, sim, name, nil, tc.budget, seed)
				if sum.Evaluations != tc.budget || sum.Stop != tuning.StopBudget {
					t.Fatalf("%d configurations, %s seed %d: %d evaluations, stopped by %q; want the whole budget of %d",
						tc.keep, name, seed, sum.Evaluations, sum.Stop, tc.budget)
				}
				distinct[name] += sum.Distinct
			}
		}
		if 2*distinct["greedyils"] < distinct["firstils"] {
			t.Errorf("%d configurations, budget %d: greedyils measured %d distinct configurations over %d runs, firstils %d: its walk spent the budget measuring the same ones again",
				tc.keep, tc.budget, distinct["greedyils"], seeds, distinct["firstils"])
		}
		t.Logf("%d configurations, budget %d: distinct configurations over %d runs %v", tc.keep, tc.budget, seeds, distinct)
	}
}
