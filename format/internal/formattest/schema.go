package formattest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"sort"
	"strings"
)

// Validator checks a JSON document against a JSON Schema, for the subset of draft-07 and
// 2020-12 that the T4 results schema and Kernel Tuner's cache schema use (and a little
// more): type, properties, patternProperties, propertyNames, required, items, enum, const,
// pattern, additionalProperties, anyOf, oneOf, allOf, $ref to local definitions, and the
// date-time format (RFC 3339, as Python's jsonschema checks it with a format checker). A
// keyword it does not know fails validation instead of being ignored, so a newer schema
// cannot pass unnoticed.
type Validator struct {
	root map[string]any
}

var annotations = map[string]bool{
	"$schema": true, "$id": true, "$comment": true, "description": true, "title": true,
	"example": true, "examples": true, "default": true,
	"definitions": true, "$defs": true,
}

// NewValidator reads a schema.
func NewValidator(schema []byte) (*Validator, error) {
	var root map[string]any
	dec := json.NewDecoder(bytes.NewReader(schema))
	dec.UseNumber()
	if err := dec.Decode(&root); err != nil {
		return nil, err
	}
	return &Validator{root: root}, nil
}

// Validate returns every violation (up to about 20), each with the JSON path of the
// offending value; doc is decoded with numbers as json.Number (DecodeJSON).
func (v *Validator) Validate(doc any) []string {
	var errs []string
	v.check(v.root, doc, "$", &errs)
	return errs
}

func (v *Validator) check(schema any, doc any, path string, errs *[]string) {
	if len(*errs) > 20 {
		return
	}
	bad := func(format string, args ...any) {
		*errs = append(*errs, path+": "+fmt.Sprintf(format, args...))
	}
	switch s := schema.(type) {
	case bool:
		if !s {
			bad("schema false admits nothing")
		}
		return
	case map[string]any:
		keys := make([]string, 0, len(s))
		for k := range s {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			kw := s[k]
			switch k {
			case "$ref":
				ref, _ := kw.(string)
				target, err := v.resolve(ref)
				if err != nil {
					bad("%v", err)
					continue
				}
				v.check(target, doc, path, errs)
			case "type":
				if !typeMatches(kw, doc) {
					bad("is %s, want type %v", jsonType(doc), kw)
				}
			case "enum":
				list, _ := kw.([]any)
				found := false
				for _, x := range list {
					if equalJSON(x, doc) {
						found = true
					}
				}
				if !found {
					bad("value %v is not in enum %v", doc, list)
				}
			case "const":
				if !equalJSON(kw, doc) {
					bad("value %v is not the const %v", doc, kw)
				}
			case "pattern":
				str, ok := doc.(string)
				if !ok {
					continue
				}
				re, err := regexp.Compile(kw.(string))
				if err != nil {
					bad("bad pattern %q: %v", kw, err)
				} else if !re.MatchString(str) {
					bad("%q does not match %q", str, kw)
				}
			case "required":
				obj, ok := doc.(map[string]any)
				if !ok {
					continue
				}
				for _, r := range kw.([]any) {
					if _, present := obj[r.(string)]; !present {
						bad("lacks required property %q", r)
					}
				}
			case "properties":
				obj, ok := doc.(map[string]any)
				if !ok {
					continue
				}
				for name, sub := range kw.(map[string]any) {
					if val, present := obj[name]; present {
						v.check(sub, val, path+"."+name, errs)
					}
				}
			case "patternProperties":
				obj, ok := doc.(map[string]any)
				if !ok {
					continue
				}
				for pattern, sub := range kw.(map[string]any) {
					re, err := regexp.Compile(pattern)
					if err != nil {
						bad("bad pattern %q: %v", pattern, err)
						continue
					}
					for _, name := range sortedKeys(obj) {
						if re.MatchString(name) {
							v.check(sub, obj[name], path+"."+name, errs)
						}
					}
				}
			case "propertyNames":
				obj, ok := doc.(map[string]any)
				if !ok {
					continue
				}
				for _, name := range sortedKeys(obj) {
					v.check(kw, name, path+"."+name+" (its name)", errs)
				}
			case "format":
				str, ok := doc.(string)
				if ok && kw == "date-time" && !dateTime.MatchString(str) {
					bad("%q is not an RFC 3339 date-time", str)
				}
			case "additionalProperties":
				obj, ok := doc.(map[string]any)
				if !ok {
					continue
				}
				props, _ := s["properties"].(map[string]any)
				patterns, _ := s["patternProperties"].(map[string]any)
				for _, name := range sortedKeys(obj) {
					if _, declared := props[name]; declared || matchesAny(patterns, name) {
						continue
					}
					v.check(kw, obj[name], path+"."+name, errs)
				}
			case "items":
				arr, ok := doc.([]any)
				if !ok {
					continue
				}
				for i, val := range arr {
					v.check(kw, val, fmt.Sprintf("%s[%d]", path, i), errs)
				}
			case "anyOf", "oneOf", "allOf":
				n := 0
				var sub []string
				for _, alt := range kw.([]any) {
					var e []string
					v.check(alt, doc, path, &e)
					if len(e) == 0 {
						n++
					}
					sub = append(sub, e...)
				}
				total := len(kw.([]any))
				if (k == "anyOf" && n == 0) || (k == "oneOf" && n != 1) || (k == "allOf" && n != total) {
					bad("%s: %d of %d alternatives match: %s", k, n, total, strings.Join(sub, "; "))
				}
			default:
				if !annotations[k] {
					bad("schema keyword %q is not supported by the test's validator", k)
				}
			}
		}
	default:
		bad("schema is %T", schema)
	}
}

func (v *Validator) resolve(ref string) (any, error) {
	if !strings.HasPrefix(ref, "#/") {
		return nil, fmt.Errorf("$ref %q: only local references are supported", ref)
	}
	var cur any = v.root
	for _, part := range strings.Split(ref[2:], "/") {
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("$ref %q does not resolve", ref)
		}
		if cur, ok = m[part]; !ok {
			return nil, fmt.Errorf("$ref %q does not resolve", ref)
		}
	}
	return cur, nil
}

func typeMatches(kw any, doc any) bool {
	switch t := kw.(type) {
	case string:
		return isType(t, doc)
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok && isType(s, doc) {
				return true
			}
		}
	}
	return false
}

func isType(t string, doc any) bool {
	switch t {
	case "integer":
		n, ok := doc.(json.Number)
		if !ok {
			return false
		}
		f, err := n.Float64()
		return err == nil && f == math.Trunc(f)
	case "number":
		_, ok := doc.(json.Number)
		return ok
	}
	return jsonType(doc) == t
}

func jsonType(doc any) string {
	switch doc.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", doc)
}

// equalJSON compares decoded JSON values, numbers by value.
func equalJSON(a, b any) bool {
	na, aNum := a.(json.Number)
	nb, bNum := b.(json.Number)
	if aNum && bNum {
		fa, _ := na.Float64()
		fb, _ := nb.Float64()
		return fa == fb
	}
	return reflect.DeepEqual(a, b)
}

// dateTime is RFC 3339's date-time (section 5.6), which JSON Schema's "date-time" format
// means: a T (or t) between date and time, any number of fractional digits, and Z or an
// offset. Python's str(datetime), with a space, is not one.
var dateTime = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$`)

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// matchesAny reports whether name matches one of the patternProperties' patterns.
func matchesAny(patterns map[string]any, name string) bool {
	for p := range patterns {
		if re, err := regexp.Compile(p); err == nil && re.MatchString(name) {
			return true
		}
	}
	return false
}

// DecodeJSON decodes a document for Validate, numbers as json.Number so that integers
// are told from other numbers.
func DecodeJSON(data []byte) (any, error) {
	var doc any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	return doc, nil
}
