package tuning_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/simulator"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/strategy"
	"github.com/ktune/ktune/tuning"
)

// Interfaces the simulator must satisfy for the session to use it with simulated time.
var (
	_ tuning.Evaluator = (*simulator.Simulator)(nil)
	_ tuning.Simulated = (*simulator.Simulator)(nil)
)

func run(t *testing.T, sp *space.Space, st strategy.Strategy, ev tuning.Evaluator, opts tuning.Options) (tuning.Summary, error) {
	t.Helper()
	s, err := tuning.New(sp, st, ev, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s.Run(context.Background())
}

func TestRepeatedConfigurationsCostNothing(t *testing.T) {
	sim := newSim(t, pnpolyPath, simulator.Options{})
	sp := sim.Space()
	a, b := sp.At(100, nil), sp.At(2000, nil)
	var fitness []float64
	script := strategyFunc(func(ctx context.Context, p strategy.Problem) error {
		for _, c := range []space.Config{a, a, b, a, b, a} {
			f, err := p.Evaluate(ctx, c)
			if err != nil {
				return err
			}
			fitness = append(fitness, f)
		}
		return nil
	})
	var sunk []result.Evaluation
	sink := sinkFunc(func(_ context.Context, e result.Evaluation) error { sunk = append(sunk, e); return nil })
	sum, err := run(t, sp, script, sim, tuning.Options{Budget: 10, Sink: sink})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Evaluations != 2 || sum.Distinct != 2 || sum.Requests != 6 || len(sum.History) != 2 || len(sunk) != 2 {
		t.Errorf("evaluations %d, distinct %d, requests %d, history %d, sunk %d; want 2, 2, 6, 2, 2",
			sum.Evaluations, sum.Distinct, sum.Requests, len(sum.History), len(sunk))
	}
	if fitness[1] != fitness[0] || fitness[3] != fitness[0] || fitness[4] != fitness[2] {
		t.Errorf("repeats answered %v; want each equal to the first answer", fitness)
	}
	ea, _ := sim.Evaluate(context.Background(), a)
	eb, _ := sim.Evaluate(context.Background(), b)
	if want := sim.Cost(ea) + sim.Cost(eb); sum.Elapsed != want || !sum.Simulated {
		t.Errorf("simulated time %v (simulated %v), want the two recorded costs %v", sum.Elapsed, sum.Simulated, want)
	}
	if sum.Stop != tuning.StopFinished {
		t.Errorf("stop %q, want %q", sum.Stop, tuning.StopFinished)
	}
}

func TestBudgetEndsTheRunAndRefusesEveryLaterRequest(t *testing.T) {
	sim := newSim(t, pnpolyPath, simulator.Options{})
	sp := sim.Space()
	var remaining []int
	var afterBudget []error
	script := strategyFunc(func(ctx context.Context, p strategy.Problem) error {
		for i := 0; ; i++ {
			remaining = append(remaining, p.Remaining())
			if _, err := p.Evaluate(ctx, sp.At(i, nil)); err != nil {
				// The budget is spent: a new configuration and a cached one are both refused.
				_, again := p.Evaluate(ctx, sp.At(0, nil))
				afterBudget = append(afterBudget, err, again)
				return err
			}
		}
	})
	sum, err := run(t, sp, script, sim, tuning.Options{Budget: 5})
	if err != nil {
		t.Fatalf("Run = %v; a strategy returning ErrStop is a normal end", err)
	}
	if sum.Evaluations != 5 || sum.Stop != tuning.StopBudget {
		t.Errorf("%d evaluations, stop %q; want 5, budget", sum.Evaluations, sum.Stop)
	}
	if want := []int{5, 4, 3, 2, 1, 0}; !slices.Equal(remaining, want) {
		t.Errorf("Remaining went %v, want %v", remaining, want)
	}
	for _, err := range afterBudget {
		if !errors.Is(err, strategy.ErrStop) {
			t.Errorf("after the budget: %v, want ErrStop", err)
		}
	}
}

func TestRemainingNeverExceedsTheUnevaluatedConfigurations(t *testing.T) {
	sim := newSim(t, pnpolyPath, simulator.Options{})
	var got []int
	script := strategyFunc(func(ctx context.Context, p strategy.Problem) error {
		got = append(got, p.Remaining(), p.Budget())
		return nil
	})
	if _, err := run(t, sim.Space(), script, sim, tuning.Options{Budget: 1 << 20}); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, sim.Space(), script, sim, tuning.Options{}); err != nil {
		t.Fatal(err)
	}
	if want := []int{4092, 1 << 20, 4092, 0}; !slices.Equal(got, want) {
		t.Errorf("Remaining, Budget = %v, want %v", got, want)
	}
}

func TestStopConditions(t *testing.T) {
	sim := newSim(t, pnpolyPath, simulator.Options{})
	sp := sim.Space()
	// Cumulative recorded cost of the first evaluations in index order (brute force).
	var cum []time.Duration
	var total time.Duration
	for i := range 20 {
		e, _ := sim.Evaluate(context.Background(), sp.At(i, nil))
		total += sim.Cost(e)
		cum = append(cum, total)
	}
	sorted := []float64{}
	for i := range sp.Len() {
		if o, ok := sim.Objective(sp.At(i, nil)); ok {
			sorted = append(sorted, o)
		}
	}
	slices.Sort(sorted)
	target := sorted[30] // the 31st best time

	cases := []struct {
		name     string
		strategy string
		opts     tuning.Options
		stop     tuning.StopReason
		check    func(t *testing.T, sum tuning.Summary)
	}{
		{
			// The time limit falls inside the 10th evaluation: it starts before the limit,
			// so it is kept, and nothing starts after it.
			name: "simulated time limit", strategy: "bruteforce",
			opts: tuning.Options{TimeLimit: (cum[8] + cum[9]) / 2},
			stop: tuning.StopTime,
			check: func(t *testing.T, sum tuning.Summary) {
				if sum.Evaluations != 10 || sum.Elapsed != cum[9] {
					t.Errorf("%d evaluations in %v; want 10 in %v", sum.Evaluations, sum.Elapsed, cum[9])
				}
			},
		},
		{
			name: "target", strategy: "random",
			opts: tuning.Options{Seed: 4, Stop: []tuning.StopCondition{tuning.Target(target)}},
			stop: tuning.StopTarget,
			check: func(t *testing.T, sum tuning.Summary) {
				for i, h := range sum.History {
					reached := !h.Evaluation.Failed() && h.Evaluation.Objective <= target
					if reached != (i == len(sum.History)-1) {
						t.Fatalf("evaluation %d of %d: objective %v, target %v: the run must end at the first that reaches it",
							i+1, len(sum.History), h.Evaluation.Objective, target)
					}
				}
			},
		},
		{
			name: "fraction of the space", strategy: "random",
			opts: tuning.Options{Stop: []tuning.StopCondition{tuning.SpaceFraction(0.1)}},
			stop: tuning.StopSpaceFraction,
			check: func(t *testing.T, sum tuning.Summary) {
				if sum.Distinct != 410 { // ceil(0.1 × 4092)
					t.Errorf("%d configurations evaluated, want 410", sum.Distinct)
				}
			},
		},
		{
			// reached 0.9 of the optimum, not the optimum: "within", not "optimum" (QA:
			// simulate --within 0.95 recorded "optimum" for runs at 0.95)
			name: "within 0.9 of the optimum", strategy: "random",
			opts: tuning.Options{Seed: 2, Stop: []tuning.StopCondition{tuning.WithinOptimum(sim.FractionOfOptimum, 0.9)}},
			stop: tuning.StopWithin,
			check: func(t *testing.T, sum tuning.Summary) {
				if got := sim.FractionOfOptimum(sum.BestObjective); got < 0.9 || got >= 1 {
					t.Errorf("stopped at fraction %v", got)
				}
				prev := sum.History[:len(sum.History)-1]
				for _, h := range prev {
					if sim.FractionOfOptimum(h.Evaluation.Objective) >= 0.9 {
						t.Fatalf("an earlier evaluation already reached 0.9")
					}
				}
			},
		},
		{
			name: "the optimum itself", strategy: "random",
			opts: tuning.Options{Seed: 2, Stop: []tuning.StopCondition{tuning.WithinOptimum(sim.FractionOfOptimum, 0.9999)}},
			stop: tuning.StopOptimum,
			check: func(t *testing.T, sum tuning.Summary) {
				if got := sim.FractionOfOptimum(sum.BestObjective); got != 1 {
					t.Errorf("stopped at fraction %v", got)
				}
			},
		},
		{
			name: "space exhausted", strategy: "bruteforce",
			opts: tuning.Options{},
			stop: tuning.StopExhausted,
			check: func(t *testing.T, sum tuning.Summary) {
				if sum.Evaluations != sp.Len() {
					t.Errorf("%d evaluations, want %d", sum.Evaluations, sp.Len())
				}
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sum := simulate(t, sim, tc.strategy, tc.opts)
			if sum.Stop != tc.stop {
				t.Fatalf("stop %q after %d evaluations, want %q", sum.Stop, sum.Evaluations, tc.stop)
			}
			tc.check(t, sum)
		})
	}
}

// On the wall clock a session ends at its time limit: evaluations of at least 20 ms each
// fit 10 times at most in 200 ms, and one more may be in progress. The limit was 20 ms
// with evaluations of 2 ms: a loaded machine could spend it starting the session, before
// a first evaluation. The count's upper bound holds however slow the machine, since a
// sleep never ends early.
func TestWallClockTimeLimit(t *testing.T) {
	sim := newSim(t, pnpolyPath, simulator.Options{})
	slow := evaluatorFunc(func(ctx context.Context, c space.Config) (result.Evaluation, error) {
		time.Sleep(20 * time.Millisecond)
		return sim.Evaluate(ctx, c)
	})
	const limit = 200 * time.Millisecond
	sum, err := run(t, sim.Space(), newStrategy(t, "random"), slow, tuning.Options{Budget: 1000, TimeLimit: limit})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Simulated || sum.Stop != tuning.StopTime || sum.Evaluations < 1 || sum.Evaluations > 11 {
		t.Errorf("simulated %v, stop %q after %d evaluations of 20 ms; want wall clock, time limit, at most 11",
			sum.Simulated, sum.Stop, sum.Evaluations)
	}
	if sum.Elapsed < limit || sum.Elapsed != sum.Wall {
		t.Errorf("elapsed %v, wall %v: want the wall clock, past the limit", sum.Elapsed, sum.Wall)
	}
}

// On the wall clock the time limit bounds the evaluation in progress too: a configuration
// that would take a minute is abandoned when a 1 s limit passes, and the session ends with
// the time limit, keeping the two instant evaluations that finished before. The limit
// leaves those two (microseconds each) room on a loaded machine; the session must end
// within 20 s, a third of the evaluation it abandons.
func TestWallClockTimeLimitEndsTheEvaluationInProgress(t *testing.T) {
	sim := newSim(t, pnpolyPath, simulator.Options{})
	n := 0
	slow := evaluatorFunc(func(ctx context.Context, c space.Config) (result.Evaluation, error) {
		if n++; n <= 2 {
			return sim.Evaluate(ctx, c)
		}
		select {
		case <-time.After(time.Minute):
			return sim.Evaluate(ctx, c)
		case <-ctx.Done():
			return result.Evaluation{}, ctx.Err()
		}
	})
	start := time.Now()
	sum, err := run(t, sim.Space(), newStrategy(t, "random"), slow, tuning.Options{Budget: 100, TimeLimit: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("the session took %v, waiting for the evaluation in progress", took)
	}
	if sum.Stop != tuning.StopTime || sum.Evaluations != 2 {
		t.Errorf("stop %q after %d evaluations; want the time limit after the 2 that finished", sum.Stop, sum.Evaluations)
	}
}

// Options.Since starts the wall clock before the session: the time limit counts the work
// done for it before (a tuner's start-up, reference and baseline), so a session that
// begins with part of its limit spent ends that much sooner, cutting its evaluation in
// progress, and one that begins with all of it spent evaluates nothing.
func TestTheWallClockCountsFromSince(t *testing.T) {
	sim := newSim(t, pnpolyPath, simulator.Options{})
	for _, tc := range []struct {
		name  string
		spent time.Duration // before the session begins
		limit time.Duration
	}{
		{"part of the limit spent", time.Second, 1100 * time.Millisecond},
		{"all of it spent", 2 * time.Second, time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			slow := evaluatorFunc(func(ctx context.Context, c space.Config) (result.Evaluation, error) {
				calls++
				select {
				case <-time.After(10 * time.Second):
					return sim.Evaluate(ctx, c)
				case <-ctx.Done():
					return result.Evaluation{}, ctx.Err()
				}
			})
			start := time.Now()
			sum, err := run(t, sim.Space(), newStrategy(t, "random"), slow,
				tuning.Options{Budget: 100, TimeLimit: tc.limit, Since: start.Add(-tc.spent)})
			took := time.Since(start)
			if err != nil {
				t.Fatal(err)
			}
			if left := max(tc.limit-tc.spent, 0); took > left+5*time.Second { // of the 10 s an evaluation takes
				t.Errorf("the session took %v with %v of its limit left", took, left)
			}
			if sum.Stop != tuning.StopTime || sum.Evaluations != 0 {
				t.Errorf("stop %q after %d evaluations; want the time limit, nothing evaluated", sum.Stop, sum.Evaluations)
			}
			if sum.Elapsed < tc.limit || sum.Wall != sum.Elapsed || sum.Elapsed > tc.spent+took+time.Millisecond {
				t.Errorf("elapsed %v, wall %v: want the wall clock from Since, past the limit %v", sum.Elapsed, sum.Wall, tc.limit)
			}
			if tc.spent >= tc.limit && calls > 0 {
				t.Errorf("the evaluator was called %d times after the limit had passed", calls)
			}
		})
	}
}

// evaluatorFunc is an Evaluator that is not Simulated: the session keeps wall-clock time.
type evaluatorFunc func(ctx context.Context, c space.Config) (result.Evaluation, error)

func (f evaluatorFunc) Evaluate(ctx context.Context, c space.Config) (result.Evaluation, error) {
	return f(ctx, c)
}

func TestCartesianFailuresCostBudgetAndScoreZero(t *testing.T) {
	sim := newSim(t, convolutionPath, simulator.Options{Mode: simulator.Cartesian})
	sum := simulate(t, sim, "random", tuning.Options{Budget: 200, Seed: 3})
	if sum.Evaluations != 200 {
		t.Fatalf("%d evaluations, want the budget 200", sum.Evaluations)
	}
	failed, best := 0, math.Inf(1)
	for _, h := range sum.History {
		if h.Evaluation.Failed() {
			failed++
			if !math.IsInf(h.Fitness, 1) {
				t.Errorf("failed %s has fitness %v, want +Inf", h.Evaluation.Status, h.Fitness)
			}
			continue
		}
		best = min(best, h.Evaluation.Objective)
	}
	// 59% of the cartesian space is missing or failed: about 118 of 200.
	if failed < 90 || failed > 150 {
		t.Errorf("%d of 200 evaluations failed, want about 118", failed)
	}
	if sum.BestObjective != best {
		t.Errorf("best objective %v, want the best successful one %v", sum.BestObjective, best)
	}
	opt, _ := sim.Optimum()
	if got := sim.FractionOfOptimum(sum.BestObjective); got != opt/best {
		t.Errorf("fraction of optimum %v, want %v", got, opt/best)
	}

	// A run that finds nothing that works scores 0 and reports no best configuration.
	var dud []space.Config
	sp := sim.Space()
	for i := 0; len(dud) < 5; i++ {
		c := sp.At(i, nil)
		if _, ok := sim.Objective(c); !ok {
			dud = append(dud, c)
		}
	}
	script := strategyFunc(func(ctx context.Context, p strategy.Problem) error {
		for _, c := range dud {
			if _, err := p.Evaluate(ctx, c); err != nil {
				return err
			}
		}
		return nil
	})
	sum, err := run(t, sp, script, sim, tuning.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Evaluations != 5 || sum.Best != nil || !math.IsNaN(sum.BestObjective) || sim.FractionOfOptimum(sum.BestObjective) != 0 {
		t.Errorf("all failed: %d evaluations, best %v %v; want 5, nil, NaN, fraction 0", sum.Evaluations, sum.Best, sum.BestObjective)
	}
}

// maximised is the convolution recording with GFLOP/s, which is to be maximised, as its
// objective.
func maximised(t *testing.T) *simulator.Simulator {
	t.Helper()
	rec := *recording(t, convolutionPath)
	rec.Objective, rec.Maximize = "GFLOP/s", true
	rec.Evaluations = slices.Clone(rec.Evaluations)
	for i := range rec.Evaluations {
		e := &rec.Evaluations[i]
		if !e.Failed() {
			e.Objective = e.Metrics["GFLOP/s"]
		}
	}
	sim, err := simulator.New(&rec, simulator.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return sim
}

func TestMaximisation(t *testing.T) {
	sim := maximised(t)
	sp := sim.Space()
	opt, optConfig := sim.Optimum()

	t.Run("strategies minimise the negated objective", func(t *testing.T) {
		var seen []float64
		script := strategyFunc(func(ctx context.Context, p strategy.Problem) error {
			for i := range 50 {
				f, err := p.Evaluate(ctx, sp.At(i, nil))
				if err != nil {
					return err
				}
				seen = append(seen, f)
			}
			return nil
		})
		sum, err := run(t, sp, script, sim, tuning.Options{Maximize: true})
		if err != nil {
			t.Fatal(err)
		}
		best := math.Inf(-1)
		for i, h := range sum.History {
			want := -h.Evaluation.Objective
			if h.Evaluation.Failed() {
				want = math.Inf(1)
			} else {
				best = max(best, h.Evaluation.Objective)
			}
			if seen[i] != want || h.Fitness != want {
				t.Fatalf("evaluation %d: strategy saw %v, history %v; want %v", i, seen[i], h.Fitness, want)
			}
		}
		if sum.BestObjective != best {
			t.Errorf("best objective %v, want the largest %v", sum.BestObjective, best)
		}
	})
	t.Run("brute force finds the largest", func(t *testing.T) {
		sum := simulate(t, sim, "bruteforce", tuning.Options{Budget: sp.Len()})
		if sum.BestObjective != opt || !slices.Equal(sum.Best, optConfig) || sim.FractionOfOptimum(sum.BestObjective) != 1 {
			t.Errorf("best %v at %v; want %v at %v", sum.BestObjective, sum.Best, opt, optConfig)
		}
	})
	t.Run("target is reached from below", func(t *testing.T) {
		target := 0.8 * opt
		sum := simulate(t, sim, "random", tuning.Options{Seed: 1, Stop: []tuning.StopCondition{tuning.Target(target)}})
		if sum.Stop != tuning.StopTarget || sum.BestObjective < target {
			t.Errorf("stop %q with best %v; want target %v reached", sum.Stop, sum.BestObjective, target)
		}
		if f := sim.FractionOfOptimum(sum.BestObjective); f < 0.8 || f > 1 {
			t.Errorf("fraction of optimum %v, want in [0.8, 1]", f)
		}
	})
}

func TestBruteForceWithBudgetLenFindsTheExactOptimum(t *testing.T) {
	for _, mode := range []simulator.Mode{simulator.Recorded, simulator.Cartesian} {
		sim := newSim(t, convolutionPath, simulator.Options{Mode: mode})
		sum := simulate(t, sim, "bruteforce", tuning.Options{Budget: sim.Space().Len()})
		opt, optConfig := sim.Optimum()
		if sum.BestObjective != opt || !slices.Equal(sum.Best, optConfig) || sum.Evaluations != sim.Space().Len() {
			t.Errorf("%v: best %v at %v after %d evaluations; want %v at %v after %d",
				mode, sum.BestObjective, sum.Best, sum.Evaluations, opt, optConfig, sim.Space().Len())
		}
		if f := sim.FractionOfOptimum(sum.BestObjective); f != 1 {
			t.Errorf("%v: fraction of optimum %v, want 1", mode, f)
		}
	}
}

func TestSameSeedSameRun(t *testing.T) {
	for _, fitness := range []simulator.Fitness{simulator.Deterministic, simulator.Stochastic} {
		base := newSim(t, pnpolyPath, simulator.Options{Fitness: fitness})
		runSeed := func(seed uint64) tuning.Summary {
			return simulate(t, base.WithSeed(seed), "random", tuning.Options{Budget: 30, Seed: seed})
		}
		a, b, c := runSeed(7), runSeed(7), runSeed(8)
		if !slices.EqualFunc(a.History, b.History, sameEvaluated) || a.BestObjective != b.BestObjective {
			t.Errorf("%v: seed 7 twice gave different runs", fitness)
		}
		if slices.EqualFunc(a.History, c.History, sameEvaluated) {
			t.Errorf("%v: seeds 7 and 8 gave the same run", fitness)
		}
	}
}

func sameEvaluated(a, b tuning.Evaluated) bool {
	return slices.Equal(a.Config, b.Config) && a.Fitness == b.Fitness && a.Elapsed == b.Elapsed &&
		a.Evaluation.Status == b.Evaluation.Status &&
		(a.Evaluation.Objective == b.Evaluation.Objective || math.IsNaN(a.Evaluation.Objective) && math.IsNaN(b.Evaluation.Objective))
}

// revisiting samples with replacement, so that ask/tell is tested with cache hits.
var revisiting = strategyFunc(func(ctx context.Context, p strategy.Problem) error {
	sp := p.Space()
	for {
		if _, err := p.Evaluate(ctx, sp.At(p.Rand().IntN(60), nil)); err != nil {
			if errors.Is(err, strategy.ErrStop) {
				return nil
			}
			return err
		}
	}
})

func TestAskTellEqualsRun(t *testing.T) {
	cases := []struct {
		name    string
		st      strategy.Strategy
		fitness simulator.Fitness
	}{
		{"random/deterministic", newStrategy(t, "random"), simulator.Deterministic},
		{"random/stochastic", newStrategy(t, "random"), simulator.Stochastic},
		{"bruteforce", newStrategy(t, "bruteforce"), simulator.Deterministic},
		{"revisiting", revisiting, simulator.Deterministic},
	}
	// every registered strategy works step by step (dynamic tuning) as it does in one call
	for _, name := range strategy.Names() {
		if name != "random" && name != "bruteforce" {
			cases = append(cases, struct {
				name    string
				st      strategy.Strategy
				fitness simulator.Fitness
			}{name, newStrategy(t, name), simulator.Deterministic})
		}
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			base := newSim(t, pnpolyPath, simulator.Options{Fitness: tc.fitness})
			opts := tuning.Options{Budget: 40, Seed: 12}

			blocking, err := run(t, base.Space(), tc.st, base.WithSeed(5), opts)
			if err != nil {
				t.Fatal(err)
			}

			sim := base.WithSeed(5)
			s, err := tuning.New(sim.Space(), tc.st, sim, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			ctx := context.Background()
			asked := 0
			for {
				c, err := s.Ask(ctx)
				if errors.Is(err, tuning.ErrDone) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				asked++
				e, err := sim.Evaluate(ctx, c)
				if err != nil {
					t.Fatal(err)
				}
				if err := s.Tell(c, e); err != nil {
					t.Fatal(err)
				}
			}
			told := s.Summary()
			if asked != told.Evaluations {
				t.Errorf("Ask returned %d configurations for %d evaluations: repeats must not reach Ask", asked, told.Evaluations)
			}
			if !slices.EqualFunc(blocking.History, told.History, sameEvaluated) {
				t.Errorf("ask/tell history differs from Run's")
			}
			if blocking.Evaluations != told.Evaluations || blocking.Requests != told.Requests ||
				blocking.BestObjective != told.BestObjective || !slices.Equal(blocking.Best, told.Best) ||
				blocking.Elapsed != told.Elapsed || blocking.Stop != told.Stop {
				t.Errorf("Run: %d evaluations, %d requests, best %v at %v, %v, %q\nask/tell: %d, %d, best %v at %v, %v, %q",
					blocking.Evaluations, blocking.Requests, blocking.BestObjective, blocking.Best, blocking.Elapsed, blocking.Stop,
					told.Evaluations, told.Requests, told.BestObjective, told.Best, told.Elapsed, told.Stop)
			}
		})
	}
}

func TestAskTellMisuse(t *testing.T) {
	sim := newSim(t, pnpolyPath, simulator.Options{})
	s, err := tuning.New(sim.Space(), newStrategy(t, "random"), nil, tuning.Options{Budget: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	if err := s.Tell(sim.Space().At(0, nil), result.Evaluation{}); err == nil {
		t.Error("Tell before Ask succeeded")
	}
	c, err := s.Ask(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Ask(ctx); err == nil {
		t.Error("a second Ask before Tell succeeded")
	}
	other := sim.Space().At(0, nil)
	if slices.Equal(other, c) {
		other = sim.Space().At(1, nil)
	}
	if err := s.Tell(other, result.Evaluation{}); err == nil {
		t.Error("Tell for a configuration not asked succeeded")
	}
	// An evaluation whose values are another configuration's is refused, and the
	// configuration asked is still to be told.
	wrong := sim.Space().Values(other)
	if err := s.Tell(c, result.Evaluation{Status: result.OK, Objective: 1, Config: wrong}); err == nil ||
		!strings.Contains(err.Error(), "not those of the configuration evaluated") {
		t.Errorf("Tell with another configuration's values: %v", err)
	}
	if n := len(s.Summary().History); n != 0 {
		t.Errorf("%d evaluations recorded after a refused Tell", n)
	}
	// A failed configuration is told with its status; the strategy sees +Inf and goes on.
	if err := s.Tell(c, result.Evaluation{Status: result.CompileError, Objective: math.NaN()}); err != nil {
		t.Fatal(err)
	}
	if h := s.Summary().History; len(h) != 1 || !math.IsInf(h[0].Fitness, 1) || len(h[0].Evaluation.Config) != 4 {
		t.Errorf("history after a failed Tell: %+v; want one entry, fitness +Inf, Config filled in", h)
	}
	if _, err := s.Run(ctx); err == nil {
		t.Error("Run on a session driven by Ask and Tell succeeded")
	}
}

// A summary is the caller's copy: changing it changes nothing in the session (a QA saw
// configurations paired with objectives they never had after editing a snapshot).
func TestSummaryIsACopy(t *testing.T) {
	sim := newSim(t, pnpolyPath, simulator.Options{})
	s, err := tuning.New(sim.Space(), newStrategy(t, "random"), sim, tuning.Options{Budget: 5, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	before := fmt.Sprint(sum.Best, sum.History)
	// the copies share one array of each kind: appending to one must not write over the
	// next one's (each is capped at its own end), in the summary or in the session
	for i := range sum.History[:len(sum.History)-1] {
		h := &sum.History[i]
		_ = append(h.Config, 77)
		_ = append(h.Evaluation.Config, space.IntValue(77))
		_ = append(h.Evaluation.Samples, 77)
	}
	if got := fmt.Sprint(sum.Best, sum.History); got != before {
		t.Errorf("appending to a summary's configuration changed the next one's:\n%s\n%s", before, got)
	}
	sum.Best[0] = 99
	for i := range sum.History {
		sum.History[i].Config[0] = 99
		sum.History[i].Evaluation.Config[0] = space.IntValue(99)
		if len(sum.History[i].Evaluation.Samples) > 0 {
			sum.History[i].Evaluation.Samples[0] = -1
		}
	}
	if after := s.Summary(); fmt.Sprint(after.Best, after.History) != before {
		t.Errorf("editing a summary changed the session's:\n%s\n%s", before, fmt.Sprint(after.Best, after.History))
	}
}

// An evaluator whose evaluation holds another configuration's values ends the session
// with an error rather than store them.
type wrongValues struct{ *simulator.Simulator }

func (w wrongValues) Evaluate(ctx context.Context, c space.Config) (result.Evaluation, error) {
	e, err := w.Simulator.Evaluate(ctx, c)
	e.Config = slices.Clone(e.Config)
	e.Config[0] = space.IntValue(-12345)
	return e, err
}

func TestAnEvaluatorsValuesMustBeTheConfigurations(t *testing.T) {
	sim := newSim(t, pnpolyPath, simulator.Options{})
	_, err := run(t, sim.Space(), newStrategy(t, "random"), wrongValues{sim}, tuning.Options{Budget: 5})
	if err == nil || !strings.Contains(err.Error(), "not those of the configuration evaluated") {
		t.Errorf("Run with an evaluator giving other values: %v", err)
	}
}

// waitGoroutines waits for the goroutine count to fall back to at most n.
func waitGoroutines(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > n {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines, want at most %d: the strategy's goroutine leaked", runtime.NumGoroutine(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestCloseStopsTheStrategyGoroutine(t *testing.T) {
	sim := newSim(t, pnpolyPath, simulator.Options{})
	before := runtime.NumGoroutine()
	var sessions []*tuning.Session
	for range 20 {
		s, err := tuning.New(sim.Space(), newStrategy(t, "random"), sim, tuning.Options{Budget: 100})
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			c, err := s.Ask(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			e, _ := sim.Evaluate(context.Background(), c)
			if err := s.Tell(c, e); err != nil {
				t.Fatal(err)
			}
		}
		// Leave one with a configuration asked and not told: Close must not hang on it.
		if len(sessions)%2 == 0 {
			if _, err := s.Ask(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		sessions = append(sessions, s)
	}
	if runtime.NumGoroutine() < before+20 {
		t.Fatalf("%d goroutines with 20 sessions open, from %d: the test does not see them", runtime.NumGoroutine(), before)
	}
	for _, s := range sessions {
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal("second Close:", err)
		}
	}
	waitGoroutines(t, before)
	s := sessions[0]
	if _, err := s.Ask(context.Background()); !errors.Is(err, tuning.ErrDone) {
		t.Errorf("Ask after Close = %v, want ErrDone", err)
	}
	if sum := s.Summary(); sum.Stop != tuning.StopCancelled || sum.Evaluations != 3 || s.Err() != nil {
		t.Errorf("after Close: stop %q, %d evaluations, err %v; want cancelled, 3, nil", sum.Stop, sum.Evaluations, s.Err())
	}
}

func TestCancellingStartsContextStopsTheStrategyGoroutine(t *testing.T) {
	sim := newSim(t, pnpolyPath, simulator.Options{})
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	s, err := tuning.New(sim.Space(), newStrategy(t, "random"), sim, tuning.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Ask(context.Background()); err != nil {
		t.Fatal(err)
	}
	cancel()
	waitGoroutines(t, before)
	if _, err := s.Ask(context.Background()); !errors.Is(err, context.Canceled) {
		t.Errorf("Ask after the session's context was cancelled = %v, want context.Canceled", err)
	}
	if s.Summary().Stop != tuning.StopCancelled {
		t.Errorf("stop %q, want cancelled", s.Summary().Stop)
	}

	// An Ask whose own context ends returns without ending the session: the strategy
	// keeps its configuration for the next Ask.
	s, _ = tuning.New(sim.Space(), newStrategy(t, "random"), sim, tuning.Options{Budget: 2})
	defer s.Close()
	short, stop := context.WithCancel(context.Background())
	stop()
	cancelled := 0
	for told := 0; ; {
		ask := context.Background()
		if told == 0 && cancelled == 0 {
			ask = short
		}
		c, err := s.Ask(ask)
		if errors.Is(err, context.Canceled) {
			cancelled++
			continue
		}
		if errors.Is(err, tuning.ErrDone) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		e, _ := sim.Evaluate(context.Background(), c)
		if err := s.Tell(c, e); err != nil {
			t.Fatal(err)
		}
		told++
	}
	if sum := s.Summary(); sum.Evaluations != 2 || sum.Stop != tuning.StopBudget || cancelled > 1 {
		t.Errorf("after an Ask with a cancelled context: %d evaluations, stop %q; want 2, budget", sum.Evaluations, sum.Stop)
	}
}

func TestCancellingRunStopsIt(t *testing.T) {
	sim := newSim(t, pnpolyPath, simulator.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	progress := func(p tuning.Progress) {
		if p.Evaluations == 5 {
			cancel()
		}
	}
	s, err := tuning.New(sim.Space(), newStrategy(t, "random"), sim, tuning.Options{Budget: 100, Progress: progress})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := s.Run(ctx)
	if !errors.Is(err, context.Canceled) || sum.Stop != tuning.StopCancelled || sum.Evaluations != 5 {
		t.Errorf("Run = %v, stop %q after %d evaluations; want context.Canceled, cancelled, 5", err, sum.Stop, sum.Evaluations)
	}
}

var errBroken = errors.New("device lost")

func TestEvaluatorAndSinkErrorsEndTheSession(t *testing.T) {
	sim := newSim(t, pnpolyPath, simulator.Options{})
	calls := 0
	breaking := evaluatorFunc(func(ctx context.Context, c space.Config) (result.Evaluation, error) {
		if calls++; calls == 4 {
			return result.Evaluation{}, errBroken
		}
		return sim.Evaluate(ctx, c)
	})
	sum, err := run(t, sim.Space(), newStrategy(t, "random"), breaking, tuning.Options{Budget: 10})
	if !errors.Is(err, errBroken) || sum.Stop != tuning.StopError || sum.Evaluations != 3 {
		t.Errorf("evaluator broke: Run = %v, stop %q after %d; want errBroken, error, 3", err, sum.Stop, sum.Evaluations)
	}

	var sunk int
	sink := sinkFunc(func(context.Context, result.Evaluation) error {
		if sunk++; sunk == 2 {
			return errBroken
		}
		return nil
	})
	sum, err = run(t, sim.Space(), newStrategy(t, "random"), sim, tuning.Options{Budget: 10, Sink: sink})
	if !errors.Is(err, errBroken) || sum.Stop != tuning.StopError || sum.Evaluations != 2 {
		t.Errorf("sink broke: Run = %v, stop %q after %d; want errBroken, error, 2", err, sum.Stop, sum.Evaluations)
	}
}

func TestStrategyErrors(t *testing.T) {
	sim := newSim(t, pnpolyPath, simulator.Options{})
	invalid := strategyFunc(func(ctx context.Context, p strategy.Problem) error {
		_, err := p.Evaluate(ctx, space.Config{99, 0, 0, 0})
		return err
	})
	if sum, err := run(t, sim.Space(), invalid, sim, tuning.Options{}); err == nil || sum.Stop != tuning.StopError {
		t.Errorf("a configuration outside the space: Run = %v, stop %q; want an error", err, sum.Stop)
	}

	panicking := strategyFunc(func(ctx context.Context, p strategy.Problem) error { panic("bug in strategy") })
	s, _ := tuning.New(sim.Space(), panicking, sim, tuning.Options{})
	defer s.Close()
	if _, err := s.Ask(context.Background()); err == nil || !strings.Contains(err.Error(), "bug in strategy") {
		t.Errorf("a panicking strategy under ask/tell: Ask = %v, want the panic as an error", err)
	}
}

func TestNoCacheEvaluatesRepeatsAgain(t *testing.T) {
	sim := newSim(t, pnpolyPath, simulator.Options{Fitness: simulator.Stochastic, Seed: 1})
	c := sim.Space().At(500, nil)
	script := strategyFunc(func(ctx context.Context, p strategy.Problem) error {
		for {
			if _, err := p.Evaluate(ctx, c); err != nil {
				return err
			}
		}
	})
	sum, err := run(t, sim.Space(), script, sim, tuning.Options{Budget: 20, NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	distinctObjectives := map[float64]bool{}
	for _, h := range sum.History {
		distinctObjectives[h.Evaluation.Objective] = true
	}
	if sum.Evaluations != 20 || sum.Distinct != 1 || len(distinctObjectives) < 3 {
		t.Errorf("%d evaluations of %d configurations, %d distinct objectives; want 20, 1, several samples",
			sum.Evaluations, sum.Distinct, len(distinctObjectives))
	}
	if mean, _ := sim.Objective(c); mean == sum.BestObjective {
		t.Errorf("best objective is the recorded mean %v; stochastic fitness must report samples", mean)
	}
}

// With NoCache a configuration measured several times is judged by its measurements, not
// by its luckiest one: on the point-in-polygon recording of the RTX 2080 Ti, whose samples
// of one configuration range over a factor of three, the best of the session is the
// configuration whose mean plus one standard error (the pooled relative standard deviation
// of the configurations measured more than once, over the square root of its own count) is
// lowest, and its objective is its mean. Measured once each, the configurations are
// judged by their single measurements.
func TestNoCacheJudgesTheBestByItsMeasurements(t *testing.T) {
	sim := newSim(t, pnpolyPath, simulator.Options{Fitness: simulator.Stochastic, Seed: 4})
	sp := sim.Space()
	// the ten best configurations by recorded mean
	type ranked struct {
		i    int
		mean float64
	}
	var all []ranked
	for i := range sp.Len() {
		if m, ok := sim.Objective(sp.At(i, nil)); ok {
			all = append(all, ranked{i, m})
		}
	}
	slices.SortFunc(all, func(a, b ranked) int { return cmp.Compare(a.mean, b.mean) })
	measure := func(times func(k int) int) tuning.Summary {
		total := 0
		for k := range 10 {
			total += times(k)
		}
		script := strategyFunc(func(ctx context.Context, p strategy.Problem) error {
			for k := range 10 {
				c := sp.At(all[k].i, nil)
				for range times(k) {
					if _, err := p.Evaluate(ctx, c); err != nil {
						return err
					}
				}
			}
			return nil
		})
		sum, err := run(t, sp, script, sim, tuning.Options{Budget: total, NoCache: true})
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}

	// the k-th best measured k+1 times
	sum := measure(func(k int) int { return k + 1 })
	samples := map[string][]float64{}
	luckiest, luckiestObj := "", math.Inf(1)
	for _, h := range sum.History {
		k := sp.Format(h.Config)
		samples[k] = append(samples[k], h.Evaluation.Objective)
		if h.Evaluation.Objective < luckiestObj {
			luckiest, luckiestObj = k, h.Evaluation.Objective
		}
	}
	means := map[string]float64{}
	ss, dof := 0.0, 0.0
	for k, xs := range samples {
		m := 0.0
		for _, x := range xs {
			m += x
		}
		m /= float64(len(xs))
		means[k] = m
		for _, x := range xs {
			ss += (x - m) * (x - m) / (m * m)
		}
		dof += float64(len(xs) - 1)
	}
	rel := math.Sqrt(ss / dof)
	want, wantScore, lowestMean := "", math.Inf(1), ""
	for k, m := range means {
		if sc := m + rel*m/math.Sqrt(float64(len(samples[k]))); sc < wantScore {
			want, wantScore = k, sc
		}
		if lowestMean == "" || m < means[lowestMean] {
			lowestMean = k
		}
	}
	if want == luckiest || want == lowestMean {
		t.Fatalf("the best by score is also the luckiest measurement's (%s) or the lowest mean's (%s): the test needs a seed where they differ", luckiest, lowestMean)
	}
	if got := sp.Format(sum.Best); got != want || math.Abs(sum.BestObjective-means[want]) > 1e-12*means[want] {
		t.Errorf("best %s at %v; want %s, whose %d measurements average %v (relative noise %.3f; the luckiest single measurement, %v, is %s's, the lowest mean %s's)",
			got, sum.BestObjective, want, len(samples[want]), means[want], rel, luckiestObj, luckiest, lowestMean)
	}

	// each measured once: no noise seen, the lowest measurement wins
	once := measure(func(int) int { return 1 })
	low := once.History[0]
	for _, h := range once.History {
		if h.Evaluation.Objective < low.Evaluation.Objective {
			low = h
		}
	}
	if !slices.Equal(once.Best, low.Config) || once.BestObjective != low.Evaluation.Objective {
		t.Errorf("measured once each: best %s at %v, want the lowest measurement, %s at %v",
			sp.Format(once.Best), once.BestObjective, sp.Format(low.Config), low.Evaluation.Objective)
	}
}

func TestProgressReportsEveryEvaluation(t *testing.T) {
	sim := newSim(t, pnpolyPath, simulator.Options{})
	var reports []tuning.Progress
	sum := simulate(t, sim, "random", tuning.Options{Budget: 25, Seed: 9, Progress: func(p tuning.Progress) { reports = append(reports, p) }})
	if len(reports) != 25 {
		t.Fatalf("%d progress reports, want 25", len(reports))
	}
	last := reports[len(reports)-1]
	if last.Evaluations != 25 || last.Budget != 25 || last.Best != sum.BestObjective || last.Elapsed != sum.Elapsed {
		t.Errorf("last report %+v; summary best %v, elapsed %v", last, sum.BestObjective, sum.Elapsed)
	}
	for i := 1; i < len(reports); i++ {
		if reports[i].Best > reports[i-1].Best || reports[i].Elapsed < reports[i-1].Elapsed {
			t.Fatalf("report %d went backwards: %+v after %+v", i, reports[i], reports[i-1])
		}
	}
}

func TestProgressETA(t *testing.T) {
	cases := []struct {
		name string
		p    tuning.Progress
		want time.Duration
	}{
		{"budget at the average rate", tuning.Progress{Evaluations: 10, Budget: 40, Elapsed: 20 * time.Second}, 60 * time.Second},
		{"time limit sooner than the budget", tuning.Progress{Evaluations: 10, Budget: 40, Elapsed: 20 * time.Second, TimeLimit: 30 * time.Second}, 10 * time.Second},
		{"time limit only", tuning.Progress{Evaluations: 3, Elapsed: 5 * time.Second, TimeLimit: 8 * time.Second}, 3 * time.Second},
		{"nothing bounds the run", tuning.Progress{Evaluations: 3, Elapsed: 5 * time.Second}, -1},
		{"nothing evaluated yet", tuning.Progress{Budget: 10}, -1},
	}
	for _, tc := range cases {
		if got := tc.p.ETA(); got != tc.want {
			t.Errorf("%s: ETA = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestNewRejectsBadOptions(t *testing.T) {
	sim := newSim(t, pnpolyPath, simulator.Options{})
	st := newStrategy(t, "random")
	for _, tc := range []struct {
		name string
		sp   *space.Space
		st   strategy.Strategy
		opts tuning.Options
	}{
		{"no space", nil, st, tuning.Options{}},
		{"no strategy", sim.Space(), nil, tuning.Options{}},
		{"negative budget", sim.Space(), st, tuning.Options{Budget: -1}},
		{"negative time limit", sim.Space(), st, tuning.Options{TimeLimit: -time.Second}},
	} {
		if _, err := tuning.New(tc.sp, tc.st, sim, tc.opts); err == nil {
			t.Errorf("%s: New succeeded", tc.name)
		}
	}
	s, _ := tuning.New(sim.Space(), st, nil, tuning.Options{})
	if _, err := s.Run(context.Background()); err == nil {
		t.Error("Run without an evaluator succeeded")
	}
}

func TestSinkAndLogSeeEveryNewEvaluationInOrder(t *testing.T) {
	sim := newSim(t, convolutionPath, simulator.Options{Mode: simulator.Cartesian})
	var sunk []result.Evaluation
	sink := sinkFunc(func(_ context.Context, e result.Evaluation) error { sunk = append(sunk, e); return nil })
	var logs strings.Builder
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	sum := simulate(t, sim, "random", tuning.Options{Budget: 30, Seed: 2, Sink: sink, Logger: logger})
	if len(sunk) != 30 {
		t.Fatalf("sink got %d evaluations, want 30", len(sunk))
	}
	for i, e := range sunk {
		h := sum.History[i].Evaluation
		if !slices.EqualFunc(e.Config, h.Config, space.Value.Equal) || e.Status != h.Status {
			t.Fatalf("sink evaluation %d is %v %v, history has %v %v", i, e.Config, e.Status, h.Config, h.Status)
		}
		if len(e.Config) != len(sim.Space().Params()) {
			t.Fatalf("sink evaluation %d has config %v: every evaluation must name its configuration", i, e.Config)
		}
	}
	out := logs.String()
	if n := strings.Count(out, "msg=evaluation"); n != 30 {
		t.Errorf("%d evaluation log records, want 30", n)
	}
	if !strings.Contains(out, "tuning session start") || !strings.Contains(out, `stop=budget`) {
		t.Errorf("log lacks the session's start or end:\n%s", out)
	}
}

// Evaluations made before the session (a baseline) count against its budget and answer a
// strategy that asks for them from the cache, without reaching the evaluator or the sink.
func TestMeasuredEvaluationsCountAgainstTheBudget(t *testing.T) {
	sim := newSim(t, pnpolyPath, simulator.Options{})
	sp := sim.Space()
	first := sp.At(0, nil)
	pre, err := sim.Evaluate(context.Background(), first)
	if err != nil {
		t.Fatal(err)
	}
	pre.Config = sp.Values(first)
	calls := 0
	counting := evaluatorFunc(func(ctx context.Context, c space.Config) (result.Evaluation, error) {
		calls++
		return sim.Evaluate(ctx, c)
	})
	sum, err := run(t, sp, newStrategy(t, "bruteforce"), counting, tuning.Options{Budget: 5, Measured: []result.Evaluation{pre}})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Evaluations != 5 || calls != 4 || len(sum.History) != 5 || !slices.Equal(sum.History[0].Config, first) {
		t.Errorf("%d evaluations, %d evaluator calls, history of %d starting at %v; want 5, 4 and the baseline first",
			sum.Evaluations, calls, len(sum.History), sum.History[0].Config)
	}
}

// A status that is none of result's (result.Status(99)) is refused wherever it comes in:
// by Tell (the configuration is still to be told), from an Evaluator (the session ends with
// an error naming the configuration) and in Options.Measured (New fails). Stored, it would
// read as a failure nobody can name, status(99).
func TestAnUndefinedStatusIsRefused(t *testing.T) {
	sim := newSim(t, pnpolyPath, simulator.Options{})
	sp := sim.Space()
	ctx := context.Background()
	bad := result.Status(99)

	s, err := tuning.New(sp, newStrategy(t, "random"), nil, tuning.Options{Budget: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, err := s.Ask(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Tell(c, result.Evaluation{Status: bad, Objective: 0.5}); err == nil ||
		!strings.Contains(err.Error(), "status 99 is not an evaluation status") || !strings.Contains(err.Error(), "device_limit") {
		t.Errorf("Tell with status 99: %v; want an error naming the status and the valid ones", err)
	}
	if n := len(s.Summary().History); n != 0 {
		t.Errorf("%d evaluations recorded after a refused Tell", n)
	}
	if err := s.Tell(c, result.Evaluation{Status: result.OK, Objective: 0.5}); err != nil {
		t.Errorf("Tell after the refused one: %v; the configuration should still be to be told", err)
	}

	undefined := evaluatorFunc(func(ctx context.Context, c space.Config) (result.Evaluation, error) {
		return result.Evaluation{Status: bad, Objective: 1}, nil
	})
	sum, err := run(t, sp, newStrategy(t, "random"), undefined, tuning.Options{Budget: 5})
	if err == nil || !strings.Contains(err.Error(), "status 99") || sum.Stop != tuning.StopError || len(sum.History) != 0 {
		t.Errorf("Run with an evaluator giving status 99: %v, stop %q, %d recorded", err, sum.Stop, len(sum.History))
	}

	first := sp.Values(sp.At(0, nil))
	_, err = tuning.New(sp, newStrategy(t, "random"), nil, tuning.Options{
		Measured: []result.Evaluation{{Config: first, Status: result.OK, Objective: 1}, {Config: first, Status: bad, Objective: 1}}})
	if err == nil || !strings.Contains(err.Error(), "Options.Measured[1]") || !strings.Contains(err.Error(), "status 99") {
		t.Errorf("New with a measured status 99: %v", err)
	}
}

// A failure told with an objective value (an evaluator that kept the time of a run whose
// output was wrong) is recorded without it, as result.Evaluation documents: the store,
// exports and reports never read it as a measurement.
func TestAFailureToldWithAnObjectiveKeepsNone(t *testing.T) {
	sim := newSim(t, pnpolyPath, simulator.Options{})
	var sunk []result.Evaluation
	s, err := tuning.New(sim.Space(), newStrategy(t, "random"), nil, tuning.Options{Budget: 2,
		Sink: sinkFunc(func(_ context.Context, e result.Evaluation) error { sunk = append(sunk, e); return nil })})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	for _, st := range []result.Status{result.WrongAnswer, result.OK} {
		c, err := s.Ask(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Tell(c, result.Evaluation{Status: st, Objective: 0.5}); err != nil {
			t.Fatal(err)
		}
	}
	h := s.Summary().History
	if len(h) != 2 || len(sunk) != 2 {
		t.Fatalf("%d recorded, %d sunk; want 2", len(h), len(sunk))
	}
	if o := h[0].Evaluation.Objective; !math.IsNaN(o) || !math.IsNaN(sunk[0].Objective) || !math.IsInf(h[0].Fitness, 1) {
		t.Errorf("failure recorded with objective %v (sunk %v), fitness %v; want NaN, NaN, +Inf", o, sunk[0].Objective, h[0].Fitness)
	}
	if o := h[1].Evaluation.Objective; o != 0.5 || sunk[1].Objective != 0.5 {
		t.Errorf("success recorded with objective %v (sunk %v); want 0.5", o, sunk[1].Objective)
	}
}

// A configuration given twice in Options.Measured keeps its last measurement, which
// supersedes the first as a repeated measurement does in a recording (KeepLast) and in a
// resumed run, and counts once against the budget; with NoCache both count.
func TestMeasuredKeepsTheLastMeasurementOfAConfiguration(t *testing.T) {
	sim := newSim(t, pnpolyPath, simulator.Options{})
	sp := sim.Space()
	a, b := sp.At(0, nil), sp.At(1, nil)
	measured := []result.Evaluation{
		{Config: sp.Values(a), Status: result.OK, Objective: 0.5},
		{Config: sp.Values(b), Status: result.OK, Objective: 0.3},
		{Config: sp.Values(a), Status: result.OK, Objective: 0.05},
	}
	for _, tc := range []struct {
		noCache bool
		want    []float64 // the history's objectives
		best    float64
	}{
		{false, []float64{0.3, 0.05}, 0.05},
		{true, []float64{0.5, 0.3, 0.05}, math.NaN()},
	} {
		t.Run(fmt.Sprintf("NoCache=%v", tc.noCache), func(t *testing.T) {
			s, err := tuning.New(sp, newStrategy(t, "random"), nil, tuning.Options{Budget: 10, NoCache: tc.noCache, Measured: measured})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if _, err := s.Ask(context.Background()); err != nil { // starts the session
				t.Fatal(err)
			}
			sum := s.Summary()
			var got []float64
			for _, h := range sum.History {
				got = append(got, h.Evaluation.Objective)
			}
			if !slices.Equal(got, tc.want) || sum.Evaluations != len(tc.want) || sum.Distinct != 2 {
				t.Errorf("history %v, %d evaluations, %d distinct; want %v, %d and 2", got, sum.Evaluations, sum.Distinct, tc.want, len(tc.want))
			}
			// (with NoCache the best is judged by the measurements' spread: measured.go)
			if !tc.noCache && (sum.BestObjective != tc.best || !slices.Equal(sum.Best, a)) {
				t.Errorf("best %v at %v, want the last measurement %v at %v", sum.BestObjective, sum.Best, tc.best, a)
			}
		})
	}
}

// panicky is a strategy with a bug: it panics after two evaluations.
type panicky struct{}

func (panicky) Name() string { return "panicky" }
func (panicky) Run(ctx context.Context, p strategy.Problem) error {
	sp := p.Space()
	for i := 0; ; i++ {
		if i == 2 {
			panic("a bug in the strategy")
		}
		if _, err := p.Evaluate(ctx, sp.At(i, nil)); err != nil {
			return err
		}
	}
}

// A strategy that panics ends its session with an error that says so, keeping what it
// measured; it does not take the program down.
func TestAPanickingStrategyEndsTheSessionWithAnError(t *testing.T) {
	sim := newSim(t, pnpolyPath, simulator.Options{})
	s, err := tuning.New(sim.Space(), panicky{}, sim, tuning.Options{Budget: 10})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := s.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "panic: a bug in the strategy") || sum.Evaluations != 2 || sum.Stop != tuning.StopError {
		t.Errorf("error %v, %d evaluations, stop %q", err, sum.Evaluations, sum.Stop)
	}
}

// An evaluation that says "ok" without an objective value is recorded as the failure it is.
func TestOKWithoutAnObjectiveIsAFailure(t *testing.T) {
	sim := newSim(t, pnpolyPath, simulator.Options{})
	noValue := evaluatorFunc(func(ctx context.Context, c space.Config) (result.Evaluation, error) {
		return result.Evaluation{Status: result.OK, Objective: math.NaN()}, nil
	})
	sum, err := run(t, sim.Space(), newStrategy(t, "random"), noValue, tuning.Options{Budget: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range sum.History {
		if h.Evaluation.Status != result.RuntimeError || !strings.Contains(h.Evaluation.Message, "no usable objective value") {
			t.Errorf("recorded as %v %q", h.Evaluation.Status, h.Evaluation.Message)
		}
	}
}

// Close from another goroutine stops a Run in progress, as it stops Ask/Tell: the run ends
// cancelled, without an error (the caller asked for it).
func TestCloseStopsRun(t *testing.T) {
	sim := newSim(t, pnpolyPath, simulator.Options{})
	var s *tuning.Session
	progress := func(p tuning.Progress) {
		if p.Evaluations == 5 {
			go s.Close()
			time.Sleep(50 * time.Millisecond) // the Close lands before the next evaluation
		}
	}
	s, err := tuning.New(sim.Space(), newStrategy(t, "random"), sim, tuning.Options{Progress: progress})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := s.Run(context.Background())
	if err != nil || sum.Stop != tuning.StopCancelled || sum.Evaluations != 5 {
		t.Errorf("Run = %v, stop %q after %d evaluations; want nil, cancelled, 5", err, sum.Stop, sum.Evaluations)
	}
	// closed before Run: Run refuses
	s, _ = tuning.New(sim.Space(), newStrategy(t, "random"), sim, tuning.Options{Budget: 3})
	s.Close()
	if sum, err := s.Run(context.Background()); err == nil || sum.Evaluations != 0 {
		t.Errorf("Run after Close = %v with %d evaluations", err, sum.Evaluations)
	}
}

// A stop condition runs outside the session's lock: it may read the session's Summary,
// and one that panics ends the session with an error naming it, in Run and in Ask/Tell,
// instead of leaving the session locked for ever.
func TestStopConditionsMayReadTheSessionAndMayPanic(t *testing.T) {
	sim := newSim(t, pnpolyPath, simulator.Options{})
	var s *tuning.Session
	enough := func(tuning.State) tuning.StopReason {
		if len(s.Summary().History) >= 4 {
			return "enough"
		}
		return ""
	}
	broken := func(st tuning.State) tuning.StopReason {
		if st.Evaluations == 2 {
			panic("condition bug")
		}
		return ""
	}
	for _, askTell := range []bool{false, true} {
		for _, tc := range []struct {
			cond tuning.StopCondition
			want string
		}{{enough, ""}, {broken, "a stop condition (Options.Stop) panicked: condition bug"}} {
			var err error
			s, err = tuning.New(sim.Space(), newStrategy(t, "random"), sim, tuning.Options{Budget: 50, Stop: []tuning.StopCondition{nil, tc.cond}})
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan struct{})
			go func() {
				defer close(done)
				if !askTell {
					_, err = s.Run(context.Background())
					return
				}
				for {
					c, aerr := s.Ask(context.Background())
					if aerr != nil {
						if !errors.Is(aerr, tuning.ErrDone) {
							err = aerr
						}
						return
					}
					e, _ := sim.Evaluate(context.Background(), c)
					if terr := s.Tell(c, e); terr != nil {
						err = terr
						return
					}
				}
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatalf("ask/tell %v: the session hung in a stop condition", askTell)
			}
			sum := s.Summary()
			switch {
			case tc.want == "" && (err != nil || sum.Stop != "enough" || sum.Evaluations != 4):
				t.Errorf("ask/tell %v: %v, stop %q after %d; want enough after 4", askTell, err, sum.Stop, sum.Evaluations)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "strategy random") ||
				sum.Stop != tuning.StopError || sum.Evaluations != 2):
				t.Errorf("ask/tell %v: %v, stop %q after %d; want an error naming the condition after 2", askTell, err, sum.Stop, sum.Evaluations)
			}
			s.Close()
		}
	}
	// a panic in Progress is Progress's, not the strategy's
	s, _ = tuning.New(sim.Space(), newStrategy(t, "random"), sim, tuning.Options{Budget: 5, Progress: func(tuning.Progress) { panic("progress bug") }})
	if _, err := s.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "tuning: Options.Progress panicked: progress bug") || strings.Contains(err.Error(), "strategy random") {
		t.Errorf("a panicking Progress: %v", err)
	}
}

// Once the session is over, Tell returns ErrDone, as Ask does.
func TestTellAfterTheEndIsErrDone(t *testing.T) {
	sim := newSim(t, pnpolyPath, simulator.Options{})
	s, err := tuning.New(sim.Space(), newStrategy(t, "random"), sim, tuning.Options{Budget: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, err := s.Ask(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	e, _ := sim.Evaluate(context.Background(), c)
	if err := s.Tell(c, e); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Ask(context.Background()); !errors.Is(err, tuning.ErrDone) {
		t.Fatalf("Ask after the budget = %v", err)
	}
	if err := s.Tell(c, e); !errors.Is(err, tuning.ErrDone) {
		t.Errorf("Tell after the end = %v, want ErrDone", err)
	}
	if err := s.Tell(nil, e); !errors.Is(err, tuning.ErrDone) {
		t.Errorf("Tell of nil after the end = %v, want ErrDone", err)
	}
}

func TestSpaceFractionRefusesAFractionOutsideItsRange(t *testing.T) {
	for _, f := range []float64{0, -1, 1.5, math.NaN()} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "want a fraction above 0 and at most 1") {
					t.Errorf("SpaceFraction(%v): recovered %v", f, r)
				}
			}()
			tuning.SpaceFraction(f)
		}()
	}
}

// Target and WithinOptimum given what no session could stop for (a NaN target or fraction)
// or could not judge (no score) refuse it at once, as SpaceFraction refuses its range,
// instead of leaving a session that never stops or fails at its first evaluation.
func TestStopConditionsRefuseWhatNoSessionStopsFor(t *testing.T) {
	score := func(best float64) float64 { return 1 / best }
	cases := []struct {
		name string
		make func()
		want string
	}{
		{"Target(NaN)", func() { tuning.Target(math.NaN()) }, "Target(NaN)"},
		{"WithinOptimum(nil, 0.9)", func() { tuning.WithinOptimum(nil, 0.9) }, "WithinOptimum(nil"},
		{"WithinOptimum(score, NaN)", func() { tuning.WithinOptimum(score, math.NaN()) }, "WithinOptimum(score, NaN)"},
	}
	for _, tc := range cases {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), tc.want) {
					t.Errorf("%s: recovered %v, want a panic naming %q", tc.name, r, tc.want)
				}
			}()
			tc.make()
		}()
	}
}

// A stop condition sees the configuration of the best objective so far, the one Summary
// reports as Best: under NoCache too, where the best is judged on the mean of repeated
// measurements and a simulator scores it by its recorded mean instead.
func TestStopConditionsSeeTheBestConfiguration(t *testing.T) {
	for _, fitness := range []simulator.Fitness{simulator.Deterministic, simulator.Stochastic} {
		sim := newSim(t, pnpolyPath, simulator.Options{Fitness: fitness, Seed: 4})
		var s *tuning.Session
		seen := 0
		check := func(st tuning.State) tuning.StopReason {
			sum := s.Summary()
			if !slices.Equal(st.BestConfig, sum.Best) {
				t.Errorf("%v, evaluation %d: State.BestConfig %v, Summary.Best %v", fitness, st.Evaluations, st.BestConfig, sum.Best)
			}
			if st.BestConfig != nil {
				seen++
			}
			return ""
		}
		var err error
		s, err = tuning.New(sim.Space(), newStrategy(t, "irace"), sim, tuning.Options{Budget: 200, Seed: 4,
			NoCache: fitness == simulator.Stochastic, Stop: []tuning.StopCondition{check}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		if seen < 190 {
			t.Errorf("%v: the condition saw a best configuration %d times, want about once per evaluation of 200", fitness, seen)
		}
	}
}

// Measurements told to a simulated session advance its clock by what they cost, and a clock
// that reached the largest time.Duration stays there: a sum past it would wrap round to a
// negative time, before every time limit.
func TestSimulatedClockNeverWrapsRound(t *testing.T) {
	sim := newSim(t, pnpolyPath, simulator.Options{})
	s, err := tuning.New(sim.Space(), newStrategy(t, "random"), sim, tuning.Options{Budget: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	for range 3 {
		c, err := s.Ask(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// 1e13 ms, some 317 years: more than a time.Duration holds
		if err := s.Tell(c, result.Evaluation{Status: result.OK, Objective: 1, BenchmarkMS: 1e13}); err != nil {
			t.Fatal(err)
		}
	}
	sum := s.Summary()
	for i, h := range sum.History {
		if h.Elapsed != math.MaxInt64 {
			t.Errorf("evaluation %d: simulated clock %v, want it stopped at the largest duration", i, h.Elapsed)
		}
	}
	if sum.Elapsed != math.MaxInt64 {
		t.Errorf("simulated time %v, want the largest duration", sum.Elapsed)
	}
}

// Stop conditions run once the sink has the evaluation they follow: one that takes time or
// makes evaluations of its own (the tuner's draws from the space when the first
// configurations all fail one way) must not leave the evaluation unstored meanwhile, nor
// let its own evaluations be stored ahead of it (QA: a tuning run's 10th evaluation was
// stored after the 5 draws its stop condition made).
func TestStopConditionsRunAfterTheSinkHasTheEvaluation(t *testing.T) {
	sim := newSim(t, convolutionPath, simulator.Options{Mode: simulator.Cartesian})
	sunk := 0
	sink := sinkFunc(func(context.Context, result.Evaluation) error { sunk++; return nil })
	var seen []int
	stop := func(st tuning.State) tuning.StopReason {
		if sunk != st.Evaluations {
			seen = append(seen, st.Evaluations)
		}
		return ""
	}
	sum := simulate(t, sim, "random", tuning.Options{Budget: 20, Seed: 2, Sink: sink, Stop: []tuning.StopCondition{stop}})
	if sum.Evaluations != 20 || sunk != 20 {
		t.Fatalf("%d evaluations, %d sunk; want 20 of both", sum.Evaluations, sunk)
	}
	if len(seen) > 0 {
		t.Errorf("a stop condition ran before the sink had evaluations %v", seen)
	}
}

// A brief summary leaves the history out, and the run is the same; with a sink the
// evaluations are still read, so their values are still checked.
func TestABriefSummaryLeavesTheHistoryOut(t *testing.T) {
	sim := newSim(t, pnpolyPath, simulator.Options{})
	full, err := run(t, sim.Space(), newStrategy(t, "annealing"), sim, tuning.Options{Budget: 30, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	brief, err := run(t, sim.Space(), newStrategy(t, "annealing"), sim, tuning.Options{Budget: 30, Seed: 4, BriefSummary: true})
	if err != nil {
		t.Fatal(err)
	}
	if brief.History != nil || len(full.History) != 30 {
		t.Errorf("history of %d with BriefSummary, %d without", len(brief.History), len(full.History))
	}
	if fmt.Sprint(brief.Best, brief.BestObjective, brief.Evaluations, brief.Distinct, brief.Elapsed) !=
		fmt.Sprint(full.Best, full.BestObjective, full.Evaluations, full.Distinct, full.Elapsed) {
		t.Errorf("brief run %v %v, full run %v %v: want the same run", brief.Best, brief.BestObjective, full.Best, full.BestObjective)
	}
	sink := sinkFunc(func(context.Context, result.Evaluation) error { return nil })
	_, err = run(t, sim.Space(), newStrategy(t, "random"), wrongValues{sim}, tuning.Options{Budget: 5, BriefSummary: true, Sink: sink})
	if err == nil || !strings.Contains(err.Error(), "not those of the configuration evaluated") {
		t.Errorf("a brief run with a sink and an evaluator giving other values: %v", err)
	}
}

// Evaluations that Options.Free calls free cost no budget: a brute-force search of
// budget 5 over a space whose configurations at even indices are refused (as the tuner
// refuses those over a device limit before compiling) evaluates 5 configurations that
// count and the free ones between them, all in the history with the fitness of a
// failure; a free baseline in Measured counts as free too. With every configuration free
// the search ends when the space is exhausted.
func TestFreeEvaluationsCostNoBudget(t *testing.T) {
	sim := newSim(t, pnpolyPath, simulator.Options{})
	sp := sim.Space()
	even := func(c space.Config) bool {
		idx, _ := sp.Index(c)
		return idx%2 == 0
	}
	refusing := evaluatorFunc(func(ctx context.Context, c space.Config) (result.Evaluation, error) {
		if even(c) {
			return result.Evaluation{Config: sp.Values(c), Status: result.DeviceLimit, Objective: math.NaN(), Message: "over the limit"}, nil
		}
		return sim.Evaluate(ctx, c)
	})
	free := func(e result.Evaluation) bool {
		c, err := sp.ConfigOf(e.Config)
		return err == nil && even(c) && e.Status == result.DeviceLimit
	}
	pre, err := refusing.Evaluate(context.Background(), sp.At(0, nil))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := run(t, sp, newStrategy(t, "bruteforce"), refusing,
		tuning.Options{Budget: 5, Free: free, Measured: []result.Evaluation{pre}})
	if err != nil {
		t.Fatal(err)
	}
	counted, freed := 0, 0
	for _, h := range sum.History {
		if free(h.Evaluation) {
			freed++
			if !math.IsInf(h.Fitness, 1) {
				t.Errorf("free evaluation %v has fitness %v; want +Inf, as a failure's", h.Config, h.Fitness)
			}
		} else {
			counted++
		}
	}
	if sum.Stop != tuning.StopBudget || sum.Evaluations != 5 || counted != 5 || sum.Free != freed || freed < 5 {
		t.Errorf("stop %q, %d evaluations (%d counted in the history), %d free (%d in the history); want the budget, 5 counted and the free ones between them",
			sum.Stop, sum.Evaluations, counted, sum.Free, freed)
	}

	all := tuning.Options{Budget: 5, Free: func(result.Evaluation) bool { return true }}
	sum, err = run(t, sp, newStrategy(t, "random"), refusing, all)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Stop != tuning.StopExhausted || sum.Evaluations != 0 || sum.Free != sp.Len() {
		t.Errorf("every evaluation free: stop %q, %d evaluations, %d free; want the space exhausted, 0 and all %d", sum.Stop, sum.Evaluations, sum.Free, sp.Len())
	}
}
