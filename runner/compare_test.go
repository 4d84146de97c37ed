package runner

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/ktune/ktune/spec"
)

// allcloseCheck is the comparison of verification's own atol and rtol.
func allcloseCheck(atol, rtol float64) spec.Check {
	return spec.Check{Method: spec.MethodAllclose, Atol: atol, Rtol: rtol}
}

func f32s(v ...float32) []byte {
	b, _ := binary.Append(nil, binary.LittleEndian, v)
	return b
}

func TestCompareFollowsAllcloseElementByElement(t *testing.T) {
	inf, nan := float32(math.Inf(1)), float32(math.NaN())
	cases := []struct {
		name      string
		got, want []float32
		msg       string // "" when they pass
	}{
		{"equal", []float32{1, 2, 3}, []float32{1, 2, 3}, ""},
		{"within atol + rtol*|want|", []float32{1.05, 200.5}, []float32{1, 200}, ""},
		{"beyond it", []float32{1, 2.2, 3, 4.5}, []float32{1, 2, 3, 4}, "2 of 4 elements differ from the reference; first at index 1: got 2.200000047683716, want 2; largest difference 0.5 at index 3 (got 4.5, want 4), where atol 0.1 + rtol 0.01 * |want| allows 0.14"},
		{"NaN never passes, even against NaN", []float32{1, nan}, []float32{1, nan}, "1 of 2 elements differ from the reference; first at index 1: got NaN, want NaN"},
		{"an infinity passes against itself only", []float32{inf, inf, -inf}, []float32{inf, 1e30, inf}, "2 of 3 elements differ from the reference; first at index 1: got +Inf, want 1.0000000150474662e+30"},
	}
	// unaligned: the same bytes at an odd address, which are decoded rather than viewed
	unaligned := func(b []byte) []byte { return append(make([]byte, 1, len(b)+1), b...)[1:] }
	for _, c := range cases {
		for _, shift := range []bool{false, true} {
			got, want := f32s(c.got...), f32s(c.want...)
			if shift {
				got, want = unaligned(got), unaligned(want)
			}
			msg := compare(spec.ArgInstance{Name: "x", Type: "float32"}, got, want, allcloseCheck(0.1, 0.01))
			if c.msg == "" && msg != "" || c.msg != "" && msg != "output x: "+c.msg {
				t.Errorf("%s (unaligned %v): %q, want %q", c.name, shift, msg, c.msg)
			}
		}
	}
	// Integers match exactly; a signed one reads as signed in the message.
	i32 := func(v ...int32) []byte { b, _ := binary.Append(nil, binary.LittleEndian, v); return b }
	if msg := compare(spec.ArgInstance{Name: "k", Type: "int32"}, i32(5, -1, 7), i32(5, -2, 7), allcloseCheck(10, 10)); msg != "output k: 1 of 3 elements differ from the reference; first at index 1: got -1, want -2" {
		t.Errorf("int32: %q", msg)
	}
	if msg := compare(spec.ArgInstance{Name: "k", Type: "int32"}, i32(5, -1, 7), i32(5, -1), allcloseCheck(0, 0)); msg != "output k has 3 elements, the reference 2" {
		t.Errorf("outputs of different lengths: %q; want their lengths in elements", msg)
	}
	if msg := compare(spec.ArgInstance{Name: "k", Type: "uint8"}, []byte{1, 255}, []byte{1, 255}, allcloseCheck(0, 0)); msg != "" {
		t.Errorf("uint8: %q", msg)
	}
	f64, _ := binary.Append(nil, binary.LittleEndian, []float64{1, 2})
	f64b, _ := binary.Append(nil, binary.LittleEndian, []float64{1, 2 + 1e-9})
	if msg := compare(spec.ArgInstance{Name: "d", Type: "float64"}, f64, f64b, allcloseCheck(0, 0)); !strings.Contains(msg, "1 of 2 elements") {
		t.Errorf("float64 beyond a zero tolerance: %q", msg)
	}
}

// TestHalfOutputsCompareAsFloat64 compares float16 outputs, bits as kernels write them:
// by value within the tolerance (one unit in the last place passes half's default,
// fails float32's), NaNs never, infinities against themselves only.
func TestHalfOutputsCompareAsFloat64(t *testing.T) {
	f16s := func(v ...uint16) []byte { b, _ := binary.Append(nil, binary.LittleEndian, v); return b }
	a := spec.ArgInstance{Name: "h", Type: "float16"}
	got, want := f16s(0x3c00, 0x3c01, 0x7c00, 0x7e00), f16s(0x3c00, 0x3c00, 0x7c00, 0x7e00)
	if msg := compare(a, got, want, allcloseCheck(spec.DefaultHalfAtol, spec.DefaultHalfRtol)); msg != "output h: 1 of 4 elements differ from the reference; first at index 3: got NaN, want NaN" {
		t.Errorf("half's default tolerance: %q", msg)
	}
	want2 := "output h: 2 of 4 elements differ from the reference; first at index 1: got 1.0009765625, want 1; " +
		"that is the largest difference, 0.000977, where atol 1e-06 + rtol 1e-05 * |want| allows 1.1e-05"
	if msg := compare(a, got, want, allcloseCheck(spec.DefaultAtol, spec.DefaultRtol)); msg != want2 {
		t.Errorf("float32's default tolerance: %q, want %q", msg, want2)
	}
	if msg := compare(a, f16s(0xfc00, 0x0001), f16s(0x7c00, 0x8001), allcloseCheck(0, 0)); msg != "output h: 2 of 2 elements differ from the reference; first at index 0: got -Inf, want +Inf; largest difference 1.19e-07 at index 1 (got 5.960464477539063e-08, want -5.960464477539063e-08), where atol 0 + rtol 0 * |want| allows 0" {
		t.Errorf("signs: %q", msg)
	}
}

// TestLargeOutputsAreComparedInPartsWithTheSameVerdict puts mismatches in several parts
// of an output compared in parallel: the count is the sum, the first is the first.
func TestLargeOutputsAreComparedInPartsWithTheSameVerdict(t *testing.T) {
	n := 5*compareChunk + 3
	want := make([]float32, n)
	for i := range want {
		want[i] = float32(i % 1000)
	}
	got := append([]float32(nil), want...)
	for _, i := range []int{n - 1, 4*compareChunk + 7, 3*compareChunk + 1} {
		got[i] += 10
	}
	msg := compare(spec.ArgInstance{Name: "c", Type: "float32"}, f32s(got...), f32s(want...), allcloseCheck(1e-6, 1e-5))
	wantMsg := "output c: 3 of 1310723 elements differ from the reference; first at index 786433: got 443, want 433; " +
		"that is the largest difference, 10, where atol 1e-06 + rtol 1e-05 * |want| allows 0.00433"
	if msg != wantMsg {
		t.Fatalf("%q, want %q", msg, wantMsg)
	}
	bad, first := mismatches("float32", f32s(got...), f32s(want...), 1e-6, 1e-5, false)
	if bad != 3 || first != 3*compareChunk+1 {
		t.Fatalf("one part: %d from %d", bad, first)
	}
}

// BenchmarkCompare compares a 4096 x 4096 float32 output that passes, as the convolution
// example's on a GPU, after every configuration.
func BenchmarkCompare(b *testing.B) {
	n := 4096 * 4096
	want := make([]float32, n)
	for i := range want {
		want[i] = float32(i%977) * 0.37
	}
	got := append([]float32(nil), want...)
	for i := 0; i < n; i += 3 {
		got[i] *= 1 + 1e-7 // near but not equal: the tolerance is computed
	}
	gb, wb := f32s(got...), f32s(want...)
	a := spec.ArgInstance{Name: "c", Type: "float32"}
	b.SetBytes(int64(len(gb)))
	for b.Loop() {
		if msg := compare(a, gb, wb, allcloseCheck(1e-6, 1e-5)); msg != "" {
			b.Fatal(msg)
		}
	}
}
