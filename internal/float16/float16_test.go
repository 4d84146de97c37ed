package float16

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestKnownBitPatterns checks values whose binary16 encodings are fixed by IEEE 754, and
// the roundings at the edges: ties to even, overflow to infinity, subnormals.
func TestKnownBitPatterns(t *testing.T) {
	cases := []struct {
		f    float64
		bits uint16
	}{
		{0, 0x0000},
		{math.Copysign(0, -1), 0x8000},
		{1, 0x3c00},
		{-2, 0xc000},
		{0.5, 0x3800},
		{65504, 0x7bff},                 // the largest finite
		{-65504, 0xfbff},                //
		{65519.99, 0x7bff},              // below the midpoint to 65536: rounds down
		{65520, 0x7c00},                 // the midpoint, a tie to the even 65536: infinity
		{1e6, 0x7c00},                   //
		{math.Inf(-1), 0xfc00},          //
		{0x1p-14, 0x0400},               // the smallest normal
		{0x1p-24, 0x0001},               // the smallest subnormal
		{0x3ffp-24, 0x03ff},             // the largest subnormal
		{0x1p-25, 0x0000},               // a tie between 0 and 2^-24: to even, zero
		{0x1.000001p-25, 0x0001},        // just above it
		{-0x1p-26, 0x8000},              // underflows to -0
		{1.5 * 0x1p-24, 0x0002},         // a subnormal tie, to even
		{0x3ff8p-28, 0x0400},            // the largest subnormal plus a half step: up to the smallest normal
		{0.1, 0x2e66},                   //
		{1.0 / 3, 0x3555},               //
		{1 + 0x1p-11, 0x3c00},           // tie, to even (down)
		{1 + 3*0x1p-11, 0x3c02},         // tie, to even (up)
		{1 + 0x1p-11 + 0x1p-40, 0x3c01}, // just past the tie
		{2047.5, 0x6800},                // 2048 in the next binade, by carry
		{3.140625, 0x4248},              //
		{1e-300, 0x0000},                //
		{math.SmallestNonzeroFloat64, 0},
	}
	for _, c := range cases {
		if got := FromFloat64(c.f); got != c.bits {
			t.Errorf("FromFloat64(%v) = %#04x, want %#04x", c.f, got, c.bits)
		}
	}
	for _, c := range []struct {
		bits uint16
		f    float64
	}{{0x3c00, 1}, {0x7bff, 65504}, {0x0001, 0x1p-24}, {0x2e66, 0.0999755859375}, {0xfc00, math.Inf(-1)}, {0x8001, -0x1p-24}, {0x3555, 0.333251953125}} {
		if got := Float64(c.bits); got != c.f {
			t.Errorf("Float64(%#04x) = %v, want %v", c.bits, got, c.f)
		}
	}
}

// TestNaNsStayNaNs checks that NaNs convert to NaNs both ways, keeping sign and payload.
func TestNaNsStayNaNs(t *testing.T) {
	if h := FromFloat64(math.NaN()); h&0x7c00 != 0x7c00 || h&0x3ff == 0 {
		t.Errorf("FromFloat64(NaN) = %#04x, not a NaN", h)
	}
	for _, h := range []uint16{0x7c01, 0x7e00, 0xfe00, 0x7fff} {
		f := Float64(h)
		if !math.IsNaN(f) {
			t.Fatalf("Float64(%#04x) = %v, not a NaN", h, f)
		}
		if back := FromFloat64(f); back != h|0x0200 {
			t.Errorf("%#04x -> %v -> %#04x, want the quiet NaN %#04x", h, f, back, h|0x200)
		}
	}
}

// TestEveryHalfRoundTrips converts all 63,490 non-NaN binary16 values to float64 and
// back: each must come back as itself, and be strictly ordered with its neighbours.
func TestEveryHalfRoundTrips(t *testing.T) {
	var order []uint16 // -inf, -65504, ..., -0, then 0, ..., 65504, +inf
	for h := 0xfc00; h >= 0x8000; h-- {
		order = append(order, uint16(h))
	}
	for h := 0; h <= 0x7c00; h++ {
		order = append(order, uint16(h))
	}
	prev := math.Inf(-1)
	for i, h := range order {
		f := Float64(h)
		if back := FromFloat64(f); back != h {
			t.Fatalf("%#04x -> %v -> %#04x", h, f, back)
		}
		if i > 0 && !(f > prev) && !(f == 0 && prev == 0) {
			t.Fatalf("%#04x = %v is not above the half before it, %v", h, f, prev)
		}
		prev = f
	}
	if len(order) != 63490 {
		t.Errorf("%d values, want 63,490: 65,536 less 2,046 NaNs", len(order))
	}
}

// TestRoundsToNearest draws float64s across half's range and checks that no other half
// is nearer than the one FromFloat64 picks, and that at a tie it picks the even one.
func TestRoundsToNearest(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		f := math.Ldexp(r.Float64()*2-1, r.IntN(44)-26) // |f| from about 2^-27 to 2^17
		h := FromFloat64(f)
		got := Float64(h)
		if math.IsInf(got, 0) {
			if math.Abs(f) < 65520 {
				t.Fatalf("%v became %v", f, got)
			}
			continue
		}
		d := math.Abs(f - got)
		for _, n := range []uint16{h + 1, h - 1} {
			nv := Float64(n)
			if n&0x7c00 == 0x7c00 || math.Signbit(nv) != math.Signbit(got) && got != 0 {
				continue
			}
			nd := math.Abs(f - nv)
			if nd < d || nd == d && h&1 == 1 {
				t.Fatalf("%v: FromFloat64 gives %#04x (%v, off %v), but %#04x (%v) is off %v", f, h, got, d, n, nv, nd)
			}
		}
	}
}
