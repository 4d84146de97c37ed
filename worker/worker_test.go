package worker

import (
	"bufio"
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
)

// The test binary doubles as the worker: with KTUNE_WORKER_TEST set it serves a fake
// measurer whose behaviour depends on the configuration's first value.
func TestMain(m *testing.M) {
	if os.Getenv("KTUNE_WORKER_TEST") == "1" {
		err := ServeChild(context.Background(), func() (Measurer, error) {
			if os.Getenv("KTUNE_WORKER_FAIL_OPEN") == "1" {
				return nil, fmt.Errorf("no such device")
			}
			if os.Getenv("KTUNE_WORKER_FAIL_OPEN") == "hog" {
				// opening the device takes more than the memory limit gives: the Go
				// runtime dies of it, with its report of every goroutine
				openHog = make([]byte, 256<<20)
				for i := 0; i < len(openHog); i += 4096 {
					openHog[i] = 1
				}
			}
			return &fakeMeasurer{}, nil
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if os.Getenv("KTUNE_WORKER_PARENT") == "1" {
		// A tuner that starts a child on a hanging configuration, printing the child's
		// pid, and is then killed by the test.
		log := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{Level: slog.LevelDebug}))
		s := NewSupervisor(Options{Command: []string{os.Args[0], "-test.run=^$"}, Env: []string{"KTUNE_WORKER_TEST=1"}, Log: log})
		s.Evaluate(context.Background(), space.Config{behaveHang, 0})
		os.Exit(0)
	}
	os.Exit(m.Run())
}

const (
	behaveOK = iota
	behaveCrash
	behaveHang
	behaveNoisy
	behaveSlowCompile
	behaveLoseDevice // a fault that poisons the device for the process, as a CUDA illegal address does
	behaveGODEBUG    // answers with the child's GODEBUG as the message
	behaveLongTiming // its timed runs take 1.5 s
	behaveCompileHang
	behaveEnvironment       // the machine fails its compilation (a full compile cache): Fault says so
	behaveFullDiskCompiling // the process exits as PoCL's LLVM does when its cache is full
	behaveFullDiskKernel    // the kernel prints the words of a full disk and exits: its own doing
	behaveFullDiskLaunch    // LLVM's report of a full disk at the first launch (PoCL's code generation)
	behaveSlowCrash         // compiles for 300 ms, runs for 400 ms, then crashes
	behaveSlowWarmUp        // its first run (warm-up, verification) takes 1.5 s, before the timed runs
	behaveKilled            // the kernel's process is killed by SIGKILL, as the out-of-memory killer does
	behaveLimits            // answers with the process's data limit and oom_score_adj as metrics
	behaveHog               // allocates 4 GiB on the Go heap, touching one page of it
	// behaveBusyCompile compiles for 2 s on the CPU, writing its process's pid to
	// $KTUNE_WORKER_PIDFILE as it starts
	behaveBusyCompile
	// behavePrecompilerCPU waits for that pid, and answers with the CPU time (ns) the
	// pre-compiler used during the first 30 ms of its timed runs as metric "cpu_ns"
	behavePrecompilerCPU
)

// openHog holds what a child allocates as it opens its device (KTUNE_WORKER_FAIL_OPEN=hog).
var openHog []byte

// llvmFull is what PoCL's LLVM prints before it exits when the disk under its cache is full.
const llvmFull = "LLVM ERROR: IO failure on output stream: No space left on device"

// fakeMeasurer stands for the runner in the child process, so that the supervisor's
// handling of processes can be tested without a device.
type fakeMeasurer struct {
	lost   error
	fault  error
	served int // evaluations this process served
}

// DeviceInfo describes a device whose global memory is the process's data limit, as
// PoCL's is under the workers' memory limit.
func (m *fakeMeasurer) DeviceInfo() device.Info {
	var rl syscall.Rlimit
	syscall.Getrlimit(unix.RLIMIT_DATA, &rl)
	return device.Info{Name: "fake", GlobalMemBytes: int64(min(rl.Cur, 1<<62))}
}

func (m *fakeMeasurer) Broken() error { return m.lost }
func (m *fakeMeasurer) Fault() error  { return m.fault }

// Reference fails as KTUNE_WORKER_REFERENCE says: "environment" with an environment
// error, "full" as PoCL's LLVM exits on a full disk; it succeeds when that is unset.
func (m *fakeMeasurer) Reference(_ context.Context, phase func(string)) error {
	switch os.Getenv("KTUNE_WORKER_REFERENCE") {
	case "environment":
		return &device.EnvironmentError{Place: "$KTUNE_CACHE (/x/hostc)", Err: syscall.ENOSPC}
	case "full":
		fmt.Fprintln(os.Stderr, llvmFull)
		os.Exit(1)
	}
	return nil
}

func (m *fakeMeasurer) Evaluate(_ context.Context, c space.Config, phase func(string)) result.Evaluation {
	m.served++
	m.fault = nil
	switch c[0] {
	case behaveEnvironment:
		m.fault = &device.EnvironmentError{Place: "$KTUNE_CACHE (/x/hostc)", Err: syscall.ENOSPC}
		return result.Evaluation{Status: result.CompileError, Objective: math.NaN(), Message: m.fault.Error()}
	case behaveFullDiskCompiling:
		fmt.Fprintln(os.Stderr, llvmFull)
		os.Exit(1)
	}
	if m.lost != nil {
		return result.Evaluation{Status: result.RuntimeError, Objective: math.NaN(), Message: "device lost earlier: " + m.lost.Error()}
	}
	if c[0] == behaveSlowCompile || c[0] == behaveSlowCrash {
		time.Sleep(300 * time.Millisecond)
	}
	if c[0] == behaveCompileHang {
		time.Sleep(time.Hour)
	}
	phase(phaseCompiled)
	if c[0] == behaveSlowCrash {
		time.Sleep(400 * time.Millisecond)
		syscall.Kill(os.Getpid(), syscall.SIGSEGV)
		time.Sleep(time.Second)
	}
	if c[0] == behaveSlowWarmUp {
		time.Sleep(1500 * time.Millisecond)
	}
	if c[0] == behavePrecompilerCPU {
		return precompilerCPU(phase)
	}
	phase(phaseTiming)
	switch c[0] {
	case behaveCrash:
		fmt.Fprintln(os.Stderr, "about to crash on purpose")
		syscall.Kill(os.Getpid(), syscall.SIGSEGV)
		time.Sleep(time.Second)
	case behaveHang:
		time.Sleep(time.Hour)
	case behaveFullDiskKernel:
		fmt.Fprintln(os.Stderr, "fwrite: No space left on device")
		os.Exit(1)
	case behaveFullDiskLaunch:
		fmt.Fprintln(os.Stderr, llvmFull)
		os.Exit(1)
	case behaveLongTiming:
		time.Sleep(1500 * time.Millisecond)
	case behaveKilled:
		fmt.Fprintln(os.Stderr, "allocating a lot")
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		time.Sleep(time.Second)
	case behaveLimits:
		var rl syscall.Rlimit
		syscall.Getrlimit(unix.RLIMIT_DATA, &rl)
		adj, _ := os.ReadFile("/proc/self/oom_score_adj")
		score, _ := strconv.Atoi(strings.TrimSpace(string(adj)))
		return result.Evaluation{Status: result.OK, Objective: 1, Metrics: map[string]float64{"data": float64(rl.Cur), "oom_score_adj": float64(score)}}
	case behaveHog:
		b := make([]byte, 4<<30)
		b[len(b)-1] = 1
		return result.Evaluation{Status: result.OK, Objective: float64(b[len(b)-1])}
	case behaveLoseDevice:
		m.lost = fmt.Errorf("CUDA_ERROR_ILLEGAL_ADDRESS")
		return result.Evaluation{Status: result.RuntimeError, Objective: math.NaN(), Message: "kernel faulted: " + m.lost.Error()}
	case behaveGODEBUG:
		return result.Evaluation{Status: result.OK, Objective: float64(10 + c[1]), Message: os.Getenv("GODEBUG")}
	case behaveNoisy:
		// A kernel that prints must not corrupt the protocol.
		fmt.Println("\x00\xffgarbage on stdout")
		fmt.Fprintln(os.Stderr, "1 error generated.")
	}
	return result.Evaluation{Status: result.OK, Objective: float64(10 + c[1]), Samples: []float64{1, 2}, Time: time.Now(),
		Metrics: map[string]float64{"served": float64(m.served)}}
}

// precompilerCPU is behavePrecompilerCPU's evaluation: the CPU time the pre-compiler
// whose pid behaveBusyCompile wrote used in the first 30 ms after phaseTiming.
func precompilerCPU(phase func(string)) result.Evaluation {
	fail := func(msg string) result.Evaluation {
		return result.Evaluation{Status: result.RuntimeError, Objective: math.NaN(), Message: msg}
	}
	var pid int
	for start := time.Now(); pid == 0; time.Sleep(time.Millisecond) {
		b, _ := os.ReadFile(os.Getenv("KTUNE_WORKER_PIDFILE"))
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		if time.Since(start) > 5*time.Second {
			return fail("the pre-compiler wrote no pid")
		}
	}
	phase(phaseTiming)
	before, err := cpuNanos(pid)
	if err != nil {
		return fail(err.Error())
	}
	time.Sleep(30 * time.Millisecond)
	after, err := cpuNanos(pid)
	if err != nil {
		return fail(err.Error())
	}
	return result.Evaluation{Status: result.OK, Objective: 1, Samples: []float64{1}, Metrics: map[string]float64{"cpu_ns": float64(after - before)}}
}

// cpuNanos is the CPU time process pid's threads have used, in ns (/proc/PID/task/*/schedstat).
func cpuNanos(pid int) (int64, error) {
	dir := fmt.Sprintf("/proc/%d/task", pid)
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	var sum int64
	for _, t := range tasks {
		b, err := os.ReadFile(dir + "/" + t.Name() + "/schedstat")
		if err != nil {
			continue
		}
		f := strings.Fields(string(b))
		if len(f) == 0 {
			return 0, fmt.Errorf("%s/%s/schedstat: %q", dir, t.Name(), b)
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, err
		}
		sum += n
	}
	return sum, nil
}

func (*fakeMeasurer) Compile(_ context.Context, c space.Config, phase func(string)) error {
	if c[0] == behaveBusyCompile {
		if err := os.WriteFile(os.Getenv("KTUNE_WORKER_PIDFILE"), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
			return err
		}
		for start := time.Now(); time.Since(start) < 2*time.Second; {
		}
	}
	if c[0] == behaveSlowCompile {
		time.Sleep(100 * time.Millisecond)
	}
	if c[0] == behaveCompileHang {
		time.Sleep(time.Hour)
	}
	if c[0] == behaveHang { // a warm-up launch that never returns
		phase(phaseCompiled)
		time.Sleep(time.Hour)
	}
	return nil
}

func newTestSupervisor(t *testing.T, extraEnv ...string) *Supervisor {
	t.Helper()
	s := NewSupervisor(Options{
		Command:          []string{os.Args[0], "-test.run=^$"},
		Env:              append([]string{"KTUNE_WORKER_TEST=1"}, extraEnv...),
		Timeout:          500 * time.Millisecond,
		CompileTimeout:   10 * time.Second,
		Precompile:       true,
		PauseWhileTiming: true,
	})
	t.Cleanup(func() { s.Close() })
	return s
}

func TestCrashesAndHangsAreResultsAndTheWorkerIsReplaced(t *testing.T) {
	s := newTestSupervisor(t)
	ctx := context.Background()
	tests := []struct {
		behaviour int
		status    result.Status
		message   string
	}{
		{behaveOK, result.OK, ""},
		{behaveCrash, result.RuntimeError, "about to crash on purpose"},
		{behaveOK, result.OK, ""},
		{behaveHang, result.Timeout, "time limit"},
		{behaveNoisy, result.OK, ""},
		{behaveSlowCompile, result.OK, ""}, // compilation does not count against the run limit
		{behaveCrash, result.RuntimeError, "segmentation"},
		{behaveOK, result.OK, ""},
	}
	for i, tt := range tests {
		s.Hint(space.Config{behaveOK, i + 1})
		e, err := s.Evaluate(ctx, space.Config{tt.behaviour, i})
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if e.Status != tt.status {
			t.Fatalf("step %d: status %v (%s), want %v", i, e.Status, e.Message, tt.status)
		}
		if tt.status == result.OK && e.Objective != float64(10+i) {
			t.Fatalf("step %d: objective %v", i, e.Objective)
		}
		if tt.status != result.OK && (!math.IsNaN(e.Objective) || !contains(e.Message, tt.message)) {
			t.Fatalf("step %d: %v %q, want a message with %q", i, e.Objective, e.Message, tt.message)
		}
	}
	if s.Crashes != 3 {
		t.Fatalf("%d crashes counted, want 3", s.Crashes)
	}
}

// Two configurations that crash the same way get the same message, which names the
// signal and what the kernel printed for that configuration alone: neither the Go
// runtime's report (addresses that vary) nor what the process printed for an earlier
// configuration (a compiler's complaint).
func TestCrashesOfOneKindShareTheirMessage(t *testing.T) {
	s := newTestSupervisor(t)
	var messages []string
	for i, b := range []int{behaveCrash, behaveNoisy, behaveOK, behaveCrash} {
		e, err := s.Evaluate(context.Background(), space.Config{b, i})
		if err != nil {
			t.Fatal(err)
		}
		if b == behaveCrash {
			messages = append(messages, e.Message)
		}
	}
	want := "the kernel crashed: SIGSEGV (segmentation fault), after printing: about to crash on purpose"
	for i, m := range messages {
		if m != want {
			t.Errorf("crash %d: %q, want %q", i, m, want)
		}
	}
}

func TestAWorkerThatLosesItsDeviceIsReplacedAndTuningGoesOn(t *testing.T) {
	s := newTestSupervisor(t)
	ctx := context.Background()
	steps := []int{behaveOK, behaveOK, behaveLoseDevice, behaveOK, behaveOK}
	var served []float64
	for i, b := range steps {
		e, err := s.Evaluate(ctx, space.Config{b, i})
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if b == behaveLoseDevice {
			if e.Status != result.RuntimeError || !contains(e.Message, "ILLEGAL_ADDRESS") {
				t.Fatalf("step %d: %v %q", i, e.Status, e.Message)
			}
			continue
		}
		if e.Status != result.OK {
			t.Fatalf("step %d: %v %q: the configuration after a lost device must run in a fresh process", i, e.Status, e.Message)
		}
		served = append(served, e.Metrics["served"])
	}
	// The first process served 1, 2 and the fault; the fresh one starts counting again.
	if want := []float64{1, 2, 1, 2}; fmt.Sprint(served) != fmt.Sprint(want) {
		t.Fatalf("evaluations per process %v, want %v", served, want)
	}
	if s.Crashes != 1 {
		t.Fatalf("%d replacements counted, want 1", s.Crashes)
	}
}

// An evaluation that failed for the machine's sake (a full compile cache, a runtime
// that exits on a full disk) is an ErrEnvironment error, not a result to store: stored,
// it was a compile error or a crash of the configuration, never measured again. A kernel
// that prints the same words before it dies crashed by its own doing; and the worker goes
// on serving after each.
func TestFailuresOfTheMachineAreErrorsNotResults(t *testing.T) {
	s := newTestSupervisor(t)
	cases := []struct {
		behaviour int
		want      string // the ErrEnvironment error's message; "": a runtime error
	}{
		{behaveEnvironment, "$KTUNE_CACHE (/x/hostc): no space left on device"},
		{behaveFullDiskCompiling, "the worker process died (exit status 1) while compiling: " + llvmFull},
		{behaveFullDiskLaunch, "the worker process died (exit status 1) while running the kernel: " + llvmFull},
		{behaveFullDiskKernel, ""},
	}
	for i, c := range cases {
		e, err := s.Evaluate(context.Background(), space.Config{c.behaviour, i})
		switch {
		case c.want == "" && (err != nil || e.Status != result.RuntimeError):
			t.Errorf("behaviour %d: %v %q, error %v; want a runtime error", c.behaviour, e.Status, e.Message, err)
		case c.want != "" && (!errors.Is(err, ErrEnvironment) || err.Error() != c.want):
			t.Errorf("behaviour %d: %v %q, error %v; want an ErrEnvironment error %q", c.behaviour, e.Status, e.Message, err, c.want)
		}
		if e, err := s.Evaluate(context.Background(), space.Config{behaveOK, i}); err != nil || e.Status != result.OK {
			t.Fatalf("after behaviour %d: %v %v", c.behaviour, e.Status, err)
		}
	}
}

// A reference that cannot be computed for the machine's sake is an ErrEnvironment error,
// not an ErrReference one, which told the user to fix the reference.
func TestAReferenceTheMachineFailsIsNotTheReferencesFault(t *testing.T) {
	for _, how := range []string{"environment", "full"} {
		t.Run(how, func(t *testing.T) {
			s := newTestSupervisor(t, "KTUNE_WORKER_REFERENCE="+how)
			err := s.Reference(context.Background())
			if !errors.Is(err, ErrEnvironment) || errors.Is(err, ErrReference) {
				t.Errorf("Reference: %v; want an ErrEnvironment error", err)
			}
		})
	}
}

func TestAWorkerThatCannotStartIsAnError(t *testing.T) {
	s := newTestSupervisor(t, "KTUNE_WORKER_FAIL_OPEN=1")
	_, err := s.Evaluate(context.Background(), space.Config{behaveOK, 0})
	if err == nil || !contains(err.Error(), "no such device") {
		t.Fatalf("error %v", err)
	}
}

// A worker that cannot start under a memory limit too small to open its device (here the
// Go runtime dies of it) says in a line what failed and what to do, without the runtime's report of its death (goroutines,
// stacks, memory dumps: dozens of lines), which buried the cause in the error and on the
// terminal.
func TestAWorkerThatCannotStartForMemorySaysSoInALine(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the limit is set on Linux")
	}
	if raceDetector {
		t.Skip("ThreadSanitizer's runtime needs more memory, and dies in its own words")
	}
	s := newTestSupervisor(t, "KTUNE_WORKER_FAIL_OPEN=hog")
	s.opts.MemoryLimit = 64 << 20
	_, err := s.Evaluate(context.Background(), space.Config{behaveOK, 0})
	if !errors.Is(err, ErrWorkerStart) {
		t.Fatalf("error %v; want ErrWorkerStart", err)
	}
	msg := err.Error()
	for _, dump := range []string{"goroutine ", "PC=", "stack", "runtime.", "\n"} {
		if strings.Contains(msg, dump) {
			t.Errorf("the error holds the runtime's report (%q): %s", dump, msg)
		}
	}
	if !strings.Contains(msg, "it ran out of memory: the workers' memory limit of 64.0 MiB (--worker-memory) is too little to start one") || len(msg) > 600 {
		t.Errorf("error %q; want a line or two that names the limit and says to give more", msg)
	}
}

// A program that refuses the command line it is started with (a Command whose program does
// not serve these arguments, a program that parses its flags before it serves) fails to
// start for that alone: the error says so, where it blamed the memory limit, which had
// nothing to do with it.
func TestAWorkerThatRefusesItsCommandLineSaysSoNotMemory(t *testing.T) {
	s := NewSupervisor(Options{
		// without KTUNE_WORKER_TEST the test binary parses its flags, and has no -spec
		Command:     []string{os.Args[0], "-test.run=^$", "--spec", "k.yaml"},
		MemoryLimit: 8 << 30,
	})
	t.Cleanup(func() { s.Close() })
	_, err := s.Evaluate(context.Background(), space.Config{behaveOK, 0})
	if !errors.Is(err, ErrWorkerStart) || !errors.Is(err, ErrCommandRefused) {
		t.Fatalf("error %v; want ErrWorkerStart and ErrCommandRefused", err)
	}
	msg := err.Error()
	if strings.Contains(msg, "memory") {
		t.Errorf("error %q blames the memory limit", msg)
	}
	if !strings.Contains(msg, "flag provided but not defined: -spec") {
		t.Errorf("error %q; want what the program said", msg)
	}
}

// A program that exits of its own accord (status 0) before it serves did not fail for
// memory either; its error said it exited "(<nil>)", and blamed the memory limit.
func TestAWorkerThatExitsWithoutServingSaysSoNotMemory(t *testing.T) {
	s := NewSupervisor(Options{
		// without KTUNE_WORKER_TEST the test binary runs its tests: none
		Command:     []string{os.Args[0], "-test.run=^$"},
		MemoryLimit: 8 << 30,
	})
	t.Cleanup(func() { s.Close() })
	_, err := s.Evaluate(context.Background(), space.Config{behaveOK, 0})
	if !errors.Is(err, ErrWorkerStart) || errors.Is(err, ErrCommandRefused) {
		t.Fatalf("error %v; want ErrWorkerStart alone", err)
	}
	msg := err.Error()
	if strings.Contains(msg, "memory") || strings.Contains(msg, "<nil>") {
		t.Errorf("error %q", msg)
	}
	if !strings.Contains(msg, "the worker exited (exit status 0) without serving") {
		t.Errorf("error %q; want that the worker exited without serving", msg)
	}
}

func TestCancellationKillsTheWorker(t *testing.T) {
	s := newTestSupervisor(t)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	s.opts.Timeout = time.Hour
	start := time.Now()
	_, err := s.Evaluate(ctx, space.Config{behaveHang, 0})
	if err == nil || time.Since(start) > 5*time.Second {
		t.Fatalf("error %v after %v", err, time.Since(start))
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// newPipelineSupervisor starts a supervisor of test workers with n pre-compilers, logging
// to log.
func newPipelineSupervisor(n int, log *pipelineLog) *Supervisor {
	return NewSupervisor(Options{
		Command:        []string{os.Args[0], "-test.run=^$"},
		Env:            []string{"KTUNE_WORKER_TEST=1"},
		CompileTimeout: 10 * time.Second,
		Precompile:     true,
		Precompilers:   n,
		Log:            slog.New(log),
	})
}

// pipelineLog counts the supervisor's pre-compiler starts and the configurations the
// measuring child found pre-compiled.
type pipelineLog struct {
	mu           sync.Mutex
	starts, hits int
	compiled     map[string]int  // pre-compilations per configuration
	found        map[string]bool // configurations a measuring child found pre-compiled
}

func (l *pipelineLog) Enabled(context.Context, slog.Level) bool { return true }
func (l *pipelineLog) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *pipelineLog) WithGroup(string) slog.Handler            { return l }
func (l *pipelineLog) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	var config string
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "config" {
			config = a.Value.String()
		}
		switch {
		case r.Message == "worker started" && a.Key == "role" && a.Value.String() == "precompile":
			l.starts++
		case r.Message == "pipeline" && a.Key == "precompiled" && a.Value.Bool():
			l.hits++
			if l.found == nil {
				l.found = map[string]bool{}
			}
			l.found[config] = true
		case r.Message == "pre-compiled" && a.Key == "config":
			if l.compiled == nil {
				l.compiled = map[string]int{}
			}
			l.compiled[a.Value.String()]++
		}
		return true
	})
	return nil
}

// TestPrecompilersCompileTheHintedConfigurationsAhead: one pre-compiler alternates with
// the measuring child (every second configuration comes pre-compiled); several take the
// next hinted configurations whenever they are idle, so that nearly every one comes
// pre-compiled.
func TestPrecompilersCompileTheHintedConfigurationsAhead(t *testing.T) {
	for _, tc := range []struct {
		precompilers int
		minHits      int
		maxHits      int
	}{{1, 3, 3}, {3, 5, 6}} {
		log := &pipelineLog{}
		s := newPipelineSupervisor(tc.precompilers, log)
		const n = 7
		for i := range n {
			var up []space.Config
			for j := i + 1; j < min(i+5, n); j++ {
				up = append(up, space.Config{behaveSlowCompile, j})
			}
			s.Hint(up...)
			e, err := s.Evaluate(context.Background(), space.Config{behaveSlowCompile, i})
			if err != nil || e.Status != result.OK || e.Objective != float64(10+i) {
				t.Fatalf("%d pre-compilers, step %d: %v %v %v", tc.precompilers, i, e.Status, e.Objective, err)
			}
		}
		s.Close()
		t.Logf("%d pre-compilers: %d started, %d of %d configurations pre-compiled", tc.precompilers, log.starts, log.hits, n)
		if log.starts != tc.precompilers || log.hits < tc.minHits || log.hits > tc.maxHits {
			t.Errorf("%d pre-compilers: %d started, %d of %d configurations pre-compiled, want %d-%d",
				tc.precompilers, log.starts, log.hits, n, tc.minHits, tc.maxHits)
		}
	}
}

// TestAPopulationHintedOnceIsCompiledOnce: a strategy may hint a whole population once
// and then evaluate it member by member; a member being evaluated leaves the hints, so no
// pre-compiler compiles it again afterwards.
func TestAPopulationHintedOnceIsCompiledOnce(t *testing.T) {
	log := &pipelineLog{}
	s := newPipelineSupervisor(3, log)
	const n = 8
	var population []space.Config
	for i := range n {
		population = append(population, space.Config{behaveSlowCompile, i})
	}
	s.Hint(population[1:]...)
	for i, c := range population {
		e, err := s.Evaluate(context.Background(), c)
		if err != nil || e.Status != result.OK || e.Objective != float64(10+i) {
			t.Fatalf("member %d: %v %v %v", i, e.Status, e.Objective, err)
		}
	}
	s.Close()
	log.mu.Lock()
	defer log.mu.Unlock()
	t.Logf("pre-compiled %v, %d of %d found pre-compiled", log.compiled, log.hits, n)
	for k, times := range log.compiled {
		if times > 1 {
			t.Errorf("configuration %s pre-compiled %d times", k, times)
		}
	}
	if log.hits < n/2 {
		t.Errorf("only %d of %d members came pre-compiled", log.hits, n)
	}
}

// TestASupervisorPrecompiledByAnotherUsesItsPrecompilers: the supervisor of a second,
// identical device measures configurations that the first one's pre-compilers compiled
// (its measuring child finds them in the shared compiler cache), and its measurements set
// those pre-compilers to the next hinted configurations as the first's own do: the
// configurations the second measures come pre-compiled, and none is compiled twice.
func TestASupervisorPrecompiledByAnotherUsesItsPrecompilers(t *testing.T) {
	log := &pipelineLog{}
	first := newPipelineSupervisor(2, log)
	second := NewSupervisor(Options{
		Command:        []string{os.Args[0], "-test.run=^$"},
		Env:            []string{"KTUNE_WORKER_TEST=1"},
		CompileTimeout: 10 * time.Second,
		PrecompiledBy:  first,
		Log:            slog.New(log),
	})
	const n = 12
	var population []space.Config
	for i := range n {
		population = append(population, space.Config{behaveSlowCompile, i})
	}
	first.Hint(population[1:]...)
	// the first device measures the first quarter, the second the rest: what it measures
	// was hinted to the first device's pre-compilers alone
	for i, c := range population {
		s := first
		if i >= n/4 {
			s = second
		}
		e, err := s.Evaluate(context.Background(), c)
		if err != nil || e.Status != result.OK || e.Objective != float64(10+i) {
			t.Fatalf("member %d: %v %v %v", i, e.Status, e.Objective, err)
		}
	}
	second.Close()
	first.Close()
	log.mu.Lock()
	defer log.mu.Unlock()
	t.Logf("pre-compiled %v, found pre-compiled %v", log.compiled, log.found)
	for k, times := range log.compiled {
		if times > 1 {
			t.Errorf("configuration %s pre-compiled %d times", k, times)
		}
	}
	onSecond := 0
	for _, c := range population[n/4:] {
		if log.found[configKey(c)] {
			onSecond++
		}
	}
	if onSecond < n/2 {
		t.Errorf("%d of the %d configurations the second supervisor measured came pre-compiled, want %d or more", onSecond, n-n/4, n/2)
	}
}

// Two measurements that pause the same pre-compilers (of two devices, one compiling for
// both) hold them paused until both have resumed them. The waits (for the pre-compiler to
// start, to be seen stopped, to be seen running again) end as soon as what they wait for
// is seen, and allow half a minute for a loaded machine: under a load of 20 on 2 cores the
// pre-compiler had not started when the first evaluation returned, which the test took
// for none started at all (2 runs of 2).
func TestPrecompilersPausedByTwoMeasurementsGoOnAfterBoth(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads a process's state in /proc")
	}
	const wait = 30 * time.Second
	log := &pipelineLog{}
	s := newPipelineSupervisor(1, log)
	defer s.Close()
	// a configuration evaluated with another hinted starts the pre-compiler
	s.Hint(space.Config{behaveSlowCompile, 1})
	if _, err := s.Evaluate(context.Background(), space.Config{behaveSlowCompile, 0}); err != nil {
		t.Fatal(err)
	}
	pid := 0
	for deadline := time.Now().Add(wait); pid == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no pre-compiler started within %v", wait)
		}
		s.preMu.Lock()
		if ch := s.pres[0].ch; ch != nil && ch.cmd.Process != nil {
			pid = ch.cmd.Process.Pid
		}
		s.preMu.Unlock()
	}
	if !s.pausePrecompilers() || !s.pausePrecompilers() {
		t.Fatal("pausing found no pre-compiler")
	}
	s.resumePrecompilers()
	if !awaitStopped(pid, wait) {
		t.Error("the pre-compiler went on after one of two measurements resumed it")
	}
	s.resumePrecompilers()
	deadline := time.Now().Add(wait)
	for awaitStopped(pid, 0) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if awaitStopped(pid, 0) {
		t.Error("the pre-compiler stayed stopped after both measurements resumed it")
	}
}

// TestAHangingWarmUpInAPrecompilerHoldsNothingUp: a configuration whose warm-up launch
// hangs in a pre-compiler is given the run time limit there, so the measuring child,
// which waits for a configuration being pre-compiled, waits about that long rather than
// the compile limit, then measures it as a timeout itself.
func TestAHangingWarmUpInAPrecompilerHoldsNothingUp(t *testing.T) {
	s := newTestSupervisor(t) // run limit 500 ms, compile limit 10 s
	ctx := context.Background()
	s.Hint(space.Config{behaveHang, 1})
	if e, err := s.Evaluate(ctx, space.Config{behaveOK, 0}); err != nil || e.Status != result.OK {
		t.Fatalf("first: %v %v", e.Status, err)
	}
	start := time.Now()
	e, err := s.Evaluate(ctx, space.Config{behaveHang, 1})
	took := time.Since(start)
	if err != nil || e.Status != result.Timeout {
		t.Fatalf("the hanging configuration: %v %s %v", e.Status, e.Message, err)
	}
	if took > 5*time.Second {
		t.Fatalf("it took %v: the pre-compiler's hang held the measuring child up", took)
	}
	// It hung once, in the pre-compiler, and is not run again to hang as long a second time.
	if !strings.Contains(e.Message, "while compiled ahead") {
		t.Errorf("the hang was measured again: %s", e.Message)
	}
	if e, err := s.Evaluate(ctx, space.Config{behaveOK, 2}); err != nil || e.Status != result.OK {
		t.Fatalf("after it: %v %v", e.Status, err)
	}
}

// TestAChildOutlivesNoKilledTuner kills a tuner (SIGKILL: no clean-up runs) while its
// child hangs in a configuration: the child must exit by itself rather than run on.
func TestAChildOutlivesNoKilledTuner(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "KTUNE_WORKER_PARENT=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	stop := time.AfterFunc(20*time.Second, func() { cmd.Process.Kill() }) // no pid: end the scan
	pid := 0
	sc := bufio.NewScanner(out)
	for pid == 0 && sc.Scan() {
		if m := regexp.MustCompile(`worker started"? role=measure pid=(\d+)`).FindStringSubmatch(sc.Text()); m != nil {
			pid, _ = strconv.Atoi(m[1])
		}
	}
	stop.Stop()
	if pid == 0 {
		t.Fatal("the tuner never reported its child")
	}
	time.Sleep(300 * time.Millisecond) // the child is in its hanging configuration
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("child %d still runs 5 s after its tuner was killed", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// alive reports whether process pid exists and is not a zombie.
func alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return syscall.Kill(pid, 0) == nil // no /proc: a zombie counts as alive
	}
	// pid (comm) state ...: the state follows the last ')'
	i := bytes.LastIndexByte(stat, ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z'
}

// idleMeasurer records the order of its evaluations and idle calls.
type idleMeasurer struct {
	fakeMeasurer
	calls []string
}

func (m *idleMeasurer) Evaluate(ctx context.Context, c space.Config, phase func(string)) result.Evaluation {
	m.calls = append(m.calls, "evaluate")
	return m.fakeMeasurer.Evaluate(ctx, c, phase)
}

func (m *idleMeasurer) Idle() { m.calls = append(m.calls, "idle") }

// TestAChildIdlesAfterEachAnswer: the measurer's between-requests work (the runner's
// buffer resets) runs after each answer is sent, before the next request is read.
func TestAChildIdlesAfterEachAnswer(t *testing.T) {
	reqR, reqW := io.Pipe()
	respR, respW := io.Pipe()
	m := &idleMeasurer{}
	done := make(chan error, 1)
	go func() { done <- Serve(context.Background(), reqR, respW, func() (Measurer, error) { return m, nil }) }()
	enc, dec := gob.NewEncoder(reqW), gob.NewDecoder(respR)
	var r response
	if err := dec.Decode(&r); err != nil || r.Phase != phaseReady {
		t.Fatalf("ready: %v %+v", err, r)
	}
	for id := uint64(1); id <= 2; id++ {
		if err := enc.Encode(request{ID: id, Op: opEvaluate, Config: []int{behaveOK, 0}}); err != nil {
			t.Fatal(err)
		}
		for r.Phase != phaseDone || r.ID != id {
			if err := dec.Decode(&r); err != nil {
				t.Fatal(err)
			}
		}
	}
	reqW.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if want := []string{"evaluate", "idle", "evaluate", "idle"}; !slices.Equal(m.calls, want) {
		t.Fatalf("calls %v, want %v", m.calls, want)
	}
}

// TestAChildRunsWithoutAsyncPreemption: the Go runtime's preemption signal must never
// reach a host C kernel (it cuts sleeps and blocking calls short, and the kernel's time
// with them), so a child's GODEBUG turns async preemption off, after the user's settings.
func TestAChildRunsWithoutAsyncPreemption(t *testing.T) {
	for _, tt := range []struct{ user, want string }{
		{"", "asyncpreemptoff=1"},
		{"madvdontneed=1", "madvdontneed=1,asyncpreemptoff=1"},
	} {
		t.Setenv("GODEBUG", tt.user)
		s := newTestSupervisor(t)
		e, err := s.Evaluate(context.Background(), space.Config{behaveGODEBUG, 0})
		if err != nil {
			t.Fatal(err)
		}
		if e.Message != tt.want {
			t.Errorf("GODEBUG %q: the child's is %q, want %q", tt.user, e.Message, tt.want)
		}
		s.Close()
	}
}

// A compilation that never ends is killed at the compile time limit, in the measuring
// child or in a pre-compiler (then the measuring child does not try it again), and the
// configuration's message names the limit.
func TestACompilationThatHangsIsKilledAtTheCompileLimit(t *testing.T) {
	for _, precompile := range []bool{false, true} {
		s := NewSupervisor(Options{
			Command: []string{os.Args[0], "-test.run=^$"}, Env: []string{"KTUNE_WORKER_TEST=1"},
			Timeout: 5 * time.Second, CompileTimeout: 300 * time.Millisecond, Precompile: precompile, PauseWhileTiming: true,
		})
		t.Cleanup(func() { s.Close() })
		if _, err := s.Evaluate(context.Background(), space.Config{behaveOK, 0}); err != nil {
			t.Fatal(err)
		}
		s.Hint(space.Config{behaveCompileHang, 1})
		begin := time.Now()
		e, err := s.Evaluate(context.Background(), space.Config{behaveCompileHang, 1})
		if err != nil {
			t.Fatal(err)
		}
		took := time.Since(begin)
		want := "compilation ran past the time limit of 300ms (compile_timeout) and was killed"
		if e.Status != result.Timeout || !strings.HasPrefix(e.Message, want) {
			t.Errorf("pre-compiling %v: %v %q, want a timeout saying %q", precompile, e.Status, e.Message, want)
		}
		if took > 3*time.Second {
			t.Errorf("pre-compiling %v: the hanging compilation took %v to end", precompile, took)
		}
		// its time was compiling: no kernel ran
		if e.CompileMS < 250 || e.BenchmarkMS != 0 {
			t.Errorf("pre-compiling %v: compile %v ms, benchmark %v ms; want the compile limit, 0", precompile, e.CompileMS, e.BenchmarkMS)
		}
		if e, err := s.Evaluate(context.Background(), space.Config{behaveOK, 2}); err != nil || e.Status != result.OK {
			t.Errorf("pre-compiling %v: after it: %v %v", precompile, e.Status, err)
		}
	}
}

// A compilation that hung in a pre-compiler is stored with the time it spent compiling,
// the compile limit, as one that hung in the measuring child is: it was stored with the
// time the measuring child waited for the pre-compiler, none at all when the
// pre-compiler had given up before the configuration's turn came.
func TestACompilationThatHungAheadKeepsItsCompileTime(t *testing.T) {
	s := NewSupervisor(Options{
		Command: []string{os.Args[0], "-test.run=^$"}, Env: []string{"KTUNE_WORKER_TEST=1"},
		Timeout: 5 * time.Second, CompileTimeout: 300 * time.Millisecond, Precompile: true, PauseWhileTiming: true,
	})
	t.Cleanup(func() { s.Close() })
	// The pre-compiler takes the hanging compilation while the measuring child spends
	// 1.5 s in a first run, which does not pause it: it gives up long before its turn.
	s.Hint(space.Config{behaveCompileHang, 1})
	if e, err := s.Evaluate(context.Background(), space.Config{behaveSlowWarmUp, 0}); err != nil || e.Status != result.OK {
		t.Fatalf("first: %v %q %v", e.Status, e.Message, err)
	}
	e, err := s.Evaluate(context.Background(), space.Config{behaveCompileHang, 1})
	if err != nil {
		t.Fatal(err)
	}
	if e.Status != result.Timeout || !strings.Contains(e.Message, "compile_timeout") {
		t.Fatalf("%v %q, want a timeout at the compile limit", e.Status, e.Message)
	}
	if e.CompileMS < 300 || e.CompileMS > 3000 || e.BenchmarkMS != 0 {
		t.Errorf("compile %v ms, benchmark %v ms; want the compile limit of 300 ms as compile time, no kernel time", e.CompileMS, e.BenchmarkMS)
	}
}

// A worker killed by a SIGKILL that the supervisor did not send (the out-of-memory
// killer's, as a rule) is no crash of the kernel's own: the message says who kills so, and
// what to do, whether or not the workers' memory is limited; the next configuration runs
// in a fresh worker. A kill of the supervisor's own (a time limit) keeps its message.
func TestAWorkerKilledFromOutsideSaysSo(t *testing.T) {
	for _, tc := range []struct {
		limit int64
		want  string
	}{
		{0, "the kernel was killed by SIGKILL from outside ktune, often the out-of-memory killer, after printing: allocating a lot; " +
			"if it ran the machine out of memory, bound each worker's memory with --worker-memory, so that an allocation beyond the bound fails in the configuration alone"},
		{3 << 30, "the kernel was killed by SIGKILL from outside ktune, often the out-of-memory killer, after printing: allocating a lot; " +
			"if the machine ran out of memory, lower the workers' memory limit of 3.0 GiB (--worker-memory), or free memory"},
	} {
		s := newTestSupervisor(t)
		s.opts.MemoryLimit = tc.limit
		for i, b := range []int{behaveOK, behaveKilled, behaveOK, behaveHang, behaveOK} {
			e, err := s.Evaluate(context.Background(), space.Config{b, i})
			if err != nil {
				t.Fatalf("limit %d, step %d: %v", tc.limit, i, err)
			}
			switch b {
			case behaveKilled:
				if e.Status != result.RuntimeError || e.Message != tc.want {
					t.Errorf("limit %d: %v %q, want a runtime error %q", tc.limit, e.Status, e.Message, tc.want)
				}
			case behaveHang:
				if e.Status != result.Timeout || strings.Contains(e.Message, "outside") {
					t.Errorf("limit %d: a hang: %v %q", tc.limit, e.Status, e.Message)
				}
			default:
				if e.Status != result.OK {
					t.Errorf("limit %d, step %d: %v %q", tc.limit, i, e.Status, e.Message)
				}
			}
		}
	}
}

// A worker takes the memory limit its supervisor sets as its data limit (RLIMIT_DATA),
// before it opens its device, and offers itself to the out-of-memory killer first; one
// whose Go heap would pass the limit dies of it, as that configuration's failure, which
// names the limit.
func TestAWorkersMemoryIsLimited(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the limit is set on Linux")
	}
	const limit = 512 << 20
	s := newTestSupervisor(t)
	s.opts.MemoryLimit = limit
	e, err := s.Evaluate(context.Background(), space.Config{behaveLimits, 0})
	if err != nil || e.Status != result.OK {
		t.Fatalf("%v %q %v", e.Status, e.Message, err)
	}
	if e.Metrics["data"] != limit || e.Metrics["oom_score_adj"] != 1000 {
		t.Errorf("the worker's data limit is %v, its oom_score_adj %v; want %d, 1000", e.Metrics["data"], e.Metrics["oom_score_adj"], limit)
	}
	e, err = s.Evaluate(context.Background(), space.Config{behaveHog, 1})
	want := "the worker process died (exit status 2) while running the kernel: fatal error: runtime: out of memory; " +
		"it ran out of memory: a worker's memory is limited to 512.0 MiB (--worker-memory); give more if the configuration needs it"
	if raceDetector {
		want = e.Message // ThreadSanitizer's runtime dies first, in its own words
	}
	if err != nil || e.Status != result.RuntimeError || e.Message != want {
		t.Errorf("4 GiB under a limit of 512 MiB: %v %q %v; want a runtime error %q", e.Status, e.Message, err, want)
	}
	if e, err := s.Evaluate(context.Background(), space.Config{behaveOK, 2}); err != nil || e.Status != result.OK {
		t.Errorf("after it: %v %q %v", e.Status, e.Message, err)
	}
}

// The supervisor knows the device as its child opened it, under the memory limit, once a
// child has started, and not before.
func TestTheSupervisorKnowsTheDeviceAsItsChildOpenedIt(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the limit is set on Linux")
	}
	const limit = 512 << 20
	s := newTestSupervisor(t)
	s.opts.MemoryLimit = limit
	if info, ok := s.DeviceInfo(); ok {
		t.Errorf("before any child started: %+v, ok", info)
	}
	if e, err := s.Evaluate(context.Background(), space.Config{behaveOK, 0}); err != nil || e.Status != result.OK {
		t.Fatalf("%v %q %v", e.Status, e.Message, err)
	}
	if info, ok := s.DeviceInfo(); !ok || info.Name != "fake" || info.GlobalMemBytes != limit {
		t.Errorf("after a child started: %+v, %v; want the fake device with %d bytes, the child's limit", info, ok, limit)
	}
}

// A pre-compiler stopped while a kernel is timed is not charged for that time: a
// compilation it was in the middle of finishes after the timing, however long that took.
func TestAPausedPrecompilerIsNotTimedOut(t *testing.T) {
	s := NewSupervisor(Options{
		Command: []string{os.Args[0], "-test.run=^$"}, Env: []string{"KTUNE_WORKER_TEST=1"},
		Timeout: 5 * time.Second, CompileTimeout: 500 * time.Millisecond, Precompile: true, PauseWhileTiming: true,
	})
	t.Cleanup(func() { s.Close() })
	// The pre-compiler starts, and compiles a first configuration.
	s.Hint(space.Config{behaveOK, 5})
	if _, err := s.Evaluate(context.Background(), space.Config{behaveOK, 0}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	// The pre-compiler takes the slow compilation while the measuring child times for
	// 1.5 s, three compile limits, with the pre-compiler stopped.
	s.Hint(space.Config{behaveSlowCompile, 1})
	if e, err := s.Evaluate(context.Background(), space.Config{behaveLongTiming, 0}); err != nil || e.Status != result.OK {
		t.Fatalf("timing: %v %v", e.Status, err)
	}
	e, err := s.Evaluate(context.Background(), space.Config{behaveSlowCompile, 1})
	if err != nil || e.Status != result.OK {
		t.Fatalf("the configuration compiled ahead: %v %q %v, want ok", e.Status, e.Message, err)
	}
}

// The timed runs start once the pre-compilers have stopped: a compiler busy on the CPU
// uses none of it while a kernel is timed on a CPU device.
func TestTimedRunsWaitForThePrecompilersToStop(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads the pre-compiler's CPU time from /proc")
	}
	pidFile := filepath.Join(t.TempDir(), "pid")
	s := newTestSupervisor(t, "KTUNE_WORKER_PIDFILE="+pidFile)
	s.Hint(space.Config{behaveBusyCompile, 1})
	e, err := s.Evaluate(context.Background(), space.Config{behavePrecompilerCPU, 0})
	if err != nil || e.Status != result.OK {
		t.Fatalf("%v %q %v", e.Status, e.Message, err)
	}
	if ns := e.Metrics["cpu_ns"]; ns != 0 {
		t.Errorf("the pre-compiler used %v ns of CPU time during the timed runs, want 0", ns)
	}
}

// A closed supervisor starts no child again: Evaluate and Reference say it is closed.
func TestAClosedSupervisorStartsNoChild(t *testing.T) {
	s := newTestSupervisor(t)
	ctx := context.Background()
	if e, err := s.Evaluate(ctx, space.Config{behaveOK, 1}); err != nil || e.Status != result.OK {
		t.Fatalf("before Close: %v %v", e.Status, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Evaluate(ctx, space.Config{behaveOK, 2}); !errors.Is(err, ErrClosed) {
		t.Errorf("Evaluate after Close = %v, want ErrClosed", err)
	}
	if err := s.Reference(ctx); !errors.Is(err, ErrClosed) {
		t.Errorf("Reference after Close = %v, want ErrClosed", err)
	}
	if s.main != nil {
		t.Error("a child was started after Close")
	}
}

// Close does not wait for a configuration being compiled ahead: nobody will measure it
// (the session ended: its time limit, its budget, an interrupt), and a compilation may
// take seconds. The busy pre-compiler is killed; the command ends at once.
func TestCloseKillsAPrecompilerThatIsCompiling(t *testing.T) {
	s := newTestSupervisor(t)
	ctx := context.Background()
	s.Hint(space.Config{behaveCompileHang, 1})
	if e, err := s.Evaluate(ctx, space.Config{behaveOK, 0}); err != nil || e.Status != result.OK {
		t.Fatalf("first: %v %v", e.Status, err)
	}
	var pid int
	for deadline := time.Now().Add(10 * time.Second); pid == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no pre-compiler took the hinted configuration")
		}
		s.preMu.Lock()
		if slot := s.pres[0]; slot.busy && slot.ch != nil {
			pid = slot.ch.cmd.Process.Pid
		}
		s.preMu.Unlock()
	}
	time.Sleep(100 * time.Millisecond) // compiling by now
	// A child that does not end is killed after the grace: a long one tells waiting for
	// the compilation from killing it, however loaded the machine (under the race
	// detector an idle child takes a second to end).
	s.exitGrace = time.Minute
	start := time.Now()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("Close took %v: it waited for a compilation nobody will measure", took)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the pre-compiler (pid %d) is still there after Close: %v", pid, err)
	}
}

// The time a hung kernel ran until it was killed is kernel (benchmark) time, whether it
// hung in the measuring child or in its warm-up launch in a pre-compiler; it was booked
// as framework time in the one, as compilation in the other.
func TestAHungKernelsTimeIsKernelTime(t *testing.T) {
	for _, ahead := range []bool{false, true} {
		s := newTestSupervisor(t) // run limit 500 ms
		ctx := context.Background()
		if ahead {
			s.Hint(space.Config{behaveHang, 1})
		}
		if e, err := s.Evaluate(ctx, space.Config{behaveOK, 0}); err != nil || e.Status != result.OK {
			t.Fatalf("first: %v %v", e.Status, err)
		}
		e, err := s.Evaluate(ctx, space.Config{behaveHang, 1})
		if err != nil || e.Status != result.Timeout {
			t.Fatalf("ahead %v: %v %s %v", ahead, e.Status, e.Message, err)
		}
		if got := strings.Contains(e.Message, "while compiled ahead"); got != ahead {
			t.Fatalf("ahead %v: hung in a pre-compiler %v: %s", ahead, got, e.Message)
		}
		if e.BenchmarkMS < 450 || e.BenchmarkMS > 3000 || e.CompileMS > 300 || e.FrameworkMS > 300 {
			t.Errorf("ahead %v: compile %v ms, benchmark %v ms, framework %v ms; want the run limit of 500 ms as benchmark time",
				ahead, e.CompileMS, e.BenchmarkMS, e.FrameworkMS)
		}
	}
}

// A configuration that crashes its worker has its time divided as a hung one's is: until
// the kernel started, compilation; from then on, the kernel's. All of it was booked as
// framework overhead, which the summary reports as ktune's own cost.
func TestACrashedKernelsTimeIsCompileAndKernelTime(t *testing.T) {
	s := newTestSupervisor(t) // run limit 500 ms
	ctx := context.Background()
	e, err := s.Evaluate(ctx, space.Config{behaveSlowCrash, 0})
	if err != nil || e.Status != result.RuntimeError {
		t.Fatalf("%v %s %v", e.Status, e.Message, err)
	}
	if e.CompileMS < 280 || e.CompileMS > 1500 || e.BenchmarkMS < 380 || e.BenchmarkMS > 1500 || e.FrameworkMS > 250 {
		t.Errorf("compile %v ms, benchmark %v ms, framework %v ms; want about 300 ms of compilation and 400 ms of kernel time",
			e.CompileMS, e.BenchmarkMS, e.FrameworkMS)
	}
}
