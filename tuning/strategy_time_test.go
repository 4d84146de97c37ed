package tuning_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/simulator"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/strategy"
	"github.com/ktune/ktune/tuning"
)

// slowEvaluator replays a recorded space, taking d over each configuration, as a device
// takes its time: none of it is the strategy's.
type slowEvaluator struct {
	*simulator.Simulator
	d time.Duration
}

func (e slowEvaluator) Evaluate(ctx context.Context, c space.Config) (result.Evaluation, error) {
	time.Sleep(e.d)
	return e.Simulator.Evaluate(ctx, c)
}

// thinking asks for configurations 0, 1, 0 (a repeat, from the cache) and 2, thinking
// before each: 0, 40, 20 and 30 ms.
var thinking = strategyFunc(func(ctx context.Context, p strategy.Problem) error {
	sp := p.Space()
	for _, step := range []struct {
		think time.Duration
		at    int
	}{{0, 0}, {40 * time.Millisecond, 1}, {20 * time.Millisecond, 0}, {30 * time.Millisecond, 2}} {
		time.Sleep(step.think)
		if _, err := p.Evaluate(ctx, sp.At(step.at, nil)); err != nil {
			return err
		}
	}
	return nil
})

// Every evaluation carries the time the strategy spent choosing its configuration (Kernel
// Tuner's strategy_time): from the fitness of the previous new evaluation to the request,
// repeats answered from the cache in between included; neither the evaluation's own time
// nor, with Ask and Tell, the caller's counts.
func TestEvaluationsCarryTheStrategysTime(t *testing.T) {
	const evaluating = 400 * time.Millisecond
	// at least the thinking; at most that with room for a loaded machine, below the
	// evaluation time that must not be counted
	want := []struct{ min, max time.Duration }{
		{0, 200 * time.Millisecond},
		{40 * time.Millisecond, 240 * time.Millisecond},
		{50 * time.Millisecond, 250 * time.Millisecond}, // 20 ms before the repeat, 30 after
	}
	check := func(t *testing.T, got []result.Evaluation) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%d evaluations recorded, want %d", len(got), len(want))
		}
		for i, e := range got {
			d := time.Duration(e.StrategyMS * float64(time.Millisecond))
			if d < want[i].min || d > want[i].max {
				t.Errorf("evaluation %d: strategy time %v, want %v to %v", i, d, want[i].min, want[i].max)
			}
		}
	}
	t.Run("Run", func(t *testing.T) {
		var got []result.Evaluation
		sim := newSim(t, pnpolyPath, simulator.Options{})
		opts := tuning.Options{Sink: sinkFunc(func(_ context.Context, e result.Evaluation) error {
			got = append(got, e)
			return nil
		})}
		s, err := tuning.New(sim.Space(), thinking, slowEvaluator{sim, evaluating}, opts)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		check(t, got)
	})
	t.Run("Ask and Tell", func(t *testing.T) {
		var got []result.Evaluation
		sim := newSim(t, pnpolyPath, simulator.Options{})
		opts := tuning.Options{Sink: sinkFunc(func(_ context.Context, e result.Evaluation) error {
			got = append(got, e)
			return nil
		})}
		s, err := tuning.New(sim.Space(), thinking, nil, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		ctx := context.Background()
		for {
			c, err := s.Ask(ctx)
			if errors.Is(err, tuning.ErrDone) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			time.Sleep(evaluating) // the caller's evaluation
			e, err := sim.Evaluate(ctx, c)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Tell(c, e); err != nil {
				t.Fatal(err)
			}
		}
		check(t, got)
	})
}
