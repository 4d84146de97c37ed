package device

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
)

// Canary is the pattern a backend writes next to a buffer's data and checks after a
// kernel's launch, to catch a kernel that writes past the end of an array (its length in
// the spec is wrong, or the kernel's bounds check is): such a write seldom faults, and
// the configuration would "verify".
//
// The pattern repeats every 8 bytes from the end of the data: a float32 word, then a word
// that makes the pair a float64 (an array of float64 ends on a multiple of 8 bytes). Both are signalling NaNs, as float32 (the
// first word) and as float64 (the pair), which arithmetic on x86 CPUs and GPUs turns
// quiet: so a kernel that overruns every array alike, computing y[i] = a[i] + b[i] past
// the end of all three, changes y's canary, where a quiet NaN would have come out of the
// arithmetic unchanged (the NaN's payload is carried through, and PoCL let such a kernel
// pass). As integers the words are unlikely numbers (above 2.1e9 as int32). Each buffer
// has its own pattern (NewCanary's serial), so that a copy from one array's overrun into
// another's, y[i] = x[i] past both ends, changes the canary too.
type Canary [8]byte

// NewCanary returns the canary of a backend's serial-th buffer: distinct for the first
// 2^22 serials.
func NewCanary(serial uint64) Canary {
	// float32 signalling NaN: exponent all ones, quiet bit (22) clear, mantissa not 0
	m := uint32(0x25a5a5 ^ (serial*0x9e3779b1)&0x3fffff)
	if m == 0 {
		m = 0x25a5a5
	}
	lo := 0x7f800000 | m
	// the high word of a float64 signalling NaN: exponent all ones, quiet bit (51, the
	// word's bit 19) clear; the mantissa is not 0, for lo is not
	hi := uint32(0x7ff00000 | 0x5a5a5 ^ uint32(serial>>22)&0x7ffff)
	var c Canary
	binary.LittleEndian.PutUint32(c[:4], lo)
	binary.LittleEndian.PutUint32(c[4:], hi)
	return c
}

// Fill writes the pattern over s from its byte phase mod 8: 0 for the slack after a
// buffer's data, where the first word past the end is the float32 one.
func (c Canary) Fill(s []byte, phase int) {
	phase %= 8
	if len(s) == 0 {
		return
	}
	n := copy(s, c[phase:])
	n += copy(s[n:], c[:phase])
	for n < len(s) { // the period is 8: double what is written
		n += copy(s[n:], s[:n])
	}
}

// Holds reports whether s holds the pattern from phase, as Fill writes it.
func (c Canary) Holds(s []byte, phase int) bool {
	phase %= 8
	head := min(len(s), 8)
	for i := range head {
		if s[i] != c[(phase+i)%8] {
			return false
		}
	}
	// the rest repeats the first 8 bytes
	return bytes.Equal(s[head:], s[:len(s)-head])
}

// OverrunMessage says that a kernel wrote where ("past the end", "before the start", or
// both) of its argument name, an array of size bytes of elements of typ (a ktune type such
// as float32; "" or one it does not know gives the length in bytes), and what to look at:
// the backends' common words for a changed canary.
func OverrunMessage(name, typ string, size int, where string) string {
	length := fmt.Sprintf("%d bytes", size)
	if n := typeSize(typ); n > 0 && size%n == 0 {
		length = fmt.Sprintf("%d elements of %s", size/n, typ)
	}
	msg := fmt.Sprintf("the kernel wrote %s of argument %s (%s)", where, name, length)
	if where == "before the start" {
		return msg + ": the kernel indexes it below 0"
	}
	return msg + ": its length in the spec is too small or the kernel overruns it"
}

// typeSize is the bytes of an element of a ktune type (float32, uint8...), 0 for one it
// does not know.
func typeSize(t string) int {
	switch t {
	case "int8", "uint8":
		return 1
	case "int16", "uint16", "float16":
		return 2
	case "float32", "int32", "uint32":
		return 4
	case "float64", "int64", "uint64":
		return 8
	}
	return 0
}

// Overruns asks where, of each array argument in args (a Buffer), a kernel wrote outside
// its data: where(i, b) says it in OverrunMessage's words, "" when nowhere. It returns a
// *RuntimeError joining what they say, or nil: what a backend that reads canaries after a
// launch reports.
func Overruns(args []Arg, where func(i int, b Buffer) (string, error)) error {
	var overruns []string
	for i, a := range args {
		if a.Buffer == nil {
			continue
		}
		msg, err := where(i, a.Buffer)
		if err != nil {
			return err
		}
		if msg != "" {
			overruns = append(overruns, msg)
		}
	}
	if overruns != nil {
		return &RuntimeError{Op: "launch", Err: errors.New(strings.Join(overruns, "; "))}
	}
	return nil
}
