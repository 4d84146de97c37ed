package strategy

import (
	"context"
	"fmt"
	"math"
)

// The auto strategy: the strategy ktune's benchmarks found best for the run's budget (see
// BENCHMARKS.md, "Strategy quality"), with that strategy's own defaults for the budget. It
// is the default of `ktune tune`, so that a user who knows nothing of search strategies
// gets the best we have.

// autoChoice is the strategy auto runs for a budget: the first row whose limit is at least
// the budget. Without a budget (a time limit or a stop condition ends the run) auto runs
// autoUnbounded: real tuning runs are short in evaluations, where the model pays. The
// crossover at 400 is where basin hopping overtakes the Gaussian process on seed 000's
// GEMM spaces in cartesian mode (mean fraction of optimum over three GPUs: bayes 0.966 at
// 400 and, with its earlier kernel failure model, 0.960 at 800; basin hopping 0.976 and
// 0.997).
var autoChoice = []struct {
	upTo     int // largest budget the row covers
	strategy string
}{
	{400, "bayes"},
	{math.MaxInt, "basinhopping"},
}

const autoUnbounded = "bayes"

var autoFactory = Factory{
	Doc: "The best strategy ktune has for the budget, by its benchmarks on recorded GPU " +
		"spaces (BENCHMARKS.md): Gaussian-process Bayesian optimisation (bayes) up to a " +
		"budget of 400 evaluations and without a budget, basin hopping (basinhopping) " +
		"above 400, each with its defaults for the budget. The default of ktune tune.",
	New: func(Options) (Strategy, error) { return auto{}, nil },
}

type auto struct{}

func (auto) Name() string { return "auto" }

func (auto) Run(ctx context.Context, p Problem) error {
	name := autoStrategy(p.Budget())
	f, ok := Lookup(name)
	if !ok {
		return fmt.Errorf("auto: strategy %s is not registered", name)
	}
	s, err := f.New(nil)
	if err != nil {
		return fmt.Errorf("auto: %s: %w", name, err)
	}
	return s.Run(ctx, p)
}

// autoStrategy names the strategy auto runs for budget (0: none).
func autoStrategy(budget int) string {
	if budget <= 0 {
		return autoUnbounded
	}
	for _, row := range autoChoice {
		if budget <= row.upTo {
			return row.strategy
		}
	}
	return autoChoice[len(autoChoice)-1].strategy
}
