package tuner

import (
	"strings"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/tuning"
)

// StopCondition is the stop condition a run reached, as --json's stop_condition states it
// beside stop's sentence: which condition, and where it has one, the value the run
// reached and the condition's threshold, in Unit.
type StopCondition struct {
	// Kind is the condition: "budget", "time", "target", "within_peak",
	// "space_exhausted", "strategy_finished", "same_failure", "cancelled", "error"; any
	// other is the session's reason with its spaces as underscores.
	Kind string `json:"kind"`
	// Value is what the run reached: the evaluations counted against the budget, the
	// seconds searched, the best objective, the best efficiency in percent of the peak,
	// the evaluations of a space exhausted. Threshold is the condition's: the budget, the
	// time limit, the target, the percentage of the peak, the space's size.
	Value     *float64 `json:"value,omitempty"`
	Threshold *float64 `json:"threshold,omitempty"`
	Unit      string   `json:"unit,omitempty"` // of Value and Threshold: "evaluations", "s", "%", the objective's
	// Before says the run's stored evaluations met it before this command, which
	// measured nothing.
	Before bool `json:"before,omitempty"`
}

// stopCondition states the condition of stop, the session's reason (Report.Stop), for
// the report rep of a run under o whose sink saw its evaluations.
func stopCondition(stop tuning.StopReason, o Options, rep *Report, sink *storeSink, objective string) *StopCondition {
	if stop == "" {
		return nil
	}
	num := func(x float64) *float64 { return &x }
	reason := string(stop)
	c := &StopCondition{}
	if r, ok := strings.CutSuffix(reason, StopReachedBefore); ok {
		reason, c.Before = r, true
	}
	switch {
	case stop == StopBudgetSpent:
		c.Kind, c.Before = "budget", true
		c.Value, c.Threshold, c.Unit = num(float64(rep.Evaluations-rep.DeviceExcluded)), num(float64(o.Budget)), "evaluations"
	case tuning.StopReason(reason) == tuning.StopBudget:
		c.Kind = "budget"
		c.Value, c.Threshold, c.Unit = num(float64(rep.Evaluations-rep.DeviceExcluded)), num(float64(o.Budget)), "evaluations"
	case tuning.StopReason(reason) == tuning.StopTime:
		c.Kind = "time"
		c.Value, c.Threshold, c.Unit = num(rep.WallSeconds), num(o.TimeLimit.Seconds()), "s"
	case tuning.StopReason(reason) == tuning.StopExhausted:
		c.Kind = "space_exhausted"
		c.Value, c.Threshold, c.Unit = num(float64(rep.Evaluations)), num(float64(rep.SpaceSize)), "evaluations"
	case tuning.StopReason(reason) == tuning.StopFinished:
		c.Kind = "strategy_finished"
	case tuning.StopReason(reason) == StopSameFailure:
		c.Kind = "same_failure"
	case strings.HasPrefix(reason, "target reached") && o.Target != nil:
		c.Kind, c.Threshold, c.Unit = "target", num(*o.Target), result.Unit(objective)
		if sink != nil && sink.best != nil {
			c.Value = num(sink.best.Objective)
		}
	case strings.HasPrefix(reason, "within ") && sink != nil && sink.watch != nil:
		c.Kind, c.Threshold, c.Unit = "within_peak", num(100*o.WithinPeak), "%"
		if r, ok := sink.watch.Reached(); ok {
			c.Value = num(r.Percent)
		}
	default:
		c.Kind = strings.ReplaceAll(reason, " ", "_")
	}
	return c
}
