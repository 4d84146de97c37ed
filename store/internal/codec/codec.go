// Package codec turns the typed values of configurations, parameters, samples and metrics
// into the column values every store backend writes, and back, so that backends agree on
// the bytes and a database can be read by any of them.
package codec

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/ktune/ktune/space"
)

// Values encodes values as a JSON array in which ints, floats, bools and strings keep their
// kind: floats always carry a '.' or an exponent, so 2.0 does not come back as the int 2.
func Values(vs []space.Value) ([]byte, error) {
	b := make([]byte, 0, 8*len(vs)+2)
	return appendValues(b, vs)
}

func appendValues(b []byte, vs []space.Value) ([]byte, error) {
	b = append(b, '[')
	for i, v := range vs {
		if i > 0 {
			b = append(b, ',')
		}
		if v.Kind() < space.Int || v.Kind() > space.String {
			return nil, fmt.Errorf("value %d has no kind", i)
		}
		if v.Kind() == space.String {
			// encoding/json, not strconv.Quote: JSON and Go escape control characters differently.
			s, err := json.Marshal(v.String())
			if err != nil {
				return nil, err
			}
			b = append(b, s...)
			continue
		}
		s, err := v.MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("value %d: %w", i, err)
		}
		b = append(b, s...)
	}
	return append(b, ']'), nil
}

// ParseValues decodes what Values encoded.
func ParseValues(data []byte) ([]space.Value, error) {
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("values: %w", err)
	}
	if len(raw) == 0 {
		return nil, nil
	}
	vs := make([]space.Value, len(raw))
	for i, r := range raw {
		v, err := parseValue(r)
		if err != nil {
			return nil, fmt.Errorf("values: element %d: %w", i, err)
		}
		vs[i] = v
	}
	return vs, nil
}

func parseValue(r json.RawMessage) (space.Value, error) {
	r = bytes.TrimSpace(r)
	if len(r) == 0 {
		return space.Value{}, errors.New("empty value")
	}
	switch r[0] {
	case '"':
		var s string
		if err := json.Unmarshal(r, &s); err != nil {
			return space.Value{}, err
		}
		return space.StringValue(s), nil
	case 't', 'f':
		var b bool
		if err := json.Unmarshal(r, &b); err != nil {
			return space.Value{}, err
		}
		return space.BoolValue(b), nil
	}
	s := string(r)
	if bytes.ContainsAny(r, ".eE") {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return space.Value{}, fmt.Errorf("not a number: %s", s)
		}
		return space.FloatValue(f), nil
	}
	i, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return space.Value{}, fmt.Errorf("not an integer: %s", s)
	}
	return space.IntValue(i), nil
}

type param struct {
	Name   string          `json:"name"`
	Values json.RawMessage `json:"values"`
}

// Params encodes parameters as a JSON array of {"name", "values"} objects in their order.
func Params(ps []space.Param) ([]byte, error) {
	out := make([]param, len(ps))
	for i, p := range ps {
		vs, err := Values(p.Values)
		if err != nil {
			return nil, fmt.Errorf("parameter %q: %w", p.Name, err)
		}
		out[i] = param{Name: p.Name, Values: vs}
	}
	return json.Marshal(out)
}

// ParseParams decodes what Params encoded.
func ParseParams(data []byte) ([]space.Param, error) {
	var raw []param
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("parameters: %w", err)
	}
	if len(raw) == 0 {
		return nil, nil
	}
	ps := make([]space.Param, len(raw))
	for i, r := range raw {
		vs, err := ParseValues(r.Values)
		if err != nil {
			return nil, fmt.Errorf("parameter %q: %w", r.Name, err)
		}
		ps[i] = space.Param{Name: r.Name, Values: vs}
	}
	return ps, nil
}

// Strings encodes a string list as a JSON array; nil and empty both give nil, stored as NULL.
func Strings(ss []string) ([]byte, error) {
	if len(ss) == 0 {
		return nil, nil
	}
	return json.Marshal(ss)
}

// ParseStrings decodes what Strings encoded; NULL and [] give nil.
func ParseStrings(data []byte) ([]string, error) {
	if len(data) == 0 {
		return nil, nil
	}
	var ss []string
	if err := json.Unmarshal(data, &ss); err != nil {
		return nil, fmt.Errorf("string list: %w", err)
	}
	if len(ss) == 0 {
		return nil, nil
	}
	return ss, nil
}

// Samples packs timing samples as little-endian IEEE 754 doubles: exact, NaN included,
// and a fraction of the size of text. Nil and empty both give nil, stored as NULL.
func Samples(fs []float64) []byte {
	if len(fs) == 0 {
		return nil
	}
	b := make([]byte, 8*len(fs))
	for i, f := range fs {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(f))
	}
	return b
}

// ParseSamples decodes what Samples encoded.
func ParseSamples(b []byte) ([]float64, error) {
	if len(b) == 0 {
		return nil, nil
	}
	if len(b)%8 != 0 {
		return nil, fmt.Errorf("samples: %d bytes is not a whole number of float64s", len(b))
	}
	fs := make([]float64, len(b)/8)
	for i := range fs {
		fs[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return fs, nil
}

// Names of non-finite numbers in metrics JSON, which has no literal for them.
const (
	nanName    = "NaN"
	posInfName = "Infinity"
	negInfName = "-Infinity"
)

// Metrics encodes metrics as a JSON object with sorted keys, so SQL can still reach into
// it; NaN and infinities, which JSON cannot write as numbers, are written as the strings
// "NaN", "Infinity" and "-Infinity". Nil and empty both give nil, stored as NULL.
func Metrics(m map[string]float64) ([]byte, error) {
	if len(m) == 0 {
		return nil, nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b := []byte{'{'}
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		kb, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		b = append(b, kb...)
		b = append(b, ':')
		switch f := m[k]; {
		case math.IsNaN(f):
			b = append(b, `"`+nanName+`"`...)
		case math.IsInf(f, 1):
			b = append(b, `"`+posInfName+`"`...)
		case math.IsInf(f, -1):
			b = append(b, `"`+negInfName+`"`...)
		default:
			b = strconv.AppendFloat(b, f, 'g', -1, 64)
		}
	}
	return append(b, '}'), nil
}

// ParseMetrics decodes what Metrics encoded.
func ParseMetrics(data []byte) (map[string]float64, error) {
	if len(data) == 0 {
		return nil, nil
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	if len(raw) == 0 {
		return nil, nil
	}
	m := make(map[string]float64, len(raw))
	for k, r := range raw {
		if len(r) > 0 && r[0] == '"' {
			var s string
			if err := json.Unmarshal(r, &s); err != nil {
				return nil, fmt.Errorf("metrics: %q: %w", k, err)
			}
			switch s {
			case nanName:
				m[k] = math.NaN()
			case posInfName:
				m[k] = math.Inf(1)
			case negInfName:
				m[k] = math.Inf(-1)
			default:
				return nil, fmt.Errorf("metrics: %q: %q is not a number", k, s)
			}
			continue
		}
		f, err := strconv.ParseFloat(string(r), 64)
		if err != nil {
			return nil, fmt.Errorf("metrics: %q: %w", k, err)
		}
		m[k] = f
	}
	return m, nil
}
