// Package tuning runs a search: a Session stands between a strategy and an evaluator (a
// device backend or the simulator), enforces the budget and stop conditions, answers
// repeated configurations from its cache, converts objectives into the fitness strategies
// minimise, keeps the time, and streams every evaluation to a Sink as it is made.
//
// A session drives its strategy in one of two ways. Run calls the strategy on the
// caller's goroutine and evaluates each configuration with the session's Evaluator:
// offline tuning and simulation. Ask and Tell hand configurations out one at a time and
// take their evaluations back, for callers that evaluate themselves (an application tuning
// its kernels as it runs, a service); the blocking strategy then runs on a goroutine of its
// own, which Close stops. Told what an Evaluator would return, a session makes the same
// run as Run with that Evaluator and seed. One configuration is out at a time, as a
// strategy asks for one evaluation and waits for its fitness: Tell it before the next Ask
// (an Ask before that, or beside another Ask, is an error, as is a second Tell of it), so
// evaluating several configurations at once takes a session (a search of its own) for
// each.
//
// A session keeps the time its strategy spends choosing each configuration (Kernel
// Tuner's strategy_time) with the configuration's evaluation, as Evaluation.StrategyMS:
// the wall time from when the strategy got the previous new evaluation's fitness (or the
// session began) to when it asked for this configuration. Repeats it asks for in between,
// which the cache answers, count as choosing.
package tuning

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"math/rand/v2"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/strategy"
)

// Evaluator measures configurations. A configuration that fails (does not compile, crashes,
// times out, gives a wrong answer) is a result with a failed Status, not an error: an error
// means the evaluator itself broke, and ends the session.
type Evaluator interface {
	Evaluate(ctx context.Context, c space.Config) (result.Evaluation, error)
}

// Simulated is implemented by evaluators that replay measurements instead of making them.
// The session then keeps time on a simulated clock that each evaluation advances by its
// Cost, instead of the wall clock, so that time limits can be simulated reproducibly.
type Simulated interface {
	Cost(e result.Evaluation) time.Duration
}

// Sink receives every new evaluation of a session as soon as it is made, so results are
// durable the moment they are measured; the results store is adapted to it (ExampleSink). An error ends
// the session.
type Sink interface {
	Record(ctx context.Context, e result.Evaluation) error
}

// ErrDone is what Ask and Tell return once the session is over; Summary says why.
var ErrDone = errors.New("tuning session is over")

// errStarted is Start's or Run's error on a session that has started already.
var errStarted = errors.New("tuning: session already started; a session runs once")

// Evaluated is one new evaluation of a session, in the order they were made.
type Evaluated struct {
	Config     space.Config      // the configuration, as indices into the space's values
	Evaluation result.Evaluation // as the evaluator returned it (Config filled in when it was nil)
	Fitness    float64           // what the strategy saw: the objective, negated when maximising; +Inf when failed
	Elapsed    time.Duration     // the session's clock when the evaluation completed
}

// Summary is what a session found and how it ended.
type Summary struct {
	Strategy      string        // the strategy's name
	Seed          uint64        // the seed that reproduces the session
	Best          space.Config  // best configuration found; nil when none succeeded
	BestObjective float64       // its objective (with NoCache, the mean of its measurements); NaN when none succeeded
	Evaluations   int           // evaluations counted against the budget
	Free          int           // evaluations that cost no budget (Options.Free)
	Distinct      int           // distinct configurations evaluated
	Requests      int           // configurations the strategy asked for, repeats included
	Elapsed       time.Duration // on the session's clock: simulated or wall
	Simulated     bool          // whether Elapsed is simulated time
	Wall          time.Duration // real time the session took, from Options.Since when set
	Stop          StopReason    // why it ended; "" while it runs
	History       []Evaluated   // every new evaluation, in order; nil with Options.BriefSummary
}

// Session is one search of one space by one strategy. It is used once: either Run, or
// Ask and Tell until they return ErrDone. Its methods must not be called concurrently,
// except Summary, Err and Close; Ask and Tell may be called from different goroutines
// one after the other (an Ask on one, the Tell of its configuration on a worker). Asks
// or Tells that overlap anyway get an error, not a second configuration or a second
// record.
type Session struct {
	sp   *space.Space
	st   strategy.Strategy
	ev   Evaluator
	sim  Simulated // ev as a Simulated, when it is one
	opts Options
	rng  *rand.Rand
	log  *slog.Logger

	mu         sync.Mutex
	started    bool
	finished   bool
	closed     bool // Close was called: cancellation is the caller's wish, not an error
	begun, end time.Time
	clock0     time.Time // when the wall clock started: begun, or Options.Since before it
	// answered is when the strategy last got a new evaluation's fitness (begun before the
	// first), and choosing how long it then took to ask for the configuration being
	// evaluated: its evaluation's StrategyMS.
	answered   time.Time
	choosing   time.Duration
	simElapsed time.Duration
	cache      map[int]int32 // space index -> first entry in history
	history    []Evaluated
	configs    []int // the block the history's configurations are copied into (keep)
	// unread: nothing outside the session reads its evaluations (a brief summary, no
	// sink), so their values are not checked against the configurations and the
	// strategy's time choosing each is not measured: a simulated evaluation costs well
	// under a microsecond, and those took a quarter of it
	unread bool
	best   int // entry in history; -1 when none succeeded
	// With NoCache a configuration may be measured several times: noisy judges the best
	// (measured.go), and best is then the configuration's first entry in history.
	noisy    *measurements
	evals    int
	free     int // evaluations that cost no budget (Options.Free)
	requests int
	stop     StopReason
	stopAt   int // evals when a built-in condition set stop: a caller's condition may say more
	err      error

	runCancel context.CancelFunc // ends Run's context: Close stops Run as it stops Ask/Tell
	at        *askTell           // set by Start
}

// New prepares a session of strategy st over sp. ev evaluates configurations for Run; it
// may be nil for a session driven by Ask and Tell, whose clock is then the wall clock
// unless ev is Simulated. Options of st that do not fit sp or the budget (strategy.Check)
// are an error here, before anything is evaluated.
func New(sp *space.Space, st strategy.Strategy, ev Evaluator, opts Options) (*Session, error) {
	switch {
	case sp == nil:
		return nil, errors.New("tuning: no space")
	case st == nil:
		return nil, errors.New("tuning: no strategy")
	case opts.Budget < 0:
		return nil, fmt.Errorf("tuning: negative budget %d", opts.Budget)
	case opts.TimeLimit < 0:
		return nil, fmt.Errorf("tuning: negative time limit %v", opts.TimeLimit)
	}
	// options that name what sp lacks fail here, not as the run's first step
	if err := strategy.Check(st, sp, opts.Budget); err != nil {
		return nil, err
	}
	for i, e := range opts.Measured {
		if err := checkStatus(e.Status); err != nil {
			return nil, fmt.Errorf("tuning: Options.Measured[%d] (%v): %w", i, e.Config, err)
		}
	}
	s := &Session{sp: sp, st: st, ev: ev, opts: opts, best: -1, log: opts.Logger,
		unread: opts.BriefSummary && opts.Sink == nil}
	if s.log == nil {
		s.log = slog.Default()
	}
	s.sim, _ = ev.(Simulated)
	s.rng = rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x9e3779b97f4a7c15))
	hint := sp.Len()
	if opts.Budget > 0 {
		hint = min(hint, opts.Budget)
	}
	hint = min(hint, 1<<16)
	s.cache = make(map[int]int32, hint)
	s.history = make([]Evaluated, 0, hint)
	return s, nil
}

// Run drives the strategy to the end, evaluating with the session's evaluator, and
// returns what it found. The error is the evaluator's, the sink's or the strategy's when
// one failed, the context's when it was cancelled; the summary is valid in every case.
func (s *Session) Run(ctx context.Context) (Summary, error) {
	if s.ev == nil {
		return s.Summary(), errors.New("tuning: Run needs an evaluator")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if err := s.begin(nil); err != nil {
		return s.Summary(), err
	}
	s.mu.Lock()
	closed := s.closed
	s.runCancel = cancel
	s.mu.Unlock()
	if closed { // closed between begin and here
		cancel()
	}
	// A strategy that panics ends the session with an error, as on the ask/tell path: in a
	// benchmark it would otherwise take every other run down with it.
	err := s.afterPreload()
	if err == nil {
		err = runGuarded(ctx, s.st, s.problem(s.measure))
	}
	s.finish(err)
	return s.Summary(), s.Err()
}

// afterPreload checks the caller's stop conditions on what Options.Measured brought in.
func (s *Session) afterPreload() error {
	if len(s.opts.Measured) == 0 {
		return nil
	}
	s.mu.Lock()
	st := s.stateLocked()
	s.mu.Unlock()
	return s.callerStop(st)
}

func (s *Session) begin(at *askTell) error {
	s.mu.Lock()
	switch {
	case s.closed:
		s.mu.Unlock()
		return errors.New("tuning: session closed")
	case s.started:
		s.mu.Unlock()
		return errStarted
	}
	s.at = at // with started, so that an Ask sees both or neither
	s.started, s.begun = true, time.Now()
	s.answered = s.begun
	s.clock0 = s.begun
	if since := s.opts.Since; !since.IsZero() && since.Before(s.begun) {
		s.clock0 = since
	}
	s.preloadLocked()
	s.mu.Unlock()
	if s.log.Enabled(context.Background(), slog.LevelDebug) {
		s.log.Debug("tuning session start", "strategy", s.st.Name(), "seed", s.opts.Seed,
			"space", s.sp.Len(), "budget", s.opts.Budget, "time_limit", s.opts.TimeLimit, "simulated", s.sim != nil)
	}
	return nil
}

// preloadLocked puts Options.Measured into the history, counted against the budget: of a
// configuration given more than once, the last measurement (all of them with NoCache).
func (s *Session) preloadLocked() {
	type preloaded struct {
		idx int
		c   space.Config
	}
	in := make([]preloaded, len(s.opts.Measured))
	last := make(map[int]int, len(s.opts.Measured)) // space index -> its last entry
	for i, e := range s.opts.Measured {
		in[i].idx = -1
		c, err := s.sp.ConfigOf(e.Config)
		if err != nil {
			continue
		}
		if idx, ok := s.sp.Index(c); ok {
			in[i] = preloaded{idx, c}
			last[idx] = i
		}
	}
	for i, e := range s.opts.Measured {
		if in[i].idx < 0 || last[in[i].idx] != i && !s.opts.NoCache {
			continue
		}
		f := fitnessOf(&e, s.opts.Maximize)
		s.addLocked(in[i].idx, Evaluated{Config: in[i].c, Evaluation: e, Fitness: f})
	}
}

// addLocked puts a new evaluation into the history, the cache and the count of evaluations,
// updates the best, and checks the built-in stop conditions; the caller then checks its
// own (callerStop) once it has released the lock.
func (s *Session) addLocked(idx int, ev Evaluated) {
	h := len(s.history)
	s.history = append(s.history, ev)
	if _, seen := s.cache[idx]; !seen {
		s.cache[idx] = int32(h)
	}
	if s.opts.Free != nil && s.opts.Free(ev.Evaluation) {
		s.free++
	} else {
		s.evals++
	}
	if s.opts.NoCache {
		if s.noisy == nil {
			s.noisy = newMeasurements()
		}
		s.best = s.noisy.add(idx, h, ev.Fitness, ev.Evaluation.Objective)
	} else if !math.IsInf(ev.Fitness, 1) && (s.best < 0 || ev.Fitness < s.history[s.best].Fitness) {
		s.best = h
	}
	if s.stop == "" {
		if s.stop = s.checkLocked(); s.stop != "" {
			s.stopAt = s.evals
		}
	}
}

// finish classifies how the strategy ended, unless an evaluator or sink error already did.
func (s *Session) finish(err error) {
	s.mu.Lock()
	s.finished, s.end = true, time.Now()
	switch {
	case s.err != nil:
		s.stop = StopError
	case err == nil || errors.Is(err, strategy.ErrStop):
		if s.stop == "" {
			s.stop = StopFinished
		}
	case s.closed && errors.Is(err, context.Canceled):
		s.stop = StopCancelled
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		s.stop, s.err = StopCancelled, err
	default:
		s.stop, s.err = StopError, fmt.Errorf("strategy %s: %w", s.st.Name(), err)
	}
	stop, evals, elapsed, ended := s.stop, s.evals, s.elapsedLocked(), s.err
	s.mu.Unlock()
	if s.log.Enabled(context.Background(), slog.LevelDebug) {
		s.log.Debug("tuning session end", "strategy", s.st.Name(), "stop", string(stop),
			"evaluations", evals, "elapsed", elapsed, "error", ended)
	}
}

// fail ends the session because the evaluator or the sink broke.
func (s *Session) fail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.stop, s.err = StopError, err
	}
}

// Err returns the error that ended the session, if any.
func (s *Session) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Summary returns the session's state: final once Run has returned or Ask has returned
// ErrDone, a snapshot before that. It is the caller's own copy: changing it changes
// nothing in the session.
func (s *Session) Summary() Summary {
	s.mu.Lock()
	defer s.mu.Unlock()
	// The copies of every evaluation's configuration, values and samples share one array
	// of each kind (each slice capped at its own end): three allocations, not three per
	// evaluation, for a summary that every simulated run makes.
	var nConfig, nValues, nSamples int
	hist := s.history
	if s.opts.BriefSummary {
		hist = nil
	}
	for _, h := range hist {
		nConfig += len(h.Config)
		nValues += len(h.Evaluation.Config)
		nSamples += len(h.Evaluation.Samples)
	}
	configs := make([]int, 0, nConfig)
	values := make([]space.Value, 0, nValues)
	samples := make([]float64, 0, nSamples)
	var history []Evaluated
	if !s.opts.BriefSummary {
		history = make([]Evaluated, len(s.history))
	}
	for i, h := range hist {
		h.Config = carve(&configs, h.Config)
		h.Evaluation.Config = carve(&values, h.Evaluation.Config)
		h.Evaluation.Samples = carve(&samples, h.Evaluation.Samples)
		h.Evaluation.Metrics = maps.Clone(h.Evaluation.Metrics)
		history[i] = h
	}
	sum := Summary{
		Strategy:      s.st.Name(),
		Seed:          s.opts.Seed,
		BestObjective: math.NaN(),
		Evaluations:   s.evals,
		Free:          s.free,
		Distinct:      len(s.cache),
		Requests:      s.requests,
		Elapsed:       s.elapsedLocked(),
		Simulated:     s.sim != nil,
		Wall:          s.wallLocked(),
		Stop:          s.stop,
		History:       history,
	}
	if s.best >= 0 {
		sum.Best = s.history[s.best].Config.Clone()
		sum.BestObjective = s.bestObjectiveLocked()
	}
	return sum
}

func (s *Session) wallLocked() time.Duration {
	switch {
	case !s.started:
		return 0
	case s.finished:
		return s.end.Sub(s.clock0)
	}
	return time.Since(s.clock0)
}

// elapsedLocked is the session's clock.
func (s *Session) elapsedLocked() time.Duration {
	if s.sim != nil {
		return s.simElapsed
	}
	return s.wallLocked()
}

// prepare does everything an evaluation request needs before anything is measured: it
// refuses requests once the session is over, validates c, answers repeats from the cache
// (hit is true then), checks the time limit and keeps how long the strategy took to ask
// for c, which it did at asked.
func (s *Session) prepare(ctx context.Context, c space.Config, asked time.Time) (idx int, fitness float64, hit bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stop != "" {
		return 0, math.NaN(), false, strategy.ErrStop
	}
	if err := ctx.Err(); err != nil {
		return 0, math.NaN(), false, err
	}
	idx, ok := s.sp.Index(c)
	if !ok {
		return 0, math.NaN(), false, fmt.Errorf("tuning: strategy %s asked for %v, which is not a configuration of the space", s.st.Name(), c)
	}
	s.requests++
	if h, seen := s.cache[idx]; seen && !s.opts.NoCache {
		return idx, s.history[h].Fitness, true, nil
	}
	if s.opts.TimeLimit > 0 && s.elapsedLocked() >= s.opts.TimeLimit {
		s.stop = StopTime
		return 0, math.NaN(), false, strategy.ErrStop
	}
	if !asked.IsZero() {
		s.choosing = asked.Sub(s.answered)
	}
	return idx, 0, false, nil
}

// answer notes that the strategy got a new evaluation's fitness: its time choosing the
// next configuration starts.
func (s *Session) answer() {
	if s.unread {
		return
	}
	s.mu.Lock()
	s.answered = time.Now()
	s.mu.Unlock()
}

// measure evaluates c with the session's evaluator: the Run path. On the wall clock the
// time limit also bounds the evaluation in progress: a configuration still compiling or
// running when the limit passes is abandoned (the evaluator's context ends), so a session
// ends close to its limit however long its configurations take.
func (s *Session) measure(ctx context.Context, idx int, c space.Config) (float64, error) {
	evalCtx := ctx
	if s.sim == nil && s.opts.TimeLimit > 0 {
		var cancel context.CancelFunc
		evalCtx, cancel = context.WithDeadline(ctx, s.clock0.Add(s.opts.TimeLimit))
		defer cancel()
	}
	e, err := s.ev.Evaluate(evalCtx, c)
	if err != nil {
		if ctx.Err() != nil {
			return math.NaN(), ctx.Err()
		}
		if evalCtx.Err() != nil {
			s.mu.Lock()
			if s.stop == "" {
				s.stop = StopTime
			}
			s.mu.Unlock()
			return math.NaN(), strategy.ErrStop
		}
		err = fmt.Errorf("evaluate %s: %w", s.sp.Format(c), err)
		s.fail(err)
		return math.NaN(), err
	}
	if !s.unread {
		if err := s.sameValues(c, e.Config); err != nil {
			err = fmt.Errorf("evaluator: %w", err)
			s.fail(err)
			return math.NaN(), err
		}
	}
	if err := checkStatus(e.Status); err != nil {
		err = fmt.Errorf("evaluator: evaluation of %s: %w", s.sp.Format(c), err)
		s.fail(err)
		return math.NaN(), err
	}
	return s.record(ctx, idx, c, e)
}

// checkStatus refuses a status that is none of result's (result.Status(99)): stored, it
// would read as a failure nobody can name, status(99), in every report and export.
func checkStatus(st result.Status) error {
	if st.Valid() {
		return nil
	}
	var names []string
	for s := result.Status(0); s.Valid(); s++ {
		names = append(names, s.String())
	}
	return fmt.Errorf("status %d is not an evaluation status (want one of result.OK ... result.DeviceLimit: %s)", uint8(st), strings.Join(names, ", "))
}

// sameValues checks an evaluation's values (nil: not given) against those of the
// configuration it evaluates, so that no other configuration is stored for it.
func (s *Session) sameValues(c space.Config, values []space.Value) error {
	if values == nil {
		return nil
	}
	same := s.sp.HasValues(c, values)
	if !same {
		return fmt.Errorf("the evaluation's values %v are not those of the configuration evaluated, %s", values, s.sp.Format(c))
	}
	return nil
}

// record adds a new evaluation to the session: clock, history, cache, best, stop
// conditions, then sink and progress.
func (s *Session) record(ctx context.Context, idx int, c space.Config, e result.Evaluation) (float64, error) {
	f := fitnessOf(&e, s.opts.Maximize)
	if e.Config == nil {
		e.Config = s.sp.Values(c)
	}
	s.mu.Lock()
	if s.finished {
		// a Tell that Close overtook (Run records before it finishes): the summary is final
		s.mu.Unlock()
		return math.NaN(), ErrDone
	}
	e.StrategyMS = float64(s.choosing.Nanoseconds()) / 1e6
	if s.sim != nil {
		s.simElapsed = advance(s.simElapsed, s.sim.Cost(e))
	}
	s.addLocked(idx, Evaluated{Config: s.keep(c), Evaluation: e, Fitness: f, Elapsed: s.elapsedLocked()})
	p := Progress{Evaluations: s.evals, Budget: s.opts.Budget, Best: s.bestObjectiveLocked(),
		Elapsed: s.elapsedLocked(), TimeLimit: s.opts.TimeLimit}
	var st State
	if len(s.opts.Stop) > 0 {
		st = s.stateLocked()
	}
	s.mu.Unlock()

	if s.log.Enabled(ctx, slog.LevelDebug) {
		s.log.DebugContext(ctx, "evaluation", "n", p.Evaluations, "config", s.sp.Format(c),
			"status", e.Status.String(), "objective", e.Objective, "best", p.Best)
	}
	// The sink before the stop conditions: an evaluation is durable the moment it is made,
	// and in the order it was made, also when a stop condition takes time or makes
	// evaluations of its own (the tuner's draws from the space on one failure), which
	// would otherwise be stored ahead of it, or alone when the process dies meanwhile.
	if s.opts.Sink != nil {
		var err error
		if perr := guard("Options.Sink", func() { err = s.opts.Sink.Record(ctx, e) }); perr != nil {
			err = perr
		}
		if err != nil {
			err = fmt.Errorf("record evaluation of %s: %w", s.sp.Format(c), err)
			s.fail(err)
			return math.NaN(), err
		}
	}
	if err := s.callerStop(st); err != nil {
		return math.NaN(), err
	}
	if s.opts.Progress != nil {
		if err := guard("Options.Progress", func() { s.opts.Progress(p) }); err != nil {
			s.fail(err)
			return math.NaN(), err
		}
	}
	return f, nil
}

// keep returns the history's own copy of c (a strategy may reuse its configurations),
// cut from a block shared with the copies before it: one allocation per 256 evaluations,
// not one each. Called with s.mu held.
func (s *Session) keep(c space.Config) space.Config {
	if cap(s.configs)-len(s.configs) < len(c) {
		s.configs = make([]int, 0, 256*max(len(c), 1))
	}
	return carve(&s.configs, c)
}

// carve appends x to *block and returns that copy of x, capped at its own end so that
// appending to it cannot write over what follows; nil for nil x.
func carve[S ~[]E, E any](block *[]E, x S) S {
	if x == nil {
		return nil
	}
	at := len(*block)
	*block = append(*block, x...)
	return S((*block)[at:len(*block):len(*block)])
}

// advance is the simulated clock at elapsed moved on by an evaluation's cost: never back
// (a negative cost counts as none), and at most the largest time.Duration, where a sum
// would wrap round to a negative time that no time limit is ever reached by.
func advance(elapsed, cost time.Duration) time.Duration {
	if cost <= 0 {
		return elapsed
	}
	if elapsed > math.MaxInt64-cost {
		return math.MaxInt64
	}
	return elapsed + cost
}

// guard calls f, a function of the caller's, and turns a panic in it into an error naming
// what panicked (not the strategy, which called nothing wrong).
func guard(what string, f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("tuning: %s panicked: %v\n%s", what, r, debug.Stack())
		}
	}()
	f()
	return nil
}

// callerStop runs the caller's stop conditions (Options.Stop) on st, outside the session's
// lock, so that a condition may read the session (Summary) and a panic in one leaves the
// session usable: it ends the session with an error. The first reason given ends the
// session, in place of a built-in reason reached by the same evaluation (it says more
// than the budget running out).
func (s *Session) callerStop(st State) error {
	if len(s.opts.Stop) == 0 {
		return nil
	}
	var reason StopReason
	err := guard("a stop condition (Options.Stop)", func() {
		for _, cond := range s.opts.Stop {
			if cond == nil {
				continue
			}
			if reason = cond(st); reason != "" {
				return
			}
		}
	})
	if err != nil {
		s.fail(err)
		return err
	}
	if reason != "" {
		s.mu.Lock()
		if s.stop == "" || s.stopAt == st.Evaluations && s.err == nil {
			s.stop = reason
		}
		s.mu.Unlock()
	}
	return nil
}

func fitnessOf(e *result.Evaluation, maximize bool) float64 {
	if e.Status == result.OK && (math.IsNaN(e.Objective) || math.IsInf(e.Objective, 0)) {
		// "ok" without an objective value is a failure: stored as one, so that the
		// store, exports and reports do not count it as a success
		e.Status = result.RuntimeError
		if e.Message == "" {
			e.Message = fmt.Sprintf("no usable objective value (%v)", e.Objective)
		}
	}
	if e.Status != result.OK {
		// a failure has no objective (result.Evaluation's contract): a value told with
		// one would be stored, exported and read back as if it had been measured
		e.Objective = math.NaN()
	}
	switch {
	case e.Failed():
		return math.Inf(1)
	case maximize:
		return -e.Objective
	}
	return e.Objective
}

func (s *Session) bestObjectiveLocked() float64 {
	if s.best < 0 {
		return math.NaN()
	}
	if s.opts.NoCache {
		return s.noisy.bestObjective()
	}
	return s.history[s.best].Evaluation.Objective
}

// stateLocked is what stop conditions see.
func (s *Session) stateLocked() State {
	st := State{
		Evaluations: s.evals,
		Distinct:    len(s.cache),
		SpaceLen:    s.sp.Len(),
		Elapsed:     s.elapsedLocked(),
		Best:        s.bestObjectiveLocked(),
		Maximize:    s.opts.Maximize,
	}
	if s.best >= 0 {
		st.BestConfig = s.history[s.best].Config
	}
	return st
}

// checkLocked returns the first built-in stop condition that holds after an evaluation.
func (s *Session) checkLocked() StopReason {
	switch {
	case s.opts.Budget > 0 && s.evals >= s.opts.Budget:
		return StopBudget
	case !s.opts.NoCache && len(s.cache) >= s.sp.Len():
		return StopExhausted
	case s.opts.TimeLimit > 0 && s.elapsedLocked() >= s.opts.TimeLimit:
		return StopTime
	}
	return ""
}

// problem is the strategy's view of a session; eval makes a new evaluation either by
// calling the evaluator (Run) or by handing the configuration to Ask (ask/tell).
// problem returns what the strategy sees; it takes hints only when the evaluator does,
// so strategies do not prepare hints nobody reads.
func (s *Session) problem(eval func(ctx context.Context, idx int, c space.Config) (float64, error)) strategy.Problem {
	p := &problem{s: s, eval: eval}
	if h, ok := s.ev.(strategy.Hinter); ok {
		return hintingProblem{p, h}
	}
	return p
}

// hintingProblem forwards a strategy's hints to the evaluator (a device pipeline that
// compiles ahead).
type hintingProblem struct {
	*problem
	h strategy.Hinter
}

func (p hintingProblem) Hint(upcoming ...space.Config) { p.h.Hint(upcoming...) }

type problem struct {
	s    *Session
	eval func(ctx context.Context, idx int, c space.Config) (float64, error)
}

func (p *problem) Space() *space.Space { return p.s.sp }
func (p *problem) Rand() *rand.Rand    { return p.s.rng }
func (p *problem) Budget() int         { return p.s.opts.Budget }

func (p *problem) Remaining() int {
	s := p.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stop != "" {
		return 0
	}
	r := math.MaxInt
	if s.opts.Budget > 0 {
		r = s.opts.Budget - s.evals
	}
	if !s.opts.NoCache {
		r = min(r, s.sp.Len()-len(s.cache))
	}
	return r
}

// Measured returns the evaluation of c the session holds (its first, under NoCache), for
// strategies that read what an evaluation measured beside its fitness
// (strategy.Measurements: the profile-based searcher's counters).
func (p *problem) Measured(c space.Config) (result.Evaluation, bool) {
	s := p.s
	idx, ok := s.sp.Index(c)
	if !ok {
		return result.Evaluation{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	h, seen := s.cache[idx]
	if !seen {
		return result.Evaluation{}, false
	}
	return s.history[h].Evaluation, true
}

func (p *problem) Evaluate(ctx context.Context, c space.Config) (float64, error) {
	var asked time.Time
	if !p.s.unread {
		asked = time.Now()
	}
	idx, f, hit, err := p.s.prepare(ctx, c, asked)
	if err != nil || hit {
		return f, err
	}
	f, err = p.eval(ctx, idx, c)
	p.s.answer()
	return f, err
}

// askTell is the coroutine inversion: the strategy runs on its own goroutine and each
// new evaluation it needs travels to Ask over asks; Tell sends the fitness back.
type askTell struct {
	ctx     context.Context // the strategy's; cancelled by Close
	cancel  context.CancelFunc
	asks    chan question
	replies chan answer
	done    chan struct{} // closed when the strategy has returned and the session is final
	pending *question     // asked and not yet told; under Session.mu
	asking  bool          // an Ask is waiting for the strategy; under Session.mu
}

type question struct {
	c   space.Config // the strategy's buffer until Ask takes it, then Ask's own copy
	idx int
}

type answer struct {
	fitness float64
	err     error
}

// Start runs the strategy on its own goroutine for Ask and Tell; ctx bounds its whole
// life. Ask calls Start with context.Background when it has not been called.
func (s *Session) Start(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	at := &askTell{ctx: ctx, cancel: cancel, asks: make(chan question), replies: make(chan answer), done: make(chan struct{})}
	if err := s.begin(at); err != nil {
		cancel()
		return err
	}
	go func() {
		defer close(at.done)
		defer cancel()
		err := s.afterPreload()
		if err == nil {
			err = runGuarded(ctx, s.st, s.problem(s.handover))
		}
		s.finish(err)
	}()
	return nil
}

// runGuarded runs a strategy and turns a panic in it into an error with its stack: on the
// ask/tell goroutine a panic would take the whole program down, and in Run (a benchmark's
// worker goroutine) every other run with it.
func runGuarded(ctx context.Context, st strategy.Strategy, p strategy.Problem) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v\n%s", r, debug.Stack())
		}
	}()
	return st.Run(ctx, p)
}

// handover passes c to Ask and waits for Tell: the ask/tell path of a new evaluation.
func (s *Session) handover(ctx context.Context, idx int, c space.Config) (float64, error) {
	at := s.at
	select {
	case at.asks <- question{c: c, idx: idx}:
	case <-ctx.Done():
		return math.NaN(), ctx.Err()
	}
	select {
	case a := <-at.replies:
		return a.fitness, a.err
	case <-ctx.Done():
		return math.NaN(), ctx.Err()
	}
}

// Ask returns the next configuration to evaluate; report its evaluation with Tell before
// asking again. Repeats are answered from the cache without reaching Ask (with
// Options.NoCache they reach it, each to be measured anew). Once the session
// is over Ask returns ErrDone, or the error that ended it. ctx bounds this call only: an
// Ask whose ctx is done returns ctx's error and hands nothing out, and the strategy keeps
// its configuration for the next Ask. Ask also checks the time limit, as the evaluation
// of what it hands out starts then: once it has passed Ask returns ErrDone (StopTime),
// however long ago the strategy chose its next configuration.
func (s *Session) Ask(ctx context.Context) (space.Config, error) {
	s.mu.Lock()
	at, started := s.at, s.started
	s.mu.Unlock()
	if !started {
		// an Ask beside this one may start it first
		if err := s.Start(context.Background()); err != nil && !errors.Is(err, errStarted) {
			return nil, err
		}
		s.mu.Lock()
		at = s.at
		s.mu.Unlock()
	}
	if at == nil {
		if s.stopped() {
			return nil, ErrDone
		}
		return nil, errors.New("tuning: Ask on a session driven by Run")
	}
	select {
	case <-at.done:
		return nil, s.doneErr()
	default:
	}
	// A cancelled ctx would otherwise lose a select against a configuration the strategy
	// has ready about half the time, and hand it out to a caller that has given up.
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := s.claimAsk(at); err != nil {
		return nil, err
	}
	defer func() {
		s.mu.Lock()
		at.asking = false
		s.mu.Unlock()
	}()
	select {
	case q := <-at.asks:
		if s.timeUp() {
			// The strategy chose q before the limit passed, but its evaluation would start
			// now: refuse it, as Run refuses an evaluation that would start late.
			select {
			case at.replies <- answer{fitness: math.NaN(), err: strategy.ErrStop}:
			case <-at.done:
			}
			<-at.done
			return nil, s.doneErr()
		}
		// What is pending holds its own copy: the strategy reuses its buffer once a Tell
		// has answered it, while a Tell racing that one may still read the pending one.
		q.c = q.c.Clone()
		s.mu.Lock()
		at.pending = &q
		s.mu.Unlock()
		return q.c.Clone(), nil
	case <-at.done:
		return nil, s.doneErr()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Tell reports the evaluation of the configuration Ask returned last. A failed
// configuration is an evaluation with a failed Status, as from an Evaluator; an OK one
// whose objective is NaN or infinite is recorded as a runtime error saying so. e.Config
// may be left nil: Tell fills in the configuration's values; where it is set, it must
// hold those values. Tell refuses an evaluation with other values, or with a Status that
// is not one of result's (result.Status.Valid), and the configuration is then still to
// be told. The session keeps its own copy of e: the caller may reuse e's slices, map and
// Launch for the next Tell. Tell returns the sink's error when recording it failed, and
// ErrDone, recording nothing, when the session ended first (Close from another goroutine).
func (s *Session) Tell(c space.Config, e result.Evaluation) error {
	s.mu.Lock()
	at := s.at
	var pending *question
	if at != nil {
		pending = at.pending
	}
	s.mu.Unlock()
	if pending == nil {
		if s.stopped() {
			return s.doneErr() // the session is over: nothing was asked
		}
		return errors.New("tuning: Tell without a configuration asked")
	}
	q := *pending
	if !slices.Equal(c, q.c) {
		return fmt.Errorf("tuning: Tell for %s, but the configuration asked is %s", tellName(s.sp, c), s.sp.Format(q.c))
	}
	if err := s.sameValues(q.c, e.Config); err != nil {
		return fmt.Errorf("tuning: Tell: %w", err)
	}
	if err := checkStatus(e.Status); err != nil {
		return fmt.Errorf("tuning: Tell %s: %w", s.sp.Format(q.c), err)
	}
	s.mu.Lock()
	told := at.pending == pending
	if told {
		at.pending = nil
	}
	s.mu.Unlock()
	if !told {
		return fmt.Errorf("tuning: Tell of %s, which another Tell told at the same time: a session hands out one configuration at a time, to be told once", s.sp.Format(q.c))
	}
	select {
	case <-at.done:
		return s.doneErr()
	default:
	}
	// the history's own copy: a caller may fill the same buffers for its next Tell
	e.Config, e.Samples, e.Metrics = slices.Clone(e.Config), slices.Clone(e.Samples), maps.Clone(e.Metrics)
	if e.Launch != nil {
		l := *e.Launch
		e.Launch = &l
	}
	f, err := s.record(at.ctx, q.idx, q.c, e)
	select {
	case at.replies <- answer{fitness: f, err: err}:
	case <-at.done: // closed meanwhile
	}
	return err
}

// claimAsk makes this Ask the one waiting for the strategy's next configuration, or says
// why it cannot be: a configuration is out, or another Ask is waiting beside it.
func (s *Session) claimAsk(at *askTell) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case at.pending != nil:
		return fmt.Errorf("tuning: Ask before Tell of %s, the configuration asked last: a session hands out one configuration at a time (evaluate in parallel with a session each)", s.sp.Format(at.pending.c))
	case at.asking:
		return errors.New("tuning: Ask while another Ask is waiting: a session hands out one configuration at a time (evaluate in parallel with a session each)")
	}
	at.asking = true
	return nil
}

// tellName names the configuration a caller told, which may not be one of the space.
func tellName(sp *space.Space, c space.Config) string {
	if c == nil {
		return "a nil configuration"
	}
	if !sp.Contains(c) {
		return fmt.Sprintf("%v (not a configuration of the space)", []int(c))
	}
	return sp.Format(c)
}

// timeUp reports whether the time limit has passed, and if so ends the session with
// StopTime unless something ended it already.
func (s *Session) timeUp() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.opts.TimeLimit <= 0 || s.elapsedLocked() < s.opts.TimeLimit {
		return false
	}
	if s.stop == "" {
		s.stop = StopTime
		s.stopAt = s.evals
	}
	return true
}

// stopped reports whether the session has ended.
func (s *Session) stopped() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stop != ""
}

func (s *Session) doneErr() error {
	if err := s.Err(); err != nil {
		return err
	}
	return ErrDone
}

// Close ends the session: it stops the strategy's goroutine and waits for it, so nothing is
// left running, and a Run in progress returns soon after (its summary's Stop is
// StopCancelled, with no error). It is safe to call more than once, and from another
// goroutine.
func (s *Session) Close() error {
	s.mu.Lock()
	at := s.at
	s.closed = true
	if s.runCancel != nil {
		s.runCancel()
	}
	if !s.started {
		// Never started: nothing runs, but Ask must not start it later.
		s.started, s.finished, s.stop = true, true, StopCancelled
	}
	s.mu.Unlock()
	if at != nil {
		at.cancel()
		<-at.done
	}
	return nil
}
