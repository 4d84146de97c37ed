package strategy_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/ktune/ktune/simulator"
	"github.com/ktune/ktune/tuning"
)

// noisyRun runs name on the recording at path under seed 000's stochastic fitness: every
// measurement is one recorded timing sample, and a repeat is measured anew and costs budget.
func noisyRun(t *testing.T, path string, name string, opts map[string]any, budget int, seed uint64) tuning.Summary {
	t.Helper()
	sim := recordedSimWith(t, path, simulator.Options{Mode: simulator.Cartesian, Fitness: simulator.Stochastic})
	return popRun(t, sim, name, opts, budget, seed)
}

// measurements counts how often each configuration of a history was measured.
func measurements(sum tuning.Summary) map[string]int {
	n := map[string]int{}
	for _, h := range sum.History {
		n[fmt.Sprint(h.Config)]++
	}
	return n
}

// Where measurements are noisy, auto keeps the end of the budget for measuring its best
// candidates again, so the configuration the session reports was measured more than once
// rather than being one lucky measurement; the budget is used exactly. The reserve follows
// the noise: the point-in-polygon recording of the RTX 2080 Ti, whose samples of a
// configuration range over a factor of three, gets the whole confirm share, while on the
// GEMM recording of the RTX 3090 (a relative standard deviation near 0.2%) the probe's two
// measurements differ by little and auto measures hardly anything again.
func TestAutoConfirmsItsBestUnderNoise(t *testing.T) {
	const budget = 200
	repeats := func(sum tuning.Summary) int { return len(sum.History) - sum.Distinct }
	var pnpolyRepeats, gemmRepeats int
	for seed := uint64(1); seed <= 5; seed++ {
		sum := noisyRun(t, popRecordings["pnpoly"], "auto", nil, budget, seed)
		if sum.Evaluations != budget || len(sum.History) != budget {
			t.Fatalf("seed %d: %d evaluations (%d in the history), want %d", seed, sum.Evaluations, len(sum.History), budget)
		}
		n := measurements(sum)
		best := fmt.Sprint(sum.Best)
		if n[best] < 2 {
			t.Errorf("seed %d: the best configuration was measured %d times; a single lucky measurement won", seed, n[best])
		}
		pnpolyRepeats += repeats(sum)
		gemm := noisyRun(t, popRecordings["gemm"], "auto", nil, budget, seed)
		if gemm.Evaluations != budget {
			t.Fatalf("seed %d: GEMM: %d evaluations, want %d", seed, gemm.Evaluations, budget)
		}
		gemmRepeats += repeats(gemm)
	}
	// the confirm share is 0.1: 20 evaluations of 200, one of them the probe
	if pnpolyRepeats < 5*15 {
		t.Errorf("point-in-polygon: %d measurements repeated over 5 runs, want most of the reserve (5 x 20)", pnpolyRepeats)
	}
	if gemmRepeats*3 > pnpolyRepeats {
		t.Errorf("GEMM: %d measurements repeated over 5 runs against point-in-polygon's %d; the reserve should follow the noise", gemmRepeats, pnpolyRepeats)
	}
	t.Logf("repeated measurements over 5 runs: point-in-polygon %d, GEMM %d", pnpolyRepeats, gemmRepeats)
}

// Where repeats are answered from the cache, auto's probe costs nothing and changes
// nothing: the run is the one with confirm 0, evaluation for evaluation.
func TestAutoProbeIsFreeWithoutNoise(t *testing.T) {
	sim := popSim(t, "gemm")
	for _, budget := range []int{25, 200} {
		a := popRun(t, sim, "auto", nil, budget, 5)
		b := popRun(t, sim, "auto", map[string]any{"confirm": 0}, budget, 5)
		if !slices.EqualFunc(a.History, b.History, sameConfig) || a.Evaluations != budget {
			t.Errorf("budget %d: the histories with and without confirm differ (%d evaluations)", budget, a.Evaluations)
		}
	}
}

// With confirm 0 auto keeps nothing back and does not probe: under noise its run is
// bayes's, measurement for measurement.
func TestAutoWithoutConfirmIsItsStrategyUnderNoise(t *testing.T) {
	a := noisyRun(t, popRecordings["pnpoly"], "auto", map[string]any{"confirm": 0}, 100, 3)
	b := noisyRun(t, popRecordings["pnpoly"], "bayes", nil, 100, 3)
	if !slices.EqualFunc(a.History, b.History, sameConfig) {
		t.Error("auto with confirm 0 measured otherwise than bayes")
	}
}
