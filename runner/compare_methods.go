package runner

import (
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/ktune/ktune/internal/float16"
	"github.com/ktune/ktune/spec"
)

// compare checks an output against its reference as c says: the elements of c's range
// (the whole output when it has none) by c's method. It returns "" when they pass, else
// a message that names the output, the method and what failed against which tolerance.
func compare(a spec.ArgInstance, got, want []byte, c spec.Check) string {
	got, want, name, msg := inRange(a, got, want, c)
	if msg != "" {
		return msg
	}
	from := c.Start
	switch c.Method {
	case spec.MethodAbsoluteSum, spec.MethodRelativeNorm:
		return normwise(a.Type, got, want, c, name, from)
	}
	return allclose(a, got, want, c.Atol, c.Rtol, c.EqualNaN, name, from)
}

// inRange returns the elements of got and want that c compares (its range, or all) and
// the output's name for messages ("c[10:20]" for a range); or why it cannot, when the
// range goes beyond the output.
func inRange(a spec.ArgInstance, got, want []byte, c spec.Check) (g, w []byte, name, msg string) {
	if c.End == 0 {
		return got, want, a.Name, ""
	}
	size := elemSize(a.Type)
	if n := min(len(got), len(want)) / size; c.End > n {
		return nil, nil, "", fmt.Sprintf("output %s: its range [%d, %d) goes beyond its %d elements; give it a range that every configuration's output holds",
			a.Name, c.Start, c.End, n)
	}
	return got[c.Start*size : c.End*size], want[c.Start*size : c.End*size], fmt.Sprintf("%s[%d:%d]", a.Name, c.Start, c.End), ""
}

// deviation is what absolute_sum and relative_norm measure of an output against its
// reference.
type deviation struct {
	n, differ int     // elements, and those that differ at all
	sum       float64 // sum of |got - want|
	// the Euclidean norms ||got - want|| and ||want||, each scale * sqrt(ssq) so that
	// squares neither overflow nor underflow (as LAPACK's dlassq)
	dScale, dSSQ, wScale, wSSQ float64
	worst                      int // the element of the largest |got - want|; -1: none differ
	worstDiff                  float64
	bad                        int // the first element whose difference is not finite; -1: none
}

// measure walks got and want, elements of type typ. Equal elements (equal infinities
// among them) differ by 0; a NaN, or an infinity against anything but itself, is bad,
// and measuring stops there. Infinities do not count in ||want||.
func measure(typ string, got, want []byte) deviation {
	gv, wv := numbers(typ, got), numbers(typ, want)
	dv := deviation{n: len(got) / elemSize(typ), worst: -1, bad: -1, dSSQ: 1, wSSQ: 1}
	for k := range dv.n {
		g, w := gv(k), wv(k)
		if !math.IsInf(w, 0) {
			addSquare(&dv.wScale, &dv.wSSQ, w)
		}
		if g == w {
			continue
		}
		d := math.Abs(g - w)
		if math.IsNaN(d) || math.IsInf(d, 0) {
			dv.bad = k
			return dv
		}
		dv.differ++
		dv.sum += d
		addSquare(&dv.dScale, &dv.dSSQ, d)
		if d > dv.worstDiff {
			dv.worst, dv.worstDiff = k, d
		}
	}
	return dv
}

// addSquare adds x*x to the sum of squares scale**2 * ssq.
func addSquare(scale, ssq *float64, x float64) {
	ax := math.Abs(x)
	switch {
	case ax == 0:
	case ax > *scale:
		r := *scale / ax
		*ssq = 1 + *ssq*r*r
		*scale = ax
	default:
		r := ax / *scale
		*ssq += r * r
	}
}

// relative is ||got - want|| / ||want||: 0 when nothing differs, +Inf when the reference
// is all zeros and the output is not.
func (dv deviation) relative() float64 {
	if dv.dScale == 0 {
		return 0
	}
	if dv.wScale == 0 {
		return math.Inf(1)
	}
	return dv.dScale / dv.wScale * math.Sqrt(dv.dSSQ/dv.wSSQ)
}

func norm(scale, ssq float64) float64 { return scale * math.Sqrt(ssq) }

// measureAll is measure over outputs of any size: parts of compareChunk elements are
// measured on every core, then combined in order, so the verdict does not depend on the
// number of cores (the parts' sums are added in the same order on any machine).
func measureAll(typ string, got, want []byte) deviation {
	size := elemSize(typ)
	n := len(got) / size
	parts := (n + compareChunk - 1) / compareChunk
	if parts <= 1 {
		return measure(typ, got, want)
	}
	dvs := make([]deviation, parts)
	next := make(chan int, parts)
	for p := range parts {
		next <- p
	}
	close(next)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), parts) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range next {
				lo, hi := p*compareChunk, min((p+1)*compareChunk, n)
				dvs[p] = measure(typ, got[lo*size:hi*size], want[lo*size:hi*size])
			}
		}()
	}
	wg.Wait()
	dv := deviation{n: n, worst: -1, bad: -1, dSSQ: 1, wSSQ: 1}
	for p, part := range dvs {
		lo := p * compareChunk
		if part.bad >= 0 {
			dv.bad = lo + part.bad
			return dv
		}
		dv.differ += part.differ
		dv.sum += part.sum
		addScaled(&dv.dScale, &dv.dSSQ, part.dScale, part.dSSQ)
		addScaled(&dv.wScale, &dv.wSSQ, part.wScale, part.wSSQ)
		if part.worst >= 0 && part.worstDiff > dv.worstDiff { // ties: the first, as measure
			dv.worst, dv.worstDiff = lo+part.worst, part.worstDiff
		}
	}
	return dv
}

// addScaled adds the sum of squares scale2**2 * ssq2 to scale**2 * ssq.
func addScaled(scale, ssq *float64, scale2, ssq2 float64) {
	switch {
	case scale2 == 0:
	case scale2 > *scale:
		r := *scale / scale2
		*ssq = ssq2 + *ssq*r*r
		*scale = scale2
	default:
		r := scale2 / *scale
		*ssq += ssq2 * r * r
	}
}

// normwise compares by absolute_sum or relative_norm (c.Method).
func normwise(typ string, got, want []byte, c spec.Check, name string, from int) string {
	size := elemSize(typ)
	dv := measureAll(typ, got, want)
	value := func(b []byte, k int) float64 { return numbers(typ, b[k*size:(k+1)*size])(0) }
	if dv.bad >= 0 {
		return fmt.Sprintf("output %s: %s: element %d is %v, the reference %v, which no tolerance covers (a NaN never passes; an infinity passes only against the same infinity)",
			name, c.Method, from+dv.bad, value(got, dv.bad), value(want, dv.bad))
	}
	var msg string
	switch c.Method {
	case spec.MethodAbsoluteSum:
		if dv.sum <= c.Tolerance {
			return ""
		}
		msg = fmt.Sprintf("output %s: %s: the sum of |got - want| over its %d elements is %.3g, above the tolerance %v",
			name, c.Method, dv.n, dv.sum, c.Tolerance)
	default:
		rel := dv.relative()
		if rel <= c.Tolerance {
			return ""
		}
		msg = fmt.Sprintf("output %s: %s: ||got - want|| / ||want|| over its %d elements is %.3g, above the tolerance %v (||got - want|| = %.3g, ||want|| = %.3g)",
			name, c.Method, dv.n, rel, c.Tolerance, norm(dv.dScale, dv.dSSQ), norm(dv.wScale, dv.wSSQ))
	}
	return msg + fmt.Sprintf("; %d of %d elements differ, the most by %.3g at index %d (got %v, want %v)",
		dv.differ, dv.n, dv.worstDiff, from+dv.worst, value(got, dv.worst), value(want, dv.worst))
}

// numbers gives element k of b, of type typ, as a float64 (64-bit integers beyond 2**53
// rounded).
func numbers(typ string, b []byte) func(k int) float64 {
	switch typ {
	case "float16":
		return func(k int) float64 { return float16.Float64(binary.LittleEndian.Uint16(b[2*k:])) }
	case "float32":
		v := view(b, binary.LittleEndian.Uint32)
		return func(k int) float64 { return float64(math.Float32frombits(v[k])) }
	case "float64":
		v := view(b, binary.LittleEndian.Uint64)
		return func(k int) float64 { return math.Float64frombits(v[k]) }
	case "int8":
		return func(k int) float64 { return float64(int8(b[k])) }
	case "uint8":
		return func(k int) float64 { return float64(b[k]) }
	case "int16":
		return func(k int) float64 { return float64(int16(binary.LittleEndian.Uint16(b[2*k:]))) }
	case "uint16":
		return func(k int) float64 { return float64(binary.LittleEndian.Uint16(b[2*k:])) }
	case "int32":
		return func(k int) float64 { return float64(int32(binary.LittleEndian.Uint32(b[4*k:]))) }
	case "uint32":
		return func(k int) float64 { return float64(binary.LittleEndian.Uint32(b[4*k:])) }
	case "int64":
		return func(k int) float64 { return float64(int64(binary.LittleEndian.Uint64(b[8*k:]))) }
	case "uint64":
		return func(k int) float64 { return float64(binary.LittleEndian.Uint64(b[8*k:])) }
	}
	size := elemSize(typ) // a type added later: through elemValue, slower
	return func(k int) float64 {
		switch x := elemValue(typ, b[k*size:(k+1)*size]).(type) {
		case float64:
			return x
		case int64:
			return float64(x)
		case uint64:
			return float64(x)
		}
		return math.NaN()
	}
}
