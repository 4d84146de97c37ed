// Package t1 reads search-space definitions in the T1 input format of the auto-tuning
// community (benchmark_hub, BAT) and KTT's tuning-spec JSON, which share its
// ConfigurationSpace block: tunable parameters whose values are lists or Python list
// expressions, and conditions written as Python expressions.
package t1

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ktune/ktune/expr"
	"github.com/ktune/ktune/format"
	"github.com/ktune/ktune/space"
)

// Definition is a search space as a T1 file defines it.
type Definition struct {
	Name         string        // General.BenchmarkName or the kernel name
	Params       []space.Param // in the file's order
	Restrictions []string      // the Conditions' expressions
	Objective    string        // General.Objective when given
	Maximize     bool          // true when General.Minimize is false
	// where says where each restriction is in the file, for its errors.
	where []string
}

type file struct {
	General *struct {
		BenchmarkName string `json:"BenchmarkName"`
		Objective     string `json:"Objective"`
		Minimize      *bool  `json:"Minimize"`
	} `json:"General"`
	ConfigurationSpace *struct {
		TuningParameters []struct {
			Name   string          `json:"Name"`
			Type   string          `json:"Type"`
			Values json.RawMessage `json:"Values"`
		} `json:"TuningParameters"`
		Conditions []struct {
			Expression string   `json:"Expression"`
			Parameters []string `json:"Parameters"`
		} `json:"Conditions"`
		Constraints []struct {
			Expression string `json:"Expression"`
		} `json:"Constraints"`
	} `json:"ConfigurationSpace"`
	KernelSpecification *struct {
		KernelName string `json:"KernelName"`
	} `json:"KernelSpecification"`
}

// ReadFile reads a T1 definition from a file, as format.ReadFile reads it (a regular file
// or a pipe, within format.MaxSize()).
func ReadFile(path string) (*Definition, error) {
	data, err := format.ReadFile(context.Background(), path)
	if err != nil {
		return nil, err
	}
	return Read(bytes.NewReader(data), path)
}

// Read reads a T1 definition; source names the input in errors. It reads what
// format.ReadAll reads: at most format.MaxSize() bytes, decompressed.
func Read(r io.Reader, source string) (*Definition, error) {
	data, err := format.ReadAll(r, source)
	if err != nil {
		return nil, err
	}
	var raw any
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%s: %w", source, describeJSONError(data, err))
	}
	// BAT's older files spell the keys in snake case (configuration_space,
	// tuning_parameters, constraints); both spellings map to one form.
	norm, err := json.Marshal(normalizeKeys(raw))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	var f file
	if err := json.Unmarshal(norm, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	if f.ConfigurationSpace == nil {
		return nil, fmt.Errorf("%s: not a T1 space definition: no ConfigurationSpace object", source)
	}
	d := &Definition{}
	if f.General != nil {
		d.Name = f.General.BenchmarkName
		d.Objective = f.General.Objective
		if f.General.Minimize != nil {
			d.Maximize = !*f.General.Minimize
		}
	}
	if d.Name == "" && f.KernelSpecification != nil {
		d.Name = f.KernelSpecification.KernelName
	}
	if len(f.ConfigurationSpace.TuningParameters) == 0 {
		return nil, fmt.Errorf("%s: ConfigurationSpace.TuningParameters is empty", source)
	}
	for i, tp := range f.ConfigurationSpace.TuningParameters {
		where := fmt.Sprintf("%s: ConfigurationSpace.TuningParameters[%d]", source, i)
		if tp.Name == "" {
			return nil, fmt.Errorf("%s: missing Name", where)
		}
		where += " (" + tp.Name + ")"
		vals, err := values(tp.Values)
		if err != nil {
			return nil, fmt.Errorf("%s: Values: %w", where, err)
		}
		if len(vals) == 0 {
			return nil, fmt.Errorf("%s: Values is empty", where)
		}
		if vals, err = convert(vals, tp.Type); err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		for j := range vals {
			for k := range j {
				if vals[k].Equal(vals[j]) && vals[k].Kind() == vals[j].Kind() {
					return nil, fmt.Errorf("%s: Values: %s is listed twice (values %d and %d, counting from 1): each value makes its configurations once", where, quoted(vals[j]), k+1, j+1)
				}
			}
		}
		d.Params = append(d.Params, space.Param{Name: tp.Name, Values: vals})
	}
	add := func(field string, i int, src string) error {
		where := fmt.Sprintf("ConfigurationSpace.%s[%d]", field, i)
		if strings.TrimSpace(src) == "" {
			return fmt.Errorf("%s: %s: empty Expression", source, where)
		}
		d.Restrictions = append(d.Restrictions, src)
		d.where = append(d.where, where)
		return nil
	}
	for i, c := range f.ConfigurationSpace.Conditions {
		if err := add("Conditions", i, c.Expression); err != nil {
			return nil, err
		}
	}
	for i, c := range f.ConfigurationSpace.Constraints {
		if err := add("Constraints", i, c.Expression); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// Space builds the definition's space.
func (d *Definition) Space() (*space.Space, error) {
	return d.SpaceContext(context.Background(), space.BuildOptions{})
}

// SpaceContext is Space that stops when ctx is done, returning ctx's error, and reports
// the construction's progress as o says.
func (d *Definition) SpaceContext(ctx context.Context, o space.BuildOptions) (*space.Space, error) {
	// Compiled here, so that an expression's error says which condition of the file it is.
	rs := make([]space.Restriction, len(d.Restrictions))
	for i, src := range d.Restrictions {
		r, err := expr.CompileRestriction(d.Params, src)
		if err != nil {
			if i < len(d.where) {
				return nil, fmt.Errorf("%s: %w", d.where[i], err)
			}
			return nil, err
		}
		rs[i] = r
	}
	return space.NewCompiledContext(ctx, d.Params, rs, o)
}

func values(raw json.RawMessage) ([]space.Value, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, errors.New("missing")
	}
	switch raw[0] {
	case '"':
		var src string
		if err := json.Unmarshal(raw, &src); err != nil {
			return nil, err
		}
		return expr.EvalValues(src)
	case '[':
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var list []any
		if err := dec.Decode(&list); err != nil {
			return nil, err
		}
		out := make([]space.Value, len(list))
		for i, x := range list {
			v, err := space.ValueOf(x)
			if err != nil {
				return nil, fmt.Errorf("element %d: %w", i, err)
			}
			out[i] = v
		}
		return out, nil
	}
	return nil, fmt.Errorf("want a list or a list expression string, found %s", raw)
}

// convert applies the declared Type: ints stay ints, "float" makes numbers floats,
// "string" accepts only strings.
func convert(vals []space.Value, typ string) ([]space.Value, error) {
	switch strings.ToLower(typ) {
	case "", "any":
		return vals, nil
	case "int", "uint", "integer", "int32", "int64", "uint32", "uint64", "size_t":
		for i, v := range vals {
			if v.Kind() == space.Float && v.Float() == float64(int64(v.Float())) {
				vals[i] = space.IntValue(int64(v.Float()))
			} else if v.Kind() != space.Int {
				return nil, fmt.Errorf("Type %s but value %d (%s) is a %s", typ, i, quoted(v), v.Kind())
			}
		}
	case "float", "double", "half":
		for i, v := range vals {
			if !v.IsNumeric() {
				return nil, fmt.Errorf("Type %s but value %d (%s) is a %s", typ, i, quoted(v), v.Kind())
			}
			vals[i] = space.FloatValue(v.Float())
		}
	case "string", "str":
		for i, v := range vals {
			if v.Kind() != space.String {
				return nil, fmt.Errorf("Type %s but value %d (%s) is a %s", typ, i, quoted(v), v.Kind())
			}
		}
	case "bool", "boolean":
		for i, v := range vals {
			if v.Kind() != space.Bool {
				vals[i] = space.BoolValue(v.Bool())
			}
		}
	default:
		return nil, fmt.Errorf("unknown Type %q (want int, uint, float, string or bool)", typ)
	}
	return vals, nil
}

// quoted is v as Python writes it in a list: strings quoted.
func quoted(v space.Value) string {
	if v.Kind() == space.String {
		return strconv.Quote(v.Str())
	}
	return v.String()
}

// normalizeKeys rewrites object keys to CamelCase without underscores
// ("configuration_space" -> "ConfigurationSpace"); encoding/json then matches them to the
// struct fields case-insensitively.
func normalizeKeys(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[strings.ReplaceAll(k, "_", "")] = normalizeKeys(x)
		}
		return out
	case []any:
		for i, x := range t {
			t[i] = normalizeKeys(x)
		}
	}
	return v
}

// describeJSONError adds line and column to encoding/json's errors.
func describeJSONError(data []byte, err error) error {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset - 1 // the scanner counts the offending byte itself
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 {
		return err
	}
	line, col := 1, 1
	for _, b := range data[:min(int(off), len(data))] {
		if b == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return fmt.Errorf("line %d, column %d (byte %d): %w", line, col, off, err)
}

// Sniff reports whether data looks like a space definition (it names a configuration
// space in either spelling) rather than a recording.
func Sniff(data []byte) bool {
	head := string(data[:min(len(data), 1<<16)])
	return strings.Contains(head, `"ConfigurationSpace"`) || strings.Contains(head, `"configuration_space"`)
}
