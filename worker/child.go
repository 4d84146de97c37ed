package worker

import (
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"syscall"
	"time"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
)

// Measurer is what a child process does with configurations: the runner package
// implements it on a real device.
type Measurer interface {
	// Evaluate compiles, runs, verifies and times c. It calls phase("compiled") once
	// compilation is over and the kernel is about to run (the run time limit starts), and
	// phase("timing") just before the timed runs (nothing else may use the device then);
	// in a child of a supervisor that pauses its pre-compilers while timing, that call
	// returns once they are stopped.
	Evaluate(ctx context.Context, c space.Config, phase func(string)) result.Evaluation
	// Compile only compiles c, so that a later Evaluate finds it in a compiler cache.
	// Where that takes a launch (runtimes that generate code at the first launch), it
	// calls phase("compiled") before it (the run time limit starts).
	Compile(ctx context.Context, c space.Config, phase func(string)) error
}

// Referencer is a Measurer that verifies outputs against a reference: Reference computes
// the reference (on first use, as Evaluate would) and says why there is none. A reference
// that fails would fail every configuration's verification, so the parent asks first.
type Referencer interface {
	// It calls phase("compiled") once the reference kernel is compiled and about to run
	// (the run time limit starts).
	Reference(ctx context.Context, phase func(string)) error
}

// Checker is a Measurer that can compare what it passes to a kernel with what the kernel
// declares: the parent asks first, since a mismatch would spoil every configuration.
type Checker interface {
	// Check returns an error that says where the arguments and the kernel's parameters
	// differ, nil when they agree or cannot be compared.
	Check(ctx context.Context) error
}

// Describer is a Measurer that says what device it measures on, as it opened it (under
// the child's memory limit): the parent's Supervisor.DeviceInfo.
type Describer interface {
	DeviceInfo() device.Info
}

// Breakable is a Measurer whose device can be lost for the rest of the process: after an
// answer with Broken non-nil the child retires and a fresh process takes over.
type Breakable interface {
	Broken() error
}

// Faulter is a Measurer whose evaluation can fail for the machine's sake, not the
// configuration's (a full compile cache, a compiler killed for memory): Fault returns
// that failure after the Evaluate it spoiled, nil otherwise. The parent's Evaluate then
// returns an error instead of the evaluation (ErrEnvironment), so that nothing is stored
// for the configuration and the tuning stops.
type Faulter interface {
	Fault() error
}

// Idler is a Measurer with work to do between requests that the next request would
// otherwise wait for (the runner resets the buffers an evaluation changed): Serve calls
// Idle after each answer, while the parent stores the result and picks what comes next.
type Idler interface {
	Idle()
}

// ServeChild is the body of a worker process: it opens the measurer with open (on this
// goroutine, locked to its OS thread, since device contexts may be bound to threads),
// reports ready, then serves requests from file descriptor 3 and answers on file
// descriptor 4 until the parent closes the pipe. If the parent dies first (killed, out of
// memory, a test run past its deadline), the process exits within a second, even in the
// middle of a kernel that never returns. Before it opens the measurer, it takes the
// memory limit its supervisor set (Options.MemoryLimit) and offers itself to the
// out-of-memory killer before the tuner.
func ServeChild(ctx context.Context, open func() (Measurer, error)) error {
	in := os.NewFile(3, "worker-requests")
	out := os.NewFile(4, "worker-responses")
	if in == nil || out == nil {
		return errors.New("worker: not started by a ktune supervisor (file descriptors 3 and 4 are missing)")
	}
	// Programs a kernel runs (system("...")) must not inherit the protocol's pipes: one
	// that outlives the process would hold its answers open.
	syscall.CloseOnExec(3)
	syscall.CloseOnExec(4)
	lineBufferStdout()
	go exitWithParent(os.Getppid(), parentPoll)
	return serve(ctx, in, out, os.Stderr, func() (Measurer, error) {
		// before the device is opened: what it maps counts against the limit
		if err := limitChild(); err != nil {
			return nil, err
		}
		return open()
	})
}

// parentPoll is how often a child checks that its parent lives.
const parentPoll = 250 * time.Millisecond

// exitWithParent ends the process once it is no longer the child of ppid: an orphan is
// re-parented (to init or a subreaper), and nothing is left to read what it measures.
// Closing the request pipe would not reach a child stuck in a kernel.
func exitWithParent(ppid int, poll time.Duration) {
	for {
		time.Sleep(poll)
		if os.Getppid() != ppid {
			fmt.Fprintln(os.Stderr, "ktune worker: the tuner that started it is gone; exiting")
			os.Exit(3)
		}
	}
}

// Serve is ServeChild over explicit streams.
func Serve(ctx context.Context, in io.Reader, out io.Writer, open func() (Measurer, error)) error {
	return serve(ctx, in, out, io.Discard, open)
}

// serve is Serve writing a requestMark on marks before it serves each request: marks is
// the stream the parent captures, the kernel's standard error.
func serve(ctx context.Context, in io.Reader, out, marks io.Writer, open func() (Measurer, error)) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	enc := gob.NewEncoder(out)
	dec := gob.NewDecoder(in)
	m, err := open()
	if err != nil {
		enc.Encode(response{Phase: phaseReady, Err: err.Error()})
		return err
	}
	ready := response{Phase: phaseReady}
	if d, ok := m.(Describer); ok {
		info := d.DeviceInfo()
		ready.Info = &info
	}
	if err := enc.Encode(ready); err != nil {
		return err
	}
	// A measurer that reports its arrays' guard regions has them sent to the parent, which
	// names the array a crash touched by them.
	if g, ok := m.(interface{ ReportGuards(func(string)) }); ok {
		g.ReportGuards(func(guards string) { enc.Encode(response{Phase: phaseGuards, Err: guards}) })
	}
	// A measurer that holds resources (device settings it changed) gives them back when
	// the parent is done with this child or the child retires.
	if c, ok := m.(interface{ Close() }); ok {
		defer c.Close()
	}
	for {
		var req request
		if err := dec.Decode(&req); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("worker: reading request: %w", err)
		}
		marks.Write(requestMark)
		phase := func(phase string) {
			enc.Encode(response{ID: req.ID, Phase: phase})
			if phase == phaseTiming && req.AwaitTiming {
				// The parent answers once the pre-compilers are stopped. A parent that is
				// gone answers nothing: the next request's read then ends the loop.
				var proceed request
				dec.Decode(&proceed)
			}
		}
		resp := response{ID: req.ID, Phase: phaseDone}
		var err, fault error
		switch req.Op {
		case opEvaluate:
			resp.Eval = toWire(m.Evaluate(ctx, space.Config(req.Config), phase))
			if f, ok := m.(Faulter); ok {
				fault = f.Fault()
			}
		case opCompile:
			err = m.Compile(ctx, space.Config(req.Config), phase)
		case opReference:
			if rm, ok := m.(Referencer); ok {
				err = rm.Reference(ctx, phase)
			}
		case opCheck:
			if cm, ok := m.(Checker); ok {
				err = cm.Check(ctx)
			}
		default:
			enc.Encode(response{ID: req.ID, Phase: phaseDone, Err: "unknown operation " + req.Op})
			continue
		}
		if err != nil {
			resp.Err = err.Error()
			if env := new(device.EnvironmentError); errors.As(err, &env) {
				fault = env
			}
		}
		if fault != nil {
			resp.Fault = fault.Error()
		}
		// A measurer whose device is lost answers, then the child retires.
		lost := broken(m)
		if lost != nil {
			resp.Retire = lost.Error()
		}
		if err := enc.Encode(resp); err != nil {
			return err
		}
		if lost != nil {
			return nil
		}
		if im, ok := m.(Idler); ok {
			im.Idle()
		}
	}
}

// broken is m's Broken, nil for a measurer that cannot break.
func broken(m Measurer) error {
	if b, ok := m.(Breakable); ok {
		return b.Broken()
	}
	return nil
}
