package runner_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/runner"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/spec"
)

// TestAnOutputShorterThanTheKernelWritesIsARuntimeError: a spec whose output y is two
// elements shorter than the N the kernel writes was "verified" on the host C backend,
// the writes landing in the slack of y's mapping. Every configuration is a runtime error
// naming y, the reference's included (verification has nothing to compare with), and the
// configuration after them, with a spec that fits, is not blamed for what they left.
func TestAnOutputShorterThanTheKernelWritesIsARuntimeError(t *testing.T) {
	dev := openHost(t)
	for _, c := range []struct {
		name, length string
		want         result.Status
		says         string
	}{
		{"two elements short", "N - 2", result.RuntimeError,
			"the kernel wrote past the end of argument y (998 elements of float64): its length in the spec is too small or the kernel overruns it"},
		{"as long as written", "N", result.OK, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := spec.Parse([]byte(`
kernel: {name: axpy, language: c, code: "void axpy(double *y, const double *x, int n) { for (int i = 0; i < n; i++) y[i] = 2.0 * x[i] + (double)k; }"}
constants: {N: 1000}
parameters: [{name: k, values: [1, 2]}]
problem_size: [N]
arguments:
  - {name: y, type: float64, length: `+c.length+`, output: true}
  - {name: x, type: float64, length: N, fill: random}
  - {name: n, type: int32, value: N}
iterations: 3
`), "overrun_test.yaml")
			if err != nil {
				t.Fatal(err)
			}
			r, sp := runnerFor(t, s, dev)
			for _, k := range []int64{1, 2, 1} {
				cfg, err := sp.ConfigOf([]space.Value{space.IntValue(k)})
				if err != nil {
					t.Fatal(err)
				}
				e := r.Evaluate(context.Background(), cfg, nil)
				if e.Status != c.want || !strings.Contains(e.Message, c.says) {
					t.Fatalf("k=%d: %v %q, want %v saying %q", k, e.Status, e.Message, c.want, c.says)
				}
				r.Idle()
			}
		})
	}
}

// TestAnOpenCLKernelThatWritesPastAnArrayFailsNamingIt: a work-item per element of
// N + over, where y has N: with over 2 the kernel writes two floats past y's end, which
// PoCL let pass as "ok, verified" (the runtime checks nothing, and the writes land in its
// heap or another buffer). That configuration is a runtime error naming y; the
// configurations before and after it, which stay inside y, are not blamed.
func TestAnOpenCLKernelThatWritesPastAnArrayFailsNamingIt(t *testing.T) {
	testKernelThatWritesPastAnArray(t, "opencl", `
    __kernel void axpy(__global float *y, __global const float *x, const int n) {
        int i = get_global_id(0);
        if (i < n + over) y[i] = 2.0f * x[i % n] + 1.0f;
    }`)
}

// TestACUDAKernelThatWritesPastAnArrayFailsNamingIt is the same on a GPU, where a write
// just past an array lands in the rest of the driver's allocation granule without a
// fault. It runs where a GPU is lent (scripts/verify-cuda.sh) and skips elsewhere.
func TestACUDAKernelThatWritesPastAnArrayFailsNamingIt(t *testing.T) {
	testKernelThatWritesPastAnArray(t, "cuda", `
    extern "C" __global__ void axpy(float *y, const float *x, const int n) {
        int i = blockIdx.x * block_size_x + threadIdx.x;
        if (i < n + over) y[i] = 2.0f * x[i % n] + 1.0f;
    }`)
}

// testKernelThatWritesPastAnArray runs axpy, code in the backend's language, with over
// 0, 2 and 16000 work-items beyond y's N elements, each time after the last: those
// with over > 0 fail naming y, the others verify.
func testKernelThatWritesPastAnArray(t *testing.T, backend, code string) {
	testAxpyInTurn(t, backend, code, "over", `["N + over"]`,
		"the kernel wrote past the end of argument y (4096 elements of float32): its length in the spec is too small or the kernel overruns it",
		0, 2, 0, 16000, 0)
}

// testAxpyInTurn runs axpy(y, x, n), code in the backend's language, over y and x of N =
// 4096 float32s, with its parameter param taking values in turn (inTurn): those above 0
// fail saying says, the others verify.
func testAxpyInTurn(t *testing.T, backend, code, param, problemSize, says string, values ...int64) {
	dev := openBackend(t, backend)
	distinct := slices.Clone(values)
	slices.Sort(distinct)
	var list []string
	for _, v := range slices.Compact(distinct) {
		list = append(list, strconv.FormatInt(v, 10))
	}
	s, err := spec.Parse([]byte(`
kernel:
  name: axpy
  language: `+backend+`
  code: |`+code+`
constants: {N: 4096}
parameters:
  - {name: `+param+`, values: [`+strings.Join(list, ", ")+`]}
  - {name: block_size_x, values: [64]}
problem_size: `+problemSize+`
arguments:
  - {name: y, type: float32, length: N, output: true}
  - {name: x, type: float32, length: N, fill: random}
  - {name: n, type: int32, value: N}
verification:
  reference: {config: {`+param+`: 0, block_size_x: 64}}
iterations: 3
`), "overrun_test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r, sp := runnerFor(t, s, dev)
	inTurn(t, r, sp, []space.Value{space.IntValue(64)}, says, values...)
}

// TestKernelsWithoutABoundsCheckFailNamingTheOutput: the commonest overrun, a kernel that
// lacks its bounds check and runs past the end of every array alike, reading its inputs'
// canaries and writing what it computes of them into its output's. PoCL passed such
// kernels (y[i] = a[i] + b[i] over float32) as verified: the canary was a quiet NaN, and
// the sum of two quiet NaNs is the first of them, bits and all, so the output's canary
// came out as it was; a copy, y[i] = a[i], did the same. Each buffer's canary is now its
// own signalling NaN (device.Canary), which arithmetic turns quiet.
func TestKernelsWithoutABoundsCheckFailNamingTheOutput(t *testing.T) {
	kernels := map[string]string{
		"opencl": `
    __kernel void f(__global T *y, __global const T *a, __global const T *b, const int n) {
        int i = get_global_id(0);
        y[i] = EXPR;
    }`,
		"c": `
    void f(T *y, const T *a, const T *b, int n) {
        for (int i = 0; i < n + over; i++) y[i] = EXPR;
    }`,
	}
	for _, backend := range []string{"opencl", "c"} {
		for _, typ := range []struct{ spec, c string }{{"float32", "float"}, {"float64", "double"}} {
			for _, expr := range []string{"a[i] + b[i]", "a[i]", "2 * a[i]"} {
				t.Run(backend+"/"+typ.spec+"/"+expr, func(t *testing.T) {
					dev := openBackend(t, backend)
					code := strings.NewReplacer("T", typ.c, "EXPR", expr).Replace(kernels[backend])
					s, err := spec.Parse([]byte(`
kernel:
  name: f
  language: `+backend+`
  code: |`+code+`
constants: {N: 4096}
parameters:
  - {name: over, values: [0, 1, 2, 5]}
  - {name: block_size_x, values: [1]}
problem_size: ["N + over"]
arguments:
  - {name: y, type: `+typ.spec+`, length: N, output: true}
  - {name: a, type: `+typ.spec+`, length: N, fill: random}
  - {name: b, type: `+typ.spec+`, length: N, fill: random}
  - {name: n, type: int32, value: N}
verification:
  reference: {config: {over: 0, block_size_x: 1}}
iterations: 2
`), "bounds_test.yaml")
					if err != nil {
						t.Fatal(err)
					}
					r, sp := runnerFor(t, s, dev)
					says := "the kernel wrote past the end of argument y (4096 elements of " + typ.spec + ")"
					inTurn(t, r, sp, []space.Value{space.IntValue(1)}, says, 0, 1, 0, 2, 5, 0)
				})
			}
		}
	}
}

// TestAnOpenCLKernelThatWritesBeforeAnArrayFailsNamingIt: the first under work-items also
// write y[i - under], before y's start. On PoCL that went unseen by verification (there
// was a canary after the data only) and corrupted the runtime's heap: the worker died of
// glibc's "free(): invalid next size" or a SIGSEGV, a crash that named nothing. Such a
// configuration is a runtime error naming y, and the ones after it are not blamed.
func TestAnOpenCLKernelThatWritesBeforeAnArrayFailsNamingIt(t *testing.T) {
	testKernelThatWritesBeforeAnArray(t, "opencl", `
    __kernel void axpy(__global float *y, __global const float *x, const int n) {
        int i = get_global_id(0);
        if (i >= n) return;
        if (i < under) y[i - under] = 0.0f;
        y[i] = 2.0f * x[i] + 1.0f;
    }`)
}

// TestACUDAKernelThatWritesBeforeAnArrayFailsNamingIt is the same on a GPU. It runs
// where a GPU is lent (scripts/verify-cuda.sh) and skips elsewhere.
func TestACUDAKernelThatWritesBeforeAnArrayFailsNamingIt(t *testing.T) {
	testKernelThatWritesBeforeAnArray(t, "cuda", `
    extern "C" __global__ void axpy(float *y, const float *x, const int n) {
        int i = blockIdx.x * block_size_x + threadIdx.x;
        if (i >= n) return;
        if (i < under) y[i - under] = 0.0f;
        y[i] = 2.0f * x[i] + 1.0f;
    }`)
}

// testKernelThatWritesBeforeAnArray runs axpy, code in the backend's language, with
// under 0, 1 and 4096 elements written before y, each time after the last: those with
// under > 0 fail naming y, the others verify.
func testKernelThatWritesBeforeAnArray(t *testing.T, backend, code string) {
	testAxpyInTurn(t, backend, code, "under", "[N]",
		"the kernel wrote before the start of argument y (4096 elements of float32): the kernel indexes it below 0",
		0, 1, 0, 4096, 0)
}

// TestAKernelThatOverrunsInATimedRunFailsItselfNotTheNext: the canaries of OpenCL (and
// CUDA) arrays are read after a kernel's first launch, which is verified; a kernel that
// wrote past an array only in a later launch (here from its second, counted in an input)
// was reported ok, and the next configuration's first launch found the canary spoiled
// and failed in its place. The timed runs are checked once more after they end.
func TestAKernelThatOverrunsInATimedRunFailsItselfNotTheNext(t *testing.T) {
	dev := openBackend(t, "opencl")
	s, err := spec.Parse([]byte(`
kernel:
  name: f
  language: opencl
  code: |
    __kernel void f(__global float *y, __global const float *x, __global int *runs, const int n) {
        int i = get_global_id(0);
        if (i < n) y[i] = 2.0f * x[i];
        if (i == 0 && late && atomic_inc(runs) >= 1) y[n + 1] = 7.0f;
    }
constants: {N: 1024}
parameters:
  - {name: late, values: [0, 1]}
  - {name: block_size_x, values: [64]}
problem_size: [N]
arguments:
  - {name: y, type: float32, length: N, output: true}
  - {name: x, type: float32, length: N, fill: random}
  - {name: runs, type: int32, length: 1, scratch: true}   # a counter the kernel writes
  - {name: n, type: int32, value: N}
verification:
  reference: {config: {late: 0, block_size_x: 64}}
iterations: 3
`), "late_overrun_test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r, sp := runnerFor(t, s, dev)
	const says = "the kernel wrote past the end of argument y (1024 elements of float32)"
	inTurn(t, r, sp, []space.Value{space.IntValue(64)}, says+": its length in the spec is too small or the kernel overruns it (in a timed run, not the first)", 0, 1, 0, 1, 0)
}

// inTurn evaluates the configurations whose first parameter takes each of values in turn,
// the others being rest, and fails t unless a configuration with a positive value is a
// runtime error whose message says says and one with 0 is ok: the faulty ones fail
// themselves, naming the array, and the one after a faulty one is not blamed for it.
func inTurn(t *testing.T, r *runner.Runner, sp *space.Space, rest []space.Value, says string, values ...int64) {
	t.Helper()
	for _, v := range values {
		cfg, err := sp.ConfigOf(append([]space.Value{space.IntValue(v)}, rest...))
		if err != nil {
			t.Fatal(err)
		}
		e := r.Evaluate(context.Background(), cfg, nil)
		want := result.OK
		if v > 0 {
			want = result.RuntimeError
		}
		if e.Status != want || (want == result.RuntimeError) != strings.Contains(e.Message, says) {
			t.Fatalf("%s=%d: %v %q, want %v", sp.Params()[0].Name, v, e.Status, e.Message, want)
		}
		r.Idle()
	}
}
