//go:build linux

package hostc

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ktune/ktune/device"
)

// TestFunctionsOfOneSourceShareOneObject: CompileFunctions builds one shared object with
// a call wrapper per function, once; each kernel calls its own function with its own
// parameters, and a kernel outlives another's release.
func TestFunctionsOfOneSourceShareOneObject(t *testing.T) {
	d := openHost(t)
	src := device.Source{Language: "c", File: "two.c", Defines: []device.Define{{Name: "SCALE", Value: "3"}}, Code: `
void add(float *x, float v, int n) { for (int i = 0; i < n; i++) x[i] += v * SCALE; }
void twice(float *x, int n) { for (int i = 0; i < n; i++) x[i] *= 2; }
`}
	x := []device.Param{{Name: "x", Type: "float32", Pointer: true}}
	n := device.Param{Name: "n", Type: "int32"}
	builds := d.builds.Load() + d.hits.Load()
	ks, err := d.CompileFunctions(context.Background(), src, []device.Function{
		{Name: "add", Params: append(x, device.Param{Name: "v", Type: "float32"}, n)},
		{Name: "twice", Params: append(x, n)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := d.builds.Load() + d.hits.Load() - builds; got != 1 {
		t.Fatalf("%d objects built or taken from the cache for two functions, want 1", got)
	}
	if ks[0].(*kernel).path != ks[1].(*kernel).path {
		t.Fatalf("the functions come from %s and %s", ks[0].(*kernel).path, ks[1].(*kernel).path)
	}
	buf := alloc(t, d, float32Bytes([]float32{1, 2, 3}))
	defer buf.Release()
	one := device.Launch{}
	if _, err := ks[0].Run(context.Background(), one, []device.Arg{{Buffer: buf}, {Scalar: float32Bytes([]float32{0.5})}, int32Arg(3)}); err != nil {
		t.Fatal(err)
	}
	ks[0].Release()
	if _, err := ks[1].Run(context.Background(), one, []device.Arg{{Buffer: buf}, int32Arg(3)}); err != nil {
		t.Fatal(err)
	}
	ks[1].Release()
	out := make([]byte, 12)
	if err := buf.Read(out); err != nil {
		t.Fatal(err)
	}
	if got := bytesFloat32(out); got[0] != 5 || got[1] != 7 || got[2] != 9 {
		t.Fatalf("x = %v, want (x + 0.5*3) * 2 = [5 7 9]", got)
	}
}

// TestAFunctionsWrongParametersNameIt: a wrapper that cannot call its function (an array
// passed where the function takes a number) is that function's failure, named by its
// wrapper and its position, while the others' wrappers are fine.
func TestAFunctionsWrongParametersNameIt(t *testing.T) {
	d := openHost(t)
	src := device.Source{Language: "c", Code: `
void first(float *x, int n) { x[0] = (float)n; }
void second(int n, float *x) { x[0] = (float)n; }
`}
	x := device.Param{Name: "x", Type: "float32", Pointer: true}
	n := device.Param{Name: "n", Type: "int32"}
	_, err := d.CompileFunctions(context.Background(), src, []device.Function{
		{Name: "first", Params: []device.Param{x, n}},
		{Name: "second", Params: []device.Param{x, n}},
	})
	var fe *device.FunctionError
	var ce *device.CompileError
	if !errors.As(err, &fe) || fe.Index != 1 || !errors.As(err, &ce) {
		t.Fatalf("the second function called with its parameters swapped: %v", err)
	}
	for _, want := range []string{"<ktune call wrapper of second>:", "note: <ktune call wrapper of second> is the code ktune generates to call second(float *x, int32_t n)",
		"passes the spec's argument x (float32 array) as parameter 1 of second"} {
		if !strings.Contains(ce.Log, want) {
			t.Errorf("the log lacks %q:\n%s", want, ce.Log)
		}
	}
	if strings.Contains(ce.Log, "wrapper of first>") {
		t.Errorf("the log blames the first function's wrapper:\n%s", ce.Log)
	}
}
