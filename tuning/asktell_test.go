package tuning_test

import (
	"context"
	"errors"
	"strings"
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
// asks again long after its last Tell gets ErrDone once the limit has passed. The limit,
// 300 ms, is long enough for the first Ask to hand a configuration out on a loaded machine
// (at 30 ms a session's start under load could pass it) and the test waits twice as long.
func TestAskAfterTheTimeLimitHandsOutNothing(t *testing.T) {
	sim := newSim(t, pnpolyPath, simulator.Options{})
	const limit = 300 * time.Millisecond
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

// A session hands out one configuration at a time. Two Asks at once, as from an
// application that parallelises its evaluations over one session, give one configuration
// and a clear error, not a second caller blocked until the first one's Tell (and a data
// race on what is pending).
func TestConcurrentAsksGiveOneConfigurationAndAnError(t *testing.T) {
	sim := newSim(t, pnpolyPath, simulator.Options{})
	ctx := context.Background()
	for i := range 20 {
		s, err := tuning.New(sim.Space(), newStrategy(t, "random"), nil, tuning.Options{Budget: 10, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		type asked struct {
			c   space.Config
			err error
		}
		got := make(chan asked, 2)
		for range 2 {
			go func() {
				c, err := s.Ask(ctx)
				got <- asked{c, err}
			}()
		}
		var configs, errs int
		for range 2 {
			select {
			case a := <-got:
				if a.err != nil {
					errs++
					if !strings.Contains(a.err.Error(), "one configuration at a time") {
						t.Errorf("try %d: the second Ask's error %q does not say why", i, a.err)
					}
				} else {
					configs++
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("try %d: an Ask beside another is still waiting after 10 s (%d configurations, %d errors so far)", i, configs, errs)
			}
		}
		if configs != 1 || errs != 1 {
			t.Fatalf("try %d: two Asks at once gave %d configurations and %d errors; want 1 and 1", i, configs, errs)
		}
		s.Close()
	}
}

// Two Tells of the pending configuration at once record it once: the other Tell is an
// error and the history holds one evaluation. (Both used to record it when they overlapped,
// and the second then waited for ever to hand the strategy a fitness it no longer wanted:
// a narrow window, hence many tries; under the race detector, as CI runs this package,
// the first try showed it.)
func TestConcurrentTellsRecordTheEvaluationOnce(t *testing.T) {
	sim := newSim(t, pnpolyPath, simulator.Options{})
	ctx := context.Background()
	for i := range 500 {
		s, err := tuning.New(sim.Space(), newStrategy(t, "random"), nil, tuning.Options{Budget: 10, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		c, err := s.Ask(ctx)
		if err != nil {
			t.Fatal(err)
		}
		e, _ := sim.Evaluate(ctx, c)
		errs := make(chan error, 2)
		start := make(chan struct{})
		for range 2 {
			go func() {
				<-start
				errs <- s.Tell(c, e)
			}()
		}
		close(start)
		var failed int
		for range 2 {
			select {
			case err := <-errs:
				if err != nil {
					failed++
				}
			case <-time.After(10 * time.Second):
				s.Close()
				t.Fatalf("try %d: a Tell beside another is still waiting after 10 s; %d evaluations recorded", i, s.Summary().Evaluations)
			}
		}
		s.Close()
		if n := s.Summary().Evaluations; failed != 1 || n != 1 {
			t.Fatalf("try %d: two Tells at once: %d failed, %d evaluations recorded; want 1 and 1", i, failed, n)
		}
	}
}
