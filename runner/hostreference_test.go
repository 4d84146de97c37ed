package runner_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/spec"
)

// hostRefSpec is an OpenCL kernel, y = 3x + n where bad is 0 and wrong where bad is 1,
// checked by a reference given by ref (the verification.reference.kernel mapping's
// lines, indented by six spaces).
func hostRefSpec(t *testing.T, ref string) *spec.Spec {
	t.Helper()
	s, err := spec.Parse([]byte(`
kernel:
  name: axpb
  language: opencl
  code: |
    __kernel void axpb(__global float *y, __global const float *x, const int n, __local float *t) {
        int l = get_local_id(0), i = get_global_id(0);
        t[l] = i < n ? x[i] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (i < n) y[i] = 3.0f * t[l] + (float)n + (bad && i == n / 2 ? 1.0f : 0.0f);
    }
constants: {N: 1000}
parameters:
  - {name: block_size_x, values: [32, 64]}
  - {name: bad, values: [0, 1]}
problem_size: [N]
arguments:
  - {name: y, type: float32, length: N, output: true}
  - {name: x, type: float32, length: N, fill: random}
  - {name: n, type: int32, value: N}
  - {name: t, kind: local, type: float32, length: block_size_x}
verification:
  reference:
    kernel:
`+ref+`
iterations: 2
`), "hostref_test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !s.HostReference() {
		t.Fatal("the spec's reference does not run on the host")
	}
	return s
}

// TestACReferenceChecksAnOpenCLKernel: the reference is a plain C function, taking its
// arguments in its own order and leaving out the kernel's local memory; it runs once on
// the host, and the OpenCL configurations on PoCL are verified against its outputs: the
// right ones pass, the wrong one (bad=1) fails verification, as against any reference.
func TestACReferenceChecksAnOpenCLKernel(t *testing.T) {
	dev := openBackend(t, "opencl")
	s := hostRefSpec(t, `
      name: axpb_ref
      language: c
      arguments: [n, x, y]
      defines: {SCALE: 3}
      code: |
        void axpb_ref(int n, const float *x, float *y) {
            for (int i = 0; i < n; i++) y[i] = SCALE * x[i] + (float)n;
        }`)
	r, sp := runnerFor(t, s, dev)
	if err := r.Reference(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	wantVerified(t, r, sp, []space.Value{space.IntValue(32), space.IntValue(0)}, []space.Value{space.IntValue(64), space.IntValue(0)})
	cfg, err := sp.ConfigOf([]space.Value{space.IntValue(32), space.IntValue(1)})
	if err != nil {
		t.Fatal(err)
	}
	e := r.Evaluate(context.Background(), cfg, nil)
	if e.Status != result.WrongAnswer || !strings.Contains(e.Message, "first at index 500") {
		t.Errorf("the wrong kernel: %v %q, want wrong_answer first at index 500", e.Status, e.Message)
	}
}

// TestACXXReferenceWithOpenMPChecksAnOpenCLKernel: a C++ reference (a template's
// instance, std::vector) built with OpenMP, whose omp_get_max_threads would not load
// without it.
func TestACXXReferenceWithOpenMPChecksAnOpenCLKernel(t *testing.T) {
	dev := openBackend(t, "opencl")
	s := hostRefSpec(t, `
      name: axpb_ref<float>
      language: c++
      openmp: true
      arguments: [y, x, n]
      code: |
        #include <omp.h>
        #include <vector>
        template <typename T> void axpb_ref(T *y, const T *x, int n) {
            std::vector<T> v(x, x + n);
            int threads = omp_get_max_threads();
            #pragma omp parallel for
            for (int i = 0; i < n; i++) y[i] = T(3) * v[i] + T(n) + T(threads > 0 ? 0 : 1);
        }`)
	r, sp := runnerFor(t, s, dev)
	wantVerified(t, r, sp, []space.Value{space.IntValue(64), space.IntValue(0)})
}

// TestAHostReferenceThatDoesNotCompileIsNamed: the error names the reference, its file
// and what the compiler said, before anything is measured.
func TestAHostReferenceThatDoesNotCompileIsNamed(t *testing.T) {
	dev := openBackend(t, "opencl")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "reference.c"), []byte("void axpb_ref(int n, const float *x, float *y) {\n    y[0] = undeclared_thing;\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := hostRefSpec(t, `
      name: axpb_ref
      source: `+filepath.Join(dir, "reference.c")+`
      arguments: [n, x, y]`)
	if err := s.ReadFiles(); err != nil {
		t.Fatal(err)
	}
	r, _ := runnerFor(t, s, dev)
	err := r.Reference(context.Background(), nil)
	if err == nil {
		t.Fatal("a reference that does not compile was computed")
	}
	for _, want := range []string{"the C reference axpb_ref (reference.c) does not compile", "undeclared_thing"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

// TestACReferenceOfACUDAKernelTakesConstantMemoryAsAnArray: a CUDA kernel's
// constant-memory argument (copied to its __constant__ symbol) reaches a host reference
// as an array, in the spec's order or the reference's own. The reference checks it
// holds its fill (0, 1, 2...) and otherwise writes past the end of y, which the host
// C backend reports; the CUDA kernel itself is never built (no GPU here).
func TestACReferenceOfACUDAKernelTakesConstantMemoryAsAnArray(t *testing.T) {
	dev := openHost(t)
	for _, c := range []struct {
		name, args, params string
		want               string // what the reference expects f[3] to hold
		ok                 bool
	}{
		{"in the spec's order", "", "float *y, const float *f, int n", "3.0f", true},
		{"in its own order", "arguments: [n, f, y]", "int n, const float *f, float *y", "3.0f", true},
		{"a reference that expects other data", "", "float *y, const float *f, int n", "4.0f", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := spec.Parse([]byte(`
kernel: {name: k, language: cuda, code: "__constant__ float f[8]; __global__ void k(float *y, int n) {}"}
parameters: [{name: block_size_x, values: [32]}]
problem_size: [8]
arguments:
  - {name: y, type: float32, length: 8, output: true}
  - {name: f, kind: constant, type: float32, length: 8, fill: {range: {start: 0, step: 1}}}
  - {name: n, type: int32, value: 8}
verification:
  reference:
    kernel:
      name: ref
      language: c
      `+c.args+`
      code: "void ref(`+c.params+`) { for (int i = 0; i < n; i++) y[i] = f[i]; if (f[3] != `+c.want+`) y[n + 1] = 1; }"
`), "cuda_ref_test.yaml")
			if err != nil {
				t.Fatal(err)
			}
			r, _ := runnerFor(t, s, dev)
			err = r.Reference(context.Background(), nil)
			switch {
			case c.ok && err != nil:
				t.Fatal(err)
			case !c.ok && (err == nil || !strings.Contains(err.Error(), "past the end")):
				t.Fatalf("error %v, want a write past the end of y", err)
			}
		})
	}
}
