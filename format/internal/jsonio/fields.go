package jsonio

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Decoding with a Scanner what encoding/json decodes into Go values, for the readers whose
// files hold many small objects of one shape (a T4 result, a KTT result): encoding/json
// copies each into a buffer of its own, allocates an error to find where each number ends
// and, for an Object, starts a decoder, some ten times an object's size in garbage that
// made the garbage collector let the heap grow to twice what reading holds. What these
// methods decode is what encoding/json decodes (with UseNumber) into the same types; they
// give up on what they do not mimic: a member whose name encoding/json would match only by
// case folding, a member named twice, a value of another type than the field's.

// Unquote decodes a JSON string token (validated: quotes included) as encoding/json does,
// invalid UTF-8 becoming U+FFFD.
func Unquote(q []byte) string {
	body := q[1 : len(q)-1]
	if bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
		return string(body)
	}
	var s string
	if err := json.Unmarshal(q, &s); err != nil {
		panic("jsonio: a string the scanner validated does not decode: " + err.Error())
	}
	return s
}

// Intern returns the string of the JSON string token q (quotes included), one string per
// distinct token (of the first maxShared): the names of a file's members repeat in every
// object, and a string each would be garbage made for every object.
func (s *Scanner) Intern(q []byte) string {
	if t, ok := s.interned[string(q)]; ok {
		return t
	}
	t := Unquote(q)
	if len(s.interned) < maxShared {
		if s.interned == nil {
			s.interned = map[string]string{}
		}
		s.interned[string(q)] = t
	}
	return t
}

// Fields are the member names of a struct as encoding/json knows them, for Field.
type Fields struct {
	names []string
}

// NewFields lists the member names (the json tags) of a struct, at most 64.
func NewFields(names ...string) *Fields {
	if len(names) > 64 {
		panic("jsonio: NewFields of more than 64 names")
	}
	return &Fields{names: names}
}

// Field returns the index in fs of the member named by the string token q (quotes
// included), and -1 for a member encoding/json ignores. It gives up on a name that
// encoding/json would match by case folding alone, and on one that seen (the fields met
// so far in the object) holds already.
func (s *Scanner) Field(q []byte, fs *Fields, seen *uint64) int {
	body := q[1 : len(q)-1]
	plain := true
	for _, c := range body {
		if c == '\\' || c >= utf8.RuneSelf {
			plain = false
			break
		}
	}
	name := ""
	if !plain {
		name = Unquote(q)
	}
	for i, n := range fs.names {
		if plain && string(body) == n || !plain && name == n {
			if *seen&(1<<i) != 0 {
				s.Fail() // encoding/json decodes the second into what the first left
			}
			*seen |= 1 << i
			return i
		}
	}
	for _, n := range fs.names {
		if plain && bytes.EqualFold(body, []byte(n)) || !plain && strings.EqualFold(name, n) {
			s.Fail()
		}
	}
	return -1
}

// Struct decodes an object into a struct whose members are fs, as encoding/json does:
// member decodes the value of the field (its index in fs) it is given, and the members of
// no field are skipped; a null leaves the struct be. Anything else gives up, as Field
// does.
func (s *Scanner) Struct(fs *Fields, member func(field int)) {
	if s.Null() {
		return
	}
	var seen uint64
	s.Object(func(a, b int) {
		if f := s.Field(s.Data[a:b], fs, &seen); f >= 0 {
			member(f)
		} else {
			s.Skip()
		}
	})
}

// Null consumes a null and reports true when the next value is one.
func (s *Scanner) Null() bool {
	if s.Peek() != 'n' {
		return false
	}
	s.literal("null")
	return true
}

// Short strings and numbers repeat (a parameter's values, a status), and each would be
// an allocation for its text and one for its interface value: Any keeps the first maxShared
// of at most maxSharedLen bytes and gives them out again.
const (
	maxShared    = 4096
	maxSharedLen = 16
	maxInternLen = 64 // the longest string Text interns
)

// Any scans a value and returns it as encoding/json decodes one into an any with
// UseNumber: json.Number, string, bool, nil, []any or map[string]any.
func (s *Scanner) Any() any {
	switch c := s.Peek(); {
	case c == '"':
		a, b := s.String()
		return s.shared(s.Data[a:b], func(q []byte) any { return Unquote(q) })
	case c == '-' || '0' <= c && c <= '9':
		a, b := s.Number()
		return s.shared(s.Data[a:b], func(n []byte) any { return json.Number(n) })
	case c == '[':
		list := []any{}
		s.Array(func() { list = append(list, s.Any()) })
		return list
	case c == '{':
		m := map[string]any{}
		s.Object(func(a, b int) { m[s.Intern(s.Data[a:b])] = s.Any() })
		return m
	case c == 't':
		s.literal("true")
		return true
	case c == 'f':
		s.literal("false")
		return false
	}
	s.literal("null")
	return nil
}

// shared returns the value of token (a string's or a number's: the quotes tell them
// apart), made by make, or the one made before for the same token.
func (s *Scanner) shared(token []byte, make func([]byte) any) any {
	if len(token) > maxSharedLen {
		return make(token)
	}
	if x, ok := s.values[string(token)]; ok {
		return x
	}
	x := make(token)
	if len(s.values) < maxShared {
		if s.values == nil {
			s.values = map[string]any{}
		}
		s.values[string(token)] = x
	}
	return x
}

// Text decodes a string into *dst as encoding/json decodes one into a string field: a
// null leaves it be, anything else gives up.
func (s *Scanner) Text(dst *string) {
	if s.Null() {
		return
	}
	a, b := s.String()
	if b-a > maxInternLen {
		*dst = Unquote(s.Data[a:b])
		return
	}
	*dst = s.Intern(s.Data[a:b]) // a name or a status, most likely, which repeat
}

// Float decodes a number into *dst as encoding/json decodes one into a float64 field: a
// null leaves it be; a number beyond a float64's range, or anything else, gives up.
func (s *Scanner) Float(dst *float64) {
	if s.Null() {
		return
	}
	*dst = s.float()
}

// FloatPtr decodes a number as encoding/json decodes one into a *float64 field: nil for a
// null; gives up as Float does.
func (s *Scanner) FloatPtr() *float64 {
	if s.Null() {
		return nil
	}
	f := s.float()
	return &f
}

func (s *Scanner) float() float64 {
	if c := s.Peek(); c != '-' && (c < '0' || c > '9') {
		s.Fail()
	}
	a, b := s.Number()
	f, err := strconv.ParseFloat(string(s.Data[a:b]), 64)
	if err != nil {
		s.Fail()
	}
	return f
}

// ObjectPtr decodes an object as encoding/json decodes one into an *Object field: nil for
// a null; the members in order otherwise (a nil Object for none), as Object.UnmarshalJSON
// decodes them. Anything else gives up.
func (s *Scanner) ObjectPtr() *Object {
	if s.Null() {
		return nil
	}
	// the members are gathered in a buffer kept for the next object and copied out at
	// their number, where appending would allocate at 1, 2, 4, 8 members and so on
	from := len(s.members)
	s.Object(func(a, b int) {
		s.members = append(s.members, Member{Key: s.Intern(s.Data[a:b]), Value: s.Any()})
	})
	var o Object
	if len(s.members) > from {
		o = append(Object(nil), s.members[from:]...)
	}
	clear(s.members[from:])
	s.members = s.members[:from]
	return &o
}

// Slice decodes an array as encoding/json decodes one into a []T field: nil for a null,
// an empty slice for [], each element decoded by elem into a zero T. Anything else gives
// up.
func Slice[T any](s *Scanner, elem func(*Scanner, *T)) []T {
	if s.Null() {
		return nil
	}
	out := []T{}
	s.Array(func() {
		var zero T
		out = append(out, zero)
		elem(s, &out[len(out)-1])
	})
	return out
}

// Members decodes an object into a struct whose members are fs, as Struct does, with
// dsts the struct's fields in the order of fs's names (as database/sql's Rows.Scan takes
// a row's columns), each decoded as encoding/json decodes a value into a field of its
// type: a *string by Text, a *float64 by Float, a **float64 by FloatPtr, an *any by Any,
// an **Object by ObjectPtr, a *[]any as a Slice of Any; a func() decodes the value itself
// (a slice of structs, a pointer to one). A destination of another type, or a count other
// than fs's, is a mistake in the reader: Members panics.
func (s *Scanner) Members(fs *Fields, dsts ...any) {
	if len(dsts) != len(fs.names) {
		panic(fmt.Sprintf("jsonio: Members given %d destinations for Fields of %d names", len(dsts), len(fs.names)))
	}
	s.Struct(fs, func(field int) {
		switch d := dsts[field].(type) {
		case *string:
			s.Text(d)
		case *float64:
			s.Float(d)
		case **float64:
			*d = s.FloatPtr()
		case *any:
			*d = s.Any()
		case **Object:
			*d = s.ObjectPtr()
		case *[]any:
			*d = Slice(s, scanAny)
		case func():
			d()
		default:
			// the type, not d: d to fmt would make every destination escape to the heap
			panic(fmt.Sprintf("jsonio: Members into a %v, for member %q", reflect.TypeOf(d), fs.names[field]))
		}
	})
}

func scanAny(s *Scanner, v *any) { *v = s.Any() }
