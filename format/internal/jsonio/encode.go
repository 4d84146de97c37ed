package jsonio

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/ktune/ktune/space"
)

// Encoder writes the pieces of a JSON file to a buffered writer and keeps the first error,
// so that a format's writer emits a whole file in one linear pass and checks Err once.
type Encoder struct {
	W      *bufio.Writer
	Err    error
	Prefix string // names the format in marshalling errors ("kerneltuner: ...")
	buf    []byte
	jbuf   bytes.Buffer
	enc    *json.Encoder // into jbuf, without HTML escaping
}

// Str writes s as it is.
func (e *Encoder) Str(s string) {
	if e.Err == nil {
		_, e.Err = e.W.WriteString(s)
	}
}

// JSON writes v marshalled, with <, > and & as they are (as Python's json writes them):
// the files are read by tuners and people, not embedded in HTML.
func (e *Encoder) JSON(v any) {
	if e.Err != nil {
		return
	}
	if e.enc == nil {
		e.enc = json.NewEncoder(&e.jbuf)
		e.enc.SetEscapeHTML(false)
	}
	e.jbuf.Reset()
	if err := e.enc.Encode(v); err != nil {
		e.Err = fmt.Errorf("%s: %w", e.Prefix, err)
		return
	}
	_, e.Err = e.W.Write(bytes.TrimSuffix(e.jbuf.Bytes(), []byte("\n")))
}

// End writes tail, the file's closing brackets, and flushes the writer: the first error of
// the whole file, or nil.
func (e *Encoder) End(tail string) error {
	e.Str(tail)
	if e.Err != nil {
		return e.Err
	}
	return e.W.Flush()
}

// Key writes an object member's name and its colon.
func (e *Encoder) Key(k string) {
	e.JSON(k)
	e.Str(": ")
}

// Field writes an object member, name and marshalled value.
func (e *Encoder) Field(k string, v any) {
	e.Key(k)
	e.JSON(v)
}

// Num writes a finite float in the shortest form that reads back to the same float64.
func (e *Encoder) Num(f float64) {
	e.buf = strconv.AppendFloat(e.buf[:0], f, 'g', -1, 64)
	if e.Err == nil {
		_, e.Err = e.W.Write(e.buf)
	}
}

// ParamValues writes the parameters' values as an object on one line, each parameter's
// name and its list of values in order: Kernel Tuner's and T4's tune_params.
func (e *Encoder) ParamValues(params []space.Param) {
	e.Str("{")
	for i, p := range params {
		if i > 0 {
			e.Str(", ")
		}
		e.Key(p.Name)
		e.Str("[")
		for j, v := range p.Values {
			if j > 0 {
				e.Str(", ")
			}
			e.JSON(v)
		}
		e.Str("]")
	}
	e.Str("}")
}
