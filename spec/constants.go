package spec

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Constant returns the value of the constant called name, and whether the spec has one.
func (s *Spec) Constant(name string) (float64, bool) {
	for _, c := range s.Constants {
		if c.Name == name {
			return c.Value, true
		}
	}
	return 0, false
}

// WithConstants returns the spec with the constants named in values set to those values:
// the same spec text, parsed again with each such constant's expression replaced by its
// value, so that everything that reads a constant (the constants after it, parameter
// value lists, restrictions, problem_size, launch geometry, argument lengths and values,
// metrics) reads the new one. It is how one spec serves inputs of several sizes. A spec
// whose kernel sources were read (Load, ReadFiles) has them too: a file that changed
// since (its size or modification time) is read again, as Load reads it, and the others
// are kept from their last read, which the specs derived from one spec share.
// Errors are a name that is no constant of the spec, a value that is not finite, and the
// new spec's own (a restriction that now leaves no configuration is not one: Space
// says so). With no values it returns s itself.
func (s *Spec) WithConstants(values map[string]float64) (*Spec, error) {
	if err := s.parsed(); err != nil {
		return nil, err
	}
	if len(values) == 0 {
		return s, nil
	}
	if s.raw == nil {
		return nil, fmt.Errorf("spec %s: its text is unknown, so it cannot be parsed with other constants", s.name())
	}
	names := make([]string, 0, len(values))
	for name, v := range values {
		if _, ok := s.Constant(name); !ok {
			have := make([]string, len(s.Constants))
			for i, c := range s.Constants {
				have[i] = c.Name
			}
			if len(have) == 0 {
				return nil, fmt.Errorf("spec %s has no constants; %s is none", s.name(), name)
			}
			return nil, fmt.Errorf("spec %s has no constant %s (its constants: %s)", s.name(), name, strings.Join(have, ", "))
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("spec %s: constant %s = %v; expected a finite number", s.name(), name, v)
		}
		names = append(names, name)
	}
	slices.Sort(names)
	var doc yaml.Node
	if err := yaml.Unmarshal(s.raw, &doc); err != nil {
		return nil, syntaxError(s.File, s.raw, err)
	}
	consts := mappingValue(doc.Content[0], "constants")
	for consts != nil && consts.Kind == yaml.AliasNode {
		consts = consts.Alias
	}
	if consts == nil || consts.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("spec %s: no constants mapping in its text", s.name())
	}
	for i := 0; i+1 < len(consts.Content); i += 2 {
		k := consts.Content[i]
		v, ok := values[k.Value]
		if !ok {
			continue
		}
		old := consts.Content[i+1]
		// an expression string of the number: exact, and read as any constant's expression
		consts.Content[i+1] = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: strconv.FormatFloat(v, 'f', -1, 64),
			Line: old.Line, Column: old.Column}
	}
	out, err := parseDoc(&decoder{file: s.File}, &doc, s.raw, s.File)
	if err != nil {
		return nil, fmt.Errorf("with %s: %w", describeConstants(names, values), err)
	}
	if s.filesRead {
		out.read = s.read // the same files: read again only where they changed
		if err := out.ReadFiles(); err != nil {
			return nil, fmt.Errorf("with %s: %w", describeConstants(names, values), err)
		}
	}
	return out, nil
}

// describeConstants writes "N = 4096, M = 2" for the constants names, in their order.
func describeConstants(names []string, values map[string]float64) string {
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + " = " + strconv.FormatFloat(values[n], 'f', -1, 64)
	}
	return strings.Join(parts, ", ")
}
