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

// GuardBytes is how long the canaries of the OpenCL and CUDA backends' buffers are, on
// either side of the data (as the device's alignment allows): writes up to this far past
// either end are caught, a few rows of a 2D tile that overruns its array.
const GuardBytes = 64 << 10

// Guard is a buffer's allocation as a backend that guards it with a canary lays it out
// (the OpenCL and CUDA backends): Front bytes of canary, Size bytes of data, then Slack
// bytes of canary, the front one phased to end where the pattern starts, as the one after
// the data starts (so that, the data starting at a multiple of 8, the front canary is in
// step with the addresses). The backend moves the bytes: write copies p to offset off of
// the allocation, read copies the bytes at off into p.
type Guard struct {
	Front, Size, Slack int
	Canary             Canary
}

// frontPhase is the canary's phase at the start of the front canary.
func (g Guard) frontPhase() int { return (8 - g.Front%8) % 8 }

// Fill writes the canary before the data (when before) and after it (when after).
func (g Guard) Fill(before, after bool, write func(off int, p []byte) error) error {
	if before {
		if err := g.fill(0, g.Front, g.frontPhase(), write); err != nil {
			return err
		}
	}
	if after {
		return g.fill(g.Front+g.Size, g.Slack, 0, write)
	}
	return nil
}

func (g Guard) fill(off, n, phase int, write func(off int, p []byte) error) error {
	if n <= 0 {
		return nil
	}
	pattern := make([]byte, n)
	g.Canary.Fill(pattern, phase)
	return write(off, pattern)
}

// holds reports whether the n bytes at off still hold the canary from phase.
func (g Guard) holds(off, n, phase int, read func(off int, p []byte) error) (bool, error) {
	if n <= 0 {
		return true, nil
	}
	got := make([]byte, n)
	if err := read(off, got); err != nil {
		return false, err
	}
	return g.Canary.Holds(got, phase), nil
}

// Overrun tells where a launch wrote outside the data, by the canaries, in
// OverrunMessage's words: "past the end", "before the start", both, or "" when both
// canaries are intact. A changed canary is written again, so that the buffer's next user
// is not blamed. The errors are read's and write's.
func (g Guard) Overrun(read, write func(off int, p []byte) error) (string, error) {
	frontOK, err := g.holds(0, g.Front, g.frontPhase(), read)
	if err != nil {
		return "", err
	}
	tailOK, err := g.holds(g.Front+g.Size, g.Slack, 0, read)
	if err != nil {
		return "", err
	}
	if err := g.Fill(!frontOK, !tailOK, write); err != nil {
		return "", err
	}
	switch {
	case !frontOK && !tailOK:
		return "past the end and before the start", nil
	case !tailOK:
		return "past the end", nil
	case !frontOK:
		return "before the start", nil
	}
	return "", nil
}
