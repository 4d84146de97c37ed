package efficiency

import (
	"fmt"
	"math"
	"strconv"
	"sync"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/tuning"
)

// Threshold is seed 003's well-performing threshold (Section 6: tuning stops once "a
// configuration reaching 75% of the peak memory bandwidth is found"): a kernel time is
// well-performing when its efficiency (eq. 2) is at least Fraction of the device's peak.
type Threshold struct {
	Ops      Ops
	Peaks    Peaks
	Fraction float64 // above 0, at most 1
}

// NewThreshold is the threshold at fraction of the peaks p for a task of operations ops.
// It is an error when the fraction is not in (0, 1], the task is excluded from efficiency
// or declares no operations, or p lacks a peak the operations need (a
// *MissingPeakError, which says which option gives it): an efficiency that cannot be
// computed would never stop a search.
func NewThreshold(ops Ops, p Peaks, fraction float64) (Threshold, error) {
	if !(fraction > 0 && fraction <= 1) {
		return Threshold{}, fmt.Errorf("the fraction of the peak %g is not in (0, 1]: give 0.75 for 75%% of the peak", fraction)
	}
	if ops.Excluded != "" {
		return Threshold{}, fmt.Errorf("no efficiency: the spec excludes its kernel from efficiency against a peak (essential_ops: excluded: %s)", ops.Excluded)
	}
	if _, err := TimeAt(ops, p, fraction); err != nil {
		return Threshold{}, err
	}
	return Threshold{Ops: ops, Peaks: p, Fraction: fraction}, nil
}

// TimeMS is the longest kernel time in ms that meets the threshold (TimeAt).
func (t Threshold) TimeMS() float64 {
	ms, _ := TimeAt(t.Ops, t.Peaks, t.Fraction)
	return ms
}

// Met returns the efficiency of a kernel time of timeMS milliseconds and whether it
// reaches the threshold. It compares eq. 2's percentage itself, not the time against
// TimeMS, so that the summary's efficiency of a configuration that stopped the search is
// never below the threshold by rounding.
func (t Threshold) Met(timeMS float64) (Result, bool) {
	r, err := Of(t.Ops, timeMS, t.Peaks)
	if err != nil {
		return Result{}, false
	}
	return r, r.Percent >= 100*t.Fraction
}

// Reason says that r met the threshold, with what r reached of the peak of its bound:
// "within 75% of peak: 412 GB/s of 549 GB/s (75.1%)".
func (t Threshold) Reason(r Result) string {
	reached := fmt.Sprintf("%.4g GB/s of %.4g GB/s", r.GBs, t.Peaks.GBs)
	if r.Bound == "compute" {
		reached = fmt.Sprintf("%.4g GFLOP/s of %.4g GFLOP/s %s", r.GFLOPS, t.Peaks.GFLOPS, t.Peaks.Precision)
	}
	return fmt.Sprintf("within %s%% of peak: %s (%.1f%%)", strconv.FormatFloat(100*t.Fraction, 'g', 4, 64), reached, r.Percent)
}

// Watch follows the evaluations of a search for one that meets a threshold, and is the
// search's stop condition (Stop). A session's stop conditions see only its best objective
// (tuning.State), which is not the kernel time where the objective is another metric, and
// not a resumed run's stored best; the caller shows the watch every evaluation instead,
// the stored ones included (Observe).
//
// A configuration with a wrong_answer evaluation among those observed (found wrong by a
// verification, or by a check after dynamic tuning; result.Recording.FoundWrong) never
// meets the threshold, however fast its successes ran: one that met it before its wrong
// answer was observed is forgotten, and the threshold is met again only by another
// configuration. It is safe for concurrent use.
type Watch struct {
	t         Threshold
	objective string

	mu      sync.Mutex
	met     map[string]Result // by configuration (result.ConfigKey): the highest efficiency of its successes that met the threshold
	wrong   map[string]bool   // configurations with a wrong_answer evaluation observed
	reached *Result           // the highest of met; nil when met is empty
}

// Watch returns a watch of evaluations whose objective is objective ("time", or a metric
// whose evaluations keep the time beside it: result.Evaluation.TimeMS).
func (t Threshold) Watch(objective string) *Watch {
	return &Watch{t: t, objective: objective}
}

// Observe shows the watch an evaluation, and reports whether it is a success whose kernel
// time meets the threshold, of a configuration not found wrong. A failure never does,
// whatever time it kept: a configuration that did not verify is not well-performing; a
// wrong answer also takes back what its configuration's earlier successes met.
func (w *Watch) Observe(e result.Evaluation) bool {
	if e.Status == result.WrongAnswer {
		w.foundWrong(result.ConfigKey(e.Config))
		return false
	}
	if e.Failed() {
		return false
	}
	ms, ok := e.TimeMS(w.objective)
	if !ok || math.IsNaN(ms) {
		return false
	}
	r, met := w.t.Met(ms)
	if !met {
		return false
	}
	key := result.ConfigKey(e.Config)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.wrong[key] {
		return false
	}
	if old, seen := w.met[key]; !seen || r.Percent > old.Percent {
		if w.met == nil {
			w.met = map[string]Result{}
		}
		w.met[key] = r
	}
	if w.reached == nil || r.Percent > w.reached.Percent {
		w.reached = &r
	}
	return true
}

// foundWrong notes that the configuration key has a wrong answer, and forgets what it met.
func (w *Watch) foundWrong(key string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.wrong == nil {
		w.wrong = map[string]bool{}
	}
	w.wrong[key] = true
	if _, had := w.met[key]; !had {
		return
	}
	delete(w.met, key)
	w.reached = nil
	at := ""
	for k, r := range w.met {
		// ties go to the smallest key, the same whatever the map's order
		if w.reached == nil || r.Percent > w.reached.Percent || r.Percent == w.reached.Percent && k < at {
			w.reached, at = &r, k
		}
	}
}

// Reached is the highest efficiency an observed evaluation of a configuration not found
// wrong reached at or above the threshold; false while none has.
func (w *Watch) Reached() (Result, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.reached == nil {
		return Result{}, false
	}
	return *w.reached, true
}

// Stop is a tuning.StopCondition: the threshold's Reason once an observed evaluation of a
// configuration not found wrong has met it, "" before.
func (w *Watch) Stop(tuning.State) tuning.StopReason {
	if r, ok := w.Reached(); ok {
		return tuning.StopReason(w.t.Reason(r))
	}
	return ""
}
