package strategy

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/ktune/ktune/space"
)

// Kernel Tuner's greedy multi-start local search (greedy_mls): first-improvement hill
// climbing from random configurations, with the options Kernel Tuner gives it. The loop is
// seed 000's multi-start local search (mls.go); what differs is the options: the
// strictly-adjacent neighbourhood and a fixed parameter order.

var greedyMLSFactory = Factory{
	Doc: "Greedy multi-start local search (Kernel Tuner's greedy_mls): hill climbs a random " +
		"configuration by moving to the first improving neighbour it meets, parameter by " +
		"parameter in random order (or in a given order), until no neighbour improves, then " +
		"starts again from a new random configuration, until the budget ends. Unlike firstmls " +
		"its defaults do not depend on the budget, and it also takes the strictly-adjacent " +
		"neighbourhood and a fixed parameter order.",
	Options: []Option{
		greedyNeighbourhoodOption,
		greedyRestartOption,
		{Name: "order", Kind: ListKind(), Default: "none (every parameter, in random order)",
			Doc: "parameters the hill climber changes, in the order it tries them: names or " +
				"0-based indices, comma-separated or in brackets ([a,b], the form 'ktune bench --strategies' " +
				"takes) or a list (Kernel Tuner's order); its values " +
				"are then tried in list order, and parameters left out are never changed by a climb"},
		{Name: "randomize", Kind: BoolKind(), Default: "true, false when order is set",
			Doc: "try the parameters, and each one's values, in a new random order every sweep; " +
				"false tries them in the order of the space (or of the order option)"},
	},
	New: newGreedyMLS,
}

// greedyNeighbourhoodOption is the neighbourhood option of Kernel Tuner's greedy searches
// (Kernel Tuner calls it neighbor).
var greedyNeighbourhoodOption = Option{Name: "neighbourhood", Kind: ChoiceKind(greedyNeighbourhoods...), Default: "Hamming (Kernel Tuner)",
	Doc: "neighbours of a configuration: Hamming (one parameter changed to any other value), " +
		"adjacent (one parameter moved to the previous or next value in its list) or " +
		"strictly-adjacent (any parameters each moved at most one step; these are tried as one " +
		"list, not parameter by parameter, so restart and order do not apply to them)"}

var greedyRestartOption = Option{Name: "restart", Kind: BoolKind(), Default: "true (Kernel Tuner)",
	Doc: "after an improving move, start a new sweep over the parameters from the new " +
		"configuration (true) or go on with the parameters not yet tried in this sweep (false)"}

// greedyNeighbourhoods are the neighbourhoods the greedy searches accept.
var greedyNeighbourhoods = []string{"Hamming", "adjacent", "strictly-adjacent"}

// greedyOptions holds what Kernel Tuner's greedy searches share.
type greedyOptions struct {
	nb      space.Neighbourhood
	restart bool
}

func greedyFrom(opts Options) (greedyOptions, error) {
	g := greedyOptions{nb: space.Hamming}
	nb, set, err := neighbourhoodFrom(opts, greedyNeighbourhoods...)
	if err != nil {
		return g, err
	}
	if set {
		g.nb = nb
	}
	g.restart, err = opts.Bool("restart", true)
	return g, err
}

type greedyMLS struct {
	greedyOptions
	order     []string // parameter names or indices, resolved against the space in Run
	randomize bool
}

func newGreedyMLS(opts Options) (Strategy, error) {
	g := &greedyMLS{}
	var err error
	if g.greedyOptions, err = greedyFrom(opts); err != nil {
		return nil, err
	}
	if g.order, err = orderFrom(opts); err != nil {
		return nil, err
	}
	if g.randomize, err = opts.Bool("randomize", g.order == nil); err != nil {
		return nil, err
	}
	if g.randomize && g.order != nil {
		return nil, fmt.Errorf("option randomize: true contradicts option order (a fixed order)")
	}
	return g, nil
}

func (*greedyMLS) Name() string { return "greedymls" }

// CheckSpace resolves the order option against sp: each item must name a parameter of
// it or be an index below its number of parameters.
func (g *greedyMLS) CheckSpace(sp *space.Space, _ int) error {
	if g.randomize {
		return nil
	}
	_, err := resolveOrder(sp, g.order)
	return err
}

func (g *greedyMLS) Run(ctx context.Context, p Problem) error {
	s := newSearcher(ctx, p, g.nb)
	if !g.randomize {
		sweep, err := resolveOrder(p.Space(), g.order)
		if err != nil {
			return err
		}
		s.sweep = sweep
	}
	return stopped(s.multiStart(true, g.restart))
}

// orderFrom reads the order option: a list of parameter names or indices (see
// Options.List), or a single index. It returns nil when the option is not set.
func orderFrom(opts Options) ([]string, error) {
	switch x := opts["order"].(type) {
	case int, int64, float64, fmt.Stringer:
		return []string{fmt.Sprint(x)}, nil
	}
	order, _, err := opts.List("order")
	return order, err
}

// resolveOrder turns the order option into parameter indices of sp: each item is a
// parameter name or, failing that, a 0-based index. No order means every parameter in the
// space's order.
func resolveOrder(sp *space.Space, order []string) ([]int, error) {
	params := sp.Params()
	if order == nil {
		out := make([]int, len(params))
		for i := range out {
			out[i] = i
		}
		return out, nil
	}
	out := make([]int, 0, len(order))
	for _, item := range order {
		i := slices.IndexFunc(params, func(p space.Param) bool { return p.Name == item })
		if i < 0 {
			n, err := strconv.Atoi(item)
			if err != nil || n < 0 || n >= len(params) {
				return nil, fmt.Errorf("option order: %q is neither a parameter of the space nor an index below %d", item, len(params))
			}
			i = n
		}
		if slices.Contains(out, i) {
			return nil, fmt.Errorf("option order: parameter %s given twice", params[i].Name)
		}
		out = append(out, i)
	}
	return out, nil
}
