// Package dynamic tunes a kernel while an application uses it, on the application's own
// data: seed 003's dynamic autotuning (KTT's tuneKernelByStep). Each call of Run is one
// call of the kernel. While tuning, it runs the next configuration the strategy chooses
// on the caller's data, measures it, tells the session, and returns its outputs; once
// tuning has stopped (the budget, the time limit, or a configuration fast enough:
// Options.Target) each call runs the best configuration found. Start is the same call
// without blocking, and Retune starts a new search when the input changes in a way that
// calls for one (seed 003's 3D Fourier reconstruction re-tunes per input size). The
// arrays' lengths are the spec's (its constants): data of another size take a spec of
// that size, and a Tuner each.
//
// The application never receives a wrong answer. During tuning each call also runs the
// known-good configuration (runner.Runner.KnownGood: the configuration the spec's
// reference runs at, which `ktune tune` verifies every other configuration against;
// where the reference is a kernel of its own, the tuned kernel at that configuration,
// trusted as the spec author's first choice) on the same data, and compares the tried
// configuration's outputs with its outputs by the spec's verification (its checks and
// tolerances). The reference configuration, rather than the best so far, is the judge:
// the best has only been seen to agree with it on earlier calls' data, and a
// configuration wrong for some data only (a tile that does not divide the size) would,
// as the judge, pass its own mistakes on. The cost is one more kernel run per tuning
// call, none after tuning. A tried configuration that does not compile, fails at run
// time or disagrees is told to the session as that failure, and the call returns the
// known-good configuration's outputs. After tuning nothing is compared, as in KTT: the
// best agreed with the judge on the call it was tried on, and an error that only other
// data would show goes unseen (a run of the best that fails outright is answered by the
// known-good configuration).
//
// The known-good configuration's first measurement is the session's baseline
// (tuning.Options.Measured): it counts against the budget, and stays the answer when
// nothing tried beats it.
//
// Everything runs in the application's process, on a goroutine of the tuner's own that
// opens the device and alone uses it (devices are bound to one thread). Unlike `ktune
// tune`, which runs kernels in worker processes, a kernel that crashes (a segmentation
// fault on a CPU device, a CUDA context lost) takes the application down with it:
// tune a spec offline first where its configurations may crash.
package dynamic

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/runner"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/spec"
	"github.com/ktune/ktune/strategy"
	"github.com/ktune/ktune/tuning"
)

// Data is the application's data for one call, by argument name (runner.Data): raw
// little-endian bytes or typed slices ([]float32, []int32, []uint16 for float16...).
type Data = runner.Data

// Options configure a Tuner. The zero value tunes on the first device of the spec's
// language with the auto strategy until the space is exhausted.
type Options struct {
	// Backend names the device backend ("opencl", "cuda", "hostc"); "" takes the first
	// registered backend that compiles the spec's language and has a device. Backends
	// register themselves: blank-import github.com/ktune/ktune/device/all (or one).
	Backend string
	// Device is the device's index within its backend.
	Device int
	// Strategy names the search strategy; "" is "auto".
	Strategy string
	// StrategyOptions are the strategy's options, as strategy.New takes them.
	StrategyOptions map[string]any
	// Budget is how many configurations to try, the known-good baseline included; 0 for
	// no limit.
	Budget int
	// TimeLimit ends tuning once this much wall time has passed since the first call; 0
	// for no limit.
	TimeLimit time.Duration
	// Target ends tuning once a configuration at least as good as it has been measured,
	// in the spec's objective's units and direction (ms for time, GB/s...): a
	// well-performing configuration, fast enough (seed 003). 0 for none.
	Target float64
	// Seed seeds the strategy.
	Seed uint64
	// Sink, when set, receives every evaluation as it is told (tuning.Options.Sink): a
	// results store run (tuning's ExampleSink).
	Sink tuning.Sink
	// Logger receives debug logs; slog.Default() when nil.
	Logger *slog.Logger
}

// Result is what one call returns.
type Result struct {
	// Outputs holds the contents of every output array by argument name, little-endian
	// bytes of its type (Float32s and the like decode them).
	Outputs map[string][]byte
	// Config is the configuration whose outputs these are, as parameter values.
	Config []space.Value
	// KernelMS is the time of the run that computed Outputs.
	KernelMS float64
	// Tuning says the call was a tuning step; Tried is then the configuration it tried.
	Tuning bool
	Tried  []space.Value
	// Failure says why the tried configuration's outputs were not returned (it did not
	// compile, failed, or disagreed with the known-good configuration); "" when they were.
	Failure string
}

// Float32s decodes output name as float32 elements.
func (r Result) Float32s(name string) ([]float32, error) { return decode[float32](r, name, 4) }

// Float64s decodes output name as float64 elements.
func (r Result) Float64s(name string) ([]float64, error) { return decode[float64](r, name, 8) }

// Int32s decodes output name as int32 elements.
func (r Result) Int32s(name string) ([]int32, error) { return decode[int32](r, name, 4) }

// Uint16s decodes output name as uint16 elements (float16 outputs as their bits).
func (r Result) Uint16s(name string) ([]uint16, error) { return decode[uint16](r, name, 2) }

func decode[T float32 | float64 | int32 | uint16](r Result, name string, size int) ([]T, error) {
	b, ok := r.Outputs[name]
	if !ok {
		return nil, fmt.Errorf("dynamic: no output %s", name)
	}
	if len(b)%size != 0 {
		return nil, fmt.Errorf("dynamic: output %s has %d bytes, not a whole number of %d-byte elements", name, len(b), size)
	}
	out := make([]T, len(b)/size)
	if err := binary.Read(bytes.NewReader(b), binary.LittleEndian, out); err != nil {
		return nil, fmt.Errorf("dynamic: output %s: %w", name, err)
	}
	return out, nil
}

// ErrClosed is the error of a call on a closed Tuner.
var ErrClosed = errors.New("dynamic: tuner closed")

// Tuner tunes one spec's kernel on one device while an application calls it. Its methods
// may be called from any goroutine; calls are served one at a time, in order.
type Tuner struct {
	spec *spec.Spec
	sp   *space.Space
	opts Options
	log  *slog.Logger

	wake   chan struct{} // has a value when queue may hold calls
	exited chan struct{} // closed when the device goroutine has ended

	// owned by the device goroutine
	r        *runner.Runner
	good     space.Config
	sess     *tuning.Session
	pending  space.Config // a configuration asked but not told: its call was cancelled
	best     space.Config // once the search has ended: the configuration every call runs
	maximize bool

	mu     sync.Mutex
	queue  []*Pending      // calls started and not yet served, in order
	closed bool            // Close was called
	last   *tuning.Session // the current session, for Summary
}

// New opens the device and prepares to tune s. ctx bounds opening the device. Close
// the tuner when done: it stops its goroutine and closes the device.
func New(ctx context.Context, s *spec.Spec, opts Options) (*Tuner, error) {
	if s == nil {
		return nil, errors.New("dynamic: no spec")
	}
	sp, err := s.Space()
	if err != nil {
		return nil, err
	}
	if sp.Len() == 0 {
		return nil, errors.New("dynamic: the spec's space has no valid configuration")
	}
	if opts.Strategy == "" {
		opts.Strategy = "auto"
	}
	if _, err := strategy.New(opts.Strategy, opts.StrategyOptions); err != nil {
		return nil, err
	}
	t := &Tuner{spec: s, sp: sp, opts: opts, log: opts.Logger, wake: make(chan struct{}, 1),
		exited: make(chan struct{})}
	if t.log == nil {
		t.log = slog.Default()
	}
	_, t.maximize = s.Objective()
	opened := make(chan error, 1)
	go t.serve(ctx, opened)
	if err := <-opened; err != nil {
		return nil, err
	}
	return t, nil
}

// backend finds the backend to open.
func (t *Tuner) backend() (device.Backend, error) {
	if t.opts.Backend != "" {
		b, ok := device.Lookup(t.opts.Backend)
		if !ok {
			return nil, fmt.Errorf("dynamic: no backend %q is registered (blank-import github.com/ktune/ktune/device/all)", t.opts.Backend)
		}
		return b, nil
	}
	for _, b := range device.ForLanguage(t.spec.Kernel.Language) {
		if devs, err := b.Devices(); err == nil && len(devs) > 0 {
			return b, nil
		}
	}
	return nil, fmt.Errorf("dynamic: no registered backend with a device compiles %s (blank-import github.com/ktune/ktune/device/all)", t.spec.Kernel.Language)
}

// serve is the device goroutine: it opens the device, then serves calls until Close.
func (t *Tuner) serve(ctx context.Context, opened chan<- error) {
	defer close(t.exited)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b, err := t.backend()
	if err != nil {
		opened <- err
		return
	}
	dev, err := b.Open(ctx, t.opts.Device)
	if err != nil {
		opened <- fmt.Errorf("dynamic: opening %s device %d: %w", b.Name(), t.opts.Device, err)
		return
	}
	defer dev.Close()
	t.r = runner.New(t.spec, t.sp, dev)
	defer t.r.Close()
	t.good = t.r.KnownGood()
	opened <- nil
	defer func() {
		if t.sess != nil {
			t.sess.Close()
		}
	}()
	for range t.wake {
		for {
			t.mu.Lock()
			if t.closed {
				queued := t.queue
				t.queue = nil
				t.mu.Unlock()
				for _, p := range queued {
					p.err = ErrClosed
					close(p.done)
				}
				return
			}
			if len(t.queue) == 0 {
				t.mu.Unlock()
				break
			}
			p := t.queue[0]
			t.queue = t.queue[1:]
			t.mu.Unlock()
			switch {
			case p.ctx.Err() != nil: // given up on while it waited
				p.err = p.ctx.Err()
			case p.retune:
				t.endSession()
			default:
				p.res, p.err = t.call(p.ctx, p.data)
			}
			close(p.done)
		}
	}
}

// Pending is a call started by Start.
type Pending struct {
	ctx    context.Context
	data   Data
	retune bool
	done   chan struct{}
	res    Result
	err    error
}

// Wait waits for the call to end and returns its result.
func (p *Pending) Wait() (Result, error) {
	<-p.done
	return p.res, p.err
}

// Done is closed when the call has ended.
func (p *Pending) Done() <-chan struct{} { return p.done }

// Start begins one call of the kernel on data and returns at once; Wait gives its
// result. The caller must not change data until then. Calls are served in the order
// they were started.
func (t *Tuner) Start(ctx context.Context, data Data) *Pending {
	p := &Pending{ctx: ctx, data: data, done: make(chan struct{})}
	t.send(p)
	return p
}

// send queues p for the device goroutine, or ends it with ErrClosed.
func (t *Tuner) send(p *Pending) {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		p.err = ErrClosed
		close(p.done)
		return
	}
	t.queue = append(t.queue, p)
	t.mu.Unlock()
	select {
	case t.wake <- struct{}{}:
	default: // a wake-up is pending already
	}
}

// Run is one call of the kernel on data: a tuning step while tuning, a run of the best
// configuration afterwards. It returns the outputs, which are always those of a
// configuration that agreed with the known-good one (see the package doc). The error is
// a *runner.DataError when data do not fit the spec's arguments, the context's when it
// was cancelled, ErrClosed after Close, or the known-good configuration's own failure.
func (t *Tuner) Run(ctx context.Context, data Data) (Result, error) {
	return t.Start(ctx, data).Wait()
}

// Retune ends the current search: the next call starts a new one from scratch (a new
// session with the same options), as an application does when its input changes. It
// waits for the calls started before it.
func (t *Tuner) Retune(ctx context.Context) error {
	p := &Pending{ctx: ctx, retune: true, done: make(chan struct{})}
	t.send(p)
	<-p.done
	return p.err
}

// Tuning reports whether the next call will be a tuning step.
func (t *Tuner) Tuning() bool {
	t.mu.Lock()
	s := t.last
	t.mu.Unlock()
	return s == nil || s.Summary().Stop == ""
}

// Summary is the current search's state (tuning.Session.Summary); the zero Summary
// before the first call of a search.
func (t *Tuner) Summary() tuning.Summary {
	t.mu.Lock()
	s := t.last
	t.mu.Unlock()
	if s == nil {
		return tuning.Summary{}
	}
	return s.Summary()
}

// Close stops the tuner's goroutine, ends the search and closes the device. Calls not
// yet served end with ErrClosed. It is safe to call more than once.
func (t *Tuner) Close() error {
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	select {
	case t.wake <- struct{}{}:
	default:
	}
	<-t.exited
	return nil
}

// endSession ends the current search (Retune).
func (t *Tuner) endSession() {
	if t.sess != nil {
		t.sess.Close()
	}
	t.sess, t.pending, t.best = nil, nil, nil
	t.mu.Lock()
	t.last = nil
	t.mu.Unlock()
}

// call serves one call on the device goroutine.
func (t *Tuner) call(ctx context.Context, data Data) (Result, error) {
	if t.best == nil && t.sess != nil {
		// the last step's Tell may have ended the search (its budget, a target reached)
		if sum := t.sess.Summary(); sum.Stop != "" {
			t.searchOver(sum)
		}
	}
	if t.best == nil {
		res, tuned, err := t.step(ctx, data)
		if tuned || err != nil {
			return res, err
		}
		t.searchOver(t.sess.Summary())
	}
	return t.runBest(ctx, data)
}

// searchOver fixes the configuration every call runs from now on: the search's best, or
// the known-good one when nothing succeeded.
func (t *Tuner) searchOver(sum tuning.Summary) {
	t.best = t.good
	if sum.Best != nil {
		t.best = sum.Best
	}
	t.log.Debug("dynamic: tuning over", "best", t.sp.Format(t.best), "stop", sum.Stop, "evaluations", sum.Evaluations)
}

// runBest runs the best configuration found, or the known-good one when it fails.
func (t *Tuner) runBest(ctx context.Context, data Data) (Result, error) {
	best := t.best
	out, err := t.r.RunWith(ctx, best, data)
	var re *runner.RunError
	if errors.As(err, &re) && !slices.Equal(best, t.good) {
		// The best ran on every tried call's data; a failure on this one is not
		// returned: the known-good configuration answers instead.
		t.log.Warn("dynamic: the best configuration failed; running the known-good one", "config", t.sp.Format(best), "error", err)
		best = t.good
		out, err = t.r.RunWith(ctx, best, data)
	}
	if err != nil {
		return Result{}, t.goodErr(err)
	}
	return Result{Outputs: out.Outputs, Config: t.sp.Values(best), KernelMS: out.KernelMS}, nil
}

// goodErr wraps the known-good configuration's own failure.
func (t *Tuner) goodErr(err error) error {
	var re *runner.RunError
	if errors.As(err, &re) {
		return fmt.Errorf("dynamic: the known-good configuration %s failed: %w", t.sp.Format(t.good), err)
	}
	return err
}

// evaluation is what the session is told of a run of c.
func (t *Tuner) evaluation(c space.Config, began time.Time, out runner.Outcome) result.Evaluation {
	values := t.sp.Values(c)
	e := result.Evaluation{Config: values, Status: result.OK, Objective: out.KernelMS, Time: began,
		Samples: []float64{out.KernelMS}, RunsPerSample: 1, CompileMS: out.CompileMS, BenchmarkMS: out.KernelMS}
	metrics, err := t.spec.MetricValues(values, out.KernelMS, nil)
	name, _ := t.spec.Objective()
	if name != "time" && name != "" {
		v, ok := metrics[name]
		if err != nil && !ok {
			return failed(values, began, result.RuntimeError, "metrics: "+err.Error())
		}
		metrics["time"] = out.KernelMS
		e.Objective = v
	}
	if len(metrics) > 0 {
		e.Metrics = metrics
	}
	return e
}

func failed(values []space.Value, began time.Time, st result.Status, msg string) result.Evaluation {
	return result.Evaluation{Config: values, Status: st, Message: msg, Time: began}
}

// step is one tuning step on data; tuned is false when the search had already ended
// (the call is then the best configuration's).
func (t *Tuner) step(ctx context.Context, data Data) (res Result, tuned bool, err error) {
	// The known-good configuration first: bad data are the caller's error before anything
	// is asked of the session, and its outputs are the judge's.
	began := time.Now()
	good, err := t.r.RunWith(ctx, t.good, data)
	if err != nil {
		return Result{}, true, t.goodErr(err)
	}
	goodRes := Result{Outputs: good.Outputs, Config: t.sp.Values(t.good), KernelMS: good.KernelMS, Tuning: true}
	if t.sess == nil {
		if err := t.newSession(t.evaluation(t.good, began, good)); err != nil {
			return Result{}, true, err
		}
	}
	c := t.pending
	if c == nil {
		c, err = t.sess.Ask(ctx)
		if errors.Is(err, tuning.ErrDone) {
			return Result{}, false, nil
		}
		if err != nil {
			if ctx.Err() != nil {
				return Result{}, true, ctx.Err()
			}
			return Result{}, true, fmt.Errorf("dynamic: %w", err)
		}
		t.pending = c
	}
	goodRes.Tried = t.sp.Values(c)
	began = time.Now()
	var e result.Evaluation
	out, err := runner.Outcome{}, error(nil)
	if slices.Equal(c, t.good) {
		out = good
	} else {
		out, err = t.r.RunWith(ctx, c, data)
	}
	var re *runner.RunError
	var de *runner.DataError
	switch {
	case err == nil:
		if msg := t.r.CompareOutputs(c, out.Outputs, good.Outputs); msg != "" {
			e = failed(goodRes.Tried, began, result.WrongAnswer, "against the known-good configuration "+t.sp.Format(t.good)+": "+msg)
		} else {
			e = t.evaluation(c, began, out)
		}
	case errors.As(err, &re):
		e = failed(goodRes.Tried, began, re.Status, re.Err.Error())
	case errors.As(err, &de):
		// a length that depends on the configuration: this one cannot take the data
		e = failed(goodRes.Tried, began, result.RuntimeError, err.Error())
	default: // cancelled: c stays pending, to be tried by the next call
		return Result{}, true, err
	}
	t.pending = nil
	if err := t.sess.Tell(c, e); err != nil && !errors.Is(err, tuning.ErrDone) {
		return Result{}, true, fmt.Errorf("dynamic: %w", err)
	}
	if e.Status != result.OK {
		goodRes.Failure = fmt.Sprintf("%s: %s", e.Status, e.Message)
		t.log.Debug("dynamic: tried configuration failed", "config", t.sp.Format(c), "status", e.Status, "message", e.Message)
		return goodRes, true, nil
	}
	return Result{Outputs: out.Outputs, Config: goodRes.Tried, KernelMS: out.KernelMS, Tuning: true, Tried: goodRes.Tried}, true, nil
}

// newSession starts a search whose baseline is the known-good configuration's first
// measurement on the application's data.
func (t *Tuner) newSession(baseline result.Evaluation) error {
	st, err := strategy.New(t.opts.Strategy, t.opts.StrategyOptions)
	if err != nil {
		return err
	}
	o := tuning.Options{Budget: t.opts.Budget, TimeLimit: t.opts.TimeLimit, Seed: t.opts.Seed,
		Maximize: t.maximize, Sink: t.opts.Sink, Logger: t.opts.Logger, Since: time.Now()}
	if baseline.Status == result.OK {
		o.Measured = []result.Evaluation{baseline}
	}
	if t.opts.Target != 0 {
		o.Stop = append(o.Stop, tuning.Target(t.opts.Target))
	}
	s, err := tuning.New(t.sp, st, nil, o)
	if err != nil {
		return err
	}
	if t.opts.Sink != nil {
		// the sink does not receive Measured: the baseline is recorded here
		if err := t.opts.Sink.Record(context.Background(), baseline); err != nil {
			s.Close()
			return fmt.Errorf("dynamic: recording the baseline: %w", err)
		}
	}
	t.sess = s
	t.mu.Lock()
	t.last = s
	t.mu.Unlock()
	return nil
}
