package runner_test

import (
	"context"
	"errors"
	"testing"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/spec"
	"github.com/ktune/ktune/strategy"
	"github.com/ktune/ktune/tuning"
)

// An application tunes its kernel step by step in its own process, as the README's
// library section says it may: it asks a session for a configuration, measures it with a
// runner on its device (here the OpenCL vector_add example on PoCL), tells the session,
// and runs the best configuration once the budget is spent. Every configuration is
// verified against the reference, and the session's best is the best it was told.
func TestAnApplicationTunesItsKernelStepByStep(t *testing.T) {
	dev := openBackend(t, "opencl")
	s, err := spec.Load("../examples/vector_add/vector_add_opencl.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r, sp := runnerFor(t, s, dev)
	_, maximize := s.Objective()
	st, err := strategy.New("auto", nil)
	if err != nil {
		t.Fatal(err)
	}
	const budget = 6
	sess, err := tuning.New(sp, st, nil, tuning.Options{Budget: budget, Seed: 1, Maximize: maximize})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	ctx := context.Background()
	best := 0.0
	for {
		c, err := sess.Ask(ctx)
		if errors.Is(err, tuning.ErrDone) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		e := r.Evaluate(ctx, c, nil)
		if e.Status != result.OK {
			t.Errorf("%s: %v %s", sp.Format(c), e.Status, e.Message)
		}
		best = max(best, e.Objective)
		if err := sess.Tell(c, e); err != nil {
			t.Fatal(err)
		}
	}
	sum := sess.Summary()
	if sum.Stop != tuning.StopBudget || sum.Evaluations != budget || len(sum.History) != budget {
		t.Errorf("stopped (%s) after %d evaluations, %d in the history; want the budget of %d", sum.Stop, sum.Evaluations, len(sum.History), budget)
	}
	if !maximize || sum.BestObjective != best {
		t.Errorf("best %v GB/s (maximize %v), want the highest told, %v", sum.BestObjective, maximize, best)
	}
	if e := r.Evaluate(ctx, sum.Best, nil); e.Status != result.OK {
		t.Errorf("the best configuration %s run again: %v %s", sp.Format(sum.Best), e.Status, e.Message)
	}
}
