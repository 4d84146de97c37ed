package worker

import (
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
)

// Options configure a Supervisor.
type Options struct {
	// Command is the child's command line: the program and its arguments.
	Command []string
	// Env is added to the child's environment. The child's GODEBUG always ends with
	// asyncpreemptoff=1: no preemption signal of the Go runtime interrupts a kernel.
	Env []string
	// Timeout limits the run phase of one evaluation (after compilation): a kernel that
	// runs longer is killed and gets the status timeout. 0 means no limit. Neither limit
	// counts time the supervisor's process was stopped for longer than a second (SIGSTOP
	// and SIGCONT, as a batch scheduler suspends a job): a configuration measured across
	// such a stop is measured again, once, since its timed runs may hold the stop.
	Timeout time.Duration
	// CompileTimeout limits compiling one configuration (a spec's compile_timeout); 0
	// means 5 minutes. A pre-compiler's time paused while a kernel is timed does not
	// count. A child's start-up gets the same limit, but at least a minute.
	CompileTimeout time.Duration
	// Precompile starts children that compile configurations passed to Hint ahead of time.
	Precompile bool
	// Precompilers is how many such children compile side by side (default 1). Where
	// compiling dominates (NVRTC on a GPU host with many cores) several keep the measuring
	// child fed when a strategy hints several configurations ahead.
	Precompilers int
	// PauseWhileTiming stops the pre-compilers while the measuring child times a kernel:
	// on a CPU device (PoCL, host C) they would compete with the kernel for the cores. A
	// GPU's kernels are timed by the device, and compiling goes on beside them.
	PauseWhileTiming bool
	// PrecompiledBy, when set, is another supervisor, of an identical device whose
	// compiler cache this one's children share, whose pre-compilers compile for this one
	// too (its Precompile is then what counts, not this one's): Evaluate waits for them to
	// finish a configuration they are compiling rather than compile it a second time, sets
	// the idle ones to the next hinted configurations, takes a configuration that hung in
	// one as its timeout, and with PauseWhileTiming pauses them while its kernel is timed.
	// Hint that supervisor, not this one. Close this one first.
	PrecompiledBy *Supervisor
	// MemoryLimit bounds each child's memory, in bytes: on Linux its data limit
	// (RLIMIT_DATA: the private writable memory it maps, heap, buffers and thread stacks
	// included), set before it opens its device, which the compilers it starts inherit.
	// An allocation beyond it fails in the child alone, as that configuration's failure,
	// before the machine runs short. 0 means none (DefaultMemoryLimit is a sensible one
	// on a CPU device). Children also offer themselves to the out-of-memory killer first.
	MemoryLimit int64
	// Log receives the children's lifecycle events (a child started, crashed or was
	// replaced, at level info; details at debug); slog.Default() when nil.
	Log *slog.Logger
}

// Supervisor evaluates configurations in a child process and replaces the child when it
// dies or hangs. It implements tuning.Evaluator. Its methods are safe for one caller of
// Evaluate at a time (plus Hint and Close from anywhere).
type Supervisor struct {
	opts Options
	log  *slog.Logger
	// exitGrace is how long Close lets an idle child end cleanly before it kills it.
	exitGrace time.Duration
	mu        sync.Mutex // serialises Evaluate
	main      *child
	preMu     sync.Mutex // guards the pre-compilers' state below
	pres      []*preSlot
	pausers   int                      // measurements timing a kernel, which hold the pre-compilers paused
	upcoming  []space.Config           // the latest hint: what the strategy will ask next, in order
	inflight  map[string]chan struct{} // configurations being pre-compiled, each closed when done
	ready     map[string]bool          // configurations the pre-compilers have compiled
	hung      map[string]hang          // configurations that ran past a time limit in a pre-compiler
	stop      chan struct{}
	wg        sync.WaitGroup
	nextID    uint64
	// discounted is the part of the last Evaluate's wall time that belongs to no
	// measurement it returned: while this process was stopped, and a measurement thrown
	// away for a stop (Discounted).
	discounted time.Duration
	// reference is set once Reference succeeded: every main child computes the reference
	// before it measures anything, a fresh one that replaces a crashed one included.
	reference bool
	Crashes   int // children that died or were killed, for reporting

	// info is the device as the last child that started opened it (DeviceInfo)
	info atomic.Pointer[device.Info]
}

// hang is how a configuration ran past a time limit in a pre-compiler: its compilation,
// or its kernel. compiling is how long the pre-compiler compiled it (until the kill, or
// until its warm-up launch), ran how long that launch ran until the kill; neither counts
// the pre-compiler's pauses nor the stops of this process.
type hang struct {
	how            hangKind
	compiling, ran time.Duration
}

// hangKind says which limit a configuration ran past.
type hangKind int

const (
	hungCompiling hangKind = iota + 1 // its compilation ran past the compile time limit
	hungRunning                       // its warm-up launch ran past the run time limit
)

// errHung is coordinate's answer for a configuration that ran past a time limit in a
// pre-compiler: the measuring child would only hang on it again, for as long.
type errHung struct{ hang }

func (e errHung) Error() string { return "hung in a pre-compiler" }

// ErrClosed is what Evaluate and Reference return once Close was called: a closed
// supervisor starts no child again.
var ErrClosed = errors.New("worker: the supervisor is closed")

// ErrWorkerStart is returned when a child cannot start serving (its device cannot be
// opened, its spec is broken): no configuration can be measured, so tuning must stop.
var ErrWorkerStart = errors.New("worker could not start")

// ErrCommandRefused is wrapped, beside ErrWorkerStart, when the child refused its command
// line (an undefined flag): Options.Command starts a program that does not serve these
// arguments, or one that parses its own flags before it serves.
var ErrCommandRefused = errors.New("the program refused its command line")

// NewSupervisor returns a supervisor; the first child starts on the first Evaluate.
func NewSupervisor(opts Options) *Supervisor {
	if opts.CompileTimeout == 0 {
		opts.CompileTimeout = 5 * time.Minute
	}
	s := &Supervisor{opts: opts, log: opts.Log, exitGrace: 2 * time.Second, stop: make(chan struct{}), ready: map[string]bool{},
		hung: map[string]hang{}, inflight: map[string]chan struct{}{}}
	if opts.Precompile {
		for range max(opts.Precompilers, 1) {
			s.pres = append(s.pres, &preSlot{})
		}
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	return s
}

// preSlot is one pre-compiler: its child (nil until first used, or after it was dropped)
// and whether it is compiling.
type preSlot struct {
	ch   *child
	busy bool
	// paused is how long the slot's children were stopped while kernels were timed, up
	// to pausedSince, when it was stopped last (zero while it runs): that time does not
	// count against a time limit.
	paused      time.Duration
	pausedSince time.Time
}

// pausedFor is how long the slot has been stopped in all, until now; s.preMu is held.
func (slot *preSlot) pausedFor() time.Duration {
	if slot.pausedSince.IsZero() {
		return slot.paused
	}
	return slot.paused + time.Since(slot.pausedSince)
}

// child is one worker process.
type child struct {
	cmd   *exec.Cmd
	enc   *gob.Encoder
	reqW  *os.File
	resps chan response // closed when the answer pipe closes, at most outputGrace after dead
	// dead is closed once the process has exited and its process group (whatever it
	// started: compilers, programs a kernel ran) was killed.
	dead chan struct{}
	// exited is closed when the process has been reaped and waitErr set, at most
	// outputGrace after dead.
	exited  chan struct{}
	waitErr error
	output  *tail
	guards  atomic.Pointer[string] // the last guard map the child sent (phaseGuards)
	// killed is set once the supervisor sent the child SIGKILL: a SIGKILL it did not send
	// came from outside, from the out-of-memory killer as a rule.
	killed atomic.Bool
}

// outputGrace is how long a dead child's output and answer pipes are read before they are
// closed: a process a kernel started in a session of its own (a daemon, `setsid cmd &`)
// escapes the kill of the child's process group and may hold them open for as long as it
// lives. What the child wrote before it died is read well within it.
const outputGrace = time.Second

// died reports whether the child's process has exited.
func (c *child) died() bool {
	select {
	case <-c.dead:
		return true
	default:
		return false
	}
}

func (s *Supervisor) start(ctx context.Context, role string) (*child, error) {
	if len(s.opts.Command) == 0 {
		return nil, fmt.Errorf("%w: no worker command", ErrWorkerStart)
	}
	reqR, reqW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	respR, respW, err := os.Pipe()
	if err != nil {
		reqR.Close()
		reqW.Close()
		return nil, err
	}
	c := &child{resps: make(chan response, 4), dead: make(chan struct{}), exited: make(chan struct{}), output: &tail{}}
	// Not CommandContext: the supervisor decides when a child dies, and kills its whole
	// process group (compilers it started included).
	cmd := exec.Command(s.opts.Command[0], s.opts.Command[1:]...)
	env := append(os.Environ(), s.opts.Env...)
	if s.opts.MemoryLimit > 0 {
		env = append(env, fmt.Sprintf("%s=%d", memoryLimitEnv, s.opts.MemoryLimit))
	}
	cmd.Env = childEnv(env)
	cmd.ExtraFiles = []*os.File{reqR, respW}
	cmd.Stdout, cmd.Stderr = c.output, c.output
	cmd.WaitDelay = outputGrace
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		reqR.Close()
		reqW.Close()
		respR.Close()
		respW.Close()
		return nil, fmt.Errorf("%w: %v", ErrWorkerStart, err)
	}
	reqR.Close()
	respW.Close()
	c.cmd, c.reqW, c.enc = cmd, reqW, gob.NewEncoder(reqW)
	go func() {
		dec := gob.NewDecoder(respR)
		for {
			var r response
			if err := dec.Decode(&r); err != nil {
				close(c.resps)
				respR.Close()
				return
			}
			if r.Phase == phaseGuards {
				c.guards.Store(&r.Err)
				continue
			}
			c.resps <- r
		}
	}()
	go func() {
		pid := cmd.Process.Pid
		reaped, err := false, error(nil)
		if !awaitExit(pid) {
			err, reaped = cmd.Wait(), true
		}
		// Before the child is reaped its pid names its process group for certain: kill
		// what it left running there, as a crashed or killed child's compiler or a
		// program its kernel started, holding its output open.
		syscall.Kill(-pid, syscall.SIGKILL)
		close(c.dead)
		time.AfterFunc(outputGrace, func() { respR.Close() })
		if !reaped {
			err = cmd.Wait()
		}
		if errors.Is(err, exec.ErrWaitDelay) {
			err = nil // it exited successfully; something it started kept its output open
		}
		c.waitErr = err
		close(c.exited)
	}()
	s.log.Debug("worker started", "role", role, "pid", cmd.Process.Pid)
	// Start-up is not compiling: loading the spec and opening the device takes seconds at
	// worst, but a short compile_timeout must not stop a run whose device is slow to open.
	startLimit := max(s.opts.CompileTimeout, time.Minute)
	lim := newLimit(startLimit)
	defer lim.stop()
	for {
		select {
		case r, ok := <-c.resps:
			if !ok {
				<-c.exited
				return nil, s.startFailure(c)
			}
			if r.Err != "" {
				c.kill()
				return nil, fmt.Errorf("%w: %s%s", ErrWorkerStart, r.Err, s.startNote())
			}
			if r.Info != nil {
				s.info.Store(r.Info)
			}
			return c, nil
		case <-lim.C():
			if !lim.expired() {
				continue
			}
			c.kill()
			return nil, fmt.Errorf("%w: no answer within %v", ErrWorkerStart, startLimit)
		case <-ctx.Done():
			c.kill()
			return nil, ctx.Err()
		}
	}
}

// noteMemory adds to the message of a failure that the child reported (not a crash) what
// memoryNote says when the message names a failed allocation ("argument a: allocating
// ...: cannot allocate memory", a compiler's "out of memory allocating") under a memory
// limit: the limit, and how to give more.
func (s *Supervisor) noteMemory(msg string) string {
	if s.opts.MemoryLimit <= 0 || strings.Contains(msg, "--worker-memory") {
		return msg
	}
	if note := memoryNote(crash{}, []string{msg}, s.opts.MemoryLimit); note != "" {
		return msg + "; " + note
	}
	return msg
}

// startFailure is the error of child c, which exited before it was ready: how it ended
// and the first lines it printed, which say why ("fatal error: runtime: out of memory",
// "runtime/cgo: pthread_create failed: ..."), without the Go runtime's report that
// follows them (goroutines, stacks, addresses: dozens of lines that would bury the
// cause), which goes to the log; then what the memory limit has to do with it.
func (s *Supervisor) startFailure(c *child) error {
	lines := c.output.lines(40)
	cr := describeCrash(c.waitErr, lines)
	var said []string
	for _, l := range cr.printed {
		// threads that fail at once print over each other: "runtime/cgo: runtime/cgo: ..."
		for strings.Contains(l, "runtime/cgo: runtime/cgo: ") {
			l = strings.ReplaceAll(l, "runtime/cgo: runtime/cgo: ", "runtime/cgo: ")
		}
		if !slices.Contains(said, l) {
			said = append(said, l)
		}
	}
	keep := 3
	if cr.signal != "" || len(cr.detail) > 0 {
		keep = 1 // what the runtime said before its report says it all
	}
	said = said[:min(len(said), keep)]
	msg := fmt.Sprintf("the worker exited (%v)", c.waitErr)
	if c.waitErr == nil {
		msg = "the worker exited (exit status 0) without serving"
	}
	if cr.signal != "" {
		msg = "the worker crashed: " + cr.signal
	}
	switch {
	case len(said) > 0 && cr.signal != "":
		msg += ", after printing: " + strings.Join(said, "; ")
	case len(said) > 0:
		msg += ": " + strings.Join(said, "; ")
	}
	s.log.Debug("worker could not start", "error", c.waitErr, "output", strings.Join(lines, "\n"))
	if s.opts.MemoryLimit > 0 && anyContains(lines, outOfMemoryWords...) {
		return fmt.Errorf("%w: %s; it ran out of memory: the workers' memory limit of %s (--worker-memory) is too little to start one and open its device; give more (a worker on PoCL needs about 384 MiB, on the host C device 200 to 350 MiB)",
			ErrWorkerStart, msg, space.FormatBytes(s.opts.MemoryLimit))
	}
	switch {
	case anyContains(lines, refusedWords...):
		// a program that does not serve the arguments it was started with: no memory
		// limit has anything to do with it
		return fmt.Errorf("%w: %s (%w %q: it does not serve these arguments)",
			ErrWorkerStart, msg, ErrCommandRefused, strings.Join(s.opts.Command, " "))
	case c.waitErr == nil:
		// it ended of its own accord, neither killed nor failing: not for memory
		return fmt.Errorf("%w: %s", ErrWorkerStart, msg)
	}
	return fmt.Errorf("%w: %s%s", ErrWorkerStart, msg, s.startNote())
}

// refusedWords are what programs print, in lower case, when they refuse their command
// line: Go's flag package ("flag provided but not defined: -spec"), pflag and cobra
// ("unknown flag: --spec"), getopt ("unrecognized option '--spec'").
var refusedWords = []string{"flag provided but not defined", "unknown flag", "unrecognized option"}

// startNote is what a child that could not start adds to its error: a memory limit too
// low to open the device fails in many ways (a runtime that finds no platform, one that
// dies of bad_alloc, the Go runtime's "out of memory").
func (s *Supervisor) startNote() string {
	if s.opts.MemoryLimit <= 0 {
		return ""
	}
	return fmt.Sprintf(" (its memory was limited to %s by --worker-memory, which may be too little to open the device)", space.FormatBytes(s.opts.MemoryLimit))
}

// childEnv is a child's environment env with asyncpreemptoff=1 added to GODEBUG (after
// the settings of env's last GODEBUG, which are kept, as the child would read them). The Go
// runtime preempts a goroutine that runs on for long with a signal (SIGURG), and one that
// reaches the thread running a host C kernel cuts the kernel's sleeps and blocking calls
// short (EINTR), so that its measured time is wrong.
func childEnv(env []string) []string {
	godebug := ""
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GODEBUG="); ok {
			godebug = v
			continue
		}
		out = append(out, kv)
	}
	if godebug != "" {
		godebug += ","
	}
	return append(out, "GODEBUG="+godebug+"asyncpreemptoff=1")
}

// kill kills the child's process group and waits until the child is reaped.
func (c *child) kill() {
	c.killed.Store(true)
	c.signal(syscall.SIGKILL)
	c.reqW.Close()
	<-c.exited
}

// signal sends sig to the child's process group while the child lives; once it died, its
// group was killed, and its pid may be another process's.
func (c *child) signal(sig syscall.Signal) {
	if c != nil && c.cmd.Process != nil && !c.died() {
		syscall.Kill(-c.cmd.Process.Pid, sig)
	}
}

// Evaluate measures c in the main child, starting or replacing it as needed. A crash or a
// hang is a result (runtime_error, timeout), not an error; an error means no child can
// serve (ErrWorkerStart) or ctx ended.
func (s *Supervisor) Evaluate(ctx context.Context, c space.Config) (result.Evaluation, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.discounted = 0
	if s.closed() {
		return result.Evaluation{}, ErrClosed
	}
	if err := s.startMain(ctx); err != nil {
		return result.Evaluation{}, err
	}
	ch := s.main
	waited, err := s.precompiler().coordinate(ctx, c, s.log)
	var hung errHung
	if errors.As(err, &hung) {
		// Measured once already, in the pre-compiler: the measuring child would only hang
		// on it again, for as long. Its times are the pre-compiler's, as the measuring
		// child's would be: compiling until the kill or the launch, then the kernel's. The
		// wait for the pre-compiler is part of them, or none of it when the pre-compiler
		// gave up before this configuration's turn came.
		e := result.Evaluation{Status: result.Timeout, Objective: math.NaN(), Time: time.Now(),
			CompileMS: ms(hung.compiling), BenchmarkMS: ms(hung.ran)}
		if hung.how == hungCompiling {
			s.log.Info("compilation hung while compiled ahead; not compiled again", "limit", s.opts.CompileTimeout)
			e.Message = s.overLimit(false, "")
		} else {
			s.log.Info("kernel hung in its warm-up launch while compiled ahead; not run again", "limit", s.opts.Timeout)
			e.Message = s.overLimit(true, "the kernel") + " (in its warm-up launch on one work-group, while compiled ahead)"
		}
		return e, nil
	}
	if err != nil {
		return result.Evaluation{}, err
	}
	first := time.Now()
	e, stopped, err := s.measure(ctx, ch, c, waited)
	s.discounted = stopped
	if err != nil || stopped == 0 || e.Status != result.OK {
		return e, err
	}
	// This process was stopped while the child measured (a batch scheduler suspends the
	// child with it): the kernel's samples may hold the stop. Measure it again, once; the
	// configuration is compiled by now, and its compilation is the first measurement's.
	s.log.Info("the tuner was stopped while a configuration was measured; measuring it again", "stopped", stopped)
	if err := s.startMain(ctx); err != nil {
		return result.Evaluation{}, err
	}
	s.discounted = time.Since(first)
	again, stopped, err := s.measure(ctx, s.main, c, 0)
	s.discounted += stopped
	if err == nil && again.Status == result.OK {
		again.CompileMS = e.CompileMS
	}
	return again, err
}

// Discounted is the part of the last Evaluate's wall time that is no part of the
// evaluation it returned: the time this process was seen stopped (SIGSTOP) while it
// measured, and a measurement measured again for such a stop. A caller that times
// Evaluate to find its framework overhead leaves it out.
func (s *Supervisor) Discounted() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.discounted
}

// measure has the main child ch evaluate c, which took waited to compile ahead, and
// returns the evaluation and how long this process was seen stopped meanwhile (which
// does not count against the time limits).
func (s *Supervisor) measure(ctx context.Context, ch *child, c space.Config, waited time.Duration) (result.Evaluation, time.Duration, error) {
	s.nextID++
	id := s.nextID
	start := time.Now()
	if err := ch.enc.Encode(request{ID: id, Op: opEvaluate, Config: c, AwaitTiming: s.opts.PauseWhileTiming}); err != nil {
		return s.crashed(ch, start, "the worker process", "receiving the configuration"), 0, nil
	}
	lim := newLimit(s.opts.CompileTimeout)
	defer lim.stop()
	paused := false
	defer func() {
		if paused {
			s.precompiler().resumePrecompilers()
		}
	}()
	running, timing := false, false
	subject := "the kernel"           // what runs, for the message of a crash or a hang (phaseRunning)
	var compiled time.Time            // when compilation ended and the kernel started
	var stoppedAtLaunch time.Duration // how long this process had been stopped by then
	for {
		select {
		case r, ok := <-ch.resps:
			lim.observe()
			if !ok {
				end := time.Now()
				e, err := s.died(ch, start, running, subject)
				splitCrashTime(&e, start, end, compiled, waited, stoppedAtLaunch, lim.stopped, running)
				return e, lim.stopped, err
			}
			if r.ID != id {
				continue
			}
			if what, ok := strings.CutPrefix(r.Phase, phaseRunning); ok {
				subject = what
				continue
			}
			switch r.Phase {
			case phaseTiming:
				timing, subject = true, "the kernel"
				// Time the kernel alone: hold the pre-compilers while it runs.
				if !paused && s.opts.PauseWhileTiming {
					paused = s.precompiler().pausePrecompilers()
				}
				if s.opts.PauseWhileTiming {
					// The child waits for this before its first timed run (a child that
					// died meanwhile closes its answers, which the loop sees).
					ch.enc.Encode(request{ID: id, Op: opProceed})
				}
			case phaseCompiled:
				running, compiled, stoppedAtLaunch = true, time.Now(), lim.stopped
				subject = "the kernel"
				lim.reset(s.opts.Timeout)
			case phaseDone:
				if r.Retire != "" {
					s.retire(ch, r.Retire)
				}
				if r.Fault != "" {
					return result.Evaluation{}, lim.stopped, &environmentError{r.Fault}
				}
				if r.Err != "" {
					return result.Evaluation{}, 0, fmt.Errorf("worker: %s", r.Err)
				}
				e := r.Eval.evaluation()
				e.CompileMS += ms(waited)
				if e.Status != result.OK {
					e.Message = s.noteMemory(e.Message)
				}
				return e, lim.stopped, nil
			}
		case <-lim.C():
			if !lim.expired() {
				continue
			}
			if ch.died() {
				// It died in time; what it started may still hold its answer pipe.
				end := time.Now()
				e, err := s.died(ch, start, running, subject)
				splitCrashTime(&e, start, end, compiled, waited, stoppedAtLaunch, lim.stopped, running)
				return e, lim.stopped, err
			}
			ch.kill()
			s.main = nil
			s.Crashes++
			s.log.Info("worker killed after its time limit", "running", running)
			// The time until the kernel started is compilation (the wait for a
			// pre-compiler included), from then on the kernel's: its warm-up, verification
			// and timed runs, one of which hung. Stops of this process count as neither.
			msg := s.overLimit(running, subject)
			if timing {
				// Its first run ended, and passed verification: a kernel slow enough
				// that all its runs together take longer than the limit is not hung.
				// Fewer iterations would not help: the runner leaves out the runs that
				// would pass the limit, all but the first timed one.
				msg += " during its timed runs, after its first run had finished: the limit counts every run of a configuration, and a kernel is timed over the runs that fit in it but at least once, so one this slow needs a longer timeout"
			}
			e := result.Evaluation{Status: result.Timeout, Objective: math.NaN(), Time: time.Now(), Message: msg,
				CompileMS: ms(waited + time.Since(start) - lim.stopped)}
			if running {
				e.CompileMS = ms(waited + compiled.Sub(start) - stoppedAtLaunch)
				e.BenchmarkMS = ms(time.Since(compiled) - (lim.stopped - stoppedAtLaunch))
			}
			return e, lim.stopped, nil
		case <-ctx.Done():
			ch.kill()
			s.main = nil
			return result.Evaluation{}, 0, ctx.Err()
		}
	}
}

// overLimit is the message of a configuration killed for running past a time limit: the
// run time limit (a spec's timeout) when subject (the kernel, the reference, a
// verification function) was running, else the compile time limit (compile_timeout).
func (s *Supervisor) overLimit(running bool, subject string) string {
	if running {
		return fmt.Sprintf("%s ran past the time limit of %v (timeout) and was killed", subject, s.opts.Timeout)
	}
	return fmt.Sprintf("compilation ran past the time limit of %v (compile_timeout) and was killed", s.opts.CompileTimeout)
}

// ErrEnvironment marks the error of Evaluate, Reference and Check when the work failed for
// the machine's sake, not the configuration's: the compile cache's folder is full or cannot
// be written, a runtime could not write its own cache, the compiler was killed for memory.
// The configuration may well build once the cause is gone: nothing is to be stored for it,
// and tuning stops.
var ErrEnvironment = errors.New("a failure of the machine, not of the configuration")

// environmentError is an ErrEnvironment error in the child's words.
type environmentError struct{ msg string }

func (e *environmentError) Error() string        { return e.msg }
func (e *environmentError) Is(target error) bool { return target == ErrEnvironment }

// ErrReference is returned by Reference when the reference outputs cannot be computed:
// every configuration would fail verification, so tuning must not start.
var ErrReference = errors.New("no reference to verify against")

// ErrReferenceLost is returned by Evaluate when the reference outputs, computed once
// (Reference), cannot be computed again in a fresh child, which replaced one that died or
// was killed: not in it, nor in another fresh child started to try again. The
// configuration is not measured: it cannot be judged without the reference, and its
// failure is not the configuration's. The error is not ErrReference: the reference was
// computed before, and what fails now is the moment's (memory the limit or the machine
// leaves short, a kill from outside), as its message says.
var ErrReferenceLost = errors.New("a fresh worker, replacing one that died or was killed, could not compute the reference outputs again, nor another fresh worker after it")

// Reference has the main child compute the reference outputs that configurations are
// verified against, before any configuration is measured, and returns an ErrReference
// error when that fails: the reference does not compile, fails to run, crashes its
// process or runs past the compile or the run time limit. The child keeps the
// reference for the evaluations that follow, and once it succeeded every fresh child
// computes it before it measures anything (Evaluate, ErrReferenceLost).
func (s *Supervisor) Reference(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed() {
		return ErrClosed
	}
	if err := s.startMain(ctx); err != nil {
		return err
	}
	err := s.askReference(ctx)
	if err == nil {
		s.reference = true
	}
	return err
}

// askReference has the main child compute the reference; s.mu is held and s.main set.
func (s *Supervisor) askReference(ctx context.Context) error {
	answer, failed, err := s.askLocked(ctx, opReference, "the reference")
	switch {
	case err != nil:
		return err
	case failed != "":
		return fmt.Errorf("%w: %s", ErrReference, failed)
	case answer != "":
		return fmt.Errorf("%w: %s", ErrReference, answer)
	}
	return nil
}

// startMain starts the main child when there is none; s.mu is held. Once the reference
// was computed (Reference), a fresh child computes it too before it measures anything, as
// the first one did, in the same state (before any configuration's buffers): verifying
// against a reference it failed to compute would fail every configuration it measures,
// for no fault of theirs. A fresh child that cannot compute it is replaced by another,
// once, since the failure may be the moment's; when that one fails too, the error is
// ErrReferenceLost, in the words of its failure.
func (s *Supervisor) startMain(ctx context.Context) error {
	if s.main != nil {
		return nil
	}
	var why string
	for try := 1; try <= 2; try++ {
		ch, err := s.start(ctx, "measure")
		if err != nil {
			return err
		}
		s.main = ch
		if !s.reference {
			return nil
		}
		err = s.askReference(ctx)
		if err == nil {
			return nil
		}
		if !errors.Is(err, ErrReference) {
			return err // the machine's failure, ctx's end, a closed supervisor
		}
		why = strings.TrimPrefix(err.Error(), ErrReference.Error()+": ")
		s.log.Info("a fresh worker could not compute the reference", "try", try, "error", why)
		if s.main != nil {
			// It answered, and would answer every configuration without a reference: go.
			s.dismiss(s.main)
		}
	}
	return fmt.Errorf("%w: %s", ErrReferenceLost, why)
}

// DeviceInfo is the device as a child opened it, once one has started (Check, Reference
// and Evaluate start one) and where its measurer describes it (Describer); ok is false
// otherwise. Its limits are those the child checks configurations against: under
// Options.MemoryLimit a CPU device's memory may be smaller than this process sees.
func (s *Supervisor) DeviceInfo() (info device.Info, ok bool) {
	if p := s.info.Load(); p != nil {
		return *p, true
	}
	return device.Info{}, false
}

// ErrArguments marks the error of Check: the spec's arguments do not match the kernel's
// parameters.
var ErrArguments = errors.New("the spec's arguments do not match the kernel's parameters")

// argumentsError is the child's answer to a check, which says where in the spec the
// mismatch is; it is ErrArguments.
type argumentsError struct{ msg string }

func (e *argumentsError) Error() string        { return e.msg }
func (e *argumentsError) Is(target error) bool { return target == ErrArguments }

// Check has the main child compare the spec's arguments with the parameters that the
// kernel (and a reference kernel) declares (Checker), before any configuration is
// measured, and returns an error that is ErrArguments, in the child's words (the spec
// file and line), when they differ. A child that crashes or runs past the compile time
// limit while compiling for the check proves nothing about the arguments: Check then
// returns nil, and the evaluations report what happens.
func (s *Supervisor) Check(ctx context.Context) error {
	answer, failed, err := s.ask(ctx, opCheck, "the kernel")
	switch {
	case err != nil:
		return err
	case failed != "":
		s.log.Info("the arguments could not be checked against the kernel", "why", failed)
	case answer != "":
		return &argumentsError{answer}
	}
	return nil
}

// ask has the main child do op (opReference, opCheck), under the compile time limit and,
// once the child says the kernel runs, the run time limit. It returns the child's error
// (answer), or why the child gave none (failed: it crashed or ran past a limit, and is
// gone), or err when the supervisor is closed, the child cannot start or ctx ends.
// subject names what runs after phaseCompiled, for the message of a crash.
func (s *Supervisor) ask(ctx context.Context, op, subject string) (answer, failed string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed() {
		return "", "", ErrClosed
	}
	if err := s.startMain(ctx); err != nil {
		return "", "", err
	}
	return s.askLocked(ctx, op, subject)
}

// askLocked is ask with s.mu held and the main child started.
func (s *Supervisor) askLocked(ctx context.Context, op, subject string) (answer, failed string, err error) {
	ch := s.main
	s.nextID++
	id := s.nextID
	start := time.Now()
	if err := ch.enc.Encode(request{ID: id, Op: op}); err != nil {
		return "", s.crashed(ch, start, "the worker process", "receiving the request").Message, nil
	}
	lim := newLimit(s.opts.CompileTimeout)
	defer lim.stop()
	running := false
	died := func() (string, string, error) {
		who, during := "the worker process", "compiling it"
		if running {
			who, during = subject, ""
		}
		e := s.crashed(ch, start, who, during)
		if environmentCrash(ch.output.lines(40), running) {
			return "", "", &environmentError{e.Message}
		}
		return "", e.Message, nil
	}
	for {
		select {
		case r, ok := <-ch.resps:
			lim.observe()
			if !ok {
				return died()
			}
			if r.ID != id {
				continue
			}
			switch r.Phase {
			case phaseCompiled:
				running = true
				lim.reset(s.opts.Timeout)
				continue
			case phaseDone:
			default:
				continue
			}
			if r.Retire != "" {
				s.retire(ch, r.Retire)
			}
			if r.Fault != "" {
				return "", "", &environmentError{r.Fault}
			}
			if r.Err != "" {
				return s.noteMemory(r.Err), "", nil
			}
			return "", "", nil
		case <-lim.C():
			if !lim.expired() {
				continue
			}
			if ch.died() {
				return died()
			}
			ch.kill()
			s.main = nil
			s.Crashes++
			return "", s.overLimit(running, subject), nil
		case <-ctx.Done():
			ch.kill()
			s.main = nil
			return "", "", ctx.Err()
		}
	}
}

// died reports the death of the main child ch while it compiled, or ran the kernel (or
// subject, what a phaseRunning named): a crash, the configuration's result, unless what the child printed puts it down to the
// machine (environmentCrash): then an ErrEnvironment error.
func (s *Supervisor) died(ch *child, start time.Time, running bool, subject string) (result.Evaluation, error) {
	who, during := "the worker process", "compiling"
	if running {
		who, during = subject, ""
	}
	e := s.crashed(ch, start, who, during)
	if environmentCrash(ch.output.lines(40), running) {
		return result.Evaluation{}, &environmentError{e.Message}
	}
	return e, nil
}

// splitCrashTime divides the time of a configuration whose worker died, from start (when
// it was sent) to end (when its death was seen), as a timeout's is divided: until the
// kernel started (compiled, when running) it is compilation, the wait for a pre-compiler
// included, from then on the kernel's; what follows end (reaping the process) is the
// framework's. Stops of this process (stoppedAtLaunch by the launch, stopped in all)
// count as none of them.
func splitCrashTime(e *result.Evaluation, start, end, compiled time.Time, waited, stoppedAtLaunch, stopped time.Duration, running bool) {
	if e.Status != result.RuntimeError {
		return
	}
	total := e.FrameworkMS
	if running {
		e.CompileMS = ms(waited + compiled.Sub(start) - stoppedAtLaunch)
		e.BenchmarkMS = max(ms(end.Sub(compiled)-(stopped-stoppedAtLaunch)), 0)
	} else {
		e.CompileMS = max(ms(waited+end.Sub(start)-stopped), 0)
	}
	e.FrameworkMS = max(total-ms(end.Sub(start)), 0)
}

// crashed reports the death of the main child ch while subject ("the kernel", "the
// worker process") was busy (during: "compiling", or "" when that is what subject says);
// the message names the signal in one form, so that configurations that crash the same
// way share it, and the Go runtime's report (addresses) goes to the log.
func (s *Supervisor) crashed(ch *child, start time.Time, subject, during string) result.Evaluation {
	ch.reqW.Close()
	select {
	case <-ch.exited:
	case <-time.After(5 * time.Second):
		ch.kill()
	}
	s.main = nil
	s.Crashes++
	lines := ch.output.lines(40)
	c := describeCrash(ch.waitErr, lines)
	c.printed = c.printed[:min(len(c.printed), 6)]
	if g := ch.guards.Load(); g != nil {
		c.where = c.guardHit(*g)
	}
	if c.where == "" && c.nullFault() {
		c.where = "at a null pointer"
	}
	c.outside = c.sig == syscall.SIGKILL && !ch.killed.Load()
	c.memory = memoryNote(c, lines, s.opts.MemoryLimit)
	s.log.Info("worker crashed; starting a new one", "error", ch.waitErr, "signal", c.signal, "from_outside", c.outside,
		"report", strings.Join(c.detail[:min(len(c.detail), 4)], "; "))
	return result.Evaluation{Status: result.RuntimeError, Objective: math.NaN(), Time: time.Now(),
		FrameworkMS: ms(time.Since(start)), Message: c.message(subject, during, ch.waitErr)}
}

// retire lets the main child, which has lost its device context and exits after its
// last answer, go; the next Evaluate starts a fresh one.
func (s *Supervisor) retire(ch *child, why string) {
	s.dismiss(ch)
	s.log.Info("worker lost its device context; starting a new one", "error", why)
}

// dismiss lets the main child ch go, killing it when it does not exit within 5 s; the
// next request starts a fresh one.
func (s *Supervisor) dismiss(ch *child) {
	ch.reqW.Close()
	select {
	case <-ch.exited:
	case <-time.After(5 * time.Second):
		ch.kill()
	}
	s.main = nil
	s.Crashes++
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// Hint tells the supervisor which configurations will probably be evaluated next, in order.
// It never blocks.
func (s *Supervisor) Hint(cs ...space.Config) {
	if !s.opts.Precompile {
		return
	}
	s.preMu.Lock()
	defer s.preMu.Unlock()
	s.upcoming = s.upcoming[:0]
	for _, c := range cs {
		s.upcoming = append(s.upcoming, c.Clone())
	}
}

func configKey(c space.Config) string { return fmt.Sprint([]int(c)) }

// coordinate runs before the measuring child gets c: this supervisor's, or that of one
// whose Options.PrecompiledBy it is. The children split compilation: when
// the measuring child must compile c itself, every idle pre-compiler takes the next hinted
// configuration at the same time, on other cores; when a pre-compiler already has c (or is
// finishing it), the measuring child finds it in the compiler's cache. With one
// pre-compiler, it then stays idle, so that the next configuration is again compiled by
// both children at once rather than waited for (on two cores this halves compilation time
// when compiling dominates); with several, idle ones take the next hinted configurations
// anyway. No configuration is compiled twice.
// It returns how long it waited for a pre-compiler: compilation time of c. log is the
// measuring supervisor's, which says whose measurement found c pre-compiled.
func (s *Supervisor) coordinate(ctx context.Context, c space.Config, log *slog.Logger) (time.Duration, error) {
	if !s.opts.Precompile {
		return 0, nil
	}
	k := configKey(c)
	var waited time.Duration
	s.preMu.Lock()
	if done, ok := s.inflight[k]; ok {
		s.preMu.Unlock()
		t := time.Now()
		select {
		case <-done:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
		waited = time.Since(t)
		s.preMu.Lock()
	}
	defer s.preMu.Unlock()
	hit := s.ready[k]
	delete(s.ready, k)
	if h, ok := s.hung[k]; ok {
		delete(s.hung, k)
		return waited, errHung{h}
	}
	if s.closed() {
		return waited, nil // its pre-compilers are stopping: nothing more to dispatch
	}
	// c is being evaluated: take it out of the hints, which a strategy that hints a whole
	// population once would otherwise leave there for a pre-compiler to compile again
	s.upcoming = slices.DeleteFunc(s.upcoming, func(u space.Config) bool { return slices.Equal(u, c) })
	log.Debug("pipeline", "config", k, "precompiled", hit, "waited", waited, "busy", len(s.inflight))
	if len(s.pres) == 1 && (hit || len(s.inflight) > 0) {
		return waited, nil
	}
	next := 0
	for _, slot := range s.pres {
		if slot.busy {
			continue
		}
		for next < len(s.upcoming) {
			c := s.upcoming[next]
			next++
			nk := configKey(c)
			if _, busy := s.inflight[nk]; nk != k && !busy && !s.ready[nk] {
				s.dispatch(slot, c, nk)
				break
			}
		}
	}
	return waited, nil
}

// dispatch sends c to an idle pre-compiler (its child started on first use); s.preMu is
// held.
func (s *Supervisor) dispatch(slot *preSlot, c space.Config, k string) {
	if len(s.ready) > 256 {
		clear(s.ready)
	}
	if len(s.hung) > 256 {
		clear(s.hung)
	}
	done := make(chan struct{})
	s.inflight[k], slot.busy = done, true
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		t := time.Now()
		ok, hung := s.precompile(slot, c)
		s.log.Debug("pre-compiled", "config", k, "ok", ok, "hung", hung.how, "took", time.Since(t))
		s.preMu.Lock()
		if ok {
			s.ready[k] = true
		}
		if hung.how != 0 {
			s.hung[k] = hung
		}
		delete(s.inflight, k)
		slot.busy = false
		close(done)
		s.preMu.Unlock()
	}()
}

// precompile compiles c in the slot's child and reports whether it succeeded, and whether
// its compilation ran past the compile time limit or its warm-up launch (runtimes that
// generate code at the first launch) past the run time limit: the kernel hangs on one
// work-group, so it would on the whole grid.
func (s *Supervisor) precompile(slot *preSlot, c space.Config) (ok bool, hung hang) {
	none := hang{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-s.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	s.preMu.Lock()
	ch := slot.ch
	s.preMu.Unlock()
	if ch == nil {
		var err error
		if ch, err = s.start(ctx, "precompile"); err != nil {
			s.log.Debug("pre-compiler unavailable", "error", err)
			return false, none
		}
		s.preMu.Lock()
		slot.ch = ch
		s.preMu.Unlock()
	}
	if err := ch.enc.Encode(request{Op: opCompile, Config: c}); err != nil {
		s.dropPrecompiler(slot, ch)
		return false, none
	}
	// A configuration that hangs the compiler must not hold a core forever, nor one whose
	// warm-up launch (runtimes that generate code at the first launch) hangs: after the
	// compiled phase the run time limit applies, as in the measuring child, which may be
	// waiting for this very configuration.
	// Time the child spends stopped while the measuring child times a kernel does not
	// count, nor time this process was stopped: the limit is extended by both.
	pausedFor := func() time.Duration {
		s.preMu.Lock()
		defer s.preMu.Unlock()
		return slot.pausedFor()
	}
	sent := time.Now()
	lim := newLimit(s.opts.CompileTimeout)
	defer lim.stop()
	paused := pausedFor()
	pausedAtStart := paused
	running := false
	var compiled time.Time            // when the warm-up launch started
	var pausedAtLaunch time.Duration  // how long the child had been stopped by then
	var stoppedAtLaunch time.Duration // and this process
	// busy is how long the child worked on c from sent until t, its pauses (until
	// pausedBy) and this process's stops (until stoppedBy) left out.
	busy := func(t time.Time, pausedBy, stoppedBy time.Duration) time.Duration {
		return max(t.Sub(sent)-(pausedBy-pausedAtStart)-stoppedBy, 0)
	}
	for {
		select {
		case r, ok := <-ch.resps:
			lim.observe()
			if !ok {
				s.dropPrecompiler(slot, ch)
				return false, none
			}
			if r.Phase == phaseCompiled {
				if s.opts.Timeout > 0 {
					lim.reset(s.opts.Timeout)
					paused = pausedFor()
					running = true
					compiled, pausedAtLaunch, stoppedAtLaunch = time.Now(), paused, lim.stopped
				}
				continue
			}
			if r.Retire != "" {
				s.log.Info("pre-compiler lost its device; it will be replaced", "error", r.Retire)
				s.dropPrecompiler(slot, ch)
			}
			return r.Err == "", none
		case <-lim.C():
			if p := pausedFor(); p > paused {
				lim.extend(p - paused)
				paused = p
			}
			if !lim.expired() {
				continue
			}
			if ch.died() {
				s.dropPrecompiler(slot, ch)
				return false, none
			}
			end := time.Now()
			s.log.Debug("pre-compiler killed after its time limit", "running", running)
			s.dropPrecompiler(slot, ch)
			if running {
				return false, hang{how: hungRunning, compiling: busy(compiled, pausedAtLaunch, stoppedAtLaunch),
					ran: end.Sub(compiled) - (paused - pausedAtLaunch) - (lim.stopped - stoppedAtLaunch)}
			}
			return false, hang{how: hungCompiling, compiling: busy(end, paused, lim.stopped)}
		case <-s.stop:
			// Nobody will measure what it compiles (the session is over: its time limit,
			// an interrupt): Close must not wait for the compilation, which may take
			// seconds. A pre-compiler changed no device setting to give back.
			s.dropPrecompiler(slot, ch)
			return false, none
		}
	}
}

// precompiler is the supervisor whose pre-compilers compile for s: Options.PrecompiledBy,
// or s itself.
func (s *Supervisor) precompiler() *Supervisor {
	if p := s.opts.PrecompiledBy; p != nil {
		return p
	}
	return s
}

// pausePrecompilers stops every pre-compiler child and waits, for stopWait at most, until
// their threads have stopped; false when there is none. Each true is to be followed by a
// resumePrecompilers: the children go on once every measurement that paused them (of
// each supervisor they compile for) has resumed them.
func (s *Supervisor) pausePrecompilers() bool {
	s.preMu.Lock()
	paused := false
	var pids []int
	for _, slot := range s.pres {
		if slot.ch != nil {
			paused = true
			slot.ch.signal(syscall.SIGSTOP)
			if slot.pausedSince.IsZero() { // not paused already by another measurement
				slot.pausedSince = time.Now()
			}
			if slot.ch.cmd.Process != nil && !slot.ch.died() {
				pids = append(pids, slot.ch.cmd.Process.Pid)
			}
		}
	}
	if paused {
		s.pausers++
	}
	s.preMu.Unlock()
	// A thread stops as it next enters the kernel: one busy compiling on another core
	// still runs for a moment after the signal was sent, and the timed runs wait for it.
	deadline := time.Now().Add(stopWait)
	for _, pid := range pids {
		if !awaitStopped(pid, time.Until(deadline)) {
			s.log.Debug("a pre-compiler did not stop in time; timing anyway", "pid", pid, "waited", stopWait)
		}
	}
	return paused
}

// stopWait bounds how long the timed runs wait for the pre-compilers to stop.
const stopWait = 100 * time.Millisecond

func (s *Supervisor) resumePrecompilers() {
	s.preMu.Lock()
	defer s.preMu.Unlock()
	if s.pausers--; s.pausers > 0 {
		return // another measurement still times its kernel
	}
	s.pausers = 0
	for _, slot := range s.pres {
		slot.ch.signal(syscall.SIGCONT)
		if !slot.pausedSince.IsZero() {
			slot.paused += time.Since(slot.pausedSince)
			slot.pausedSince = time.Time{}
		}
	}
}

func (s *Supervisor) dropPrecompiler(slot *preSlot, ch *child) {
	s.preMu.Lock()
	defer s.preMu.Unlock()
	ch.signal(syscall.SIGCONT)
	ch.kill()
	if slot.ch == ch {
		slot.ch = nil
	}
}

// closed reports whether Close was called.
func (s *Supervisor) closed() bool {
	select {
	case <-s.stop:
		return true
	default:
		return false
	}
}

// Close stops the children; the supervisor then evaluates nothing more (ErrClosed). An
// idle child is let go (it gives back what it holds, as device settings it changed); a
// pre-compiler still compiling is killed, since nobody will measure what it compiles.
func (s *Supervisor) Close() error {
	select {
	case <-s.stop:
		return nil
	default:
	}
	close(s.stop)
	s.wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	children := []*child{s.main}
	for _, slot := range s.pres {
		children = append(children, slot.ch)
	}
	for _, ch := range children {
		if ch != nil {
			ch.signal(syscall.SIGCONT)
			ch.reqW.Close()
			select {
			case <-ch.exited:
			case <-time.After(s.exitGrace):
				ch.kill()
			}
		}
	}
	s.main = nil
	for _, slot := range s.pres {
		slot.ch = nil
	}
	return nil
}

var _ io.Writer = (*tail)(nil)
