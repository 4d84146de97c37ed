// Package float16 converts between float64 and IEEE 754 binary16, the half-precision
// format of NumPy's float16, OpenCL's and CUDA's half and C's _Float16: 1 sign bit, 5
// exponent bits and 10 of significand, normal numbers from 2^-14 to 65504 and
// subnormals down to 2^-24. Go has no such type; ktune stores half arrays as these bits.
package float16

import "math"

// Max is the largest finite binary16 value, 65504.
const Max = 65504

// FromFloat64 returns the binary16 nearest to f, ties to the even significand, as IEEE 754
// rounds by default (and NumPy's astype(numpy.float16)): values of 65520 and more in
// magnitude become infinities, values of 2^-25 and less zeros of f's sign, and a NaN a
// quiet NaN that keeps the top of f's payload. It rounds once, from f itself: going
// through float32 would round twice, and differ at some ties.
func FromFloat64(f float64) uint16 {
	b := math.Float64bits(f)
	sign := uint16(b>>48) & 0x8000
	exp := int(b>>52) & 0x7ff
	frac := b & (1<<52 - 1)
	switch {
	case exp == 0x7ff && frac != 0:
		return sign | 0x7e00 | uint16(frac>>42)
	case exp == 0x7ff:
		return sign | 0x7c00
	case exp == 0: // zero, or a float64 subnormal: far below half's smallest subnormal
		return sign
	}
	e := exp - 1023
	if e > 15 {
		return sign | 0x7c00
	}
	m := frac | 1<<52 // the significand, 53 bits
	// Keep 11 bits of a normal number's significand; a subnormal's keeps fewer, for its
	// exponent stays at -14.
	shift := 42
	if e < -14 {
		shift += -14 - e
		if shift > 53 { // below 2^-25: rounds to zero
			return sign
		}
	}
	q := m >> shift
	rest, halfway := m&(1<<shift-1), uint64(1)<<(shift-1)
	if rest > halfway || rest == halfway && q&1 == 1 {
		q++
	}
	if e < -14 {
		// q <= 0x400: a subnormal's significand, or the smallest normal when it rounded up.
		return sign | uint16(q)
	}
	// q is in [0x400, 0x800]: its leading bit adds one to the biased exponent e+14, so a
	// significand that rounded up to 0x800 carries into the exponent, and past 65504 into
	// infinity (0x7c00).
	return sign | uint16(e+14)<<10 + uint16(q)
}

// Float64 returns the value of binary16 bits h, exactly: every binary16 is a float64.
// A NaN keeps its payload and whether it is quiet.
func Float64(h uint16) float64 {
	neg := h&0x8000 != 0
	exp := int(h>>10) & 0x1f
	frac := uint64(h & 0x3ff)
	var v float64
	switch exp {
	case 0:
		v = math.Ldexp(float64(frac), -24)
	case 0x1f:
		if frac != 0 {
			return math.Float64frombits(uint64(h&0x8000)<<48 | 0x7ff<<52 | frac<<42)
		}
		v = math.Inf(1)
	default:
		v = math.Ldexp(float64(frac|0x400), exp-25)
	}
	if neg {
		v = -v
	}
	return v
}
