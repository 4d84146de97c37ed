package jsonio

import "bytes"

// giveUp is a Scanner's failure: Scan recovers it.
type giveUp struct{}

// Scanner walks JSON content, validating it as it goes, for readers that want the speed
// of one pass over the bytes for well-formed input and leave everything else to their
// encoding/json-based path (which says what is wrong). Its methods give up, by a panic
// that Scan recovers, on anything that is not valid JSON.
type Scanner struct {
	Data     []byte
	I        int               // offset of the next byte
	depth    int               // arrays and objects open
	interned map[string]string // Intern's strings, by their tokens
	values   map[string]any    // Any's short strings and numbers, by their tokens
	members  []Member          // ObjectPtr's members of the objects being scanned
}

// Scan runs fn and reports whether it finished without a Scanner giving up.
func Scan(fn func()) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			if _, give := r.(giveUp); !give {
				panic(r)
			}
			ok = false
		}
	}()
	fn()
	return true
}

// Fail gives up.
func (s *Scanner) Fail() { panic(giveUp{}) }

// Space skips blanks.
func (s *Scanner) Space() {
	for s.I < len(s.Data) {
		switch s.Data[s.I] {
		case ' ', '\t', '\n', '\r':
			s.I++
		default:
			return
		}
	}
}

// Peek returns the next byte after blanks; it gives up at the end of the content.
func (s *Scanner) Peek() byte {
	s.Space()
	if s.I >= len(s.Data) {
		s.Fail()
	}
	return s.Data[s.I]
}

// Expect consumes the byte c, after blanks.
func (s *Scanner) Expect(c byte) {
	if s.Peek() != c {
		s.Fail()
	}
	s.I++
}

// String scans a string token and returns its extent, quotes included.
func (s *Scanner) String() (start, end int) {
	if s.Peek() != '"' {
		s.Fail()
	}
	start = s.I
	for j := s.I + 1; j < len(s.Data); j++ {
		switch c := s.Data[j]; {
		case c == '"':
			s.I = j + 1
			return start, s.I
		case c == '\\':
			j++
			if j >= len(s.Data) {
				s.Fail()
			}
			switch s.Data[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if j+4 >= len(s.Data) {
					s.Fail()
				}
				for _, h := range s.Data[j+1 : j+5] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						s.Fail()
					}
				}
				j += 4
			default:
				s.Fail()
			}
		case c < 0x20:
			s.Fail()
		}
	}
	s.Fail()
	return
}

// Number scans a number token by JSON's grammar and returns its extent.
func (s *Scanner) Number() (start, end int) {
	d := s.Data
	start = s.I
	j := s.I
	if j < len(d) && d[j] == '-' {
		j++
	}
	digits := func() {
		k := j
		for j < len(d) && '0' <= d[j] && d[j] <= '9' {
			j++
		}
		if j == k {
			s.Fail()
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
	s.I = j
	return start, j
}

func (s *Scanner) literal(word string) {
	if !bytes.HasPrefix(s.Data[s.I:], []byte(word)) {
		s.Fail()
	}
	s.I += len(word)
}

// maxDepth is encoding/json's limit on nesting; deeper content is left to it to reject.
const maxDepth = 10000

// Object scans an object, calling member for each of its members, in order, with the
// extent of the member's name (quotes included) once the colon is consumed: member scans
// the value.
func (s *Scanner) Object(member func(nameStart, nameEnd int)) {
	s.Expect('{')
	s.enter()
	defer s.leave()
	if s.Peek() == '}' {
		s.I++
		return
	}
	for {
		a, b := s.String()
		s.Expect(':')
		member(a, b)
		if s.endOr('}') {
			return
		}
	}
}

// Array scans an array, calling elem for each of its elements, in order: elem scans it.
func (s *Scanner) Array(elem func()) {
	s.Expect('[')
	s.enter()
	defer s.leave()
	if s.Peek() == ']' {
		s.I++
		return
	}
	for {
		elem()
		if s.endOr(']') {
			return
		}
	}
}

// enter counts an array or object entered, giving up past encoding/json's nesting limit.
func (s *Scanner) enter() {
	if s.depth++; s.depth > maxDepth {
		s.Fail()
	}
}

func (s *Scanner) leave() { s.depth-- }

// endOr consumes the separator after a member or an element: true at the closing
// bracket, false at a comma.
func (s *Scanner) endOr(closing byte) bool {
	switch s.Peek() {
	case ',':
		s.I++
		return false
	case closing:
		s.I++
		return true
	}
	s.Fail()
	return false
}

// End gives up unless only blanks are left.
func (s *Scanner) End() {
	if s.Space(); s.I != len(s.Data) {
		s.Fail()
	}
}

// Skip scans any value and returns its extent.
func (s *Scanner) Skip() (start, end int) {
	switch c := s.Peek(); {
	case c == '"':
		return s.String()
	case c == '-' || '0' <= c && c <= '9':
		return s.Number()
	case c == '{':
		start = s.I
		s.Object(func(int, int) { s.Skip() })
		return start, s.I
	case c == '[':
		start = s.I
		s.Array(func() { s.Skip() })
		return start, s.I
	case c == 't':
		start = s.I
		s.literal("true")
	case c == 'f':
		start = s.I
		s.literal("false")
	case c == 'n':
		start = s.I
		s.literal("null")
	default:
		s.Fail()
	}
	return start, s.I
}
