package strategy

import (
	"context"
	"fmt"
)

// Kernel Tuner's greedy iterated local search (greedy_ils): a random walk over local minima.
// Each local minimum reached by first-improvement hill climbing is perturbed (a fraction of
// its parameters set to random values) and climbed again, improving or not; after a number
// of evaluations that cost budget without improvement the walk restarts from a random
// configuration. The loop is the one of seed 000's iterated local search (ils.go,
// searcher.iterate), which perturbs the best local minimum instead and counts tries rather
// than evaluations.

var greedyILSFactory = Factory{
	Doc: "Greedy iterated local search (Kernel Tuner's greedy_ils): hill climbs a random " +
		"configuration by moving to the first improving neighbour met in random order, then " +
		"repeatedly perturbs the local minimum it reached (sets a random_walk fraction of its " +
		"parameters to random values) and climbs again, moving on whether or not that " +
		"improved; after no_improvement evaluations without a better local minimum it " +
		"restarts from a random configuration. Where a repeated configuration is measured " +
		"anew and costs budget (stochastic fitness), repeats count as evaluations too, and a " +
		"perturb-and-climb that measured no new configuration restarts the walk at once. " +
		"Unlike firstils its defaults do not depend on the budget, and it also takes the " +
		"strictly-adjacent neighbourhood.",
	Options: []Option{
		greedyNeighbourhoodOption,
		greedyRestartOption,
		{Name: "no_improvement", Kind: IntKind(), Default: "50 (Kernel Tuner)",
			Doc: "evaluations without finding a better local minimum after which the walk " +
				"restarts from a random configuration (at least 1): those of new " +
				"configurations, and repeats too where they are measured anew and cost " +
				"budget (stochastic fitness); a perturb-and-climb that cost nothing counts as one"},
		{Name: "random_walk", Kind: FloatKind(), Default: "0.3 (Kernel Tuner)",
			Doc: "fraction of the parameters, in (0, 1], set to other random values to perturb " +
				"a local minimum into the next start (rounded, at least one)"},
	},
	New: newGreedyILS,
}

type greedyILS struct {
	greedyOptions
	noImprove int
	walk      float64
}

func newGreedyILS(opts Options) (Strategy, error) {
	g := &greedyILS{}
	var err error
	if g.greedyOptions, err = greedyFrom(opts); err != nil {
		return nil, err
	}
	if g.noImprove, err = opts.Int("no_improvement", 50); err != nil {
		return nil, err
	}
	if g.noImprove < 1 {
		return nil, fmt.Errorf("option no_improvement: %d is below 1", g.noImprove)
	}
	walk, err := optFraction(opts, "random_walk")
	if err != nil {
		return nil, err
	}
	g.walk = walk.or(0.3)
	return g, nil
}

func (*greedyILS) Name() string { return "greedyils" }

func (g *greedyILS) Run(ctx context.Context, p Problem) error {
	return stopped(newSearcher(ctx, p, g.nb).iterate(iteration{first: true, restart: g.restart,
		perturb: g.walk, patience: g.noImprove, perEvaluation: true, walk: true}))
}
