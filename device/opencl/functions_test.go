package opencl

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ktune/ktune/device"
)

// TestFunctionsOfOneSourceShareOneProgram: CompileFunctions builds the source once, and
// each function's kernel, created from that program, runs its own code with its own
// arguments; the program outlives the first kernel released and goes with the last.
func TestFunctionsOfOneSourceShareOneProgram(t *testing.T) {
	d := openTestDevice(t)
	const code = `__kernel void add(__global float* x, float v) { x[get_global_id(0)] += v * SCALE; }
__kernel void twice(__global float* x) { x[get_global_id(0)] *= 2; }`
	src := device.Source{Code: code, Defines: []device.Define{{Name: "SCALE", Value: "10"}}}
	ks, err := d.(device.MultiCompiler).CompileFunctions(context.Background(), src, []device.Function{
		{Name: "add", Params: []device.Param{{Name: "x", Type: "float32", Pointer: true}, {Name: "v", Type: "float32"}}},
		{Name: "twice", Params: []device.Param{{Name: "x", Type: "float32", Pointer: true}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	add, twice := ks[0].(*kernel), ks[1].(*kernel)
	if add.program != twice.program || add.program.refs != 2 {
		t.Fatalf("the kernels' programs: %p and %p (%d uses); want one program used twice", add.program, twice.program, add.program.refs)
	}
	buf := alloc(t, d, []float32{1, 2, 3, 4})
	defer buf.Release()
	launch := device.Launch{Grid: device.Dim3{2}, Block: device.Dim3{2}}
	if _, err := add.Run(context.Background(), launch, []device.Arg{{Buffer: buf}, scalar(t, float32(0.5))}); err != nil {
		t.Fatal(err)
	}
	add.Release()
	if twice.program.refs != 1 {
		t.Fatalf("after releasing one kernel the program has %d uses, want 1", twice.program.refs)
	}
	if _, err := twice.Run(context.Background(), launch, []device.Arg{{Buffer: buf}}); err != nil {
		t.Fatal(err)
	}
	got := make([]float32, 4)
	read(t, buf, got)
	for i, want := range []float32{12, 14, 16, 18} {
		if got[i] != want {
			t.Fatalf("x = %v, want (x + 0.5*10) * 2 = [12 14 16 18]", got)
		}
	}
	twice.Release()
	if twice.program != nil || add.program != nil {
		t.Fatal("released kernels still hold their program")
	}
}

// TestAFunctionTheProgramLacksIsNamedByItsIndex: a misspelt function among several is a
// *device.FunctionError with its position, holding the compile error that suggests the
// program's kernels; a source that does not build is the build's error, no function's.
func TestAFunctionTheProgramLacksIsNamedByItsIndex(t *testing.T) {
	d := openTestDevice(t)
	mc := d.(device.MultiCompiler)
	src := device.Source{Code: `__kernel void first(__global int* x) { x[0] = 1; }
__kernel void second(__global int* x) { x[0] = 2; }`}
	_, err := mc.CompileFunctions(context.Background(), src, []device.Function{{Name: "first"}, {Name: "secnd"}})
	var fe *device.FunctionError
	var ce *device.CompileError
	if !errors.As(err, &fe) || fe.Index != 1 || !errors.As(err, &ce) || !strings.Contains(ce.Log, `did you mean "second"?`) {
		t.Fatalf("a misspelt second function: %v", err)
	}
	if len(d.(*clDevice).kernels) != 0 {
		t.Fatalf("%d kernels left behind by a failed CompileFunctions", len(d.(*clDevice).kernels))
	}
	src.Code = "__kernel void first(__global int* x) { x[0] = ; }"
	_, err = mc.CompileFunctions(context.Background(), src, []device.Function{{Name: "first"}, {Name: "second"}})
	if !errors.As(err, &ce) || errors.As(err, &fe) {
		t.Fatalf("a source that does not build: %v", err)
	}
}
