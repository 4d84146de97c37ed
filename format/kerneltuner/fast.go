package kerneltuner

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/ktune/ktune/format/internal/jsonio"
	"github.com/ktune/ktune/result"
)

// The fast reader. A recorded space holds tens of thousands of cache entries, each a dozen
// fields and often 32 timing samples; decoding every entry into a map of interface values
// took most of a second for seed 000's GEMM space, ten times Kernel Tuner's own load. The
// fast reader scans the content once, validating it as JSON and finding the entries, then
// scans each entry in turn, keeping each field's value where it lies in the content (a
// number's text, a string's), a list of numbers as the numbers themselves, and decoding
// anything else with encoding/json. It reads only files that are whole and well formed; on
// anything else it gives up, and the decoder-based reader (parse) reads the file and
// reports what is wrong exactly as it always has. Both produce entries of fields, and the
// recordings they lead to are the same (tested on every file in testdata and by fuzzing).

// Kinds of value.
const (
	vNumber  = iota + 1 // a JSON number: its text is data[start:end]
	vString             // a JSON string: its quoted text is data[start:end]
	vNumbers            // an array of finite numbers data[start:end], held in nums
	vRaw                // any other JSON value data[start:end], for encoding/json
	vDecoded            // a value decoded by encoding/json (the decoder-based reader): x
)

// value is a field's value.
type value struct {
	kind       uint8
	start, end int
	nums       []float64
	x          any
}

// field is one member of a cache entry.
type field struct {
	name string
	v    value
}

// fields are a cache entry's members in file order.
type fields []field

// get returns the value of the last member named name (as Python's json keeps the last of
// duplicates, and so did the map this replaces).
func (fs fields) get(name string) (value, bool) {
	for i := len(fs) - 1; i >= 0; i-- {
		if fs[i].name == name {
			return fs[i].v, true
		}
	}
	return value{}, false
}

// shadowed reports whether a later member has the same name as member i (and so wins).
func (fs fields) shadowed(i int) bool {
	for _, f := range fs[i+1:] {
		if f.name == fs[i].name {
			return true
		}
	}
	return false
}

// decoded returns v as encoding/json decodes it with UseNumber: json.Number, string, bool,
// nil, []any or map[string]any.
func (v value) decoded(data []byte) any {
	switch v.kind {
	case vDecoded:
		return v.x
	case vNumber:
		return json.Number(data[v.start:v.end])
	case vString:
		return jsonio.Unquote(data[v.start:v.end])
	}
	dec := json.NewDecoder(bytes.NewReader(data[v.start:v.end]))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		panic("kerneltuner: a value the scanner validated does not decode: " + err.Error())
	}
	return x
}

// float is jsonio.Float of the value: a finite number.
func (v value) float(data []byte) (float64, bool) {
	if v.kind == vNumber {
		f, err := strconv.ParseFloat(string(data[v.start:v.end]), 64)
		if err != nil || !jsonio.Finite(f) {
			return 0, false // 1E700 overflows to +Inf: no usable number, as jsonio.Float says
		}
		return f, true
	}
	if v.kind == vDecoded {
		return jsonio.Float(v.x)
	}
	return 0, false
}

// str returns the value when it is a string.
func (v value) str(data []byte) (string, bool) {
	switch v.kind {
	case vString:
		return jsonio.Unquote(data[v.start:v.end]), true
	case vDecoded:
		s, ok := v.x.(string)
		return s, ok
	}
	return "", false
}

// samples returns the finite numbers of the value when it is an array, nil otherwise,
// with how many of its n elements are anything else (bad) and the first of those.
func (v value) samples(data []byte) (out []float64, bad, n int, first any) {
	switch v.kind {
	case vNumbers:
		return v.nums, 0, len(v.nums), nil
	case vRaw, vDecoded:
		list, ok := v.decoded(data).([]any)
		if !ok {
			return nil, 0, 0, nil
		}
		for _, x := range list {
			if f, ok := jsonio.Float(x); ok {
				out = append(out, f)
			} else if bad++; bad == 1 {
				first = x
			}
		}
		return out, bad, len(list), first
	}
	return nil, 0, 0, nil
}

// scanner reads cache entries.
type scanner struct {
	jsonio.Scanner
	names map[string]string // field names, one string each
	arena []float64         // samples are cut from here
}

// value scans a field's value.
func (s *scanner) value() value {
	switch c := s.Peek(); {
	case c == '"':
		a, b := s.String()
		return value{kind: vString, start: a, end: b}
	case c == '-' || '0' <= c && c <= '9':
		a, b := s.Number()
		return value{kind: vNumber, start: a, end: b}
	case c == '[':
		return s.numbers()
	}
	a, b := s.Skip()
	return value{kind: vRaw, start: a, end: b}
}

// numbers scans an array, keeping its numbers when it holds only finite numbers.
func (s *scanner) numbers() value {
	start := s.I
	from := len(s.arena)
	only := true
	s.Array(func() {
		if c := s.Peek(); c == '-' || '0' <= c && c <= '9' {
			a, b := s.Number()
			if f, err := strconv.ParseFloat(string(s.Data[a:b]), 64); err == nil && jsonio.Finite(f) {
				s.arena = append(s.arena, f)
			} else {
				only = false // 1e400: samples reports it
			}
			return
		}
		only = false
		s.Skip()
	})
	if !only {
		s.arena = s.arena[:from]
		return value{kind: vRaw, start: start, end: s.I}
	}
	v := value{kind: vNumbers, start: start, end: s.I}
	if n := len(s.arena) - from; n > 0 {
		v.nums = s.arena[from:len(s.arena):len(s.arena)]
	}
	if cap(s.arena)-len(s.arena) < 64 {
		s.arena = make([]float64, 0, 1<<14) // the samples cut so far keep the old one
	}
	return v
}

// name returns the field name data[a:b] (quoted), one string per distinct name.
func (s *scanner) name(a, b int) string {
	q := s.Data[a:b]
	if n, ok := s.names[string(q)]; ok {
		return n
	}
	n := jsonio.Unquote(q)
	s.names[string(q)] = n
	return n
}

// cached is where a cache entry lies in the content: its key's extent (quotes included)
// and the offset of its object.
type cached struct {
	key   jsonio.Extent
	value int
}

// readFast reads a whole, well-formed cache file: one validating pass finds the header
// and where each entry lies, and a second scans the entries one at a time, each made an
// evaluation before the next is scanned into the same fields, so that what is held is the
// file's bytes and the evaluations, not every entry's fields besides (some 1.2 KB an entry
// in a cache with 7 samples an entry; the header may also follow the cache). ok is false
// when the content is anything else (the decoder-based reader then reads it and says what
// is wrong); err is what building the recording found wrong.
func readFast(in *jsonio.Input) (rec *result.Recording, ok bool, err error) {
	var h header
	var entries []cached
	if !jsonio.Scan(func() { entries = scanTop(&jsonio.Scanner{Data: in.Data}, &h) }) {
		return nil, false, nil
	}
	b, err := newBuilder(in, &h, len(entries))
	if err != nil {
		return nil, true, err
	}
	s := &scanner{Scanner: jsonio.Scanner{Data: in.Data}, names: map[string]string{}, arena: make([]float64, 0, 1<<14)}
	var fs fields // each entry's in turn
	scanned := jsonio.Scan(func() {
		for _, c := range entries {
			fs = fs[:0]
			s.I = c.value
			s.Object(func(na, nb int) {
				fs = append(fs, field{name: s.name(na, nb), v: s.value()})
			})
			e := entry{key: jsonio.Unquote(in.Data[c.key.Start:c.key.End]), fields: fs, offset: int64(c.key.Start)}
			if err = b.add(e); err != nil {
				return
			}
		}
	})
	if !scanned {
		return nil, false, nil // not expected: the first pass validated every entry
	}
	if err != nil {
		return nil, true, err
	}
	return b.finish(), true, nil
}

// scanTop scans the whole file, decoding the header into h, and returns where the cache's
// entries lie.
func scanTop(s *jsonio.Scanner, h *header) (entries []cached) {
	s.Object(func(a, b int) {
		key := jsonio.Unquote(s.Data[a:b])
		if key == "cache" {
			s.Object(func(ka, kb int) {
				if s.Peek() != '{' {
					s.Fail() // null or another value: the decoder-based reader reports it
				}
				// the entry is placed at its key, as the decoder-based reader places it
				entries = append(entries, cached{key: jsonio.Extent{Start: ka, End: kb}, value: s.I})
				s.Skip()
			})
			return
		}
		va, vb := s.Skip()
		dec := json.NewDecoder(bytes.NewReader(s.Data[va:vb]))
		dec.UseNumber()
		if _, err := h.decodeMember(key, dec); err != nil {
			s.Fail()
		}
	})
	s.End()
	return entries
}
