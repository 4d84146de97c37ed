package spec

import (
	"bytes"
	"errors"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const dataSpec = `
kernel: {name: k, source: k.cl}
seed: %SEED%
parameters: {block_size_x: [32]}
problem_size: 1
arguments:
  - {name: u32, type: float32, length: 1, fill: {random: {low: -1, high: 1}}}
  - {name: u64, type: float64, length: 1, fill: random}
  - {name: i32, type: int32, length: 1, fill: {random: {low: -3, high: 6}}}
  - {name: u8, type: uint8, length: 1, fill: {random: {low: 250, high: 255}}}
  - {name: n32, type: float32, length: 1, fill: {random: {distribution: normal, mean: 0, stddev: 2, low: -3, high: 3}}}
  - {name: n64, type: float64, length: 1, fill: {random: {distribution: normal, mean: 5, stddev: 2}}}
  - {name: own, type: float32, length: 1, fill: {random: {seed: 99}}}
  - {name: r, type: int32, length: 1, fill: {range: {start: 10, step: -3}}}
  - {name: c, type: float64, length: 1, fill: {constant: 2.5}}
  - {name: z, type: int16, length: 1}
  - {name: s, type: int32, value: 3}
  - {name: l, kind: local, type: float32, length: 8}
`

func parseData(t *testing.T, seed string) *Spec {
	return mustParse(t, strings.Replace(dataSpec, "%SEED%", seed, 1))
}

func values(t *testing.T, s *Spec, arg, n int) []float64 {
	t.Helper()
	b, err := s.Generate(arg, n)
	if err != nil {
		t.Fatal(err)
	}
	et, _ := lookupType(s.Arguments[arg].Type)
	if len(b) != n*et.size {
		t.Fatalf("%d bytes for %d elements of %s", len(b), n, et.name)
	}
	a := &Array{Type: et.name, Shape: []int{n}, Data: b}
	v, err := a.Float64s()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func stats(v []float64) (lo, hi, mean, std float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range v {
		lo, hi, mean = math.Min(lo, x), math.Max(hi, x), mean+x
	}
	mean /= float64(len(v))
	for _, x := range v {
		std += (x - mean) * (x - mean)
	}
	return lo, hi, mean, math.Sqrt(std / float64(len(v)))
}

func TestGenerateIsDeterministicFromTheSeed(t *testing.T) {
	a, b, other := parseData(t, "42"), parseData(t, "42"), parseData(t, "43")
	for arg := range 7 {
		x, _ := a.Generate(arg, 1000)
		y, _ := b.Generate(arg, 1000)
		z, _ := other.Generate(arg, 1000)
		if !bytes.Equal(x, y) {
			t.Errorf("%s: two parses of one spec generate different data", a.Arguments[arg].Name)
		}
		own := a.Arguments[arg].Fill.Seed != nil
		if bytes.Equal(x, z) != own {
			t.Errorf("%s: seed 43 gives the same data as seed 42: %v (own seed: %v)", a.Arguments[arg].Name, bytes.Equal(x, z), own)
		}
	}
	// A prefix is stable: more elements extend the same stream.
	short, _ := a.Generate(0, 10)
	long, _ := a.Generate(0, 1000)
	if !bytes.Equal(short, long[:len(short)]) {
		t.Error("the first 10 elements change with the length")
	}
	// Arguments draw from streams of their own: same seed, same fill, different names.
	x, _ := a.Generate(0, 100)
	s2 := mustParse(t, "kernel: {name: k, source: k.cu}\nseed: 42\nparameters: {x: [1]}\nproblem_size: 1\narguments:\n"+
		"  - {name: other, type: float32, length: 1, fill: {random: {low: -1, high: 1}}}\n"+
		"  - {name: u32, type: float32, length: 1, fill: {random: {low: -1, high: 1}}}\n")
	y, _ := s2.Generate(0, 100)
	z, _ := s2.Generate(1, 100)
	if bytes.Equal(x, y) || !bytes.Equal(x, z) {
		t.Errorf("data should follow the argument's name, not its position: same-name %v, other-name %v", bytes.Equal(x, z), bytes.Equal(x, y))
	}
}

// TestGenerateGolden pins the generator so that recorded tuning runs stay reproducible:
// a change here changes every spec's data.
func TestGenerateGolden(t *testing.T) {
	s := parseData(t, "42")
	got := values(t, s, 2, 8) // int32 uniform in -3..6
	want := []float64{5, 3, 0, 0, 4, 6, -3, 5}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("int32 uniform stream %v, want %v", got, want)
		}
	}
}

func TestGenerateRespectsTheDistribution(t *testing.T) {
	s := parseData(t, "7")
	const n = 20000
	tests := []struct {
		arg              int
		lo, hi           float64 // bounds every element must be within
		mean, std, tol   float64 // expected moments (tol on both)
		reachLo, reachHi bool    // the bounds themselves are drawn (integers, clamps)
	}{
		{0, -1, 1, 0, 2 / math.Sqrt(12), 0.02, false, false},
		{1, 0, 1, 0.5, 1 / math.Sqrt(12), 0.02, false, false},
		{2, -3, 6, 1.5, math.Sqrt((10*10 - 1) / 12.0), 0.06, true, true},
		{3, 250, 255, 252.5, math.Sqrt((6*6 - 1) / 12.0), 0.04, true, true},
		{4, -3, 3, 0, 0, 0.05, true, true},
		{5, math.Inf(-1), math.Inf(1), 5, 2, 0.05, false, false},
	}
	for _, tt := range tests {
		name := s.Arguments[tt.arg].Name
		v := values(t, s, tt.arg, n)
		lo, hi, mean, std := stats(v)
		if lo < tt.lo || hi > tt.hi {
			t.Errorf("%s: values in [%v, %v], outside [%v, %v]", name, lo, hi, tt.lo, tt.hi)
		}
		if math.Abs(mean-tt.mean) > tt.tol*math.Max(1, math.Abs(tt.mean)) {
			t.Errorf("%s: mean %v, want %v", name, mean, tt.mean)
		}
		if tt.std > 0 && math.Abs(std-tt.std) > tt.tol*tt.std*2 {
			t.Errorf("%s: standard deviation %v, want %v", name, std, tt.std)
		}
		if tt.reachLo && lo != tt.lo || tt.reachHi && hi != tt.hi {
			t.Errorf("%s: bounds [%v, %v] not reached: [%v, %v]", name, tt.lo, tt.hi, lo, hi)
		}
		if !tt.reachLo && !math.IsInf(tt.lo, 0) && lo > tt.lo+0.01*(tt.hi-tt.lo) {
			t.Errorf("%s: smallest value %v far from the low bound %v", name, lo, tt.lo)
		}
	}
	// Integers: every value of the range occurs.
	seen := map[float64]bool{}
	for _, x := range values(t, s, 2, n) {
		if x != math.Trunc(x) {
			t.Fatalf("int32 value %v is not whole", x)
		}
		seen[x] = true
	}
	if len(seen) != 10 {
		t.Errorf("int32 uniform -3..6 produced %d distinct values", len(seen))
	}
}

func TestGenerateFixedFills(t *testing.T) {
	s := parseData(t, "0")
	if got := values(t, s, 7, 5); !slices.Equal(got, []float64{10, 7, 4, 1, -2}) {
		t.Errorf("range: %v", got)
	}
	if got := values(t, s, 8, 3); !slices.Equal(got, []float64{2.5, 2.5, 2.5}) {
		t.Errorf("constant: %v", got)
	}
	if got := values(t, s, 9, 3); !slices.Equal(got, []float64{0, 0, 0}) {
		t.Errorf("zeros: %v", got)
	}
	if b, err := s.Generate(8, 0); err != nil || len(b) != 0 {
		t.Errorf("zero length: %v %v", b, err)
	}
	for _, arg := range []int{10, 11} {
		if _, err := s.Generate(arg, 4); !errors.Is(err, ErrNotArray) {
			t.Errorf("%s: %v, want ErrNotArray", s.Arguments[arg].Name, err)
		}
	}
	if _, err := s.Generate(12, 4); err == nil {
		t.Error("argument out of range accepted")
	}
	over := mustParse(t, "kernel: {name: k, source: k.cu}\nparameters: {x: [1]}\nproblem_size: 1\narguments:\n  - {name: b, type: uint8, length: 1, fill: range}\n")
	if _, err := over.Generate(0, 300); err == nil || !strings.Contains(err.Error(), "element 256: 256 is out of range for uint8") {
		t.Errorf("range overflow: %v", err)
	}
}

func TestGenerateFromNPY(t *testing.T) {
	dir := t.TempDir()
	data := []float64{1, -2, 3.5}
	arr := &Array{Type: "float64", Shape: []int{3}, Data: make([]byte, 24)}
	et, _ := lookupType("float64")
	for i, v := range data {
		et.put(arr.Data[8*i:], v)
	}
	if err := WriteNPYFile(filepath.Join(dir, "x.npy"), arr); err != nil {
		t.Fatal(err)
	}
	s, err := Parse([]byte("kernel: {name: k, source: k.cu}\nparameters: {x: [1]}\nproblem_size: 1\narguments:\n  - {name: a, type: double, length: 3, fill: {npy: x.npy}}\n"),
		filepath.Join(dir, "spec.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if got := values(t, s, 0, 3); !slices.Equal(got, data) {
		t.Errorf("npy fill %v", got)
	}
	if _, err := s.Generate(0, 4); err == nil || !strings.Contains(err.Error(), "holds 3 elements") {
		t.Errorf("length mismatch: %v", err)
	}
}

// TestGenerateFloat16 checks half-precision data: each fill gives binary16 bits, random
// values stay inside their bounds after rounding, and values past 65504 are refused.
func TestGenerateFloat16(t *testing.T) {
	dir := t.TempDir()
	src := `kernel: {name: k, source: k.cl}
parameters: {x: [1]}
problem_size: 1
arguments:
  - {name: c, type: half, length: 1, fill: {constant: 0.1}}
  - {name: r, type: float16, length: 1, fill: {range: {start: -1, step: 0.25}}}
  - {name: u, type: __half, length: 1, fill: {random: {low: 0.1, high: 0.1001}}}
  - {name: n, type: _Float16, length: 1, fill: {random: {distribution: normal, mean: 0, stddev: 3e4}}}
  - {name: big, type: float16, length: 1, fill: {range: {start: 65500, step: 4}}}
  - {name: f, type: float16, length: 1, fill: {npy: f.npy}}
  - {name: w, type: float16, length: 1, fill: {npy: w.npy}}
`
	s, err := Parse([]byte(src), filepath.Join(dir, "spec.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for i, a := range s.Arguments {
		if a.Type != "float16" {
			t.Errorf("argument %d: type %q, want float16", i, a.Type)
		}
	}
	c, err := s.Generate(0, 3)
	if err != nil || !bytes.Equal(c, []byte{0x66, 0x2e, 0x66, 0x2e, 0x66, 0x2e}) {
		t.Errorf("constant 0.1: % x (%v), want 0x2e66 three times, little endian", c, err)
	}
	if got := values(t, s, 1, 5); !slices.Equal(got, []float64{-1, -0.75, -0.5, -0.25, 0}) {
		t.Errorf("range: %v", got)
	}
	// Between 0.1 and 0.1001 lie only the halves 0.10003662109375 and 0.10009765625:
	// a draw rounded to the nearest half would give 0.0999755859375 too.
	u := values(t, s, 2, 1000)
	seen := map[float64]int{}
	for _, v := range u {
		seen[v]++
	}
	if len(seen) != 2 || seen[0.10003662109375] == 0 || seen[0.10009765625] == 0 {
		t.Errorf("uniform in [0.1, 0.1001]: %v", seen)
	}
	again, _ := s.Generate(2, 1000)
	first, _ := s.Generate(2, 1000)
	if !bytes.Equal(again, first) {
		t.Error("random half data differ between two calls")
	}
	if lo, hi, _, _ := stats(values(t, s, 3, 10000)); lo != -65504 || hi != 65504 {
		t.Errorf("normal with stddev 3e4: from %v to %v; clamped to half's range, it reaches both ends", lo, hi)
	}
	if _, err := s.Generate(4, 2); err != nil {
		t.Errorf("range to 65504: %v", err)
	}
	if _, err := s.Generate(4, 3); err == nil || !strings.Contains(err.Error(), "arguments[4].fill: element 2: 65508 is out of range for float16, whose largest finite value is 65504") {
		t.Errorf("range past 65504: %v", err)
	}
	half := &Array{Type: "float16", Shape: []int{2}, Data: []byte{0x00, 0x3c, 0xff, 0x7b}}
	if err := WriteNPYFile(filepath.Join(dir, "f.npy"), half); err != nil {
		t.Fatal(err)
	}
	if got := values(t, s, 5, 2); !slices.Equal(got, []float64{1, 65504}) {
		t.Errorf("npy fill: %v", got)
	}
	if err := WriteNPYFile(filepath.Join(dir, "w.npy"), &Array{Type: "float32", Shape: []int{1}, Data: make([]byte, 4)}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Generate(6, 1); err == nil || !strings.Contains(err.Error(), `holds float32, but argument "w" is float16`) || !strings.Contains(err.Error(), "a.astype(numpy.float16)") {
		t.Errorf("a float32 file for a half argument: %v", err)
	}
}

// A range fill whose last element its type cannot hold is refused at the fill's line
// where the length reads only constants, instead of failing every configuration when
// the data are generated; one whose length reads a parameter is left to Generate.
func TestARangeFillPastItsTypeIsRefusedWhereItsLengthIsKnown(t *testing.T) {
	head := "kernel: {name: k, source: k.cl}\nconstants: {N: 100000}\nparameters: {bx: [1, 2]}\nproblem_size: 1\narguments:\n"
	for _, c := range []struct {
		name, arg, want string
	}{
		{"float16 past 65504", "  - {name: h, type: float16, length: N, fill: {range: {start: 0, step: 1}}}\n",
			"arguments[0].fill: the range's last element (0 + 99999 * 1): 99999 is out of range for float16, whose largest finite value is 65504; give a range whose elements all fit"},
		{"float16 below -65504", "  - {name: h, type: half, length: 1000, fill: {range: {start: 0, step: -70}}}\n",
			"arguments[0].fill: the range's last element (0 + 999 * -70): -69930 is out of range for float16"},
		{"int8 past 127", "  - {name: b, type: int8, length: 200, fill: range}\n",
			"arguments[0].fill: the range's last element (0 + 199 * 1): 199 is out of range for int8"},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := head + c.arg
			_, err := Parse([]byte(src), "r.yaml")
			want := "r.yaml:6: " + c.want
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("error %v, want %q", err, want)
			}
		})
	}
	for _, arg := range []string{
		"  - {name: h, type: float16, length: 65505, fill: range}\n",            // 0 to 65504: every one fits
		"  - {name: h, type: float16, length: bx * N, fill: range}\n",           // its length known per configuration
		"  - {name: h, type: float16, length: N, fill: {range: {step: 0.5}}}\n", // to 49999.5
	} {
		if _, err := Parse([]byte(head+arg), "r.yaml"); err != nil {
			t.Errorf("%s refused: %v", strings.TrimSpace(arg), err)
		}
	}
}
