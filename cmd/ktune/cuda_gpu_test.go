package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ktune/ktune/internal/float16"
	"github.com/ktune/ktune/spec"
)

// The tests below tune CUDA specs through the command on a real NVIDIA GPU, end to end:
// worker processes, NVRTC, the driver, verification on the host. They skip where the CUDA
// backend is unavailable (scripts/verify-cuda.sh runs them where a GPU is lent); the same
// paths run on the stand-in driver in cuda_fake_test.go and cuda_launches_fake_test.go.

// tuneOnGPU writes files into a directory, runs `ktune tune` on specFile among them with
// bruteforce, no pre-compilers and args, checks its exit status (1: no configuration
// verified; -1: either), and returns what it printed and the database. Compiled modules
// go to a cache of the test's own (shared by its runs).
func tuneOnGPU(t *testing.T, files map[string]string, specFile string, wantExit int, args ...string) (out, errOut, db string) {
	t.Helper()
	needBackend(t, "cuda")
	if os.Getenv("KTUNE_CUDA_CACHE") == "" {
		t.Setenv("KTUNE_CUDA_CACHE", t.TempDir())
	}
	dir := t.TempDir()
	writeFiles(t, dir, files)
	db = filepath.Join(dir, "ktune.db")
	all := append([]string{"tune", filepath.Join(dir, specFile), "--strategy", "bruteforce", "--precompilers", "0", "--db", db}, args...)
	out, errOut, code := ktune(t, all...)
	if wantExit >= 0 && code != wantExit {
		t.Fatalf("ktune tune: exit %d, want %d\n%s\n%s", code, wantExit, out, errOut)
	}
	return out, errOut, db
}

// stepsCU has three functions of one source, built into one module per configuration:
// twice (a = 2a + 1), relax (SPL steps of v = v/2 + i%7 from src into dst) and total (the
// sum of b by one block, through dynamic shared memory of a float per thread).
const stepsCU = `extern "C" __global__ void twice(float *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = 2.0f * a[i] + 1.0f;
}

extern "C" __global__ void relax(float *dst, const float *src, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = src[i];
    for (int s = 0; s < SPL; s++) v = 0.5f * v + (float)(i % 7);
    dst[i] = v;
}

extern "C" __global__ void total(const float *b, float *sum, int n) {
    extern __shared__ float s[];
    float acc = 0.0f;
    for (int i = threadIdx.x; i < n; i += blockDim.x) acc += b[i];
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int h = blockDim.x / 2; h > 0; h /= 2) {
        if (threadIdx.x < h) s[threadIdx.x] += s[threadIdx.x + h];
        __syncthreads();
    }
    if (threadIdx.x == 0) sum[0] = s[0];
}
`

// stepsReference is the launches' work in plain C, run once on the host.
const stepsReference = `void steps_reference(const float *a, float *b, float *sum, int n, int steps) {
    double total = 0;
    for (int i = 0; i < n; i++) {
        float v = 2.0f * a[i] + 1.0f;
        for (int s = 0; s < steps; s++) v = 0.5f * v + (float)(i % 7);
        b[i] = v;
        total += v;
    }
    sum[0] = (float)total;
}
`

// stepsSpec launches twice, then relax STEPS / SPL times with a and b swapped between the
// repetitions (6, 3 and 2 launches: odd and even numbers of swaps), then total on one
// block of 128 threads with its own 512 bytes of shared memory, which the spec's launch
// (none) would not give it.
const stepsSpec = `kernel:
  language: cuda
  source: steps.cu
constants: {N: 5000, STEPS: 6}
parameters:
  - {name: block_size_x, values: [64, 256]}
  - {name: SPL, values: [1, 2, 3]}
restrictions: ["STEPS % SPL == 0"]
problem_size: [N]
launches:
  - {kernel: twice, arguments: [a, n]}
  - {kernel: relax, arguments: [b, a, n], repeat: STEPS // SPL, swap: [a, b]}
  - {kernel: total, grid: [1], block: [128], shared_memory_bytes: 128 * 4, arguments: [b, sum, n]}
arguments:
  - {name: a, type: float32, length: N, fill: {range: {start: 0, step: 0.25}}}
  - {name: b, type: float32, length: N, output: true}
  - {name: sum, type: float32, length: 1, output: true}
  - {name: n, type: int32, value: N}
  - {name: steps, type: int32, value: STEPS}   # the reference's alone
verification:
  reference:
    kernel: {name: steps_reference, source: steps_reference.c}
  # b is exact (halving is, and one rounding per step on both sides); the sum is added
  # in another order than the reference's double
  outputs: [b, {name: sum, atol: 0, rtol: 1e-5}]
iterations: 3
`

// TestTuneCUDALaunchesWithRepeatAndSwapOnTheGPU tunes stepsSpec: every configuration's
// sequence (three functions of one source, one repeated with ping-pong swaps, one with
// its own shared memory) must match the C reference, and is timed. The same spec without
// the swap reads a's first data at every repetition: every configuration must then fail
// verification, which shows that the check bites.
func TestTuneCUDALaunchesWithRepeatAndSwapOnTheGPU(t *testing.T) {
	needBackend(t, "c") // the reference
	files := map[string]string{"steps.cu": stepsCU, "steps_reference.c": stepsReference, "steps.yaml": stepsSpec}
	out, errOut, _ := tuneOnGPU(t, files, "steps.yaml", 0, "--json")
	var rep tuneReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if rep.Backend != "cuda" || rep.Evaluations != 6 || rep.Statuses["ok"] != 6 || rep.Stop != "space exhausted" {
		t.Fatalf("backend %q, %d evaluations, statuses %v, stop %q; want 6 ok on CUDA\n%s\n%s", rep.Backend, rep.Evaluations, rep.Statuses, rep.Stop, out, errOut)
	}
	if rep.BestObjective == nil || *rep.BestObjective <= 0 || *rep.BestObjective > 100 {
		t.Fatalf("best time %v ms, want a positive time of the sequence", rep.BestObjective)
	}
	t.Logf("best sequence %.4f ms at %v", *rep.BestObjective, rep.Best)

	files["steps.yaml"] = strings.Replace(stepsSpec, ", swap: [a, b]}", "}", 1)
	out, errOut, _ = tuneOnGPU(t, files, "steps.yaml", 1, "--json")
	rep = tuneReport{}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if rep.Evaluations != 6 || rep.Statuses["wrong_answer"] != 6 {
		t.Fatalf("without the swap: %d evaluations, statuses %v; want 6 wrong_answer\n%s", rep.Evaluations, rep.Statuses, errOut)
	}
}

// scaleCU is x = x*a + coef[0], with one element off by 1 where BUG is 1.
const scaleCU = `__constant__ float coef[4];

extern "C" __global__ void scale(float *x, int n, float a) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * a + coef[0] + (BUG && i == 5 ? 1.0f : 0.0f);
}
`

// loggingCheck is a spec's verification.function entry (indented under verification):
// a C function check that appends a line to the file calls at each call, with the count,
// the tolerance and the kernel's x[1], and passes where x is the reference's and
// x[i] = 3i + 0.5 (the scale kernel's x = x*3 + 0.5 on x[i] = i).
func loggingCheck(calls string) string {
	return `  function:
    name: check
    compiler_options: ['-DCALLS="` + calls + `"']
    code: |
      #include <stdio.h>
      int check(const float *want, const float *got, long n, double tolerance, char *message, long size) {
          FILE *f = fopen(CALLS, "a");
          fprintf(f, "n=%ld tolerance=%g x[1]=%g\n", n, tolerance, got[1]);
          fclose(f);
          for (long i = 0; i < n; i++)
              if (got[i] != want[i] || got[i] != 3.0f * (float)i + 0.5f) { snprintf(message, size, "x[%ld] is %g", i, got[i]); return 1; }
          return 0;
      }
`
}

// TestTuneCUDAVerifiedByACFunctionOnTheGPU checks a CUDA kernel's output with a C
// verification function, which ktune builds on the host and calls once per
// configuration with the reference's elements and the kernel's, their count and the
// tolerance. It logs each call to a file and checks x against its own formula as well as
// the reference: the configurations with BUG 0 pass, those with BUG 1 fail with its
// message.
func TestTuneCUDAVerifiedByACFunctionOnTheGPU(t *testing.T) {
	needBackend(t, "c") // the verification function
	calls := filepath.Join(t.TempDir(), "calls.txt")
	specText := `kernel: {name: scale, language: cuda, source: scale.cu}
constants: {N: 832}
parameters:
  - {name: block_size_x, values: [32, 128]}
  - {name: BUG, values: [0, 1]}
problem_size: [N]
arguments:
  - {name: x, type: float32, length: N, fill: {range: {start: 0, step: 1}}, output: true}
  - {name: n, type: int32, value: N}
  - {name: coef, kind: constant, type: float32, length: 4, fill: {range: {start: 0.5, step: 1}}}
  - {name: a, type: float32, value: 3}
verification:
  reference: {config: {block_size_x: 128, BUG: 0}}
  tolerance: 0.25
` + loggingCheck(calls) + `iterations: 3
`
	out, errOut, db := tuneOnGPU(t, map[string]string{"scale.cu": scaleCU, "scale.yaml": specText}, "scale.yaml", 0, "--json")
	var rep tuneReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if rep.Backend != "cuda" || rep.Evaluations != 4 || rep.Statuses["ok"] != 2 || rep.Statuses["wrong_answer"] != 2 {
		t.Fatalf("backend %q, %d evaluations, statuses %v; want 2 ok and 2 wrong_answer on CUDA\n%s", rep.Backend, rep.Evaluations, rep.Statuses, errOut)
	}
	for key, e := range evaluationsOf(t, db) {
		bug := strings.HasSuffix(key, ",1")
		if bug != (e.Status.String() == "wrong_answer") || bug != strings.Contains(e.Message, "the verification function check") ||
			bug != strings.Contains(e.Message, "x[5] is 16.5") {
			t.Errorf("configuration %s: %v %q; want BUG 1 alone failed by the function's message x[5] is 16.5", key, e.Status, e.Message)
		}
	}
	log, err := os.ReadFile(calls)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Repeat("n=832 tolerance=0.25 x[1]=3.5\n", 4); string(log) != want {
		t.Errorf("the function's calls:\n%s\nwant one per configuration:\n%s", log, want)
	}
}

// warnedCU warns where variant is 1: a #warning directive and an unused variable (NVRTC
// reports the latter as "#177-D: variable ... was declared but never referenced").
const warnedCU = `extern "C" __global__ void scale(float *out, const float *in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
#if variant == 1
#warning ktune_gpu_warning
    int unused_here;
#endif
    if (i < n) out[i] = in[i] * 2.0f;
}
`

// TestTuneCUDAShowsNVRTCWarningsOnceOnTheGPU: what NVRTC warns of in the builds of the two
// configurations with variant 1 is in --json's compiler_warnings once per distinct
// warning, each from those 2 configurations, and stored with their evaluations alone; a
// second run, whose modules come from the module cache, still shows them in its summary.
func TestTuneCUDAShowsNVRTCWarningsOnceOnTheGPU(t *testing.T) {
	specText := `kernel: {name: scale, language: cuda, source: warned.cu}
constants: {N: 4096}
parameters:
  - {name: block_size_x, values: [32, 64]}
  - {name: variant, values: [0, 1]}
problem_size: [N]
arguments:
  - {name: out, type: float32, length: N, output: true}
  - {name: in, type: float32, length: N, fill: random}
  - {name: n, type: int32, value: N}
verification:
  reference: {config: {block_size_x: 32, variant: 0}}
iterations: 3
`
	files := map[string]string{"warned.cu": warnedCU, "warned.yaml": specText}
	t.Setenv("KTUNE_CUDA_CACHE", t.TempDir())
	out, errOut, db := tuneOnGPU(t, files, "warned.yaml", 0, "--json")
	var doc struct {
		Warnings []struct {
			Warning        string         `json:"warning"`
			Configurations int            `json:"configurations"`
			First          map[string]any `json:"first_configuration"`
		} `json:"compiler_warnings"`
		Warned int            `json:"warned_configurations"`
		Status map[string]int `json:"statuses"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if doc.Status["ok"] != 4 || doc.Warned != 2 || len(doc.Warnings) == 0 {
		t.Fatalf("statuses %v, %d warned configurations, warnings %+v; want 4 ok, 2 warned (variant 1), NVRTC's warnings shown\n%s\n%s", doc.Status, doc.Warned, doc.Warnings, out, errOut)
	}
	shown := map[string]int{}
	for _, w := range doc.Warnings {
		t.Logf("NVRTC warned, in %d configurations: %s", w.Configurations, w.Warning)
		if w.Configurations != 2 || w.First["variant"] != 1.0 || !strings.Contains(w.Warning, "warned.cu") {
			t.Errorf("warning %+v; want one of warned.cu from the 2 configurations of variant 1", w)
		}
		for _, name := range []string{"ktune_gpu_warning", "unused_here"} {
			if strings.Contains(w.Warning, name) {
				shown[name]++
			}
		}
	}
	if len(shown) == 0 || shown["ktune_gpu_warning"] > 1 || shown["unused_here"] > 1 {
		t.Errorf("the #warning and the unused variable are in %v warnings; want at least one shown, each at most once", shown)
	}
	for key, e := range evaluationsOf(t, db) {
		if warned := strings.HasSuffix(key, ",1"); warned == (e.Warnings == "") {
			t.Errorf("configuration %s stored warnings %q", key, e.Warnings)
		}
	}

	// A new run builds from the module cache, which keeps NVRTC's log with each module.
	out, errOut, _ = tuneOnGPU(t, files, "warned.yaml", 0, "--new")
	if !strings.Contains(out, "in the builds of 2 configurations of 4") {
		t.Errorf("the second run's summary does not show the cached builds' warnings:\n%s\n%s", out, errOut)
	}
}

// halfCU is y = x * a + b on __half arrays and a __half scalar, through cuda_fp16.h.
const halfCU = `#include <cuda_fp16.h>

extern "C" __global__ void axpb_half(__half *y, const __half *x, __half a, float b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = __hadd(__hmul(x[i], a), __float2half(b));
}
`

// TestTuneCUDAHalfArraysOnTheGPU tunes a kernel on the spec's float16 arrays and scalar
// (__half *, __half) against expected halves in a <f2 .npy file, compared exactly: the
// inputs are multiples of 1/8 whose results halves hold exactly. Where NVRTC cannot
// include cuda_fp16.h every configuration is a compile error, which
// TestHalfArraysThroughCUDAFP16 in device/cuda explains.
func TestTuneCUDAHalfArraysOnTheGPU(t *testing.T) {
	const n = 4096
	var x, y []byte
	for i := range n {
		xi := float16.FromFloat64(float64(i%200-100) / 8)
		x = binary.LittleEndian.AppendUint16(x, xi)
		y = binary.LittleEndian.AppendUint16(y, float16.FromFloat64(float16.Float64(xi)*3+0.5))
	}
	npy := func(data []byte) string {
		var b bytes.Buffer
		if err := spec.WriteNPY(&b, &spec.Array{Type: "float16", Shape: []int{n}, Data: data}); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	files := map[string]string{"half.cu": halfCU, "x.npy": npy(x), "y.npy": npy(y), "half.yaml": `kernel: {name: axpb_half, language: cuda, source: half.cu}
constants: {N: 4096}
parameters:
  - {name: block_size_x, values: [64, 128]}
problem_size: [N]
arguments:
  - {name: y, type: float16, length: N, output: true}
  - {name: x, type: float16, length: N, fill: {npy: x.npy}}
  - {name: a, type: float16, value: 3}
  - {name: b, type: float32, value: 0.5}
  - {name: n, type: int32, value: N}
verification:
  reference: {npy: {y: y.npy}}
  atol: 0
  rtol: 0
iterations: 3
`}
	out, errOut, _ := tuneOnGPU(t, files, "half.yaml", -1, "--json")
	var rep tuneReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v:\n%s\n%s", err, out, errOut)
	}
	if rep.Backend != "cuda" || rep.Evaluations != 2 || rep.Statuses["ok"] != 2 {
		t.Fatalf("backend %q, %d evaluations, statuses %v; want 2 ok on CUDA (compile errors: can NVRTC include cuda_fp16.h? see TestHalfArraysThroughCUDAFP16)\n%s\n%s",
			rep.Backend, rep.Evaluations, rep.Statuses, out, errOut)
	}
}
