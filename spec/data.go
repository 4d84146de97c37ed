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
	default:
		return nil, fail("unknown fill %q", fl.Kind)
	}
	return out, nil
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
