//go:build linux

package main

import (
	"math"
	"testing"
)

// TestTuneCUDALaunchesThroughTheStandInDriver runs `ktune tune` on a CUDA spec with a
// sequence of launches on the stand-in driver (device/cuda/testdata/fakedriver.c): two
// functions of one source, one launched twice, each x = x*a + coef[0] on the stand-in, so
// that the output is the C reference's three steps only when every launch ran with its
// arguments and the constant-memory coef. The stand-in's launches take 250 µs by the
// events, 10 µs more after another launch: a run of the sequence timed as one, from the
// first launch's start to the last one's end, is 770 µs, where adding up each launch's
// own time would give 750.
func TestTuneCUDALaunchesThroughTheStandInDriver(t *testing.T) {
	rep, _, stderr := tuneThroughStandIn(t, `
kernel:
  language: cuda
  code: |
    template <int A> __global__ void scale(float *x, int n, float a) {}
    __global__ void offset(float *x, int n, float a) {}
constants: {N: 832}
parameters:
  - {name: block_size_x, values: [32, 128]}
problem_size: [N]
launches:
  - {kernel: scale<2>, repeat: 2}
  - {kernel: offset, arguments: [x, n, a]}
arguments:
  - {name: x, type: float32, length: N, fill: {range: {start: 0, step: 1}}, output: true}
  - {name: n, type: int32, value: N}
  - {name: coef, kind: constant, type: float32, length: 4, fill: {range: {start: 0.5, step: 1}}}
  - {name: a, type: float32, value: 3}
verification:
  reference:
    kernel:
      name: three_steps
      language: c
      code: |
        void three_steps(float *x, int n, const float *coef, float a) {
            for (int s = 0; s < 3; s++)
                for (int i = 0; i < n; i++) x[i] = x[i] * a + coef[0];
        }
iterations: 3
`)
	if rep.Backend != "cuda" || rep.Evaluations != 2 || rep.Statuses["ok"] != 2 {
		t.Fatalf("report %+v\n%s", rep, stderr)
	}
	if rep.BestObjective == nil || math.Abs(*rep.BestObjective-0.77) > 1e-4 {
		t.Fatalf("best time %v ms, want 0.77 (three launches and the two gaps between them)", rep.BestObjective)
	}
}
