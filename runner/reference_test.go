package runner_test

import (
	"testing"

	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/spec"
)

// TestAReferenceKernelRunsAtItsOwnLaunch: the tuned kernel computes tile elements per
// work-item (grid_div_x: [block_size_x, tile]), the naive reference one. Launched with
// the tuned kernel's geometry at the reference configuration (tile 4), the reference
// computed a quarter of the output, and every correct configuration failed verification
// (or, with a tuned grid as short, passed with three quarters unchecked). With its own
// block the reference covers the whole output, and the configurations verify.
func TestAReferenceKernelRunsAtItsOwnLaunch(t *testing.T) {
	dev := openBackend(t, "opencl")
	s, err := spec.Parse([]byte(`
kernel:
  name: scale
  language: opencl
  code: |
    __kernel void scale(__global float *y, __global const float *x, const int n) {
        for (int t = 0; t < tile; t++) {
            int i = get_global_id(0) * tile + t;
            if (i < n) y[i] = 3.0f * x[i];
        }
    }
constants: {N: 10000}
parameters:
  - {name: block_size_x, values: [32, 64]}
  - {name: tile, values: [4, 1]}
problem_size: [N]
grid_div_x: [block_size_x, tile]
arguments:
  - {name: y, type: float32, length: N, output: true}
  - {name: x, type: float32, length: N, fill: random}
  - {name: n, type: int32, value: N}
verification:
  reference:
    kernel:
      name: scale_ref
      block: [128]
      code: |
        __kernel void scale_ref(__global float *y, __global const float *x, const int n) {
            int i = get_global_id(0);
            if (i < n) y[i] = 3.0f * x[i];
        }
iterations: 2
`), "reference_test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	in, err := s.ReferenceInstance([]space.Value{space.IntValue(32), space.IntValue(4)})
	if err != nil {
		t.Fatal(err)
	}
	if in.Launch.Grid[0] != 79 || in.Launch.Block[0] != 128 { // ceil(10000 / 128)
		t.Errorf("reference launch %v x %v, want 79 x 128", in.Launch.Grid, in.Launch.Block)
	}
	r, sp := runnerFor(t, s, dev)
	wantVerified(t, r, sp, []space.Value{space.IntValue(32), space.IntValue(4)}, []space.Value{space.IntValue(64), space.IntValue(1)})
}

// TestAReferenceKernelWithDefinesOffIsCompiledWithout: a reference ported with its own
// #define of a name the tuned kernel gets from ktune says defines: false. That setting was
// read and ignored: the reference got the tuned kernel's definitions, here hit the #error,
// and no configuration could be verified.
func TestAReferenceKernelWithDefinesOffIsCompiledWithout(t *testing.T) {
	dev := openBackend(t, "opencl")
	s, err := spec.Parse([]byte(`
kernel:
  name: scale
  language: opencl
  code: |
    __kernel void scale(__global float *y, __global const float *x, const int n) {
        int i = get_global_id(0);
        if (i < n) y[i] = 3.0f * x[i];
    }
constants: {N: 1000}
parameters:
  - {name: block_size_x, values: [32, 64]}
problem_size: [N]
arguments:
  - {name: y, type: float32, length: N, output: true}
  - {name: x, type: float32, length: N, fill: random}
  - {name: n, type: int32, value: N}
verification:
  reference:
    kernel:
      name: scale_ref
      defines: false
      code: |
        #ifdef block_size_x
        #error the reference was given the tuned kernel's definitions
        #endif
        #define block_size_x 16
        __kernel void scale_ref(__global float *y, __global const float *x, const int n) {
            int i = get_global_id(0);
            if (i < n) y[i] = (float)(block_size_x / 16) * 3.0f * x[i];
        }
iterations: 2
`), "reference_test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r, sp := runnerFor(t, s, dev)
	wantVerified(t, r, sp, []space.Value{space.IntValue(32)}, []space.Value{space.IntValue(64)})
}

// TestAReferenceKernelTakesOnlyTheArgumentsItNames: the tuned kernel stages its input in
// local memory, the naive reference (as a KTT reference kernel, with its own arguments)
// takes none and names its arguments in its own order. Before, a reference had to take
// every argument of the kernel, in its order.
func TestAReferenceKernelTakesOnlyTheArgumentsItNames(t *testing.T) {
	dev := openBackend(t, "opencl")
	s, err := spec.Parse([]byte(`
kernel:
  name: shift
  language: opencl
  code: |
    __kernel void shift(__global float *y, __global const float *x, const int n, __local float *t) {
        int l = get_local_id(0), i = get_global_id(0);
        t[l] = i < n ? x[i] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (i < n) y[i] = 2.0f * t[l];
    }
constants: {N: 1000}
parameters:
  - {name: block_size_x, values: [32, 64]}
problem_size: [N]
arguments:
  - {name: y, type: float32, length: N, output: true}
  - {name: x, type: float32, length: N, fill: random}
  - {name: n, type: int32, value: N}
  - {name: t, kind: local, type: float32, length: block_size_x}
verification:
  reference:
    kernel:
      name: shift_ref
      arguments: [n, x, y]
      code: |
        __kernel void shift_ref(const int n, __global const float *x, __global float *y) {
            int i = get_global_id(0);
            if (i < n) y[i] = 2.0f * x[i];
        }
iterations: 2
`), "reference_test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r, sp := runnerFor(t, s, dev)
	wantVerified(t, r, sp, []space.Value{space.IntValue(32)}, []space.Value{space.IntValue(64)})
}
