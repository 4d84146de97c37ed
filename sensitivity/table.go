package sensitivity

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"

	"github.com/ktune/ktune/space"
)

// SobolTable computes Sobol indices from a table of measured configurations: cfgs (value
// indices) with their objective values y (rows with a non-finite objective are dropped).
//
// All indices come from conditional means: V_S = Var(E[Y|X_S]) for a set S of parameters,
// first-order S_i = V_i/Var(Y), total-order S_Ti = 1 - V_~i/Var(Y) (~i: every parameter
// but i), second-order S_ij = (V_ij - V_i - V_j)/Var(Y).
//
// When the table is the full cartesian product of the parameters' values, each combination
// exactly once, the method is Exact: the means are those of the uniform product
// distribution and the indices are its exact Sobol indices. Otherwise (a restricted space,
// failures, a partial run) the method is Empirical: the same formulas over the table as an
// empirical distribution, each group of equal values weighted by its frequency. The
// parameters are then dependent, so the indices are correlation ratios of the measured
// distribution rather than a variance decomposition, and the total-order indices are lower
// bounds: a configuration that no other shares all its other parameters' values with forms
// a group of one and adds no within-variance. Sobol.Note says which case applies.
//
// Exact indices have no interval: they are computed from every configuration of the
// population they describe, so there is no sampling error to express, and resampling the
// configurations would only break up the product (a resample is no longer one) and measure
// that. The noise in each configuration's measured value is not modelled by either method.
//
// Empirical indices get 95% intervals from o.Bootstrap resamples of the configurations with
// replacement: how much the indices depend on which configurations were measured (for a
// partial run, a sample of its space, the sampling uncertainty). They are percentile
// intervals re-centred on the estimate, because resampling biases the group-based
// estimators (see fill), and kept within [0, 1] for the first- and total-order indices,
// which are variance shares. The bootstrap stops when ctx is done, and SobolTable then
// returns ctx's error.
func SobolTable(ctx context.Context, params []space.Param, cfgs []space.Config, y []float64, o Options) (*Sobol, error) {
	if err := checkTable(params, cfgs, y); err != nil {
		return nil, fmt.Errorf("sensitivity: %w", err)
	}
	if len(params) == 0 {
		return nil, errors.New("sensitivity: no parameters")
	}
	subset, err := o.subset(params)
	if err != nil {
		return nil, fmt.Errorf("sensitivity: %w", err)
	}
	rows := finiteRows(y)
	if len(rows) < 2 {
		return nil, fmt.Errorf("sensitivity: %d configurations with a finite objective, need at least 2", len(rows))
	}
	t := newTable(params, cfgs, y, rows, subset, o.SecondOrder)
	if t.variance(nil) == 0 {
		return nil, fmt.Errorf("sensitivity: the objective is constant over the configurations: %w", ErrConstant)
	}
	method := Empirical
	if t.isProduct(params, cfgs) {
		method = Exact
	}
	s := newSobol(method, params, subset, o.SecondOrder)
	s.Samples = len(rows)
	point := t.indices(nil, newScratch(t))
	B := o.Resamples()
	if method == Exact {
		B = 0 // no sampling error (see above)
	}
	s.Note = t.note(method, B > 0)
	var reps [][]float64
	if B > 0 {
		if reps, err = bootstrap(ctx, B, o.Seed, len(rows), len(point), func(w []float64, sc *scratch, out []float64) {
			copy(out, t.indices(w, sc))
		}, func() *scratch { return newScratch(t) }); err != nil {
			return nil, err
		}
		s.Bootstrap = B
	}
	fill(s, point, reps, true)
	return s, nil
}

// grouping assigns each row of a table to the group of rows with equal values of a set of
// parameters.
type grouping struct {
	id []int32
	n  int // number of groups
}

// table holds what every estimate (the point one and each bootstrap replicate) needs:
// the objective per used row, centred for accuracy, and the groupings of the indices.
type table struct {
	y      []float64  // centred objective of the used rows
	first  []grouping // per subset position: rows grouped by that parameter
	others []grouping // per subset position: rows grouped by every other parameter
	pairs  []grouping // per pair of subset positions, in Sobol.Second's order
	all    grouping   // rows grouped by every parameter
}

func newTable(params []space.Param, cfgs []space.Config, y []float64, rows []int, subset []int, second bool) *table {
	t := &table{y: make([]float64, len(rows))}
	var mean float64
	for _, r := range rows {
		mean += y[r]
	}
	mean /= float64(len(rows))
	for k, r := range rows {
		t.y[k] = y[r] - mean
	}
	group := func(ps []int) grouping { return groupBy(params, cfgs, rows, ps) }
	allParams := make([]int, len(params))
	for p := range allParams {
		allParams[p] = p
	}
	t.all = group(allParams)
	for _, p := range subset {
		t.first = append(t.first, group([]int{p}))
		others := make([]int, 0, len(params)-1)
		for q := range params {
			if q != p {
				others = append(others, q)
			}
		}
		t.others = append(t.others, group(others))
	}
	if second {
		for i := range subset {
			for j := i + 1; j < len(subset); j++ {
				t.pairs = append(t.pairs, group([]int{subset[i], subset[j]}))
			}
		}
	}
	return t
}

// groupBy numbers the distinct value combinations of parameters ps over rows densely. The
// combination is read as a mixed-radix number; when that would overflow, the key so far
// is replaced by its dense group number, which is below the row count.
func groupBy(params []space.Param, cfgs []space.Config, rows []int, ps []int) grouping {
	keys := make([]uint64, len(rows))
	for _, p := range ps {
		radix := uint64(len(params[p].Values))
		var maxKey uint64
		for _, k := range keys {
			maxKey = max(maxKey, k)
		}
		if hi, lo := bits.Mul64(maxKey+1, radix); hi != 0 || lo == 0 {
			densify(keys)
		}
		for k, r := range rows {
			keys[k] = keys[k]*radix + uint64(cfgs[r][p])
		}
	}
	n := densify(keys)
	g := grouping{id: make([]int32, len(rows)), n: n}
	for k, key := range keys {
		g.id[k] = int32(key)
	}
	return g
}

// densify replaces keys by dense numbers 0..n-1 in order of first appearance and returns n.
func densify(keys []uint64) int {
	ids := make(map[uint64]uint64, len(keys)/4)
	for k, key := range keys {
		id, ok := ids[key]
		if !ok {
			id = uint64(len(ids))
			ids[key] = id
		}
		keys[k] = id
	}
	return len(ids)
}

// isProduct reports whether the used rows are the full cartesian product of the values,
// each combination exactly once.
func (t *table) isProduct(params []space.Param, cfgs []space.Config) bool {
	if t.all.n != len(t.y) {
		return false // a combination appears twice
	}
	product := 1.0
	for _, p := range params {
		product *= float64(len(p.Values))
	}
	return product == float64(len(t.y))
}

// note explains how to read the indices of method.
func (t *table) note(method string, intervals bool) string {
	if method == Exact {
		return "exact: the configurations are the full cartesian product of the parameter values, " +
			"so these are the Sobol indices of the uniform distribution over it, computed from every " +
			"configuration: no sampling error, so no bootstrap intervals (the measurement noise of each " +
			"configuration's value is not included)"
	}
	// How often a row has a partner sharing all its other values, the only rows that
	// carry within-variance into a total-order index.
	var shared float64
	for _, g := range t.others {
		size := make([]int, g.n)
		for _, id := range g.id {
			size[id]++
		}
		for _, id := range g.id {
			if size[id] > 1 {
				shared++
			}
		}
	}
	shared /= float64(len(t.others) * len(t.y))
	note := fmt.Sprintf("empirical: the configurations are not the full product of the parameter values "+
		"(restrictions, failures or a partial run), so the parameters are dependent and the indices "+
		"describe the measured distribution (correlation ratios); total-order indices are lower bounds, "+
		"as only configurations that share all other parameter values with another one add to them "+
		"(%.0f%% of configurations on average)", 100*shared)
	if intervals {
		note += "; the intervals, from resampling the configurations, say how much the indices depend on which configurations were measured"
	}
	return note
}

// scratch is the per-goroutine memory of an estimate.
type scratch struct {
	sw, sy []float64 // per group: weight and weighted objective sums
	out    []float64
}

func newScratch(t *table) *scratch {
	n := len(t.y)
	return &scratch{sw: make([]float64, n), sy: make([]float64, n), out: make([]float64, 0, 2*len(t.first)+len(t.pairs))}
}

// variance returns the weighted variance of the objective; w nil means unit weights.
func (t *table) variance(w []float64) float64 {
	var sw, sy float64
	for k, y := range t.y {
		wk := weight(w, k)
		sw += wk
		sy += wk * y
	}
	mu := sy / sw
	var v float64
	for k, y := range t.y {
		d := y - mu
		v += weight(w, k) * d * d
	}
	return v / sw
}

func weight(w []float64, k int) float64 {
	if w == nil {
		return 1
	}
	return w[k]
}

// closed returns V_S = Var(E[Y|X_S]) for the grouping g of S under weights w.
func (t *table) closed(g grouping, w []float64, sc *scratch) float64 {
	sw, sy := sc.sw[:g.n], sc.sy[:g.n]
	clear(sw)
	clear(sy)
	var W, S float64
	if w == nil {
		for k, id := range g.id {
			sw[id]++
			sy[id] += t.y[k]
		}
		W = float64(len(t.y))
	} else {
		for k, id := range g.id {
			if wk := w[k]; wk != 0 {
				sw[id] += wk
				sy[id] += wk * t.y[k]
				W += wk
			}
		}
	}
	for _, s := range sy {
		S += s
	}
	mu := S / W
	var v float64
	for c, n := range sw {
		if n > 0 {
			d := sy[c]/n - mu
			v += n * d * d
		}
	}
	return v / W
}

// indices returns the firsts, then the totals, then the seconds under weights w, laid out
// as fill reads them.
func (t *table) indices(w []float64, sc *scratch) []float64 {
	out := sc.out[:0]
	V := t.variance(w)
	k := len(t.first)
	vi := make([]float64, k)
	for i, g := range t.first {
		vi[i] = t.closed(g, w, sc)
		out = append(out, vi[i]/V)
	}
	for _, g := range t.others {
		out = append(out, 1-t.closed(g, w, sc)/V)
	}
	pair := 0
	for i := range k {
		for j := i + 1; j < k && pair < len(t.pairs); j++ {
			out = append(out, (t.closed(t.pairs[pair], w, sc)-vi[i]-vi[j])/V)
			pair++
		}
	}
	if V == 0 {
		for i := range out {
			out[i] = math.NaN()
		}
	}
	sc.out = out
	return out
}
