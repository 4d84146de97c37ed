package simulator

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/strategy"
	"github.com/ktune/ktune/tuning"
)

// RepeatOptions configure Repeat: one strategy run many times on one simulated space.
type RepeatOptions struct {
	Strategy        string         // registered strategy name; "" is "auto", as in tuner.Options
	StrategyOptions map[string]any // its options
	Budget          int            // unique evaluations per run; 0 for none
	TimeLimit       time.Duration  // simulated time per run; 0 for none
	Within          float64        // stop a run once its best scores this fraction of the optimum (on the recorded mean, as runs are scored); 0 for never
	// Target, when set, stops a run once its best's recorded (mean) objective is at least
	// as good as it, in the objective's direction (tuning.Target, judged as runs are
	// scored): the simulated twin of 'ktune tune --stop-at'.
	Target  *float64
	Repeats int    // number of runs
	Seed    uint64 // run i uses Seed+i, for the strategy and for stochastic fitness
	Workers int    // parallel runs; 0 for GOMAXPROCS
	// Progress, when set, is called after each run that finished with the number done of
	// total (Repeats) and the mean fraction of optimum of those done. It is called from
	// the workers' goroutines, one call at a time, and must not block for long.
	Progress func(done, total int, meanFraction float64)
}

// RunResult is the outcome of one simulated run.
type RunResult struct {
	Seed          uint64            `json:"seed"`
	Fraction      float64           `json:"fraction_of_optimum"`
	BestObjective *float64          `json:"best_objective"` // the recorded (mean) objective of the best configuration; nil (null) when none succeeded, or the best was found wrong in the recording
	Best          []space.Value     `json:"best"`           // the best configuration's values; nil (null) when none succeeded
	Evaluations   int               `json:"evaluations"`
	Distinct      int               `json:"distinct"` // configurations evaluated, repeats (stochastic fitness) counted once
	SimulatedMS   float64           `json:"simulated_ms"`
	WallMS        float64           `json:"-"` // real time the run took (the strategy's own cost plus the replay); left out of JSON, which is reproducible
	Stop          tuning.StopReason `json:"stop"`
}

// RepeatSummary aggregates the runs of Repeat.
type RepeatSummary struct {
	Runs            []RunResult `json:"runs"`
	Optimum         float64     `json:"optimum"`
	MeanFraction    float64     `json:"mean_fraction_of_optimum"`
	StdFraction     float64     `json:"std_fraction_of_optimum"` // sample standard deviation (n-1); 0 for a single run, where it is undefined
	MeanEvaluations float64     `json:"mean_evaluations"`
	MeanSimulatedMS float64     `json:"mean_simulated_ms"`
	MeanWallMS      float64     `json:"-"` // real time, left out of JSON, which is reproducible
}

// Repeat runs a strategy Repeats times on the simulated space, in parallel, and scores
// each run by the fraction of the optimum its best configuration reaches (scored with the
// recorded mean objective, also under stochastic fitness). The result does not depend on
// the number of workers. When ctx ends first, it returns the summary of the runs that
// finished (in seed order; none, when none did) with ctx's error.
//
// Under stochastic fitness (seed 000, section V) the sessions run with tuning.Options.NoCache:
// every evaluation, a repeat included, draws a new recorded timing sample and costs budget,
// so a strategy can measure a configuration again to learn its noise (as irace does).
func Repeat(ctx context.Context, sim *Simulator, o RepeatOptions) (RepeatSummary, error) {
	switch {
	case sim == nil:
		return RepeatSummary{}, errors.New("simulator: Repeat without a simulator (nil)")
	case o.Repeats <= 0:
		return RepeatSummary{}, errors.New("repeats must be positive")
	case o.Budget < 0:
		return RepeatSummary{}, fmt.Errorf("budget %d: want 0 (none) or more", o.Budget)
	case o.TimeLimit < 0:
		return RepeatSummary{}, fmt.Errorf("time limit %v: want 0 (none) or more", o.TimeLimit)
	case o.Within < 0 || math.IsNaN(o.Within):
		return RepeatSummary{}, fmt.Errorf("within %v: want a fraction of the optimum above 0 (0: never)", o.Within)
	case o.Target != nil && (math.IsNaN(*o.Target) || math.IsInf(*o.Target, 0)):
		return RepeatSummary{}, fmt.Errorf("target %v: want a finite objective value", *o.Target)
	}
	if o.Strategy == "" {
		o.Strategy = "auto"
	}
	if _, ok := strategy.Lookup(o.Strategy); !ok {
		// before the budget: no budget would make a misspelled name run
		return RepeatSummary{}, strategy.UnknownStrategy(o.Strategy)
	}
	if o.Budget <= 0 && o.TimeLimit <= 0 && o.Within <= 0 && o.Target == nil && !strategy.EndsOnItsOwn(o.Strategy, o.StrategyOptions) {
		return RepeatSummary{}, errors.New("give a budget, a time limit, a target fraction of the optimum or a target objective to end the runs (only bruteforce, and saltelli with n, end on their own)")
	}
	if err := sim.scorable(); err != nil {
		return RepeatSummary{}, err
	}
	// options that do not fit the space fail here, once, not in every run
	if err := strategy.Validate(o.Strategy, o.StrategyOptions, sim.Space(), o.Budget); err != nil {
		return RepeatSummary{}, err
	}
	optimum, _ := sim.Optimum()
	if math.IsNaN(optimum) {
		return RepeatSummary{}, errors.New("the recording has no successful configuration")
	}
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	runs := make([]RunResult, o.Repeats)
	finished := make([]bool, o.Repeats)
	var next, done atomic.Int64
	var mu sync.Mutex
	var firstErr error
	sumFrac := 0.0
	var wg sync.WaitGroup
	for w := 0; w < min(workers, o.Repeats); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= o.Repeats || ctx.Err() != nil {
					return
				}
				r, err := runOnce(ctx, sim, o, o.Seed+uint64(i))
				mu.Lock()
				switch {
				case err != nil && parent.Err() != nil:
					// cut short by the caller: not a finished run, and not a failure
				case err != nil:
					if firstErr == nil {
						firstErr = fmt.Errorf("run %d (seed %d): %w", i, o.Seed+uint64(i), err)
						cancel()
					}
				default:
					runs[i], finished[i] = r, true
					sumFrac += r.Fraction
					n := int(done.Add(1))
					if o.Progress != nil {
						o.Progress(n, o.Repeats, sumFrac/float64(n))
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return RepeatSummary{}, firstErr
	}
	if err := parent.Err(); err != nil {
		kept := []RunResult{}
		for i, r := range runs {
			if finished[i] {
				kept = append(kept, r)
			}
		}
		return summarize(kept, optimum), err
	}
	return summarize(runs, optimum), nil
}

// summarize gives the means of runs, and their fractions' sample standard deviation (0
// for fewer than two runs).
func summarize(runs []RunResult, optimum float64) RepeatSummary {
	s := RepeatSummary{Runs: runs, Optimum: optimum}
	if len(runs) == 0 {
		return s
	}
	for _, r := range runs {
		s.MeanFraction += r.Fraction
		s.MeanEvaluations += float64(r.Evaluations)
		s.MeanSimulatedMS += r.SimulatedMS
		s.MeanWallMS += r.WallMS
	}
	n := float64(len(runs))
	s.MeanFraction /= n
	s.MeanEvaluations /= n
	s.MeanSimulatedMS /= n
	s.MeanWallMS /= n
	if len(runs) > 1 {
		for _, r := range runs {
			d := r.Fraction - s.MeanFraction
			s.StdFraction += d * d
		}
		s.StdFraction = math.Sqrt(s.StdFraction / (n - 1))
	}
	return s
}

func runOnce(ctx context.Context, sim *Simulator, o RepeatOptions, seed uint64) (RunResult, error) {
	st, err := strategy.New(o.Strategy, o.StrategyOptions)
	if err != nil {
		return RunResult{}, err
	}
	ev := sim.WithSeed(seed)
	opts := tuning.Options{Budget: o.Budget, TimeLimit: o.TimeLimit, Maximize: sim.Maximize(), Seed: seed,
		NoCache: sim.Options().Fitness == Stochastic, BriefSummary: true} // a run's outcome is all it keeps
	if o.Within > 0 {
		opts.Stop = append(opts.Stop, sim.withinOptimum(o.Within))
	}
	if o.Target != nil {
		opts.Stop = append(opts.Stop, sim.target(*o.Target))
	}
	sess, err := tuning.New(sim.Space(), st, ev, opts)
	if err != nil {
		return RunResult{}, err
	}
	sum, err := sess.Run(ctx)
	if err != nil {
		return RunResult{}, err
	}
	r := RunResult{Seed: seed, Evaluations: sum.Evaluations, Distinct: sum.Distinct,
		SimulatedMS: float64(sum.Elapsed.Microseconds()) / 1e3,
		WallMS:      float64(sum.Wall.Nanoseconds()) / 1e6, Stop: sum.Stop}
	if sum.Best != nil {
		if obj, ok := sim.Objective(sum.Best); ok {
			r.BestObjective = &obj
			r.Fraction = sim.FractionOfOptimum(obj)
		}
		r.Best = sim.Space().Values(sum.Best)
	}
	return r, nil
}

// target is tuning.Target judged as runs are scored: by the recorded (mean) objective of
// the run's best configuration, for the reason withinOptimum gives.
func (s *Simulator) target(target float64) tuning.StopCondition {
	return s.byRecorded(tuning.Target(target))
}

// withinOptimum is tuning.WithinOptimum judged as runs are scored: by the recorded (mean)
// objective of the run's best configuration. Under stochastic fitness the session's best
// objective is the mean of the samples it drew, and one lucky sample below the optimum's
// mean would otherwise end a run as having found the optimum.
func (s *Simulator) withinOptimum(fraction float64) tuning.StopCondition {
	return s.byRecorded(tuning.WithinOptimum(s.FractionOfOptimum, fraction))
}

// byRecorded judges cond by the recorded objective of the state's best configuration in
// place of the session's best objective; no best configuration, or none recorded, meets
// nothing.
func (s *Simulator) byRecorded(cond tuning.StopCondition) tuning.StopCondition {
	return func(st tuning.State) tuning.StopReason {
		if st.BestConfig == nil {
			return ""
		}
		obj, ok := s.Objective(st.BestConfig)
		if !ok {
			return ""
		}
		st.Best = obj
		return cond(st)
	}
}
