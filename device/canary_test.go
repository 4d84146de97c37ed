package device

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"testing"
)

// The canary is a signalling NaN as float32 and as float64, which arithmetic turns quiet
// (the float32 words are computed here in Go, which compiles to the same SSE
// instructions as PoCL's and the C compiler's kernels), and distinct per buffer.
func TestCanaryIsASignallingNaNThatArithmeticChanges(t *testing.T) {
	seen := map[Canary]uint64{}
	for serial := uint64(0); serial < 5000; serial++ {
		c := NewCanary(serial)
		if other, dup := seen[c]; dup {
			t.Fatalf("buffers %d and %d share a canary", other, serial)
		}
		seen[c] = serial
		lo := binary.LittleEndian.Uint32(c[:4])
		f := math.Float32frombits(lo)
		if f == f || lo&(1<<22) != 0 {
			t.Fatalf("serial %d: float32 word %#x is no signalling NaN", serial, lo)
		}
		d := binary.LittleEndian.Uint64(c[:])
		if x := math.Float64frombits(d); x == x || d&(1<<51) != 0 {
			t.Fatalf("serial %d: float64 %#x is no signalling NaN", serial, d)
		}
		// y = a + b over two canaries, and a * 2: the bits change
		other := NewCanary(serial + 1)
		b := math.Float32frombits(binary.LittleEndian.Uint32(other[:4]))
		if got := math.Float32bits(add32(f, b)); got == lo {
			t.Fatalf("serial %d: %#x + %#x left the canary as it was", serial, lo, math.Float32bits(b))
		}
		if got := math.Float64bits(mul64(math.Float64frombits(d), 2)); got == d {
			t.Fatalf("serial %d: %#x * 2 left the canary as it was", serial, d)
		}
	}
}

//go:noinline
func add32(a, b float32) float32 { return a + b }

//go:noinline
func mul64(a, b float64) float64 { return a * b }

func TestCanaryFillAndHolds(t *testing.T) {
	c := NewCanary(7)
	s := make([]byte, 37)
	for phase := 0; phase < 8; phase++ {
		c.Fill(s, phase)
		if !c.Holds(s, phase) || c.Holds(s, phase+1) {
			t.Fatalf("phase %d: holds %v at its phase, %v at the next", phase, c.Holds(s, phase), c.Holds(s, phase+1))
		}
		if s[0] != c[phase] {
			t.Fatalf("phase %d: s starts with %#x, want %#x", phase, s[0], c[phase])
		}
		for _, at := range []int{0, 7, 8, 20, 36} {
			s[at] ^= 1
			if c.Holds(s, phase) {
				t.Fatalf("phase %d: a change of byte %d goes unseen", phase, at)
			}
			s[at] ^= 1
		}
	}
}

// memory is an allocation in host memory, for Guard's read and write, counting the writes.
type memory struct {
	b      []byte
	writes int
}

func (m *memory) read(off int, p []byte) error { copy(p, m.b[off:]); return nil }

func (m *memory) write(off int, p []byte) error {
	m.writes++
	copy(m.b[off:], p)
	return nil
}

// A guarded allocation: Fill writes the canary around the data, the front one ending and
// the tail one starting where the pattern starts, and Overrun finds a write past either end, says it in OverrunMessage's
// words, and writes the changed canary again, and only that one.
func TestGuardFindsAWriteOutsideTheDataAndMendsIt(t *testing.T) {
	for _, g := range []Guard{
		{Front: 24, Size: 13, Slack: 19, Canary: NewCanary(3)},
		{Front: 20, Size: 8, Slack: 5, Canary: NewCanary(6)},
		{Front: 0, Size: 16, Slack: 8, Canary: NewCanary(4)}, // no front canary (OpenCL without sub-buffers)
		{Front: 8, Size: 0, Slack: 8, Canary: NewCanary(5)},
	} {
		m := &memory{b: make([]byte, g.Front+g.Size+g.Slack)}
		if err := g.Fill(true, true, m.write); err != nil {
			t.Fatal(err)
		}
		// the front canary ends, and the tail one starts, where the pattern starts
		for i, c := range m.b {
			want := c
			switch {
			case i < g.Front:
				want = g.Canary[((i-g.Front)%8+8)%8]
			case i >= g.Front+g.Size:
				want = g.Canary[(i-g.Front-g.Size)%8]
			}
			if c != want {
				t.Fatalf("%+v: byte %d of % x is %#x, want %#x", g, i, m.b, c, want)
			}
		}
		clean := bytes.Clone(m.b)
		for _, c := range []struct {
			at   []int // bytes changed
			want string
		}{
			{nil, ""},
			{[]int{g.Front + g.Size}, "past the end"},
			{[]int{len(m.b) - 1}, "past the end"},
			{[]int{g.Front - 1}, "before the start"},
			{[]int{0, len(m.b) - 1}, "past the end and before the start"},
		} {
			if g.Front == 0 && c.want != "" && c.want != "past the end" {
				continue // nothing before the data to change
			}
			for _, at := range c.at {
				m.b[at] ^= 0x40
			}
			m.writes = 0
			got, err := g.Overrun(m.read, m.write)
			if err != nil || got != c.want {
				t.Errorf("%+v, bytes %v changed: %q, %v; want %q", g, c.at, got, err, c.want)
			}
			if want := len(c.at); m.writes != want {
				t.Errorf("%+v, bytes %v changed: %d canaries written again, want %d", g, c.at, m.writes, want)
			}
			if !bytes.Equal(m.b, clean) {
				t.Errorf("%+v, bytes %v changed: the canaries are not mended", g, c.at)
			}
		}
	}
}

// Guard passes on the backend's failures to read or write, as they are.
func TestGuardReturnsTheBackendsErrors(t *testing.T) {
	g := Guard{Front: 8, Size: 8, Slack: 8, Canary: NewCanary(1)}
	failed := errors.New("the device fell off the bus")
	fail := func(int, []byte) error { return failed }
	m := &memory{b: make([]byte, 24)}
	if err := g.Fill(true, false, fail); err != failed {
		t.Errorf("Fill: %v, want %v", err, failed)
	}
	if _, err := g.Overrun(fail, m.write); err != failed {
		t.Errorf("Overrun reading: %v, want %v", err, failed)
	}
	if _, err := g.Overrun(m.read, fail); err != failed { // zeros are no canary: written again
		t.Errorf("Overrun writing: %v, want %v", err, failed)
	}
}
