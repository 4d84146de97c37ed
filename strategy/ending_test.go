package strategy_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ktune/ktune/simulator"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/strategy"
	"github.com/ktune/ktune/tuning"
)

// endingRecording has 15 recorded configurations and 240 in Cartesian mode (most of which
// fail), with string, boolean and single-value parameters: small enough that every
// strategy can be run past the end of it.
const endingRecording = "../testdata/kernel_tuner/strategies_test_cache.json"

// endingLimit is how long one run may take before it counts as hanging; the slowest
// strategy needs well under a second here, so the margin is for a loaded machine.
const endingLimit = 30 * time.Second

// runWithin runs one session and returns its summary; when it has not ended within
// limit, its context is cancelled and it must then return within a few seconds, or the
// test stops (the run's goroutine cannot be stopped otherwise).
func runWithin(t *testing.T, what string, sess *tuning.Session, limit time.Duration) (sum tuning.Summary, ended bool, err error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type outcome struct {
		sum tuning.Summary
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		s, e := sess.Run(ctx)
		done <- outcome{s, e}
	}()
	select {
	case o := <-done:
		return o.sum, true, o.err
	case <-time.After(limit):
	}
	cancel()
	select {
	case <-done:
		t.Errorf("%s: did not end within %v (it ended once cancelled)", what, limit)
		return tuning.Summary{}, false, nil
	case <-time.After(5 * time.Second):
		t.Fatalf("%s: did not end within %v, nor within 5 s of cancelling its context", what, limit)
	}
	return tuning.Summary{}, false, nil
}

// Every registered strategy ends when the budget is larger than the space, under
// deterministic and stochastic fitness, in recorded and Cartesian mode. Under stochastic
// fitness a repeat costs budget, so a session's budget is not bounded by the space and a
// session never says the space is exhausted: a strategy that answers repeats from a
// record of its own (basin hopping and dual annealing did) must see that itself, or it
// proposes known configurations forever without reaching the session.
func TestEveryStrategyEndsWhenTheBudgetExceedsTheSpace(t *testing.T) {
	for _, mode := range []simulator.Mode{simulator.Recorded, simulator.Cartesian} {
		for _, fitness := range []simulator.Fitness{simulator.Deterministic, simulator.Stochastic} {
			sim := recordedSimWith(t, endingRecording, simulator.Options{Mode: mode, Fitness: fitness})
			n := sim.Space().Len()
			budget := 2 * n
			for _, name := range strategy.Names() {
				what := fmt.Sprintf("%s, %s mode, %s fitness, budget %d of %d configurations", name, mode, fitness, budget, n)
				st, err := strategy.New(name, nil)
				if err != nil {
					t.Fatal(err)
				}
				sess, err := tuning.New(sim.Space(), st, sim.WithSeed(3), tuning.Options{Budget: budget, Seed: 3,
					Maximize: sim.Maximize(), NoCache: fitness == simulator.Stochastic})
				if err != nil {
					t.Fatal(err)
				}
				sum, ended, err := runWithin(t, what, sess, endingLimit)
				if !ended {
					continue
				}
				if err != nil {
					t.Errorf("%s: %v", what, err)
					continue
				}
				if sum.Evaluations > budget || sum.Distinct > n {
					t.Errorf("%s: %d evaluations of %d distinct configurations", what, sum.Evaluations, sum.Distinct)
				}
			}
		}
	}
}

// Under stochastic fitness the continuous strategies evaluate every configuration once
// and then end, as they do under deterministic fitness; they do not spend the rest of the
// budget on repeats, so their runs below the space's size are unchanged.
func TestContinuousStrategiesEndWhenTheirRecordHoldsTheSpace(t *testing.T) {
	for _, mode := range []simulator.Mode{simulator.Recorded, simulator.Cartesian} {
		sim := recordedSimWith(t, endingRecording, simulator.Options{Mode: mode, Fitness: simulator.Stochastic})
		n := sim.Space().Len()
		for _, name := range cubeStrategies {
			what := fmt.Sprintf("%s, %s mode, stochastic fitness, budget %d", name, mode, n+1)
			st, err := strategy.New(name, nil)
			if err != nil {
				t.Fatal(err)
			}
			sess, err := tuning.New(sim.Space(), st, sim.WithSeed(1), tuning.Options{Budget: n + 1, Seed: 1,
				Maximize: sim.Maximize(), NoCache: true})
			if err != nil {
				t.Fatal(err)
			}
			sum, ended, err := runWithin(t, what, sess, endingLimit)
			if !ended {
				continue
			}
			if err != nil || sum.Evaluations != n || sum.Distinct != n || sum.Stop != tuning.StopFinished {
				t.Errorf("%s: %d evaluations, %d distinct, stop %q, error %v; want each of the %d configurations once, then finished",
					what, sum.Evaluations, sum.Distinct, sum.Stop, err, n)
			}
		}
	}
}

// stochasticProblem is a problem over a simulator as a session with stochastic fitness
// and no budget presents it (a run bounded by a time limit): every request is measured
// anew, Remaining is not bounded by the space, and a cancelled context is answered with
// its error. It counts the requests made after the context was cancelled.
type stochasticProblem struct {
	cancel      context.CancelFunc
	sim         *simulator.Simulator
	rng         *rand.Rand
	cancelAt    int // cancel the context during this request (1-based)
	requests    int
	afterCancel int
}

func (p *stochasticProblem) Space() *space.Space { return p.sim.Space() }
func (p *stochasticProblem) Rand() *rand.Rand    { return p.rng }
func (p *stochasticProblem) Budget() int         { return 0 }
func (p *stochasticProblem) Remaining() int      { return math.MaxInt }

func (p *stochasticProblem) Evaluate(ctx context.Context, c space.Config) (float64, error) {
	if ctx.Err() != nil {
		p.afterCancel++
		return math.NaN(), ctx.Err()
	}
	if p.requests++; p.requests == p.cancelAt {
		p.cancel() // Ctrl-C while this configuration is measured: its measurement is kept
	}
	e, err := p.sim.Evaluate(ctx, c)
	if err != nil {
		return math.NaN(), err
	}
	if e.Failed() {
		return math.Inf(1), nil
	}
	return e.Objective, nil
}

// Once the context is cancelled, the continuous strategies return its error without
// asking their problem again: repeats are answered from their own record without
// reaching the session, so they must look at the context themselves.
func TestContinuousStrategiesStopOnCancellationBetweenEvaluations(t *testing.T) {
	sim := recordedSimWith(t, endingRecording, simulator.Options{Mode: simulator.Cartesian, Fitness: simulator.Stochastic})
	for _, name := range cubeStrategies {
		for _, at := range []int{1, 7, 60} {
			st, err := strategy.New(name, nil)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			p := &stochasticProblem{cancel: cancel, sim: sim.WithSeed(2), rng: rand.New(rand.NewPCG(2, 3)), cancelAt: at}
			err = st.Run(ctx, p)
			cancel()
			if !errors.Is(err, context.Canceled) || p.afterCancel > 0 || p.requests != at {
				t.Errorf("%s cancelled during request %d: returned %v after %d requests, %d of them after cancelling; want context.Canceled and none after",
					name, at, err, p.requests, p.afterCancel)
			}
		}
	}
}
