package tuning_test

import (
	"context"
	"math"
	"sort"
	"testing"

	"github.com/ktune/ktune/simulator"
	"github.com/ktune/ktune/tuning"
)

// exactRandomSampling returns the exact mean and standard deviation of the fraction of
// optimum that random sampling without replacement reaches with budget k, for a space
// whose times, sorted best first, are given (+Inf for failed configurations, which score 0).
//
// The best configuration found is the i-th best exactly when the i-th best is drawn and the
// other k-1 draws come from the N-i worse ones: P_i = C(N-i, k-1) / C(N, k). The binomials
// are computed through log-gamma, as C(4092, 50) overflows a float64.
func exactRandomSampling(t *testing.T, times []float64, k int) (mean, sd float64) {
	t.Helper()
	n := len(times)
	logChoose := func(n, r int) float64 {
		a, _ := math.Lgamma(float64(n + 1))
		b, _ := math.Lgamma(float64(r + 1))
		c, _ := math.Lgamma(float64(n - r + 1))
		return a - b - c
	}
	opt := times[0]
	logTotal := logChoose(n, k)
	var psum, m1, m2 float64
	for i := 1; i <= n-k+1; i++ {
		p := math.Exp(logChoose(n-i, k-1) - logTotal)
		f := 0.0
		if !math.IsInf(times[i-1], 1) {
			f = opt / times[i-1]
		}
		psum += p
		m1 += p * f
		m2 += p * f * f
	}
	if math.Abs(psum-1) > 1e-9 {
		t.Fatalf("probabilities sum to %v, not 1", psum)
	}
	return m1, math.Sqrt(m2 - m1*m1)
}

// TestRandomSamplingMatchesTheExactExpectation is the acceptance test of the simulator,
// the session and the random strategy together: over 1,000 seeded runs per budget on real
// recorded spaces, the mean fraction of optimum must agree with the exact expectation of
// random sampling without replacement within 4 standard errors. A session that miscounted
// the budget, a cache that charged repeats, a simulator that mis-replayed the recording or
// a sampler that was not uniform or repeated itself would each move the mean.
func TestRandomSamplingMatchesTheExactExpectation(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 runs per budget")
	}
	cases := []struct {
		name    string
		path    string
		mode    simulator.Mode
		budgets []int
	}{
		// Recorded mode: every configuration was measured; 358 of 4,092 failed.
		{"pnpoly/recorded", pnpolyPath, simulator.Recorded, []int{1, 10, 50, 200, 800}},
		// Seed 000's cartesian setting: 59% of the 10,240 configurations are missing or
		// failed, cost budget and score 0.
		{"convolution/cartesian", convolutionPath, simulator.Cartesian, []int{1, 10, 50, 200, 800}},
	}
	const repeats = 1000
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sim := newSim(t, tc.path, simulator.Options{Mode: tc.mode})
			sp := sim.Space()
			times := make([]float64, sp.Len())
			for i := range times {
				e, err := sim.Evaluate(context.Background(), sp.At(i, nil))
				if err != nil {
					t.Fatal(err)
				}
				times[i] = math.Inf(1)
				if !e.Failed() {
					times[i] = e.Objective
				}
			}
			sort.Float64s(times)
			if opt, _ := sim.Optimum(); opt != times[0] {
				t.Fatalf("simulator optimum %v, best recorded time %v", opt, times[0])
			}
			for _, k := range tc.budgets {
				want, sd := exactRandomSampling(t, times, k)
				total := 0.0
				for r := range repeats {
					sum := simulate(t, sim, "random", tuning.Options{Budget: k, Seed: uint64(r)})
					if sum.Evaluations != k || sum.Stop != tuning.StopBudget {
						t.Fatalf("seed %d: %d evaluations, stop %q; want %d, budget", r, sum.Evaluations, sum.Stop, k)
					}
					total += sim.FractionOfOptimum(sum.BestObjective)
				}
				got := total / repeats
				se := sd / math.Sqrt(repeats)
				t.Logf("budget %4d: mean fraction of optimum %.4f, exact %.4f (sd %.4f, se %.4f, %+.2f se)",
					k, got, want, sd, se, (got-want)/se)
				if math.Abs(got-want) > 4*se {
					t.Errorf("budget %d: mean fraction of optimum %.4f over %d runs, exact expectation %.4f ± %.4f (4 se)",
						k, got, repeats, want, 4*se)
				}
			}
		})
	}
}
