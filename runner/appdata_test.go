package runner_test

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"slices"
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
