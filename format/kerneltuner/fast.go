package kerneltuner

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/ktune/ktune/format/internal/jsonio"
)

// The fast reader. A recorded space holds tens of thousands of cache entries, each a dozen
// fields and often 32 timing samples; decoding every entry into a map of interface values
// took most of a second for seed 000's GEMM space, ten times Kernel Tuner's own load. The
// fast reader scans the content once, validating it as JSON, and keeps each field's value
// where it lies in the content (a number's text, a string's), a list of numbers as the
// numbers themselves, and decodes anything else with encoding/json. It reads only files
// that are whole and well formed; on anything else it gives up, and the decoder-based
// reader (parse) reads the file and reports what is wrong exactly as it always has. Both
// produce entries of fields, and the recordings they lead to are the same (tested on every
// file in testdata and by fuzzing).

// Kinds of value.
const (
	vNumber  = iota + 1 // a JSON number: its text is data[start:end]
	vString             // a JSON string: its quoted text is data[start:end]
	vNumbers            // an array of numbers data[start:end]; nums holds those that are finite
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
		return unquote(data[v.start:v.end])
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
		return f, err == nil && jsonio.Finite(f)
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
		return unquote(data[v.start:v.end]), true
	case vDecoded:
		s, ok := v.x.(string)
		return s, ok
	}
	return "", false
}

// samples returns the finite numbers of the value when it is an array, nil otherwise.
func (v value) samples(data []byte) []float64 {
	switch v.kind {
	case vNumbers:
		return v.nums
	case vRaw, vDecoded:
		list, ok := v.decoded(data).([]any)
		if !ok {
			return nil
		}
		var out []float64
		for _, x := range list {
			if f, ok := jsonio.Float(x); ok {
				out = append(out, f)
			}
		}
		return out
	}
	return nil
}

// unquote decodes a JSON string token (validated) as encoding/json does, invalid UTF-8
// becoming U+FFFD.
func unquote(q []byte) string {
	body := q[1 : len(q)-1]
	if bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
		return string(body)
	}
	var s string
	if err := json.Unmarshal(q, &s); err != nil {
		panic("kerneltuner: a string the scanner validated does not decode: " + err.Error())
	}
	return s
}

// giveUp is parseFast's failure to read: the decoder-based reader takes over.
type giveUp struct{}

// scanner walks the content, validating it as JSON.
type scanner struct {
	data  []byte
	i     int
	depth int               // of nested arrays and objects in skip
	names map[string]string // field names, one string each
	arena []float64         // samples are cut from here
}

func (s *scanner) fail() { panic(giveUp{}) }

func (s *scanner) space() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek returns the next byte after blanks; it gives up at the end of the content.
func (s *scanner) peek() byte {
	s.space()
	if s.i >= len(s.data) {
		s.fail()
	}
	return s.data[s.i]
}

func (s *scanner) expect(c byte) {
	if s.peek() != c {
		s.fail()
	}
	s.i++
}

// string scans a string token and returns its extent, quotes included.
func (s *scanner) string() (start, end int) {
	if s.peek() != '"' {
		s.fail()
	}
	start = s.i
	for j := s.i + 1; j < len(s.data); j++ {
		switch c := s.data[j]; {
		case c == '"':
			s.i = j + 1
			return start, s.i
		case c == '\\':
			j++
			if j >= len(s.data) {
				s.fail()
			}
			switch s.data[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if j+4 >= len(s.data) {
					s.fail()
				}
				for _, h := range s.data[j+1 : j+5] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						s.fail()
					}
				}
				j += 4
			default:
				s.fail()
			}
		case c < 0x20:
			s.fail()
		}
	}
	s.fail()
	return
}

// number scans a number token by JSON's grammar and returns its extent.
func (s *scanner) number() (start, end int) {
	d := s.data
	start = s.i
	j := s.i
	if j < len(d) && d[j] == '-' {
		j++
	}
	digits := func() {
		k := j
		for j < len(d) && '0' <= d[j] && d[j] <= '9' {
			j++
		}
		if j == k {
			s.fail()
		}
	}
	switch {
	case j < len(d) && d[j] == '0':
		j++
	default:
		digits()
	}
	if j < len(d) && d[j] == '.' {
		j++
		digits()
	}
	if j < len(d) && (d[j] == 'e' || d[j] == 'E') {
		j++
		if j < len(d) && (d[j] == '+' || d[j] == '-') {
			j++
		}
		digits()
	}
	s.i = j
	return start, j
}

func (s *scanner) literal(word string) {
	if !bytes.HasPrefix(s.data[s.i:], []byte(word)) {
		s.fail()
	}
	s.i += len(word)
}

// maxDepth is encoding/json's limit on nesting; deeper content is left to it to reject.
const maxDepth = 10000

// skip scans any value and returns its extent.
func (s *scanner) skip() (start, end int) {
	s.depth++
	defer func() { s.depth-- }()
	if s.depth > maxDepth {
		s.fail()
	}
	switch c := s.peek(); {
	case c == '"':
		return s.string()
	case c == '-' || '0' <= c && c <= '9':
		return s.number()
	case c == '{':
		start = s.i
		s.i++
		if s.peek() == '}' {
			s.i++
			return start, s.i
		}
		for {
			s.string()
			s.expect(':')
			s.skip()
			switch s.peek() {
			case ',':
				s.i++
			case '}':
				s.i++
				return start, s.i
			default:
				s.fail()
			}
		}
	case c == '[':
		start = s.i
		s.i++
		if s.peek() == ']' {
			s.i++
			return start, s.i
		}
		for {
			s.skip()
			switch s.peek() {
			case ',':
				s.i++
			case ']':
				s.i++
				return start, s.i
			default:
				s.fail()
			}
		}
	case c == 't':
		start = s.i
		s.literal("true")
	case c == 'f':
		start = s.i
		s.literal("false")
	case c == 'n':
		start = s.i
		s.literal("null")
	default:
		s.fail()
	}
	return start, s.i
}

// value scans a field's value.
func (s *scanner) value() value {
	switch c := s.peek(); {
	case c == '"':
		a, b := s.string()
		return value{kind: vString, start: a, end: b}
	case c == '-' || '0' <= c && c <= '9':
		a, b := s.number()
		return value{kind: vNumber, start: a, end: b}
	case c == '[':
		return s.numbers()
	}
	a, b := s.skip()
	return value{kind: vRaw, start: a, end: b}
}

// numbers scans an array, keeping its finite numbers when it holds only numbers.
func (s *scanner) numbers() value {
	start := s.i
	s.i++
	from := len(s.arena)
	only := true
	if s.peek() == ']' {
		s.i++
	} else {
		for {
			if c := s.peek(); c == '-' || '0' <= c && c <= '9' {
				a, b := s.number()
				if f, err := strconv.ParseFloat(string(s.data[a:b]), 64); err == nil && jsonio.Finite(f) {
					s.arena = append(s.arena, f)
				}
			} else {
				only = false
				s.skip()
			}
			c := s.peek()
			s.i++
			if c == ']' {
				break
			}
			if c != ',' {
				s.fail()
			}
		}
	}
	if !only {
		s.arena = s.arena[:from]
		return value{kind: vRaw, start: start, end: s.i}
	}
	v := value{kind: vNumbers, start: start, end: s.i}
	if n := len(s.arena) - from; n > 0 {
		v.nums = s.arena[from:len(s.arena):len(s.arena)]
	}
	if cap(s.arena)-len(s.arena) < 64 {
		s.arena = make([]float64, 0, 1<<14) // the samples cut so far keep the old one
	}
	return v
}

// name returns a field name, one string per distinct name.
func (s *scanner) name() string {
	a, b := s.string()
	q := s.data[a:b]
	if n, ok := s.names[string(q)]; ok {
		return n
	}
	n := unquote(q)
	s.names[string(q)] = n
	return n
}

// parseFast reads a whole, well-formed cache file into h and its entries; false when the
// content is anything else (the decoder-based reader then reads it and says what is
// wrong).
func parseFast(in *jsonio.Input, h *header) (entries []entry, ok bool) {
	s := &scanner{data: in.Data, names: map[string]string{}, arena: make([]float64, 0, 1<<14)}
	defer func() {
		if r := recover(); r != nil {
			if _, give := r.(giveUp); !give {
				panic(r)
			}
			entries, ok = nil, false
		}
	}()
	var all fields // the entries' fields, cut into each entry's
	s.expect('{')
	if s.peek() == '}' {
		s.i++
	} else {
		for {
			a, b := s.string()
			key := unquote(s.data[a:b])
			s.expect(':')
			s.space()
			if key == "cache" {
				entries, all = s.cache(in, entries, all)
			} else {
				va, vb := s.skip()
				if !h.decode(key, s.data[va:vb]) {
					s.fail()
				}
			}
			c := s.peek()
			s.i++
			if c == '}' {
				break
			}
			if c != ',' {
				s.fail()
			}
		}
	}
	if s.space(); s.i != len(s.data) {
		s.fail()
	}
	return entries, true
}

// decode decodes a header member's value with the decoder-based reader's functions; false
// when it does not decode.
func (h *header) decode(key string, raw []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var err error
	switch key {
	case "device_name":
		h.device, err = decodeString(dec)
	case "kernel_name":
		h.kernel, err = decodeString(dec)
	case "objective":
		h.objective, err = decodeString(dec)
	case "problem_size":
		h.problem, err = decodeProblemSize(dec)
	case "tune_params_keys":
		err = dec.Decode(&h.keys)
		h.haveKeys = true
	case "tune_params":
		err = dec.Decode(&h.params)
		h.haveParams = true
	}
	return err == nil
}

// cache scans the cache object's entries, appending them to entries and their fields to
// all.
func (s *scanner) cache(in *jsonio.Input, entries []entry, all fields) ([]entry, fields) {
	s.expect('{')
	if s.peek() == '}' {
		s.i++
		return entries, all
	}
	for {
		a, b := s.string()
		key := unquote(s.data[a:b])
		s.expect(':')
		if s.peek() != '{' {
			s.fail() // null or another value: the decoder-based reader reports it
		}
		s.i++
		from := len(all)
		if s.peek() == '}' {
			s.i++
		} else {
			for {
				name := s.name()
				s.expect(':')
				all = append(all, field{name: name, v: s.value()})
				c := s.peek()
				s.i++
				if c == '}' {
					break
				}
				if c != ',' {
					s.fail()
				}
			}
		}
		// the entry is placed at its key, as the decoder-based reader places it
		entries = append(entries, entry{key: key, fields: all[from:len(all):len(all)], offset: int64(a)})
		if cap(all)-len(all) < 64 {
			all = make(fields, 0, 4096) // the entries cut so far keep the old one
		}
		c := s.peek()
		s.i++
		if c == '}' {
			return entries, all
		}
		if c != ',' {
			s.fail()
		}
	}
}
