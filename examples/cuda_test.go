package examples_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/spec"
)

// The CUDA examples: each has the same space as its OpenCL counterpart. Without a GPU
// their kernels are still compiled, by clang's CUDA front end to PTX, for a sample of
// each space; on a GPU they are tuned configurations and verified like the OpenCL ones.

var cudaExamples = []struct {
	name, cuda, opencl string
}{
	{"vector_add", "vector_add/vector_add_cuda.yaml", "vector_add/vector_add_opencl.yaml"},
	{"vector_add_half", "vector_add/vector_add_half_cuda.yaml", "vector_add/vector_add_half.yaml"},
	{"gemm", "gemm/gemm_cuda.yaml", "gemm/gemm.yaml"},
	{"convolution", "convolution/convolution_cuda.yaml", "convolution/convolution.yaml"},
}

func TestCUDAExamplesHaveTheirOpenCLSpaces(t *testing.T) {
	for _, ex := range cudaExamples {
		s, sp := load(t, example(ex.cuda), 0)
		_, osp := load(t, example(ex.opencl), 0)
		if s.Kernel.Language != "cuda" {
			t.Errorf("%s: language %q", ex.cuda, s.Kernel.Language)
		}
		if sp.Len() != osp.Len() || sp.Product() != osp.Product() {
			t.Errorf("%s: %d of %v configurations, the OpenCL version %d of %v", ex.cuda, sp.Len(), sp.Product(), osp.Len(), osp.Product())
		}
	}
	s, _ := load(t, example("convolution/convolution_cuda.yaml"), 0)
	if a := s.Arguments[2]; a.Name != "filter" || a.Kind != spec.ArgConstant {
		t.Errorf("the convolution's filter is %+v, want a constant-memory argument", a)
	}
}

// cudaPrelude declares what clang's CUDA front end lacks without the CUDA headers
// (-nocudainc) and NVRTC provides built in.
const cudaPrelude = `#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#include "__clang_cuda_builtin_vars.h"
#define __syncthreads() __nvvm_bar_sync(0)
static __device__ __inline__ int min(int a, int b) { return a < b ? a : b; }
static __device__ __inline__ int max(int a, int b) { return a > b ? a : b; }
`

// clangCUDA returns a command that compiles CUDA device code to PTX, or skips the test
// when no clang with a CUDA front end is installed.
func clangCUDA(t *testing.T) func(src, out string, defines []string) error {
	t.Helper()
	clang, err := exec.LookPath("clang++")
	if err != nil {
		t.Skip("clang++ is not installed (apt-get install clang): the CUDA kernels are not compiled to PTX here (on a GPU the tests below compile them with NVRTC)")
	}
	dir := t.TempDir()
	prelude := filepath.Join(dir, "prelude.h")
	if err := os.WriteFile(prelude, []byte(cudaPrelude), 0o644); err != nil {
		t.Fatal(err)
	}
	compile := func(src, out string, defines []string) error {
		args := []string{"-std=c++17", "-O2", "-x", "cuda", "--cuda-gpu-arch=sm_70", "--cuda-device-only",
			"-nocudainc", "-nocudalib", "-S", "-o", out, "-include", prelude}
		args = append(append(args, defines...), src)
		if msg, err := exec.Command(clang, args...).CombinedOutput(); err != nil {
			return &clangError{err: err, log: string(msg)}
		}
		return nil
	}
	probe := filepath.Join(dir, "probe.cu")
	os.WriteFile(probe, []byte(`extern "C" __global__ void k(float *x) { x[threadIdx.x] = 1.0f; }`), 0o644)
	if err := compile(probe, filepath.Join(dir, "probe.ptx"), nil); err != nil {
		t.Skipf("clang++ cannot compile CUDA here: %v", err)
	}
	return compile
}

type clangError struct {
	err error
	log string
}

func (e *clangError) Error() string { return e.err.Error() + "\n" + e.log }

func TestCUDAKernelsCompileToPTX(t *testing.T) {
	compile := clangCUDA(t)
	for _, ex := range cudaExamples {
		t.Run(ex.name, func(t *testing.T) {
			s, sp := load(t, example(ex.cuda), 0)
			kernel := filepath.Join(filepath.Dir(example(ex.cuda)), filepath.Base(s.Kernel.Files[0]))
			code, err := os.ReadFile(kernel)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(code), "#include <cuda_") {
				t.Skipf("%s includes a CUDA toolkit header, which clang has not here (-nocudainc): NVRTC compiles it on a GPU (TestVectorAddHalfCUDA)", kernel)
			}
			var ref string
			if v := s.Verification; v != nil && v.Kernel != nil && v.Kernel.Language == "cuda" {
				ref = filepath.Join(filepath.Dir(example(ex.cuda)), filepath.Base(v.Kernel.Files[0]))
			}
			configs := sample(t, s, sp, 12, 7)
			for i, c := range configs {
				inst, err := s.Instance(sp.Values(c))
				if err != nil {
					t.Fatal(err)
				}
				var defines []string
				for _, d := range inst.Defines {
					defines = append(defines, "-D"+d.Name+"="+d.Value)
				}
				out := filepath.Join(t.TempDir(), "k.ptx")
				if err := compile(kernel, out, defines); err != nil {
					t.Fatalf("%s: %v", sp.Format(c), err)
				}
				ptx, err := os.ReadFile(out)
				if err != nil || !strings.Contains(string(ptx), ".entry "+s.Kernel.Name+"(") {
					t.Fatalf("%s: no entry %s in the PTX (%v)", sp.Format(c), s.Kernel.Name, err)
				}
				if ref != "" && i == 0 {
					if err := compile(ref, out, defines); err != nil {
						t.Fatalf("reference at %s: %v", sp.Format(c), err)
					}
				}
			}
		})
	}
}

// openCUDA opens CUDA device 0 (skipping without one) with compiled modules kept in a
// temporary cache.
func openCUDA(t *testing.T) {
	t.Helper()
	t.Setenv("KTUNE_CUDA_CACHE", t.TempDir())
}

func TestVectorAddCUDA(t *testing.T) {
	openCUDA(t)
	dev := openDevice(t, "cuda")
	s, sp := load(t, example("vector_add/vector_add_cuda.yaml"), 4)
	evaluate(t, s, sp, dev, all(sp))
}

// TestVectorAddHalfCUDA runs every configuration of the half-precision vector addition
// on __half arrays (cuda_fp16.h through NVRTC), each checked against the C reference on
// _Float16 that the host C backend runs.
func TestVectorAddHalfCUDA(t *testing.T) {
	openCUDA(t)
	dev := openDevice(t, "cuda")
	s, sp := load(t, example("vector_add/vector_add_half_cuda.yaml"), 4)
	evaluate(t, s, sp, dev, all(sp))
}

// TestVectorAddHalfCUDAReferenceOnPoCL checks the CUDA half example's C reference and
// arguments without a GPU: the same spec with the OpenCL kernel (vector_add_half.cl, an
// independent implementation) in place of the CUDA one, on PoCL, each configuration
// verified against the reference the host C backend runs.
func TestVectorAddHalfCUDAReferenceOnPoCL(t *testing.T) {
	dev := openDevice(t, "opencl")
	if b, ok := device.Lookup("c"); !ok {
		t.Skip("the host C backend is not registered")
	} else if _, err := b.Devices(); err != nil {
		t.Skipf("the host C backend, which runs the reference, is unavailable: %v", err)
	}
	cl, err := filepath.Abs(example("vector_add/vector_add_half.cl"))
	if err != nil {
		t.Fatal(err)
	}
	s, sp := load(t, variant(t, example("vector_add/vector_add_half_cuda.yaml"), edits{source: cl}), 1)
	if s.Kernel.Language != "opencl" || !s.HostReference() {
		t.Fatalf("the variant's kernel is %q with a host reference %v, want OpenCL checked on the host", s.Kernel.Language, s.HostReference())
	}
	evaluate(t, s, sp, dev, sample(t, s, sp, 6, 2))
}

func TestGEMMCUDA(t *testing.T) {
	openCUDA(t)
	dev := openDevice(t, "cuda")
	s, sp := load(t, example("gemm/gemm_cuda.yaml"), 2)
	evaluate(t, s, sp, dev, sample(t, s, sp, 40, 1))
}

// TestGEMMCUDAExhaustive proves every combination of the parameters that select the
// kernel's code paths (512 kernels) correct on a small problem, as TestGEMMExhaustive
// does for OpenCL.
func TestGEMMCUDAExhaustive(t *testing.T) {
	openCUDA(t)
	dev := openDevice(t, "cuda")
	reduced := edits{
		constants: map[string]string{"M": "128", "N": "192", "K": "48"},
		values: map[string]string{"MWG": "[8, 16, 32, 64]", "NWG": "[8, 16, 32, 64]", "KWG": "[16]",
			"MDIMC": "[4]", "NDIMC": "[4]", "MDIMA": "[2]", "NDIMB": "[2]"},
		restrictions: []string{"MWG == 2 * MDIMC * VWM", "NWG == 2 * NDIMC * VWN"},
	}
	s, sp := load(t, variant(t, example("gemm/gemm_cuda.yaml"), reduced), 1)
	if sp.Len() != 512 {
		t.Fatalf("the reduced space has %d configurations, want all 512 combinations", sp.Len())
	}
	evaluate(t, s, sp, dev, all(sp))
}

func TestConvolutionCUDA(t *testing.T) {
	openCUDA(t)
	dev := openDevice(t, "cuda")
	s, sp := load(t, example("convolution/convolution_cuda.yaml"), 2)
	evaluate(t, s, sp, dev, sample(t, s, sp, 40, 1))
	// An image that no tile divides: partial blocks and the edges everywhere.
	s, sp = load(t, variant(t, example("convolution/convolution_cuda.yaml"), edits{
		constants: map[string]string{"W": "203", "H": "77"},
	}), 1)
	evaluate(t, s, sp, dev, sample(t, s, sp, 16, 5))
}
