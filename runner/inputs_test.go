package runner

import (
	"context"
	"encoding/binary"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/ktune/ktune/device"
	_ "github.com/ktune/ktune/device/opencl"
	"github.com/ktune/ktune/spec"
)

// An input is compared bit for bit, element by element of its type: the first changed
// element is named with its values in that type, and a NaN of other bits is a change.
func TestInputChangedNamesTheFirstElementInItsType(t *testing.T) {
	f32 := func(vs ...uint32) []byte {
		b := make([]byte, 4*len(vs))
		for i, v := range vs {
			binary.LittleEndian.PutUint32(b[4*i:], v)
		}
		return b
	}
	one, two := math.Float32bits(1), math.Float32bits(2)
	nan, otherNaN := uint32(0x7fc00000), uint32(0x7fc00001)
	for _, c := range []struct {
		name, typ string
		was, got  []byte
		want      string // how the message ends; "" for unchanged
	}{
		{"unchanged floats", "float32", f32(one, two), f32(one, two), ""},
		{"a float", "float32", f32(one, two, one), f32(one, one, two), "2 of its 3 elements differ from the data it was given; first at index 1: was 2, now 1"},
		{"a NaN of other bits", "float32", f32(nan, one), f32(otherNaN, one), "1 of its 2 elements differ from the data it was given; first at index 0: was NaN (bits 0x7fc00000), now NaN (bits 0x7fc00001)"},
		{"the same NaN", "float32", f32(nan), f32(nan), ""},
		{"a signed byte", "int8", []byte{1, 2, 3}, []byte{1, 2, 0xfd}, "first at index 2: was 3, now -3"},
		{"an unsigned byte", "uint8", []byte{1, 2, 3}, []byte{1, 2, 0xfd}, "first at index 2: was 3, now 253"},
		{"a half", "float16", []byte{0, 0x3c, 0, 0x40}, []byte{0, 0x3c, 0, 0xc0}, "first at index 1: was 2, now -2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := spec.ArgInstance{Name: "x", Kind: spec.ArgArray, Type: c.typ, Length: len(c.was) / elemSize(c.typ), Bytes: len(c.was)}
			msg := inputChanged(a, c.got, c.was)
			switch {
			case c.want == "" && msg != "":
				t.Errorf("unchanged input: %q", msg)
			case c.want != "" && (!strings.HasPrefix(msg, "input x was changed by the kernel: ") || !strings.HasSuffix(msg, c.want)):
				t.Errorf("message %q, want one with %q", msg, c.want)
			}
		})
	}
}

// BenchmarkChangedInputs is what verification adds to each configuration to check that
// the kernel left its inputs unchanged: reading back a 64 MiB float32 input from an
// OpenCL device (PoCL here: a copy in host memory) and comparing it with its data.
func BenchmarkChangedInputs(b *testing.B) {
	runtime.LockOSThread()
	be, ok := device.Lookup("opencl")
	if !ok {
		b.Skip("backend opencl is not registered")
	}
	if devs, err := be.Devices(); err != nil || len(devs) == 0 {
		b.Skipf("no OpenCL device here: %v", err)
	}
	dev, err := be.Open(context.Background(), 0)
	if err != nil {
		b.Skip(err)
	}
	defer dev.Close()
	s, err := spec.Parse([]byte(`
kernel: {name: f, language: opencl, code: "__kernel void f(__global float *y, __global const float *x) {}"}
constants: {N: 16 * 1024 * 1024}
parameters:
  - {name: block_size_x, values: [64]}
problem_size: [N]
arguments:
  - {name: y, type: float32, length: 1, output: true}
  - {name: x, type: float32, length: N, fill: random}
`), "bench.yaml")
	if err != nil {
		b.Fatal(err)
	}
	sp, err := s.Space()
	if err != nil {
		b.Fatal(err)
	}
	r := New(s, sp, dev)
	defer r.Close()
	inst, err := s.Instance(sp.Values(sp.At(0, nil)))
	if err != nil {
		b.Fatal(err)
	}
	_, bufs, err := r.arguments(inst)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(inst.Args[1].Bytes))
	for b.Loop() {
		if msg, err := r.changedInputs(inst, bufs, nil); err != nil || msg != "" {
			b.Fatalf("%q %v", msg, err)
		}
	}
}
