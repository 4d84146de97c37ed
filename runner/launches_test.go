package runner_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/spec"
)

// pingPongCL adds STEPS to every element, SPL in each of STEPS // SPL launches, a and b
// swapped in between, then doubles the result into c; the reference computes both at
// once. Every configuration has the same result, whatever the parity of its launches.
const pingPongCL = `
kernel:
  language: opencl
  code: &code |
    __kernel void add_one(__global const float *a, __global float *b, const int n) {
        const int i = get_global_id(0);
        if (i < n) b[i] = a[i] + (float)SPL;
    }
    __kernel void twice(__global const float *b, __global float *c, const int n) {
        const int i = get_global_id(0);
        if (i < n) c[i] = 2.0f * b[i];
    }
    __kernel void reference(__global const float *a, __global float *b, __global float *c, const int n, const int r) {
        const int i = get_global_id(0);
        if (i < n) { b[i] = a[i] + (float)r; c[i] = 2.0f * b[i]; }
    }
constants: {N: 1000, STEPS: 12}
parameters:
  - {name: BS, values: [32, 64]}
  - {name: SPL, values: [1, 2, 3, 4, 6]}
launches:
  - kernel: add_one
    grid: ["(N + BS - 1) // BS"]
    block: [BS]
    arguments: [a, b, n]
    repeat: STEPS // SPL
    swap: [a, b]
  - {kernel: twice, grid: ["(N + 63) // 64"], block: [64], arguments: [b, c, n]}
arguments:
  - {name: a, type: float32, length: N, fill: {random: {low: -1, high: 1}}}
  - {name: b, type: float32, length: N, output: true}
  - {name: c, type: float32, length: N, output: true}
  - {name: n, type: int32, value: N}
  - {name: r, type: int32, value: STEPS}
verification:
  reference:
    kernel: {name: reference, code: *code, grid: ["(N + 63) // 64"], block: [64], arguments: [a, b, c, n, r]}
iterations: 3
`

func parseLaunches(t *testing.T, src string) *spec.Spec {
	t.Helper()
	s, err := spec.Parse([]byte(src), "launches_test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func values(v ...int64) []space.Value {
	out := make([]space.Value, len(v))
	for i, x := range v {
		out[i] = space.IntValue(x)
	}
	return out
}

// Every repeat count verifies, odd (4 and 3 launches) and even: b names the buffer the
// last launch wrote, and the second launch reads it. Each configuration's sequence writes a, its input,
// and the next still starts from a's data.
func TestASequenceOfLaunchesWithSwapsComputesItsResultOnOpenCL(t *testing.T) {
	dev := openBackend(t, "opencl")
	r, sp := runnerFor(t, parseLaunches(t, pingPongCL), dev)
	wantVerified(t, r, sp, values(32, 1), values(64, 2), values(32, 3), values(64, 4), values(32, 6), values(32, 3))
}

// Without the swap every launch computes a + SPL again: a wrong answer wherever it
// launches more than once.
func TestASequenceWithoutItsSwapIsAWrongAnswer(t *testing.T) {
	dev := openBackend(t, "opencl")
	src := strings.Replace(pingPongCL, "    swap: [a, b]\n", "", 1)
	r, sp := runnerFor(t, parseLaunches(t, src), dev)
	for _, v := range [][]space.Value{values(32, 1), values(64, 3), values(64, 4)} {
		c, err := sp.ConfigOf(v)
		if err != nil {
			t.Fatal(err)
		}
		if e := r.Evaluate(context.Background(), c, nil); e.Status != result.WrongAnswer {
			t.Errorf("%s: %v %q, want wrong_answer", sp.Format(c), e.Status, e.Message)
		}
	}
}

// A launch whose block the device cannot run makes the configuration a device_limit
// that names the launch, before anything is compiled.
func TestALaunchOverADeviceLimitNamesTheLaunch(t *testing.T) {
	dev := openBackend(t, "opencl")
	src := strings.Replace(pingPongCL, "{name: BS, values: [32, 64]}", "{name: BS, values: [32, 1048576]}", 1)
	r, sp := runnerFor(t, parseLaunches(t, src), dev)
	c, err := sp.ConfigOf(values(1048576, 1))
	if err != nil {
		t.Fatal(err)
	}
	e := r.Evaluate(context.Background(), c, nil)
	if e.Status != result.DeviceLimit || !strings.HasPrefix(e.Message, "launches[0] (add_one): block size 1048576") {
		t.Errorf("%v %q, want a device_limit naming launches[0] (add_one)", e.Status, e.Message)
	}
}

// A launch whose arguments do not fit its function's parameters is refused before
// tuning, at the launch's arguments.
func TestALaunchsArgumentsAreCheckedAgainstItsFunction(t *testing.T) {
	dev := openBackend(t, "opencl")
	src := strings.Replace(pingPongCL, "arguments: [b, c, n]}", "arguments: [b, n, c]}", 1)
	r, _ := runnerFor(t, parseLaunches(t, src), dev)
	err := r.Check(context.Background())
	if err == nil || !strings.Contains(err.Error(), "launches[1].arguments[1]: n is int32 in the spec, but launches[1] (twice) takes __global float* c") {
		t.Errorf("Check: %v", err)
	}
}

// spinCL is a kernel of a known, fixed cost: one work-item's loop of SPINS steps.
const spinCL = `
kernel:
  language: opencl
  code: |
    __kernel void spin(__global float *x, const int spins) {
        float acc = x[0];
        for (int i = 0; i < spins; i++) acc = acc * 0.999999f + 1e-6f;
        x[0] = acc;
    }
constants: {SPINS: 300000}
parameters:
  - {name: K, values: [1, 4]}
launches:
  - {kernel: spin, grid: [1], block: [1], arguments: [x, spins], repeat: K}
arguments:
  - {name: x, type: float32, length: 1}
  - {name: spins, type: int32, value: SPINS}
iterations: 5
statistic: min
`

// One timed run is the whole sequence: four launches of a kernel take about four times
// as long as one. The two alternate over five rounds and each keeps its fastest time, so
// that other work on the machine slowing one round does not decide the ratio. A launch
// spins about 0.3 ms, so that four fit in a time slice of a loaded CPU: with 3 ms
// launches a run of one still fit in one while a run of four was always cut by other
// processes, and under a load of 20 on 2 cores the ratio came out 6.4, 14 and 20 times
// (3 failures of 4 runs).
func TestATimedRunCoversEveryLaunch(t *testing.T) {
	dev := openBackend(t, "opencl")
	r, sp := runnerFor(t, parseLaunches(t, spinCL), dev)
	times := map[int64]float64{}
	for range 5 {
		for _, k := range []int64{1, 4} {
			c, err := sp.ConfigOf(values(k))
			if err != nil {
				t.Fatal(err)
			}
			e := r.Evaluate(context.Background(), c, nil)
			if e.Status != result.OK {
				t.Fatalf("K=%d: %v %q", k, e.Status, e.Message)
			}
			if old, ok := times[k]; !ok || e.Objective < old {
				times[k] = e.Objective
			}
		}
	}
	ratio := times[4] / times[1]
	if ratio < 3 || ratio > 5.5 {
		t.Errorf("4 launches took %.3f ms, one %.3f ms: %.2f times, want about 4", times[4], times[1], ratio)
	}
	t.Logf("4 launches took %.3f ms, one %.3f ms: %.2f times", times[4], times[1], ratio)
}

// On the host C backend a sequence is function calls, one after the other.
func TestASequenceOfFunctionCallsOnHostC(t *testing.T) {
	dev := openHost(t)
	src := hostPingPong
	r, sp := runnerFor(t, parseLaunches(t, src), dev)
	wantVerified(t, r, sp, values(1), values(2), values(3), values(4))

	r, sp = runnerFor(t, parseLaunches(t, strings.Replace(src, ", swap: [a, b]", "", 1)), dev)
	c, _ := sp.ConfigOf(values(4))
	if e := r.Evaluate(context.Background(), c, nil); e.Status != result.WrongAnswer {
		t.Errorf("without the swap: %v %q, want wrong_answer", e.Status, e.Message)
	}
}

// hostPingPong is pingPongCL's sequence as host C function calls.
const hostPingPong = `
kernel:
  language: c
  code: &code |
    void add_one(const float *a, float *b, int n) { for (int i = 0; i < n; i++) b[i] = a[i] + (float)SPL; }
    void twice(const float *b, float *c, int n) { for (int i = 0; i < n; i++) c[i] = 2.0f * b[i]; }
    void reference(const float *a, float *b, float *c, int n, int r) {
        for (int i = 0; i < n; i++) { b[i] = a[i] + (float)r; c[i] = 2.0f * b[i]; }
    }
constants: {N: 1000, STEPS: 12}
parameters:
  - {name: SPL, values: [1, 2, 3, 4]}
launches:
  - {kernel: add_one, arguments: [a, b, n], repeat: STEPS // SPL, swap: [a, b]}
  - {kernel: twice, arguments: [b, c, n]}
arguments:
  - {name: a, type: float32, length: N, fill: {random: {low: -1, high: 1}}}
  - {name: b, type: float32, length: N, output: true}
  - {name: c, type: float32, length: N, output: true}
  - {name: n, type: int32, value: N}
  - {name: r, type: int32, value: STEPS}
verification:
  reference:
    kernel: {name: reference, code: *code, arguments: [a, b, c, n, r]}
iterations: 3
`
