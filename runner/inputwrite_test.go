package runner_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/spec"
)

// The kernel doubles a into out through tmp, element by element, and reads idx. WRITES
// says which input it also writes where it should only read: 1 adds 1 to a from element
// 7 on, 2 negates idx from element 7 on, after out is computed, so that out is right
// whatever it writes.
var inputWriteKernels = map[string]string{
	"c": `void twice(float *out, const float *a, float *tmp, int *idx, int n) {
    for (int i = 0; i < n; i++) {
        tmp[i] = a[i];
        out[i] = 2.0f * tmp[i] + (float)(idx[i] - i);
        if (WRITES == 1 && i >= 7) ((float *)a)[i] += 1.0f;
        if (WRITES == 2 && i >= 7) idx[i] = -idx[i];
    }
}`,
	"opencl": `__kernel void twice(__global float *out, __global float *a, __global float *tmp, __global int *idx, const int n) {
    int i = get_global_id(0);
    if (i >= n) return;
    tmp[i] = a[i];
    out[i] = 2.0f * tmp[i] + (float)(idx[i] - i);
    if (WRITES == 1 && i >= 7) a[i] += 1.0f;
    if (WRITES == 2 && i >= 7) idx[i] = -idx[i];
}`,
	"cuda": `extern "C" __global__ void twice(float *out, float *a, float *tmp, int *idx, const int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    tmp[i] = a[i];
    out[i] = 2.0f * tmp[i] + (float)(idx[i] - i);
    if (WRITES == 1 && i >= 7) a[i] += 1.0f;
    if (WRITES == 2 && i >= 7) idx[i] = -idx[i];
}`,
}

// inputWriteSpec is the spec of the kernel in lang, with tmp's declaration.
func inputWriteSpec(t *testing.T, lang, tmp string) *spec.Spec {
	t.Helper()
	s, err := spec.Parse([]byte(`
kernel: {name: twice, language: `+lang+`, code: "`+escape(inputWriteKernels[lang])+`"}
constants: {N: 1000}
parameters:
  - {name: WRITES, values: [0, 1, 2]}
  - {name: block_size_x, values: [64]}
problem_size: [N]
arguments:
  - {name: out, type: float32, length: N, output: true}
  - {name: a, type: float32, length: N, fill: {range: {start: 0, step: 0.5}}}
  - {name: tmp, type: float32, length: N`+tmp+`}
  - {name: idx, type: int32, length: N, fill: {range: {start: 0, step: 1}}}
  - {name: n, type: int32, value: N}
verification:
  reference: {config: {WRITES: 0, block_size_x: 64}}
iterations: 3
`), "inputwrite_test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A kernel that writes an input fails verification, named with the first element it
// changed and that element's values in the input's type, though its output is right; a
// scratch array it writes is not checked; a kernel that writes neither passes. It runs on
// every backend present (CUDA where a GPU is lent).
func TestAKernelThatWritesAnInputFailsVerification(t *testing.T) {
	for _, backend := range []string{"opencl", "c", "cuda"} {
		t.Run(backend, func(t *testing.T) {
			dev := openBackend(t, backend)
			r, sp := runnerFor(t, inputWriteSpec(t, backend, ", scratch: true"), dev)
			if err := r.Check(context.Background()); err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				writes int
				status result.Status
				want   []string // in the message
			}{
				{0, result.OK, nil},
				{1, result.WrongAnswer, []string{"input a was changed by the kernel: 993 of its 1000 elements differ from the data it was given; first at index 7: was 3.5, now 4.5",
					". Declare such an input output: true if the kernel is meant to write it", "or scratch: true"}},
				{2, result.WrongAnswer, []string{"input idx was changed by the kernel: 993 of its 1000 elements differ from the data it was given; first at index 7: was 7, now -7"}},
				{0, result.OK, nil}, // the inputs the last one changed are given afresh
			} {
				cfg, err := sp.ConfigOf([]space.Value{space.IntValue(int64(c.writes)), space.IntValue(64)})
				if err != nil {
					t.Fatal(err)
				}
				e := r.Evaluate(context.Background(), cfg, nil)
				if e.Status != c.status {
					t.Fatalf("WRITES=%d: %v %q, want %v", c.writes, e.Status, e.Message, c.status)
				}
				for _, w := range c.want {
					if !strings.Contains(e.Message, w) {
						t.Errorf("WRITES=%d: message %q lacks %q", c.writes, e.Message, w)
					}
				}
				if c.status == result.WrongAnswer && strings.Contains(e.Message, "output out") {
					t.Errorf("WRITES=%d: the output is right, but the message says %q", c.writes, e.Message)
				}
			}
		})
	}
}

// An array the kernel writes that is declared neither output nor scratch is an input it
// changed: the correct kernel fails for writing tmp.
func TestAnUndeclaredScratchArrayIsAnInputTheKernelChanged(t *testing.T) {
	dev := openBackend(t, "opencl")
	r, sp := runnerFor(t, inputWriteSpec(t, "opencl", ""), dev)
	cfg, err := sp.ConfigOf([]space.Value{space.IntValue(0), space.IntValue(64)})
	if err != nil {
		t.Fatal(err)
	}
	e := r.Evaluate(context.Background(), cfg, nil)
	// tmp starts as zeros and gets a: element 0 is 0 in both
	want := "input tmp was changed by the kernel: 999 of its 1000 elements differ from the data it was given; first at index 1: was 0, now 0.5"
	if e.Status != result.WrongAnswer || !strings.Contains(e.Message, want) {
		t.Fatalf("%v %q, want wrong_answer with %q", e.Status, e.Message, want)
	}
}

// In a sequence of launches, an input any launch writes is caught, and the two arrays of
// a swap, written in turn by the repetitions, are not inputs: a step that smooths a into
// b, twice with a and b swapped, then copies b into out; WRITES 1 has the copy write
// the input w, which only it takes.
func TestALaunchThatWritesAnInputFailsVerificationButSwappedArraysMay(t *testing.T) {
	dev := openBackend(t, "opencl")
	code := `__kernel void smooth(__global const float *a, __global float *b, const int n) {
    int i = get_global_id(0);
    if (i < n) b[i] = 0.5f * (a[i] + a[(i + 1) % n]);
}
__kernel void copy(__global float *out, __global const float *b, __global float *w, const int n) {
    int i = get_global_id(0);
    if (i >= n) return;
    out[i] = b[i] + w[i];
    if (WRITES == 1 && i == n - 1) w[i] = -1.0f;
}`
	s, err := spec.Parse([]byte(`
kernel: {language: opencl, code: "`+escape(code)+`"}
constants: {N: 1000}
parameters:
  - {name: WRITES, values: [0, 1]}
launches:
  - {kernel: smooth, grid: [N], block: [50], arguments: [a, b, n], repeat: 2, swap: [a, b]}
  - {kernel: copy, grid: [N], block: [50], arguments: [out, b, w, n]}
arguments:
  - {name: out, type: float32, length: N, output: true}
  - {name: a, type: float32, length: N, fill: {range: {start: 0, step: 1}}}
  - {name: b, type: float32, length: N}
  - {name: w, type: float32, length: N, fill: {constant: 2}}
  - {name: n, type: int32, value: N}
verification:
  reference: {config: {WRITES: 0}}
iterations: 2
`), "launches_inputwrite_test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r, sp := runnerFor(t, s, dev)
	for _, c := range []struct {
		writes int
		status result.Status
		want   string
	}{
		{0, result.OK, ""},
		{1, result.WrongAnswer, "input w was changed by the kernel: 1 of its 1000 elements differ from the data it was given; first at index 999: was 2, now -1"},
	} {
		cfg, err := sp.ConfigOf([]space.Value{space.IntValue(int64(c.writes))})
		if err != nil {
			t.Fatal(err)
		}
		e := r.Evaluate(context.Background(), cfg, nil)
		if e.Status != c.status || !strings.Contains(e.Message, c.want) {
			t.Errorf("WRITES=%d: %v %q, want %v with %q", c.writes, e.Status, e.Message, c.status, c.want)
		}
	}
}
