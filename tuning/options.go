package tuning

import (
	"fmt"
	"log/slog"
	"math"
	"time"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
)

// Options configure a session. The zero value runs until the strategy finishes or the
// space is exhausted, minimising, with seed 0.
type Options struct {
	// Budget is the number of unique configurations the session may evaluate; 0 for no
	// limit. Repeats answered from the cache do not count.
	Budget int
	// TimeLimit ends the session once this much time has passed on its clock: simulated
	// time when the evaluator is Simulated, wall-clock time (from Since) otherwise; 0 for
	// no limit. It is checked before each evaluation starts (with Ask and Tell, when Ask
	// hands the configuration out). On the wall clock Run also
	// ends the evaluation in progress when the limit passes (the Evaluator's context has
	// that deadline) and records nothing for it; a simulated evaluation, or one told
	// (Tell), that crosses the limit is kept (it was measured).
	TimeLimit time.Duration
	// Since, when set, is when the session's wall clock started: TimeLimit on the wall
	// clock, State.Elapsed, Summary.Elapsed and Summary.Wall count from it, so that work
	// done for the session before it began (starting a device, a baseline given in
	// Measured) counts against the limit. A session that begins with the limit already
	// passed evaluates nothing (StopTime). Zero, or a time after the session begins, is
	// when Run or Start begins it. A simulated clock starts at zero whatever Since says.
	Since time.Time
	// Stop holds further stop conditions (Target, SpaceFraction, WithinOptimum); the first
	// that holds after an evaluation ends the session.
	Stop []StopCondition
	// Maximize says the objective is to be maximised; the session negates it into the
	// fitness strategies minimise.
	Maximize bool
	// Seed seeds the strategy's random generator: the same seed, strategy and evaluator
	// give the same run.
	Seed uint64
	// NoCache evaluates repeated configurations again, each costing budget: seed 000's
	// stochastic setting, where the same configuration may measure differently each time.
	NoCache bool
	// Measured holds evaluations made for this session before it starts (a baseline such
	// as a kernel spec's default configuration): they join the history and count against
	// the budget as if the strategy had asked for them, and a strategy that asks for one
	// gets it from the cache. The sink does not receive them again. Configurations outside
	// the space are left out. A configuration given more than once keeps its last
	// measurement, which supersedes the earlier ones, as in a recording
	// (result.Recording.KeepLast) and in a run the tuner resumes from its store, and counts
	// once; with NoCache each counts, as a repeated measurement. A Status that is not one
	// of result's is an error of New. When they reach the budget the session ends at once,
	// having counted them all (Summary.Evaluations may then exceed the budget).
	Measured []result.Evaluation
	// Free, when set, says which new evaluations cost no budget: configurations the
	// evaluator refused without measuring anything (the tuner's, those over a device limit
	// known before compiling). They join the history and the cache, reach the sink, and the
	// strategy sees their fitness as any failure's (+Inf), but neither the budget,
	// Summary.Evaluations, State.Evaluations nor Progress counts them: Summary.Free does.
	// It applies to Measured too. A space whose configurations are all free ends when it is
	// exhausted.
	Free func(result.Evaluation) bool
	// Sink, when set, receives every new evaluation as soon as it is made.
	Sink Sink
	// Progress, when set, is called after every new evaluation, on the goroutine that made
	// it; it must return quickly.
	Progress func(Progress)
	// Logger receives debug logs of the session; slog.Default() when nil.
	Logger *slog.Logger
	// BriefSummary leaves History out of Summary (and of Run's): a harness of many
	// simulated runs needs only their outcome, and copying the history of each run cost
	// about as much as simulating it. Without a Sink nothing then reads an evaluation's
	// details, so the session neither checks its values against the configuration nor
	// measures the strategy's time (StrategyMS).
	BriefSummary bool
}

// StopReason says why a session ended.
type StopReason string

// Stop reasons.
const (
	StopBudget        StopReason = "budget"            // the evaluation budget is spent
	StopTime          StopReason = "time limit"        // the time limit has passed
	StopTarget        StopReason = "target"            // an objective at least as good as the target was found
	StopSpaceFraction StopReason = "space fraction"    // the given fraction of the space was evaluated
	StopOptimum       StopReason = "optimum"           // the known optimum itself was found (WithinOptimum)
	StopWithin        StopReason = "within"            // a result within WithinOptimum's fraction of the known optimum, short of it, was found
	StopExhausted     StopReason = "space exhausted"   // every configuration of the space was evaluated
	StopFinished      StopReason = "strategy finished" // the strategy had nothing left to try
	StopCancelled     StopReason = "cancelled"         // the context was cancelled or the session closed
	StopError         StopReason = "error"             // the evaluator, the sink or the strategy failed
)

// State is what a stop condition sees of a session after each evaluation.
type State struct {
	Evaluations int           // evaluations counted against the budget
	Distinct    int           // distinct configurations evaluated
	SpaceLen    int           // configurations in the space
	Elapsed     time.Duration // on the session's clock
	Best        float64       // best objective so far, in the objective's units; NaN when none succeeded
	// BestConfig is the configuration Best is of (Summary.Best), shared with the session:
	// read it, do not keep or modify it; nil when none succeeded.
	BestConfig space.Config
	Maximize   bool // the objective's direction
}

// StopCondition returns a reason to end the session, or "" to go on.
type StopCondition func(State) StopReason

// Target stops once an objective at least as good as target (in the objective's
// direction) has been found: "fast enough" for offline or dynamic tuning (seed 003).
// It panics on a NaN target, which no objective reaches, as a constant given wrong is a
// programming error.
func Target(target float64) StopCondition {
	if math.IsNaN(target) {
		panic("tuning: Target(NaN): no objective is at least as good as NaN, so the session would never stop for it")
	}
	return func(s State) StopReason {
		if math.IsNaN(s.Best) {
			return ""
		}
		if (s.Maximize && s.Best >= target) || (!s.Maximize && s.Best <= target) {
			return StopTarget
		}
		return ""
	}
}

// SpaceFraction stops once the given fraction (above 0, at most 1) of the space's
// configurations has been evaluated. It panics on a fraction outside (0, 1], as a
// constant given wrong is a programming error.
func SpaceFraction(fraction float64) StopCondition {
	if !(fraction > 0 && fraction <= 1) {
		panic(fmt.Sprintf("tuning: SpaceFraction(%v): want a fraction above 0 and at most 1", fraction))
	}
	return func(s State) StopReason {
		if float64(s.Distinct) >= fraction*float64(s.SpaceLen) {
			return StopSpaceFraction
		}
		return ""
	}
}

// WithinOptimum stops once the best objective scores at least fraction (e.g. 0.95) by
// score, which rates an objective against the known optimum: in simulation, the
// simulator's FractionOfOptimum. The reason is StopOptimum when the best is the optimum
// (it scores 1 or more), StopWithin when it only reached fraction of it. It panics on a
// nil score or a NaN fraction, as SpaceFraction does on a fraction given wrong, rather
// than fail the session at its first evaluation or never stop it.
func WithinOptimum(score func(best float64) float64, fraction float64) StopCondition {
	switch {
	case score == nil:
		panic("tuning: WithinOptimum(nil, ...): want a function that scores an objective against the optimum")
	case math.IsNaN(fraction):
		panic("tuning: WithinOptimum(score, NaN): want a fraction of the optimum")
	}
	return func(s State) StopReason {
		if math.IsNaN(s.Best) {
			return ""
		}
		switch got := score(s.Best); {
		case got >= 1:
			return StopOptimum
		case got >= fraction:
			return StopWithin
		}
		return ""
	}
}

// Progress is a snapshot of a session for a progress display.
type Progress struct {
	Evaluations int           // evaluations counted against the budget so far
	Budget      int           // the evaluation budget; 0 when none
	Best        float64       // best objective so far; NaN when none succeeded
	Elapsed     time.Duration // on the session's clock
	TimeLimit   time.Duration // 0 when none
}

// ETA estimates the time left on the session's clock: the sooner of the time limit and
// the budget at the average rate so far. It returns -1 when neither bounds the session or
// nothing has been evaluated yet.
func (p Progress) ETA() time.Duration {
	eta := time.Duration(-1)
	if p.Budget > 0 && p.Evaluations > 0 {
		per := p.Elapsed / time.Duration(p.Evaluations)
		eta = per * time.Duration(max(p.Budget-p.Evaluations, 0))
	}
	if p.TimeLimit > 0 {
		left := max(p.TimeLimit-p.Elapsed, 0)
		if eta < 0 || left < eta {
			eta = left
		}
	}
	return eta
}
