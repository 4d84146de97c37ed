package jsonio

import (
	"bufio"
	"encoding/json"
	"fmt"
	"strconv"
)

// Encoder writes the pieces of a JSON file to a buffered writer and keeps the first error,
// so that a format's writer emits a whole file in one linear pass and checks Err once.
type Encoder struct {
	W      *bufio.Writer
	Err    error
	Prefix string // names the format in marshalling errors ("kerneltuner: ...")
	buf    []byte
}

// Str writes s as it is.
func (e *Encoder) Str(s string) {
	if e.Err == nil {
		_, e.Err = e.W.WriteString(s)
	}
}

// JSON writes v marshalled.
func (e *Encoder) JSON(v any) {
	if e.Err != nil {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		e.Err = fmt.Errorf("%s: %w", e.Prefix, err)
		return
	}
	_, e.Err = e.W.Write(b)
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
