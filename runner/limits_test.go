package runner_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/spec"
)

// A __local argument whose length makes more local memory than the device has is a
// device_limit before compiling, whose message names the argument, its length and type,
// and the device's local memory; it gave the total alone ("2400000 bytes of local memory
// exceed the device's 2097152"), leaving the user to find which argument it was.
func TestLocalMemoryBeyondTheDeviceNamesTheArgument(t *testing.T) {
	dev := openBackend(t, "opencl")
	limit := dev.Info().LocalMemBytes
	if limit <= 0 {
		t.Skip("the device reports no local memory size")
	}
	over := limit/4 + 1 // float32 elements
	s, err := spec.Parse([]byte(fmt.Sprintf(`
kernel: {name: stage, language: opencl, code: "`+escape(`__kernel void stage(__global float *c, __local float *tmp, const int n) {
    int i = get_global_id(0);
    tmp[get_local_id(0)] = i;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (i < n) c[i] = tmp[get_local_id(0)];
}`)+`"}
parameters:
  - {name: block_size_x, values: [64]}
  - {name: L, values: [64, %d]}
problem_size: [256]
arguments:
  - {name: c, type: float32, length: 256, output: true}
  - {name: tmp, kind: local, type: float32, length: L}
  - {name: n, type: int32, value: 256}
iterations: 1
`, over)), "local_test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r, sp := runnerFor(t, s, dev)
	cfg := func(l int64) space.Config {
		c, err := sp.ConfigOf([]space.Value{space.IntValue(64), space.IntValue(l)})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	if e := r.Evaluate(context.Background(), cfg(64), nil); e.Status != result.OK {
		t.Fatalf("L=64: %v %s", e.Status, e.Message)
	}
	e := r.Evaluate(context.Background(), cfg(over), nil)
	want := fmt.Sprintf("%d bytes of local memory per block (argument tmp: %d elements of float32, %d bytes) exceed the device's %d", over*4, over, over*4, limit)
	if e.Status != result.DeviceLimit || e.Message != want || e.CompileMS != 0 {
		t.Errorf("L=%d: %v %q (compiled for %.0f ms), want a device_limit before compiling %q", over, e.Status, e.Message, e.CompileMS, want)
	}
}
