package runner_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ktune/ktune/device"
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

// lazyGPU is a real OpenCL device that reports itself a GPU and, after its first backed
// allocations, gives buffers whose first write fails for want of memory, as a GPU that
// allocates at a buffer's first use does (NVIDIA's OpenCL: clCreateBuffer succeeds,
// the write returns CL_MEM_OBJECT_ALLOCATION_FAILURE).
type lazyGPU struct {
	device.Device
	backed int
	allocs *int
}

func (d lazyGPU) Info() device.Info {
	info := d.Device.Info()
	info.Type = "gpu"
	return info
}

func (d lazyGPU) Alloc(n int) (device.Buffer, error) {
	if *d.allocs++; *d.allocs > d.backed {
		return unbacked{n}, nil
	}
	return d.Device.Alloc(n)
}

// unbacked is a buffer the device could not back with memory at its first use.
type unbacked struct{ n int }

func (b unbacked) Size() int { return b.n }
func (b unbacked) Write([]byte) error {
	return errors.New("clEnqueueWriteBuffer: CL_MEM_OBJECT_ALLOCATION_FAILURE")
}
func (b unbacked) Read([]byte) error {
	return errors.New("clEnqueueReadBuffer: CL_MEM_OBJECT_ALLOCATION_FAILURE")
}
func (b unbacked) Release() {}

// A pristine copy, which only makes resets faster, is left out where the device cannot
// back it with memory, whether it says so at the allocation or at the first write: the
// latter failed the configuration ("argument x: copying to the device: ...") on every
// evaluation, as on a GPU whose arrays take over half its memory.
func TestAPristineCopyTheDeviceCannotHoldCostsNothing(t *testing.T) {
	dev := openBackend(t, "opencl")
	s, err := spec.Parse([]byte(`
kernel: {name: twice, language: opencl, code: "`+escape(resetKernels["opencl"])+`"}
parameters:
  - {name: skip, values: [0]}
  - {name: block_size_x, values: [64, 128]}
problem_size: [4096]
arguments:
  - {name: x, type: float32, length: 4096, fill: random, output: true}
  - {name: n, type: int32, value: 4096}
verification:
  reference: {config: {skip: 0, block_size_x: 64}}
iterations: 1
`), "lazy_test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	allocs := 0
	// The reference's buffer and the configurations' own are backed; the pristine copy
	// is not.
	r, sp := runnerFor(t, s, lazyGPU{dev, 2, &allocs})
	if err := r.Reference(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		e := r.Evaluate(context.Background(), sp.At(i, nil), nil)
		if e.Status != result.OK {
			t.Errorf("configuration %d: %v %q, want ok", i, e.Status, e.Message)
		}
		r.Idle()
	}
	if allocs < 3 {
		t.Errorf("%d buffers allocated: the pristine copy was never tried", allocs)
	}
}

// A build log longer than a message may be is cut at a line's end, keeping whole lines
// (and so whole characters), and its last line, where compilers sum up and the OpenCL
// backend notes where the positions of a runtime that ignores #line lie: it was cut at
// the 8192nd byte, mid-line, or mid-character in a log that quotes non-ASCII text, and
// lost its last line.
func TestAHugeBuildLogKeepsWholeLinesAndItsLast(t *testing.T) {
	dev := openBackend(t, "opencl")
	code := "__kernel void k(__global float *c) {\n"
	for i := range 150 {
		code += fmt.Sprintf("    c[%d] = größe_%d;\n", i, i)
	}
	code += "}\n"
	s, err := spec.Parse([]byte(`
kernel: {name: k, language: opencl, code: "`+escape(code)+`"}
parameters: [{name: block_size_x, values: [64]}]
problem_size: [64]
arguments:
  - {name: c, type: float32, length: 64, output: true}
iterations: 1
`), "huge_log_test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r, sp := runnerFor(t, s, dev)
	src := s.Source()
	_, full := dev.Compile(context.Background(), device.Source{Code: src.Code, File: src.File, Kernel: "k", Language: "opencl", Defines: []device.Define{{Name: "block_size_x", Value: "64"}}})
	var ce *device.CompileError
	if !errors.As(full, &ce) || len(ce.Log) <= 8192 {
		t.Skipf("the compiler's log is not over 8 KiB: %v", full)
	}
	lines := strings.Split(strings.TrimSpace(ce.Log), "\n")
	e := r.Evaluate(context.Background(), sp.At(0, nil), nil)
	if e.Status != result.CompileError {
		t.Fatalf("%v %q, want a compile error", e.Status, e.Message)
	}
	got := strings.Split(e.Message, "\n")
	if !utf8.ValidString(e.Message) || len(e.Message) > 8192+100 {
		t.Errorf("the message is not valid UTF-8 or too long (%d bytes)", len(e.Message))
	}
	if len(got) < 3 || got[len(got)-1] != lines[len(lines)-1] || got[len(got)-2] != "... (truncated)" {
		t.Fatalf("the message does not end with the log's last line %q after a note of the cut: ...%q", lines[len(lines)-1], got[max(len(got)-3, 0):])
	}
	for i, l := range got[:len(got)-2] {
		if l != lines[i] {
			t.Errorf("line %d is %q, the log's %q", i+1, l, lines[i])
		}
	}
}
