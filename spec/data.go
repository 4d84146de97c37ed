package spec

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"

	"github.com/ktune/ktune/internal/float16"
)

// Generate returns the initial contents of array argument arg (an index into Arguments)
// with length elements, little endian, from its fill. Random data depends only on the
// spec's seed (or the fill's own) and the argument's name, so it is the same on every run
// and machine; an npy fill reads its file, which must hold exactly length elements of the
// argument's type.
func (s *Spec) Generate(arg int, length int) ([]byte, error) {
	if err := s.parsed(); err != nil {
		return nil, err
	}
	if arg < 0 || arg >= len(s.Arguments) {
		return nil, fmt.Errorf("%s: no argument %d (the spec has %d)", s.name(), arg, len(s.Arguments))
	}
	a := s.Arguments[arg]
	field := index("arguments", arg) + ".fill"
	if a.Kind != ArgArray && a.Kind != ArgConstant {
		return nil, fmt.Errorf("%s: %s: argument %q is %s: %w", s.name(), field, a.Name, a.Kind, ErrNotArray)
	}
	t := s.c.args[arg].typ
	if length < 0 || length > math.MaxInt/t.size {
		return nil, fmt.Errorf("%s: %s: length %d out of range", s.name(), field, length)
	}
	fl := a.Fill
	out := make([]byte, length*t.size)
	fail := func(format string, args ...any) error {
		return &Error{File: s.File, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	switch fl.Kind {
	case FillZeros, "":
	case FillConstant:
		for i := range length {
			t.put(out[i*t.size:], fl.Value)
		}
	case FillRange:
		for i := range length {
			v := fl.Start + float64(i)*fl.Step
			if err := t.check(v); err != nil {
				return nil, fail("element %d: %v", i, err)
			}
			t.put(out[i*t.size:], v)
		}
	case FillRandom:
		r := s.rng(a, fl)
		for i := range length {
			t.put(out[i*t.size:], randomValue(r, fl, t))
		}
	case FillNPY:
		arr, err := ReadNPYFile(fl.Path)
		if err != nil {
			return nil, fail("%v", err)
		}
		if arr.Type != t.name {
			return nil, fail("%s holds %s, but argument %q is %s; give the argument type: %s, or save the array as %s (numpy: a.astype(numpy.%s))", fl.Path, arr.Type, a.Name, t.name, arr.Type, t.name, t.name)
		}
		if arr.Len() != length {
			return nil, fail("%s holds %d elements (shape %v), but argument %q has %d in this configuration", fl.Path, arr.Len(), arr.Shape, a.Name, length)
		}
		return arr.Data, nil
	case FillFrom:
		return s.generateFrom(arg, length, out, fail)
	default:
		return nil, fail("unknown fill %q", fl.Kind)
	}
	return out, nil
}

// generateFrom fills out, length elements of argument arg, from its source's data: the
// data the source itself gets, since every fill's element i depends only on i (an npy
// file's on the file), whatever the length it is generated at. So the source is
// generated only as far as the last element taken; Instance has checked that the
// source holds it at the configuration.
func (s *Spec) generateFrom(arg, length int, out []byte, fail func(string, ...any) error) ([]byte, error) {
	a, cf := s.Arguments[arg], s.c.args[arg].from
	if cf == nil || cf.src < 0 {
		return nil, fail("argument %q's source %q was not found when the spec was read", a.Name, a.Fill.From)
	}
	fl, src := a.Fill, s.Arguments[cf.src]
	need, ok := fromNeed(length, fl.FromStart, fl.FromStride)
	if !ok {
		return nil, fail("%s", fromShort(a, src, length, -1))
	}
	if need == 0 {
		return out, nil
	}
	at := need
	if src.Fill.Kind == FillNPY {
		// an npy file holds the source's every element, whatever is taken of them
		arr, err := ReadNPYFile(src.Fill.Path)
		if err != nil {
			return nil, fail("source %q: %v", src.Name, err)
		}
		if arr.Len() < need {
			return nil, fail("%s", fromShort(a, src, length, arr.Len()))
		}
		at = arr.Len()
	}
	data, err := s.Generate(cf.src, at)
	if err != nil {
		return nil, err
	}
	st, t := s.c.args[cf.src].typ, s.c.args[arg].typ
	for i := range length {
		e := data[(fl.FromStart+i*fl.FromStride)*st.size:]
		if st.name == t.name {
			copy(out[i*t.size:(i+1)*t.size], e)
		} else {
			t.put(out[i*t.size:], st.get(e)) // exact: convertsExactly(st, t)
		}
	}
	return out, nil
}

// fromNeed returns how many elements a source must hold for length elements taken from
// start every stride: start + (length-1)*stride + 1, or 0 for none; false when that
// overflows an int.
func fromNeed(length, start, stride int) (int, bool) {
	if length <= 0 {
		return 0, true
	}
	if stride > 0 && length-1 > (math.MaxInt-1-start)/stride {
		return 0, false
	}
	return start + (length-1)*stride + 1, true
}

// fromShort says that source src (of has elements; -1: unknown) is too short for the
// length elements argument a takes from it.
func fromShort(a, src Argument, length, has int) string {
	fl := a.Fill
	taken := fmt.Sprintf("element %d", fl.FromStart)
	if length > 1 {
		taken = fmt.Sprintf("elements %d, %d, ... every %d", fl.FromStart, fl.FromStart+fl.FromStride, fl.FromStride)
	}
	need, ok := fromNeed(length, fl.FromStart, fl.FromStride)
	msg := fmt.Sprintf("argument %q has %d elements, taken from %q's %s", a.Name, length, src.Name, taken)
	if !ok {
		return msg + ": more elements than any array holds"
	}
	msg += fmt.Sprintf(", up to element %d, so %q must hold at least %d (start + (length-1)*stride + 1)", need-1, src.Name, need)
	if has >= 0 {
		msg += fmt.Sprintf(", but it has %d", has)
	}
	return msg
}

// convertsExactly reports whether every value of type from is exactly a value of type
// to: the same type, or a wider float, or a wider integer (signed, or unsigned from
// unsigned), or a float whose significand holds the integer's bits (int8 and uint8 in
// float16, 16-bit integers in float32, 32-bit ones in float64).
func convertsExactly(from, to elemType) bool {
	switch {
	case from.name == to.name:
		return true
	case from.float:
		return to.float && to.size >= from.size
	case to.float:
		bits := 8 * from.size
		if from.signed {
			bits--
		}
		significand := map[int]int{2: 11, 4: 24, 8: 53}[to.size]
		return bits <= significand
	case from.signed:
		return to.signed && to.size >= from.size
	}
	return to.size > from.size || !to.signed && to.size >= from.size
}

// rng returns the argument's random stream: PCG seeded with the fill's seed or the spec's,
// and the argument's name, so that adding or reordering arguments leaves the others' data
// alone.
func (s *Spec) rng(a Argument, fl Fill) *rand.Rand {
	seed := s.Seed
	if fl.Seed != nil {
		seed = *fl.Seed
	}
	h := fnv.New64a()
	h.Write([]byte(a.Name))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

// uniform01 returns a float64 in [0, 1) from the top 53 bits of one draw; unlike
// rand.Float64 its definition is fixed here, so data stay the same across Go releases.
func uniform01(r *rand.Rand) float64 { return float64(r.Uint64()>>11) * 0x1p-53 }

// randomValue draws one element: uniform in [low, high] (integers: each of low..high
// equally likely), or normal(mean, stddev) clamped to [low, high] (integers rounded).
func randomValue(r *rand.Rand, fl Fill, t elemType) float64 {
	lo, hi := fl.Low, fl.High
	if !t.float {
		tlo, thi := t.limits()
		lo, hi = math.Max(math.Ceil(lo), tlo), math.Min(math.Floor(hi), thi)
	} else {
		tlo, thi := t.limits()
		lo, hi = math.Max(lo, tlo), math.Min(hi, thi)
	}
	var v float64
	if fl.Distribution == "normal" {
		// Box-Muller, one value per pair of draws.
		u1 := 1 - uniform01(r) // (0, 1]
		u2 := uniform01(r)
		v = fl.Mean + fl.Stddev*math.Sqrt(-2*math.Log(u1))*math.Cos(2*math.Pi*u2)
		if !t.float {
			v = math.Round(v)
		}
	} else {
		u := uniform01(r)
		if t.float {
			v = lo + u*(hi-lo)
		} else {
			v = math.Floor(lo + u*(hi-lo+1))
		}
	}
	v = math.Min(math.Max(v, lo), hi)
	switch {
	case t.size == 4 && t.float:
		// float32 rounding may step just outside the bounds.
		f := float32(v)
		if float64(f) > hi {
			f = math.Nextafter32(f, float32(math.Inf(-1)))
		}
		if float64(f) < lo {
			f = math.Nextafter32(f, float32(math.Inf(1)))
		}
		v = float64(f)
	case t.size == 2 && t.float:
		v = halfWithin(v, lo, hi)
	}
	return v
}

// halfWithin rounds v, within [lo, hi], to float16, and steps back inside the bounds
// where rounding took it out: low 0.1 would otherwise draw 0.0999755859375. Bounds with
// no half between them give the nearest half to v.
func halfWithin(v, lo, hi float64) float64 {
	h := float16.FromFloat64(v)
	step := func(h uint16, up bool) uint16 { // the next half up or down (finite, not NaN)
		switch {
		case h == 0x8000 && up, h == 0 && !up: // through zero
			return h ^ 0x8001
		case (h&0x8000 == 0) == up:
			return h + 1
		}
		return h - 1
	}
	if f := float16.Float64(h); f > hi {
		if n := step(h, false); float16.Float64(n) >= lo {
			h = n
		}
	} else if f < lo {
		if n := step(h, true); float16.Float64(n) <= hi {
			h = n
		}
	}
	return float16.Float64(h)
}
