// Package strategy defines the seam between search strategies and whatever evaluates the
// configurations they propose (a tuning session on a device, the simulator, an
// application tuning itself), and keeps the registry of strategies by name.
//
// A strategy is written in plain blocking style: it calls Problem.Evaluate and gets a
// fitness back. The tuning session turns that into ask/tell when its caller needs it, so a
// strategy never knows whether evaluations run locally, in a simulator or step by step
// inside an application.
//
// A strategy of one's own is any type with Name and Run. Hand it to tuning.New directly
// (Example_ownStrategy); to reach it by name, as simulator.Repeat and benchmark.Run do in a
// program of one's own, give it a Factory and Register it once, in an init function (a
// name registered twice panics). The ktune command knows the built-in strategies only: a
// strategy of its own reaches the command by being built in. Inside this package, a new
// built-in strategy is one file plus one line in the registry (builtin in registry.go).
package strategy

import (
	"context"
	"errors"
	"math/rand/v2"

	"github.com/ktune/ktune/space"
)

// Strategy searches a space for the configuration with the lowest fitness.
type Strategy interface {
	// Name is the name the strategy is registered under.
	Name() string
	// Run searches p until the strategy has nothing left to try or p.Evaluate returns an
	// error. It returns nil when it stopped because of ErrStop, and any other error from
	// p.Evaluate as it is.
	Run(ctx context.Context, p Problem) error
}

// Problem is what a strategy sees of a tuning session.
//
// Fitness is always minimised: it is the objective, negated when the objective is to be
// maximised, and +Inf for a configuration that failed (did not compile, crashed, timed
// out or gave a wrong answer). Strategies therefore never need to know the objective's
// direction, and must cope with +Inf.
type Problem interface {
	// Space is the set of valid configurations to search.
	Space() *space.Space
	// Rand is the only source of randomness a strategy may use, so that a run is
	// reproduced by its seed.
	Rand() *rand.Rand
	// Evaluate returns the fitness of c, which must be a valid configuration of Space.
	// A configuration evaluated before is answered from the session's cache and costs
	// nothing. Evaluate does not keep c, so a strategy may reuse its buffer. It returns
	// ErrStop once the budget is spent or a stop condition holds, for every call after
	// that, cached or not.
	Evaluate(ctx context.Context, c space.Config) (float64, error)
	// Budget is the number of unique evaluations the run may use; 0 when no evaluation
	// budget was set (a time limit or a stop condition ends the run instead). Strategies
	// use it to pick budget-dependent defaults, as seed 000's Table III does.
	Budget() int
	// Remaining is the number of evaluations the run may still use: never more than the
	// configurations not yet evaluated; math.MaxInt when nothing bounds it.
	Remaining() int
}

// Hinter is implemented by problems whose evaluator can prepare configurations ahead of
// time, compiling them in parallel while the current one is measured. A strategy that knows
// what it will evaluate next (random sampling, brute force, a population) tells it with
// Hint; hints are advice and cost no budget.
type Hinter interface {
	Hint(upcoming ...space.Config)
}

// hintAhead is how many upcoming configurations a strategy that knows its next ones
// (random sampling, brute force) hints: enough to keep several pre-compilers busy.
const hintAhead = 8

// takesHints reports whether hints given to p reach an evaluator that uses them: the
// problems strategies wrap for one another (a stage of auto, the noise watch) pass hints
// on, so they take them only when the problem they wrap does. Strategies that prepare
// hints at a cost ask this first.
func takesHints(p Problem) bool {
	switch w := p.(type) {
	case *stage:
		return takesHints(w.Problem)
	case *noiseWatch:
		return takesHints(w.Problem)
	}
	_, ok := p.(Hinter)
	return ok
}

// forwardHint passes a wrapper's hints, an empty list too (nothing is coming), to the
// problem it wraps when that takes hints.
func forwardHint(p Problem, upcoming []space.Config) {
	if h, ok := p.(Hinter); ok {
		h.Hint(upcoming...)
	}
}

// hint passes upcoming configurations to p when it takes hints.
func hint(p Problem, upcoming ...space.Config) {
	if h, ok := p.(Hinter); ok && len(upcoming) > 0 {
		h.Hint(upcoming...)
	}
}

// ErrStop is what Problem.Evaluate returns once the run must end: the budget is spent, the
// time is up or a stop condition holds. A strategy returns when it sees it.
var ErrStop = errors.New("stop searching: budget spent or stop condition reached")

// stopped maps the error that ended a strategy's loop to what Run returns: ErrStop is the
// normal way for a run to end, anything else is passed on.
func stopped(err error) error {
	if errors.Is(err, ErrStop) {
		return nil
	}
	return err
}
