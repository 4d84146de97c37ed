package runner_test

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ktune/ktune/runner"
	"github.com/ktune/ktune/spec"
)

// refScaleSpec is y = alpha*x + y, with a reference kernel of its own, scale_ref, when
// withRef.
func refScaleSpec(t *testing.T, withRef bool) *spec.Spec {
	t.Helper()
	text := `
kernel: {name: scale, source: scale.cl}
parameters:
  - {name: block_size_x, values: [32, 64]}
problem_size: [1024]
arguments:
  - {name: y, type: float32, length: 1024, output: true, fill: random}
  - {name: x, type: float32, length: 1024, fill: random}
  - {name: alpha, type: float32, value: 2}
verification:
  reference:
    config: {block_size_x: 32}
`
	if withRef {
		text += "    kernel: {name: scale_ref, source: ref.cl, block: [16]}\n"
	}
	dir := t.TempDir()
	for name, src := range map[string]string{"scale.yaml": text,
		// the tuned kernel drops the last element: a bug of every configuration
		"scale.cl": `__kernel void scale(__global float *y, __global const float *x, const float alpha) {
    int i = get_global_id(0);
    if (i < 1023) y[i] = alpha * x[i] + y[i];
}`,
		"ref.cl": `__kernel void scale_ref(__global float *y, __global const float *x, const float alpha) {
    int i = get_global_id(0);
    y[i] = alpha * x[i] + y[i];
}`} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := spec.Load(filepath.Join(dir, "scale.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// RunReferenceWith runs the spec's reference kernel on the caller's data, compiled once,
// and CompareWithReference judges a configuration's outputs on those data against it:
// the bug every configuration shares, which comparing with the reference configuration
// cannot show, is found. Data that do not fit are a DataError; a spec without a
// reference kernel of its own has none to run.
func TestRunReferenceWithRunsTheReferenceKernelOnTheCallersData(t *testing.T) {
	dev := openBackend(t, "opencl")
	r, sp := runnerFor(t, refScaleSpec(t, true), dev)
	if !r.OwnReference() {
		t.Fatal("OwnReference is false for a spec with a reference kernel on the device")
	}
	x, y := make([]float32, 1024), make([]float32, 1024)
	for i := range x {
		x[i], y[i] = float32(i%100), float32(i%7)/2
	}
	ctx := context.Background()
	data := runner.Data{"x": x, "y": y, "alpha": float32(3)}
	for call := range 2 {
		ref, err := r.RunReferenceWith(ctx, data)
		if err != nil {
			t.Fatal(err)
		}
		if (call == 0) != (ref.CompileMS > 0) {
			t.Errorf("call %d: compiled for %v ms; want it compiled at the first call alone", call, ref.CompileMS)
		}
		got := ref.Outputs["y"]
		if len(ref.Outputs) != 1 || len(got) != 4096 {
			t.Fatalf("call %d: %d outputs, y of %d bytes; want y alone, of 4096", call, len(ref.Outputs), len(got))
		}
		for i := range x {
			if v := math.Float32frombits(binary.LittleEndian.Uint32(got[4*i:])); v != 3*x[i]+y[i] {
				t.Fatalf("call %d: the reference's y[%d] = %v, want %v", call, i, v, 3*x[i]+y[i])
			}
		}
	}
	ref, _ := r.RunReferenceWith(ctx, data)
	c := sp.At(1, nil)
	out, err := r.RunWith(ctx, c, data)
	if err != nil {
		t.Fatal(err)
	}
	if msg, err := r.CompareWithReference(ctx, c, out.Outputs, ref.Outputs); err != nil || !strings.Contains(msg, "output y: 1 of 1024 elements differ") {
		t.Errorf("CompareWithReference: %q, %v; want one element of y found different", msg, err)
	}
	good, err := r.RunWith(ctx, r.KnownGood(), data)
	if err != nil {
		t.Fatal(err)
	}
	if msg, err := r.CompareOutputs(ctx, c, out.Outputs, good.Outputs); err != nil || msg != "" {
		t.Errorf("against the reference configuration: %q, %v; want agreement, the bug shared", msg, err)
	}
	var de *runner.DataError
	if _, err := r.RunReferenceWith(ctx, runner.Data{"x": x[:10]}); !errors.As(err, &de) || de.Arg != "x" {
		t.Errorf("10 elements of x: %v; want a DataError naming x", err)
	}

	plain, _ := runnerFor(t, refScaleSpec(t, false), dev)
	if plain.OwnReference() {
		t.Error("OwnReference is true for a spec without a reference kernel")
	}
	if _, err := plain.RunReferenceWith(ctx, data); err == nil || !strings.Contains(err.Error(), "names no reference kernel") {
		t.Errorf("RunReferenceWith without a reference kernel: %v; want an error saying there is none", err)
	}
}

// A C reference of an OpenCL kernel (spec.HostReference) runs on the caller's data too,
// on the host C backend, compiled once: its outputs are those of the caller's x and n,
// not of the spec's own, so that the configuration wrong at n/2 (bad=1) is found at the
// caller's n and the right one agrees. A reference that fails on the caller's data (it
// writes past the end of y on an odd count) is a RunError naming it.
func TestRunReferenceWithRunsAHostReferenceOnTheCallersData(t *testing.T) {
	dev := openBackend(t, "opencl")
	s := hostRefSpec(t, `
      name: axpb_ref
      language: c
      arguments: [n, x, y]
      code: |
        void axpb_ref(int n, const float *x, float *y) {
            for (int i = 0; i < n; i++) y[i] = 3 * x[i] + (float)n;
            if (n % 2) y[1000] = 0; /* past the end of y's 1000 floats */
        }`)
	r, sp := runnerFor(t, s, dev)
	if r.OwnReference() || !r.CanRunReferenceWith() {
		t.Fatalf("OwnReference %v, CanRunReferenceWith %v; want false, true for a reference on the host", r.OwnReference(), r.CanRunReferenceWith())
	}
	x, y := make([]float32, 1000), make([]float32, 1000)
	for i := range x {
		x[i], y[i] = float32(i%100)/4, -1
	}
	ctx := context.Background()
	data := runner.Data{"x": x, "y": y, "n": int32(600)}
	for call := range 2 {
		ref, err := r.RunReferenceWith(ctx, data)
		if err != nil {
			t.Fatal(err)
		}
		if (call == 0) != (ref.CompileMS > 0) {
			t.Errorf("call %d: compiled for %v ms; want it compiled at the first call alone", call, ref.CompileMS)
		}
		got := ref.Outputs["y"]
		if len(ref.Outputs) != 1 || len(got) != 4000 {
			t.Fatalf("call %d: %d outputs, y of %d bytes; want y alone, of 4000", call, len(ref.Outputs), len(got))
		}
		for i := range x {
			want := y[i]
			if i < 600 {
				want = 3*x[i] + 600
			}
			if v := math.Float32frombits(binary.LittleEndian.Uint32(got[4*i:])); v != want {
				t.Fatalf("call %d: the reference's y[%d] = %v, want %v", call, i, v, want)
			}
		}
	}
	ref, _ := r.RunReferenceWith(ctx, data)
	for _, tc := range []struct {
		bad  int
		want string
	}{{0, ""}, {1, "output y: 1 of 1000 elements differ"}} {
		c := sp.At(tc.bad, nil) // block_size_x 32, bad 0 then 1
		if v := sp.Values(c)[1].String(); v != strconv.Itoa(tc.bad) {
			t.Fatalf("configuration %d has bad %s; the space's order changed", tc.bad, v)
		}
		out, err := r.RunWith(ctx, c, data)
		if err != nil {
			t.Fatal(err)
		}
		msg, err := r.CompareWithReference(ctx, c, out.Outputs, ref.Outputs)
		if err != nil || (tc.want == "") != (msg == "") || !strings.Contains(msg, tc.want) {
			t.Errorf("bad %d against the host reference: %q, %v; want %q", tc.bad, msg, err, tc.want)
		}
	}
	data["n"] = int32(601)
	var re *runner.RunError
	if _, err := r.RunReferenceWith(ctx, data); !errors.As(err, &re) || !strings.HasPrefix(err.Error(), "runtime_error: running the C reference axpb_ref") || !strings.Contains(err.Error(), "past the end") {
		t.Errorf("an odd count: %v; want a RunError, runtime_error, naming the C reference axpb_ref and its write past the end of y", err)
	}
}
