package runner_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/ktune/ktune/device"
	_ "github.com/ktune/ktune/device/all"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/spec"
)

// The kernel doubles its output in place, unless skip is 1: then it writes nothing. Every
// launch changes the output, so an evaluation verifies correctly only if its output
// buffer held the initial contents before its first launch, whatever the evaluations
// before it (1 + 3 launches each) left there.
var resetKernels = map[string]string{
	"c": `void twice(float *x, int n) { if (skip) return; for (int i = 0; i < n; i++) x[i] = 2.0f * x[i] + 1.0f; }`,
	"opencl": `__kernel void twice(__global float *x, const int n) {
    int i = get_global_id(0);
    if (!skip && i < n) x[i] = 2.0f * x[i] + 1.0f;
}`,
	"cuda": `extern "C" __global__ void twice(float *x, const int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (!skip && i < n) x[i] = 2.0f * x[i] + 1.0f;
}`,
}

// TestOutputsStartFromTheirInitialContentsEveryEvaluation runs on every backend present:
// where the device copies between its buffers (OpenCL, CUDA), outputs are reset by that
// copy from a pristine one on the device, elsewhere written again from the host.
func TestOutputsStartFromTheirInitialContentsEveryEvaluation(t *testing.T) {
	for _, backend := range []struct{ name, lang string }{{"c", "c"}, {"opencl", "opencl"}, {"cuda", "cuda"}} {
		t.Run(backend.name, func(t *testing.T) {
			dev := openBackend(t, backend.name)
			s, err := spec.Parse([]byte(`
kernel: {name: twice, language: `+backend.lang+`, code: "`+escape(resetKernels[backend.lang])+`"}
constants: {N: 1000003}
parameters:
  - {name: skip, values: [0, 1]}
  - {name: block_size_x, values: [64, 128]}
problem_size: [N]
arguments:
  - {name: x, type: float32, length: N, fill: random, output: true}
  - {name: n, type: int32, value: N}
verification:
  reference: {config: {skip: 0, block_size_x: 64}}
iterations: 3
`), "reset_test.yaml")
			if err != nil {
				t.Fatal(err)
			}
			r, sp := runnerFor(t, s, dev)
			cfg := func(skip, block int) space.Config {
				c, err := sp.ConfigOf([]space.Value{space.IntValue(int64(skip)), space.IntValue(int64(block))})
				if err != nil {
					t.Fatal(err)
				}
				return c
			}
			// Compiling first (on a CPU OpenCL device it launches one work-group, which
			// doubles part of the output without a pristine copy to reset it from), then
			// twice the same configuration, another, then one that writes nothing after
			// a correct one (its buffer must not still hold that one's answer), then a
			// correct one again.
			if err := r.Compile(context.Background(), cfg(0, 64), nil); err != nil {
				t.Fatal(err)
			}
			for i, want := range []struct {
				skip, block int
				status      result.Status
			}{{0, 64, result.OK}, {0, 64, result.OK}, {0, 128, result.OK}, {1, 64, result.WrongAnswer}, {0, 128, result.OK}} {
				e := r.Evaluate(context.Background(), cfg(want.skip, want.block), nil)
				if e.Status != want.status {
					t.Fatalf("evaluation %d (skip=%d, block_size_x=%d): %v %s, want %v", i, want.skip, want.block, e.Status, e.Message, want.status)
				}
			}
		})
	}
}

// The kernel changes its input x in place and copies the result to its output y: y is
// right only if x held its initial contents before the evaluation's first launch.
var inPlaceKernels = map[string]string{
	"c": `void inplace(float *y, float *x, int n) { for (int i = 0; i < n; i++) { x[i] = 2.0f * x[i] + 1.0f; y[i] = x[i]; } }`,
	"opencl": `__kernel void inplace(__global float *y, __global float *x, const int n) {
    int i = get_global_id(0);
    if (i < n) { x[i] = 2.0f * x[i] + 1.0f; y[i] = x[i]; }
}`,
	"cuda": `extern "C" __global__ void inplace(float *y, float *x, const int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { x[i] = 2.0f * x[i] + 1.0f; y[i] = x[i]; }
}`,
}

// TestInputsStartFromTheirInitialContentsEveryEvaluation: an array the kernel changes in
// place that is no output (scratch: true, else verification fails it for changing an
// input) holds its initial data at every evaluation's verified launch, so every
// configuration verifies whatever ran before it (1 + 3 launches each, and on a CPU OpenCL
// device the pre-compiler's one-work-group launch), whether the buffers are reset between
// requests (Idle) or by the evaluation itself. It used to be reset only at
// its first use: every configuration after the first got a wrong answer.
func TestInputsStartFromTheirInitialContentsEveryEvaluation(t *testing.T) {
	for _, backend := range []struct{ name, lang string }{{"c", "c"}, {"opencl", "opencl"}, {"cuda", "cuda"}} {
		t.Run(backend.name, func(t *testing.T) {
			dev := openBackend(t, backend.name)
			s, err := spec.Parse([]byte(`
kernel: {name: inplace, language: `+backend.lang+`, code: "`+escape(inPlaceKernels[backend.lang])+`"}
constants: {N: 100003}
parameters:
  - {name: block_size_x, values: [32, 64, 128]}
problem_size: [N]
arguments:
  - {name: y, type: float32, length: N, output: true}
  - {name: x, type: float32, length: N, fill: random, scratch: true}
  - {name: n, type: int32, value: N}
verification:
  reference: {config: {block_size_x: 64}}
  atol: 0
  rtol: 0
iterations: 3
`), "inplace_test.yaml")
			if err != nil {
				t.Fatal(err)
			}
			r, sp := runnerFor(t, s, dev)
			cfg := func(block int) space.Config {
				c, err := sp.ConfigOf([]space.Value{space.IntValue(int64(block))})
				if err != nil {
					t.Fatal(err)
				}
				return c
			}
			if err := r.Compile(context.Background(), cfg(32), nil); err != nil {
				t.Fatal(err)
			}
			// The worker resets buffers between requests (Idle); without it (the first
			// evaluations) Evaluate resets them itself.
			for i, block := range []int{32, 128, 32, 64, 128, 32} {
				if e := r.Evaluate(context.Background(), cfg(block), nil); e.Status != result.OK {
					t.Fatalf("evaluation %d (block_size_x=%d): %v %s, want ok", i, block, e.Status, e.Message)
				}
				if i >= 2 {
					r.Idle()
				}
			}
		})
	}
}

// openBackend opens device 0 of a backend, locking the test's goroutine to its OS thread;
// it skips the test when the backend has no device here.
func openBackend(t testing.TB, name string) device.Device {
	t.Helper()
	runtime.LockOSThread()
	b, ok := device.Lookup(name)
	if !ok {
		t.Skipf("backend %s is not registered", name)
	}
	if devs, err := b.Devices(); err != nil || len(devs) == 0 {
		t.Skipf("backend %s has no device here: %v", name, err)
	}
	d, err := b.Open(context.Background(), 0)
	if err != nil {
		t.Skipf("opening backend %s: %v", name, err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func escape(code string) string {
	out := []byte{}
	for _, c := range []byte(code) {
		switch c {
		case '\n':
			out = append(out, '\\', 'n')
		case '"', '\\':
			out = append(out, '\\', c)
		default:
			out = append(out, c)
		}
	}
	return string(out)
}
