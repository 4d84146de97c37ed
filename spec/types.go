package spec

import (
	"encoding/binary"
	"fmt"
	"math"
	"sort"

	"github.com/ktune/ktune/internal/float16"
)

// elemType is an element type of a kernel argument.
type elemType struct {
	name   string // canonical name, as device.Param.Type spells it
	size   int    // bytes
	float  bool
	signed bool
	dtype  string // NumPy's little-endian type string
}

var elemTypes = map[string]elemType{
	"float16": {"float16", 2, true, true, "<f2"},
	"float32": {"float32", 4, true, true, "<f4"},
	"float64": {"float64", 8, true, true, "<f8"},
	"int8":    {"int8", 1, false, true, "|i1"},
	"int16":   {"int16", 2, false, true, "<i2"},
	"int32":   {"int32", 4, false, true, "<i4"},
	"int64":   {"int64", 8, false, true, "<i8"},
	"uint8":   {"uint8", 1, false, false, "|u1"},
	"uint16":  {"uint16", 2, false, false, "<u2"},
	"uint32":  {"uint32", 4, false, false, "<u4"},
	"uint64":  {"uint64", 8, false, false, "<u8"},
}

// typeAliases are the C and NumPy spellings users write for the canonical names.
var typeAliases = map[string]string{
	"float": "float32", "double": "float64", "single": "float32",
	"char": "int8", "short": "int16", "int": "int32", "long": "int64",
	"uchar": "uint8", "ushort": "uint16", "uint": "uint32", "ulong": "uint64",
	"unsigned": "uint32", "byte": "uint8",
	"half": "float16", "__half": "float16", "_Float16": "float16",
}

func lookupType(name string) (elemType, bool) {
	if a, ok := typeAliases[name]; ok {
		name = a
	}
	t, ok := elemTypes[name]
	return t, ok
}

func typeNames() []string {
	out := make([]string, 0, len(elemTypes))
	for k := range elemTypes {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// limits returns the smallest and largest value of an integer type as float64. The
// largest is rounded down to a float64 that converts back without overflow.
func (t elemType) limits() (lo, hi float64) {
	if t.float {
		switch t.size {
		case 2:
			return -float16.Max, float16.Max
		case 4:
			return -math.MaxFloat32, math.MaxFloat32
		}
		return -math.MaxFloat64, math.MaxFloat64
	}
	bits := 8 * t.size
	if t.signed {
		return -math.Ldexp(1, bits-1), math.Nextafter(math.Ldexp(1, bits-1), 0)
	}
	return 0, math.Nextafter(math.Ldexp(1, bits), 0)
}

// check reports whether v can be stored in the type: finite, within range, and whole for
// integer types.
func (t elemType) check(v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("%v is not a finite number", v)
	}
	lo, hi := t.limits()
	if v < lo || v > hi {
		if t.name == "float16" {
			return fmt.Errorf("%v is out of range for float16, whose largest finite value is 65504", v)
		}
		return fmt.Errorf("%v is out of range for %s", v, t.name)
	}
	if !t.float && v != math.Trunc(v) {
		return fmt.Errorf("%v is not a whole number, as %s needs", v, t.name)
	}
	return nil
}

// put stores v (already checked) little endian at b[:t.size].
func (t elemType) put(b []byte, v float64) {
	switch t.name {
	case "float16":
		binary.LittleEndian.PutUint16(b, float16.FromFloat64(v))
	case "float32":
		binary.LittleEndian.PutUint32(b, math.Float32bits(float32(v)))
	case "float64":
		binary.LittleEndian.PutUint64(b, math.Float64bits(v))
	case "int8":
		b[0] = byte(int8(v))
	case "uint8":
		b[0] = uint8(v)
	case "int16":
		binary.LittleEndian.PutUint16(b, uint16(int16(v)))
	case "uint16":
		binary.LittleEndian.PutUint16(b, uint16(v))
	case "int32":
		binary.LittleEndian.PutUint32(b, uint32(int32(v)))
	case "uint32":
		binary.LittleEndian.PutUint32(b, uint32(v))
	case "int64":
		binary.LittleEndian.PutUint64(b, uint64(int64(v)))
	case "uint64":
		binary.LittleEndian.PutUint64(b, uint64(v))
	}
}

// get reads one element at b[:t.size] as float64 (64-bit integers beyond 2**53 round).
func (t elemType) get(b []byte) float64 {
	switch t.name {
	case "float16":
		return float16.Float64(binary.LittleEndian.Uint16(b))
	case "float32":
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
	case "float64":
		return math.Float64frombits(binary.LittleEndian.Uint64(b))
	case "int8":
		return float64(int8(b[0]))
	case "uint8":
		return float64(b[0])
	case "int16":
		return float64(int16(binary.LittleEndian.Uint16(b)))
	case "uint16":
		return float64(binary.LittleEndian.Uint16(b))
	case "int32":
		return float64(int32(binary.LittleEndian.Uint32(b)))
	case "uint32":
		return float64(binary.LittleEndian.Uint32(b))
	case "int64":
		return float64(int64(binary.LittleEndian.Uint64(b)))
	case "uint64":
		return float64(binary.LittleEndian.Uint64(b))
	}
	return math.NaN()
}
