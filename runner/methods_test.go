package runner_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/spec"
)

// TestARangeAndAMethodDecideWhatAPaddedOutputIsComparedOn runs a real OpenCL kernel on
// PoCL whose output is padded to its launch: the first N elements are its result, the 24
// after them hold its block size, so that they differ between the reference (block size
// 32) and the configuration of block size 64 by 32 each. Compared whole, that fails;
// compared over its range, it passes; absolute_sum passes or fails by the sum of those
// differences, 24 * 32 = 768.
func TestARangeAndAMethodDecideWhatAPaddedOutputIsComparedOn(t *testing.T) {
	dev := openBackend(t, "opencl")
	for _, tc := range []struct {
		name, outputs string
		want          string // the message of block size 64; "" when it passes
	}{
		{"the whole output", "[y]",
			"output y: 24 of 1024 elements differ from the reference; first at index 1000: got 64, want 32; that is the largest difference, 32, where atol 1e-06 + rtol 1e-05 * |want| allows 0.000321"},
		{"its range", "[{name: y, range: N}]", ""},
		{"its range as start and end", "[{name: y, range: [N - 10, N]}]", ""},
		{"a range into the padding", "[{name: y, range: [N - 10, N + 1]}]",
			"output y[990:1001]: 1 of 11 elements differ from the reference; first at index 1000: got 64, want 32; that is the largest difference, 32, where atol 1e-06 + rtol 1e-05 * |want| allows 0.000321"},
		{"absolute_sum at the padding's sum", "[{name: y, method: absolute_sum, tolerance: 768}]", ""},
		{"absolute_sum below it", "[{name: y, method: absolute_sum, tolerance: 700}]",
			"output y: absolute_sum: the sum of |got - want| over its 1024 elements is 768, above the tolerance 700; 24 of 1024 elements differ, the most by 32 at index 1000 (got 64, want 32)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := spec.Parse([]byte(`
kernel:
  name: twice
  language: opencl
  code: |
    __kernel void twice(__global float *y, __global const float *x, const int n) {
        int i = get_global_id(0);
        y[i] = i < n ? 2.0f * x[i] : (float)block_size_x;
    }
constants: {N: 1000, PADDED: 1024}
parameters:
  - {name: block_size_x, values: [32, 64]}
problem_size: [PADDED]
arguments:
  - {name: y, type: float32, length: PADDED, output: true}
  - {name: x, type: float32, length: PADDED, fill: random}
  - {name: n, type: int32, value: N}
verification:
  reference: {config: {block_size_x: 32}}
  outputs: `+tc.outputs+`
iterations: 1
`), "methods_test.yaml")
			if err != nil {
				t.Fatal(err)
			}
			r, sp := runnerFor(t, s, dev)
			wantVerified(t, r, sp, []space.Value{space.IntValue(32)})
			cfg, err := sp.ConfigOf([]space.Value{space.IntValue(64)})
			if err != nil {
				t.Fatal(err)
			}
			e := r.Evaluate(context.Background(), cfg, nil)
			switch {
			case tc.want == "" && e.Status != result.OK:
				t.Errorf("block_size_x=64: %v %q, want ok", e.Status, e.Message)
			case tc.want != "" && (e.Status != result.WrongAnswer || e.Message != tc.want):
				t.Errorf("block_size_x=64: %v %q\nwant wrong_answer %q", e.Status, e.Message, tc.want)
			}
		})
	}
}

// TestARangeComparesOutputsWhoseLengthsDifferByConfiguration: an output whose length
// reads a parameter cannot be compared whole with a reference of another length, and the
// message says a range would do; a range that both hold compares.
func TestARangeComparesOutputsWhoseLengthsDifferByConfiguration(t *testing.T) {
	dev := openBackend(t, "opencl")
	for _, tc := range []struct{ outputs, want string }{
		{"[y]", "output y: its length, N + block_size_x, depends on the configuration (it reads block_size_x) and differs here from the reference's 1032 elements, computed at block_size_x=32; " +
			"verification compares whole outputs, so give y a length (in elements) that is the same for every configuration, or compare a range of it that every configuration's output holds (outputs: [{name: y, range: LENGTH}])"},
		{"[{name: y, range: N}]", ""},
	} {
		s, err := spec.Parse([]byte(`
kernel:
  name: twice
  language: opencl
  code: |
    __kernel void twice(__global float *y, __global const float *x, const int n) {
        int i = get_global_id(0);
        if (i < n + block_size_x) y[i] = i < n ? 2.0f * x[i] : (float)block_size_x;
    }
constants: {N: 1000}
parameters:
  - {name: block_size_x, values: [32, 64]}
problem_size: [N + block_size_x]
grid_div_x: [block_size_x]
arguments:
  - {name: y, type: float32, length: N + block_size_x, output: true}
  - {name: x, type: float32, length: N + block_size_x, fill: random}
  - {name: n, type: int32, value: N}
verification:
  reference: {config: {block_size_x: 32}}
  outputs: `+tc.outputs+`
iterations: 1
`), "methods_test.yaml")
		if err != nil {
			t.Fatal(err)
		}
		r, sp := runnerFor(t, s, dev)
		wantVerified(t, r, sp, []space.Value{space.IntValue(32)})
		cfg, err := sp.ConfigOf([]space.Value{space.IntValue(64)})
		if err != nil {
			t.Fatal(err)
		}
		e := r.Evaluate(context.Background(), cfg, nil)
		switch {
		case tc.want == "" && e.Status != result.OK:
			t.Errorf("%s: block_size_x=64: %v %q, want ok", tc.outputs, e.Status, e.Message)
		case tc.want != "" && (e.Status != result.WrongAnswer || e.Message != tc.want):
			t.Errorf("%s: block_size_x=64: %v %q\nwant wrong_answer %q", tc.outputs, e.Status, e.Message, tc.want)
		}
	}
}

// TestEqualNaNLetsANaNPassWhereTheReferenceHasOne runs a real OpenCL kernel on PoCL that
// writes NaN to every seventh element (every fifth for block size 128): allclose fails
// each NaN unless equal_nan, which lets a NaN pass against a NaN of the reference only,
// so block size 128's NaNs in other places still fail.
func TestEqualNaNLetsANaNPassWhereTheReferenceHasOne(t *testing.T) {
	dev := openBackend(t, "opencl")
	for _, tc := range []struct {
		name, verification string
		want64, want128    string // messages; "" when it passes
	}{
		{"allclose", "{reference: {config: {block_size_x: 32}}}",
			"output y: 147 of 1024 elements differ from the reference; first at index 0: got NaN, want NaN",
			"output y: 322 of 1024 elements differ from the reference; first at index 0: got NaN, want NaN"},
		{"allclose with equal_nan", "{reference: {config: {block_size_x: 32}}, equal_nan: true}",
			"", "output y: 292 of 1024 elements differ from the reference; first at index 5: got NaN, want"},
		{"equal_nan on the output", "{reference: {config: {block_size_x: 32}}, outputs: [{name: y, equal_nan: true}]}",
			"", "output y: 292 of 1024 elements differ from the reference; first at index 5: got NaN, want"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := spec.Parse([]byte(`
kernel:
  name: holes
  language: opencl
  code: |
    __kernel void holes(__global float *y, __global const float *x) {
        int i = get_global_id(0);
        y[i] = i % (block_size_x == 128 ? 5 : 7) == 0 ? NAN : 2.0f * x[i];
    }
parameters:
  - {name: block_size_x, values: [32, 64, 128]}
problem_size: [1024]
arguments:
  - {name: y, type: float32, length: 1024, output: true}
  - {name: x, type: float32, length: 1024, fill: random}
verification: `+tc.verification+`
iterations: 1
`), "equalnan_test.yaml")
			if err != nil {
				t.Fatal(err)
			}
			r, sp := runnerFor(t, s, dev)
			if err := r.Check(context.Background()); err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				block int64
				want  string
			}{{64, tc.want64}, {128, tc.want128}} {
				cfg, err := sp.ConfigOf([]space.Value{space.IntValue(c.block)})
				if err != nil {
					t.Fatal(err)
				}
				e := r.Evaluate(context.Background(), cfg, nil)
				r.Idle()
				switch {
				case c.want == "" && e.Status != result.OK:
					t.Errorf("block_size_x=%d: %v %q, want ok", c.block, e.Status, e.Message)
				case c.want != "" && (e.Status != result.WrongAnswer || !strings.HasPrefix(e.Message, c.want)):
					t.Errorf("block_size_x=%d: %v %q\nwant wrong_answer %q...", c.block, e.Status, e.Message, c.want)
				}
			}
		})
	}
}
