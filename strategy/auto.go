package strategy

import (
	"context"
	"fmt"
	"math"

	"github.com/ktune/ktune/space"
)

// The auto strategy: the strategy ktune's benchmarks found best for the run's budget (see
// BENCHMARKS.md, "Strategy quality"), or two of them in turn, with their own defaults. It
// is the default of `ktune tune`, so that a user who knows nothing of search strategies
// gets the best we have.

// autoChoice is what auto runs for a budget: the first row whose limit is at least the
// budget. Without a budget (a time limit or a stop condition ends the run) auto runs
// autoUnbounded: real tuning runs are short in evaluations, where the model pays.
//
// A row with a share hands over: its strategy runs for that share of the budget, then
// its then strategy runs for the rest, starting from the best configuration found so far
// (with its defaults for the whole budget). Above 400 evaluations, the Gaussian process
// finds the good region and simulated annealing refines it: on seed 000's spaces in
// cartesian mode (mean fraction of optimum over three GPUs, 50 seeds) at 800 the hand-off
// reached GEMM 0.999, convolution 0.998 and point-in-polygon 1.000 on seeds 1-50 and
// 0.999, 0.997 and 1.000 on seeds 201-250, where basin hopping (auto's former choice) reached
// 0.996, 0.999, 1.000 and 0.998, 0.999, 0.997 and annealing alone 0.999, 0.999, 0.996 and
// 1.000, 0.998, 0.997. Up to 400 the Gaussian process alone is best.
var autoChoice = []autoRow{
	{400, "bayes", 0, ""},
	{math.MaxInt, "bayes", 0.4, "annealing"},
}

type autoRow struct {
	upTo     int     // largest budget the row covers
	strategy string  // the strategy, with its defaults for the budget (or its share)
	share    float64 // share of the budget strategy runs for, in (0, 1); 0: all of it
	then     string  // the strategy that goes on from strategy's best, when share > 0
}

const autoUnbounded = "bayes"

var autoFactory = Factory{
	Doc: "The best strategy ktune has for the budget, by its benchmarks on recorded GPU " +
		"spaces (BENCHMARKS.md): Gaussian-process Bayesian optimisation (bayes) up to a " +
		"budget of 400 evaluations and without a budget; above 400, bayes for 40% of the " +
		"budget, then simulated annealing (annealing, with its defaults for the whole " +
		"budget) starting from the best configuration bayes found. Where a repeated " +
		"configuration is measured anew (seed 000's stochastic fitness), the last part of " +
		"the budget (confirm) measures the best candidates again, so that the configuration " +
		"reported held up over several measurements. The default of ktune tune.",
	Options: []Option{
		{Name: "confirm", Kind: FloatKind(), Default: "0.1",
			Doc: "most of the budget, a share in [0, 1), kept for measuring the best candidates again when measurements are noisy (a repeat is measured anew rather than answered from the cache: found out at the first success by asking for it again, which costs nothing where repeats are cached); the share kept is 5 times the relative difference of those two measurements, up to this; the candidates are measured 3 times each, lowest mean first; 0 never"},
	},
	New: func(opts Options) (Strategy, error) {
		confirm, err := opts.Float("confirm", 0.1)
		if err != nil {
			return nil, err
		}
		if !(confirm >= 0 && confirm < 1) {
			return nil, fmt.Errorf("option confirm: %v is not a share of the budget in [0, 1)", confirm)
		}
		return auto{confirm: confirm}, nil
	},
}

// startable is a strategy that can begin at a given configuration, so that it can take
// over from another.
type startable interface {
	startingAt(c space.Config) Strategy
}

type auto struct {
	confirm float64 // share of the budget kept for confirmation under noisy measurements
}

func (auto) Name() string { return "auto" }

func (a auto) Run(ctx context.Context, p Problem) error {
	w := newNoiseWatch(p, a.confirm)
	if err := a.search(ctx, w); err != nil {
		return err
	}
	return w.confirm(ctx)
}

// search runs the row of autoChoice for the budget.
func (auto) search(ctx context.Context, p Problem) error {
	row := autoFor(p.Budget())
	s, err := New(row.strategy, nil)
	if err != nil {
		return fmt.Errorf("auto: %w", err)
	}
	if row.share <= 0 {
		return s.Run(ctx, p)
	}
	next, err := New(row.then, nil)
	if err != nil {
		return fmt.Errorf("auto: %w", err)
	}
	st, ok := next.(startable)
	if !ok {
		return fmt.Errorf("auto: strategy %s cannot start from a given configuration", row.then)
	}
	first := newStage(p, int(row.share*float64(p.Budget())))
	if err := s.Run(ctx, first); err != nil {
		return err
	}
	if first.best != nil {
		next = st.startingAt(first.best)
	}
	return next.Run(ctx, p)
}

// autoFor returns the row of autoChoice for budget (0: none).
func autoFor(budget int) autoRow {
	if budget <= 0 {
		return autoRow{strategy: autoUnbounded}
	}
	for _, row := range autoChoice {
		if budget <= row.upTo {
			return row
		}
	}
	return autoChoice[len(autoChoice)-1]
}
