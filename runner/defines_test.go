package runner_test

import (
	"testing"

	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/spec"
)

// TestADefinesMappingCompilesTheKernelWithItsDefinitionsAlone: a kernel ported from
// Kernel Tuner with its defines dict gets those definitions (here its own names for the
// block size and work per item, and a scale) and not ktune's (kernel_tuner would hit the
// #error); the reference kernel, with a mapping of its own and its own launch, gets its
// own. Before, a mapping was refused when the spec was read.
func TestADefinesMappingCompilesTheKernelWithItsDefinitionsAlone(t *testing.T) {
	dev := openBackend(t, "opencl")
	s, err := spec.Parse([]byte(`
kernel:
  name: scale
  language: opencl
  defines: {BX: block_size_x, WPT: tile, SCALE: "6 / 2"}
  code: |
    #ifdef kernel_tuner
    #error a defines mapping replaces ktune's definitions
    #endif
    __kernel void scale(__global float *y, __global const float *x, const int n) {
        int i = get_group_id(0) * BX * WPT + get_local_id(0);
        for (int t = 0; t < WPT; t++) {
            int k = i + t * BX;
            if (k < n) y[k] = SCALE * x[k];
        }
    }
constants: {N: 10000}
parameters:
  - {name: block_size_x, values: [32, 64]}
  - {name: tile, values: [1, 4]}
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
      defines: {S: 3, GRID: grid_size_x}
      code: |
        #if defined(kernel_tuner) || defined(SCALE) || GRID != 79
        #error the reference got definitions other than its own
        #endif
        __kernel void scale_ref(__global float *y, __global const float *x, const int n) {
            int i = get_global_id(0);
            if (i < n) y[i] = S * x[i];
        }
iterations: 2
`), "defines_test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r, sp := runnerFor(t, s, dev)
	wantVerified(t, r, sp, []space.Value{space.IntValue(32), space.IntValue(4)}, []space.Value{space.IntValue(64), space.IntValue(1)})
}
