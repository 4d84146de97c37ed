package sqlrow

import (
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ktune/ktune/space"
)

// Every store keeps text as UTF-8: PostgreSQL's text cannot hold a NUL byte nor bytes
// that are not UTF-8, and SQLite's store keeps the same, so that what is stored reads
// back, and exports, the same from either. Text stored in a column of its own (names,
// messages) has U+FFFD in place of each NUL byte and of each run of bytes that are not
// UTF-8 (StorableText); text stored inside JSON (parameters' names and string values,
// configurations, metrics' names) keeps its NUL bytes, which JSON escapes, and has U+FFFD
// in place of each run of other bytes (ValidText). A configuration's string values are
// part of its identity: two values that would become one are refused, not merged
// (ValidParams, and recording.Storable for an import's configurations).

// StorableText returns a compiler's or a program's text (an evaluation's message and
// warnings), or a name, as every store keeps it: UTF-8 without NUL bytes, with U+FFFD in
// place of each NUL byte and of each run of bytes that are not UTF-8 (as
// strings.ToValidUTF8 replaces them; encoding/json would write each such byte as U+FFFD
// in an export anyway), rather than losing a measurement for its message's bytes.
func StorableText(s string) string {
	if utf8.ValidString(s) && !strings.Contains(s, "\x00") {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}

// Storable returns StorableText(s), and logs a warning that names what (the field: "kernel
// name") when that is not s.
func Storable(what, s string) string {
	t := StorableText(s)
	if t != s {
		slog.Warn("store: text holds NUL bytes or bytes that are not UTF-8, which the store keeps as U+FFFD",
			"field", what, "text", s, "stored", t)
	}
	return t
}

// ValidText returns s as UTF-8 for a text that the store keeps inside JSON, which escapes
// NUL bytes: U+FFFD in place of each run of bytes that are not UTF-8.
func ValidText(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// ValidValues returns vs with each string value ValidText, and whether any changed (vs
// itself when none did).
func ValidValues(vs []space.Value) ([]space.Value, bool) {
	var out []space.Value
	for i, v := range vs {
		if v.Kind() != space.String || utf8.ValidString(v.String()) {
			continue
		}
		if out == nil {
			out = append([]space.Value(nil), vs...)
		}
		out[i] = space.StringValue(ValidText(v.String()))
	}
	if out == nil {
		return vs, false
	}
	return out, true
}

// ValidParams returns ps with their names and string values ValidText (ps itself when
// none changes), and the names of the parameters it changed. It refuses parameters of
// which two names, or two values of one, would become one: two configurations would be
// stored as one.
func ValidParams(ps []space.Param) ([]space.Param, []string, error) {
	var out []space.Param
	var changed []string
	names := make(map[string]string, len(ps)) // ValidText → the name it was
	for i, p := range ps {
		name := ValidText(p.Name)
		if was, ok := names[name]; ok && was != p.Name {
			return nil, nil, fmt.Errorf("parameter %d: the names %q and %q are one name, %q, once U+FFFD stands for their bytes that are not UTF-8, as the store keeps them; give the names as UTF-8 (convert the file's encoding)",
				i, was, p.Name, name)
		}
		names[name] = p.Name
		values, valuesChanged, err := DistinctValid(p.Name, p.Values, nil)
		if err != nil {
			return nil, nil, err
		}
		if name == p.Name && !valuesChanged {
			continue
		}
		if out == nil {
			out = append([]space.Param(nil), ps...)
		}
		out[i].Name, out[i].Values = name, values
		changed = append(changed, strconv.Quote(name))
	}
	if out == nil {
		return ps, nil, nil
	}
	return out, changed, nil
}

// DistinctValid returns vs, values of the parameter param, with their string values
// ValidText, and whether any changed; it refuses two values that would become one (a
// *CollisionError). seen, when not nil, holds the values of param met before (ValidText →
// the value it was), and gets vs's, so that values met apart are checked against each
// other.
func DistinctValid(param string, vs []space.Value, seen map[string]string) ([]space.Value, bool, error) {
	out, changed := ValidValues(vs)
	if !changed && seen == nil {
		return vs, false, nil // all UTF-8: distinct values stay distinct
	}
	if seen == nil {
		seen = make(map[string]string, len(vs))
	}
	for i, v := range vs {
		if v.Kind() != space.String {
			continue
		}
		valid := out[i].String()
		if was, ok := seen[valid]; ok && was != v.String() {
			return nil, false, &CollisionError{Param: param, A: was, B: v.String(), Valid: valid}
		}
		seen[valid] = v.String()
	}
	return out, changed, nil
}

// CollisionError is two distinct string values of one parameter that would be stored as
// one value: U+FFFD stands for their bytes that are not UTF-8.
type CollisionError struct {
	Param, A, B, Valid string
}

func (e *CollisionError) Error() string {
	return fmt.Sprintf("parameter %q: the values %q and %q are one value, %q, once U+FFFD stands for their bytes that are not UTF-8, as the store keeps them, which would store two configurations as one; give the values as UTF-8 (convert the file's encoding)",
		e.Param, e.A, e.B, e.Valid)
}
