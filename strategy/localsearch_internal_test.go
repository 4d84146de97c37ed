package strategy

import (
	"context"
	"math"
	"testing"

	"github.com/ktune/ktune/space"
)

// cachedProblem answers a configuration evaluated before from its cache, free, as every
// real tuning session and deterministic simulation does.
type cachedProblem struct {
	*fakeProblem
	cache map[int]float64
}

func (p *cachedProblem) Remaining() int {
	return min(p.budget-len(p.evaluated), p.sp.Len()-len(p.cache))
}

func (p *cachedProblem) Evaluate(ctx context.Context, c space.Config) (float64, error) {
	idx, _ := p.sp.Index(c)
	if f, ok := p.cache[idx]; ok {
		return f, nil
	}
	f, err := p.fakeProblem.Evaluate(ctx, c)
	if err == nil {
		p.cache[idx] = f
	}
	return f, err
}

// unboundedNoisyProblem measures every evaluation anew with no budget to count (a time
// limit ends such a run): a repeat answers differently, but Remaining never goes down.
type unboundedNoisyProblem struct {
	*fakeProblem
	calls int
}

func (p *unboundedNoisyProblem) Remaining() int { return math.MaxInt }

func (p *unboundedNoisyProblem) Evaluate(_ context.Context, c space.Config) (float64, error) {
	p.calls++
	idx, _ := p.sp.Index(c)
	return float64(idx) + float64(p.calls)/1000, nil
}

// The searcher tells repeats the session answers from its cache, which cost nothing, from
// repeats measured anew (stochastic fitness): by the budget they take, or, where no budget
// counts, by an answer that differs from the first. Only the latter count as spent.
func TestSearcherTellsRemeasuredRepeats(t *testing.T) {
	for _, tc := range []struct {
		name       string
		p          func(*fakeProblem) Problem
		remeasures bool
	}{
		{"cached", func(f *fakeProblem) Problem { return &cachedProblem{f, map[int]float64{}} }, false},
		{"measured anew, costing budget", func(f *fakeProblem) Problem { return f }, true},
		{"measured anew, no budget", func(f *fakeProblem) Problem { return &unboundedNoisyProblem{fakeProblem: f} }, true},
	} {
		s := newSearcher(context.Background(), tc.p(newFake(t, []int{4, 4}, 100, 1)), space.Hamming)
		a, b := space.Config{1, 2}, space.Config{3, 0}
		for _, c := range []space.Config{a, b, a, a, b} {
			if _, err := s.eval(c); err != nil {
				t.Fatal(err)
			}
		}
		wantSpent := 2
		if tc.remeasures {
			wantSpent = 5
		}
		if s.remeasures != tc.remeasures || s.fresh != 2 || s.spent != wantSpent {
			t.Errorf("%s: remeasures %v, fresh %d, spent %d; want %v, 2, %d",
				tc.name, s.remeasures, s.fresh, s.spent, tc.remeasures, wantSpent)
		}
		if s.stalled(1) != tc.remeasures || !s.stalled(stallLimit) || s.stalled(0) {
			t.Errorf("%s: stalled(0, 1, %d) = %v, %v, %v; want false, %v, true",
				tc.name, stallLimit, s.stalled(0), s.stalled(1), s.stalled(stallLimit), tc.remeasures)
		}
	}
}
