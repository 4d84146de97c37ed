package runner_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/runner"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/spec"
)

// tickKernel spins for spin_us microseconds of the monotonic clock and writes how many
// times it was called (since its object was loaded: each configuration has its own) to
// calls[0].
const tickKernel = `#include <time.h>
static int ncalls;
void tick(int *calls, int n) {
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do clock_gettime(CLOCK_MONOTONIC, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < spin_us * 1000L);
	calls[0] = ++ncalls + 0 * n;
}`

// allocs is a device that keeps the buffers the runner allocates, so that a test reads
// what a kernel left in them.
type allocs struct {
	device.Device
	bufs *[]device.Buffer
}

func (d allocs) Alloc(n int) (device.Buffer, error) {
	b, err := d.Device.Alloc(n)
	if err == nil {
		*d.bufs = append(*d.bufs, b)
	}
	return b, err
}

// tickRunner is a runner of tickKernel with the spin_us values given and the spec's
// timing fields extra, on the host C device; calls returns how many times the kernel
// of the configuration evaluated last was called, and sw holds the runs the device's
// observer was told of.
func tickRunner(t *testing.T, spins, extra string) (r *runner.Runner, sp *space.Space, s *spec.Spec, calls func() int, sw *stopwatch) {
	t.Helper()
	var bufs []device.Buffer
	sw = &stopwatch{}
	dev := observed{allocs{openHost(t), &bufs}, sw}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "tick.c"), []byte(tickKernel), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "tick.yaml")
	if err := os.WriteFile(path, []byte(`
kernel: {name: tick, source: tick.c}
parameters: [{name: spin_us, values: [`+spins+`]}]
problem_size: [1]
arguments:
  - {name: calls, type: int32, length: 1, output: true}
  - {name: n, type: int32, value: 1}
`+extra), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := spec.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	r, sp = runnerFor(t, s, dev)
	calls = func() int {
		t.Helper()
		b := make([]byte, 4)
		if len(bufs) == 0 {
			t.Fatal("no buffer was allocated")
		}
		if err := bufs[0].Read(b); err != nil {
			t.Fatal(err)
		}
		return int(int32(binary.LittleEndian.Uint32(b)))
	}
	return r, sp, s, calls, sw
}

// evaluateSpin evaluates the configuration spin_us = us and returns the evaluation and
// how many timed runs the kernel made: its calls less its untimed runs, the warm-up and up
// to two settling runs (none once a run took 10 ms, which a busy machine may make of a
// short one). The timed runs come in whole rounds of iters, so of the three counts that
// leaves one at most is a multiple of iters (iters of 4 or more): the test fails where
// none is.
func evaluateSpin(t *testing.T, r *runner.Runner, sp *space.Space, calls func() int, us int64, iters int) (result.Evaluation, int, time.Duration) {
	t.Helper()
	cfg, err := sp.ConfigOf([]space.Value{space.IntValue(us)})
	if err != nil {
		t.Fatal(err)
	}
	var compiled time.Time
	e := r.Evaluate(context.Background(), cfg, func(p string) {
		if p == "compiled" {
			compiled = time.Now()
		}
	})
	took := time.Since(compiled)
	if e.Status != result.OK {
		t.Fatalf("spin_us=%d: %v %q", us, e.Status, e.Message)
	}
	n := calls()
	for untimed := 1; untimed <= 3; untimed++ {
		if timed := n - untimed; timed > 0 && timed%iters == 0 {
			return e, timed, took
		}
	}
	t.Fatalf("spin_us=%d: %d calls are not a warm-up, up to two settling runs and whole rounds of %d runs", us, n, iters)
	return e, 0, took
}

// A kernel of a few microseconds with iterations 5 and min_time 20ms runs on, in rounds of
// 5, until its timed runs have lasted 20 ms: far more than 5 runs, still 5 samples, each
// the mean of an equal batch of them, which the evaluation's RunsPerSample and its note
// say; the observers are told of every run. A kernel whose 5 runs last 20 ms already (5
// ms each) runs exactly 5 times, a sample each, and says nothing of min_time.
func TestMinTimeRunsAShortKernelOnInBatches(t *testing.T) {
	r, sp, _, calls, sw := tickRunner(t, "3, 5000", "iterations: 5\nmin_time: 20ms\n")

	e, timed, took := evaluateSpin(t, r, sp, calls, 3, 5)
	if timed <= 5 || timed%5 != 0 || timed > runner.MaxTimedRuns {
		t.Errorf("a 3 µs kernel made %d timed runs, want more than 5, in rounds of 5, at most %d", timed, runner.MaxTimedRuns)
	}
	if len(e.Samples) != 5 {
		t.Errorf("%d samples, want the spec's 5 iterations", len(e.Samples))
	}
	per := timed / 5
	if e.RunsPerSample != per {
		t.Errorf("RunsPerSample %d, want %d", e.RunsPerSample, per)
	}
	if noted := (&result.Evaluation{Message: e.Message}).SampleRuns(); noted != per {
		t.Errorf("the note %q reads as %d runs per sample, want %d", e.Message, noted, per)
	}
	want := fmt.Sprintf("timed over %d runs for min_time 20ms: each of its 5 samples is the mean of %d consecutive runs", timed, per)
	if e.Message != want {
		t.Errorf("message %q, want %q", e.Message, want)
	}
	for _, v := range e.Samples {
		if v < 0.003 {
			t.Errorf("a sample of %v ms, below the kernel's 3 µs", v)
		}
	}
	if got := runner.TimeMS("mean", e.Samples); e.Objective != got {
		t.Errorf("objective %v, the samples' mean %v", e.Objective, got)
	}
	if took < 20*time.Millisecond || e.BenchmarkMS < 20 {
		t.Errorf("%v from the first launch, kernel time %v ms: less than min_time", took, e.BenchmarkMS)
	}
	if n := len(sw.runs); n == 0 || sw.runs[n-1] != timed {
		t.Errorf("the observers were told of runs %v, want %d last", sw.runs, timed)
	}

	e, timed, _ = evaluateSpin(t, r, sp, calls, 5000, 5)
	if timed != 5 || len(e.Samples) != 5 || e.Message != "" || e.RunsPerSample != 1 {
		t.Errorf("a 5 ms kernel: %d timed runs, %d samples, message %q, %d runs per sample; want 5, 5, none and 1",
			timed, len(e.Samples), e.Message, e.RunsPerSample)
	}
	for _, v := range e.Samples {
		if v < 5 {
			t.Errorf("a sample of %v ms, below the kernel's 5 ms", v)
		}
	}
	if n := len(sw.runs); n == 0 || sw.runs[n-1] != 5 {
		t.Errorf("the observers were told of runs %v, want 5 last", sw.runs)
	}
}

// Without min_time a short kernel runs the spec's iterations, no more.
func TestWithoutMinTimeAShortKernelRunsItsIterations(t *testing.T) {
	r, sp, s, calls, _ := tickRunner(t, "3", "iterations: 5\n")
	if s.MinTime != 0 {
		t.Fatalf("min_time %v by default", s.MinTime)
	}
	e, timed, _ := evaluateSpin(t, r, sp, calls, 3, 5)
	if timed != 5 || len(e.Samples) != 5 || e.Message != "" || e.RunsPerSample != 1 {
		t.Errorf("%d timed runs, %d samples of %d runs, message %q; want 5, 5 of 1 and none", timed, len(e.Samples), e.RunsPerSample, e.Message)
	}
}

// The runs stop at the cap, MaxTimedRuns, in whole rounds of iterations (9996 runs in
// rounds of 7), however far min_time is, and the note says min_time was not reached.
func TestMinTimeStopsAtTheCapOfRuns(t *testing.T) {
	r, sp, _, calls, _ := tickRunner(t, "0", "iterations: 7\nmin_time: 9s\ntimeout: 20s\n")
	e, timed, took := evaluateSpin(t, r, sp, calls, 0, 7)
	want := runner.MaxTimedRuns / 7 * 7
	if timed != want || len(e.Samples) != 7 || e.RunsPerSample != want/7 {
		t.Errorf("%d timed runs in %d samples of %d runs, want %d in 7 of %d", timed, len(e.Samples), e.RunsPerSample, want, want/7)
	}
	if !strings.HasSuffix(e.Message, fmt.Sprintf("the mean of %d consecutive runs (min_time not reached within the cap of %d runs)", want/7, runner.MaxTimedRuns)) {
		t.Errorf("message %q", e.Message)
	}
	// 10,000 calls of a kernel that does nothing take milliseconds, not 9 s
	if took > 3*time.Second {
		t.Errorf("%v from the first launch: the cap did not stop the runs", took)
	}
}

// The runs stop where another round would pass the spec's timeout (less the twentieth
// kept for what follows the runs): 2 ms runs in rounds of 5 with min_time 990ms and
// timeout 1s end before 0.95 s, and the note says why min_time was not reached.
func TestMinTimeStopsBeforeTheTimeout(t *testing.T) {
	r, sp, s, calls, _ := tickRunner(t, "2000", "iterations: 5\nmin_time: 990ms\ntimeout: 1s\n")
	e, timed, took := evaluateSpin(t, r, sp, calls, 2000, 5)
	if timed <= 5 || timed%5 != 0 || timed > 475 || e.RunsPerSample != timed/5 {
		t.Errorf("%d timed runs of 2 ms, %d per sample; want more than 5, in rounds of 5, and no more than fit in 0.95 s", timed, e.RunsPerSample)
	}
	if !strings.HasSuffix(e.Message, fmt.Sprintf("(min_time not reached: another 5 runs would have passed its timeout of %v)", s.Timeout)) {
		t.Errorf("message %q", e.Message)
	}
	// A run the busy machine slows may end a little past the limit; all of min_time's
	// runs would not.
	if took > s.Timeout*3/2 {
		t.Errorf("%v from the first launch, past the timeout of %v", took, s.Timeout)
	}
	if len(e.Samples) != 5 {
		t.Errorf("%d samples, want 5", len(e.Samples))
	}
}

// With statistic min each sample is its batch's minimum, which the note says, and the
// time is the least of them: every run's minimum.
func TestMinTimeSamplesAreTheBatchesStatistic(t *testing.T) {
	r, sp, _, calls, _ := tickRunner(t, "3", "iterations: 4\nmin_time: 30ms\nstatistic: min\n")
	e, timed, _ := evaluateSpin(t, r, sp, calls, 3, 4)
	per := timed / 4
	if timed <= 4 || len(e.Samples) != 4 || !strings.HasSuffix(e.Message, fmt.Sprintf("each of its 4 samples is the min of %d consecutive runs", per)) {
		t.Fatalf("%d timed runs, %d samples, message %q", timed, len(e.Samples), e.Message)
	}
	if e.Objective != slices.Min(e.Samples) {
		t.Errorf("objective %v, the samples %v", e.Objective, e.Samples)
	}
}
