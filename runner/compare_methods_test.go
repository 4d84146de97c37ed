package runner

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/ktune/ktune/spec"
)

func f64s(v ...float64) []byte {
	b, _ := binary.Append(nil, binary.LittleEndian, v)
	return b
}

// TestEachMethodPassesAtItsToleranceAndFailsJustBelow checks each comparison method at
// the boundary, on data whose sums and norms are exact in binary.
func TestEachMethodPassesAtItsToleranceAndFailsJustBelow(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	sum := func(tol float64) spec.Check { return spec.Check{Method: spec.MethodAbsoluteSum, Tolerance: tol} }
	rel := func(tol float64) spec.Check { return spec.Check{Method: spec.MethodRelativeNorm, Tolerance: tol} }
	cases := []struct {
		name      string
		got, want []float64
		check     spec.Check
		msg       string // "" when they pass
	}{
		{"absolute_sum at its tolerance", []float64{1, 2.5, 3}, []float64{1, 2, 3.25}, sum(0.75), ""},
		{"absolute_sum just below", []float64{1, 2.5, 3}, []float64{1, 2, 3.25}, sum(0.625),
			"output c: absolute_sum: the sum of |got - want| over its 3 elements is 0.75, above the tolerance 0.625; 2 of 3 elements differ, the most by 0.5 at index 1 (got 2.5, want 2)"},
		{"relative_norm at its tolerance", []float64{3, 2, 2, 2}, []float64{2, 2, 2, 2}, rel(0.25), ""},
		{"relative_norm just below", []float64{3, 2, 2, 2}, []float64{2, 2, 2, 2}, rel(0.24),
			"output c: relative_norm: ||got - want|| / ||want|| over its 4 elements is 0.25, above the tolerance 0.24 (||got - want|| = 1, ||want|| = 4); 1 of 4 elements differ, the most by 1 at index 0 (got 3, want 2)"},
		{"relative_norm of an all-zero reference passes zeros only", []float64{0, 0}, []float64{0, 0}, rel(0), ""},
		{"relative_norm of an all-zero reference", []float64{0, 1e-30}, []float64{0, 0}, rel(1e10),
			"output c: relative_norm: ||got - want|| / ||want|| over its 2 elements is +Inf, above the tolerance 1e+10 (||got - want|| = 1e-30, ||want|| = 0); 1 of 2 elements differ, the most by 1e-30 at index 1 (got 1e-30, want 0)"},
		{"norms of huge values do not overflow", []float64{1e300, 2e300}, []float64{1e300, 1e300}, rel(0.71), ""},
		{"norms of huge values, just below", []float64{1e300, 2e300}, []float64{1e300, 1e300}, rel(0.7), "output c: relative_norm: ||got - want|| / ||want|| over its 2 elements is 0.707, above the tolerance 0.7 (||got - want|| = 1e+300, ||want|| = 1.41e+300); 1 of 2 elements differ, the most by 1e+300 at index 1 (got 2e+300, want 1e+300)"},
		{"a NaN fails whatever the tolerance", []float64{1, nan}, []float64{1, 2}, sum(inf),
			"output c: absolute_sum: element 1 is NaN, the reference 2, which no tolerance covers (a NaN never passes; an infinity passes only against the same infinity)"},
		{"an infinity passes against itself and counts in no norm", []float64{inf, 3, 2}, []float64{inf, 2, 2}, rel(0.5), ""},
		{"an infinity against a number fails", []float64{1, 2}, []float64{1, -inf}, rel(inf),
			"output c: relative_norm: element 1 is 2, the reference -Inf, which no tolerance covers (a NaN never passes; an infinity passes only against the same infinity)"},
		{"a range compares its elements only", []float64{1, 2, 3, 9}, []float64{1, 2, 3, 4}, spec.Check{Method: spec.MethodAllclose, End: 3}, ""},
		{"a range's indices are the output's", []float64{1, 2, 3, 9}, []float64{1, 2, 3, 4}, spec.Check{Method: spec.MethodAllclose, Start: 2, End: 4},
			"output c[2:4]: 1 of 2 elements differ from the reference; first at index 3: got 9, want 4; that is the largest difference, 5, where atol 0 + rtol 0 * |want| allows 0"},
		{"a range under absolute_sum", []float64{1, 2, 3, 9}, []float64{1, 2.5, 3, 4}, spec.Check{Method: spec.MethodAbsoluteSum, Tolerance: 0.25, Start: 1, End: 3},
			"output c[1:3]: absolute_sum: the sum of |got - want| over its 2 elements is 0.5, above the tolerance 0.25; 1 of 2 elements differ, the most by 0.5 at index 1 (got 2, want 2.5)"},
		{"a range beyond the output", []float64{1, 2}, []float64{1, 2}, spec.Check{Method: spec.MethodAllclose, End: 3},
			"output c: its range [0, 3) goes beyond its 2 elements; give it a range that every configuration's output holds"},
	}
	for _, c := range cases {
		msg := compare(spec.ArgInstance{Name: "c", Type: "float64"}, f64s(c.got...), f64s(c.want...), c.check)
		if msg != c.msg {
			t.Errorf("%s:\n got %q\nwant %q", c.name, msg, c.msg)
		}
	}
}

// TestNormwiseMethodsReadIntegersAndFloat32 compares integer and float32 outputs by the
// methods that allow a tolerance.
func TestNormwiseMethodsReadIntegersAndFloat32(t *testing.T) {
	i32 := func(v ...int32) []byte { b, _ := binary.Append(nil, binary.LittleEndian, v); return b }
	u8 := spec.ArgInstance{Name: "k", Type: "int32"}
	if msg := compare(u8, i32(5, -1, 7), i32(5, -3, 7), spec.Check{Method: spec.MethodAbsoluteSum, Tolerance: 2}); msg != "" {
		t.Errorf("int32 within the sum: %q", msg)
	}
	want := "output k: absolute_sum: the sum of |got - want| over its 3 elements is 2, above the tolerance 1; 1 of 3 elements differ, the most by 2 at index 1 (got -1, want -3)"
	if msg := compare(u8, i32(5, -1, 7), i32(5, -3, 7), spec.Check{Method: spec.MethodAbsoluteSum, Tolerance: 1}); msg != want {
		t.Errorf("int32 beyond the sum:\n got %q\nwant %q", msg, want)
	}
	// float32 elements are compared as the float32 values they are: 0.1f is not 0.1
	f := spec.ArgInstance{Name: "x", Type: "float32"}
	got, ref := f32s(0.5, 1.25), f32s(0.25, 1)
	if msg := compare(f, got, ref, spec.Check{Method: spec.MethodAbsoluteSum, Tolerance: 0.5}); msg != "" {
		t.Errorf("float32 at the sum: %q", msg)
	}
	if msg := compare(f, got, ref, spec.Check{Method: spec.MethodAbsoluteSum, Tolerance: 0.4999}); msg == "" {
		t.Error("float32 below the sum passed")
	}
}

// BenchmarkCompareRelativeNorm is BenchmarkCompare's output by relative_norm.
func BenchmarkCompareRelativeNorm(b *testing.B) {
	n := 4096 * 4096
	want := make([]float32, n)
	for i := range want {
		want[i] = float32(i%977) * 0.37
	}
	got := append([]float32(nil), want...)
	for i := 0; i < n; i += 3 {
		got[i] *= 1 + 1e-7
	}
	gb, wb := f32s(got...), f32s(want...)
	a := spec.ArgInstance{Name: "c", Type: "float32"}
	c := spec.Check{Method: spec.MethodRelativeNorm, Tolerance: 1e-6}
	b.SetBytes(int64(len(gb)))
	for b.Loop() {
		if msg := compare(a, gb, wb, c); msg != "" {
			b.Fatal(msg)
		}
	}
}

// TestMeasureInPartsAgreesWithOnePass measures an output of several parts on every
// core: with differences whose sums are exact in any order, every figure is the one
// pass's; the worst is the first of equal ones; a NaN is found in a later part.
func TestMeasureInPartsAgreesWithOnePass(t *testing.T) {
	n := 3*compareChunk + 5
	want := make([]float32, n)
	got := make([]float32, n)
	for i := range want {
		want[i] = float32(i%64) + 1
		got[i] = want[i]
	}
	for _, k := range []int{7, compareChunk + 3, 2*compareChunk + 11, n - 1} {
		got[k] += 0.5 // the worst, four times: the first is at 7
	}
	for k := 0; k < n; k += 1001 {
		if got[k] == want[k] {
			got[k] += 0.125
		}
	}
	gb, wb := f32s(got...), f32s(want...)
	one, parts := measure("float32", gb, wb), measureAll("float32", gb, wb)
	if parts.n != one.n || parts.differ != one.differ || parts.sum != one.sum || parts.worst != 7 || one.worst != 7 || parts.worstDiff != 0.5 {
		t.Errorf("in parts %+v, in one pass %+v", parts, one)
	}
	if r1, r2 := one.relative(), parts.relative(); math.Abs(r1-r2) > 1e-12*r1 {
		t.Errorf("relative norm %v in parts, %v in one pass", r2, r1)
	}
	got[2*compareChunk+20] = float32(math.NaN())
	if dv := measureAll("float32", f32s(got...), wb); dv.bad != 2*compareChunk+20 {
		t.Errorf("a NaN at %d: bad %d", 2*compareChunk+20, dv.bad)
	}
}

// TestNormwiseReadsFloat16 compares float16 outputs by absolute_sum: halves read as
// their values (1.5 and 0.25 differ from 1 and 0 by 0.75 in all).
func TestNormwiseReadsFloat16(t *testing.T) {
	h := func(v ...uint16) []byte { b, _ := binary.Append(nil, binary.LittleEndian, v); return b }
	a := spec.ArgInstance{Name: "h", Type: "float16"}
	got, want := h(0x3e00, 0x3400), h(0x3c00, 0x0000) // 1.5, 0.25 against 1, 0
	if msg := compare(a, got, want, spec.Check{Method: spec.MethodAbsoluteSum, Tolerance: 0.75}); msg != "" {
		t.Errorf("at the tolerance: %q", msg)
	}
	if msg := compare(a, got, want, spec.Check{Method: spec.MethodAbsoluteSum, Tolerance: 0.74}); !strings.Contains(msg, "is 0.75, above the tolerance 0.74") {
		t.Errorf("below it: %q", msg)
	}
}
