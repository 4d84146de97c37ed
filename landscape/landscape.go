// Package landscape analyses the fitness landscape of a recorded space as seed 000's
// Section VII does: it classifies every configuration as a local minimum, maximum, saddle
// or regular point under a neighbourhood, builds the fitness flow graph (an edge from each
// configuration to every neighbour that is no worse), ranks its nodes by PageRank, and
// summarises how much of that centrality falls on minima close to the global optimum (the
// proportion of centrality C_p, the paper's measure of tuning difficulty).
//
// A failed configuration (NaN or infinite objective) is a point worse than every success.
// FromSimulator makes a configuration found wrong in the recording (a wrong_answer
// evaluation anywhere in it: result.Recording.FoundWrong) one, as the analysis package
// does: it computes wrong answers on some input, so it is never the optimum that C_p and
// the fractions of optimum are measured against.
package landscape

import (
	"fmt"
	"math"

	"github.com/ktune/ktune/simulator"
	"github.com/ktune/ktune/space"
)

// Landscape is a space with one objective value per configuration index.
type Landscape struct {
	Space     *space.Space
	Objective []float64 // per space index; NaN when failed or not recorded
	Maximize  bool
}

// FromSimulator reads the objective of every configuration of the simulator's space (NaN
// where it failed, or, in cartesian mode, is restricted or missing from the recording). A
// configuration found wrong anywhere in the recording (result.Recording.FoundWrong) is
// failed too (Simulator.Objective), whatever the evaluation the simulator kept of it
// measured: it computes wrong answers on some input, so it is no optimum, as the
// simulator's is not.
func FromSimulator(sim *simulator.Simulator) *Landscape {
	sp := sim.Space()
	obj := make([]float64, sp.Len())
	var c space.Config
	for i := range obj {
		c = sp.At(i, c)
		v, ok := sim.Objective(c)
		if !ok {
			v = math.NaN()
		}
		obj[i] = v
	}
	return &Landscape{Space: sp, Objective: obj, Maximize: sim.Maximize()}
}

// failFitness is the fitness of every failed configuration: all failures are equal, and
// worse than any success.
var failFitness = math.Inf(1)

// fitness returns the values to minimise: the objective, negated when maximising, with
// every failed (NaN or infinite) configuration at the fail fitness.
func (l *Landscape) fitness() []float64 {
	f := make([]float64, len(l.Objective))
	for i, v := range l.Objective {
		switch {
		case !ok(v):
			f[i] = failFitness
		case l.Maximize:
			f[i] = -v
		default:
			f[i] = v
		}
	}
	return f
}

// ok reports whether an objective value is a success.
func ok(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// optimum returns the best successful objective and its index; NaN and -1 when none.
func (l *Landscape) optimum() (float64, int) {
	best, at := math.NaN(), -1
	for i, v := range l.Objective {
		if !ok(v) {
			continue
		}
		if at < 0 || (l.Maximize && v > best) || (!l.Maximize && v < best) {
			best, at = v, i
		}
	}
	return best, at
}

// fraction is the fraction of optimal fitness of objective v: optimum/v when minimising,
// v/optimum when maximising. It is a number in [0, 1] only where fractionUndefined is "".
func (l *Landscape) fraction(v, optimum float64) float64 {
	if l.Maximize {
		return v / optimum
	}
	return optimum / v
}

// fractionUndefined says why the fraction of optimal fitness means nothing on l, whose best
// successful objective is optimum; "" when it is defined. The fraction is a ratio to the
// optimum, as seed 000 takes it of run times: it needs a positive optimum and no negative
// value (a zero optimum makes it 0/0, a negative one turns it above 1 or below 0).
func (l *Landscape) fractionUndefined(optimum float64) string {
	const ratio = "the fraction (optimum/value, or value/optimum when maximising) needs a positive optimum and no negative values"
	if optimum == 0 {
		return "fraction of optimum undefined: the optimum is 0 and " + ratio
	}
	lowest := optimum
	for _, v := range l.Objective {
		if ok(v) {
			lowest = math.Min(lowest, v)
		}
	}
	if lowest < 0 {
		return fmt.Sprintf("fraction of optimum undefined: the objective has negative values (as low as %g) and %s", lowest, ratio)
	}
	return ""
}
