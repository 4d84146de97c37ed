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
// autoUnbounded: real tuning runs are short in evaluations, where the model pays.
var autoChoice = []struct {
	upTo     int // largest budget the row covers
	strategy string
}{
	{800, "bayes"},
	{math.MaxInt, "annealing"},
}

const autoUnbounded = "bayes"

var autoFactory = Factory{
	Doc: "The best strategy ktune has for the budget, by its benchmarks on recorded GPU " +
		"spaces (BENCHMARKS.md): Gaussian-process Bayesian optimisation (bayes) up to a " +
		"budget of 800 evaluations and without a budget, simulated annealing (annealing) " +
		"above 800, where the model's cost no longer pays, each with its defaults for the " +
		"budget. The default of ktune tune.",
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
