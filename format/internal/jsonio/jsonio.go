// Package jsonio holds the JSON plumbing the format packages share: loading (gunzip and
// Python's non-standard NaN/Infinity), positions for error messages, top-level key
// sniffing, objects that keep their member order, and number and timestamp conversion.
package jsonio

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ktune/ktune/format"
)

// Input is a file's decompressed content prepared for decoding with encoding/json.
type Input struct {
	Source string // name used in errors
	Data   []byte // what the decoder reads: the content with NaN/Infinity replaced by null
	Gzip   bool   // whether the file was gzip-compressed, so offsets refer to decompressed bytes
	orig   []byte // the content as in the file
	shifts []shift
}

// shift records that from sanitized offset at on, original offsets are delta larger.
type shift struct{ at, delta int64 }

// Load reads all of r, decompresses gzip and replaces Python's NaN, Infinity and -Infinity
// tokens (which Python's json module writes by default and Kernel Tuner therefore may
// produce) with null, remembering where, so that error positions still refer to the file.
// It reads what format.ReadAll reads: at most format.MaxSize() bytes, decompressed.
func Load(r io.Reader, source string) (*Input, error) {
	if data, gz, ok := format.InMemory(r); ok {
		return NewInput(data, source, gz), nil
	}
	br := bufio.NewReader(r)
	head, _ := br.Peek(2)
	gz := format.IsGzip(head)
	data, err := format.ReadAll(br, source)
	if err != nil {
		return nil, err
	}
	return NewInput(data, source, gz), nil
}

// NewInput prepares already decompressed content.
func NewInput(data []byte, source string, gz bool) *Input {
	in := &Input{Source: source, Data: data, orig: data, Gzip: gz}
	in.sanitize()
	return in
}

// sanitize replaces NaN, Infinity and -Infinity outside strings with null; it copies the
// content only when such a token exists.
func (in *Input) sanitize() {
	src := in.orig
	// Most files have neither token anywhere, which two substring searches (vectorised,
	// much faster than the walk below over tens of megabytes) tell.
	if !bytes.Contains(src, []byte("NaN")) && !bytes.Contains(src, []byte("Infinity")) {
		return
	}
	var out []byte
	last := 0
	inString, escaped := false, false
	for i := 0; i < len(src); i++ {
		c := src[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		if c == '"' {
			inString = true
			continue
		}
		var n int
		switch {
		case c == 'N' && bytes.HasPrefix(src[i:], []byte("NaN")):
			n = 3
		case c == 'I' && bytes.HasPrefix(src[i:], []byte("Infinity")):
			n = 8
		case c == '-' && bytes.HasPrefix(src[i:], []byte("-Infinity")):
			n = 9
		default:
			continue
		}
		if out == nil {
			out = make([]byte, 0, len(src)+16)
		}
		out = append(out, src[last:i]...)
		out = append(out, "null"...)
		last = i + n
		i += n - 1
		in.shifts = append(in.shifts, shift{at: int64(len(out)), delta: int64(last - len(out))})
	}
	if out != nil {
		in.Data = append(out, src[last:]...)
	}
}

// Replaced reports whether the content had NaN, Infinity or -Infinity tokens, which Data
// holds as null: a null there may be any of them.
func (in *Input) Replaced() bool { return len(in.shifts) > 0 }

// origOffset maps an offset in Data to the file's offset.
func (in *Input) origOffset(off int64) int64 {
	i := sort.Search(len(in.shifts), func(i int) bool { return in.shifts[i].at > off })
	if i == 0 {
		return off
	}
	return off + in.shifts[i-1].delta
}

// Decoder returns a decoder over Data that keeps numbers as json.Number, so that 1 and 1.0
// stay distinguishable (Kernel Tuner keys depend on it).
func (in *Input) Decoder() *json.Decoder {
	dec := json.NewDecoder(bytes.NewReader(in.Data))
	dec.UseNumber()
	return dec
}

// Pos returns the file offset, line and column of a decoder offset into Data.
func (in *Input) Pos(off int64) (offset int64, line, col int) {
	offset = in.origOffset(off)
	line, col = format.Position(in.orig, offset)
	return offset, line, col
}

// Errorf returns a *format.Error at decoder offset off (negative: unknown).
func (in *Input) Errorf(off int64, msg string, args ...any) error {
	return in.errorAt(off, fmt.Errorf(msg, args...))
}

func (in *Input) errorAt(off int64, err error) error {
	e := &format.Error{Source: in.Source, Offset: -1, Err: err}
	if off >= 0 {
		e.Offset, e.Line, e.Column = in.Pos(off)
	}
	if in.Gzip && e.Offset >= 0 {
		e.Err = fmt.Errorf("%w (offsets count decompressed bytes)", err)
	}
	return e
}

// JSONError turns an encoding/json error into a located *format.Error. start is the
// decoder's InputOffset before the failing Token or Decode call. It is needed because a
// json.Decoder reports offsets that do not count the bytes its Token calls consumed, and
// type errors relative to the value being decoded.
func (in *Input) JSONError(err error, start int64, context string) error {
	if err == nil {
		return nil
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	msg := err.Error()
	off := start
	switch {
	case errors.As(err, &syn):
		off = in.syntaxErrorOffset(start)
		msg = "invalid JSON: " + syn.Error()
	case errors.As(err, &typ):
		// typ.Offset counts from a buffer boundary we cannot see; the start of the value
		// being decoded is exact, and typ.Field names the member inside it.
		off = in.ValueStart(start)
		where := typ.Field
		if where == "" {
			where = "value"
		}
		msg = fmt.Sprintf("%s is a JSON %s, want %s", where, typ.Value, typ.Type)
	case errors.Is(err, io.ErrUnexpectedEOF), err == io.EOF:
		return in.errorAt(int64(len(in.Data)), fmt.Errorf("%s: file ends in the middle of the JSON (truncated?): %w", context, io.ErrUnexpectedEOF))
	default:
		// A problem found by a custom decoder: point at the value it was given.
		off = in.ValueStart(start)
	}
	if context != "" {
		msg = context + ": " + msg
	}
	return in.errorAt(off, errors.New(msg))
}

// syntaxErrorOffset finds the absolute offset of the first syntax error by scanning the
// whole content afresh (only done once, on failure); fallback when that finds none.
func (in *Input) syntaxErrorOffset(fallback int64) int64 {
	var raw json.RawMessage
	var syn *json.SyntaxError
	if err := json.Unmarshal(in.Data, &raw); errors.As(err, &syn) && syn.Offset > 0 {
		// The scanner counts the offending byte itself.
		return syn.Offset - 1
	}
	return fallback
}

// ValueStart returns where the next value begins after decoder offset off: past blanks
// and one separator (':' or ','). Errors about a value point there.
func (in *Input) ValueStart(off int64) int64 {
	sep := false
	for off < int64(len(in.Data)) {
		switch in.Data[off] {
		case ' ', '\t', '\r', '\n':
			off++
		case ':', ',':
			if sep {
				return off
			}
			sep = true
			off++
		default:
			return off
		}
	}
	return off
}

// Truncated reports whether a decoder error means the input ended early.
func Truncated(err error) bool {
	return err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF)
}

// ExpectDelim reads the next token and checks that it is the delimiter want.
func ExpectDelim(in *Input, dec *json.Decoder, want json.Delim, what string) error {
	off := dec.InputOffset()
	tok, err := dec.Token()
	if err != nil {
		return in.JSONError(err, off, what)
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return in.Errorf(off, "%s: want %q, found %s", what, string(want), Describe(tok))
	}
	return nil
}

// WalkTop decodes the content's top-level object member by member: member reads the value
// of key from dec (the value starts at the decoder offset off), and may end the walk early
// by returning done. An error member returns that is not a *format.Error yet is located at
// the value. The object must close, with nothing after it.
func WalkTop(in *Input, dec *json.Decoder, member func(key string, off int64) (done bool, err error)) (done bool, err error) {
	off := dec.InputOffset()
	tok, err := dec.Token()
	if err != nil {
		return false, in.JSONError(err, off, "top level")
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return false, in.Errorf(off, "want a JSON object at the top level, found %s", Describe(tok))
	}
	for dec.More() {
		off := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return false, in.JSONError(err, off, "top level")
		}
		key, _ := tok.(string)
		off = dec.InputOffset()
		done, err := member(key, off)
		if err != nil {
			if _, ok := err.(*format.Error); ok {
				return false, err
			}
			return false, in.JSONError(err, off, fmt.Sprintf("field %q", key))
		}
		if done {
			return true, nil
		}
	}
	off = dec.InputOffset()
	if _, err := dec.Token(); err != nil {
		return false, in.JSONError(err, off, "top level")
	}
	off = dec.InputOffset()
	if tok, err := dec.Token(); err != io.EOF {
		return false, in.Errorf(off, "unexpected data after the top-level object: %s", Describe(tok))
	}
	return false, nil
}

// DecodeArray decodes the JSON array dec is at, the value of what (`field "results"`), one
// element at a time, naming the one that fails as elem and its index ("result 3"); at
// records each element's offset in the content, for later errors about it.
func DecodeArray[T any](in *Input, dec *json.Decoder, what, elem string, at func(*T, int64)) ([]T, error) {
	if err := ExpectDelim(in, dec, '[', what); err != nil {
		return nil, err
	}
	var out []T
	for dec.More() {
		off := dec.InputOffset()
		var v T
		if err := dec.Decode(&v); err != nil {
			return nil, in.JSONError(err, off, fmt.Sprintf("%s %d", elem, len(out)))
		}
		at(&v, in.ValueStart(off))
		out = append(out, v)
	}
	off := dec.InputOffset()
	if _, err := dec.Token(); err != nil {
		return nil, in.JSONError(err, off, what)
	}
	return out, nil
}

// Describe names a decoded JSON value for error messages.
func Describe(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case json.Delim:
		switch t {
		case '{':
			return "an object"
		case '[':
			return "an array"
		}
		return strconv.Quote(string(t))
	case string:
		if len(t) > 40 {
			t = t[:40] + "..."
		}
		return "the string " + strconv.Quote(t)
	case json.Number:
		return "the number " + t.String()
	case bool:
		return "the boolean " + strconv.FormatBool(t)
	case map[string]any, Object:
		return "an object"
	case []any:
		return "an array"
	}
	return fmt.Sprintf("%T", v)
}

// Skip consumes the next value whatever it is.
func Skip(dec *json.Decoder) error {
	var raw json.RawMessage
	return dec.Decode(&raw)
}

// Member is one name/value pair of a JSON object.
type Member struct {
	Key   string // the member's name
	Value any    // as decoded by encoding/json with UseNumber
}

// Object is a JSON object that keeps its members in file order, because parameter order
// matters (Kernel Tuner's tune_params, T4 configurations) and Go maps lose it.
type Object []Member

// UnmarshalJSON decodes an object (null gives an empty Object) with numbers as json.Number.
func (o *Object) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		*o = nil
		return nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("want an object, found %s", Describe(tok))
	}
	var out Object
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		var v any
		if err := dec.Decode(&v); err != nil {
			return err
		}
		out = append(out, Member{Key: key, Value: v})
	}
	*o = out
	return nil
}

// Get returns the value of the last member named key (as Python's json keeps the last).
func (o Object) Get(key string) (any, bool) {
	for i := len(o) - 1; i >= 0; i-- {
		if o[i].Key == key {
			return o[i].Value, true
		}
	}
	return nil, false
}

// Float converts a decoded JSON number (json.Number or float64) to a finite float64;
// numbers beyond float64's range (1e999) are not usable and give false.
func Float(v any) (float64, bool) {
	var f float64
	switch t := v.(type) {
	case json.Number:
		var err error
		if f, err = strconv.ParseFloat(string(t), 64); err != nil {
			return 0, false
		}
	case float64:
		f = t
	case int:
		f = float64(t)
	case int64:
		f = float64(t)
	default:
		return 0, false
	}
	return f, Finite(f)
}

// Unit converts times in one unit to milliseconds. Sub-millisecond units divide by an
// exact power of ten instead of multiplying by 1e-3 or 1e-6, which are not exact in
// binary and would add a second rounding.
type Unit struct {
	per float64 // units per millisecond (1000 for microseconds); 0 for units above a ms
	ms  float64 // milliseconds per unit (1000 for seconds); used when per is 0
}

// Time units.
var (
	Nanoseconds  = Unit{per: 1e6}
	Microseconds = Unit{per: 1e3}
	Milliseconds = Unit{ms: 1}
	Seconds      = Unit{ms: 1e3}
)

// ToMS converts f from the unit to milliseconds.
func (u Unit) ToMS(f float64) float64 {
	if u.per != 0 {
		return f / u.per
	}
	if u.ms == 0 { // the zero Unit: treat as milliseconds
		return f
	}
	return f * u.ms
}

// Finite reports whether f is neither NaN nor infinite, that is, whether JSON can hold it.
func Finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// timeLayouts are the timestamp spellings of the producers: Python's str(datetime) (Kernel
// Tuner), RFC 3339, and KTT's "2024-04-19 22:17:16 UTC".
var timeLayouts = []string{
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05Z07:00",
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02 15:04:05 MST",
}

// ParseTime parses a producer's timestamp, to the microsecond: no producer is finer
// (Python's datetime holds microseconds, KTT writes seconds), and FormatTime writes no
// finer, so what is read writes back as it was read.
func ParseTime(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.Truncate(time.Microsecond), true
		}
	}
	return time.Time{}, false
}

// FormatTime writes t as Python's datetime.isoformat() does for an aware datetime
// ("2023-12-22T13:17:23.719843+00:00"), which every Python reads back with
// datetime.fromisoformat. Two things decide the form: that function accepts only 3 or 6
// fractional digits before Python 3.11 (Kernel Tuner's cache module reads timestamps with
// it), so a time finer than a microsecond is truncated to one; and Kernel Tuner's cache
// schema declares a "date-time", which RFC 3339 writes with a T (Kernel Tuner's own
// str(datetime) puts a space there; ParseTime reads both).
func FormatTime(t time.Time) string {
	t = t.Truncate(time.Microsecond)
	if t.Nanosecond() != 0 {
		return t.Format("2006-01-02T15:04:05.000000-07:00")
	}
	return t.Format("2006-01-02T15:04:05-07:00")
}
