package expr

import (
	"math"

	"github.com/ktune/ktune/space"
)

// interval is the least and greatest value an integer expression takes over every
// combination of the values of the parameters it reads.
type interval struct{ lo, hi float64 }

// exactInts bounds the integers the analysis follows: below 2**53 a float64 holds every
// integer, so the bounds are exact and the restriction computes what Python computes.
const exactInts = 1 << 53

// holdsAlways proves that the restriction n holds for every combination of the values of
// the parameters it reads, each of which takes the values of its interval in ints (an
// integer or boolean parameter, or a named constant). The proof is interval arithmetic
// over +, -, * and unary signs of integers, comparisons (chained too), and, or, not and
// truthiness, and it follows every part of n: anything else (a float, a string, a
// division, a call, a condition) proves nothing, so false means "not proven", never
// "false somewhere", and a proven restriction has no part that could fail as Python's
// division by zero does.
func holdsAlways(n Node, ints intRanges) bool {
	always, _, ok := truth(n, ints)
	return ok && always
}

// truth says whether n is true for every combination (always) or for none (never); ok is
// false when the analysis does not follow every part of n.
func truth(n Node, ints intRanges) (always, never, ok bool) {
	switch n := n.(type) {
	case *boolLit:
		return n.b, !n.b, true
	case *unary:
		if n.op == "not" {
			a, nv, ok := truth(n.x, ints)
			return nv, a, ok
		}
	case *boolOp:
		la, ln, lok := truth(n.l, ints)
		ra, rn, rok := truth(n.r, ints)
		if n.op == "and" {
			return la && ra, ln || rn, lok && rok
		}
		return la || ra, ln && rn, lok && rok
	case *compare:
		always, never = true, false
		for k, op := range n.ops {
			l, lok := intRange(n.args[k], ints)
			r, rok := intRange(n.args[k+1], ints)
			if !lok || !rok {
				return false, false, false
			}
			a, nv := compareRanges(op, l, r)
			always = always && a
			never = never || nv
		}
		return always, never, true
	}
	// a number's truthiness: not zero
	if r, ok := intRange(n, ints); ok {
		return r.lo > 0 || r.hi < 0, r.lo == 0 && r.hi == 0, true
	}
	return false, false, false
}

// compareRanges says whether l op r holds for all values of the intervals, or for none.
func compareRanges(op string, l, r interval) (always, never bool) {
	switch op {
	case "<":
		return l.hi < r.lo, l.lo >= r.hi
	case "<=":
		return l.hi <= r.lo, l.lo > r.hi
	case ">":
		return l.lo > r.hi, l.hi <= r.lo
	case ">=":
		return l.lo >= r.hi, l.hi < r.lo
	case "==":
		return l.lo == l.hi && r.lo == r.hi && l.lo == r.lo, l.hi < r.lo || r.hi < l.lo
	case "!=":
		return l.hi < r.lo || r.hi < l.lo, l.lo == l.hi && r.lo == r.hi && l.lo == r.lo
	}
	return false, false // in, not in: not followed (intRange refuses their lists)
}

// intRange is the interval of the integer expression n, and false when n is not one the
// analysis follows or its bounds reach 2**53.
func intRange(n Node, ints intRanges) (interval, bool) {
	var r interval
	switch n := n.(type) {
	case *numLit:
		if !n.isInt {
			return r, false
		}
		r = interval{float64(n.i), float64(n.i)}
	case *boolLit:
		if n.b {
			r = interval{1, 1}
		}
	case *name:
		var ok bool
		if r, ok = ints.of(n.id); !ok {
			return r, false
		}
	case *unary:
		x, ok := intRange(n.x, ints)
		switch {
		case !ok:
			return r, false
		case n.op == "+":
			r = x
		case n.op == "-":
			r = interval{-x.hi, -x.lo}
		default:
			return r, false
		}
	case *binary:
		a, aok := intRange(n.l, ints)
		b, bok := intRange(n.r, ints)
		if !aok || !bok {
			return r, false
		}
		switch n.op {
		case "+":
			r = interval{a.lo + b.lo, a.hi + b.hi}
		case "-":
			r = interval{a.lo - b.hi, a.hi - b.lo}
		case "*":
			p := [4]float64{a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi}
			r = interval{min(p[0], p[1], p[2], p[3]), max(p[0], p[1], p[2], p[3])}
		default:
			return r, false
		}
	default:
		return r, false
	}
	if math.Abs(r.lo) >= exactInts || math.Abs(r.hi) >= exactInts {
		return r, false
	}
	return r, true
}

// intRanges gives the intervals of the integer and boolean parameters among params and of
// the integral constants, for holdsAlways; a parameter with any other value has none.
type intRanges struct {
	params    []space.Param
	constants map[string]float64
}

// of is the interval of the values of the parameter or constant name.
func (in intRanges) of(name string) (interval, bool) {
	for _, p := range in.params {
		if p.Name != name {
			continue
		}
		// a parameter hides a constant of its name
		r := interval{math.Inf(1), math.Inf(-1)}
		for _, v := range p.Values {
			if k := v.Kind(); k != space.Int && k != space.Bool {
				return r, false
			}
			r.lo, r.hi = min(r.lo, v.Float()), max(r.hi, v.Float())
		}
		return r, len(p.Values) > 0 && math.Abs(r.lo) < exactInts && math.Abs(r.hi) < exactInts
	}
	if v, ok := in.constants[name]; ok && v == math.Trunc(v) && math.Abs(v) < exactInts {
		return interval{v, v}, true
	}
	return interval{}, false
}
