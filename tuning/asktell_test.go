package tuning_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ktune/ktune/simulator"
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
