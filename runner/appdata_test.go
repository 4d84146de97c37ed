package runner_test

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/runner"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/spec"
)

// RunWith runs a configuration on the caller's arrays, typed or raw, and returns the
// outputs; an argument left out keeps the spec's data, and a configuration run again is
// not compiled again. Evaluate on the same runner still measures the spec's own data.
func TestRunWithRunsOnTheCallersData(t *testing.T) {
	dev := openBackend(t, "opencl")
	s, err := spec.Load("../examples/vector_add/vector_add_opencl.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r, sp := runnerFor(t, s, dev)
	const n = 1000000
	a, b := make([]float32, n), make([]float32, n)
	raw := make([]byte, 4*n)
	for i := range a {
		a[i], b[i] = float32(i%977), float32(i%13)/4
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(b[i]))
	}
	c, err := sp.ConfigOf([]space.Value{space.IntValue(128), space.IntValue(4)})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i, data := range []runner.Data{{"a": a, "b": b}, {"a": a, "b": raw}} {
		out, err := r.RunWith(ctx, c, data)
		if err != nil {
			t.Fatal(err)
		}
		if (i == 0) != (out.CompileMS > 0) {
			t.Errorf("call %d: compiled for %v ms; want it compiled at the first call alone", i, out.CompileMS)
		}
		if !(out.KernelMS > 0) {
			t.Errorf("call %d: kernel time %v", i, out.KernelMS)
		}
		got := out.Outputs["c"]
		if len(out.Outputs) != 1 || len(got) != 4*n {
			t.Fatalf("call %d: outputs %d, c of %d bytes; want c alone, of %d", i, len(out.Outputs), len(got), 4*n)
		}
		for k := range n {
			if v := math.Float32frombits(binary.LittleEndian.Uint32(got[4*k:])); v != a[k]+b[k] {
				t.Fatalf("call %d: c[%d] = %v, want %v", i, k, v, a[k]+b[k])
			}
		}
	}
	// b left out: the spec's random fill, as Evaluate sees it
	out, err := r.RunWith(ctx, c, runner.Data{"a": a})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(out.Outputs["c"][:64], raw[:64]) {
		t.Error("b left out took the previous call's data")
	}
	if e := r.Evaluate(ctx, c, nil); e.Status != result.OK {
		t.Errorf("Evaluate after RunWith: %v %s", e.Status, e.Message)
	}
	_, err = r.RunWith(ctx, c, runner.Data{"n": int64(5)})
	var de *runner.DataError
	if !errors.As(err, &de) || de.Arg != "n" {
		t.Errorf("an int64 for int32 n: %v, want a DataError naming n", err)
	}
}

// float16 arrays are given as []uint16 holding binary16 bits, and come back as those
// bits; a []float32 for them is refused, naming the argument.
func TestRunWithTakesHalfArraysAsBits(t *testing.T) {
	dev := openBackend(t, "opencl")
	s, err := spec.Load("../examples/vector_add/vector_add_half.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r, sp := runnerFor(t, s, dev)
	const n = 1000000
	a, b := make([]uint16, n), make([]uint16, n)
	for i := range a {
		a[i], b[i] = 0x3c00, 0x3800 // 1 and 0.5
	}
	c := sp.At(0, nil)
	out, err := r.RunWith(context.Background(), c, runner.Data{"a": a, "b": b})
	if err != nil {
		// a device without cl_khr_fp16 cannot build it
		t.Skipf("the half kernel does not run here: %v", err)
	}
	got := out.Outputs["c"]
	for k := range n {
		if h := binary.LittleEndian.Uint16(got[2*k:]); h != 0x3e00 { // 1.5
			t.Fatalf("c[%d] = %#04x, want 0x3e00 (1.5)", k, h)
		}
	}
	_, err = r.RunWith(context.Background(), c, runner.Data{"a": make([]float32, n)})
	var de *runner.DataError
	if !errors.As(err, &de) || de.Arg != "a" || !strings.Contains(err.Error(), "[]uint16") {
		t.Errorf("[]float32 for a float16 array: %v, want a DataError naming a and []uint16", err)
	}
}

// Encoded converts typed values to the bytes RunWith would make of them, so that a run
// on the encoded data computes what a run on the typed data does; names and values that
// do not fit are left as given, and RunWith reports them as before.
func TestEncodedDataRunAsTheTypedData(t *testing.T) {
	dev := openBackend(t, "opencl")
	s, err := spec.Load("../examples/vector_add/vector_add_opencl.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r, sp := runnerFor(t, s, dev)
	const n = 1000000
	a, b := make([]float32, n), make([]float32, n)
	for i := range a {
		a[i], b[i] = float32(i%977), float32(i%13)/4
	}
	typed := runner.Data{"a": a, "b": b, "n": int32(n)}
	enc := r.Encoded(typed)
	for name := range typed {
		if _, ok := enc[name].([]byte); !ok {
			t.Errorf("%s encoded as %T, want []byte", name, enc[name])
		}
	}
	if _, ok := typed["a"].([]float32); !ok {
		t.Error("Encoded changed the caller's data")
	}
	c := sp.At(0, nil)
	ctx := context.Background()
	want, err := r.RunWith(ctx, c, typed)
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.RunWith(ctx, c, enc)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Outputs["c"], want.Outputs["c"]) {
		t.Error("the encoded data computed another c than the typed data")
	}
	bad := r.Encoded(runner.Data{"a": make([]float64, n), "z": []float32{1}})
	if _, ok := bad["a"].([]float64); !ok {
		t.Errorf("a value of the wrong type became %T, want it left as given", bad["a"])
	}
	_, err = r.RunWith(ctx, c, runner.Data{"a": bad["a"]})
	var de *runner.DataError
	if !errors.As(err, &de) || de.Arg != "a" || !strings.Contains(err.Error(), "got []float64") {
		t.Errorf("the wrong type, encoded: %v, want RunWith's DataError naming a and []float64", err)
	}
}
