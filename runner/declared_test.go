package runner_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/spec"
)

const declaredKernels = `__kernel void saxpy(__global float *y, __global const float *x, float alpha, int n) {
    int i = get_global_id(0);
    if (i < n) y[i] = alpha * x[i] + y[i];
}
__kernel void saxpy_ref(__global float *y, __global const float *x, int alpha, int n) {
    int i = get_global_id(0);
    if (i < n) y[i] = alpha * x[i] + y[i];
}`

// A spec whose arguments differ from the OpenCL kernel's parameters is refused by Check,
// before anything runs, with the spec's file and line, the argument and both types: the
// runtime would otherwise pass an int32's bits as a float, or a float as an array index
// (the kernel crashed with SIGSEGV), or refuse a 64-bit value without naming it.
func TestCheckRefusesArgumentsThatDifferFromTheKernels(t *testing.T) {
	dev := openBackend(t, "opencl")
	spaceAndArgs := `parameters:
  - {name: block_size_x, values: [32]}
problem_size: [1024]
arguments:
  - {name: y, type: float32, length: 1024, fill: {constant: 1}, output: true}
  - {name: x, type: float32, length: 1024, fill: random}
`
	tests := []struct {
		name, args, verification, want string
	}{
		{"matching", "  - {name: alpha, type: float32, value: 2.5}\n  - {name: n, type: int32, value: 1024}\n", "", ""},
		{"int for float", "  - {name: alpha, type: int32, value: 3}\n  - {name: n, type: int32, value: 1024}\n", "",
			"check.yaml:8: arguments[2]: alpha is int32 in the spec, but kernel saxpy takes float alpha"},
		{"float for int", "  - {name: alpha, type: float32, value: 2.5}\n  - {name: n, type: float32, value: 1024}\n", "",
			"check.yaml:9: arguments[3]: n is float32 in the spec, but kernel saxpy takes int n"},
		{"64 bits for 32", "  - {name: alpha, type: float32, value: 2.5}\n  - {name: n, type: int64, value: 1024}\n", "",
			"check.yaml:9: arguments[3]: n is int64 in the spec, but kernel saxpy takes int n"},
		{"array for a value", "  - {name: alpha, type: float32, value: 2.5}\n  - {name: n, type: int32, length: 4}\n", "",
			"check.yaml:9: arguments[3]: n is an array of int32 in the spec, but kernel saxpy takes int n"},
		{"an argument missing", "  - {name: alpha, type: float32, value: 2.5}\n", "",
			"check.yaml:5: arguments: 3 in the spec, but kernel saxpy takes 4 (__global float* y, __global float* x, float alpha, int n): the spec has none for int n"},
		{"the reference kernel's", "  - {name: alpha, type: float32, value: 2.5}\n  - {name: n, type: int32, value: 1024}\n",
			"verification:\n  reference:\n    kernel: {name: saxpy_ref, code: \"" + escape(declaredKernels) + "\"}\n",
			"check.yaml:8: arguments[2]: alpha is float32 in the spec, but the reference kernel saxpy_ref takes int alpha"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := spec.Parse([]byte(`kernel: {name: saxpy, language: opencl, code: "`+escape(declaredKernels)+`"}
`+spaceAndArgs+tt.args+tt.verification+"iterations: 1\n"), "check.yaml")
			if err != nil {
				t.Fatal(err)
			}
			r, sp := runnerFor(t, s, dev)
			err = r.Check(context.Background())
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Check = %v, want nil", err)
				}
				return
			}
			var se *spec.Error
			if !errors.As(err, &se) || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("Check = %v\nwant a spec error starting %q", err, tt.want)
			}
			// An evaluation, which a caller may ask for without checking first, fails
			// with the same words instead of running the kernel.
			if tt.verification == "" {
				e := r.Evaluate(context.Background(), sp.At(0, nil), nil)
				if e.Status != result.RuntimeError || !strings.HasPrefix(e.Message, tt.want) {
					t.Errorf("Evaluate = %v %q, want a runtime error starting %q", e.Status, e.Message, tt.want)
				}
			}
		})
	}
}
