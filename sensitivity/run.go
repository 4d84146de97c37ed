package sensitivity

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/ktune/ktune/expr"
	"github.com/ktune/ktune/space"
)

// RunOptions are the options of a tuning run that measures a Saltelli design: the saltelli
// strategy's options, which package strategy parses.
type RunOptions struct {
	// N is the number of base rows; 0 means as many as the budget allows.
	N int
	// SecondOrder adds the points for second-order indices (default true).
	SecondOrder bool
	// Params names the parameters analysed; nil means all.
	Params []string
}

// Design draws the design a run with these options measures on sp: designSeed seeds it
// and budget (the run's budget of unique evaluations; 0 when it has none) sets the rows
// when N is 0, floor(budget / DesignRows).
func (ro RunOptions) Design(sp *space.Space, designSeed uint64, budget int) (*Design, error) {
	n, subset, err := ro.size(sp, budget)
	if err != nil {
		return nil, fmt.Errorf("sensitivity: %w", err)
	}
	return NewDesign(sp, n, Options{Subset: subset, SecondOrder: ro.SecondOrder, Seed: designSeed})
}

// Check returns the error Design would return for these options on sp and budget,
// without drawing the design: a parameter sp lacks, neither a budget nor N to size the
// design, a budget below one row, or more points than MaxDesignPoints. It names the
// option (params, n) or the budget at fault, for the saltelli strategy to pass on.
func (ro RunOptions) Check(sp *space.Space, budget int) error {
	_, _, err := ro.size(sp, budget)
	return err
}

// size returns the design's base rows and the analysed parameters' indices.
func (ro RunOptions) size(sp *space.Space, budget int) (int, []int, error) {
	params := sp.Params()
	subset, err := ParamIndices(params, ro.Params)
	if err != nil {
		return 0, nil, fmt.Errorf("option params: %w", err)
	}
	per := DesignRows(len(params), len(subset), ro.SecondOrder)
	most := MaxDesignPoints / per
	switch n := ro.N; {
	case n > most:
		return 0, nil, fmt.Errorf("option n: %d base rows of %d points each are more than the %d points a design may have; give at most %d",
			n, per, MaxDesignPoints, most)
	case n > 0:
		return n, subset, nil
	case budget <= 0:
		return 0, nil, errors.New("neither a budget nor a number of base rows (option n) sets the design's size")
	case budget < per:
		return 0, nil, fmt.Errorf("a budget of %d evaluations is below one design row of %d points", budget, per)
	case budget/per > most:
		return 0, nil, fmt.Errorf("a budget of %d evaluations makes %d base rows of %d points each, more than the %d points a design may have; give option n of at most %d",
			budget, budget/per, per, MaxDesignPoints, most)
	}
	return budget / per, subset, nil
}

// RunDesign rebuilds the design a saltelli tuning run measured from the run's seed, budget
// and options (strategy.SaltelliOptions reads them from a stored run), so its stored evaluations can be mapped back onto the design's
// points. The run's session seeds its generator from runSeed and the strategy draws the
// design's seed as the generator's first value, which is what RunDesign repeats.
func RunDesign(sp *space.Space, runSeed uint64, budget int, ro RunOptions) (*Design, error) {
	r := rand.New(rand.NewPCG(runSeed, runSeed^0x9e3779b97f4a7c15))
	return ro.Design(sp, r.Uint64(), budget)
}

// ParamIndices maps parameter names to their positions in params, for Options.Subset; nil
// names give a nil subset (all parameters). An unknown name is an error that lists the
// parameters there are.
func ParamIndices(params []space.Param, names []string) ([]int, error) {
	var subset []int
	for _, name := range names {
		p := slices.IndexFunc(params, func(q space.Param) bool { return q.Name == name })
		if p < 0 {
			have := make([]string, len(params))
			for i, q := range params {
				have[i] = q.Name
			}
			hint := ""
			if c := expr.Closest(name, have); c != "" {
				hint = fmt.Sprintf("; did you mean %q?", c)
			}
			return nil, fmt.Errorf("no parameter %q (the space has %s)%s", name, strings.Join(have, ", "), hint)
		}
		if slices.Contains(subset, p) {
			return nil, fmt.Errorf("parameter %q is named twice", name)
		}
		subset = append(subset, p)
	}
	return subset, nil
}
