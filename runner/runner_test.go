package runner_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/device/hostc"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/runner"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/spec"
)

// observed is a real host C device with an observer attached, as the CUDA backend attaches
// NVML: the runner's part (when to observe, for how long, where the values go) is what
// is tested here; NVML itself is tested in package cuda on a GPU.
type observed struct {
	device.Device
	o *stopwatch
}

func (d observed) Observers() []device.Observer { return []device.Observer{d.o} }

// stopwatch reports the runs and wall time of each observation as if 1 J were spent per
// second: energy = wall / runs, power = 1.
type stopwatch struct {
	window time.Duration
	begun  time.Time
	runs   []int
}

func (s *stopwatch) Begin() error          { s.begun = time.Now(); return nil }
func (s *stopwatch) Window() time.Duration { return s.window }
func (s *stopwatch) End(runs int) (map[string]float64, error) {
	wall := time.Since(s.begun)
	s.runs = append(s.runs, runs)
	out := map[string]float64{"core_clock": 1000}
	if wall >= s.window {
		out["energy"] = wall.Seconds() / float64(runs)
		out["power"] = 1
	}
	return out, nil
}

func openHost(t *testing.T) device.Device {
	t.Helper()
	runtime.LockOSThread()
	t.Cleanup(runtime.UnlockOSThread)
	b, ok := device.Lookup(hostc.Name)
	if !ok {
		t.Fatal("the host C backend is not registered")
	}
	if _, err := b.Devices(); err != nil {
		t.Skip(err)
	}
	d, err := b.Open(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

const kernel = `void scale(float *x, int n) { for (int i = 0; i < n; i++) x[i] = 2.0f * x[i] + (float)factor; }`

// runnerFor builds the space of s and a runner of it on dev, closed when the test ends.
func runnerFor(t testing.TB, s *spec.Spec, dev device.Device) (*runner.Runner, *space.Space) {
	t.Helper()
	sp, err := s.Space()
	if err != nil {
		t.Fatal(err)
	}
	r := runner.New(s, sp, dev)
	t.Cleanup(func() { r.Close() })
	return r, sp
}

// wantVerified checks the reference (r.Check), then evaluates the configurations of
// these values one after the other, as tuning does, and fails the test for each that is
// not ok.
func wantVerified(t *testing.T, r *runner.Runner, sp *space.Space, configs ...[]space.Value) {
	t.Helper()
	if err := r.Check(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, values := range configs {
		cfg, err := sp.ConfigOf(values)
		if err != nil {
			t.Fatal(err)
		}
		if e := r.Evaluate(context.Background(), cfg, nil); e.Status != result.OK {
			t.Errorf("%s: %v %q, want ok", sp.Format(cfg), e.Status, e.Message)
		}
		r.Idle()
	}
}

func loadSpec(t *testing.T, extra string) *spec.Spec {
	t.Helper()
	s, err := spec.Parse([]byte(`
kernel: {name: scale, language: c, code: "`+kernel+`"}
constants: {N: 100000}
parameters: [{name: factor, values: [1, 2, 3]}]
problem_size: [N]
arguments:
  - {name: x, type: float32, length: N, fill: random, output: true}
  - {name: n, type: int32, value: N}
iterations: 3
`+extra), "runner_test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestObserversCoverTheTimedRunsAndTheirWindowWhenEnergyIsRead(t *testing.T) {
	dev := openHost(t)
	sw := &stopwatch{window: 150 * time.Millisecond}
	cases := []struct {
		extra       string
		wantEnergy  bool
		objectiveIs string
	}{
		{"", false, ""}, // nothing reads energy: the three timed runs only
		{"objective: energy\n", true, "energy"},
		{"metrics: [{name: work_per_joule, expr: \"N / energy\", maximize: true}]\nobjective: work_per_joule\n", true, "work_per_joule"},
	}
	for _, c := range cases {
		s := loadSpec(t, c.extra)
		sp, err := s.Space()
		if err != nil {
			t.Fatal(err)
		}
		r := runner.New(s, sp, observed{dev, sw})
		sw.runs = nil
		start := time.Now()
		e := r.Evaluate(context.Background(), sp.At(1, nil), nil)
		took := time.Since(start)
		r.Close()
		if e.Status != result.OK {
			t.Fatalf("%q: %v %s", c.extra, e.Status, e.Message)
		}
		if len(sw.runs) != 1 || len(e.Samples) != 3 {
			t.Fatalf("%q: %d observations, %d samples", c.extra, len(sw.runs), len(e.Samples))
		}
		if e.Metrics["core_clock"] != 1000 {
			t.Errorf("%q: observed values are not recorded: %v", c.extra, e.Metrics)
		}
		_, hasEnergy := e.Metrics["energy"]
		if hasEnergy != c.wantEnergy {
			t.Fatalf("%q: energy recorded %v, want %v (%v)", c.extra, hasEnergy, c.wantEnergy, e.Metrics)
		}
		if !c.wantEnergy {
			if sw.runs[0] != 3 {
				t.Errorf("%q: observed %d runs, want the 3 timed runs only", c.extra, sw.runs[0])
			}
			continue
		}
		if sw.runs[0] <= 3 || took < sw.window {
			t.Errorf("%q: observed %d runs over %v, want runs past the timed ones for %v", c.extra, sw.runs[0], took, sw.window)
		}
		if e.Objective != e.Metrics[c.objectiveIs] || !(e.Objective > 0) {
			t.Errorf("%q: objective %v, metrics %v", c.extra, e.Objective, e.Metrics)
		}
	}
}

// slowStart is a stopwatch whose Begin takes a while, as an NVML read does on a loaded
// machine: the observation's window counts from its Begin, not from before it.
type slowStart struct {
	*stopwatch
	delay time.Duration
}

func (s slowStart) Begin() error {
	time.Sleep(s.delay)
	return s.stopwatch.Begin()
}

type observedSlowly struct {
	device.Device
	o slowStart
}

func (d observedSlowly) Observers() []device.Observer { return []device.Observer{d.o} }

// An observer slow to begin (here longer than its window) still gets its window of runs:
// counted from before its Begin, the runs stopped at once and the configuration failed
// for want of energy (once in about 90 runs of the CUDA stand-in test under load).
func TestASlowObserverStillGetsItsWindow(t *testing.T) {
	dev := openHost(t)
	sw := &stopwatch{window: 100 * time.Millisecond}
	s := loadSpec(t, "objective: energy\n")
	sp, err := s.Space()
	if err != nil {
		t.Fatal(err)
	}
	r := runner.New(s, sp, observedSlowly{dev, slowStart{sw, 150 * time.Millisecond}})
	defer r.Close()
	e := r.Evaluate(context.Background(), sp.At(1, nil), nil)
	if e.Status != result.OK || !(e.Metrics["energy"] > 0) {
		t.Fatalf("%v %s, metrics %v: want energy measured over the window after a slow Begin", e.Status, e.Message, e.Metrics)
	}
	if len(sw.runs) != 1 || sw.runs[0] <= 3 {
		t.Errorf("observed runs %v, want one observation of runs past the 3 timed ones", sw.runs)
	}
}

func TestAnObjectiveTheDeviceCannotObserveFailsClearly(t *testing.T) {
	dev := openHost(t)
	s := loadSpec(t, "objective: power\n")
	sp, _ := s.Space()
	r := runner.New(s, sp, dev) // the plain host device observes nothing
	defer r.Close()
	e := r.Evaluate(context.Background(), sp.At(0, nil), nil)
	if e.Status != result.RuntimeError || e.Message != `objective "power" is not measured by this device (c)` {
		t.Fatalf("%v %q", e.Status, e.Message)
	}
	if r.Broken() != nil {
		t.Fatal("an unobservable objective broke the runner")
	}
}

// settable is a real host C device that records the settings asked of it, as the CUDA
// backend sets them through NVML; refuse makes Set fail as NVML does without root.
type settable struct {
	device.Device
	calls  []string
	resets int
	refuse bool
}

func (d *settable) Settings() []string { return []string{"nvml_gr_clock", "nvml_pwr_limit"} }
func (d *settable) Set(name string, v float64) error {
	if d.refuse {
		return errors.New("needs root")
	}
	d.calls = append(d.calls, fmt.Sprintf("%s=%v", name, v))
	return nil
}
func (d *settable) ResetSettings() error { d.resets++; return nil }

func TestDeviceSettingsAreSetOnlyWhenTheSpecTunesThem(t *testing.T) {
	dev := openHost(t)
	load := func(params string) (*spec.Spec, *space.Space) {
		s, err := spec.Parse([]byte(`
kernel: {name: scale, language: c, code: "`+kernel+`"}
constants: {N: 1000}
parameters: [{name: factor, values: [1, 2]}`+params+`]
problem_size: [N]
arguments:
  - {name: x, type: float32, length: N, fill: random, output: true}
  - {name: n, type: int32, value: N}
iterations: 1
`), "settings.yaml")
		if err != nil {
			t.Fatal(err)
		}
		sp, err := s.Space()
		if err != nil {
			t.Fatal(err)
		}
		return s, sp
	}
	// A spec without such parameters changes nothing.
	d := &settable{Device: dev}
	s, sp := load("")
	r := runner.New(s, sp, d)
	if e := r.Evaluate(context.Background(), sp.At(0, nil), nil); e.Status != result.OK {
		t.Fatalf("%v %s", e.Status, e.Message)
	}
	r.Close()
	if len(d.calls) != 0 || d.resets != 0 {
		t.Fatalf("settings changed without being asked: %v, %d resets", d.calls, d.resets)
	}

	// A spec that tunes the clock sets it when its value changes, and Close resets it.
	s, sp = load(", {name: nvml_gr_clock, values: [1410, 1980]}")
	r = runner.New(s, sp, d)
	for _, i := range []int{0, 2, 1, 3} { // factor-major: clocks 1410 1410 1980 1980
		c := sp.At(i, nil)
		if e := r.Evaluate(context.Background(), c, nil); e.Status != result.OK {
			t.Fatalf("%s: %v %s", sp.Format(c), e.Status, e.Message)
		}
	}
	r.Close()
	if fmt.Sprint(d.calls) != "[nvml_gr_clock=1410 nvml_gr_clock=1980]" || d.resets != 1 {
		t.Fatalf("calls %v, %d resets", d.calls, d.resets)
	}

	// A refusal (no permission) fails the configuration with NVML's reason.
	d.refuse = true
	r = runner.New(s, sp, d)
	e := r.Evaluate(context.Background(), sp.At(0, nil), nil)
	r.Close()
	if e.Status != result.RuntimeError || !strings.Contains(e.Message, "needs root") {
		t.Fatalf("%v %q", e.Status, e.Message)
	}

	// A device that cannot set clocks says so rather than ignoring the parameter.
	r = runner.New(s, sp, dev)
	e = r.Evaluate(context.Background(), sp.At(0, nil), nil)
	r.Close()
	if e.Status != result.RuntimeError || !strings.Contains(e.Message, "parameter nvml_gr_clock asks to set a device setting that the c device") {
		t.Fatalf("%v %q", e.Status, e.Message)
	}
}

// The time a run uses is its statistic of the samples, and it stays with the evaluation
// whatever the objective: beside a metric objective (GB/s computed from it) as the "time"
// metric, which exports write as Kernel Tuner's "time"; it was dropped, and exports fell
// back on the mean of the samples, which disagreed with the GB/s of a median run.
func TestTheTimeOfTheStatisticStaysWithEveryEvaluation(t *testing.T) {
	dev := openHost(t)
	for _, tt := range []struct{ statistic, objective string }{
		{"median", "GB/s"}, {"mean", "GB/s"}, {"median", "time"}, {"min", "GB/s"}, {"min", "time"},
	} {
		extra := "statistic: " + tt.statistic + "\n"
		if tt.objective == "GB/s" {
			extra += "metrics: [{name: GB/s, expr: \"8 * N / (time / 1e3) / 1e9\", maximize: true}]\nobjective: GB/s\n"
		}
		s := loadSpec(t, extra)
		s.Iterations = 7 // an odd count: the median is one of the samples
		sp, err := s.Space()
		if err != nil {
			t.Fatal(err)
		}
		r := runner.New(s, sp, dev)
		e := r.Evaluate(context.Background(), sp.At(0, nil), nil)
		r.Close()
		if e.Status != result.OK || len(e.Samples) != 7 {
			t.Fatalf("%+v: %v %s, %d samples", tt, e.Status, e.Message, len(e.Samples))
		}
		want := runner.TimeMS(tt.statistic, e.Samples)
		if least := slices.Min(e.Samples); tt.statistic == "min" && want != least {
			t.Errorf("%+v: the time of the samples %v is %v, want the least, %v", tt, e.Samples, want, least)
		}
		if tt.objective == "time" {
			if _, ok := e.Metrics["time"]; ok || e.Objective != want {
				t.Errorf("%+v: objective %v, want %v; metrics %v", tt, e.Objective, want, e.Metrics)
			}
			continue
		}
		got, ok := e.Metrics["time"]
		if !ok || got != want {
			t.Errorf("%+v: time %v (kept %v), want %v of the samples %v", tt, got, ok, want, e.Samples)
		}
		if gbs := 8 * 100000 / (got / 1e3) / 1e9; math.Abs(gbs-e.Objective) > 1e-9*gbs {
			t.Errorf("%+v: GB/s %v, but %v from the time kept", tt, e.Objective, gbs)
		}
	}
}

// A metric beside the objective that cannot be computed for a configuration costs it that
// metric, not its measurement; one the objective needs fails it (a QA saw 1/(VW-1) at VW=1
// throw away verified measurements).
func TestAFailingMetricBesideTheObjectiveKeepsTheMeasurement(t *testing.T) {
	dev := openHost(t)
	metrics := "metrics:\n  - {name: inv, expr: \"1 / (factor - 1)\"}\n  - {name: GB/s, expr: \"8 * N / (time / 1e3) / 1e9\", maximize: true}\n" +
		"  - {name: twice_inv, expr: \"2 * inv\"}\n"
	for _, tt := range []struct {
		objective string
		ok        bool
	}{{"GB/s", true}, {"time", true}, {"inv", false}, {"twice_inv", false}} {
		s := loadSpec(t, metrics+"objective: "+tt.objective+"\n")
		sp, err := s.Space()
		if err != nil {
			t.Fatal(err)
		}
		r := runner.New(s, sp, dev)
		e := r.Evaluate(context.Background(), sp.At(0, nil), nil) // factor=1
		r.Close()
		if !tt.ok {
			if e.Status != result.RuntimeError || !strings.Contains(e.Message, `metric "inv": 1 / (factor - 1) fails`) {
				t.Errorf("objective %s: %v %q; want a runtime error naming inv", tt.objective, e.Status, e.Message)
			}
			continue
		}
		_, hasInv := e.Metrics["inv"]
		_, hasTwice := e.Metrics["twice_inv"]
		if e.Status != result.OK || hasInv || hasTwice || e.Metrics["GB/s"] <= 0 ||
			!strings.Contains(e.Message, `metrics left out: `) || !strings.Contains(e.Message, `metric "twice_inv" reads metric "inv", which could not be computed`) {
			t.Errorf("objective %s: %v %q, metrics %v; want a success without inv and twice_inv, saying so", tt.objective, e.Status, e.Message, e.Metrics)
		}
	}
}

// quietCompiler writes a C compiler that fails without a word where factor is 2 (exit 1)
// or 3 (SIGKILL, as the out-of-memory killer sends it), and is gcc otherwise.
func quietCompiler(t *testing.T) string {
	t.Helper()
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip(err)
	}
	cc := filepath.Join(t.TempDir(), "quiet-cc")
	script := "#!/bin/sh\nfor a in \"$@\"; do case \"$a\" in\n" +
		"-Dfactor=2) exit 1;;\n-Dfactor=3) kill -KILL $$;;\nesac; done\nexec " + gcc + " \"$@\"\n"
	if err := os.WriteFile(cc, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return cc
}

// logless is a real host C device whose compile errors lose their log, as a backend's
// may (a runtime's empty build log).
type logless struct{ device.Device }

func (d logless) Compile(ctx context.Context, src device.Source) (device.Kernel, error) {
	k, err := d.Device.Compile(ctx, src)
	var ce *device.CompileError
	if errors.As(err, &ce) {
		return nil, &device.CompileError{Err: ce.Err}
	}
	return k, err
}

// A compiler that fails without printing anything leaves a message that says how it
// failed, for a configuration and for the reference: the message was empty, and a
// silent exit and a kill read alike. A compiler killed (the out-of-memory killer's
// SIGKILL) is a compile error of the configuration too, with a note on what to do: one
// configuration that exhausts the memory must not stop the tuning.
func TestACompilerThatFailsSilentlyLeavesAMessage(t *testing.T) {
	cc := quietCompiler(t)
	t.Setenv("CC", cc)
	dev := openHost(t)
	s := loadSpec(t, "")
	sp, err := s.Space()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		dev   device.Device
		at    int
		want  string
		fault bool // the evaluation is no result: Fault says want
	}{
		{dev, 1, "the compiler (" + cc + ") exited with status 1 and printed nothing", false},
		{dev, 2, "the compiler (" + cc + ") was killed by signal SIGKILL (killed) and printed nothing\nnote: the compiler was killed, as the out-of-memory killer does", false},
		{logless{dev}, 1, "the compiler failed and printed nothing: exit status 1", false},
		{logless{dev}, 2, "the compiler failed and printed nothing: signal: killed", false},
	}
	for _, c := range cases {
		r := runner.New(s, sp, c.dev)
		e := r.Evaluate(context.Background(), sp.At(c.at, nil), nil)
		fault := r.Fault()
		ok := r.Evaluate(context.Background(), sp.At(0, nil), nil)
		if ok.Status != result.OK || r.Fault() != nil {
			t.Errorf("%s after it: %v %q, fault %v; want it measured, without a fault", sp.Format(sp.At(0, nil)), ok.Status, ok.Message, r.Fault())
		}
		r.Close()
		switch {
		case c.fault && (fault == nil || !strings.HasPrefix(fault.Error(), c.want)):
			t.Errorf("%s (%T): fault %v, want one starting %q", sp.Format(sp.At(c.at, nil)), c.dev, fault, c.want)
		case !c.fault && (fault != nil || e.Status != result.CompileError || !strings.HasPrefix(e.Message, c.want)):
			t.Errorf("%s (%T): %v %q (fault %v), want a compile error saying %q", sp.Format(sp.At(c.at, nil)), c.dev, e.Status, e.Message, fault, c.want)
		}
	}
	s = loadSpec(t, "verification: {reference: {config: {factor: 2}}}\n")
	r := runner.New(s, sp, dev)
	defer r.Close()
	err = r.Reference(context.Background(), nil)
	if want := "does not compile:\nthe compiler (" + cc + ") exited with status 1 and printed nothing"; err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("reference: %v, want an error ending %q", err, want)
	}
}

// fullFor is a real host C device on which compiling the configuration factor=factor
// fails as on a full disk while *full is set.
type fullFor struct {
	device.Device
	factor string
	full   *bool
}

func (d fullFor) Compile(ctx context.Context, src device.Source) (device.Kernel, error) {
	for _, def := range src.Defines {
		if *d.full && def.Name == "factor" && def.Value == d.factor {
			return nil, &device.EnvironmentError{Place: "$KTUNE_CACHE (/x/hostc)", Err: syscall.ENOSPC}
		}
	}
	return d.Device.Compile(ctx, src)
}

// A reference that cannot be compiled for the machine's sake (a full compile cache) is
// no verdict on the reference: a worker that computes it lazily (one that replaced a
// crashed worker) reports the failure as its Fault, not a wrong answer of the
// configuration, and neither it nor Reference keeps the failure: once there is room, the
// reference is computed and the configuration verifies.
func TestAReferenceTheMachineFailsIsComputedAgain(t *testing.T) {
	dev := openHost(t)
	s := loadSpec(t, "verification: {reference: {config: {factor: 2}}}\n")
	sp, err := s.Space()
	if err != nil {
		t.Fatal(err)
	}
	full := true
	r := runner.New(s, sp, fullFor{dev, "2", &full})
	defer r.Close()
	e := r.Evaluate(context.Background(), sp.At(0, nil), nil)
	if f := r.Fault(); f == nil || !errors.Is(f, syscall.ENOSPC) {
		t.Errorf("with the cache full: %v %q, fault %v; want the fault of the machine", e.Status, e.Message, f)
	}
	if err := r.Reference(context.Background(), nil); !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("Reference with the cache full: %v", err)
	}
	full = false
	if err := r.Reference(context.Background(), nil); err != nil {
		t.Errorf("Reference with room again: %v", err)
	}
	if e := r.Evaluate(context.Background(), sp.At(1, nil), nil); e.Status != result.OK || r.Fault() != nil { // factor=2
		t.Errorf("with room again: %v %q, fault %v; want it verified", e.Status, e.Message, r.Fault())
	}
}

// spinKernel is a host C kernel that runs for ms milliseconds of the monotonic clock.
const spinKernel = `#include <time.h>
void spin(float *x, int n) {
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do clock_gettime(CLOCK_MONOTONIC, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < spin_ms * 1000000L);
	x[0] = (float)n;
}`

// A kernel too slow for all its iterations within the spec's timeout is timed over the
// runs that fit and says so, rather than running on until the supervisor kills it with
// nothing measured; a fast one is timed over all of them. The device's observers are
// told of the runs there were.
func TestTimedRunsThatWouldPassTheTimeoutAreLeftOut(t *testing.T) {
	sw := &stopwatch{}
	dev := observed{openHost(t), sw}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "spin.c"), []byte(spinKernel), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "spin.yaml")
	if err := os.WriteFile(path, []byte(`
kernel: {name: spin, source: spin.c}
parameters: [{name: spin_ms, values: [1, 100]}]
problem_size: [1]
arguments:
  - {name: x, type: float32, length: 1, output: true}
  - {name: n, type: int32, value: 1}
iterations: 32
timeout: 1s
`), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := spec.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	r, sp := runnerFor(t, s, dev)
	for _, c := range []struct {
		ms      int
		samples func(int) bool
		want    string
	}{
		{1, func(n int) bool { return n == 32 }, "32"},
		// 33 runs of 100 ms are 3.3 s; from the first launch, 0.95 s leave room for 8
		{100, func(n int) bool { return n >= 1 && n <= 8 }, "1 to 8"},
	} {
		var compiled time.Time
		cfg, err := sp.ConfigOf([]space.Value{space.IntValue(int64(c.ms))})
		if err != nil {
			t.Fatal(err)
		}
		e := r.Evaluate(context.Background(), cfg, func(p string) {
			if p == "compiled" {
				compiled = time.Now()
			}
		})
		took := time.Since(compiled)
		if e.Status != result.OK {
			t.Fatalf("ms=%d: %v %q", c.ms, e.Status, e.Message)
		}
		if !c.samples(len(e.Samples)) {
			t.Errorf("ms=%d: %d samples, want %s", c.ms, len(e.Samples), c.want)
		}
		// The runs stop where one more would end past 0.95 s; a run the machine slows
		// down may still end past the timeout (then the supervisor kills it), and a
		// loaded machine delays what follows the runs, but nowhere near the 3.3 s of
		// all 33 (the bound was 1.5 s: the spin reads the clock, so load stretches a run
		// only by the time it waits for a CPU).
		if took > s.Timeout*5/2 {
			t.Errorf("ms=%d: %v from the first launch to the end, far past the timeout of %v", c.ms, took, s.Timeout)
		}
		for _, v := range e.Samples {
			if v < float64(c.ms) {
				t.Errorf("ms=%d: a sample of %v ms", c.ms, v)
			}
		}
		if n := len(sw.runs); n == 0 || sw.runs[n-1] != len(e.Samples) {
			t.Errorf("ms=%d: the observers were told of runs %v, want %d last", c.ms, sw.runs, len(e.Samples))
		}
		noted := strings.Contains(e.Message, fmt.Sprintf("timed over %d of the spec's 32 iterations", len(e.Samples)))
		if noted != (len(e.Samples) < 32) {
			t.Errorf("ms=%d: %d samples, message %q", c.ms, len(e.Samples), e.Message)
		}
	}
}

// A short kernel runs twice more, untimed, between its warm-up and its timed runs: a fresh
// kernel's first runs are slow (on PoCL the second and third took 1.7-2x and 1.15-1.3x
// the time of later ones), and the first timed runs were those. Here a host-C kernel
// takes 2 ms in its first three calls and 0.1 ms after them.
func TestAShortKernelSettlesBeforeItsTimedRuns(t *testing.T) {
	dev := openHost(t)
	dir := t.TempDir()
	code := `#include <time.h>
static int calls;
void slowstart(float *x, int n) {
	long want = calls++ < 3 ? 2000000L : 100000L;
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do clock_gettime(CLOCK_MONOTONIC, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < want);
	x[0] = (float)n;
}`
	if err := os.WriteFile(filepath.Join(dir, "slowstart.c"), []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "slowstart.yaml")
	if err := os.WriteFile(path, []byte(`
kernel: {name: slowstart, source: slowstart.c}
parameters: [{name: p, values: [1]}]
problem_size: [1]
arguments:
  - {name: x, type: float32, length: 1, output: true}
  - {name: n, type: int32, value: 1}
iterations: 5
`), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := spec.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	r, sp := runnerFor(t, s, dev)
	e := r.Evaluate(context.Background(), sp.At(0, nil), nil)
	if e.Status != result.OK || len(e.Samples) != 5 {
		t.Fatalf("%v %q, %d samples", e.Status, e.Message, len(e.Samples))
	}
	// Unsettled, the first two timed runs are the kernel's second and third calls, 2 ms
	// each. A steady call takes 0.1 ms, unless the machine takes the core from it: one
	// may take longer (7.9 ms was seen), two in a row hardly. (The slow calls are short
	// of the 10 ms past which a kernel is not settled, so that a busy machine, which
	// stretched 5 ms calls past it, does not skip the settling runs.)
	if min(e.Samples[0], e.Samples[1]) >= 2 {
		t.Errorf("the first timed runs took %v and %v ms: the kernel's first calls (2 ms), not its steady ones (0.1 ms); samples %v", e.Samples[0], e.Samples[1], e.Samples)
	}
	// the untimed runs count as the kernel's time
	if e.BenchmarkMS < 3*2+5*0.1 {
		t.Errorf("the kernel ran %v ms in all, want at least 6.5 ms", e.BenchmarkMS)
	}
}
