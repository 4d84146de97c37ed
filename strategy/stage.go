package strategy

import (
	"context"
	"math"

	"github.com/ktune/ktune/space"
)

// stage is a share of a run handed to one strategy of several run in turn: it passes
// evaluations on to the run's problem until limit evaluations that cost budget have been
// made, then answers ErrStop, and keeps the best configuration it saw. Configurations the
// session had evaluated before cost nothing and do not count.
type stage struct {
	Problem
	limit, used int
	best        space.Config
	bestF       float64
}

func newStage(p Problem, limit int) *stage {
	return &stage{Problem: p, limit: limit, bestF: math.Inf(1)}
}

// Budget is the stage's share, so the strategy picks its defaults for that many
// evaluations.
func (s *stage) Budget() int { return s.limit }

func (s *stage) Remaining() int { return max(0, min(s.Problem.Remaining(), s.limit-s.used)) }

func (s *stage) Hint(upcoming ...space.Config) { forwardHint(s.Problem, upcoming) }

func (s *stage) Evaluate(ctx context.Context, c space.Config) (float64, error) {
	if s.used >= s.limit {
		return math.Inf(1), ErrStop
	}
	before := s.Problem.Remaining()
	f, err := s.Problem.Evaluate(ctx, c)
	if err != nil {
		return f, err
	}
	if s.Problem.Remaining() < before {
		s.used++
	}
	if s.best == nil || f < s.bestF {
		s.best, s.bestF = append(s.best[:0], c...), f
	}
	return f, nil
}
