package format

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// NotJSONObject says why data is not a JSON object, for an error that names the file:
// empty, not JSON at all, JSON broken at a line and column or cut short, or JSON whose top
// level is something else; "" when data is a JSON object.
func NotJSONObject(data []byte) string {
	t := bytes.TrimSpace(data)
	if len(t) == 0 {
		return "the file is empty"
	}
	if t[0] != '{' && t[0] != '[' {
		return fmt.Sprintf("not JSON (it starts with %q)", string(t[:min(len(t), 16)]))
	}
	var raw json.RawMessage // the syntax only: a number too large for a float64 is still JSON
	if err := json.Unmarshal(data, &raw); err != nil {
		return JSONError(data, err)
	}
	if t[0] == '[' {
		return "JSON whose top level is not an object but a list"
	}
	return ""
}

// JSONError says what an error of json.Unmarshal(data, ...) means and where in data it
// is: broken JSON at a line and column, or cut short; a value of the wrong type by its
// field and position ("seed is a JSON string, want a whole number, at line 5, column
// 12"), naming what is wanted in JSON's words rather than by a Go type.
func JSONError(data []byte, err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		if int(se.Offset) >= len(data) {
			return fmt.Sprintf("not valid JSON: it ends inside a value after %d bytes (a file cut short?)", len(data))
		}
		at := max(int(se.Offset)-1, 0) // Offset counts the offending byte
		return fmt.Sprintf("not valid JSON: %v at %s", se, lineColumn(data, at))
	case errors.As(err, &te):
		field := jsonPath(te.Field)
		if field == "" {
			field = "the top level"
		}
		// Offset is where the value ends; its line is where it is
		at := lineColumn(data, max(int(te.Offset)-1, 0))
		if number, ok := strings.CutPrefix(te.Value, "number "); ok {
			if k := te.Type.Kind(); k == reflect.Float32 || k == reflect.Float64 {
				return fmt.Sprintf("%s is %s, beyond the range of numbers, at %s", field, number, at)
			}
			return fmt.Sprintf("%s is %s, want %s, at %s", field, number, JSONKind(te.Type), at)
		}
		return fmt.Sprintf("%s is a JSON %s, want %s, at %s", field, te.Value, JSONKind(te.Type), at)
	}
	return err.Error()
}

// jsonPath is the path of keys of an *json.UnmarshalTypeError's Field, without the names
// of the Go types embedded on the way ("Bench.repeats" is "repeats"): the keys of ktune's
// files are lower case, those names capitalised.
func jsonPath(field string) string {
	parts := strings.Split(field, ".")
	for len(parts) > 1 && parts[0] != "" && parts[0][0] >= 'A' && parts[0][0] <= 'Z' {
		parts = parts[1:]
	}
	return strings.Join(parts, ".")
}

// JSONKind names, in JSON's words, what a value decoded into t must be.
func JSONKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "a whole number"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number of 0 or more"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "a " + t.String()
}

// lineColumn is "line L, column C" of byte offset at in data.
func lineColumn(data []byte, at int) string {
	at = min(at, len(data))
	line := 1 + bytes.Count(data[:at], []byte("\n"))
	col := at - bytes.LastIndexByte(data[:at], '\n')
	return fmt.Sprintf("line %d, column %d", line, col)
}
