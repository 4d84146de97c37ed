package runner

import (
	"encoding/binary"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"unsafe"

	"github.com/ktune/ktune/internal/float16"
	"github.com/ktune/ktune/spec"
)

// compareChunk is the fewest elements a goroutine of compare checks: outputs of GPU
// kernels run to tens of millions of elements, compared after every configuration.
const compareChunk = 1 << 18

// allclose checks got against want element by element: floats within atol + rtol*|want|,
// as NumPy's allclose (a NaN passes only against a NaN and only with equalNaN, infinities
// where they equal), integers exactly. Large outputs are compared in parallel. name names the output in messages
// (with its range), whose first element is from.
func allclose(a spec.ArgInstance, got, want []byte, atol, rtol float64, equalNaN bool, name string, from int) string {
	size := elemSize(a.Type)
	if len(got) != len(want) { // (Runner.verify says why)
		return fmt.Sprintf("output %s has %d elements, the reference %d", a.Name, len(got)/size, len(want)/size)
	}
	n := len(got) / size
	workers := min(runtime.GOMAXPROCS(0), (n+compareChunk-1)/compareChunk)
	bad, first := 0, -1
	if workers <= 1 {
		bad, first = mismatches(a.Type, got, want, atol, rtol, equalNaN)
	} else {
		per := (n + workers - 1) / workers
		type part struct{ bad, first int }
		parts := make([]part, workers)
		var wg sync.WaitGroup
		for w := range workers {
			lo, hi := w*per, min((w+1)*per, n)
			wg.Add(1)
			go func() {
				defer wg.Done()
				b, f := mismatches(a.Type, got[lo*size:hi*size], want[lo*size:hi*size], atol, rtol, equalNaN)
				if b > 0 {
					f += lo
				}
				parts[w] = part{b, f}
			}()
		}
		wg.Wait()
		for _, p := range parts { // in order: the first mismatch is the first part's
			if p.bad > 0 && first < 0 {
				first = p.first
			}
			bad += p.bad
		}
	}
	if bad == 0 {
		return ""
	}
	g := elemValue(a.Type, got[first*size:(first+1)*size])
	w := elemValue(a.Type, want[first*size:(first+1)*size])
	msg := fmt.Sprintf("output %s: %d of %d elements differ from the reference; first at index %d: got %v, want %v", name, bad, n, from+first, g, w)
	return msg + largestDifference(a.Type, got, want, first, atol, rtol, from)
}

// largestDifference describes the float element that differs most from the reference
// beyond the tolerance, with the tolerance it had, so that a user can tell a tolerance
// too tight for the kernel's rounding (a difference of 1e-7 where atol + rtol*|want|
// allows 1e-9) from a wrong result: "; largest difference 0.5 at index 3 (got 4.5,
// want 4), where atol 0.1 + rtol 0.01 * |want| allows 0.14", shorter where it is the
// first mismatch, whose values the message gave. "" for integers, and where no mismatch
// is a finite difference (NaNs, infinities).
func largestDifference(typ string, got, want []byte, first int, atol, rtol float64, from int) string {
	if typ != "float16" && typ != "float32" && typ != "float64" {
		return ""
	}
	size := elemSize(typ)
	at, largest := -1, 0.0
	for k := range len(got) / size {
		g := elemValue(typ, got[k*size:(k+1)*size]).(float64)
		w := elemValue(typ, want[k*size:(k+1)*size]).(float64)
		if d := math.Abs(g - w); !math.IsNaN(d) && !math.IsInf(d, 0) && d > largest && !closeEnough(g, w, atol, rtol, false) {
			at, largest = k, d
		}
	}
	if at < 0 {
		return ""
	}
	g := elemValue(typ, got[at*size:(at+1)*size]).(float64)
	w := elemValue(typ, want[at*size:(at+1)*size]).(float64)
	allows := fmt.Sprintf("where atol %v + rtol %v * |want| allows %.3g", atol, rtol, atol+rtol*math.Abs(w))
	if at == first {
		return fmt.Sprintf("; that is the largest difference, %.3g, %s", largest, allows)
	}
	return fmt.Sprintf("; largest difference %.3g at index %d (got %v, want %v), %s", largest, from+at, g, w, allows)
}

// lengthMismatch is the verification message of output i (a, at this configuration) when
// the reference has want elements, not a.Length. The spec is at fault, not the
// configuration: the output's length expression reads the configuration, and the
// reference was computed at another one (or read from a file) with another length.
// The message does not hold this configuration's length, so that every configuration
// that fails so says the same (and tuning stops early, as for any fault of the spec).
func (r *Runner) lengthMismatch(i int, a spec.ArgInstance, want int) string {
	ref := fmt.Sprintf("the reference's %d elements, computed at %s", want, formatValues(r, r.referenceValues()))
	if path, ok := r.spec.Verification.NPY[i]; ok {
		ref = fmt.Sprintf("the %d elements of the reference file %s", want, filepath.Base(path))
	}
	reads := r.spec.LengthReads(i)
	if len(reads) == 0 {
		return fmt.Sprintf("output %s has %d elements (length: %s), unlike %s", a.Name, a.Length, r.spec.Arguments[i].Length, ref)
	}
	return fmt.Sprintf("output %s: its length, %s, depends on the configuration (it reads %s) and differs here from %s; "+
		"verification compares whole outputs, so give %s a length (in elements) that is the same for every configuration, or compare a range of it that every configuration's output holds (outputs: [{name: %s, range: LENGTH}])",
		a.Name, r.spec.Arguments[i].Length, strings.Join(reads, ", "), ref, a.Name, a.Name)
}

// mismatches counts the elements of type typ where got and want differ beyond the
// tolerance, and returns the index of the first (-1: none). Equal bits pass unless they
// are a NaN; a NaN passes against a NaN with equalNaN.
func mismatches(typ string, got, want []byte, atol, rtol float64, equalNaN bool) (bad, first int) {
	first = -1
	miss := func(k int) {
		if bad == 0 {
			first = k
		}
		bad++
	}
	switch typ {
	case "float16": // compared as float64, which holds every half exactly
		for k := range len(got) / 2 {
			gb, wb := binary.LittleEndian.Uint16(got[2*k:]), binary.LittleEndian.Uint16(want[2*k:])
			if gb == wb && gb&0x7c00 != 0x7c00 {
				continue
			}
			if !closeEnough(float16.Float64(gb), float16.Float64(wb), atol, rtol, equalNaN) {
				miss(k)
			}
		}
	case "float32":
		g32, w32 := view(got, binary.LittleEndian.Uint32), view(want, binary.LittleEndian.Uint32)
		for k, gb := range g32 {
			wb := w32[k]
			if gb == wb && gb&0x7f800000 != 0x7f800000 {
				continue
			}
			g, w := float64(math.Float32frombits(gb)), float64(math.Float32frombits(wb))
			if tol := atol + rtol*math.Abs(w); math.Abs(g-w) <= tol && tol <= math.MaxFloat64 {
				continue // finite and close; NaNs and infinities go the long way
			}
			if !closeEnough(g, w, atol, rtol, equalNaN) {
				miss(k)
			}
		}
	case "float64":
		g64, w64 := view(got, binary.LittleEndian.Uint64), view(want, binary.LittleEndian.Uint64)
		for k, gb := range g64 {
			wb := w64[k]
			if gb == wb && gb&0x7ff0000000000000 != 0x7ff0000000000000 {
				continue
			}
			if !closeEnough(math.Float64frombits(gb), math.Float64frombits(wb), atol, rtol, equalNaN) {
				miss(k)
			}
		}
	default:
		if string(got) == string(want) {
			return 0, -1
		}
		size := elemSize(typ)
		for k := range len(got) / size {
			if string(got[size*k:size*(k+1)]) != string(want[size*k:size*(k+1)]) {
				miss(k)
			}
		}
	}
	return bad, first
}

// view gives the little-endian elements of b as numbers: in place where the host is
// little-endian (every GPU host ktune knows) and b is aligned, decoded elsewhere.
func view[T uint32 | uint64](b []byte, decode func([]byte) T) []T {
	size := int(unsafe.Sizeof(T(0)))
	if len(b) < size {
		return nil
	}
	if hostLittleEndian && uintptr(unsafe.Pointer(&b[0]))%uintptr(size) == 0 {
		return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), len(b)/size)
	}
	out := make([]T, len(b)/size)
	for k := range out {
		out[k] = decode(b[size*k:])
	}
	return out
}

var hostLittleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// closeEnough is NumPy's isclose: |g - w| <= atol + rtol*|w|, with infinities close
// only to themselves, and a NaN close to nothing, or with equalNaN (isclose's equal_nan)
// to a NaN.
func closeEnough(g, w, atol, rtol float64, equalNaN bool) bool {
	if math.IsNaN(g) || math.IsNaN(w) {
		return equalNaN && math.IsNaN(g) && math.IsNaN(w)
	}
	if math.IsInf(g, 0) || math.IsInf(w, 0) {
		return g == w
	}
	return math.Abs(g-w) <= atol+rtol*math.Abs(w)
}

// elemValue decodes one little-endian element of type typ, for messages.
func elemValue(typ string, b []byte) any {
	switch typ {
	case "float16":
		return float16.Float64(binary.LittleEndian.Uint16(b))
	case "float32":
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
	case "float64":
		return math.Float64frombits(binary.LittleEndian.Uint64(b))
	}
	var u uint64
	for i := len(b) - 1; i >= 0; i-- {
		u = u<<8 | uint64(b[i])
	}
	switch typ {
	case "int8", "int16", "int32", "int64":
		shift := 64 - 8*len(b)
		return int64(u<<shift) >> shift
	}
	return u
}

func elemSize(t string) int {
	switch t {
	case "int8", "uint8":
		return 1
	case "int16", "uint16", "float16":
		return 2
	case "int32", "uint32", "float32":
		return 4
	}
	return 8
}
