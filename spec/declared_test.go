package spec

import (
	"errors"
	"strings"
	"testing"

	"github.com/ktune/ktune/device"
)

const declaredSpec = `kernel: {name: saxpy, language: opencl, code: "k"}
parameters:
  - {name: block_size_x, values: [32]}
problem_size: [64]
arguments:
  - {name: y, type: float32, length: 64, output: true}
  - {name: x, type: float32, length: 64}
  - {name: alpha, type: int32, value: 3}
  - {name: tile, kind: local, type: float32, length: 32}
verification:
  reference:
    kernel: {name: saxpy_ref, code: "k"}
`

// The kernel's parameters, as OpenCL describes a matching saxpy.
func saxpyParams() []device.Declared {
	return []device.Declared{
		{Name: "y", Decl: "__global float* y", Pointer: true, Type: "float32", Lanes: 1},
		{Name: "x", Decl: "__global float* x", Pointer: true, Type: "float32", Lanes: 1},
		{Name: "alpha", Decl: "int alpha", Type: "int32", Lanes: 1},
		{Name: "tile", Decl: "__local float* tile", Pointer: true, Local: true, Type: "float32", Lanes: 1},
	}
}

func TestArgumentsThatDifferFromTheKernelsParametersAreSpecErrorsAtTheirLine(t *testing.T) {
	s, err := Parse([]byte(declaredSpec), "saxpy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		change    func(p []device.Declared) []device.Declared
		detailed  bool
		reference bool
		want      string // "" when the arguments fit
	}{
		{"the same parameters", func(p []device.Declared) []device.Declared { return p }, true, false, ""},
		{"a typedef takes any type", func(p []device.Declared) []device.Declared {
			p[2] = device.Declared{Name: "alpha", Decl: "real alpha", Lanes: 1}
			return p
		}, true, false, ""},
		{"a vector pointer takes its component type", func(p []device.Declared) []device.Declared {
			p[1] = device.Declared{Name: "x", Decl: "__global float4* x", Pointer: true, Type: "float32", Lanes: 4}
			return p
		}, true, false, ""},
		{"an unsigned integer of the same width takes a signed one", func(p []device.Declared) []device.Declared {
			p[2] = device.Declared{Name: "alpha", Decl: "unsigned int alpha", Type: "uint32", Lanes: 1}
			return p
		}, true, false, ""},
		{"an integer of another width", func(p []device.Declared) []device.Declared {
			p[2] = device.Declared{Name: "alpha", Decl: "ulong alpha", Type: "uint64", Lanes: 1}
			return p
		}, true, false, "saxpy.yaml:8: arguments[2]: alpha is int32 in the spec, but kernel saxpy takes ulong alpha"},
		{"a scalar of another type", func(p []device.Declared) []device.Declared {
			p[2] = device.Declared{Name: "alpha", Decl: "float alpha", Type: "float32", Lanes: 1}
			return p
		}, true, false, "saxpy.yaml:8: arguments[2]: alpha is int32 in the spec, but kernel saxpy takes float alpha"},
		{"the reference kernel says so", func(p []device.Declared) []device.Declared {
			p[2] = device.Declared{Name: "alpha", Decl: "float alpha", Type: "float32", Lanes: 1}
			return p
		}, true, true, "saxpy.yaml:8: arguments[2]: alpha is int32 in the spec, but the reference kernel saxpy_ref takes float alpha"},
		{"an array of another type", func(p []device.Declared) []device.Declared {
			p[1] = device.Declared{Name: "x", Decl: "__global double* x", Pointer: true, Type: "float64", Lanes: 1}
			return p
		}, true, false, "saxpy.yaml:7: arguments[1]: x is an array of float32 in the spec, but kernel saxpy takes __global double* x"},
		{"a half pointer takes float16 only", func(p []device.Declared) []device.Declared {
			p[1] = device.Declared{Name: "x", Decl: "__global half* x", Pointer: true, Type: "float16", Lanes: 1}
			return p
		}, true, false, "saxpy.yaml:7: arguments[1]: x is an array of float32 in the spec, but kernel saxpy takes __global half* x: give the argument type: float16"},
		{"an array for a value", func(p []device.Declared) []device.Declared {
			p[1] = device.Declared{Name: "x", Decl: "float x", Type: "float32", Lanes: 1}
			return p
		}, true, false, "saxpy.yaml:7: arguments[1]: x is an array of float32 in the spec, but kernel saxpy takes float x: a parameter that is not a pointer"},
		{"a value for a pointer", func(p []device.Declared) []device.Declared {
			p[2] = device.Declared{Name: "alpha", Decl: "__global int* alpha", Pointer: true, Type: "int32", Lanes: 1}
			return p
		}, true, false, "saxpy.yaml:8: arguments[2]: alpha is int32 in the spec, but kernel saxpy takes __global int* alpha: a pointer takes an array"},
		{"local memory for a global pointer", func(p []device.Declared) []device.Declared {
			p[3].Local, p[3].Decl = false, "__global float* tile"
			return p
		}, true, false, "saxpy.yaml:9: arguments[3]: tile is local memory of float32 in the spec, but kernel saxpy takes __global float* tile"},
		{"a parameter too many", func(p []device.Declared) []device.Declared {
			return append(p, device.Declared{Name: "n", Decl: "int n", Type: "int32", Lanes: 1})
		}, true, false, "saxpy.yaml:5: arguments: 4 in the spec, but kernel saxpy takes 5 (__global float* y, __global float* x, int alpha, __local float* tile, int n): the spec has none for int n"},
		{"a parameter too few", func(p []device.Declared) []device.Declared { return p[:3] }, true, false,
			"saxpy.yaml:5: arguments: 4 in the spec, but kernel saxpy takes 3 (__global float* y, __global float* x, int alpha): the kernel has no parameter for tile"},
		{"without detail only the count", func(p []device.Declared) []device.Declared {
			return make([]device.Declared, 3)
		}, false, false, "saxpy.yaml:5: arguments: 4 in the spec, but kernel saxpy takes 3; the arguments are passed"},
		{"without detail the types are not checked", func(p []device.Declared) []device.Declared {
			return make([]device.Declared, 4)
		}, false, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := s.CheckDeclared(tt.reference, tt.change(saxpyParams()), tt.detailed)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("CheckDeclared = %v, want nil", err)
				}
				return
			}
			var se *Error
			if !errors.As(err, &se) || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("CheckDeclared = %v\nwant a spec error starting %q", err, tt.want)
			}
		})
	}
}

// A float16 array passed to a float pointer is an error naming the argument, and one
// passed to a half pointer is not.
func TestAHalfArrayTakesAHalfPointer(t *testing.T) {
	s, err := Parse([]byte(strings.Replace(declaredSpec, "{name: x, type: float32", "{name: x, type: half", 1)), "saxpy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := "saxpy.yaml:7: arguments[1]: x is an array of float16 in the spec, but kernel saxpy takes __global float* x: a float16 array goes to a half pointer"
	if err := s.CheckDeclared(false, saxpyParams(), true); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("CheckDeclared = %v\nwant an error starting %q", err, want)
	}
	p := saxpyParams()
	p[1] = device.Declared{Name: "x", Decl: "__global half* x", Pointer: true, Type: "float16", Lanes: 1}
	if err := s.CheckDeclared(false, p, true); err != nil {
		t.Errorf("a half pointer for a float16 array: %v", err)
	}
}

// Where the runtime refuses an argument at launch (no argument information to check
// before), the error names the argument, its line and its type.
func TestARefusedArgumentIsNamedAtItsLine(t *testing.T) {
	s, err := Parse([]byte(declaredSpec), "saxpy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	refused := &device.RuntimeError{Op: "set argument 2", Err: &device.ArgError{Index: 2, Err: errors.New("clSetKernelArg: CL_INVALID_ARG_SIZE (-51)")}}
	got := s.ArgumentError(refused).Error()
	want := "saxpy.yaml:8: arguments[2]: alpha (int32) is refused by the kernel: clSetKernelArg: CL_INVALID_ARG_SIZE (-51)"
	if !strings.HasPrefix(got, want) {
		t.Errorf("ArgumentError = %q, want it to start %q", got, want)
	}
	other := errors.New("launch failed")
	if s.ArgumentError(other) != other {
		t.Error("ArgumentError changed an error that is no device.ArgError")
	}
}

// TestAReferenceKernelTakesTheArgumentsItNames: a reference ported from KTT, which gives
// a reference kernel arguments of its own, need not take the tuned kernel's local memory
// (or anything else it does not use): verification.reference.kernel.arguments names those
// it takes, in its order. Before, the reference had to declare every argument.
func TestAReferenceKernelTakesTheArgumentsItNames(t *testing.T) {
	src := strings.Replace(declaredSpec, `kernel: {name: saxpy_ref, code: "k"}`, `kernel: {name: saxpy_ref, code: "k", arguments: [y, alpha, x]}`, 1)
	s, err := Parse([]byte(src), "saxpy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p := saxpyParams()
	refParams := []device.Declared{p[0], p[2], p[1]}
	if err := s.CheckDeclared(true, refParams, true); err != nil {
		t.Errorf("the reference's own arguments: %v", err)
	}
	if err := s.CheckDeclared(false, saxpyParams(), true); err != nil {
		t.Errorf("the kernel's arguments: %v", err)
	}
	err = s.CheckDeclared(true, saxpyParams(), true)
	if err == nil || !strings.Contains(err.Error(), "saxpy.yaml:12: verification.reference.kernel.arguments: 3 in the spec, but the reference kernel saxpy_ref takes 4") {
		t.Errorf("the kernel's parameters for the reference: %v", err)
	}
	err = s.CheckDeclared(true, []device.Declared{p[0], p[1], p[2]}, true)
	if err == nil || !strings.Contains(err.Error(), "(or list in verification.reference.kernel.arguments the argument it takes there, as parameter 2)") {
		t.Errorf("the reference's arguments out of order: %v", err)
	}

	rs, ok := s.ReferenceSource()
	if !ok || len(rs.Params) != 3 || rs.Params[0].Name != "y" || rs.Params[1].Name != "alpha" || rs.Params[2].Name != "x" {
		t.Errorf("reference source params %+v", rs.Params)
	}
	args := []device.Arg{{Scalar: []byte{0}}, {Scalar: []byte{1}}, {Scalar: []byte{2}}, {Local: 128}}
	got := s.ReferenceArgs(args)
	if len(got) != 3 || got[0].Scalar[0] != 0 || got[1].Scalar[0] != 2 || got[2].Scalar[0] != 1 {
		t.Errorf("reference args %+v", got)
	}
	ae := s.ReferenceArgumentError(&device.ArgError{Index: 1, Err: errors.New("CL_INVALID_ARG_SIZE")})
	if !strings.Contains(ae.Error(), "saxpy.yaml:8: arguments[2]: alpha (int32) is refused") {
		t.Errorf("a refused reference argument: %v", ae)
	}
}
