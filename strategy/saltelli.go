package strategy

import (
	"context"
	"fmt"

	"github.com/ktune/ktune/sensitivity"
	"github.com/ktune/ktune/space"
)

// The saltelli strategy does not search: it measures the sampling design that variance-based
// sensitivity analysis needs (package sensitivity), so that a tuning run on a device or in
// simulation yields Sobol indices of its parameters.

var saltelliFactory = Factory{
	Doc: "Measures a Saltelli sampling design for sensitivity analysis instead of searching: " +
		"base rows A and B drawn uniformly from the valid space, and for each analysed " +
		"parameter A with that column from B (and B with it from A for second-order " +
		"indices), row by row; points outside a restricted space are skipped, repeats cost " +
		"nothing. The design's seed is the first draw from the run's seed, so the analysis of " +
		"a stored run rebuilds it (SaltelliOptions, sensitivity.RunDesign). Needs a budget or n.",
	Options: []Option{
		{Name: "n", Kind: IntKind(), Default: "0: as many base rows as the budget allows, floor(budget / points per row)",
			Doc: "number of base rows; each costs k+2 points, or 2k+2 with second order (k analysed parameters); a design has at most 1,000,000 points"},
		{Name: "second_order", Kind: BoolKind(), Default: "true",
			Doc: "also measure the points for the second-order (pairwise interaction) indices"},
		{Name: "params", Kind: ListKind(), Default: "all parameters",
			Doc: "names of the parameters to analyse (all remain inputs of the model), comma-separated or in brackets ([a,b], the form 'ktune bench --strategies' takes)"},
	},
	New: newSaltelli,
}

type saltelli struct {
	opts sensitivity.RunOptions
}

func newSaltelli(o Options) (Strategy, error) {
	ro, err := parseSaltelli(o)
	if err != nil {
		return nil, err
	}
	return saltelli{opts: ro}, nil
}

// SaltelliOptions reads the options of a saltelli run (as given on the command line or
// read back from a stored run's JSON), so the analysis can rebuild the run's design with
// sensitivity.RunDesign.
func SaltelliOptions(opts map[string]any) (sensitivity.RunOptions, error) {
	if _, err := New("saltelli", opts); err != nil { // rejects unknown options by name
		return sensitivity.RunOptions{}, err
	}
	return parseSaltelli(opts)
}

func parseSaltelli(o Options) (sensitivity.RunOptions, error) {
	ro := sensitivity.RunOptions{}
	var err error
	if ro.N, err = o.Int("n", 0); err != nil {
		return ro, err
	}
	if ro.N < 0 || ro.N > sensitivity.MaxDesignPoints {
		// the design's points (n times 3 to 2k+2 per row) are checked against the space
		return ro, fmt.Errorf("option n: %d base rows, want 0 (as the budget allows) or more, for at most %d points in all", ro.N, sensitivity.MaxDesignPoints)
	}
	if ro.SecondOrder, err = o.Bool("second_order", true); err != nil {
		return ro, err
	}
	ro.Params, _, err = o.List("params")
	return ro, err
}

func (saltelli) Name() string { return "saltelli" }

// CheckSpace checks the design the options ask for on sp at this budget: the parameters
// params names, and its size (n, or the budget when n is 0).
func (s saltelli) CheckSpace(sp *space.Space, budget int) error {
	return s.opts.Check(sp, budget)
}

func (s saltelli) Run(ctx context.Context, p Problem) error {
	// The design's seed must be the first draw, so that sensitivity.RunDesign rebuilds the
	// design from the run's seed alone.
	seed := p.Rand().Uint64()
	d, err := s.opts.Design(p.Space(), seed, p.Budget())
	if err != nil {
		return fmt.Errorf("saltelli: %w", err)
	}
	// Hint the next valid points so they compile while the current one is measured.
	const lookahead = 2
	hints := takesHints(p)
	next := func(from int) int {
		for from < len(d.Points) && !d.Valid[from] {
			from++
		}
		return from
	}
	for i := next(0); i < len(d.Points); i = next(i + 1) {
		if hints {
			var up []space.Config
			for j := next(i + 1); j < len(d.Points) && len(up) < lookahead; j = next(j + 1) {
				up = append(up, d.Points[j])
			}
			hint(p, up...)
		}
		if _, err := p.Evaluate(ctx, d.Points[i]); err != nil {
			return stopped(err)
		}
	}
	return nil
}
