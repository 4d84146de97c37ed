package tuner

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/efficiency"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/runner"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/spec"
	"github.com/ktune/ktune/store"
	"github.com/ktune/ktune/tuning"
)

// StopBudgetSpent is why a resumed run that already has its budget's evaluations measures
// nothing (Report.Stop).
const StopBudgetSpent tuning.StopReason = "the budget was spent before this command"

// StopReachedBefore follows a stop condition (Options.Target, WithinPeak) in the report's
// Stop when the run's stored evaluations met it before this command, which measured
// nothing (RunStart.Reached).
const StopReachedBefore = ", reached before this command"

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
	inner *devicePool
	sp    *space.Space
	known map[string]result.Evaluation
	// launch is the launch a configuration is run with (launchOf), which its evaluation
	// keeps; nil for none
	launch func([]space.Value) *result.Launch
	// the failure every evaluation so far had (sameFailure); whether any evaluation
	// succeeded; whether the space was probed for the failure, with what it drew (probes)
	// from rng, measured in ctx and stored through sink
	failure   *failureRun
	succeeded bool
	probed    bool
	probes    []result.Evaluation
	rng       *rand.Rand
	ctx       context.Context
	sink      *storeSink
	log       *slog.Logger
	// budget is the run's (0: none), stored how many evaluations the run had before this
	// command, measured the configurations (keys) this command measured
	budget, stored int
	measured       map[string]bool
	// overLimit says which limit of the device a configuration's values break that is
	// known before compiling (runner.LimitViolation), "" for none; nil checks nothing.
	// Such a configuration is not sent to a worker: it is a device_limit that costs no
	// budget (free), and excluded holds it (by key), this command's and the run's stored
	// ones alike, of which storedFree counts the latter.
	overLimit  func([]space.Value) string
	excluded   map[string]bool
	storedFree int
	// stackNote says that the kernel crashes are on a CPU OpenCL device, whose work-items'
	// private variables share a thread's stack (stackOverflow)
	stackNote bool
}

// crashedAtRandom opens the message of a kernel that crashed with a segmentation fault
// that the worker could not place (no array's guard region, no null pointer).
const crashedAtRandom = "the kernel crashed: SIGSEGV (segmentation fault)"

// stackOverflow is what a kernel's segmentation fault on a CPU OpenCL device may mean,
// besides an access outside its arrays: PoCL runs a work-group's work-items on one
// thread, each with its private variables on that thread's stack, so that a private
// array of 16 KiB in blocks of 1024 needs 16 MiB of it, beyond the usual 8 MiB.
const stackOverflow = "on a CPU OpenCL device (PoCL) that is an access outside the kernel's arrays, or, where it " +
	"has private arrays, a work-group's private variables (their size times the block size) overflowing a thread's " +
	"stack, as large as ktune's stack limit (ulimit -s, often 8 MiB), which a smaller block or a larger ulimit -s avoids"

// runEvaluations is how many evaluations the run has that count against its budget:
// those stored before this command and those it measured, less those over a device limit
// known before compiling (free).
func (r *resumingEvaluator) runEvaluations() int { return r.stored - r.storedFree + len(r.measured) }

// room is how many evaluations the run's budget has left; math.MaxInt with no budget.
func (r *resumingEvaluator) room() int {
	if r.budget == 0 {
		return math.MaxInt
	}
	return max(r.budget-r.runEvaluations(), 0)
}

// free says evaluation e cost no budget: its configuration was refused before compiling,
// over a device limit (overLimit), by this command or by the run before it was resumed.
// It is the session's Options.Free.
func (r *resumingEvaluator) free(e result.Evaluation) bool {
	return e.Status == result.DeviceLimit && r.excluded[store.ConfigKey(e.Config)]
}

// resumeExcluded finds, among a resumed run's stored evaluations, the device_limits that
// the device's limits known before compiling still explain: they cost no budget now as
// they did not when they were recorded (and those recorded by a ktune that counted them
// cost none from now on).
func (r *resumingEvaluator) resumeExcluded(stored []result.Evaluation) {
	if r.overLimit == nil {
		return
	}
	for _, e := range stored {
		if e.Status == result.DeviceLimit && r.overLimit(e.Config) != "" {
			r.excluded[store.ConfigKey(e.Config)] = true
			r.storedFree++
		}
	}
}

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
		r.failure = r.failure.add(e)
	}
	return e, err
}

func (r *resumingEvaluator) evaluate(ctx context.Context, c space.Config) (result.Evaluation, error) {
	vals := r.sp.Values(c)
	key := store.ConfigKey(vals)
	if e, ok := r.known[key]; ok {
		return e, nil
	}
	if r.overLimit != nil {
		if msg := r.overLimit(vals); msg != "" {
			// what the worker's runner would answer before compiling, without a worker
			r.excluded[key] = true
			e := result.Evaluation{Config: vals, Status: result.DeviceLimit, Objective: math.NaN(), Message: msg, Time: time.Now()}
			if r.launch != nil {
				e.Launch = r.launch(vals)
			}
			return e, nil
		}
	}
	r.inner.setRoom(r.room())
	e, wall, err := r.inner.measure(ctx, c)
	if err == nil {
		if len(r.inner.devs) > 1 {
			r.log.Debug("measured", "config", key, "device", e.Device)
		}
		r.measured[store.ConfigKey(vals)] = true
	}
	if r.stackNote && e.Status == result.RuntimeError && strings.HasPrefix(e.Message, crashedAtRandom) &&
		!strings.HasPrefix(e.Message, crashedAtRandom+", touching memory") {
		e.Message += "; " + stackOverflow
	}
	e.Config = vals
	if r.launch != nil {
		e.Launch = r.launch(vals)
	}
	// The framework overhead as the tuner sees it: everything but compiling, verifying and
	// running the kernel (process hand-over, argument set-up, copies), and but the time
	// this process was stopped (a batch scheduler's suspend) or spent on a measurement the
	// supervisor repeated for such a stop.
	// The pool times the measurement on its device, which for one measured ahead of its
	// ask was before the ask.
	wallMS := float64(wall.Nanoseconds()) / 1e6
	e.FrameworkMS = max(wallMS-e.CompileMS-e.VerifyMS-e.BenchmarkMS, 0)
	return e, err
}

// launchOf is the launch each configuration of s is run with, which its evaluation keeps
// whatever became of it (one that did not compile, or crashed, would have been or was
// launched so): the spec's grid and block, as the worker's runner launches them. A C or
// C++ kernel, which the host C backend calls once rather than launching over a grid, has
// none (nil), as has a configuration whose launch the spec cannot compute (its
// evaluation failed for it).
func launchOf(s *spec.Spec) func([]space.Value) *result.Launch {
	if s.Kernel.Language == "c" || s.Kernel.Language == "c++" {
		return nil
	}
	return func(values []space.Value) *result.Launch {
		inst, err := s.Instance(values)
		if err != nil {
			return nil
		}
		return &result.Launch{Grid: inst.Launch.Grid, Block: inst.Launch.Block}
	}
}

// overLimitOf is the check of a configuration's values against the limits of the device
// described by info that are known before compiling (runner.LimitViolation), as the
// worker's runner makes it before compiling: info is the device as the worker opened it
// (worker.Supervisor.DeviceInfo). Values whose instance the spec cannot make are left to
// the worker, which says why.
func overLimitOf(s *spec.Spec, info device.Info) func([]space.Value) string {
	return func(values []space.Value) string {
		inst, err := s.Instance(values)
		if err != nil {
			return ""
		}
		return runner.LimitViolation(info, inst)
	}
}

// failureRun is the failure every evaluation of a run has had so far, from the first.
type failureRun struct {
	status  result.Status
	message string
	n       int
	broken  bool // an evaluation differed: the run has no one failure
}

// add counts evaluation e; f is nil before the first evaluation.
func (f *failureRun) add(e result.Evaluation) *failureRun {
	if f == nil {
		f = &failureRun{status: e.Status, message: e.Message}
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
	return f
}

// resumeFailures takes what a resumed run's stored evaluations say of its failures: a run
// that already had a success, or failures of more than one kind, got past sameFailure's
// check before it was interrupted (its draws, if it made any, are among them). Its
// strategy, starting over, meets its first failures again, and without this the check
// would draw sameFailureProbes more configurations, spending budget the run never
// cancelled does not. A run whose stored evaluations all failed one way is checked as it
// goes, as before.
func (r *resumingEvaluator) resumeFailures(stored []result.Evaluation) {
	var past *failureRun
	for _, e := range stored {
		past = past.add(e)
		r.succeeded = r.succeeded || !e.Failed()
	}
	if past != nil && past.broken {
		r.failure = past
	}
}

// sameFailureProbes is how many configurations drawn from the whole space must fail as
// the first ones did before a run stops (StopSameFailure).
const sameFailureProbes = 5

// sameFailure is a stop condition: StopSameFailure once the first sameFailures
// configurations evaluated (the default configuration included) failed with one message
// (compile errors, runtime errors and wrong answers; a timeout or a device limit belongs
// to its configuration), and so did sameFailureProbes configurations drawn at random from
// the rest of the space. The strategy's first picks may share a parameter value that
// fails (a brute-force search's first value of each parameter, a vector width the device
// lacks): a fault of those values, not of the spec, and the draws tell them apart. The
// draws are measured and stored as the run's evaluations, and count against its budget.
func (r *resumingEvaluator) sameFailure(tuning.State) tuning.StopReason {
	f := r.failure
	if r.succeeded || f == nil || f.broken || f.n < sameFailures {
		return ""
	}
	if !r.probed {
		r.probed = true
		// draws cut short (the time limit, an interrupt) prove nothing: the session ends
		// for what cut them
		if cancelled := r.probe(); cancelled || r.succeeded || f.broken {
			return ""
		}
	}
	return StopSameFailure
}

// probe evaluates up to sameFailureProbes configurations drawn at random from those of
// the space not evaluated yet (fewer when the run's budget has fewer left), in r.ctx (which
// the time limit ends), stores them, and keeps them for the run's summary (probes). It
// reports whether it was cancelled: an evaluation was cut short, and not stored.
func (r *resumingEvaluator) probe() (cancelled bool) {
	n := sameFailureProbes
	if r.budget > 0 {
		n = min(n, r.budget-r.runEvaluations())
	}
	for tries := 0; n > 0 && tries < 20*sameFailureProbes; tries++ {
		c := r.sp.At(r.rng.IntN(r.sp.Len()), nil)
		key := store.ConfigKey(r.sp.Values(c))
		if _, done := r.known[key]; done || r.measured[key] {
			continue
		}
		e, err := r.Evaluate(r.ctx, c)
		if err != nil {
			return true // the session ends on its own
		}
		if err := r.sink.Record(r.ctx, e); err != nil {
			r.log.Warn("an evaluation drawn to tell a faulty spec from faulty configurations was not stored", "error", err)
			return false
		}
		r.known[key] = e
		r.probes = append(r.probes, e)
		if !r.free(e) {
			n--
		}
	}
	return false
}

func (r *resumingEvaluator) Hint(cs ...space.Config) {
	todo := make([]space.Config, 0, len(cs))
	for _, c := range cs {
		vals := r.sp.Values(c)
		if _, ok := r.known[store.ConfigKey(vals)]; ok {
			continue
		}
		if r.overLimit != nil && r.overLimit(vals) != "" {
			continue // never compiled
		}
		todo = append(todo, c)
	}
	r.inner.setRoom(r.room())
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
	// wrong holds the configurations with a wrong_answer evaluation in the run (a check
	// after dynamic tuning, stored before a resume), which are never the best; succeeded
	// the successes, to find the best again when the best's configuration joins it
	wrong     map[string]bool
	succeeded []result.Evaluation
	// watch, when set, is shown every evaluation the run has (Options.WithinPeak)
	watch *efficiency.Watch
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

// consider keeps e when it is the best so far, and shows it to the watch.
func (s *storeSink) consider(e result.Evaluation) {
	if s.watch != nil {
		s.watch.Observe(e)
	}
	key := store.ConfigKey(e.Config)
	if e.Status == result.WrongAnswer && !s.wrong[key] {
		if s.wrong == nil {
			s.wrong = map[string]bool{}
		}
		s.wrong[key] = true
		if s.best != nil && store.ConfigKey(s.best.Config) == key {
			s.best = nil
			for _, o := range s.succeeded {
				s.better(o)
			}
		}
	}
	if !e.Failed() {
		s.succeeded = append(s.succeeded, result.Evaluation{Config: e.Config, Status: e.Status, Objective: e.Objective})
		s.better(e)
	}
}

// better keeps e, a success, as the best when it is better than the best so far and its
// configuration was found wrong nowhere in the run.
func (s *storeSink) better(e result.Evaluation) {
	if s.wrong[store.ConfigKey(e.Config)] {
		return
	}
	if s.best == nil || (s.maximize && e.Objective > s.best.Objective) || (!s.maximize && e.Objective < s.best.Objective) {
		b := e
		s.best = &b
	}
}

// target is Options.Target's stop condition: the run's best (the sink's, stored
// evaluations included) is at least as good as target, in the objective's direction.
func (s *storeSink) target(target float64, objective string) tuning.StopCondition {
	reached := tuning.Target(target)
	bound := "at most"
	if s.maximize {
		bound = "at least"
	}
	unit := ""
	if u := result.Unit(objective); u != objective {
		unit = " " + u
	}
	return func(tuning.State) tuning.StopReason {
		if s.best == nil || reached(tuning.State{Best: s.best.Objective, Maximize: s.maximize}) == "" {
			return ""
		}
		return tuning.StopReason(fmt.Sprintf("target reached: %s %.4g%s (%s %v%s)", objective, s.best.Objective, unit, bound, target, unit))
	}
}
