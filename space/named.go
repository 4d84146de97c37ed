package space

import (
	"encoding/json"
	"strings"
)

// Named is a configuration by its parameters' names, in the space's parameter order: how
// results name a configuration to people and programs. Its JSON form is an object in that
// order (a map would sort the names), its text name=value pairs as Space.Format writes
// them.
type Named struct {
	Names  []string
	Values []Value
}

// Named names c's values by the space's parameters.
func (s *Space) Named(c Config) Named {
	n := Named{Values: s.Values(c)}
	for _, p := range s.Params() {
		n.Names = append(n.Names, p.Name)
	}
	return n
}

// IsZero reports whether n holds no configuration (omitzero leaves it out of JSON).
func (n Named) IsZero() bool { return n.Values == nil }

// String is n as name=value pairs separated by commas, as Space.Format writes it.
func (n Named) String() string {
	var b strings.Builder
	for i, name := range n.Names {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(name)
		b.WriteByte('=')
		b.WriteString(n.Values[i].String())
	}
	return b.String()
}

// MarshalJSON writes n as an object of its names and values, in their order.
func (n Named) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, name := range n.Names {
		if i > 0 {
			b = append(b, ',')
		}
		k, err := json.Marshal(name)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(n.Values[i])
		if err != nil {
			return nil, err
		}
		b = append(append(append(b, k...), ':'), v...)
	}
	return append(b, '}'), nil
}
