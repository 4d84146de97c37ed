// Package dynamic tunes a kernel while an application uses it, on the application's own
// data: seed 003's dynamic autotuning (KTT's tuneKernelByStep). Each call of Run is one
// call of the kernel. While tuning, it runs the next configuration the strategy chooses
// on the caller's data, measures it, tells the session, and returns its outputs; once
// tuning has stopped (the budget, the time limit, or a configuration fast enough:
// Options.Target, or close enough to the device's peak: Options.WithinPeak) each call
// runs the best configuration found. Start is the same call
// without blocking, and Retune starts a new search when the input changes in a way that
// calls for one.
//
// An application whose input size changes from call to call (seed 003's 3D Fourier
// reconstruction re-tunes per input size) gives each call's sizes: RunSized(ctx,
// Sizes{"N": 4096}, data) names the values of the spec's constants that the data have.
// The tuner keeps one search per size, as KTT's users do by hand: on a size's first call
// it derives the spec at those sizes (spec.Spec.WithConstants: argument lengths,
// problem_size, restrictions and so the space all follow the constants), its runner and
// its own session, with the Options' budget, time limit and target counted for that size
// alone; each call goes to its size's search, which goes on from where it was, or, once
// it has ended, runs that size's best. SummarySized and Searches report each size's
// search; Options.MaxSizes bounds how many are kept (the least recently called is
// dropped), and Options.SinkFor records each in a run of its own. Run is RunSized at the
// spec's own sizes.
//
// The application never receives a wrong answer. During tuning each call also runs a
// judge on the same data, and compares the tried configuration's outputs with the
// judge's by the spec's verification (its checks and tolerances, and its verification
// functions, called on the host as offline tuning calls them). The judge is the spec's
// reference where it has one that runs on a call's data (runner.Runner.RunReferenceWith):
// a reference kernel of its own on the kernel's device, or a C or C++ reference on the
// host (run on the host C backend, beside the device); it catches a bug that every tuned
// configuration shares, the reference configuration included. Else the judge is the
// known-good configuration (runner.Runner.KnownGood: the configuration the spec's
// reference runs at, which `ktune tune` verifies every other configuration against;
// where the reference is a kernel of its own, the tuned kernel at that configuration,
// trusted as the spec author's first choice). The known-good configuration runs on every
// tuning step either way: its first measurement is the session's baseline, and its
// outputs answer a call whose tried configuration fails. Judged by a reference, it is
// compared too: where it disagrees on the first call it is no baseline (below), where
// the session tries it, it is told as a wrong answer, and where neither it nor the
// tried configuration agrees, the
// reference's outputs answer the call (Result.Reference). The reference or the
// known-good configuration, rather than the best so far, is the judge: the best has only
// been seen to agree on earlier calls' data, and a configuration wrong for some data only
// (a tile that does not divide the size) would, as the judge, pass its own mistakes on.
// The cost is one more kernel run per tuning call (two where a reference judges), none
// after tuning unless checks are asked for (below). A tried configuration that does not
// compile, fails at run time or disagrees is told to the session as that failure, and
// so is one whose outputs agree but that changed an input: the tried configuration's
// inputs are read back after its run (runner.Runner.RunCheckedWith), as offline
// verification reads them back, and one that changed an array the spec marks neither
// output nor scratch would spoil the caller's data in the application. The call returns the known-good configuration's outputs (the reference's, where a
// reference found those wrong). After tuning, by default,
// nothing is compared, as in KTT: the best agreed with the judge on the call it was tried
// on, and an error that only other data would show goes unseen (a run of the best that
// fails outright is answered by the known-good configuration).
//
// Checks after tuning close that gap where the application asks for them:
// Options.CheckEvery checks every Nth call of a search after its tuning, and
// Options.CheckOnChange the first call whose values of the scalar arguments it names (a
// count, a size passed as data) the running configuration has not yet agreed on. A
// checked call runs the judge too, the same as a tuning step's, and compares, inputs
// included: one more
// kernel run on that call, compared by the verification's checks as offline tuning's
// verification compares. Judged by a reference, the known-good configuration is checked
// too, and where no configuration a call runs agrees, the reference's own outputs answer
// it (Result.Reference). A tuned configuration that disagrees, or fails,
// is reported (a *CheckError in Result.CheckErrors and Search.Failed, naming the call,
// the configuration and the output, and a warning in the log), marked failed, and
// replaced by the search's next best configuration that no check has failed (by the
// objective the session measured), which runs on the same data at once and answers the
// call when it agrees; after three configurations that disagree on one call the
// judge answers it, and the next call checks the next best. The call never returns
// the wrong outputs it found. The session is not told (it has ended, and the sink keeps
// what it measured, with the finding added: an evaluation of the configuration with the
// check's status, after the session's own, whose message begins with CheckedMessage):
// Retune forgets the failures with the search.
//
// Expected outputs from .npy files (verification.reference.npy) never judge a call: they
// are fixed data, the outputs of the spec's own generated inputs, and say nothing of what
// an application's data should give. A spec verified by them is judged by the known-good
// configuration, as one without a reference is; give it a reference kernel or a host
// reference to have calls judged by the spec's own notion of right.
//
// A reference that cannot judge a call's data (it does not compile at the call's sizes,
// or fails or times out on its data) does not fail the call: the known-good
// configuration judges it instead, a warning in the log names the reference's failure,
// and the call's Result says so (Judge names the judge every judged call used,
// ReferenceFailure why the reference did not). A reference that does not compile at a
// size is not compiled again for that size's later calls; one that failed at run time is
// tried again on the next call. Judged by the known-good configuration, a bug it shares
// goes unseen on that call, as it does without a reference.
//
// New checks what a call would otherwise be the first to find wrong with the spec: the
// parameters the kernel and the spec's reference kernel declare against its arguments,
// a reference of its own, a kernel or a C or C++ function on the host (it compiles and
// runs on the spec's data), and its
// verification functions (they build), as `ktune tune` does before it measures.
//
// The known-good configuration's first measurement is the session's baseline
// (tuning.Options.Measured): it counts against the budget, and stays the answer when
// nothing tried beats it. Where a reference judges and finds it wrong on the first
// call's data, the session has no baseline (the sink records that wrong answer), and
// tries the known-good configuration as any other.
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
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/efficiency"
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
	// WithinPeak, above 0, ends tuning once a configuration reaches this fraction (at
	// most 1) of the device's peak by its efficiency (seed 003, eq. 2): the
	// well-performing threshold at which seed 003's dynamic batched GEMM stops, "75% of
	// the peak memory bandwidth" (0.75). Summary().Stop then says what was reached
	// ("within 75% of peak: 412 GB/s of 549 GB/s (75.1%)"). The spec must declare its
	// essential_ops, and the peaks they need must be known, derived by the device's
	// backend (device.Info.Peak) or given in Peaks: New refuses it otherwise. Each size's
	// search (RunSized) reaches it by the operations of the spec at that size. 0 for none.
	WithinPeak float64
	// Peaks are the device's peaks as the application gives them (from a data sheet, or
	// a measurement such as STREAM's), which win over those its backend derives:
	// WithinPeak's efficiency is computed against them.
	Peaks efficiency.Given
	// PeaksFile gives the device its peaks for WithinPeak by its name or backend:index,
	// under Peaks (efficiency.File); it must name the device. nil: none.
	PeaksFile *efficiency.File
	// Seed seeds the strategy.
	Seed uint64
	// Sink, when set, receives every evaluation as it is told (tuning.Options.Sink): a
	// results store run (tuning's ExampleSink). It receives every size's evaluations
	// alike; SinkFor keeps them apart. After tuning it also receives what checks find
	// (CheckEvery, CheckOnChange): an evaluation of each configuration found wrong, with
	// the check's status and a message that begins with CheckedMessage, which `ktune
	// report` lists among the run's failures.
	Sink tuning.Sink
	// SinkFor, when set instead of Sink, gives each search its own sink: it is called
	// on the first call of a search (a size's first call, or its first after a Retune or
	// an eviction) with every constant of the spec at that size, the spec at that size
	// and its space, to record the search as a run of its own (a results store run whose
	// settings hold the constants). A sink with a Close() error method is closed when
	// its search is dropped: Retune, eviction, Close.
	SinkFor func(ctx context.Context, sizes Sizes, s *spec.Spec, sp *space.Space) (tuning.Sink, error)
	// MaxSizes bounds how many sizes' searches the tuner keeps (RunSized); 0 for no
	// bound. A call of a new size beyond it drops the search of the size called least
	// recently (the spec's own sizes included): its session, compiled kernels and buffers.
	// A later call of that size starts its search again from scratch.
	MaxSizes int
	// CheckEvery, once a search's tuning has ended, checks every CheckEvery-th call of
	// the search after it (1: every call): the call also runs the judge on its data (the
	// spec's reference kernel of its own or C or C++ reference on the host, else the
	// known-good configuration: see the package doc) and compares the tuned configuration's outputs with its outputs, as a
	// tuning step does. A tuned configuration that disagrees (or fails) is
	// marked failed and reported (Result.CheckErrors, Search.Failed, a warning in the
	// log), the call returns outputs that agree, and the search's calls fall back to its
	// next best configuration (see the package doc). 0 checks no call by count.
	CheckEvery int
	// CheckOnChange names scalar arguments (a count, a size the application passes as
	// data) whose values, when they change, call for a check: once tuning has ended, a
	// call whose values of these differ from those of the last call on which the
	// configuration it runs agreed with the known-good one (its tuning step, or its last
	// check) is checked as CheckEvery's are. A value that changes on every call makes
	// every call a check. Values compare as the kernel receives them, the bytes of the
	// argument's type: int32(5), []int32{5} and their raw bytes are one value, and a
	// scalar left out of the data is the spec's value of it; floats compare by bits (0
	// and -0 differ, a NaN is itself).
	CheckOnChange []string
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
	// compile, failed, or disagreed with the judge), or, on a checked
	// call, why the tuned configuration's were not (CheckErrors); "" when they were.
	Failure string
	// Checked says the call came after tuning and compared the configuration it ran with
	// the judge on its data (Options.CheckEvery, CheckOnChange).
	Checked bool
	// CheckErrors are the tuned configurations a checked call found wrong on its data,
	// in the order it ran them; the outputs are those of the configuration after them
	// (Config), which agreed with the judge, or the judge's own.
	CheckErrors []*CheckError
	// Reference says the outputs are those of the spec's reference (a kernel of its own
	// or a C or C++ one on the host; see the package doc): on a checked call on which no
	// configuration it ran agreed with it, or a tuning step on which neither the tried
	// configuration nor the known-good one did. They are only the outputs its
	// verification compares, and Config is nil.
	Reference bool
	// Judge names what the call's outputs were judged against, on a tuning step or a
	// checked call: "the spec's reference kernel axpy_ref", "the spec's C reference
	// axpy_ref", or "the known-good configuration 32 1"; "" on a call that judged nothing.
	Judge string
	// ReferenceFailure says why the spec's reference could not judge the call where it
	// has one that runs on a call's data: it does not compile at the call's sizes, or
	// failed or timed out on its data (the *runner.RunError's message). The known-good
	// configuration judged the call instead (Judge), and a warning was logged. "" when
	// the reference judged, or the spec has none that runs on a call's data.
	ReferenceFailure string
}

// CheckError is a configuration chosen by tuning that a check after tuning found wrong
// on a later call's data (Options.CheckEvery, CheckOnChange): its outputs disagreed with
// the judge's (the spec's reference kernel of its own or C or C++ reference on the host,
// else, or where that fails on the call's data, the known-good configuration), or it
// failed there. Where the judge is a reference, the known-good configuration itself may
// be found wrong; it stays the last resort of its search's calls, and each of them is
// checked until one agrees. It is an error a tuning step could not see, since it showed
// only on other data (a tile that does not divide a count). The configuration is marked
// failed: its search's calls never run it again, until Retune.
type CheckError struct {
	// Sizes are the search's sizes that differ from the spec's; nil for its own.
	Sizes Sizes
	// Call is the call of the search that showed it, counting from 1 at the search's
	// first call, tuning steps included.
	Call int
	// Config is the configuration found wrong.
	Config []space.Value
	// Status is result.WrongAnswer when its outputs disagreed, else how it failed.
	Status result.Status
	// Msg says what differs (the output and its elements, as runner.Runner.CompareOutputs
	// says it) or how it failed.
	Msg string
	// Next is the configuration the search's calls run from now on: its next best, or
	// the known-good one.
	Next []space.Value

	config, judge, next string // the configurations by parameter name, and the judge
}

// Error names the call, the configuration and what was wrong.
func (e *CheckError) Error() string {
	return fmt.Sprintf("dynamic: call %d of %s: the tuned configuration %s is wrong on this call's data (%s, against %s): %s; its calls now run %s",
		e.Call, sizesOrOwn(e.Sizes.String()), e.config, e.Status, e.judge, e.Msg, e.next)
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

// Sizes are values of the spec's constants (its problem sizes) for one call: the key of
// the search the call belongs to. A constant not named keeps the spec's value, and so
// does one named with the spec's value: nil, empty and the spec's own values are the
// same key, the one Run uses. Every expression that reads a named constant follows it
// (spec.Spec.WithConstants): other constants, argument lengths and scalar values,
// problem_size and launch geometry, parameter value lists and restrictions, so that
// each size has a space of its own.
type Sizes map[string]float64

// String writes the sizes as "N=4096, M=8", sorted by name; "" for none.
func (z Sizes) String() string {
	names := make([]string, 0, len(z))
	for n := range z {
		names = append(names, n)
	}
	slices.Sort(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + "=" + strconv.FormatFloat(z[n], 'f', -1, 64)
	}
	return strings.Join(parts, ", ")
}

// Search is one size's search, as Searches reports it.
type Search struct {
	// Sizes are the constants whose values differ from the spec's; nil for the spec's own.
	Sizes Sizes
	// Configurations is the size of the space at these sizes (restrictions may read
	// the constants).
	Configurations int
	Summary        tuning.Summary // the zero Summary while the search has no session (after Retune)
	// Running is the configuration the search's calls run once its tuning has ended:
	// Summary.Best, or, after a check found that wrong (Failed), the next best; nil while
	// it tunes.
	Running []space.Value
	// Failed are the tuned configurations that checks after tuning found wrong, in order.
	Failed []*CheckError
}

// search is one size's search: its spec, space and runner, and its session.
type search struct {
	key   string
	sizes Sizes
	spec  *spec.Spec
	sp    *space.Space

	// owned by the device goroutine
	r       *runner.Runner
	good    space.Config
	sess    *tuning.Session
	sink    tuning.Sink
	pending space.Config      // a configuration asked but not told: its call was cancelled
	best    space.Config      // once the search has ended: the configuration every call runs
	calls   int               // calls of the session so far, tuning steps included
	after   int               // calls since tuning ended
	triedOn map[int]string    // CheckOnChange's values on the call each configuration agreed on, by index
	agreed  string            // CheckOnChange's values on the last call best agreed on
	failed  map[int]bool      // configurations found wrong after tuning, by index
	recheck bool              // best replaced failed ones but has not run on their call's data: check the next call
	own     map[string][]byte // the spec's values of CheckOnChange's scalars at these sizes, by name
	// watch is shown every evaluation, for Options.WithinPeak; nil without
	watch *efficiency.Watch
	// refBroken is why the spec's reference does not compile at these sizes, once it
	// failed so: the known-good configuration judges the search's calls, and the
	// reference is not compiled again
	refBroken string

	// guarded by Tuner.mu
	last     *tuning.Session // the session, for Summary
	running  []space.Value   // best's values, for Searches
	failures []*CheckError
}

// Tuner tunes one spec's kernel on one device while an application calls it. Its methods
// may be called from any goroutine; calls are served one at a time, in order.
type Tuner struct {
	spec     *spec.Spec
	sp       *space.Space
	opts     Options
	log      *slog.Logger
	maximize bool

	wake   chan struct{} // has a value when queue may hold calls
	exited chan struct{} // closed when the device goroutine has ended

	dev device.Device // owned by the device goroutine

	mu       sync.Mutex
	queue    []*Pending         // calls started and not yet served, in order
	closed   bool               // Close was called
	searches map[string]*search // the kept searches by key
	order    []string           // their keys, least recently called first
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
	if opts.Sink != nil && opts.SinkFor != nil {
		return nil, errors.New("dynamic: Options give both Sink and SinkFor; give one")
	}
	if opts.MaxSizes < 0 {
		return nil, fmt.Errorf("dynamic: MaxSizes %d; expected 0 (no bound) or more", opts.MaxSizes)
	}
	if opts.WithinPeak != 0 && !(opts.WithinPeak > 0 && opts.WithinPeak <= 1) {
		return nil, fmt.Errorf("dynamic: WithinPeak %v; expected a fraction of the device's peak above 0 and at most 1 (0.75 for 75%%), or 0 for none", opts.WithinPeak)
	}
	if opts.CheckEvery < 0 {
		return nil, fmt.Errorf("dynamic: CheckEvery %d; expected 0 (no check by count), 1 (every call) or more", opts.CheckEvery)
	}
	for _, name := range opts.CheckOnChange {
		i := slices.IndexFunc(s.Arguments, func(a spec.Argument) bool { return a.Name == name })
		if i < 0 || s.Arguments[i].Kind != spec.ArgScalar {
			var scalars []string
			for _, a := range s.Arguments {
				if a.Kind == spec.ArgScalar {
					scalars = append(scalars, a.Name)
				}
			}
			what := "no argument of the spec"
			if i >= 0 {
				what = "an array, not a scalar"
			}
			return nil, fmt.Errorf("dynamic: CheckOnChange names %s, %s; it takes scalar arguments (the spec's: %s)", name, what, strings.Join(scalars, ", "))
		}
	}
	t := &Tuner{spec: s, sp: sp, opts: opts, log: opts.Logger, wake: make(chan struct{}, 1),
		exited: make(chan struct{}), searches: map[string]*search{}}
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
	t.dev = dev
	if err := t.checkSpec(ctx); err != nil {
		opened <- err
		return
	}
	if t.opts.WithinPeak > 0 {
		// refused now rather than on the first call: no size's search could stop for it
		if _, err := t.threshold(t.spec); err != nil {
			opened <- err
			return
		}
	}
	opened <- nil
	defer func() {
		t.mu.Lock()
		all := make([]*search, 0, len(t.searches))
		for _, k := range t.order {
			all = append(all, t.searches[k])
		}
		t.searches, t.order = map[string]*search{}, nil
		t.mu.Unlock()
		for _, s := range all {
			t.drop(s)
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
			case p.err != nil: // its sizes were refused when it was started
			case p.ctx.Err() != nil: // given up on while it waited
				p.err = p.ctx.Err()
			case p.retune:
				t.retune(p.key, p.all)
			default:
				p.res, p.err = t.call(p.ctx, p.key, p.sizes, p.data)
			}
			close(p.done)
		}
	}
}

// checkSpec checks, when the tuner is made, what would otherwise fail on a call, or
// never show: the parameters the kernel (at the known-good configuration) and the
// spec's reference kernel declare against the spec's arguments (runner.Runner.Check);
// where verification names a reference kernel of its own (on the device or the host),
// that it compiles and runs on the spec's own data; and that the verification functions
// build for the host C backend (runner.Runner.Reference), as `ktune tune` checks before
// it measures. Tuning steps and checks after tuning run the reference on each call's
// data (see the package doc), falling back to the known-good configuration where it
// fails on a call's data; a reference broken on the spec's own data is the spec's error.
func (t *Tuner) checkSpec(ctx context.Context) error {
	r := runner.New(t.spec, t.sp, t.dev)
	defer r.Close()
	if err := r.Check(ctx); err != nil {
		return fmt.Errorf("dynamic: %w", err) // it names the spec's file and line
	}
	v := t.spec.Verification
	if v == nil {
		return nil
	}
	_, kernel := t.spec.ReferenceSource()
	if !kernel && len(v.Functions()) == 0 {
		return nil
	}
	if err := r.Reference(ctx, nil); err != nil {
		return fmt.Errorf("dynamic: spec %s: verification, checked before tuning: %w", t.spec.File, err)
	}
	return nil
}

// Pending is a call started by Start.
type Pending struct {
	ctx    context.Context
	data   Data
	key    string
	sizes  Sizes
	retune bool
	all    bool // retune every size's search
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
// they were started. It is StartSized with the spec's own sizes.
func (t *Tuner) Start(ctx context.Context, data Data) *Pending {
	return t.StartSized(ctx, nil, data)
}

// StartSized is Start for data of the sizes given (RunSized).
func (t *Tuner) StartSized(ctx context.Context, sizes Sizes, data Data) *Pending {
	p := &Pending{ctx: ctx, data: data, done: make(chan struct{})}
	p.key, p.sizes, p.err = t.key(sizes)
	t.send(p)
	return p
}

// key returns the key of sizes and the sizes that differ from the spec's, or an error
// naming a constant the spec does not have.
func (t *Tuner) key(sizes Sizes) (string, Sizes, error) {
	var diff Sizes
	for name, v := range sizes {
		was, ok := t.spec.Constant(name)
		if !ok {
			names := make([]string, len(t.spec.Constants))
			for i, c := range t.spec.Constants {
				names[i] = c.Name
			}
			if len(names) == 0 {
				return "", nil, fmt.Errorf("dynamic: sizes name %s, but the spec has no constants", name)
			}
			return "", nil, fmt.Errorf("dynamic: sizes name %s, which is no constant of the spec (its constants: %s)", name, strings.Join(names, ", "))
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return "", nil, fmt.Errorf("dynamic: sizes give %s = %v; expected a finite number", name, v)
		}
		if v != was {
			if diff == nil {
				diff = Sizes{}
			}
			diff[name] = v
		}
	}
	return diff.String(), diff, nil
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
// configuration that agreed with the judge, or the judge's own (see the package doc). The
// error is
// a *runner.DataError when data do not fit the spec's arguments, the context's when it
// was cancelled, ErrClosed after Close, the known-good configuration's own failure, or
// that of a verification function that could not be called to compare the outputs. It
// is RunSized with the spec's own sizes.
func (t *Tuner) Run(ctx context.Context, data Data) (Result, error) {
	return t.Start(ctx, data).Wait()
}

// RunSized is Run on data of the sizes given: the call belongs to the search of those
// sizes, started on its first call (the spec at those sizes, its space, and a session
// with the Options' budget and stop conditions of its own), and continued or, once it has
// ended, answered by its best. The data must have the lengths of the spec at those
// sizes: a *runner.DataError names the argument and the length expected. Sizes naming
// no constant of the spec, or at which the spec is not valid (spec.Spec.WithConstants) or
// its space is empty, are an error of the call, and cost no search.
func (t *Tuner) RunSized(ctx context.Context, sizes Sizes, data Data) (Result, error) {
	return t.StartSized(ctx, sizes, data).Wait()
}

// Retune ends every size's search: the next call of each starts a new one from scratch
// (a new session with the same options), as an application does when its input changes.
// It waits for the calls started before it.
func (t *Tuner) Retune(ctx context.Context) error {
	p := &Pending{ctx: ctx, retune: true, all: true, done: make(chan struct{})}
	t.send(p)
	<-p.done
	return p.err
}

// RetuneSized ends the search of the sizes given only.
func (t *Tuner) RetuneSized(ctx context.Context, sizes Sizes) error {
	p := &Pending{ctx: ctx, retune: true, done: make(chan struct{})}
	p.key, p.sizes, p.err = t.key(sizes)
	t.send(p)
	<-p.done
	return p.err
}

// Tuning reports whether the next call of the spec's own sizes will be a tuning step.
func (t *Tuner) Tuning() bool { return t.TuningSized(nil) }

// TuningSized reports whether the next call of sizes will be a tuning step: false once
// its search has ended (it is kept), true otherwise.
func (t *Tuner) TuningSized(sizes Sizes) bool {
	sum, ok := t.summary(sizes)
	return !ok || sum.Stop == ""
}

// Summary is the state of the search of the spec's own sizes (tuning.Session.Summary);
// the zero Summary before its first call.
func (t *Tuner) Summary() tuning.Summary { return t.SummarySized(nil) }

// SummarySized is the state of the search of sizes; the zero Summary before its first
// call, and for sizes whose search is not kept (never called, evicted, or naming no
// constant of the spec).
func (t *Tuner) SummarySized(sizes Sizes) tuning.Summary {
	sum, _ := t.summary(sizes)
	return sum
}

func (t *Tuner) summary(sizes Sizes) (tuning.Summary, bool) {
	key, _, err := t.key(sizes)
	if err != nil {
		return tuning.Summary{}, false
	}
	t.mu.Lock()
	var sess *tuning.Session
	if s := t.searches[key]; s != nil {
		sess = s.last
	}
	t.mu.Unlock()
	if sess == nil {
		return tuning.Summary{}, false
	}
	return sess.Summary(), true
}

// Searches reports the searches kept, one per size called (Run: the spec's own), the most
// recently called first.
func (t *Tuner) Searches() []Search {
	t.mu.Lock()
	var out []Search
	var sess []*tuning.Session
	for i := len(t.order) - 1; i >= 0; i-- {
		s := t.searches[t.order[i]]
		out = append(out, Search{Sizes: maps.Clone(s.sizes), Configurations: s.sp.Len(),
			Running: slices.Clone(s.running), Failed: slices.Clone(s.failures)})
		sess = append(sess, s.last)
	}
	t.mu.Unlock()
	for i, s := range sess {
		if s != nil {
			out[i].Summary = s.Summary()
		}
	}
	return out
}

// Close stops the tuner's goroutine, ends the searches and closes the device. Calls not
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

// keep makes s a kept search, the most recently called, with its runner; when
// Options.MaxSizes is passed, the least recently called search is dropped.
func (t *Tuner) keep(s *search) {
	s.r = runner.New(s.spec, s.sp, t.dev)
	s.good = s.r.KnownGood()
	t.mu.Lock()
	t.searches[s.key] = s
	t.order = append(t.order, s.key)
	var evicted []*search
	for t.opts.MaxSizes > 0 && len(t.order) > t.opts.MaxSizes {
		old := t.searches[t.order[0]]
		delete(t.searches, old.key)
		t.order = t.order[1:]
		evicted = append(evicted, old)
	}
	t.mu.Unlock()
	for _, old := range evicted {
		t.log.Debug("dynamic: dropping the least recently called size's search", "sizes", old.key)
		t.drop(old)
	}
}

// drop ends s's session and closes its runner and sink.
func (t *Tuner) drop(s *search) {
	t.endSession(s)
	s.r.Close()
}

// searchOf returns the search of key, made on its first call, and marks it the most
// recently called.
func (t *Tuner) searchOf(key string, sizes Sizes) (*search, error) {
	t.mu.Lock()
	s := t.searches[key]
	if s != nil {
		i := slices.Index(t.order, key)
		t.order = append(slices.Delete(t.order, i, i+1), key)
	}
	t.mu.Unlock()
	if s != nil {
		return s, nil
	}
	if key == "" {
		t.keep(&search{spec: t.spec, sp: t.sp})
		return t.searches[key], nil
	}
	sized, err := t.spec.WithConstants(sizes)
	if err != nil {
		return nil, fmt.Errorf("dynamic: %w", err)
	}
	sp, err := sized.Space()
	if err != nil {
		return nil, fmt.Errorf("dynamic: with %s: %w", key, err)
	}
	if sp.Len() == 0 {
		return nil, fmt.Errorf("dynamic: with %s the spec's space has no valid configuration", key)
	}
	s = &search{key: key, sizes: sizes, spec: sized, sp: sp}
	t.keep(s)
	t.log.Debug("dynamic: a new size", "sizes", key, "configurations", sp.Len())
	return s, nil
}

// retune ends the search of key, or every search.
func (t *Tuner) retune(key string, all bool) {
	t.mu.Lock()
	var which []*search
	for k, s := range t.searches {
		if all || k == key {
			which = append(which, s)
		}
	}
	t.mu.Unlock()
	for _, s := range which {
		t.endSession(s)
	}
}

// endSession ends s's session (Retune): its next call starts a new one.
func (t *Tuner) endSession(s *search) {
	if s.sess != nil {
		s.sess.Close()
	}
	if c, ok := s.sink.(interface{ Close() error }); ok && t.opts.SinkFor != nil {
		if err := c.Close(); err != nil {
			t.log.Warn("dynamic: closing a size's sink", "sizes", s.key, "error", err)
		}
	}
	s.sess, s.sink, s.pending, s.best = nil, nil, nil, nil
	s.calls, s.after, s.triedOn, s.agreed, s.failed, s.recheck = 0, 0, nil, "", nil, false
	t.mu.Lock()
	s.last, s.running, s.failures = nil, nil, nil
	t.mu.Unlock()
}

// call serves one call on the device goroutine.
func (t *Tuner) call(ctx context.Context, key string, sizes Sizes, data Data) (Result, error) {
	s, err := t.searchOf(key, sizes)
	if err != nil {
		return Result{}, err
	}
	res, err := t.callOf(ctx, s, data)
	var de *runner.DataError
	if errors.As(err, &de) && strings.HasPrefix(de.Msg, "got ") {
		// a length that does not fit: say which sizes it was checked against
		if key != "" {
			err = &runner.DataError{Arg: de.Arg, Msg: de.Msg + " (at sizes " + key + ")"}
		} else if len(t.spec.Constants) > 0 {
			err = &runner.DataError{Arg: de.Arg, Msg: de.Msg + " (at the spec's own sizes; RunSized takes data of other sizes)"}
		}
	}
	return res, err
}

func (t *Tuner) callOf(ctx context.Context, s *search, data Data) (Result, error) {
	if s.best == nil && s.sess != nil {
		// the last step's Tell may have ended the search (its budget, a target reached)
		if sum := s.sess.Summary(); sum.Stop != "" {
			t.searchOver(s, sum)
		}
	}
	changed := t.onChange(s, data)
	if s.best == nil {
		res, tuned, err := t.step(ctx, s, data, changed)
		if tuned || err != nil {
			return res, err
		}
		t.searchOver(s, s.sess.Summary())
	}
	s.calls++
	s.after++
	if t.checks(s, changed) {
		return t.checked(ctx, s, data, changed)
	}
	return t.runBest(ctx, s, data)
}

// onChange is the values of data's CheckOnChange arguments as one key, "" without any.
// Two calls' values are the same when they are the same bytes of the argument's type
// once converted as RunWith converts them (runner.Runner.Encoded): int32(5), []int32{5}
// and []byte{5, 0, 0, 0} for an int32 argument are one value, and so is an argument
// left out and the spec's own value of it given. Floats are compared by their bits, as
// the kernel receives them: 0 and -0 differ, a NaN is the same as itself. A value that
// does not convert (a wrong type, which the call reports as a *runner.DataError) is
// keyed by its Go type and formatted value.
func (t *Tuner) onChange(s *search, data Data) string {
	if len(t.opts.CheckOnChange) == 0 {
		return ""
	}
	var b strings.Builder
	for _, name := range t.opts.CheckOnChange {
		v, ok := data[name]
		if !ok {
			b.WriteString(name + "=" + hex.EncodeToString(t.ownScalar(s, name)) + ";")
			continue
		}
		if raw, ok := s.r.Encoded(Data{name: v})[name].([]byte); ok {
			b.WriteString(name + "=" + hex.EncodeToString(raw) + ";")
			continue
		}
		fmt.Fprintf(&b, "%s=%T(%v);", name, v, v)
	}
	return b.String()
}

// ownScalar is the spec's own value of scalar argument name at s's sizes, as the
// known-good configuration's instance has it: what a call that leaves it out passes.
func (t *Tuner) ownScalar(s *search, name string) []byte {
	if v, ok := s.own[name]; ok {
		return v
	}
	var v []byte
	if inst, err := s.spec.Instance(s.sp.Values(s.good)); err == nil {
		if i := slices.IndexFunc(inst.Args, func(a spec.ArgInstance) bool { return a.Name == name }); i >= 0 {
			v = inst.Args[i].Scalar
		}
	}
	if s.own == nil {
		s.own = map[string][]byte{}
	}
	s.own[name] = v
	return v
}

// checks reports whether this call of s, after tuning, is checked: every
// Options.CheckEvery-th, the first whose CheckOnChange values the running configuration
// has not agreed on, and those after a check that fell back to a configuration not yet
// seen on the failing data. The known-good configuration is judged only where the spec
// has a reference that runs on a call's data and compiles at s's sizes (it is the judge
// otherwise).
func (t *Tuner) checks(s *search, changed string) bool {
	if slices.Equal(s.best, s.good) && (!s.r.CanRunReferenceWith() || s.refBroken != "") {
		return false
	}
	return s.recheck ||
		(t.opts.CheckEvery > 0 && s.after%t.opts.CheckEvery == 0) ||
		(len(t.opts.CheckOnChange) > 0 && changed != s.agreed)
}

// searchOver fixes the configuration every call of s runs from now on: the search's
// best, or the known-good one when nothing succeeded.
func (t *Tuner) searchOver(s *search, sum tuning.Summary) {
	s.best = s.good
	if sum.Best != nil {
		s.best = sum.Best
	}
	if idx, ok := s.sp.Index(s.best); ok {
		s.agreed = s.triedOn[idx]
	}
	t.setRunning(s)
	t.log.Debug("dynamic: tuning over", "sizes", s.key, "best", s.sp.Format(s.best), "stop", sum.Stop, "evaluations", sum.Evaluations)
}

func (t *Tuner) setRunning(s *search) {
	t.mu.Lock()
	s.running = s.sp.Values(s.best)
	t.mu.Unlock()
}

// fallbackTries bounds the configurations a checked call runs after the known-good one
// when the tuned ones disagree: the best, then the next best in turn while they disagree.
// Past it the known-good configuration answers the call, and the next call checks the
// next best.
const fallbackTries = 3

// checked is a checked call of s after tuning: the judge (the spec's reference, else, or
// where it fails on data, the known-good configuration: reference) and the running
// configuration on data,
// compared. A running configuration that disagrees is marked failed and replaced by the
// next best, tried on the same data in turn.
func (t *Tuner) checked(ctx context.Context, s *search, data Data, changed string) (Result, error) {
	data = s.r.Encoded(data) // converted once for every run
	judge, byRef, failure, err := t.reference(ctx, s, data)
	if err != nil {
		return Result{}, err
	}
	judgeName := knownGoodName(s)
	if byRef {
		judgeName = t.referenceName(s)
	} else if judge, err = s.r.RunWith(ctx, s.good, data); err != nil {
		return Result{}, goodErr(s, err)
	}
	compare := s.r.CompareOutputs
	if byRef {
		compare = s.r.CompareWithReference
	}
	var found []*CheckError
	var failures []string
	var ran []space.Config // on this call
	for range fallbackTries {
		c := s.best
		if (!byRef && slices.Equal(c, s.good)) || slices.ContainsFunc(ran, func(r space.Config) bool { return slices.Equal(r, c) }) {
			break
		}
		ran = append(ran, c)
		out, err := s.r.RunCheckedWith(ctx, c, data)
		status, msg := result.WrongAnswer, ""
		var re *runner.RunError
		var de *runner.DataError
		switch {
		case err == nil:
			if msg, err = compare(ctx, c, out.Outputs, judge.Outputs); err != nil {
				return Result{}, fmt.Errorf("dynamic: checking %s against %s on call %d of %s: %w", s.sp.Format(c), judgeName, s.calls, sizesOrOwn(s.key), err)
			}
			msg = joinProblems(msg, out.ChangedInputs)
		case errors.As(err, &re):
			status, msg = re.Status, re.Err.Error()
		case errors.As(err, &de):
			status, msg = result.RuntimeError, err.Error()
		default: // cancelled
			return Result{}, err
		}
		if msg == "" {
			s.agreed, s.recheck = changed, false
			return Result{Outputs: out.Outputs, Config: s.sp.Values(c), KernelMS: out.KernelMS, Checked: true,
				CheckErrors: found, Failure: strings.Join(failures, "; "), Judge: judgeName, ReferenceFailure: failure}, nil
		}
		ce := t.fail(ctx, s, c, status, msg, judgeName)
		found = append(found, ce)
		failures = append(failures, ce.Error())
	}
	res := Result{Outputs: judge.Outputs, KernelMS: judge.KernelMS, Checked: true,
		CheckErrors: found, Failure: strings.Join(failures, "; "), Judge: judgeName, ReferenceFailure: failure}
	if byRef {
		// the reference answers: the tries ran out, or the known-good configuration
		// disagreed too; the next call checks whichever runs now
		s.recheck = true
		res.Reference = true
		return res, nil
	}
	// the known-good configuration answers: it is the judge, or the tries ran out
	s.recheck = !slices.Equal(s.best, s.good)
	res.Config = s.sp.Values(s.good)
	return res, nil
}

// joinProblems joins what a comparison of outputs found and what the inputs check found
// (runner.Outcome.ChangedInputs), either of which may be "".
func joinProblems(outputs, inputs string) string {
	if outputs == "" || inputs == "" {
		return outputs + inputs
	}
	return outputs + "; " + inputs
}

// reference runs the spec's reference on data, the judge of a tuning step or a checked
// call of s where the spec has one that runs on a call's data (a kernel of its own, or a
// C or C++ one on the host: runner.Runner.CanRunReferenceWith): ok says its outputs judge
// the call. A reference that fails there (it does not compile at s's sizes, or fails or
// times out on these data) judges nothing: failure says why, a warning names it, and the
// known-good configuration judges the call instead, as it judges a spec without such a
// reference. One that does not compile at s's sizes is not compiled again for s's later
// calls. The error is the call's own: data that do not fit, or the context's.
func (t *Tuner) reference(ctx context.Context, s *search, data Data) (out runner.Outcome, ok bool, failure string, err error) {
	if !s.r.CanRunReferenceWith() {
		return runner.Outcome{}, false, "", nil
	}
	if s.refBroken != "" {
		return runner.Outcome{}, false, s.refBroken, nil
	}
	out, err = s.r.RunReferenceWith(ctx, data)
	var re *runner.RunError
	if !errors.As(err, &re) {
		return out, err == nil, "", err
	}
	failure = fmt.Sprintf("%s: %s", re.Status, re.Err) // the error names the reference
	if re.Status == result.CompileError || re.Status == result.DeviceLimit {
		s.refBroken = failure // these sizes' definitions: no later call compiles it
	}
	t.log.Warn("dynamic: the spec's reference failed on a call's data; the known-good configuration judges the call instead",
		"sizes", s.key, "reference", t.referenceName(s), "status", re.Status, "error", re.Err, "judge", knownGoodName(s))
	return runner.Outcome{}, false, failure, nil
}

// referenceName names the spec's reference that runs on a call's data, in messages.
func (t *Tuner) referenceName(s *search) string {
	rk := s.spec.Verification.Kernel
	if s.spec.HostReference() {
		return "the spec's " + strings.ToUpper(rk.Language) + " reference " + rk.Name
	}
	return "the spec's reference kernel " + rk.Name
}

// knownGoodName names s's known-good configuration as a judge, in messages.
func knownGoodName(s *search) string {
	return "the known-good configuration " + s.sp.Format(s.good)
}

// fail marks c, s's running configuration, failed on the current call by judge (the
// name of what it disagreed with), and makes s run its next best from now on: the best
// configuration the session measured that no check has failed, or the known-good one.
func (t *Tuner) fail(ctx context.Context, s *search, c space.Config, status result.Status, msg, judge string) *CheckError {
	if s.failed == nil {
		s.failed = map[int]bool{}
	}
	if idx, ok := s.sp.Index(c); ok {
		s.failed[idx] = true
	}
	s.best = s.good
	s.agreed = ""
	best := math.Inf(1)
	for _, ev := range s.sess.Summary().History {
		idx, ok := s.sp.Index(ev.Config)
		if !ok || s.failed[idx] || ev.Evaluation.Status != result.OK || !(ev.Fitness < best) {
			continue
		}
		s.best, best = ev.Config, ev.Fitness
		s.agreed = s.triedOn[idx]
	}
	ce := &CheckError{Sizes: maps.Clone(s.sizes), Call: s.calls, Config: s.sp.Values(c), Status: status, Msg: msg,
		Next: s.sp.Values(s.best), config: s.sp.Format(c), judge: judge, next: s.sp.Format(s.best)}
	if slices.Equal(s.best, s.good) {
		ce.next += ", the known-good configuration"
		if slices.Equal(c, s.good) {
			ce.next += " still (the last resort: each call is checked until it agrees)"
		}
	}
	t.log.Warn("dynamic: a tuned configuration is wrong on a later call's data; falling back", "sizes", s.key, "call", s.calls,
		"config", ce.config, "status", status, "message", msg, "next", ce.next)
	t.setRunning(s)
	t.mu.Lock()
	s.failures = append(s.failures, ce)
	t.mu.Unlock()
	t.record(ctx, s, ce)
	return ce
}

// record tells s's sink (Options.Sink, SinkFor) what a check found: an evaluation of the
// configuration with the check's status, whose message names the call and the judge, as
// a run of the results store keeps and `ktune report` lists among its failures. The
// session is not told (it has ended), and the configuration's earlier evaluation stays
// as measured. A sink that fails is logged, not the call's error: its outputs are right.
func (t *Tuner) record(ctx context.Context, s *search, ce *CheckError) {
	if s.sink == nil {
		return
	}
	e := result.Evaluation{Config: ce.Config, Status: ce.Status, Time: time.Now(),
		Message: fmt.Sprintf("%s on call %d, after tuning (against %s): %s", CheckedMessage, ce.Call, ce.judge, ce.Msg)}
	if err := s.sink.Record(context.WithoutCancel(ctx), e); err != nil {
		t.log.Warn("dynamic: recording a configuration a check found wrong", "sizes", s.key, "config", ce.config, "error", err)
	}
}

// CheckedMessage begins the message of an evaluation that a check after tuning recorded
// in the sink (Options.Sink): a configuration tuning had measured, found wrong on a later
// call's data.
const CheckedMessage = "found wrong by a check"

// runBest runs the best configuration found, or the known-good one when it fails.
func (t *Tuner) runBest(ctx context.Context, s *search, data Data) (Result, error) {
	best := s.best
	out, err := s.r.RunWith(ctx, best, data)
	var re *runner.RunError
	if errors.As(err, &re) && !slices.Equal(best, s.good) {
		// The best ran on every tried call's data; a failure on this one is not
		// returned: the known-good configuration answers instead.
		t.log.Warn("dynamic: the best configuration failed; running the known-good one", "sizes", s.key, "config", s.sp.Format(best), "error", err)
		best = s.good
		out, err = s.r.RunWith(ctx, best, data)
	}
	if err != nil {
		return Result{}, goodErr(s, err)
	}
	return Result{Outputs: out.Outputs, Config: s.sp.Values(best), KernelMS: out.KernelMS}, nil
}

// goodErr wraps the known-good configuration's own failure.
func goodErr(s *search, err error) error {
	var re *runner.RunError
	if errors.As(err, &re) {
		return fmt.Errorf("dynamic: the known-good configuration %s failed: %w", s.sp.Format(s.good), err)
	}
	return err
}

// evaluation is what the session is told of a run of c.
func (t *Tuner) evaluation(s *search, c space.Config, began time.Time, out runner.Outcome) result.Evaluation {
	values := s.sp.Values(c)
	e := result.Evaluation{Config: values, Status: result.OK, Objective: out.KernelMS, Time: began,
		Samples: []float64{out.KernelMS}, RunsPerSample: 1, CompileMS: out.CompileMS, BenchmarkMS: out.KernelMS}
	metrics, err := s.spec.MetricValues(values, out.KernelMS, nil)
	name, _ := s.spec.Objective()
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

// step is one tuning step of s on data; tuned is false when the search had already
// ended (the call is then the best configuration's). The tried configuration is judged
// as a checked call is (reference): by the spec's reference on data where it has one
// that runs on a call's data, which judges the known-good configuration too, else by
// the known-good configuration.
func (t *Tuner) step(ctx context.Context, s *search, data Data, changed string) (res Result, tuned bool, err error) {
	// The known-good configuration first: bad data are the caller's error before anything
	// is asked of the session, and its outputs answer the call when the tried
	// configuration's do not.
	data = s.r.Encoded(data) // converted once for every run
	began := time.Now()
	good, err := s.r.RunWith(ctx, s.good, data)
	if err != nil {
		return Result{}, true, goodErr(s, err)
	}
	baseline := t.evaluation(s, s.good, began, good)
	ref, byRef, refFailure, err := t.reference(ctx, s, data)
	if err != nil {
		return Result{}, true, err
	}
	judge, judgeName, compare := good, knownGoodName(s), s.r.CompareOutputs
	goodWrong := "" // what the known-good configuration's outputs got wrong, judged by the reference
	if byRef {
		judge, judgeName, compare = ref, t.referenceName(s), s.r.CompareWithReference
		if goodWrong, err = compare(ctx, s.good, good.Outputs, ref.Outputs); err != nil {
			return Result{}, true, fmt.Errorf("dynamic: comparing the known-good configuration %s with %s: %w", s.sp.Format(s.good), judgeName, err)
		}
		if goodWrong != "" {
			baseline = failed(baseline.Config, began, result.WrongAnswer, "against "+judgeName+": "+goodWrong)
		}
	}
	// the call's answer when the tried configuration's outputs are not: the known-good
	// configuration's, or the reference's where those are wrong
	fallback := Result{Outputs: good.Outputs, Config: s.sp.Values(s.good), KernelMS: good.KernelMS, Tuning: true,
		Judge: judgeName, ReferenceFailure: refFailure}
	if goodWrong != "" {
		fallback.Outputs, fallback.Config, fallback.KernelMS, fallback.Reference = ref.Outputs, nil, ref.KernelMS, true
	}
	if s.sess == nil {
		if err := t.newSession(ctx, s, baseline); err != nil {
			return Result{}, true, err
		}
	}
	c := s.pending
	if c == nil {
		c, err = s.sess.Ask(ctx)
		if errors.Is(err, tuning.ErrDone) {
			return Result{}, false, nil
		}
		if err != nil {
			if ctx.Err() != nil {
				return Result{}, true, ctx.Err()
			}
			return Result{}, true, fmt.Errorf("dynamic: %w", err)
		}
		s.pending = c
	}
	fallback.Tried = s.sp.Values(c)
	began = time.Now()
	var e result.Evaluation
	out, err := runner.Outcome{}, error(nil)
	if slices.Equal(c, s.good) {
		out = good
	} else {
		out, err = s.r.RunCheckedWith(ctx, c, data)
	}
	var re *runner.RunError
	var de *runner.DataError
	switch {
	case err == nil:
		msg, err := compare(ctx, c, out.Outputs, judge.Outputs)
		switch {
		case err != nil: // no verdict: c stays pending, to be tried by the next call
			return Result{}, true, fmt.Errorf("dynamic: comparing %s with %s: %w", s.sp.Format(c), judgeName, err)
		case msg != "":
			e = failed(fallback.Tried, began, result.WrongAnswer, joinProblems("against "+judgeName+": "+msg, out.ChangedInputs))
		case out.ChangedInputs != "":
			e = failed(fallback.Tried, began, result.WrongAnswer, out.ChangedInputs)
		default:
			e = t.evaluation(s, c, began, out)
		}
	case errors.As(err, &re):
		e = failed(fallback.Tried, began, re.Status, re.Err.Error())
	case errors.As(err, &de):
		// a length that depends on the configuration: this one cannot take the data
		e = failed(fallback.Tried, began, result.RuntimeError, err.Error())
	default: // cancelled: c stays pending, to be tried by the next call
		return Result{}, true, err
	}
	s.pending = nil
	s.calls++
	if e.Status == result.OK {
		if s.triedOn == nil {
			s.triedOn = map[int]string{}
		}
		if idx, ok := s.sp.Index(c); ok {
			s.triedOn[idx] = changed
		}
	}
	if s.watch != nil {
		s.watch.Observe(e) // before Tell, whose stop conditions read it
	}
	if err := s.sess.Tell(c, e); err != nil && !errors.Is(err, tuning.ErrDone) {
		return Result{}, true, fmt.Errorf("dynamic: %w", err)
	}
	if sum := s.sess.Summary(); sum.Stop != "" {
		t.searchOver(s, sum) // this Tell ended it (its budget, a target reached)
	}
	if e.Status != result.OK {
		fallback.Failure = fmt.Sprintf("%s: %s", e.Status, e.Message)
		if goodWrong != "" && !slices.Equal(c, s.good) {
			fallback.Failure += fmt.Sprintf("; %s is wrong too (%s): the reference's outputs answer", knownGoodName(s), goodWrong)
		}
		t.log.Debug("dynamic: tried configuration failed", "sizes", s.key, "config", s.sp.Format(c), "status", e.Status, "message", e.Message)
		return fallback, true, nil
	}
	return Result{Outputs: out.Outputs, Config: fallback.Tried, KernelMS: out.KernelMS, Tuning: true, Tried: fallback.Tried,
		Judge: judgeName, ReferenceFailure: refFailure}, true, nil
}

// newSession starts s's search, whose baseline is the known-good configuration's first
// measurement on the application's data.
func (t *Tuner) newSession(ctx context.Context, s *search, baseline result.Evaluation) error {
	st, err := strategy.New(t.opts.Strategy, t.opts.StrategyOptions)
	if err != nil {
		return err
	}
	sink := t.opts.Sink
	if t.opts.SinkFor != nil {
		all := Sizes{}
		for _, c := range s.spec.Constants {
			all[c.Name] = c.Value
		}
		if sink, err = t.opts.SinkFor(ctx, all, s.spec, s.sp); err != nil {
			return fmt.Errorf("dynamic: the sink of %s: %w", sizesOrOwn(s.key), err)
		}
	}
	o := tuning.Options{Budget: t.opts.Budget, TimeLimit: t.opts.TimeLimit, Seed: t.opts.Seed,
		Maximize: t.maximize, Sink: sink, Logger: t.opts.Logger, Since: time.Now()}
	if baseline.Status == result.OK {
		o.Measured = []result.Evaluation{baseline}
	}
	if t.opts.Target != 0 {
		o.Stop = append(o.Stop, tuning.Target(t.opts.Target))
	}
	var watch *efficiency.Watch
	if t.opts.WithinPeak > 0 {
		th, err := t.threshold(s.spec)
		if err != nil {
			return err
		}
		objective, _ := s.spec.Objective()
		watch = th.Watch(objective)
		watch.Observe(baseline) // the baseline may be well-performing itself
		o.Stop = append(o.Stop, watch.Stop)
	}
	sess, err := tuning.New(s.sp, st, nil, o)
	if err != nil {
		return err
	}
	s.sink = sink // closed with the search (SinkFor's) from here on
	s.watch = watch
	if sink != nil {
		// the sink does not receive Measured: the baseline is recorded here
		if err := sink.Record(context.Background(), baseline); err != nil {
			sess.Close()
			t.endSession(s)
			return fmt.Errorf("dynamic: recording the baseline: %w", err)
		}
	}
	s.sess = sess
	t.mu.Lock()
	s.last = sess
	t.mu.Unlock()
	return nil
}

// threshold is Options.WithinPeak's well-performing threshold for sp, a spec at one
// size, on the tuner's device, against the peaks given or derived.
func (t *Tuner) threshold(sp *spec.Spec) (efficiency.Threshold, error) {
	ops, ok := efficiency.FromSpec(sp.Essential)
	if !ok {
		return efficiency.Threshold{}, fmt.Errorf("dynamic: WithinPeak %v: spec %s declares no essential_ops (the bytes and flops its task essentially needs: 'ktune help spec'), from which efficiency against the device's peak is computed; declare them, or stop at an objective value (Target)", t.opts.WithinPeak, sp.File)
	}
	given, err := t.opts.PeaksFile.For(efficiency.DeviceOf(t.dev.Info()), ops.Precision, t.opts.Peaks)
	if err != nil {
		return efficiency.Threshold{}, fmt.Errorf("dynamic: WithinPeak %v: %w", t.opts.WithinPeak, err)
	}
	th, err := efficiency.NewThreshold(ops, efficiency.Resolve(t.dev.Info().Peak, ops.Precision, given), t.opts.WithinPeak)
	if err != nil {
		var mp *efficiency.MissingPeakError
		if errors.As(err, &mp) {
			// the library's caller gives peaks in Options, not with ktune's flags
			return efficiency.Threshold{}, fmt.Errorf("dynamic: WithinPeak %v: %s", t.opts.WithinPeak, mp.Phrase(
				"Options.Peaks.GBs (GB/s), or gbs in the device's entry of Options.PeaksFile",
				"Options.Peaks.GFLOPS (GFLOP/s, "+mp.Precision+"), or gflops: {"+mp.Precision+": GFLOP/s} in the device's entry of Options.PeaksFile"))
		}
		return efficiency.Threshold{}, fmt.Errorf("dynamic: WithinPeak %v: %w", t.opts.WithinPeak, err)
	}
	return th, nil
}

// sizesOrOwn names a search's sizes in messages.
func sizesOrOwn(key string) string {
	if key == "" {
		return "the spec's own sizes"
	}
	return key
}
