package tuning_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/simulator"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/tuning"
)

// An Ask whose context is already cancelled returns the context's error every time, not a
// configuration when the strategy happens to have one ready: the caller gave up on this
// call, and a configuration handed out then would be pending unnoticed.
func TestAskWithACancelledContextHandsOutNothing(t *testing.T) {
	sim := newSim(t, pnpolyPath, simulator.Options{})
	s, err := tuning.New(sim.Space(), newStrategy(t, "random"), nil, tuning.Options{Budget: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	c, err := s.Ask(ctx) // starts the session; the strategy then waits with its next one
	if err != nil {
		t.Fatal(err)
	}
	e, _ := sim.Evaluate(ctx, c)
	if err := s.Tell(c, e); err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Millisecond) // the strategy's next configuration is ready
	cancelled, stop := context.WithCancel(ctx)
	stop()
	for i := range 100 {
		if c, err := s.Ask(cancelled); !errors.Is(err, context.Canceled) {
			t.Fatalf("Ask %d with a cancelled context = %v, %v; want context.Canceled", i, c, err)
		}
	}
	if _, err := s.Ask(ctx); err != nil {
		t.Fatalf("Ask after those with a cancelled context: %v", err)
	}
}

// On the wall clock the time limit is checked when Ask hands a configuration out, the
// moment its evaluation starts, not only when the strategy chose it: an application that
// asks again long after its last Tell gets ErrDone once the limit has passed.
func TestAskAfterTheTimeLimitHandsOutNothing(t *testing.T) {
	sim := newSim(t, pnpolyPath, simulator.Options{})
	const limit = 30 * time.Millisecond
	s, err := tuning.New(sim.Space(), newStrategy(t, "random"), nil, tuning.Options{Budget: 50, Seed: 1, TimeLimit: limit})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	c, err := s.Ask(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Tell(c, result.Evaluation{Status: result.OK, Objective: 1}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * limit)
	if c, err := s.Ask(ctx); !errors.Is(err, tuning.ErrDone) {
		t.Fatalf("Ask after the time limit passed = %v, %v; want ErrDone", c, err)
	}
	if sum := s.Summary(); sum.Stop != tuning.StopTime || sum.Evaluations != 1 {
		t.Errorf("summary: stop %q, %d evaluations; want %q after 1", sum.Stop, sum.Evaluations, tuning.StopTime)
	}
}

// Tell keeps its own copy of what the evaluation holds by reference: a caller that fills
// the same values, samples and metrics for each Tell (an application reusing its buffers)
// leaves every earlier evaluation of the history as it was told.
func TestTellKeepsItsOwnCopyOfTheEvaluation(t *testing.T) {
	sim := newSim(t, pnpolyPath, simulator.Options{})
	sp := sim.Space()
	s, err := tuning.New(sp, newStrategy(t, "random"), nil, tuning.Options{Budget: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	var (
		values  []space.Value
		samples = make([]float64, 3)
		metrics = map[string]float64{}
		launch  = &result.Launch{}
	)
	for i := 0; ; i++ {
		c, err := s.Ask(ctx)
		if errors.Is(err, tuning.ErrDone) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		values = append(values[:0], sp.Values(c)...)
		for j := range samples {
			samples[j] = float64(i)
		}
		metrics["gflops"] = float64(i)
		launch.Block[0] = i
		e := result.Evaluation{Status: result.OK, Objective: float64(i), Config: values, Samples: samples, Metrics: metrics, Launch: launch}
		if err := s.Tell(c, e); err != nil {
			t.Fatal(err)
		}
	}
	for i, h := range s.Summary().History {
		e := h.Evaluation
		if !sp.HasValues(h.Config, e.Config) || e.Samples[0] != float64(i) || e.Metrics["gflops"] != float64(i) || e.Launch.Block[0] != i {
			t.Errorf("evaluation %d of %s: values %v, samples %v, metrics %v, launch %v; want its own, as told",
				i, sp.Format(h.Config), e.Config, e.Samples, e.Metrics, e.Launch.Block)
		}
	}
}

// A Tell that races a Close from another goroutine either counts before the session is
// final or not at all: the summary Close leaves does not change afterwards. The
// evaluation's samples are many, so that Tell takes a while copying them and Close
// overtakes it.
func TestTellRacingCloseLeavesTheFinalSummaryAlone(t *testing.T) {
	sim := newSim(t, pnpolyPath, simulator.Options{})
	samples := make([]float64, 1<<20)
	ctx := context.Background()
	for i := range 20 {
		s, err := tuning.New(sim.Space(), newStrategy(t, "random"), nil, tuning.Options{Budget: 50, Seed: 1, BriefSummary: true})
		if err != nil {
			t.Fatal(err)
		}
		c, err := s.Ask(ctx)
		if err != nil {
			t.Fatal(err)
		}
		closed := make(chan tuning.Summary)
		go func() {
			s.Close()
			closed <- s.Summary()
		}()
		err = s.Tell(c, result.Evaluation{Status: result.OK, Objective: 1, Samples: samples})
		final := <-closed
		after := s.Summary()
		if after.Evaluations != final.Evaluations {
			t.Fatalf("try %d: Tell (%v) added an evaluation after Close returned: %d evaluations, then %d", i, err, final.Evaluations, after.Evaluations)
		}
		if err != nil && !errors.Is(err, tuning.ErrDone) {
			t.Fatalf("try %d: Tell = %v, want nil or ErrDone", i, err)
		}
	}
}
