package strategy

import (
	"context"

	"github.com/ktune/ktune/space"
)

var bruteForceFactory = Factory{
	Doc: "Evaluates every valid configuration in index order until the space or the budget " +
		"is exhausted. With a budget of at least the space's size it finds the optimum; " +
		"with less it covers a prefix of the index order, so use it for exhaustive " +
		"measurement, not as a baseline (random is the baseline).",
	New: func(Options) (Strategy, error) { return bruteForce{}, nil },
}

// bruteForce walks the space's index order; it needs no state beyond the loop.
type bruteForce struct{}

func (bruteForce) Name() string { return "bruteforce" }

func (bruteForce) Run(ctx context.Context, p Problem) error {
	sp := p.Space()
	var c space.Config
	hints := takesHints(p)
	for i := range sp.Len() {
		if hints && i+1 < sp.Len() {
			up := make([]space.Config, 0, hintAhead)
			for j := i + 1; j < min(i+1+hintAhead, sp.Len()); j++ {
				up = append(up, sp.At(j, nil))
			}
			hint(p, up...)
		}
		c = sp.At(i, c)
		if _, err := p.Evaluate(ctx, c); err != nil {
			return stopped(err)
		}
	}
	return nil
}
