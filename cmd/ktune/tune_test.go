package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"github.com/ktune/ktune/store/postgres/pgtest"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/store"
	"github.com/ktune/ktune/tuner"
)

// TestMain lets the test binary serve as ktune itself: as the worker process `ktune tune`
// starts (os.Executable() is the test binary), and as a whole ktune process for tests
// that kill it.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "worker" || os.Getenv("KTUNE_TEST_AS_MAIN") == "1" {
		ctx, stop := notifyStop(context.Background())
		code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	code := pgtest.Main(m) // stops the PostgreSQL server that tests of --db postgres:// started
	if kernels.dir != "" {
		os.RemoveAll(kernels.dir)
	}
	os.Exit(code)
}

// kernels holds the kernel sources that tests share (sharedKernel), by source path.
var kernels struct {
	sync.Mutex
	dir    string
	copies map[string]string
}

// sharedKernel copies the kernel source at path into a folder of this test binary's,
// once, and returns the copy's absolute path. Tests that must not change the kernel may
// name the copy in their specs so that the OpenCL runtime's cache of builds, keyed by
// the source and its folder, serves them all: the same kernel in a folder per test is
// compiled afresh for each.
func sharedKernel(t *testing.T, path string) string {
	t.Helper()
	kernels.Lock()
	defer kernels.Unlock()
	if p, ok := kernels.copies[path]; ok {
		return p
	}
	if kernels.dir == "" {
		dir, err := os.MkdirTemp("", "ktune-test-kernels-")
		if err != nil {
			t.Fatalf("a folder for the shared kernels: %v", err)
		}
		kernels.dir, kernels.copies = dir, map[string]string{}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(kernels.dir, strconv.Itoa(len(kernels.copies)))
	copyPath := filepath.Join(sub, filepath.Base(path))
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(copyPath, b, 0o444); err != nil {
		t.Fatal(err)
	}
	kernels.copies[path] = copyPath
	return copyPath
}

func needBackend(t *testing.T, name string) {
	t.Helper()
	b, ok := device.Lookup(name)
	if !ok {
		t.Skipf("backend %s is not built in", name)
	}
	if _, err := b.Devices(); err != nil {
		t.Skipf("backend %s unavailable: %v", name, err)
	}
}

// runEvaluations reads run's evaluations back from the store db, in their order.
func runEvaluations(t *testing.T, db string, run int64) []result.Evaluation {
	t.Helper()
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	evals, err := st.Evaluations(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	return evals
}

// statusesByConfig reads a run's evaluations back from the store.
func statusesByConfig(t *testing.T, db string, run int64) map[string]result.Status {
	t.Helper()
	evals := runEvaluations(t, db, run)
	out := map[string]result.Status{}
	for _, e := range evals {
		out[store.ConfigKey(e.Config)] = e.Status
	}
	return out
}

// evaluationLines is a run's evaluations in its order, a line each with the
// configuration, status and message, for a failing test to show.
func evaluationLines(t *testing.T, db string, run int64) string {
	t.Helper()
	evals := runEvaluations(t, db, run)
	var b strings.Builder
	for _, e := range evals {
		fmt.Fprintf(&b, "%s: %s %s\n", store.ConfigKey(e.Config), e.Status, e.Message)
	}
	return b.String()
}

func TestFaultyKernelsAreClassifiedAndTheRunCompletes(t *testing.T) {
	tests := []struct {
		backend, spec string
		want          map[string]result.Status // by configuration key
	}{
		{"c", "faulty_c.yaml", map[string]result.Status{
			"0,0": result.OK, "1,0": result.CompileError, "2,0": result.WrongAnswer,
			"3,0": result.RuntimeError, "4,0": result.Timeout,
			"0,1": result.OK, "1,1": result.CompileError, "2,1": result.WrongAnswer,
			"3,1": result.RuntimeError, "4,1": result.Timeout,
		}},
		{"opencl", "faulty_opencl.yaml", map[string]result.Status{
			"0,64": result.OK, "1,64": result.CompileError, "2,64": result.WrongAnswer, "3,64": result.Timeout,
			"0,65536": result.DeviceLimit, "1,65536": result.DeviceLimit, "2,65536": result.DeviceLimit, "3,65536": result.DeviceLimit,
		}},
		// The out-of-bounds kernel (4) loses its worker's CUDA context: the worker is
		// replaced and the configurations after it still run (6 is correct).
		{"cuda", "faulty_cuda.yaml", map[string]result.Status{
			"0,64": result.OK, "1,64": result.CompileError, "2,64": result.WrongAnswer, "3,64": result.Timeout,
			"4,64": result.RuntimeError, "5,64": result.DeviceLimit, "6,64": result.OK,
			"0,2048": result.DeviceLimit, "1,2048": result.DeviceLimit, "2,2048": result.DeviceLimit, "3,2048": result.DeviceLimit,
			"4,2048": result.DeviceLimit, "5,2048": result.DeviceLimit, "6,2048": result.DeviceLimit,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.backend, func(t *testing.T) {
			needBackend(t, tt.backend)
			if tt.backend == "cuda" {
				t.Setenv("KTUNE_CUDA_CACHE", t.TempDir()) // compiled modules stay out of the user's cache
			}
			db := filepath.Join(t.TempDir(), "ktune.db")
			// Three pre-compilers, whatever the cores: brute force hints the faulty
			// configurations ahead, so they crash and hang there too, and the measuring
			// worker must not be held up by them.
			out, errOut, code := ktune(t, "tune", "../../testdata/faulty/"+tt.spec, "--strategy", "bruteforce", "--precompilers", "3", "--db", db, "--json")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var rep tuneReport
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			if rep.Stop != "space exhausted" || rep.Evaluations != len(tt.want) {
				t.Fatalf("stopped %q after %d evaluations", rep.Stop, rep.Evaluations)
			}
			got := statusesByConfig(t, db, rep.Run)
			for key, want := range tt.want {
				if got[key] != want {
					t.Errorf("configuration %s: status %v, want %v", key, got[key], want)
				}
			}
			// Crashes of one kind share their message (the summary and report group them).
			if tt.backend == "c" {
				evals := evaluationsOf(t, db)
				for _, key := range []string{"3,0", "3,1"} {
					if m := evals[key].Message; m != "the kernel crashed: SIGSEGV (segmentation fault)" {
						t.Errorf("configuration %s: message %q", key, m)
					}
				}
			}
			// A real run exports to Kernel Tuner's cache and to T4, and reads back.
			for _, f := range []string{"kerneltuner", "t4"} {
				out := filepath.Join(t.TempDir(), "run."+f+".json")
				run := strconv.FormatInt(rep.Run, 10)
				if _, errOut, code := ktune(t, "export", "--db", db, "--run", run, "--format", f, "-o", out); code != 0 {
					t.Fatalf("export %s: %s", f, errOut)
				}
				rec, err := openRecording(out)
				if err != nil {
					t.Fatalf("reading the %s export: %v", f, err)
				}
				if total, ok := rec.Counts(); total != len(tt.want) || ok != rep.Statuses["ok"] {
					t.Errorf("%s export: %d configurations, %d ok; want %d, %d", f, total, ok, len(tt.want), rep.Statuses["ok"])
				}
			}
		})
	}
}

// A C kernel's printf reaches the crash message even though the worker's standard output
// is a pipe, for which C buffers whole blocks that a crash never flushes.
func TestWhatACrashingCKernelPrintedIsInItsMessage(t *testing.T) {
	needBackend(t, "c")
	t.Setenv("KTUNE_CACHE", t.TempDir())
	dir := t.TempDir()
	files := map[string]string{
		"k.c": `#include <stdio.h>
#include <signal.h>
void k(float *out, int n) {
    out[0] = (float)n;
    printf("about to crash at n=%d\n", n);
    if (crash) raise(SIGSEGV);
}
`,
		"k.yaml": `kernel: {name: k, source: k.c}
parameters:
  - {name: crash, values: [0, 1]}
problem_size: [1]
arguments:
  - {name: out, type: float32, length: 1, output: true}
  - {name: n, type: int32, value: 7}
iterations: 2
`,
	}
	writeFiles(t, dir, files)
	db := tuneBruteForce(t, dir, "k.yaml")
	want := "the kernel crashed: SIGSEGV (segmentation fault), after printing: about to crash at n=7"
	if got := evaluationsOf(t, db)["1"].Message; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
}

func TestKilledTuningResumesWithoutLosingOrRepeatingWork(t *testing.T) {
	needBackend(t, "c")
	dir := t.TempDir()
	db := filepath.Join(dir, "ktune.db")
	specPath, err := filepath.Abs("../../testdata/faulty/slow_c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"tune", specPath, "--strategy", "random", "--seed", "3", "--db", db}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "KTUNE_TEST_AS_MAIN=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until some configurations are committed, then kill the tuner without warning.
	// The wait ends as soon as they are; its bound, 5 minutes, is for a loaded machine's
	// worker start and compilations.
	deadline := time.Now().Add(5 * time.Minute)
	var before map[string]result.Evaluation
	for time.Now().Before(deadline) {
		time.Sleep(150 * time.Millisecond)
		before = evaluationsOf(t, db)
		if len(before) >= 3 {
			break
		}
	}
	// While the tuner lives, the same command elsewhere does not resume its run: both
	// would measure into it.
	_, errLive, codeLive := ktune(t, args...)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if len(before) < 3 {
		t.Fatalf("only %d evaluations were committed before the deadline", len(before))
	}
	if codeLive != 1 || !strings.Contains(errLive, "run 1 of this kernel, device and settings in "+db+" is being tuned by another ktune process") {
		t.Errorf("the same command beside a live run: exit %d, %s", codeLive, errLive)
	}
	before = evaluationsOf(t, db) // what the killed run left
	out, errOut, code := ktune(t, append(args, "--json")...)
	if code != 0 {
		t.Fatalf("rerun: exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "resuming run 1") {
		t.Fatalf("the rerun did not resume: %s", errOut)
	}
	var rep tuneReport
	json.Unmarshal([]byte(out), &rep)
	st, _ := store.Open(context.Background(), db)
	defer st.Close()
	evals, _ := st.Evaluations(context.Background(), 1)
	seen := map[string]int{}
	for _, e := range evals {
		seen[store.ConfigKey(e.Config)]++
	}
	for k, n := range seen {
		if n > 1 {
			t.Errorf("configuration %s measured %d times", k, n)
		}
	}
	if len(seen) != rep.SpaceSize {
		t.Errorf("%d configurations measured, the space has %d", len(seen), rep.SpaceSize)
	}
	for k, e := range before {
		var kept *result.Evaluation
		for i := range evals {
			if store.ConfigKey(evals[i].Config) == k {
				kept = &evals[i]
			}
		}
		if kept == nil || !slices.Equal(kept.Samples, e.Samples) {
			t.Errorf("configuration %s measured before the kill was lost or changed", k)
		}
	}
	if rep.Resumed != len(before) {
		t.Errorf("resumed %d, want %d", rep.Resumed, len(before))
	}
}

// A fresh run resumes nothing, though the spec's default configuration is measured before
// the search and then known to it.
func TestFreshRunReportsNothingResumed(t *testing.T) {
	needBackend(t, "c")
	db := filepath.Join(t.TempDir(), "ktune.db")
	out, errOut, code := ktune(t, "tune", "../../examples/vector_add/vector_add_c.yaml", "--budget", "3", "--db", db, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep tuneReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.DefaultObjective == nil || rep.Evaluations != 3 || rep.Resumed != 0 {
		t.Fatalf("default objective %v, %d evaluations, %d resumed; want a default, 3 and 0", rep.DefaultObjective, rep.Evaluations, rep.Resumed)
	}
}

// A host C kernel that sleeps never measures less than its sleep: no preemption signal of
// the worker's Go runtime reaches the kernel's thread to cut the sleep short. (The signal
// came rarely, when the runtime caught the measuring goroutine between two kernel calls:
// before the fix, 4 of 10 runs of this kernel's 1,200 calls had one cut short, and in a
// QA run a 39 ms kernel measured 0.06 ms.)
func TestASleepingHostKernelIsNeverTimedShorterThanItsSleep(t *testing.T) {
	needBackend(t, "c")
	dir := t.TempDir()
	kernel := `#include <time.h>
void nap(float *y, int n) {
    struct timespec t = {0, 1000000};  /* 1 ms */
    nanosleep(&t, 0);
    y[0] = n + v;
}
`
	spec := `kernel: {name: nap, source: nap.c}
parameters:
  - {name: v, values: [0, 1, 2, 3]}
problem_size: [1]
arguments:
  - {name: y, type: float32, length: 1, output: true}
  - {name: n, type: int32, value: 1}
iterations: 300
`
	writeFiles(t, dir, map[string]string{"nap.c": kernel, "nap.yaml": spec})
	db := tuneBruteForce(t, dir, "nap.yaml")
	evals := evaluationsOf(t, db)
	if len(evals) != 4 {
		t.Fatalf("%d evaluations, want 4", len(evals))
	}
	for key, e := range evals {
		if e.Status != result.OK || len(e.Samples) != 300 {
			t.Fatalf("configuration %s: %v with %d samples: %s", key, e.Status, len(e.Samples), e.Message)
		}
		for i, ms := range e.Samples {
			if ms < 1 {
				t.Errorf("configuration %s, run %d: %.3f ms, shorter than the kernel's 1 ms sleep", key, i, ms)
			}
		}
	}
}

// An OpenCL kernel that crashes its worker is described by what the worker printed for
// it alone: the compiler's complaint about the configuration before it ("1 error
// generated.", which PoCL prints on the worker's standard error) used to end the message.
func TestACrashMessageHoldsNothingOfAnEarlierConfiguration(t *testing.T) {
	needBackend(t, "opencl")
	dir := t.TempDir()
	kernel := `__kernel void scale(__global float *y, const int n) {
    size_t i = get_global_id(0);
#if mode == 1
    syntax error here
#endif
#if mode == 2
    y[i + ((size_t)1 << 38)] = 1.0f;  /* far outside any mapping */
#endif
    if (i < n) y[i] = 2.0f;
}
`
	spec := `kernel: {name: scale, source: scale.cl}
parameters:
  - {name: mode, values: [1, 2]}
  - {name: block_size_x, values: [32]}
problem_size: [1024]
arguments:
  - {name: y, type: float32, length: 1024, output: true}
  - {name: n, type: int32, value: 1024}
iterations: 1
`
	writeFiles(t, dir, map[string]string{"scale.cl": kernel, "scale.yaml": spec})
	db := filepath.Join(dir, "ktune.db")
	ktune(t, "tune", filepath.Join(dir, "scale.yaml"), "--strategy", "bruteforce", "--no-precompile", "--db", db)
	evals := evaluationsOf(t, db)
	if e := evals["1,32"]; e.Status != result.CompileError {
		t.Fatalf("mode 1: %v %s, want a compile error", e.Status, e.Message)
	}
	// On a CPU device the message goes on to say what such a fault may be there, and
	// nothing else.
	if e := evals["2,32"]; e.Status != result.RuntimeError || !strings.HasPrefix(e.Message, "the kernel crashed: SIGSEGV (segmentation fault)") ||
		strings.Contains(e.Message, "generated") || strings.Contains(e.Message, "after printing") {
		t.Errorf("mode 2: %v %q, want a runtime error saying the kernel crashed of SIGSEGV", e.Status, e.Message)
	}
}

// A kernel that starts a program in the background and then crashes is recorded as the
// crash it was, at once: the program, which holds the worker's output open, kept the tuner
// waiting until it exited (past the spec's timeout, forever for a daemon), and the
// configuration was recorded as a timeout. One in the worker's process group is killed with
// it; one in a session of its own (a daemon) is left, and no longer waited for. The
// programs sleep 120 s and the run must end within 60 s: room for a loaded machine's
// worker start and compilations (the bound was 12 s against sleeps of 20 s), and still
// half of what waiting for one program would take.
func TestAKernelThatCrashesLeavingAProgramRunningIsACrash(t *testing.T) {
	needBackend(t, "c")
	dir := t.TempDir()
	kernel := `#include <stdlib.h>
void spawn(float *y, int n) {
#if mode == 1
    system("setsid sh -c 'echo $$ > DIR/daemon.pid; exec sleep 120' &");
    abort();
#elif mode == 2
    system("sh -c 'echo $$ > DIR/background.pid; exec sleep 120' &");
    abort();
#endif
    for (int i = 0; i < n; i++) y[i] = i;
}
`
	spec := modeSpec("spawn", "[0, 1, 2]", "timeout: 2s\n")
	files := map[string]string{"spawn.c": strings.ReplaceAll(kernel, "DIR", dir), "spawn.yaml": spec}
	writeFiles(t, dir, files)
	t.Cleanup(func() {
		// The daemons the kernel started, if they still run.
		for _, name := range []string{"daemon.pid", "background.pid"} {
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				continue
			}
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil && strings.HasPrefix(string(cmd), "sleep\x00120") {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	begin := time.Now()
	db := tuneBruteForce(t, dir, "spawn.yaml")
	if took := time.Since(begin); took > 60*time.Second {
		t.Errorf("the run took %v; the programs the kernel started sleep 120 s", took)
	}
	evals := evaluationsOf(t, db)
	if e := evals["0"]; e.Status != result.OK {
		t.Errorf("mode 0: %v %s", e.Status, e.Message)
	}
	for _, key := range []string{"1", "2"} {
		if e := evals[key]; e.Status != result.RuntimeError || e.Message != "the kernel crashed: SIGABRT (aborted)" {
			t.Errorf("mode %s: %v %q, want a runtime error saying the kernel crashed of SIGABRT", key, e.Status, e.Message)
		}
	}
}

// A batch scheduler that suspends a job stops all its processes (SIGSTOP) and later
// resumes them (SIGCONT). A configuration whose kernel was running then is neither failed
// as a timeout (the stop counted against its time limit, and a healthy configuration was
// recorded as a timeout for good) nor timed with the stop in a sample: it is measured
// again. The kernel sleeps 0.2 s a run under a timeout of 3 s, and the stop lasts 6 s,
// twice the timeout; no sample, nor the tuner's own time, may hold 3 s, half the stop.
// (With a 1 s timeout, a 2 s stop and bounds of 1.5 s, a loaded machine had less room to
// run the warm-up and the timed run, and to start the worker, than the stop left apart.)
func TestASuspendedTuningCountsNeitherTheStopNorItsTime(t *testing.T) {
	needBackend(t, "c")
	dir := t.TempDir()
	marker := filepath.Join(dir, "timing")
	kernel := `#include <stdio.h>
#include <time.h>
static int calls;
void nap(float *y, int n) {
    struct timespec t = {0, 200000000};  /* 0.2 s */
    if (++calls == 2) {  /* the first timed run, after the warm-up */
        FILE *f = fopen("MARKER", "w");
        if (f) fclose(f);
    }
    nanosleep(&t, 0);
    y[0] = n;
}
`
	spec := `kernel: {name: nap, source: nap.c}
parameters:
  - {name: v, values: [0]}
problem_size: [1]
arguments:
  - {name: y, type: float32, length: 1, output: true}
  - {name: n, type: int32, value: 1}
iterations: 1
timeout: 3s
`
	files := map[string]string{"nap.c": strings.ReplaceAll(kernel, "MARKER", marker), "nap.yaml": spec}
	writeFiles(t, dir, files)
	db := filepath.Join(dir, "ktune.db")
	cmd := exec.Command(os.Args[0], "tune", filepath.Join(dir, "nap.yaml"), "--strategy", "bruteforce", "--db", db)
	cmd.Env = append(os.Environ(), "KTUNE_TEST_AS_MAIN=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		if _, err := os.Stat(marker); err == nil {
			break
		}
		select {
		case <-done:
			t.Fatalf("ktune ended before its kernel was timed: %s", stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	// The whole tree, as the scheduler stops it, for twice the time limit.
	tree := append([]int{cmd.Process.Pid}, descendants(cmd.Process.Pid)...)
	for _, pid := range tree {
		syscall.Kill(pid, syscall.SIGSTOP)
	}
	time.Sleep(6 * time.Second)
	for _, pid := range tree {
		syscall.Kill(pid, syscall.SIGCONT)
	}
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("ktune did not finish within 30 s of its resumption: %s", stderr.String())
	}
	e := evaluationsOf(t, db)["0"]
	if code := cmd.ProcessState.ExitCode(); code != 0 || e.Status != result.OK {
		t.Fatalf("exit %d, %v %q, want ok: %s", code, e.Status, e.Message, stderr.String())
	}
	for _, ms := range e.Samples {
		if ms > 3000 {
			t.Errorf("a sample of %.0f ms holds the 6 s stop (the kernel runs 200 ms)", ms)
		}
	}
	// Nor is the stop, or the measurement it spoiled, the tuner's own overhead.
	if e.FrameworkMS > 3000 || e.CompileMS > 3000 {
		t.Errorf("framework %.0f ms, compile %.0f ms: the 6 s stop is counted as the tuner's time", e.FrameworkMS, e.CompileMS)
	}
}

// descendants are the processes under pid: its children, theirs, and so on.
func descendants(pid int) []int {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	children := map[int][]int{}
	for _, st := range stats {
		b, err := os.ReadFile(st)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 2 {
			continue
		}
		id, err1 := strconv.Atoi(filepath.Base(filepath.Dir(st)))
		ppid, err2 := strconv.Atoi(f[1])
		if err1 != nil || err2 != nil {
			continue
		}
		children[ppid] = append(children[ppid], id)
	}
	var out []int
	for next := []int{pid}; len(next) > 0; {
		p := next[0]
		next = append(next[1:], children[p]...)
		out = append(out, children[p]...)
	}
	return out
}

// A compiler that never finishes (here it waits on an #include of a named pipe that no
// one writes) is killed at the spec's compile_timeout, whether the measuring worker or a
// pre-compiler met it, and the configuration's message names the limit. The limit, 4 s,
// leaves the compiler of the other configuration time under load (at 1 s a CI run under
// a load of 15 on 2 cores killed it too; under a load of 16 here it compiled in 19 ms,
// see the log). The run must end within 2 minutes (30 s before; under that load each
// case took 8-9 s): the default compile_timeout, 5 minutes, would not end it by then.
func TestACompilationThatHangsEndsAtTheSpecsCompileTimeout(t *testing.T) {
	needBackend(t, "c")
	for _, precompilers := range []string{"0", "1"} {
		t.Run("precompilers="+precompilers, func(t *testing.T) {
			dir := t.TempDir()
			fifo := filepath.Join(dir, "never.h")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skipf("no named pipe: %v", err)
			}
			kernel := `#if mode == 1
#include "never.h"
#endif
void fill(float *y, int n) { for (int i = 0; i < n; i++) y[i] = i; }
`
			spec := modeSpec("fill", "[0, 1]", "compile_timeout: 4s\n")
			writeFiles(t, dir, map[string]string{"fill.c": kernel, "fill.yaml": spec})
			begin := time.Now()
			db := tuneBruteForce(t, dir, "fill.yaml", "--precompilers", precompilers)
			if took := time.Since(begin); took > 2*time.Minute {
				t.Errorf("the run took %v", took)
			}
			evals := evaluationsOf(t, db)
			if e := evals["0"]; e.Status != result.OK {
				t.Errorf("mode 0: %v %s", e.Status, e.Message)
			} else {
				t.Logf("mode 0 compiled in %.0f ms, within the limit of 4 s", e.CompileMS)
			}
			e := evals["1"]
			want := "compilation ran past the time limit of 4s (compile_timeout) and was killed"
			if e.Status != result.Timeout || !strings.HasPrefix(e.Message, want) {
				t.Errorf("mode 1: %v %q, want a timeout saying %q", e.Status, e.Message, want)
			}
		})
	}
}

// --worker-memory (or $KTUNE_WORKER_MEMORY) bounds each worker's memory: a host C kernel
// whose 4 GiB malloc it refuses fails alone, its message naming the limit, and the
// configurations after it run; with none the malloc succeeds (and the kernel frees it
// untouched). A size that is none is a usage error.
func TestWorkerMemoryBoundsWhatAKernelMayAllocate(t *testing.T) {
	needBackend(t, "c")
	dir := t.TempDir()
	kernel := `#include <stdio.h>
#include <stdlib.h>
void hog(float *y, int n) {
	if (mode == 1) {
		char *p = malloc((size_t)4 << 30);
		if (p == NULL) {
			perror("hog");
			abort();
		}
		free(p);
	}
	for (int i = 0; i < n; i++) y[i] = i;
}
`
	spec := modeSpec("hog", "[0, 1, 2]", "")
	writeFiles(t, dir, map[string]string{"hog.c": kernel, "hog.yaml": spec})
	for i, tc := range []struct {
		flag, env string
		failed    bool // mode 1 fails
	}{
		{"512MiB", "", true},
		{"", "512MiB", true},
		{"none", "512MiB", false},
	} {
		if tc.env != "" {
			t.Setenv("KTUNE_WORKER_MEMORY", tc.env)
		}
		db := filepath.Join(dir, fmt.Sprintf("k%d.db", i))
		args := []string{"tune", filepath.Join(dir, "hog.yaml"), "--strategy", "bruteforce", "--db", db}
		if tc.flag != "" {
			args = append(args, "--worker-memory", tc.flag)
		}
		if _, errOut, code := ktune(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		evals := evaluationsOf(t, db)
		want := "the kernel crashed: SIGABRT (aborted), after printing: hog: Cannot allocate memory; it ran out of memory: " +
			"a worker's memory is limited to 512.0 MiB (--worker-memory); give more if the configuration needs it"
		e := evals["1"]
		switch {
		case tc.failed && (e.Status != result.RuntimeError || e.Message != want):
			t.Errorf("--worker-memory %q, $KTUNE_WORKER_MEMORY %q: mode 1: %v %q, want a runtime error %q", tc.flag, tc.env, e.Status, e.Message, want)
		case !tc.failed && e.Status != result.OK:
			t.Errorf("--worker-memory %q: mode 1: %v %q, want ok", tc.flag, e.Status, e.Message)
		}
		for _, mode := range []string{"0", "2"} {
			if e := evals[mode]; e.Status != result.OK {
				t.Errorf("--worker-memory %q: mode %s: %v %q, want ok", tc.flag, mode, e.Status, e.Message)
			}
		}
	}
	t.Setenv("KTUNE_WORKER_MEMORY", "")
	if _, errOut, code := ktune(t, "tune", filepath.Join(dir, "hog.yaml"), "--worker-memory", "0"); code != 2 || !strings.Contains(errOut, "--worker-memory 0: want a size above 0") {
		t.Errorf("--worker-memory 0: exit %d, %s", code, errOut)
	}
}

func evaluationsOf(t *testing.T, db string) map[string]result.Evaluation {
	t.Helper()
	if _, err := os.Stat(db); err != nil {
		return nil
	}
	st, err := store.Open(context.Background(), db)
	if err != nil {
		return nil
	}
	defer st.Close()
	evals, err := st.Evaluations(context.Background(), 1)
	if err != nil {
		return nil
	}
	out := map[string]result.Evaluation{}
	for _, e := range evals {
		out[store.ConfigKey(e.Config)] = e
	}
	return out
}

// Ctrl-C, a kill (SIGTERM) and a closed terminal (SIGHUP) stop a run cleanly: what was
// measured is stored, and the run is marked interrupted, to be resumed. The exit status
// is 128 plus the signal's number, as a shell reports it.
func TestInterruptStopsCleanlyAndKeepsWhatWasMeasured(t *testing.T) {
	needBackend(t, "c")
	for _, tt := range []struct {
		sig  os.Signal
		code int
	}{{os.Interrupt, 130}, {syscall.SIGTERM, 143}, {syscall.SIGHUP, 129}} {
		t.Run(tt.sig.String(), func(t *testing.T) { interruptTune(t, tt.sig, tt.code) })
	}
}

func interruptTune(t *testing.T, sig os.Signal, code int) {
	dir := t.TempDir()
	db := filepath.Join(dir, "ktune.db")
	specPath, _ := filepath.Abs("../../testdata/faulty/slow_c.yaml")
	cmd := exec.Command(os.Args[0], "tune", specPath, "--strategy", "bruteforce", "--db", db, "--json")
	cmd.Env = append(os.Environ(), "KTUNE_TEST_AS_MAIN=1")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// up to 5 minutes for a loaded machine, ending as soon as 2 are stored
	deadline := time.Now().Add(5 * time.Minute)
	for time.Now().Before(deadline) && len(evaluationsOf(t, db)) < 2 {
		time.Sleep(100 * time.Millisecond)
	}
	cmd.Process.Signal(sig)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(60 * time.Second): // a configuration of slow_c takes well under a second
		cmd.Process.Kill()
		t.Fatalf("ktune did not stop within 60 s of %v", sig)
	}
	t.Logf("stderr: %s", stderr.String())
	if cmd.ProcessState.ExitCode() != code || !strings.Contains(stderr.String(), "run the same command again") {
		t.Fatalf("exit %d, stderr %q", cmd.ProcessState.ExitCode(), stderr.String())
	}
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	run, err := st.Run(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != store.StatusInterrupted || run.Evaluations < 2 {
		t.Fatalf("run status %s with %d evaluations", run.Status, run.Evaluations)
	}
	// --json: the summary, saying the interruption as the other commands' documents do
	var doc struct {
		Interrupted string `json:"interrupted"`
		Run         int64  `json:"run"`
		Evaluations int    `json:"evaluations"`
		Stop        string `json:"stop"`
	}
	if err := json.Unmarshal([]byte(stdout.String()), &doc); err != nil {
		t.Fatalf("stdout is no JSON document: %v\n%s", err, stdout.String())
	}
	if !strings.Contains(doc.Interrupted, "resume run 1") || doc.Run != 1 || doc.Evaluations < 2 || doc.Stop != "cancelled" {
		t.Errorf("document %+v, the run has %d evaluations", doc, run.Evaluations)
	}
}

// A benchmark killed outright (no chance to write anything at the end) keeps the cells in
// its --checkpoint file, and the same command with --resume finishes with the tables of a
// whole run. The same holds for hypertune.
func TestKilledBenchmarksResumeFromTheirCheckpoint(t *testing.T) {
	pnpoly, _ := filepath.Abs("../../testdata/benchmark_hub/kerneltuner_pnpoly/RTX_2080_Ti.json.gz")
	conv, _ := filepath.Abs("../../testdata/benchmark_hub/convolution_milo/A100.json.gz")
	for _, args := range [][]string{
		{"bench", pnpoly, conv, "--strategies", "random,firstmls", "--budgets", "25,1600", "--repeats", "100"},
		{"hypertune", pnpoly, conv, "--strategy", "firstmls", "--grid", "restart=true,false", "--budgets", "25,1600", "--repeats", "100"},
	} {
		t.Run(args[0], func(t *testing.T) {
			dir := t.TempDir()
			ckpt := filepath.Join(dir, "checkpoint.json")
			args := append(args, "--out", filepath.Join(dir, "d.json"))
			if args[0] == "bench" {
				args = args[:len(args)-2]
			}
			cmd := exec.Command(os.Args[0], append(args, "--checkpoint", ckpt)...)
			cmd.Env = append(os.Environ(), "KTUNE_TEST_AS_MAIN=1")
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(5 * time.Minute) // ends once the checkpoint is there
			for time.Now().Before(deadline) {
				if _, err := os.Stat(ckpt); err == nil {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			cmd.Process.Kill()
			cmd.Wait()
			data, err := os.ReadFile(ckpt)
			if err != nil {
				t.Fatal(err)
			}
			var saved struct {
				Cells []json.RawMessage `json:"cells"`
			}
			if err := json.Unmarshal(data, &saved); err != nil || len(saved.Cells) == 0 {
				t.Fatalf("the checkpoint holds %d cells: %v", len(saved.Cells), err)
			}
			var out, errOut bytes.Buffer
			if code := run(context.Background(), append(args, "--resume", ckpt, "--checkpoint", ckpt), &out, &errOut); code != 0 {
				t.Fatalf("resumed: exit %d: %s", code, errOut.String())
			}
			if want := fmt.Sprintf("%d cells taken from", len(saved.Cells)); !strings.Contains(errOut.String(), want) {
				t.Errorf("stderr lacks %q: %s", want, errOut.String())
			}
			var whole bytes.Buffer
			run(context.Background(), args, &whole, io.Discard)
			tables := func(s string) string { before, _, _ := strings.Cut(s, "cost:"); return before }
			if tables(out.String()) != tables(whole.String()) {
				t.Errorf("resumed:\n%s\nwhole:\n%s", out.String(), whole.String())
			}
		})
	}
}

// A reference that cannot be computed (it crashes its process, does not compile or hangs)
// stops ktune tune before anything is measured, saying so. Before, every configuration was
// measured and stored under the reference's failure: a crashing reference made every
// correct configuration a runtime_error, a broken one a wrong_answer.
func TestAFailingReferenceStopsTuningBeforeItStarts(t *testing.T) {
	needBackend(t, "c")
	src, err := os.ReadFile("../../testdata/faulty/faulty_c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	kernel, err := os.ReadFile("../../testdata/faulty/faulty.c")
	if err != nil {
		t.Fatal(err)
	}
	for fault, want := range map[string]string{
		"1": "does not compile",
		// The reference is a configuration of the tuned kernel, not a reference kernel.
		"3": "the reference crashed: SIGSEGV (segmentation fault)",
		"4": "ran past the time limit",
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "faulty.c"), kernel, 0o644); err != nil {
			t.Fatal(err)
		}
		spec := strings.Replace(string(src), "config: {fault: 0, copy: 0}", "config: {fault: "+fault+", copy: 0}", 1)
		specPath := filepath.Join(dir, "ref.yaml")
		if err := os.WriteFile(specPath, []byte(spec), 0o644); err != nil {
			t.Fatal(err)
		}
		db := filepath.Join(dir, "ktune.db")
		_, errOut, code := ktune(t, "tune", specPath, "--strategy", "bruteforce", "--db", db)
		if code != 1 || !strings.Contains(errOut, "verification: no reference to verify against") ||
			!strings.Contains(errOut, want) || !strings.Contains(errOut, "nothing was measured") {
			t.Errorf("reference with fault %s: exit %d, %s", fault, code, errOut)
		}
		st, err := store.Open(context.Background(), db)
		if err != nil {
			t.Fatal(err)
		}
		if evals, err := st.Evaluations(context.Background(), 1); err == nil {
			t.Errorf("reference with fault %s: a run was started, with %d evaluations", fault, len(evals))
		}
		st.Close()
	}
}

// A reference that reads past the end of an array names the array, as a configuration's
// crash does: the reference's buffers were not in the guard map the crash is read against,
// and a spec with a short input said only "the reference kernel crashed: SIGSEGV", naming a
// reference kernel the spec does not have.
func TestAReferenceThatOverrunsAnArrayNamesIt(t *testing.T) {
	needBackend(t, "c")
	dir := t.TempDir()
	kernel := `void scale(float *out, const float *in, int n)
{
    for (int i = 0; i < n; i++) out[i] = 3.0f * in[i];
}
`
	spec := `kernel: {name: scale, source: scale.c}
parameters:
  - {name: X, values: [1, 2]}
problem_size: [100000]
arguments:
  - {name: out, type: float32, length: 100000, output: true}
  - {name: in, type: float32, length: 10, fill: random}
  - {name: n, type: int32, value: 100000}
verification:
  reference: {config: {X: 1}}
`
	writeFiles(t, dir, map[string]string{"scale.c": kernel, "scale.yaml": spec})
	_, errOut, code := ktune(t, "tune", filepath.Join(dir, "scale.yaml"), "--db", filepath.Join(dir, "ktune.db"))
	want := "the reference crashed: SIGSEGV (segmentation fault), touching memory past the end of argument in"
	if code != 1 || !strings.Contains(errOut, want) || !strings.Contains(errOut, "nothing was measured") {
		t.Errorf("exit %d, %s\nwant %q", code, errOut, want)
	}
}

// An array larger than the device can hold is a device limit that names the argument,
// found before the configuration is compiled, and a reference that needs one says so.
// Before, the worker generated the array's data in its own memory first and died of Go's
// fatal out-of-memory error, its stack trace as the failure's message (a different one at
// every configuration, so that tuning did not even stop early).
func TestAnArrayLargerThanTheDeviceIsADeviceLimit(t *testing.T) {
	kernels := map[string]string{
		"c": `void scale(float *out, const float *in, int n)
{
    for (int i = 0; i < n; i++) out[i] = 3.0f * in[i];
}
`,
		"opencl": `__kernel void scale(__global float *out, __global const float *in, int n)
{
    int i = get_global_id(0);
    if (i < n) out[i] = 3.0f * in[i];
}
`,
	}
	for backend, kernel := range kernels {
		t.Run(backend, func(t *testing.T) {
			needBackend(t, backend)
			dir := t.TempDir()
			source := map[string]string{"c": "scale.c", "opencl": "scale.cl"}[backend]
			if err := os.WriteFile(filepath.Join(dir, source), []byte(kernel), 0o644); err != nil {
				t.Fatal(err)
			}
			// 64 TiB of input: more than any device (or host) has, less than Go's largest
			// allocation, which it would try and fail fatally.
			spec := `kernel: {name: scale, source: ` + source + `}
parameters:
  - {name: X, values: [1, 2]}
problem_size: [1000]
arguments:
  - {name: out, type: float32, length: 1000, output: true}
  - {name: in, type: float32, length: 2**44, fill: random}
  - {name: n, type: int32, value: 1000}
`
			for _, reference := range []bool{false, true} {
				text := spec
				if reference {
					text += "verification: {reference: {config: {X: 1}}}\n"
				}
				specPath := filepath.Join(dir, fmt.Sprintf("big%v.yaml", reference))
				if err := os.WriteFile(specPath, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
				out, errOut, code := ktune(t, "tune", specPath, "--strategy", "bruteforce", "--db", filepath.Join(dir, "ktune.db"))
				if reference {
					want := "no reference to verify against: argument in: allocating 70368744177664 bytes: device limit exceeded"
					if code != 1 || !strings.Contains(errOut, want) {
						t.Errorf("with a reference: exit %d, %s\nwant %q", code, errOut, want)
					}
					continue
				}
				want := "device_limit: all 2 said (e.g. X=1):\n    argument in: 17592186044416 elements of float32 (70368744177664 bytes) exceed the device's largest buffer of"
				if code != 1 || !strings.Contains(out, want) {
					t.Errorf("exit %d, %s%s\nwant %q", code, out, errOut, want)
				}
			}
		})
	}
}

// A kernel whose runs together would outlast the spec's timeout, though each ends, is
// timed over the runs that fit and says so; one that slows down in its timed runs past
// what was left is killed there, and its message says so and what to change; a kernel
// that hangs in its first run does not get that message. Before, all three said only "the
// kernel ran past the time limit", and a slow kernel looked hung.
func TestATimeoutInTheTimedRunsSaysTheLimitCountsEveryRun(t *testing.T) {
	needBackend(t, "c")
	dir := t.TempDir()
	kernel := `#include <unistd.h>
static int calls;
void k(float *out, int n)
{
#if mode == 1
    for (volatile int spin = 1; spin; ) {
    }
#elif mode == 2
    usleep(calls++ < 2 ? 1000 : 2000000); /* its first two runs, then slow */
#else
    usleep(150000);
#endif
    for (int i = 0; i < n; i++) out[i] = i;
}
`
	spec := `kernel: {name: k, source: k.c}
parameters:
  - {name: mode, values: [0, 1, 2]}
problem_size: [100]
arguments:
  - {name: out, type: float32, length: 100, output: true}
  - {name: n, type: int32, value: 100}
iterations: 20
timeout: 1s
`
	writeFiles(t, dir, map[string]string{"k.c": kernel, "k.yaml": spec})
	db := filepath.Join(dir, "ktune.db")
	out, errOut, code := ktune(t, "tune", filepath.Join(dir, "k.yaml"), "--strategy", "bruteforce", "--db", db, "--precompilers", "0")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if want := "1 successful configuration was timed over fewer runs than the spec's 20 iterations: more would have passed its timeout of 1s"; !strings.Contains(out, want) {
		t.Errorf("the summary does not say %q:\n%s", want, out)
	}
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	evals, err := st.Evaluations(context.Background(), 1)
	if err != nil || len(evals) != 3 {
		t.Fatalf("%d evaluations, %v", len(evals), err)
	}
	const timed = "during its timed runs, after its first run had finished: the limit counts every run of a configuration, and a kernel is timed over the runs that fit in it but at least once, so one this slow needs a longer timeout"
	for _, e := range evals {
		switch mode := e.Config[0].Int(); mode {
		case 0:
			// 150 ms a run: 20 runs, and the first, do not fit in 1 s
			if e.Status != result.OK || len(e.Samples) < 1 || len(e.Samples) >= 6 ||
				!strings.Contains(e.Message, fmt.Sprintf("timed over %d of the spec's 20 iterations", len(e.Samples))) {
				t.Errorf("mode %d: %v over %d runs, %q", mode, e.Status, len(e.Samples), e.Message)
			}
		default:
			if e.Status != result.Timeout || !strings.HasPrefix(e.Message, "the kernel ran past the time limit of 1s (timeout)") ||
				strings.Contains(e.Message, timed) != (mode == 2) {
				t.Errorf("mode %d: %v %q", mode, e.Status, e.Message)
			}
		}
	}
}

// A run in which nothing succeeds says why: each failing status with the message most
// configurations gave, named by the kernel's own file and line; it stops once the first
// configurations all failed the same way, and exits with status 1.
func TestTuneSaysWhyConfigurationsFailed(t *testing.T) {
	needBackend(t, "c")
	dir := t.TempDir()
	// fault 1 does not compile, whatever the other parameter
	specPath := faultySpec(t, dir, "broken.yaml", "[1]", "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]", "")
	out, errOut, code := ktune(t, "tune", specPath, "--strategy", "bruteforce", "--db", filepath.Join(dir, "ktune.db"), "--precompilers", "0")
	if code != 1 || !strings.Contains(errOut, "no configuration ran successfully in run 1") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"15 of the space's 16 configurations evaluated", "stopped: the first configurations all failed the same way",
		"compile_error: all 15 said (e.g. fault=1, copy=0):", filepath.Join(dir, "faulty.c") + ":8:",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the summary lacks %q:\n%s", want, out)
		}
	}
}

// Configurations failing the same way because of one parameter's value are no fault of the
// spec: a brute-force search whose first twelve configurations share a value that does not
// compile goes on to the rest (a QA saw it stop after ten, the good half never tried).
func TestTuneGoesOnWhereOneParameterValueFails(t *testing.T) {
	needBackend(t, "c")
	dir := t.TempDir()
	specPath := faultySpec(t, dir, "half.yaml", "[1, 0]", "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]", "")
	out, errOut, code := ktune(t, "tune", specPath, "--strategy", "bruteforce", "--db", filepath.Join(dir, "ktune.db"), "--precompilers", "0")
	if code != 0 || !strings.Contains(out, "24 of the space's 24 configurations evaluated") || !strings.Contains(out, "fault=0") {
		t.Fatalf("exit %d:\n%s%s", code, out, errOut)
	}
}

// A run stops on one failure only once configurations drawn from the whole space fail
// that way too: not when the first picks of a brute-force search share two failing
// parameter values (a QA saw it stop with 77% of the space working), and surely when the
// kernel never compiles, even where a restriction leaves a parameter one value (a QA saw
// such a run measure the whole space).
func TestTuneStopsOnOneFailureOnlyWhereTheWholeSpaceHasIt(t *testing.T) {
	needBackend(t, "c")
	dir := t.TempDir()
	src := `void k(float *out, int n) {
#if P1 == 1 || P2 == 1 || BROKEN
#error this combination is not supported
#endif
    for (int i = 0; i < n; i++) out[i] = i;
}
`
	spec := `kernel: {name: k, source: k.c}
parameters:
  - {name: P1, values: [1, 2, 3, 4]}
  - {name: P2, values: [1, 2, 3, 4]}
  - {name: P3, values: [1, 2, 3, 4]}
  - {name: BROKEN, values: [0, 1]}
  - {name: pinned, values: [1, 2, 4, 8]}
restrictions: ["pinned == 2", "BROKEN == %d"]
problem_size: [64]
arguments:
  - {name: out, type: float32, length: 64, output: true}
  - {name: n, type: int32, value: 64}
iterations: 1
`
	if err := os.WriteFile(filepath.Join(dir, "k.c"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		broken   int
		strategy string
		want     string
		code     int
	}{
		{0, "bruteforce", "64 of the space's 64 configurations evaluated", 0},
		{1, "bruteforce", "15 of the space's 64 configurations evaluated", 1},
		{1, "random", "15 of the space's 64 configurations evaluated", 1},
	} {
		path := filepath.Join(dir, fmt.Sprintf("k%d.yaml", tt.broken))
		if err := os.WriteFile(path, []byte(fmt.Sprintf(spec, tt.broken)), 0o644); err != nil {
			t.Fatal(err)
		}
		out, errOut, code := ktune(t, "tune", path, "--strategy", tt.strategy, "--db", filepath.Join(dir, "ktune.db"), "--new", "--precompilers", "0")
		if code != tt.code || !strings.Contains(out, tt.want) {
			t.Errorf("BROKEN=%d, %s: exit %d, want %d and %q:\n%s%s", tt.broken, tt.strategy, code, tt.code, tt.want, out, errOut)
		}
	}
}

// A host-C kernel that writes far past an array's end, or before its start, crashes on a
// guard page, and the crash names the array and what to fix; one that writes into the
// slack before the data fails its launch naming the array.
func TestTuneNamesTheArrayAKernelOverran(t *testing.T) {
	needBackend(t, "c")
	dir := t.TempDir()
	src := `void oob(int *out, const int *in, int n) {
    for (int i = 0; i < n; i++) out[i] = 2 * in[i];
#if mode == 1
    out[n + 100] = 1;
#elif mode == 2
    ((volatile int *)in)[-1500] = 1;
#elif mode == 3
    ((volatile int *)in)[-200] = 1;
#endif
}
`
	spec := `kernel: {name: oob, source: oob.c}
constants: {N: 1000}
parameters:
  - {name: mode, values: [0, 1, 2, 3]}
problem_size: [N]
arguments:
  - {name: out, type: int32, length: N, output: true}
  - {name: in, type: int32, length: N, fill: {random: {low: -100, high: 100}}}
  - {name: n, type: int32, value: N}
iterations: 2
`
	writeFiles(t, dir, map[string]string{"oob.c": src, "oob.yaml": spec})
	db := tuneBruteForce(t, dir, "oob.yaml", "--precompilers", "0")
	out, errOut, code := ktune(t, "export", "--run", "1", "--db", db, "--format", "kerneltuner")
	if code != 0 {
		t.Fatalf("export: exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"the kernel crashed: SIGSEGV (segmentation fault), touching memory past the end of argument out (the spec's length for it is too small, or the kernel overruns it)",
		"the kernel crashed: SIGSEGV (segmentation fault), touching memory before the start of argument in (the kernel indexes it below 0)",
		"the kernel wrote before the start of argument in (1000 elements of int32): the kernel indexes it below 0",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the export lacks %q:\n%s", want, out)
		}
	}
}

// The JSON summary names the best configuration's parameters in the spec's order, says
// when the default configuration failed, and the run stores the problem size with the
// constants' values.
func TestTuneSummaryKeepsParameterOrderAndTheDefaultsFate(t *testing.T) {
	needBackend(t, "c")
	dir := t.TempDir()
	for _, name := range []string{"faulty.c", "faulty_c.yaml"} {
		b, err := os.ReadFile("../../testdata/faulty/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if name == "faulty_c.yaml" {
			b = append(b, "default_config: {fault: 1, copy: 0}\n"...)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	db := filepath.Join(dir, "k.db")
	out, errOut, code := ktune(t, "tune", filepath.Join(dir, "faulty_c.yaml"), "--strategy", "bruteforce", "--budget", "3", "--db", db, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep struct {
		Best          json.RawMessage `json:"best_configuration"`
		DefaultStatus string          `json:"default_status"`
		Evaluations   int             `json:"evaluations"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	// the default (fault 1) fails; of the correct configurations measured, either may time
	// best, its parameters named in the spec's order, not sorted by name
	compact := strings.Join(strings.Fields(string(rep.Best)), "")
	if (compact != `{"fault":0,"copy":0}` && compact != `{"fault":0,"copy":1}`) || rep.DefaultStatus != "compile_error" || rep.Evaluations != 3 {
		t.Errorf("best %s, default status %q, %d evaluations", compact, rep.DefaultStatus, rep.Evaluations)
	}
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	info, err := st.Run(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if info.ProblemSize != "[4096]" {
		t.Errorf("stored problem size %q, want N's value as an array, [4096]", info.ProblemSize)
	}
}

// A run left "running" by a process that died is marked interrupted by the next tune of
// that kernel and device that does not resume it (here one with --new).
func TestARunLeftRunningByADeadProcessIsMarkedInterrupted(t *testing.T) {
	needBackend(t, "c")
	db := filepath.Join(t.TempDir(), "k.db")
	args := []string{"tune", "../../examples/vector_add/vector_add_c.yaml", "--budget", "1", "--db", db}
	if _, errOut, code := ktune(t, args...); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// as a process killed while tuning leaves it
	if err := st.FinishRun(context.Background(), 1, store.StatusRunning); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := ktune(t, append(args, "--new")...); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	info, err := st.Run(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if info.Status != store.StatusInterrupted {
		t.Errorf("run 1 is %s, want interrupted", info.Status)
	}
}

// An interruption before the search (here: before anything starts) is said, as one during
// the search is, not left to the exit status alone.
func TestTuneInterruptedBeforeTheSearchSaysSo(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"tune", "../../examples/vector_add/vector_add_c.yaml", "--db", filepath.Join(t.TempDir(), "k.db")}, &stdout, &stderr)
	if code != 130 || !strings.Contains(stderr.String(), "interrupted before the search began") {
		t.Fatalf("exit %d: %s%s", code, stdout.String(), stderr.String())
	}
}

// 'ktune tune --json' interrupted before the search printed no JSON, only the message on
// standard error: it prints one document, the summary's fields it knew, saying the
// interruption, with the run once one is created. Interrupted here while the space is
// built (its progress line says so) and while the default configuration, created to
// sleep, is measured (the run is in the database).
func TestTuneJSONInterruptedBeforeTheSearchIsOneDocument(t *testing.T) {
	t.Run("building the space", func(t *testing.T) {
		dir := t.TempDir()
		spec := twelveTied(t, dir, 0, "SUM == 3", func(i int) int { return min(max(3-i, 0), 1) }) // hours to enumerate
		p := interruptWhen(t, syscall.SIGTERM, func(line string) bool { return strings.Contains(line, "building the space of tied.yaml") },
			"tune", spec, "--budget", "5", "--db", filepath.Join(dir, "k.db"), "--progress", "--json")
		checkBeforeSearchJSON(t, p, 143, 0)
	})
	t.Run("measuring the default configuration", func(t *testing.T) {
		needBackend(t, "c")
		dir := t.TempDir()
		kernel := "#include <unistd.h>\nvoid sleepy(float *out, int n) {\n    if (hold) sleep(600);\n    for (int i = 0; i < n; i++) out[i] = 1.0f;\n}\n"
		spec := `kernel: {name: sleepy, source: sleepy.c}
parameters:
  - {name: hold, values: [0, 1]}
problem_size: [16]
arguments:
  - {name: out, type: float32, length: 16, output: true}
  - {name: n, type: int32, value: 16}
default_config: {hold: 1}
timeout: 15m
`
		writeFiles(t, dir, map[string]string{"sleepy.c": kernel, "sleepy.yaml": spec})
		db := filepath.Join(dir, "k.db")
		p := interruptWhen(t, os.Interrupt, func(string) bool { return storedRuns(t, db) > 0 },
			"tune", filepath.Join(dir, "sleepy.yaml"), "--db", db, "--json")
		checkBeforeSearchJSON(t, p, 130, 1)
	})
}

// checkBeforeSearchJSON checks the exit status and the one JSON document of a tune
// interrupted before the search, with run (0: none created).
func checkBeforeSearchJSON(t *testing.T, p interrupted, code int, run int64) {
	t.Helper()
	if p.code != code || !strings.Contains(p.stderr, "interrupted before the search began") {
		t.Fatalf("exit %d, want %d; stderr: %s", p.code, code, p.stderr)
	}
	var doc map[string]any
	dec := json.NewDecoder(strings.NewReader(p.stdout))
	if err := dec.Decode(&doc); err != nil || dec.More() {
		t.Fatalf("stdout is not one JSON document (%v):\n%s", err, p.stdout)
	}
	wantRun := any(nil)
	if run != 0 {
		wantRun = float64(run)
	}
	if !strings.Contains(fmt.Sprint(doc["interrupted"]), "interrupted before the search began") || doc["run"] != wantRun ||
		doc["evaluations"] != 0.0 || doc["measured"] != 0.0 || doc["stop"] != "cancelled" || doc["strategy"] != "auto" {
		t.Errorf("document:\n%s", p.stdout)
	}
	if _, ok := doc["best_objective"]; ok {
		t.Errorf("a best without a search:\n%s", p.stdout)
	}
	// the summary's shape: every field it always has, and no other but "interrupted"
	always := map[string]bool{"interrupted": true, "strategy_options": true}
	rt := reflect.TypeFor[tuner.Report]()
	for i := range rt.NumField() {
		name, opts, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" && !strings.Contains(opts, "omit") {
			always[name] = true
			if _, ok := doc[name]; !ok {
				t.Errorf("the document lacks the summary's %s", name)
			}
		}
	}
	for name := range doc {
		if !always[name] {
			t.Errorf("the document has %s, which the summary does not always have", name)
		}
	}
	for _, name := range []string{"kernel", "device", "space_size", "objective"} {
		if doc[name] != nil {
			t.Errorf("%s is %v before the search, want null", name, doc[name])
		}
	}
}

// An objective or metric that reads what only CUDA devices measure (power, energy, clocks)
// is refused before anything is compiled on another backend: every configuration would
// fail on it.
func TestTuneRefusesAnObservableTheDeviceDoesNotMeasure(t *testing.T) {
	needBackend(t, "c")
	dir := t.TempDir()
	specPath := vectorAddVariant(t, dir, "power.yaml", func(spec string) string {
		return strings.Replace(spec, "objective: GB/s", "objective: power", 1)
	})
	db := filepath.Join(dir, "ktune.db")
	_, errOut, code := ktune(t, "tune", specPath, "--budget", "3", "--db", db)
	if code != 1 || !strings.Contains(errOut, `objective: the objective reads "power", which only cuda devices measure`) {
		t.Errorf("exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Errorf("a database was created: %v", err)
	}
}

// vectorAddVariant writes the host C vector_add example's spec, changed by edit, as name
// in dir beside a copy of its kernel, and returns the spec's path.
func vectorAddVariant(t *testing.T, dir, name string, edit func(spec string) string) string {
	t.Helper()
	copyInto(t, dir, "../../examples/vector_add/vector_add.c")
	src, err := os.ReadFile("../../examples/vector_add/vector_add_c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(edit(string(src))), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Options that only the space can refuse (a parameter it lacks, a design too large for the
// budget) are option errors like an unknown option: exit 2 before a run is stored or
// anything compiled, and in simulate, bench and hypertune once, up front, not as a run's
// failure.
func TestOptionsThatDoNotFitTheSpaceAreRefusedBeforeAnyRun(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "k.db")
	spec := "../../examples/vector_add/vector_add_c.yaml" // parameters unroll_factor, threads
	if _, errOut, code := ktune(t, "tune", spec, "--db", db, "--strategy", "greedymls", "--option", "foo=1", "--budget", "3"); code != 2 {
		t.Fatalf("an unknown option: exit %d, %s", code, errOut)
	}
	for _, tc := range []struct {
		opts []string
		want string
	}{
		{[]string{"--strategy", "greedymls", "--option", "order=zzz"}, `strategy greedymls: option order: "zzz" is neither a parameter of the space nor an index below 2`},
		{[]string{"--strategy", "greedymls:order=[threads, 2]"}, `option order: "2" is neither a parameter of the space nor an index below 2`},
		{[]string{"--strategy", "saltelli", "--option", "params=foo"}, `strategy saltelli: option params: no parameter "foo" (the space has unroll_factor, threads)`},
		{[]string{"--strategy", "saltelli", "--option", "n=200000"}, "strategy saltelli: option n: 200000 base rows of 6 points"},
		{[]string{"--strategy", "saltelli"}, "strategy saltelli: a budget of 3 evaluations is below one design row of 6 points"},
	} {
		out, errOut, code := ktune(t, append([]string{"tune", spec, "--db", db, "--budget", "3"}, tc.opts...)...)
		if code != 2 || !strings.Contains(errOut, tc.want) || !strings.Contains(errOut, "Usage: ktune tune") || out != "" {
			t.Errorf("tune %v: exit %d, %q%q; want exit 2 with %q", tc.opts, code, out, errOut, tc.want)
		}
	}
	if fileExists(db) {
		t.Error("the refused runs created the results database")
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"simulate", pnpoly, "--strategy", "greedymls", "--option", "order=zzz", "--repeats", "5"},
			`strategy greedymls: option order: "zzz" is neither a parameter of the space nor an index below 4`},
		{[]string{"simulate", pnpoly, "--strategy", "saltelli:params=[tile_size,foo]", "--budget", "100"},
			`strategy saltelli: option params: no parameter "foo"`},
		{[]string{"bench", pnpoly, "--strategies", "random,greedymls:order=zzz", "--budgets", "25,50", "--repeats", "2", "--checkpoint", filepath.Join(dir, "ck.json")},
			`greedymls:order=zzz on kerneltuner_pnpoly/RTX_2080_Ti at budget 25: strategy greedymls: option order: "zzz"`},
		{[]string{"bench", pnpoly, "--strategies", "random,saltelli", "--budgets", "5,50", "--repeats", "2"},
			"saltelli on kerneltuner_pnpoly/RTX_2080_Ti at budget 5: strategy saltelli: a budget of 5 evaluations is below one design row of 10 points"},
		{[]string{"hypertune", pnpoly, "--strategy", "saltelli", "--grid", "params=tile_size,foo", "--budgets", "100", "--repeats", "2", "--out", filepath.Join(dir, "d.json")},
			`setting params=foo on kerneltuner_pnpoly/RTX_2080_Ti at budget 100: strategy saltelli: option params: no parameter "foo"`},
	} {
		out, errOut, code := ktune(t, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) || strings.Contains(errOut, "run 0") || out != "" {
			t.Errorf("%v: exit %d, %q%q; want exit 2 with %q", tc.args, code, out, errOut, tc.want)
		}
	}
	for _, f := range []string{"ck.json", "d.json"} {
		if fileExists(filepath.Join(dir, f)) {
			t.Errorf("a refused command wrote %s", f)
		}
	}
}

// A space of more than tuner.MaxUnlimited configurations is refused without --budget or
// --time, before a run is stored, as --budget's help says (QA: it said only "0: no limit
// unless --time").
func TestTuneWithoutABudgetRefusesALargeSpaceAsItsHelpSays(t *testing.T) {
	needBackend(t, "c")
	dir := t.TempDir()
	spec := vectorAddVariant(t, dir, "large.yaml", func(s string) string {
		return strings.Replace(s, "values: [1, 2, 4, 8, 16]}", `values: "list(range(1, 5001))"}`, 1) // 15,000 configurations
	})
	db := filepath.Join(dir, "k.db")
	_, errOut, code := ktune(t, "tune", spec, "--db", db)
	if want := "the space has 15000 configurations: give --budget or --time"; code != 2 || !strings.Contains(errOut, want) {
		t.Fatalf("exit %d: %s; want exit 2 with %q", code, errOut, want)
	}
	if fileExists(db) {
		t.Error("the refused run created the results database")
	}
	help, _, _ := ktune(t, "tune", "--help")
	if want := fmt.Sprintf("a space of more than %d configurations needs --budget or --time", tuner.MaxUnlimited); !strings.Contains(flagsOf(help)["budget"], want) {
		t.Errorf("--budget's help %q does not say %q", flagsOf(help)["budget"], want)
	}
}

// A device index that is not a whole number of 0 or more is refused with the flag named;
// a negative one used to index the device list and panic. A --device no device answers to
// is a bad flag value (exit 2); a backend that cannot run here is the machine's failure
// (exit 1).
func TestTuneRefusesABadDeviceIndex(t *testing.T) {
	for _, dev := range []string{"c:-1", "c:-2", "c:x", "opencl:-1"} {
		_, errOut, code := ktune(t, "tune", "../../examples/vector_add/vector_add_c.yaml", "--device", dev, "--db", filepath.Join(t.TempDir(), "k.db"))
		if code != 2 || !strings.Contains(errOut, fmt.Sprintf("--device %q: the index must be a whole number, 0 or more", dev)) {
			t.Errorf("--device %s: exit %d: %s", dev, code, errOut)
		}
	}
	for dev, want := range map[string]string{"ocl": `--device "ocl": unknown backend (have c, cuda, opencl)`,
		"cuda": `--device "cuda" does not compile c kernels`, "c:7": `--device "c:7": c has 1 device, no index 7`} {
		_, errOut, code := ktune(t, "tune", "../../examples/vector_add/vector_add_c.yaml", "--device", dev, "--db", filepath.Join(t.TempDir(), "k.db"))
		if code != 2 || !strings.Contains(errOut, want) {
			t.Errorf("--device %s: exit %d: %s", dev, code, errOut)
		}
	}
	if cuda, ok := device.Lookup("cuda"); ok {
		if _, err := cuda.Devices(); err != nil {
			_, errOut, code := ktune(t, "tune", "../../examples/vector_add/vector_add_cuda.yaml", "--device", "cuda", "--db", filepath.Join(t.TempDir(), "k.db"))
			if code != 1 || !strings.Contains(errOut, `--device "cuda": cuda: cuda backend unavailable`) {
				t.Errorf("--device cuda without CUDA: exit %d: %s", code, errOut)
			}
		}
	}
}

// A run that --time ends before any configuration succeeded exits with status 1, as one
// that the budget or failures end does: here the only kernel hangs past the time limit.
// The limit, 15 s, leaves the worker time to start under load (at 1 s a CI run under a
// load of 15 on 2 cores used it all up before the search began, and 5 s gave a slowdown
// of the worker's start of twenty times little room); the kernel's own timeout, 10
// minutes, is far beyond it, and the run must end within 90 s.
func TestTuneExitsOneWhenTheTimeLimitEndsItWithoutASuccess(t *testing.T) {
	needBackend(t, "c")
	dir := t.TempDir()
	// fault 4 spins until the per-configuration timeout, longer than --time
	specPath := faultySpec(t, dir, "hang.yaml", "[4]", "[0, 1]", "timeout: 10m\n")
	start := time.Now()
	out, errOut, code := ktune(t, "tune", specPath, "--time", "15s", "--db", filepath.Join(dir, "k.db"), "--precompilers", "0")
	if time.Since(start) > 90*time.Second {
		t.Errorf("took %v with --time 15s", time.Since(start))
	}
	if code != 1 || !strings.Contains(out, "no configuration ran successfully") ||
		!strings.Contains(errOut, "no configuration ran successfully in run 1: none was evaluated before it stopped (time limit; --time counts from the command's start") {
		t.Fatalf("exit %d:\n%s%s", code, out, errOut)
	}
}

// The summary says "(verified)" only where the spec verifies the outputs, and the JSON
// carries it; with a metric as the objective (vector_add's GB/s) the best configuration's
// time is given too, the time the metric was computed from.
func TestTuneSummarySaysWhetherVerifiedAndTheBestTime(t *testing.T) {
	needBackend(t, "c")
	dir := t.TempDir()
	copyInto(t, dir, "../../examples/vector_add/vector_add.c")
	src, err := os.ReadFile("../../examples/vector_add/vector_add_c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	verification := "verification:\n  reference:\n    config: {unroll_factor: 1, threads: 1}   # the plain loop on one thread\n  atol: 0\n  rtol: 0                  # one addition per element: every configuration is exact\n"
	if !strings.Contains(string(src), verification) {
		t.Fatalf("vector_add_c.yaml has changed: %s", src)
	}
	for _, verified := range []bool{true, false} {
		spec := string(src)
		if !verified {
			spec = strings.Replace(spec, verification, "", 1)
		}
		specPath := filepath.Join(dir, fmt.Sprintf("v%v.yaml", verified))
		if err := os.WriteFile(specPath, []byte(spec), 0o644); err != nil {
			t.Fatal(err)
		}
		args := []string{"tune", specPath, "--budget", "2", "--db", filepath.Join(dir, "k.db"), "--new"}
		out, errOut, code := ktune(t, args...)
		wantText := map[bool]string{true: "GB/s (verified)\n", false: "GB/s (not verified: the spec has no verification)\n"}[verified]
		if code != 0 || !strings.Contains(out, wantText) || !strings.Contains(out, "  time: ") || !strings.Contains(out, "  spread of its 20 timed runs: ") {
			t.Errorf("verification %v: exit %d, want %q, the time and its spread:\n%s%s", verified, code, wantText, out, errOut)
		}
		out, errOut, code = ktune(t, append(args, "--json")...)
		var rep tuneReport
		if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil {
			t.Fatalf("exit %d, %v: %s%s", code, err, out, errOut)
		}
		if rep.Verified != verified || rep.BestTimeMS == nil || rep.BestObjective == nil {
			t.Fatalf("verification %v: verified %v, best time %v, best objective %v", verified, rep.Verified, rep.BestTimeMS, rep.BestObjective)
		}
		// GB/s = 3 * 4 * N / (time / 1e3) / 1e9 with N = 4000000: time = 48 / GB/s
		if want := 48 / *rep.BestObjective; math.Abs(*rep.BestTimeMS-want) > 1e-9*want {
			t.Errorf("best time %v ms, want %v ms for %v GB/s", *rep.BestTimeMS, want, *rep.BestObjective)
		}
		// and how much its 20 timed runs (the spec's iterations) varied
		if rep.BestRuns != 20 || rep.BestTimeCV == nil || rep.MedianTimeCV == nil || !(*rep.BestTimeCV > 0) {
			t.Errorf("best runs %d, spread %v, median spread %v; want 20 runs and both spreads", rep.BestRuns, rep.BestTimeCV, rep.MedianTimeCV)
		}
	}
}

// storedBest is the best successful objective among a run's stored evaluations (GB/s:
// the highest), and how many evaluations the run has.
func storedBest(t *testing.T, db string, run int64) (float64, int) {
	t.Helper()
	evals := runEvaluations(t, db, run)
	best := math.Inf(-1)
	for _, e := range evals {
		if !e.Failed() {
			best = max(best, e.Objective)
		}
	}
	return best, len(evals)
}

// The budget is the run's. A resumed run that already has its budget's evaluations
// measures nothing, says so and stays resumable; one with budget left measures up to it;
// both summaries are of all the run's evaluations. Before, a smaller budget replayed that
// many of the stored configurations and reported their best and count, and finished the
// run so that a larger budget could not continue it.
func TestResumedTuneReportsTheWholeRunAndKeepsItsBudget(t *testing.T) {
	needBackend(t, "c")
	db := filepath.Join(t.TempDir(), "k.db")
	args := []string{"tune", "../../examples/vector_add/vector_add_c.yaml", "--strategy", "random", "--db", db, "--json"}
	if _, errOut, code := ktune(t, append(args, "--budget", "6")...); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// as a process killed while tuning leaves it
	if err := st.FinishRun(context.Background(), 1, store.StatusInterrupted); err != nil {
		t.Fatal(err)
	}
	best6, n := storedBest(t, db, 1)
	if n != 6 {
		t.Fatalf("%d evaluations stored, want 6", n)
	}

	out, errOut, code := ktune(t, append(args, "--budget", "3")...)
	var rep tuneReport
	if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil {
		t.Fatalf("exit %d, %v: %s%s", code, err, out, errOut)
	}
	if !strings.Contains(errOut, "run 1 already has 6 evaluations, the budget is 3: nothing to do; raise --budget to continue it") {
		t.Errorf("stderr: %s", errOut)
	}
	if rep.Run != 1 || rep.Evaluations != 6 || rep.Resumed != 6 || rep.Measured != 0 || rep.BestObjective == nil || *rep.BestObjective != best6 ||
		rep.Stop != string(stopBudgetSpent) {
		t.Errorf("run %d: %d evaluations, %d resumed, %d measured, best %v (stored best %v), stopped %q",
			rep.Run, rep.Evaluations, rep.Resumed, rep.Measured, rep.BestObjective, best6, rep.Stop)
	}
	if _, n := storedBest(t, db, 1); n != 6 {
		t.Errorf("%d evaluations stored after a spent budget, want 6", n)
	}
	if info, err := st.Run(context.Background(), 1); err != nil || info.Status != store.StatusInterrupted {
		t.Errorf("run 1 is %s (%v), want it left interrupted", info.Status, err)
	}

	// a larger budget continues it, to that many evaluations in all; the progress shows
	// the run's count and best from its first line
	out, errOut, code = ktune(t, append(args, "--budget", "8", "--progress")...)
	rep = tuneReport{}
	if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil {
		t.Fatalf("exit %d, %v: %s%s", code, err, out, errOut)
	}
	best8, n := storedBest(t, db, 1)
	if rep.Run != 1 || n != 8 || rep.Evaluations != 8 || rep.Resumed != 6 || rep.Measured != 2 || rep.BestObjective == nil || *rep.BestObjective != best8 {
		t.Errorf("run %d: %d evaluations (%d stored), %d resumed, %d measured, best %v (stored best %v)",
			rep.Run, rep.Evaluations, n, rep.Resumed, rep.Measured, rep.BestObjective, best8)
	}
	var first string
	for _, line := range strings.FieldsFunc(errOut, func(r rune) bool { return r == '\r' || r == '\n' }) {
		if strings.Contains(line, " evaluated, ETA ") {
			first = line
			break
		}
	}
	var done, total int
	var shown float64
	if _, err := fmt.Sscanf(first, "%d/%d evaluated, ETA ", &done, &total); err != nil || done < 6 || total != 8 {
		t.Errorf("first progress line %q: want 6 or 7 of 8 evaluated (%v)", first, err)
	}
	_, after, _ := strings.Cut(first, ", best ")
	if _, err := fmt.Sscanf(after, "%g GB/s", &shown); err != nil || shown < best6*(1-1e-4) {
		t.Errorf("first progress line %q: want the run's best so far, %v GB/s at least (%v)", first, best6, err)
	}
	// the report states the budget the run finished under
	page := filepath.Join(t.TempDir(), "r.html")
	if _, errOut, code := ktune(t, "report", "1", "--db", db, "-o", page, "--bootstrap", "0", "--graph-nodes", "0"); code != 0 {
		t.Fatalf("report: exit %d: %s", code, errOut)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(html), "8 of a budget of 8 evaluations") {
		t.Errorf("the report of the run resumed to a budget of 8 does not say %q", "8 of a budget of 8 evaluations")
	}
}

// A run is known by what its strategy options mean, not by how they were spelled: a run
// tuned on PoCL with neighbourhood=hamming, restart=1, perturbation_size=0.50 and
// exit_after_no_improve=1e3 and interrupted is resumed by the same command spelled
// Hamming, true, 0.5 and 1000, without measuring anything again; it is stored and
// printed in that one spelling. A run stored by an earlier ktune under the user's own
// spelling is resumed too, and its stored options are left as they were. Before, each
// spelling started a new run, which measured everything again.
func TestTuneResumesARunWhoseOptionsAreSpelledOtherwise(t *testing.T) {
	needBackend(t, "opencl")
	db := filepath.Join(t.TempDir(), "k.db")
	base := []string{"tune", "../../examples/vector_add/vector_add_opencl.yaml", "--device", "opencl", "--strategy", "firstils", "--db", db}
	spelled := func(neighbourhood, restart, perturbation, exit string) []string {
		return append(slices.Clone(base), "--option", "neighbourhood="+neighbourhood, "--option", "restart="+restart,
			"--option", "perturbation_size="+perturbation, "--option", "exit_after_no_improve="+exit)
	}
	const canonical = "(exit_after_no_improve=1000, neighbourhood=Hamming, perturbation_size=0.5, restart=true)"
	out, errOut, code := ktune(t, append(spelled("hamming", "1", "0.50", "1e3"), "--budget", "3")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "with firstils "+canonical) {
		t.Errorf("the summary does not give the options canonically, %s:\n%s", canonical, out)
	}
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	interrupt := func() { // as a process killed while tuning leaves the run
		t.Helper()
		if err := st.FinishRun(context.Background(), 1, store.StatusInterrupted); err != nil {
			t.Fatal(err)
		}
	}
	interrupt()
	stored := evaluationsOf(t, db)
	if len(stored) != 3 {
		t.Fatalf("%d evaluations stored, want 3", len(stored))
	}
	info, err := st.Run(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"exit_after_no_improve":1000,"neighbourhood":"Hamming","perturbation_size":0.5,"restart":true}`
	if string(info.StrategyOptions) != want {
		t.Errorf("run 1 stores options %s, want %s", info.StrategyOptions, want)
	}

	// resume spelled otherwise: the run goes on to 5 evaluations, measuring 2
	resume := func(args []string, budget, resumed int) {
		t.Helper()
		out, errOut, code := ktune(t, append(args, "--budget", strconv.Itoa(budget), "--json")...)
		var rep tuneReport
		if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil {
			t.Fatalf("exit %d, %v: %s%s", code, err, out, errOut)
		}
		if !strings.Contains(errOut, fmt.Sprintf("resuming run 1: %d configurations already measured", resumed)) ||
			rep.Run != 1 || rep.Resumed != resumed || rep.Measured != budget-resumed || rep.Evaluations != budget {
			t.Fatalf("run %d: %d evaluations, %d resumed, %d measured; want run 1 resumed from %d to %d: %s",
				rep.Run, rep.Evaluations, rep.Resumed, rep.Measured, resumed, budget, errOut)
		}
		if got, _ := json.Marshal(rep.StrategyOptions); string(got) != want {
			t.Errorf("the report gives the options %s, want %s", got, want)
		}
		now := evaluationsOf(t, db)
		if len(now) != budget {
			t.Errorf("%d configurations stored, want %d, each once", len(now), budget)
		}
		for k, e := range stored {
			if !slices.Equal(now[k].Samples, e.Samples) {
				t.Errorf("configuration %s was measured again", k)
			}
		}
		stored = now
		interrupt()
	}
	resume(spelled("Hamming", "true", "0.5", "1000"), 5, 3)
	// and back in the first spelling
	resume(spelled("HAMMING", "t", ".5", "1000.0"), 6, 5)

	// a run stored by a ktune that kept the options as the user spelled them
	raw, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	const old = `{"exit_after_no_improve":"1e3","neighbourhood":"hamming","perturbation_size":0.50,"restart":1}`
	_, err = raw.Exec(`UPDATE runs SET strategy_options = ? WHERE id = 1`, old)
	raw.Close()
	if err != nil {
		t.Fatal(err)
	}
	resume(spelled("Hamming", "true", "0.5", "1000"), 7, 6)
	if info, err := st.Run(context.Background(), 1); err != nil || string(info.StrategyOptions) != old {
		t.Errorf("run 1's stored options are %s (%v), want them left as stored, %s", info.StrategyOptions, err, old)
	}
	runs, err := st.Runs(context.Background(), store.RunFilter{})
	if err != nil || len(runs) != 1 {
		t.Errorf("%d runs (%v), want the one run resumed each time", len(runs), err)
	}

	// other values are another run
	out, errOut, code = ktune(t, append(spelled("adjacent", "true", "0.5", "1000"), "--budget", "2", "--json")...)
	var rep tuneReport
	if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil || rep.Run != 2 || rep.Resumed != 0 {
		t.Errorf("another neighbourhood: exit %d, %v, run %d resumed %d; want a new run 2: %s", code, err, rep.Run, rep.Resumed, errOut)
	}
}

// The text summary lists the best configuration's metrics in the spec's order (here z
// before a), not sorted by name.
func TestTuneSummaryKeepsTheMetricsOrder(t *testing.T) {
	needBackend(t, "c")
	dir := t.TempDir()
	specPath := vectorAddVariant(t, dir, "order.yaml", func(spec string) string {
		return strings.Replace(spec, "metrics:\n", "metrics:\n  - {name: zz, expr: \"time * 2\"}\n  - {name: aa, expr: \"time * 3\"}\n", 1)
	})
	out, errOut, code := ktune(t, "tune", specPath, "--budget", "2", "--db", filepath.Join(dir, "k.db"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	line := ""
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "metrics: ") {
			line = l
		}
	}
	zz, aa, gb := strings.Index(line, "zz "), strings.Index(line, "aa "), strings.Index(line, "GB/s ")
	if zz < 0 || !(zz < aa && aa < gb) {
		t.Errorf("metrics line %q: want zz, aa, GB/s in the spec's order", line)
	}
	// the time the metrics were computed from has a line of its own
	if strings.Contains(line, "time ") || !strings.Contains(out, "\n  time: ") {
		t.Errorf("metrics line %q and the time:\n%s", line, out)
	}
}

// A metric whose spec does not say maximize takes its direction from its name, as
// 'ktune import' gives one: Kernel Tuner's metrics: {GB/s: "..."} is maximised, and the
// summary says so. A written maximize: false still minimises it. Before, the GB/s was
// minimised and the slowest configuration reported as the best.
func TestTuneMaximisesARateWhoseSpecDoesNotSayMaximize(t *testing.T) {
	needBackend(t, "c")
	dir := t.TempDir()
	const written = `  - {name: GB/s, expr: "3 * 4 * N / (time / 1e3) / 1e9", maximize: true}` + "\n"
	for i, tt := range []struct {
		metric string
		want   bool
	}{
		{`  GB/s: "3 * 4 * N / (time / 1e3) / 1e9"` + "\n", true},
		{`  - {name: GB/s, expr: "3 * 4 * N / (time / 1e3) / 1e9", maximize: false}` + "\n", false},
	} {
		specPath := vectorAddVariant(t, dir, fmt.Sprintf("v%d.yaml", i), func(spec string) string {
			if !strings.Contains(spec, written) {
				t.Fatalf("vector_add_c.yaml has changed: %s", spec)
			}
			return strings.Replace(spec, written, tt.metric, 1)
		})
		db := filepath.Join(dir, fmt.Sprintf("v%d.db", i))
		out, errOut, code := ktune(t, "tune", specPath, "--strategy", "bruteforce", "--budget", "4", "--db", db, "--json")
		var rep tuneReport
		if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil {
			t.Fatalf("%s: exit %d, %v: %s%s", tt.metric, code, err, out, errOut)
		}
		evals := evaluationsOf(t, db)
		var extreme float64
		first := true
		for _, e := range evals {
			if !e.Failed() && (first || (tt.want && e.Objective > extreme) || (!tt.want && e.Objective < extreme)) {
				extreme, first = e.Objective, false
			}
		}
		if rep.Maximize != tt.want || rep.BestObjective == nil || *rep.BestObjective != extreme {
			t.Errorf("%s: maximize %v, best %v; want maximize %v and the best %v of %d evaluations", tt.metric, rep.Maximize, rep.BestObjective, tt.want, extreme, len(evals))
		}
		out, errOut, code = ktune(t, "tune", specPath, "--strategy", "bruteforce", "--budget", "2", "--db", db, "--new")
		want := map[bool]string{true: "best GB/s (higher is better): ", false: "best GB/s (lower is better): "}[tt.want]
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("%s: exit %d, want %q in the summary:\n%s%s", tt.metric, code, want, out, errOut)
		}
	}
}

// faultySpec copies testdata/faulty/faulty.c into dir and writes there a spec, name, of
// its kernel over 64 floats with the values faults of its parameter fault and copies of
// copy (YAML lists), extra (more of the spec's fields) after; it returns the spec's path.
func faultySpec(t *testing.T, dir, name, faults, copies, extra string) string {
	t.Helper()
	copyInto(t, dir, "../../testdata/faulty/faulty.c")
	spec := `kernel: {name: faulty, source: faulty.c}
constants: {N: 64}
parameters:
  - {name: fault, values: ` + faults + `}
  - {name: copy, values: ` + copies + `}
problem_size: [N]
arguments:
  - {name: out, type: float32, length: N, output: true}
  - {name: src, type: float32, length: N, fill: random}
  - {name: n, type: int32, value: N}
` + extra
	writeFiles(t, dir, map[string]string{name: spec})
	return filepath.Join(dir, name)
}

// modeSpec is a spec of the host C kernel name(float *y, int n) in name.c, run once a
// configuration on 64 floats, with the values modes (a YAML list) of its parameter mode;
// extra (more of the spec's fields) follows.
func modeSpec(name, modes, extra string) string {
	return "kernel: {name: " + name + ", source: " + name + `.c}
parameters:
  - {name: mode, values: ` + modes + `}
problem_size: [64]
arguments:
  - {name: y, type: float32, length: 64, output: true}
  - {name: n, type: int32, value: 64}
iterations: 1
` + extra
}

// writeFiles writes files (name to text) into dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// tuneBruteForce runs `ktune tune` on the spec file in dir by brute force, with args
// besides, into dir's ktune.db, which it returns; ktune must exit 0.
func tuneBruteForce(t *testing.T, dir, spec string, args ...string) (db string) {
	t.Helper()
	db = filepath.Join(dir, "ktune.db")
	args = append([]string{"tune", filepath.Join(dir, spec), "--strategy", "bruteforce", "--db", db}, args...)
	if out, errOut, code := ktune(t, args...); code != 0 {
		t.Fatalf("%v: exit %d: %s%s", args, code, out, errOut)
	}
	return db
}

// copyInto copies the file at path into dir under its own name.
func copyInto(t *testing.T, dir, path string) {
	t.Helper()
	copyTo(t, path, filepath.Join(dir, filepath.Base(path)))
}

// copyTo copies the file at src to dst, making dst's folders.
func copyTo(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A kernel that hangs and is killed at the spec's timeout spent that time running: it is
// booked as benchmark (kernel) time, whether it hung in the measuring worker (host C, or
// without pre-compilers) or in its warm-up launch in a pre-compiler (PoCL compiles ahead
// with one); it was framework time in the one, compile time in the other.
func TestAHungKernelsTimeIsBenchmarkTime(t *testing.T) {
	for _, tt := range []struct {
		backend, kernel, spec, params string
		hung                          string // its configuration key
	}{
		{"c", "faulty.c", "faulty_c.yaml", "  - {name: fault, values: [0, 4]}\n  - {name: copy, values: [0]}\n", "4,0"},
		{"opencl", "faulty.cl", "faulty_opencl.yaml", "  - {name: fault, values: [0, 3]}\n  - {name: block_size_x, values: [64]}\n", "3,64"},
	} {
		for _, precompilers := range []string{"0", "1"} {
			t.Run(tt.backend+"/precompilers="+precompilers, func(t *testing.T) {
				needBackend(t, tt.backend)
				dir := t.TempDir()
				copyInto(t, dir, "../../testdata/faulty/"+tt.kernel)
				src, err := os.ReadFile("../../testdata/faulty/" + tt.spec)
				if err != nil {
					t.Fatal(err)
				}
				spec := string(src)
				i, j := strings.Index(spec, "parameters:\n"), strings.Index(spec, "problem_size:")
				spec = spec[:i] + "parameters:\n" + tt.params + spec[j:]
				spec = regexp.MustCompile(`(?m)^timeout: .*$`).ReplaceAllString(spec, "timeout: 1s")
				specPath := filepath.Join(dir, "hang.yaml")
				if err := os.WriteFile(specPath, []byte(spec), 0o644); err != nil {
					t.Fatal(err)
				}
				db := filepath.Join(dir, "ktune.db")
				if _, errOut, code := ktune(t, "tune", specPath, "--strategy", "bruteforce", "--precompilers", precompilers, "--db", db); code != 0 {
					t.Fatalf("exit %d: %s", code, errOut)
				}
				e := evaluationsOf(t, db)[tt.hung]
				if e.Status != result.Timeout {
					t.Fatalf("%s: %v %s", tt.hung, e.Status, e.Message)
				}
				t.Logf("%s: %s; compile %.0f ms, benchmark %.0f ms, framework %.0f ms", tt.hung, e.Message, e.CompileMS, e.BenchmarkMS, e.FrameworkMS)
				// The compile time is PoCL's real one, which on a loaded machine can pass
				// the second of the hang: only the hang's own place is asserted.
				if e.BenchmarkMS < 900 || e.FrameworkMS >= 900 {
					t.Errorf("%s (%s): compile %.0f ms, benchmark %.0f ms, framework %.0f ms; want the timeout of 1 s as benchmark time",
						tt.hung, e.Message, e.CompileMS, e.BenchmarkMS, e.FrameworkMS)
				}
			})
		}
	}
}

// twelveTied is the host C vector_add spec with twelve more parameters, p0..p11 of the
// values lo..lo+9, tied by the restriction over their sum (SUM in restriction); the
// reference and default configurations give p_i the value at(i).
func twelveTied(t *testing.T, dir string, lo int, restriction string, at func(i int) int) string {
	t.Helper()
	var names, params, config []string
	for i := range 12 {
		n := fmt.Sprintf("p%d", i)
		names = append(names, n)
		var vals []string
		for v := lo; v < lo+10; v++ {
			vals = append(vals, strconv.Itoa(v))
		}
		params = append(params, fmt.Sprintf("  - {name: %s, values: [%s]}\n", n, strings.Join(vals, ", ")))
		config = append(config, fmt.Sprintf("%s: %d", n, at(i)))
	}
	r := strings.Replace(restriction, "SUM", strings.Join(names, "+"), 1)
	return vectorAddVariant(t, dir, "tied.yaml", func(spec string) string {
		spec = strings.Replace(spec, "N: 4000000", "N: 1000", 1)
		spec = strings.Replace(spec, "  - {name: threads, values: [1, 2, 4]}\n",
			"  - {name: threads, values: [1, 2, 4]}\n"+strings.Join(params, "")+fmt.Sprintf("restrictions: [%q]\n", r), 1)
		return strings.ReplaceAll(spec, "{unroll_factor: 1, threads: 1}", "{unroll_factor: 1, threads: 1, "+strings.Join(config, ", ")+"}")
	})
}

// The QA's space: 1e12 combinations tied by a restriction that most satisfy. Its index
// would take terabytes: tune refuses it at once, before a database is created, saying
// which restriction and how to go on, where it used to fill the machine's memory.
func TestTuneRefusesASpaceTooLargeForItsMemory(t *testing.T) {
	dir := t.TempDir()
	spec := twelveTied(t, dir, 0, "SUM >= 6", func(int) int { return 1 })
	db := filepath.Join(dir, "k.db")
	start := time.Now()
	_, errOut, code := ktune(t, "tune", spec, "--budget", "5", "--db", db, "--space-memory", "256MiB")
	if code != 1 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{spec + ": the restriction \"p0+p1+", ">= 6\" ties the parameters p0, p1", "256.0 MiB allowed", "--space-memory SIZE", "$KTUNE_SPACE_MEMORY"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr %q lacks %q", errOut, want)
		}
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("refused after %v: want at once", took)
	}
	if fileExists(db) {
		t.Error("the refused run created the results database")
	}
}

// The QA's repro itself: the restriction over the sum of positive values always holds, so
// it ties nothing, and a budget of 3 tunes the 1.5e13 configurations at once.
func TestTuneOfAHugeProductTiedByARestrictionThatAlwaysHolds(t *testing.T) {
	needBackend(t, "c")
	dir := t.TempDir()
	spec := twelveTied(t, dir, 1, "SUM > 0", func(int) int { return 1 })
	out, errOut, code := ktune(t, "tune", spec, "--budget", "3", "--strategy", "random", "--db", filepath.Join(dir, "k.db"), "--space-memory", "64MiB")
	if code != 0 || !strings.Contains(out, "3 of the space's 15000000000000 configurations evaluated") {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
}

// A construction that takes long shows its progress in tune as in space, and Ctrl-C
// stops it. The interrupt comes once the progress is shown (it came at 1.5 s, which a
// loaded machine may spend before the construction shows any), or after a minute, so
// that a tune that shows none fails rather than hangs; it must stop within 10 s of it.
func TestTuneShowsTheSpaceConstructionsProgress(t *testing.T) {
	dir := t.TempDir()
	spec := twelveTied(t, dir, 0, "SUM == 3", func(i int) int { return min(max(3-i, 0), 1) }) // 1e12 combinations to enumerate, few valid
	ctx, cancel := context.WithCancel(context.Background())
	var cancelled atomic.Int64 // the interrupt's time, in Unix nanoseconds
	interrupt := func() { cancelled.CompareAndSwap(0, time.Now().UnixNano()); cancel() }
	time.AfterFunc(time.Minute, interrupt)
	var stdout bytes.Buffer
	stderr := &cancelOn{at: "of the product enumerated", cancel: interrupt}
	code := run(ctx, []string{"tune", spec, "--budget", "5", "--db", filepath.Join(dir, "k.db"), "--progress"}, &stdout, stderr)
	if code != 130 || !strings.Contains(stderr.String(), "of the product enumerated") || !strings.Contains(stderr.String(), "building the space of tied.yaml") ||
		!strings.Contains(stderr.String(), "interrupted before the search began") {
		t.Errorf("exit %d: %s%s", code, stdout.String(), stderr.String())
	}
	if took := time.Since(time.Unix(0, cancelled.Load())); took > 10*time.Second {
		t.Errorf("stopped %v after the interrupt", took)
	}
}

// A spec whose arguments differ from the OpenCL kernel's parameters stops before tuning
// starts, with one spec error at the argument's line naming both types: an int32 given
// for a float was passed as its bits and the run was silently wrong, and an argument
// missing failed as a reference that could not be computed.
func TestArgumentsThatDifferFromTheKernelsStopTuningBeforeItStarts(t *testing.T) {
	needBackend(t, "opencl")
	kernel := `__kernel void saxpy(__global float *y, __global const float *x, float alpha, int n) {
    int i = get_global_id(0);
    if (i < n) y[i] = alpha * x[i] + y[i];
}
`
	head := `kernel: {name: saxpy, source: saxpy.cl}
parameters:
  - {name: block_size_x, values: [32, 64]}
problem_size: [1024]
arguments:
  - {name: y, type: float32, length: 1024, fill: {constant: 1}, output: true}
  - {name: x, type: float32, length: 1024, fill: random}
`
	tail := "verification:\n  reference: {config: {block_size_x: 32}}\niterations: 1\n"
	for name, tt := range map[string]struct{ args, want string }{
		"int32 for float": {"  - {name: alpha, type: int32, value: 3}\n  - {name: n, type: int32, value: 1024}\n",
			"spec.yaml:8: arguments[2]: alpha is int32 in the spec, but kernel saxpy takes float alpha"},
		"an argument missing": {"  - {name: alpha, type: float32, value: 3}\n",
			"spec.yaml:5: arguments: 3 in the spec, but kernel saxpy takes 4"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			for file, text := range map[string]string{"saxpy.cl": kernel, "spec.yaml": head + tt.args + tail} {
				if err := os.WriteFile(filepath.Join(dir, file), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			db := filepath.Join(dir, "ktune.db")
			_, errOut, code := ktune(t, "tune", filepath.Join(dir, "spec.yaml"), "--strategy", "bruteforce", "--db", db)
			if code != 1 || !strings.Contains(errOut, filepath.Join(dir, tt.want)) || !strings.Contains(errOut, "nothing was measured") ||
				strings.Contains(errOut, "no reference to verify against") {
				t.Fatalf("exit %d, %s\nwant exit 1 and %q", code, errOut, tt.want)
			}
			st, err := store.Open(context.Background(), db)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if evals, err := st.Evaluations(context.Background(), 1); err == nil {
				t.Errorf("a run was started, with %d evaluations", len(evals))
			}
		})
	}
}

// An objective that may be 0 or negative has no speedup ratio: the summary says "better
// than" or "as good as" without one, and --json leaves the ratio out. Before, a score of
// 0 printed "+Infx better" and "NaNx better", --json failed on +Inf, and a negative
// objective printed a best that was "0.61x better" than worse ones.
func TestTuneSummaryOfAnObjectiveOfZeroOrBelow(t *testing.T) {
	needBackend(t, "c")
	dir := t.TempDir()
	for i, tt := range []struct {
		metric string
		def    string // what the summary says of the default configuration
	}{
		// 0 at the default configuration, which is then the best
		{`  - {name: score, expr: "0 if unroll_factor == 1 and threads == 1 else time", maximize: false}`, "as good as the default configuration (0 score)"},
		// negative: the best is the highest, above the default's
		{`  - {name: score, expr: "-1000 + unroll_factor", maximize: true}`, "better than the default configuration (-999 score)"},
	} {
		specPath := vectorAddVariant(t, dir, fmt.Sprintf("z%d.yaml", i), func(spec string) string {
			spec = strings.Replace(spec, "metrics:\n", "metrics:\n"+tt.metric+"\n", 1)
			return strings.Replace(spec, "objective: GB/s", "objective: score", 1)
		})
		db := filepath.Join(dir, fmt.Sprintf("z%d.db", i))
		out, errOut, code := ktune(t, "tune", specPath, "--strategy", "bruteforce", "--budget", "4", "--db", db, "--json")
		var rep tuneReport
		if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil {
			t.Fatalf("%s: exit %d, %v: %s%s", tt.metric, code, err, out, errOut)
		}
		if rep.SpeedupOverDef != nil || rep.SpeedupOverMed != nil || rep.DefaultObjective == nil || rep.MedianObjective == nil {
			t.Errorf("%s: speedups %v and %v, default %v, median %v; want no ratios beside the default's and the median's objectives",
				tt.metric, rep.SpeedupOverDef, rep.SpeedupOverMed, rep.DefaultObjective, rep.MedianObjective)
		}
		out, errOut, code = ktune(t, "tune", specPath, "--strategy", "bruteforce", "--budget", "4", "--db", db)
		if code != 0 || !strings.Contains(out, "  "+tt.def+"\n") || strings.Contains(out, "Inf") || strings.Contains(out, "NaN") || strings.Contains(out, "x better") {
			t.Errorf("%s: exit %d, want %q in the summary and no ratio:\n%s%s", tt.metric, code, tt.def, out, errOut)
		}
	}
}

// An output whose length reads a tunable parameter verifies only where the length equals
// the reference's: tune warns up front that the best is found among those alone.
func TestTuneWarnsOfAnOutputLengthThatReadsAParameter(t *testing.T) {
	needBackend(t, "c")
	dir := t.TempDir()
	specPath := vectorAddVariant(t, dir, "len.yaml", func(spec string) string {
		return strings.Replace(spec, "{name: c, type: float32, length: N, output: true}", "{name: c, type: float32, length: N + unroll_factor, output: true}", 1)
	})
	_, errOut, code := ktune(t, "tune", specPath, "--strategy", "bruteforce", "--budget", "2", "--db", filepath.Join(dir, "k.db"))
	want := "output c: its length, N + unroll_factor, reads tunable parameter unroll_factor; only configurations whose length equals the reference's verify"
	if code != 0 || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, want %q on stderr:\n%s", code, want, errOut)
	}
}

// A restriction comparing a parameter with a value it never takes (here a misspelled
// number of threads) is said as the command's warning, naming the spec's line, before
// tune and space do their work as the spec says; a clean spec has none.
func TestARestrictionWithAValueNoParameterTakesIsWarnedOf(t *testing.T) {
	needBackend(t, "c")
	dir := t.TempDir()
	specPath := vectorAddVariant(t, dir, "typo.yaml", func(spec string) string {
		return strings.Replace(spec, "problem_size: [N]", "restrictions: [\"threads != 3\"]\nproblem_size: [N]", 1)
	})
	const want = "typo.yaml:12: restrictions[0]: threads != 3 is always true: 3 is none of threads's values (1, 2, 4)\n"
	_, errOut, code := ktune(t, "tune", specPath, "--db", filepath.Join(dir, "k.db"), "--budget", "2")
	if code != 0 || !strings.Contains(errOut, "ktune tune: warning: ") || !strings.Contains(errOut, want) || strings.Contains(errOut, "level=WARN") {
		t.Errorf("tune: exit %d, stderr:\n%s\nwant the warning %q", code, errOut, want)
	}
	out, errOut, code := ktune(t, "space", "count", specPath)
	if code != 0 || !strings.Contains(errOut, "ktune space: warning: ") || !strings.Contains(errOut, want) || !strings.Contains(out, "valid 15") {
		t.Errorf("space count: exit %d, stdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if _, errOut, code := ktune(t, "space", "count", "../../examples/vector_add/vector_add_c.yaml"); code != 0 || errOut != "" {
		t.Errorf("space count of the example: exit %d, stderr %q", code, errOut)
	}
}

// A run whose spec has no verification, where nothing ran, says no configuration ran
// successfully, not that none "ran and verified" (QA).
func TestNothingRanWithoutVerificationSaysRan(t *testing.T) {
	needBackend(t, "c")
	dir := t.TempDir()
	specPath := vectorAddVariant(t, dir, "broken.yaml", func(spec string) string {
		spec = strings.Replace(spec, "  source: vector_add.c", "  language: c\n  code: 'void vector_add(float *c, const float *a, const float *b, int n) { undefined_symbol; }'", 1)
		spec, _, _ = strings.Cut(spec, "verification:")
		return spec
	})
	out, errOut, code := ktune(t, "tune", specPath, "--db", filepath.Join(dir, "k.db"), "--budget", "3")
	if code != 1 || !strings.Contains(errOut, "no configuration ran successfully in run 1") || strings.Contains(out+errOut, "verified") {
		t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// An array whose length is a tuned parameter keeps one length's buffer and data in the
// worker, the configuration's: a worker that kept every length it had met filled its
// memory until a configuration that fits alone failed for want of it. On PoCL under
// --worker-memory 2GiB, N=128M (512 MB, with its data 1 GB) failed "ran out of memory"
// after 48M and 96M, and ran on a fresh worker. The spec's timeout is 120 s, not the
// default 10 s: filling and copying half a gigabyte passed 10 s on a loaded machine, and
// the test is about memory.
func TestAnArrayOfTunedLengthKeepsOneLengthInTheWorker(t *testing.T) {
	needBackend(t, "opencl")
	dir := t.TempDir()
	spec := `kernel:
  name: fill
  language: opencl
  code: |
    __kernel void fill(__global float *c, const long n) {
        size_t i = get_global_id(0);
        if (i < n) c[i] = 1.0f;
    }
parameters:
  - {name: block_size_x, values: [64]}
  - {name: N, values: [48000000, 96000000, 128000000]}
problem_size: [1024]
arguments:
  - {name: c, type: float32, length: N, output: true}
  - {name: n, type: int64, value: N}
iterations: 1
timeout: 120s
`
	writeFiles(t, dir, map[string]string{"fill.yaml": spec})
	db := tuneBruteForce(t, dir, "fill.yaml", "--worker-memory", "2GiB", "--no-precompile")
	evals := evaluationsOf(t, db)
	for _, n := range []string{"48000000", "96000000", "128000000"} {
		if e := evals["64,"+n]; e.Status != result.OK {
			t.Errorf("N=%s: %v %q, want ok", n, e.Status, e.Message)
		}
	}
}

// Arrays that each fit the device's largest buffer but not its global memory together are
// a device_limit, known before anything is compiled or allocated, whose message gives the
// arrays' sizes and the device's. PoCL under --worker-memory 1GiB has 1 GiB of global
// memory and 256 MiB buffers: five arrays of 240 MB crashed the worker as it ran out of
// memory, a runtime_error, after compiling and generating their data.
func TestArraysLargerTogetherThanGlobalMemoryAreADeviceLimit(t *testing.T) {
	needBackend(t, "opencl")
	dir := t.TempDir()
	evals := tuneFiveArrays(t, dir, "1GiB", "1000, 60000000")
	if e := evals["64,1000"]; e.Status != result.OK {
		t.Errorf("N=1000: %v %q, want ok", e.Status, e.Message)
	}
	e := evals["64,60000000"]
	want := "the arrays take 1200000000 bytes in all (a 240000000, b 240000000, c 240000000, d 240000000, e 240000000), " +
		"more than the device's global memory of "
	if e.Status != result.DeviceLimit || !strings.HasPrefix(e.Message, want) || e.CompileMS != 0 {
		t.Errorf("N=60000000: %v %q (compiled for %.0f ms), want a device_limit before compiling saying %q...", e.Status, e.Message, e.CompileMS, want)
	}
}

// fiveArrays is a spec of five float32 arrays of N elements, N's values to be filled in.
const fiveArrays = `kernel:
  name: sum
  language: opencl
  code: |
    __kernel void sum(__global float *a, __global float *b, __global float *c, __global float *d, __global float *e, const long n) {
        size_t i = get_global_id(0);
        if (i < n) e[i] = a[i] + b[i] + c[i] + d[i];
    }
parameters:
  - {name: block_size_x, values: [64]}
  - {name: N, values: [%s]}
problem_size: [1024]
arguments:
  - {name: a, type: float32, length: N}
  - {name: b, type: float32, length: N}
  - {name: c, type: float32, length: N}
  - {name: d, type: float32, length: N}
  - {name: e, type: float32, length: N, output: true}
  - {name: n, type: int64, value: N}
iterations: 1
# not the default 10 s: filling and copying 680 MB under a loaded CI machine's other tests
# can take that long, and the test is about memory, not time
timeout: 120s
`

// tuneFiveArrays tunes fiveArrays with N's values ns on OpenCL under --worker-memory
// memory, without pre-compilers, and returns the evaluations.
func tuneFiveArrays(t *testing.T, dir, memory, ns string) map[string]result.Evaluation {
	t.Helper()
	path := filepath.Join(dir, "sum.yaml")
	if err := os.WriteFile(path, []byte(fmt.Sprintf(fiveArrays, ns)), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "k.db")
	if out, errOut, code := ktune(t, "tune", path, "--strategy", "bruteforce", "--worker-memory", memory, "--no-precompile", "--db", db); code != 0 {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	return evaluationsOf(t, db)
}

// A CPU device's memory is the host's, which also holds ktune's copies of the arrays'
// initial data: arrays over half its global memory are a device_limit before compiling,
// and its arrays get no pristine copies (a device-side reset is no faster there than a
// write from the host). On PoCL under --worker-memory 2GiB, five arrays of 136 MB
// (680 MB in all) crashed the worker out of memory, their pristine copies the last straw,
// as did five of 220 MB.
func TestACPUDevicesArraysCountTwiceAndGetNoPristineCopies(t *testing.T) {
	needBackend(t, "opencl")
	b, _ := device.Lookup("opencl")
	if devs, err := b.Devices(); err != nil || len(devs) == 0 || devs[0].Type != "cpu" {
		t.Skip("the first OpenCL device is not a CPU (PoCL)")
	}
	evals := tuneFiveArrays(t, t.TempDir(), "2GiB", "34000000, 55000000")
	if e := evals["64,34000000"]; e.Status != result.OK {
		t.Errorf("N=34000000: %v %q, want ok", e.Status, e.Message)
	}
	e := evals["64,55000000"]
	want := "the arrays take 1100000000 bytes in all (a 220000000, b 220000000, c 220000000, d 220000000, e 220000000), " +
		"and twice that with ktune's copy of their initial data in the same memory, more than the CPU device's global memory of "
	if e.Status != result.DeviceLimit || !strings.HasPrefix(e.Message, want) || e.CompileMS != 0 {
		t.Errorf("N=55000000: %v %q (compiled for %.0f ms), want a device_limit before compiling saying %q...", e.Status, e.Message, e.CompileMS, want)
	}
}

// A configuration whose problem size is 0 has a grid of no blocks: it fails alone, before
// compiling, saying so, and tuning goes on. OpenCL ran it as one work-group, ok, and the
// store refused its launch ("a size below 1"), which ended the run (exit 1) with that
// measurement lost.
func TestAProblemSizeOfZeroFailsItsConfigurationAlone(t *testing.T) {
	needBackend(t, "opencl")
	dir := t.TempDir()
	spec := `kernel:
  name: count
  language: opencl
  code: |
    __kernel void count(__global int *c, const long n) {
        if (get_global_id(0) < n) atomic_inc(c);
    }
parameters:
  - {name: block_size_x, values: [64]}
  - {name: P, values: [0, 100]}
problem_size: [P]
arguments:
  - {name: c, type: int32, length: 1, output: true}
  - {name: n, type: int64, value: P}
iterations: 1
`
	writeFiles(t, dir, map[string]string{"count.yaml": spec})
	db := tuneBruteForce(t, dir, "count.yaml", "--no-precompile")
	evals := evaluationsOf(t, db)
	e := evals["64,0"]
	want := "problem_size[0]: P evaluates to 0 for this configuration, a grid of no blocks"
	if e.Status != result.RuntimeError || !strings.Contains(e.Message, want) || e.CompileMS != 0 {
		t.Errorf("P=0: %v %q (compiled for %.0f ms), want a runtime_error before compiling saying %q", e.Status, e.Message, e.CompileMS, want)
	}
	if e := evals["64,100"]; e.Status != result.OK {
		t.Errorf("P=100: %v %q, want ok", e.Status, e.Message)
	}
}
