package space

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// Kind is the type of a tunable parameter's value.
type Kind uint8

// Value kinds, mirroring the Python types that T1 files and Kernel Tuner use.
const (
	Int Kind = iota + 1
	Float
	Bool
	String
)

// String returns the kind's name: "int", "float", "bool", "string" (or "invalid").
func (k Kind) String() string {
	switch k {
	case Int:
		return "int"
	case Float:
		return "float"
	case Bool:
		return "bool"
	case String:
		return "string"
	}
	return "invalid"
}

// Value is one typed value of a tunable parameter.
type Value struct {
	kind Kind
	i    int64
	f    float64
	s    string
}

// IntValue returns an integer value.
func IntValue(i int64) Value { return Value{kind: Int, i: i, f: float64(i)} }

// FloatValue returns a floating-point value.
func FloatValue(f float64) Value { return Value{kind: Float, f: f} }

// BoolValue returns a boolean value.
func BoolValue(b bool) Value {
	if b {
		return Value{kind: Bool, i: 1, f: 1}
	}
	return Value{kind: Bool}
}

// StringValue returns a string value.
func StringValue(s string) Value { return Value{kind: String, s: s} }

// Kind reports the value's type.
func (v Value) Kind() Kind { return v.kind }

// Int returns the integer value (booleans give 0 or 1, floats are truncated).
func (v Value) Int() int64 {
	if v.kind == Float {
		return int64(v.f)
	}
	return v.i
}

// Float returns the numeric value as float64 (booleans give 0 or 1; strings give NaN).
func (v Value) Float() float64 {
	if v.kind == String {
		return math.NaN()
	}
	return v.f
}

// Bool returns the value's truthiness with Python's rules.
func (v Value) Bool() bool {
	switch v.kind {
	case String:
		return v.s != ""
	case Float:
		return v.f != 0
	}
	return v.i != 0
}

// Str returns the string of a String value and the Python str() of any other.
func (v Value) Str() string { return v.String() }

// IsNumeric reports whether the value is an int, float or bool.
func (v Value) IsNumeric() bool { return v.kind == Int || v.kind == Float || v.kind == Bool }

// String formats the value as Python's str() does: 32, 1.5, 2.0, True, text.
// Kernel Tuner builds its cache keys from these strings.
func (v Value) String() string {
	switch v.kind {
	case Int:
		return strconv.FormatInt(v.i, 10)
	case Float:
		return FormatFloat(v.f)
	case Bool:
		if v.i != 0 {
			return "True"
		}
		return "False"
	case String:
		return v.s
	}
	return "<invalid>"
}

// FormatFloat formats f as Python's repr does for floats (2.0, 0.1, 1e-05, inf).
func FormatFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	abs := math.Abs(f)
	if abs != 0 && (abs < 1e-4 || abs >= 1e16) {
		s := strconv.FormatFloat(f, 'e', -1, 64)
		// Python writes 1e-05 where Go writes 1e-05 as well; both pad to two exponent digits.
		return s
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	for _, c := range s {
		if c == '.' {
			return s
		}
	}
	return s + ".0"
}

// Equal reports whether two values are equal with Python's rules: numbers compare by
// value across int, float and bool; strings only equal strings.
func (v Value) Equal(w Value) bool {
	if v.kind == String || w.kind == String {
		return v.kind == w.kind && v.s == w.s
	}
	return v.f == w.f
}

// Less orders values: numbers numerically, strings lexically, numbers before strings.
func (v Value) Less(w Value) bool {
	vs, ws := v.kind == String, w.kind == String
	switch {
	case vs && ws:
		return v.s < w.s
	case vs:
		return false
	case ws:
		return true
	}
	return v.f < w.f
}

// MarshalJSON writes the value as its natural JSON type.
func (v Value) MarshalJSON() ([]byte, error) {
	switch v.kind {
	case Int:
		return strconv.AppendInt(nil, v.i, 10), nil
	case Float:
		if math.IsInf(v.f, 0) || math.IsNaN(v.f) {
			return nil, fmt.Errorf("value %v cannot be written as JSON", v.f)
		}
		s := strconv.FormatFloat(v.f, 'g', -1, 64)
		if v.f == math.Trunc(v.f) && math.Abs(v.f) < 1e15 {
			s = strconv.FormatFloat(v.f, 'f', 1, 64)
		}
		return []byte(s), nil
	case Bool:
		if v.i != 0 {
			return []byte("true"), nil
		}
		return []byte("false"), nil
	case String:
		return json.Marshal(v.s)
	}
	return []byte("null"), nil
}

// ValueOf converts a value decoded by encoding/json (float64, json.Number, bool, string)
// or a Go int/float/bool/string into a Value. JSON numbers without a fraction or exponent
// become Int.
func ValueOf(x any) (Value, error) {
	switch t := x.(type) {
	case Value:
		return t, nil
	case int:
		return IntValue(int64(t)), nil
	case int64:
		return IntValue(t), nil
	case float64:
		return FloatValue(t), nil
	case bool:
		return BoolValue(t), nil
	case string:
		return StringValue(t), nil
	case interface{ String() string }: // json.Number
		s := t.String()
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return IntValue(i), nil
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return Value{}, fmt.Errorf("not a number: %q", s)
		}
		return FloatValue(f), nil
	}
	return Value{}, fmt.Errorf("unsupported value %v of type %T", x, x)
}

// Param is a tunable parameter: a name and its values in the order the user gave them.
type Param struct {
	Name   string
	Values []Value
}

// Index returns the position of v in p.Values, or -1: the value of v's own kind when the
// list has it, else one equal to it by Python's rules (2.0 finds 2). A list may hold
// values that Python calls equal (Kernel Tuner's [1, True, 1.5, "x"]: True == 1), and
// those are distinct configurations, as their cache keys ("1", "True") are.
func (p Param) Index(v Value) int {
	equal := -1
	for i, w := range p.Values {
		if w.Equal(v) {
			if w.kind == v.kind {
				return i
			}
			if equal < 0 {
				equal = i
			}
		}
	}
	return equal
}
