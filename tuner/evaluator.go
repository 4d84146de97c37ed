package tuner

import (
	"context"
	"log/slog"
	"time"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/store"
	"github.com/ktune/ktune/tuning"
	"github.com/ktune/ktune/worker"
)

// StopBudgetSpent is why a resumed run that already has its budget's evaluations measures
// nothing (Report.Stop).
const StopBudgetSpent tuning.StopReason = "the budget was spent before this command"

// StopSameFailure ends a run whose first configurations all failed with the same message:
// a fault of the spec or the device (arguments that do not match the kernel, a missing
// symbol), not of the configurations, which the rest of the budget would only repeat.
const StopSameFailure tuning.StopReason = "the first configurations all failed the same way"

// sameFailures is how many configurations, from the first, must at least fail with one
// message before tuning stops (StopSameFailure).
const sameFailures = 10

// resumingEvaluator answers configurations the run measured before it was interrupted from
// the store, and forwards the rest (and hints) to the device.
type resumingEvaluator struct {
	inner *worker.Supervisor
	sp    *space.Space
	known map[string]result.Evaluation
	// the failure every evaluation so far had (sameFailure), how many had it and the
	// values each parameter took among them; whether any evaluation succeeded
	failure   *failureRun
	succeeded bool
	// budget is the run's (0: none), stored how many evaluations the run had before this
	// command, measured the configurations (keys) this command measured
	budget, stored int
	measured       map[string]bool
}

// runEvaluations is how many evaluations the run has: those stored before this command
// and those it measured.
func (r *resumingEvaluator) runEvaluations() int { return r.stored + len(r.measured) }

// runBudget is a stop condition: the budget is spent once the run has that many
// evaluations. A resumed run's strategy starts again, and the configurations it asks for
// again are answered from the store, counting against the session's budget as they did
// before; but a strategy that takes another path (auto with another budget) would
// otherwise measure a whole budget more.
func (r *resumingEvaluator) runBudget(tuning.State) tuning.StopReason {
	if r.budget > 0 && r.runEvaluations() >= r.budget {
		return tuning.StopBudget
	}
	return ""
}

func (r *resumingEvaluator) Evaluate(ctx context.Context, c space.Config) (result.Evaluation, error) {
	e, err := r.evaluate(ctx, c)
	if err == nil {
		r.succeeded = r.succeeded || !e.Failed()
		r.failure = r.failure.add(c, e)
	}
	return e, err
}

// failureRun is the failure every evaluation of a run has had so far, from the first.
type failureRun struct {
	status  result.Status
	message string
	n       int
	values  []map[int]bool // per parameter, the indices of the values the failures took
	broken  bool           // an evaluation differed: the run has no one failure
}

// add counts evaluation e of c; f is nil before the first evaluation.
func (f *failureRun) add(c space.Config, e result.Evaluation) *failureRun {
	if f == nil {
		f = &failureRun{status: e.Status, message: e.Message, values: make([]map[int]bool, len(c))}
		for p := range f.values {
			f.values[p] = map[int]bool{}
		}
	}
	if f.broken {
		return f
	}
	if e.Status == result.OK || e.Status == result.Timeout || e.Status == result.DeviceLimit ||
		e.Status != f.status || e.Message != f.message || e.Message == "" {
		f.broken = true
		return f
	}
	f.n++
	for p, v := range c {
		if len(f.values[p]) < 2 {
			f.values[p][v] = true
		}
	}
	return f
}

// everyParameterVaried reports whether the failures took two values or more of every
// parameter the space varies: then no one parameter value explains them.
func (f *failureRun) everyParameterVaried(sp *space.Space) bool {
	for p, param := range sp.Params() {
		if len(param.Values) > 1 && len(f.values[p]) < 2 {
			return false
		}
	}
	return true
}

func (r *resumingEvaluator) evaluate(ctx context.Context, c space.Config) (result.Evaluation, error) {
	vals := r.sp.Values(c)
	if e, ok := r.known[store.ConfigKey(vals)]; ok {
		return e, nil
	}
	start := time.Now()
	e, err := r.inner.Evaluate(ctx, c)
	if err == nil {
		r.measured[store.ConfigKey(vals)] = true
	}
	e.Config = vals
	// The framework overhead as the tuner sees it: everything but compiling, verifying and
	// running the kernel (process hand-over, argument set-up, copies), and but the time
	// this process was stopped (a batch scheduler's suspend) or spent on a measurement the
	// supervisor repeated for such a stop.
	wall := float64((time.Since(start) - r.inner.Discounted()).Nanoseconds()) / 1e6
	e.FrameworkMS = max(wall-e.CompileMS-e.VerifyMS-e.BenchmarkMS, 0)
	return e, err
}

// sameFailure is a stop condition: StopSameFailure once the configurations evaluated
// from the first (the default configuration included), at least sameFailures of them,
// all failed with one message (compile errors, runtime errors and wrong answers; a
// timeout or a device limit belongs to its configuration), and among them every
// parameter took two values or more. A failure that one parameter's value may explain
// (the first value of a parameter a brute-force search varies last, a vector width the
// device lacks) is no fault of the whole spec: tuning goes on.
func (r *resumingEvaluator) sameFailure(tuning.State) tuning.StopReason {
	f := r.failure
	if r.succeeded || f == nil || f.broken || f.n < sameFailures || !f.everyParameterVaried(r.sp) {
		return ""
	}
	return StopSameFailure
}

func (r *resumingEvaluator) Hint(cs ...space.Config) {
	todo := make([]space.Config, 0, len(cs))
	for _, c := range cs {
		if _, ok := r.known[store.ConfigKey(r.sp.Values(c))]; !ok {
			todo = append(todo, c)
		}
	}
	r.inner.Hint(todo...)
}

// storeGrace is how long storing what was measured may still wait for another
// process's write lock (a large import) once the tuning is cancelled (Ctrl-C, SIGTERM):
// the evaluation, and the run's status, are stored if the lock comes free by then, and
// given up otherwise, with a warning; resuming the run measures the evaluation again.
// Without a cancellation a write waits as long as the store lets it (half an hour for
// SQLite), saying so in the log.
var storeGrace = 3 * time.Second

// afterGrace returns the context in which Tune stores what its work under ctx produced:
// it ends grace after ctx ends, once for all the writes after the cancellation, and not
// with the session's own ends (its time limit). Call stop when Tune returns.
func afterGrace(ctx context.Context, grace time.Duration) (storeCtx context.Context, stop context.CancelFunc) {
	g, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stopAfter := context.AfterFunc(ctx, func() { time.AfterFunc(grace, cancel) })
	return g, func() { stopAfter(); cancel() }
}

// storeSink commits each new evaluation to the store as soon as it is measured and keeps
// the best for progress.
type storeSink struct {
	ctx      context.Context // for writing (afterGrace)
	st       store.Store
	log      *slog.Logger
	run      int64
	known    map[string]result.Evaluation
	maximize bool
	best     *result.Evaluation
	// check, when set, is called before each evaluation is stored: an error (the run's
	// lock is lost) stops the run
	check func() error
}

func (s *storeSink) Record(ctx context.Context, e result.Evaluation) error {
	s.consider(e)
	if s.check != nil {
		if err := s.check(); err != nil {
			return err
		}
	}
	if _, old := s.known[store.ConfigKey(e.Config)]; old {
		return nil
	}
	// Committed even when the run is being cancelled, it was measured; unless another
	// process keeps the database's write lock past storeGrace.
	err := s.st.AddEvaluation(s.ctx, s.run, e)
	if err != nil && s.ctx.Err() != nil {
		s.log.Warn("interrupted while another process held the database's write lock: this evaluation was measured but not stored; resuming the run measures it again",
			"run", s.run, "config", store.ConfigKey(e.Config), "waited after the interrupt", storeGrace)
	}
	return err
}

// consider keeps e when it is the best so far.
func (s *storeSink) consider(e result.Evaluation) {
	if !e.Failed() && (s.best == nil || (s.maximize && e.Objective > s.best.Objective) || (!s.maximize && e.Objective < s.best.Objective)) {
		b := e
		s.best = &b
	}
}
