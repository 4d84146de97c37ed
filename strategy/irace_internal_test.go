package strategy

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/ktune/ktune/space"
)

// roundingTimes is Hollander and Wolfe's rounding-first-base data (22 players by 3
// methods), the example of R's friedman.test: Friedman chi-squared 11.143, df 2, p-value
// 0.003805. Here it is laid out candidates (methods) by blocks (players).
var roundingTimes = func() [][]float64 {
	rows := [][3]float64{
		{5.40, 5.50, 5.55}, {5.85, 5.70, 5.75}, {5.20, 5.60, 5.50}, {5.55, 5.50, 5.40},
		{5.90, 5.85, 5.70}, {5.45, 5.55, 5.60}, {5.40, 5.40, 5.35}, {5.45, 5.50, 5.35},
		{5.25, 5.15, 5.00}, {5.85, 5.80, 5.70}, {5.25, 5.20, 5.10}, {5.65, 5.55, 5.45},
		{5.60, 5.35, 5.45}, {5.05, 5.00, 4.95}, {5.50, 5.50, 5.40}, {5.45, 5.55, 5.50},
		{5.55, 5.55, 5.35}, {5.45, 5.50, 5.55}, {5.50, 5.45, 5.25}, {5.65, 5.60, 5.40},
		{5.70, 5.65, 5.55}, {6.30, 6.30, 6.25},
	}
	x := make([][]float64, 3)
	for _, r := range rows {
		for i := range x {
			x[i] = append(x[i], r[i])
		}
	}
	return x
}()

func TestIraceFriedmanMatchesR(t *testing.T) {
	stat, p := iraceFriedman(roundingTimes)
	if math.Abs(stat-11.142857) > 1e-5 || math.Abs(p-0.003805) > 1e-6 {
		t.Fatalf("Friedman statistic %.6f p %.6f, want 11.142857 and 0.003805", stat, p)
	}
	// Rank sums 53, 47, 32; n A - sum R^2 = 690 over 42 degrees of freedom, so Conover's
	// critical difference is t(1-alpha/2, 42) * 5.7321: 11.57 at alpha 0.05 (both others are
	// worse than the wide angle, by 21 and 15), 15.47 at alpha 0.01 (only the first), and at
	// alpha 0.001 the Friedman test itself does not reject.
	for _, tc := range []struct {
		alpha float64
		want  []bool
	}{
		{0.05, []bool{true, true, false}},
		{0.01, []bool{true, false, false}},
		{0.001, []bool{false, false, false}},
	} {
		if got := iraceFriedmanWorse(roundingTimes, tc.alpha); !slices.Equal(got, tc.want) {
			t.Errorf("alpha %v: worse %v, want %v", tc.alpha, got, tc.want)
		}
	}
	tied := [][]float64{{1, 2, 3}, {1, 2, 3}, {1, 2, 3}}
	if stat, p := iraceFriedman(tied); stat != 0 || p != 1 {
		t.Errorf("all tied: statistic %v p %v, want 0 and 1", stat, p)
	}
}

// R's t.test(extra ~ group, data = sleep, paired = TRUE): t = -4.0621, df = 9,
// p-value = 0.002833.
func TestIracePairedTMatchesR(t *testing.T) {
	a := []float64{0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0}
	b := []float64{1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4}
	tt, p := iracePairedT(a, b)
	if math.Abs(tt+4.062128) > 1e-5 || math.Abs(p-0.002833) > 1e-6 {
		t.Fatalf("t %.6f p %.6f, want -4.062128 and 0.002833", tt, p)
	}
	if tt, p := iracePairedT([]float64{2, 3}, []float64{1, 2}); !math.IsInf(tt, 1) || p != 0 {
		t.Errorf("constant difference: t %v p %v", tt, p)
	}
}

// Candidate 0 is the best, 1 a little worse (p = 0.0204 against 0 by itself), 2 and 3
// much worse: without correction 1, 2 and 3 go; Bonferroni's threefold p-value keeps 1;
// Holm multiplies the smallest p by 3, the next by 2 and 1's (the largest) by 1.
func TestIracePairedTCorrections(t *testing.T) {
	x := [][]float64{
		{10, 11, 10, 12, 11, 10},
		{10.4, 11.0, 10.5, 12.1, 11.6, 10.3},
		{14, 15, 15, 16, 15, 14},
		{20, 21, 19, 22, 20, 21},
	}
	_, p1 := iracePairedT(x[1], x[0])
	t.Logf("p of candidate 1 against 0: %.4f", p1)
	for _, tc := range []struct {
		correction string
		want       []bool
	}{
		{"t-test", []bool{false, true, true, true}},
		{"t-test-bonferroni", []bool{false, false, true, true}},
		{"t-test-holm", []bool{false, true, true, true}},
	} {
		if got := iracePairedTWorse(x, 0.05, tc.correction); !slices.Equal(got, tc.want) {
			t.Errorf("%s: worse %v, want %v", tc.correction, got, tc.want)
		}
	}
}

// noisyProblem is a session without a cache: a repeat is a new measurement of the
// configuration (its index plus noise) and costs budget.
type noisyProblem struct {
	*fakeProblem
}

func (n noisyProblem) Evaluate(ctx context.Context, c space.Config) (float64, error) {
	f, err := n.fakeProblem.Evaluate(ctx, c)
	if err != nil {
		return f, err
	}
	return f + 40*n.rng.Float64(), nil
}

func TestIracePassesOnEvaluatorErrors(t *testing.T) {
	for _, noisy := range []bool{false, true} {
		p := newFake(t, []int{5, 5, 3}, 100, 1)
		p.failAt = 50
		var prob Problem = p
		if noisy {
			prob = noisyProblem{p}
		}
		s, err := New("irace", nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Run(context.Background(), prob); !errors.Is(err, errFake) {
			t.Errorf("noisy %v: Run = %v, want the evaluator's error", noisy, err)
		}
	}
}
