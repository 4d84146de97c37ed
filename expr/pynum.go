package expr

import (
	"math"
	"math/big"
)

// Python's number semantics that the interpreter and the compiled closures share.

func isBitwise(op string) bool {
	switch op {
	case "&", "|", "^", "<<", ">>":
		return true
	}
	return false
}

// intBitwise is l op r on ints for & | ^ << >>; msg is Python's error (a negative shift
// count) or the result's not fitting in 64 bits.
func intBitwise(op string, l, r int64) (v int64, msg string) {
	switch op {
	case "&":
		return l & r, ""
	case "|":
		return l | r, ""
	case "^":
		return l ^ r, ""
	}
	if r < 0 {
		return 0, "negative shift count"
	}
	if op == ">>" {
		return l >> min(r, 63), "" // an arithmetic shift floors, as Python's does
	}
	if l == 0 {
		return 0, ""
	}
	if r >= 64 || (l<<r)>>r != l {
		return 0, "integer result beyond 64 bits (ktune has no big integers)"
	}
	return l << r, ""
}

// floatPow is Python's float ** float; msg is the exception Python raises where C's pow
// would give an infinity or NaN from finite operands.
func floatPow(x, y float64) (float64, string) {
	v := math.Pow(x, y)
	if v-v == 0 || !isFinite(x) || !isFinite(y) {
		return v, "" // finite, or inf and NaN operands, which Python passes through
	}
	switch {
	case x == 0 && y < 0:
		return 0, "0.0 cannot be raised to a negative power"
	case x < 0 && y != math.Trunc(y):
		return 0, "a negative number to a fractional power is complex, which is not supported"
	}
	return 0, "float ** overflows (Python raises OverflowError)"
}

func isFinite(x float64) bool { return x-x == 0 }

// roundIntDigits is Python's round(i, n) for an int i: i itself for n >= 0, else the
// nearest multiple of 10**-n, halves to even.
func roundIntDigits(i, n int64) int64 {
	if n >= 0 {
		return i
	}
	if n < -18 {
		return 0 // |i| < 9.3e18 < 10**19 / 2
	}
	p := int64(1)
	for range -n {
		p *= 10
	}
	q, r := i/p, i%p
	if r < 0 {
		q, r = q-1, r+p
	}
	// i == q*p + r with 0 <= r < p; halves go to the even multiple.
	if 2*r > p || (2*r == p && q%2 != 0) {
		q++
	}
	return q * p
}

// ndigits beyond which Python's round(x, n) of a float returns x (n large) or a zero of
// x's sign (n very negative): CPython's NDIGITS_MAX and NDIGITS_MIN.
const (
	roundDigitsMax = 323
	roundDigitsMin = -308
)

// roundFloatDigits is Python's round(x, n) for a float x: the multiple of 10**-n nearest
// to x's exact value (halves to even), then the float nearest to that; false when it is
// too large for a float (Python's OverflowError).
func roundFloatDigits(x float64, n int64) (float64, bool) {
	switch {
	case !isFinite(x) || x == 0 || n > roundDigitsMax:
		return x, true
	case n < roundDigitsMin:
		return 0 * x, true
	}
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(abs64(n)), nil)
	v := new(big.Rat).SetFloat64(x)
	s := new(big.Rat).SetInt(scale)
	if n >= 0 {
		v.Mul(v, s)
	} else {
		v.Quo(v, s)
	}
	// q = floor(v), rounded half to even
	q, r := new(big.Int).QuoRem(v.Num(), v.Denom(), new(big.Int))
	if r.Sign() < 0 {
		q.Sub(q, big.NewInt(1))
		r.Add(r, v.Denom())
	}
	switch c := new(big.Int).Lsh(r, 1).Cmp(v.Denom()); {
	case c > 0, c == 0 && q.Bit(0) == 1:
		q.Add(q, big.NewInt(1))
	}
	res := new(big.Rat).SetInt(q)
	if n >= 0 {
		res.Quo(res, s)
	} else {
		res.Mul(res, s)
	}
	f, _ := res.Float64()
	if math.IsInf(f, 0) {
		return 0, false
	}
	if f == 0 {
		return 0 * x, true // Python keeps the sign: round(-0.4, 0) == -0.0
	}
	return f, true
}

func abs64(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}
