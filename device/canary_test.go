package device

import (
	"encoding/binary"
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
