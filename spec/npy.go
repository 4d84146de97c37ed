package spec

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/ktune/ktune/internal/outfile"
)

// Array is a NumPy array as a .npy file holds it: elements in C (row-major) order, stored
// little endian whatever the file's byte order was.
type Array struct {
	Type  string // element type: float16, float32, float64, int8..int64, uint8..uint64
	Shape []int  // dimensions; empty for a 0-d array (one element)
	Data  []byte // Len()*element size bytes, little endian
}

// Len returns the number of elements.
func (a *Array) Len() int {
	n := 1
	for _, d := range a.Shape {
		n *= d
	}
	return n
}

// Float64s returns the elements converted to float64.
func (a *Array) Float64s() ([]float64, error) {
	t, ok := lookupType(a.Type)
	if !ok {
		return nil, fmt.Errorf("npy: unknown element type %q", a.Type)
	}
	if len(a.Data) != a.Len()*t.size {
		return nil, fmt.Errorf("npy: %d data bytes for %d elements of %s", len(a.Data), a.Len(), a.Type)
	}
	out := make([]float64, a.Len())
	for i := range out {
		out[i] = t.get(a.Data[i*t.size:])
	}
	return out, nil
}

var npyMagic = []byte("\x93NUMPY")

// ReadNPYFile reads a .npy file.
func ReadNPYFile(path string) (*Array, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	a, err := ReadNPY(bufio.NewReader(f))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return a, nil
}

// ReadNPYHeader reads only the header of a .npy stream: the element type and shape.
func ReadNPYHeader(r io.Reader) (typ string, shape []int, err error) {
	h, err := readHeader(r)
	if err != nil {
		return "", nil, err
	}
	return h.typ.name, h.shape, nil
}

type npyHeader struct {
	typ   elemType
	swap  bool // big endian in the file
	shape []int
	count int
}

func readHeader(r io.Reader) (*npyHeader, error) {
	var pre [8]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil {
		return nil, fmt.Errorf("npy: not a .npy file: %w", err)
	}
	if !bytes.Equal(pre[:6], npyMagic) {
		return nil, errors.New("npy: not a .npy file (missing the \\x93NUMPY magic)")
	}
	major, minor := pre[6], pre[7]
	var hlen int
	switch major {
	case 1:
		var b [2]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, fmt.Errorf("npy: truncated header: %w", err)
		}
		hlen = int(binary.LittleEndian.Uint16(b[:]))
	case 2, 3:
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, fmt.Errorf("npy: truncated header: %w", err)
		}
		n := binary.LittleEndian.Uint32(b[:])
		if n > 1<<24 {
			return nil, fmt.Errorf("npy: header of %d bytes is implausibly large", n)
		}
		hlen = int(n)
	default:
		return nil, fmt.Errorf("npy: format version %d.%d is not supported (want 1.0, 2.0 or 3.0)", major, minor)
	}
	hdr := make([]byte, hlen)
	if _, err := io.ReadFull(r, hdr); err != nil {
		return nil, fmt.Errorf("npy: truncated header: %w", err)
	}
	dict, err := parseHeaderDict(string(hdr))
	if err != nil {
		return nil, fmt.Errorf("npy: header %q: %w", strings.TrimSpace(string(hdr)), err)
	}
	h := &npyHeader{}
	descr, ok := dict["descr"].(string)
	if !ok {
		if _, isList := dict["descr"].([]any); isList {
			return nil, errors.New("npy: structured dtypes are not supported; save a plain numeric array")
		}
		return nil, errors.New("npy: header has no 'descr' string")
	}
	if h.typ, h.swap, err = parseDescr(descr); err != nil {
		return nil, err
	}
	fortran, ok := dict["fortran_order"].(bool)
	if !ok {
		return nil, errors.New("npy: header has no 'fortran_order' True/False")
	}
	if fortran {
		return nil, errors.New("npy: Fortran-order arrays are not supported; save with numpy.ascontiguousarray(a) or a C-ordered copy")
	}
	shape, ok := dict["shape"].([]int)
	if !ok {
		return nil, errors.New("npy: header has no 'shape' tuple of integers")
	}
	h.shape = shape
	h.count = 1
	for _, d := range shape {
		if d < 0 {
			return nil, fmt.Errorf("npy: negative dimension %d in shape", d)
		}
		if d != 0 && h.count > math.MaxInt/h.typ.size/d {
			return nil, fmt.Errorf("npy: shape %v is too large", shape)
		}
		h.count *= d
	}
	return h, nil
}

// ReadNPY reads a .npy stream (format versions 1.0, 2.0 and 3.0).
func ReadNPY(r io.Reader) (*Array, error) {
	h, err := readHeader(r)
	if err != nil {
		return nil, err
	}
	n := h.count * h.typ.size
	// ReadAll grows with what is really there: a header that claims a huge shape costs
	// nothing until the data arrives.
	data, err := io.ReadAll(io.LimitReader(r, int64(n)))
	if err != nil {
		return nil, fmt.Errorf("npy: reading data: %w", err)
	}
	if len(data) < n {
		return nil, fmt.Errorf("npy: truncated data: %d bytes, the shape %v of %s needs %d", len(data), h.shape, h.typ.name, n)
	}
	if h.swap && h.typ.size > 1 {
		for i := 0; i < len(data); i += h.typ.size {
			e := data[i : i+h.typ.size]
			for a, b := 0, len(e)-1; a < b; a, b = a+1, b-1 {
				e[a], e[b] = e[b], e[a]
			}
		}
	}
	if h.shape == nil {
		h.shape = []int{}
	}
	return &Array{Type: h.typ.name, Shape: h.shape, Data: data}, nil
}

// parseDescr maps a NumPy type string to an element type; swap is set for big endian.
func parseDescr(s string) (t elemType, swap bool, err error) {
	if len(s) < 2 {
		return t, false, fmt.Errorf("npy: malformed dtype %q", s)
	}
	code := s[1:]
	switch s[0] {
	case '<', '|', '=':
	case '>':
		swap = true
	default:
		code = s
	}
	names := map[string]string{
		"f2": "float16", "f4": "float32", "f8": "float64",
		"i1": "int8", "i2": "int16", "i4": "int32", "i8": "int64",
		"u1": "uint8", "u2": "uint16", "u4": "uint32", "u8": "uint64",
	}
	name, ok := names[code]
	if !ok {
		return t, false, fmt.Errorf("npy: unsupported dtype %q; supported: <f2 <f4 <f8 |i1 <i2 <i4 <i8 |u1 <u2 <u4 <u8 (and their big-endian forms)", s)
	}
	return elemTypes[name], swap, nil
}

// parseHeaderDict parses the Python dict literal of a .npy header. Values are strings,
// booleans, []int (tuples of integers) or []any (lists, only to report structured dtypes).
func parseHeaderDict(s string) (map[string]any, error) {
	p := &hdrParser{s: s}
	p.space()
	if !p.eat('{') {
		return nil, errors.New("expected '{'")
	}
	out := map[string]any{}
	for {
		p.space()
		if p.eat('}') {
			return out, nil
		}
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		p.space()
		if !p.eat(':') {
			return nil, fmt.Errorf("expected ':' after %q", key)
		}
		p.space()
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		out[key] = v
		p.space()
		if !p.eat(',') {
			p.space()
			if !p.eat('}') {
				return nil, errors.New("expected ',' or '}'")
			}
			return out, nil
		}
	}
}

type hdrParser struct {
	s string
	i int
}

func (p *hdrParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\n' || p.s[p.i] == '\t' || p.s[p.i] == '\r') {
		p.i++
	}
}

func (p *hdrParser) eat(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *hdrParser) str() (string, error) {
	if p.i >= len(p.s) || (p.s[p.i] != '\'' && p.s[p.i] != '"') {
		return "", errors.New("expected a quoted string")
	}
	q := p.s[p.i]
	end := strings.IndexByte(p.s[p.i+1:], q)
	if end < 0 {
		return "", errors.New("unterminated string")
	}
	s := p.s[p.i+1 : p.i+1+end]
	p.i += end + 2
	return s, nil
}

func (p *hdrParser) value() (any, error) {
	if p.i >= len(p.s) {
		return nil, errors.New("unexpected end of header")
	}
	switch c := p.s[p.i]; {
	case c == '\'' || c == '"':
		return p.str()
	case c == '(':
		p.i++
		var dims []int
		for {
			p.space()
			if p.eat(')') {
				if dims == nil {
					dims = []int{}
				}
				return dims, nil
			}
			start := p.i
			for p.i < len(p.s) && (p.s[p.i] == '-' || (p.s[p.i] >= '0' && p.s[p.i] <= '9')) {
				p.i++
			}
			d, err := strconv.Atoi(p.s[start:p.i])
			if err != nil {
				return nil, errors.New("shape must be a tuple of integers")
			}
			p.eat('L') // Python 2 long suffix
			dims = append(dims, d)
			p.space()
			if !p.eat(',') {
				p.space()
				if !p.eat(')') {
					return nil, errors.New("expected ',' or ')' in shape")
				}
				return dims, nil
			}
		}
	case c == '[':
		// A list descr is a structured dtype; its contents are skipped, only its
		// presence is reported.
		depth := 0
		for p.i < len(p.s) {
			switch p.s[p.i] {
			case '[', '(':
				depth++
			case ']', ')':
				depth--
			case '\'', '"':
				if _, err := p.str(); err != nil {
					return nil, err
				}
				continue
			}
			p.i++
			if depth == 0 {
				return []any{}, nil
			}
		}
		return nil, errors.New("unterminated list")
	case strings.HasPrefix(p.s[p.i:], "True"):
		p.i += 4
		return true, nil
	case strings.HasPrefix(p.s[p.i:], "False"):
		p.i += 5
		return false, nil
	}
	return nil, fmt.Errorf("unexpected %q", p.s[p.i:min(len(p.s), p.i+10)])
}

// WriteNPY writes a as a .npy stream: version 1.0 (2.0 when the header needs it), little
// endian, C order, the header padded so that the data starts at a multiple of 64 bytes as
// NumPy does.
func WriteNPY(w io.Writer, a *Array) error {
	t, ok := lookupType(a.Type)
	if !ok {
		return fmt.Errorf("npy: unknown element type %q (want one of %s)", a.Type, strings.Join(typeNames(), ", "))
	}
	if len(a.Data) != a.Len()*t.size {
		return fmt.Errorf("npy: %d data bytes for shape %v of %s (want %d)", len(a.Data), a.Shape, t.name, a.Len()*t.size)
	}
	var shape strings.Builder
	shape.WriteByte('(')
	for i, d := range a.Shape {
		if d < 0 {
			return fmt.Errorf("npy: negative dimension %d", d)
		}
		if i > 0 {
			shape.WriteString(", ")
		}
		shape.WriteString(strconv.Itoa(d))
	}
	if len(a.Shape) == 1 {
		shape.WriteByte(',')
	}
	shape.WriteByte(')')
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", t.dtype, shape.String())
	major, pre := byte(1), 10
	if len(dict)+1+pre > math.MaxUint16 {
		major, pre = 2, 12
	}
	total := pre + len(dict) + 1
	pad := (64 - total%64) % 64
	hdr := dict + strings.Repeat(" ", pad) + "\n"
	buf := make([]byte, 0, pre+len(hdr))
	buf = append(buf, npyMagic...)
	buf = append(buf, major, 0)
	if major == 1 {
		buf = binary.LittleEndian.AppendUint16(buf, uint16(len(hdr)))
	} else {
		buf = binary.LittleEndian.AppendUint32(buf, uint32(len(hdr)))
	}
	buf = append(buf, hdr...)
	if _, err := w.Write(buf); err != nil {
		return err
	}
	_, err := w.Write(a.Data)
	return err
}

// WriteNPYFile writes a to a .npy file.
func WriteNPYFile(path string, a *Array) error {
	return outfile.Write(path, func(w io.Writer) error { return WriteNPY(w, a) })
}
