package spec

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ktune/ktune/space"
)

const sizedSpec = `
kernel: {name: k, language: opencl, source: k.cl}
constants:
  N: 1024
  HALF: N / 2
parameters:
  - {name: block_size_x, values: [32, 64, 128, 256]}
restrictions: ["block_size_x <= HALF / 4"]
problem_size: [N]
arguments:
  - {name: a, type: float32, length: N, output: true}
  - {name: h, type: float32, length: HALF}
  - {name: n, type: int32, value: N}
`

// WithConstants parses the spec again with the constants replaced: the constants read
// from them, the restrictions (and so the space), problem_size, the lengths and the
// scalar values all follow; the original is unchanged, and the kernel source is read
// again.
func TestWithConstantsDerivesTheSpecOfAnotherSize(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"k.yaml": sizedSpec, "k.cl": "__kernel void k() {}\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Load(filepath.Join(dir, "k.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	small, err := s.WithConstants(map[string]float64{"N": 256})
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := small.Constant("N"); n != 256 {
		t.Errorf("N = %v, want 256", n)
	}
	if h, _ := small.Constant("HALF"); h != 128 {
		t.Errorf("HALF = %v, want 128: a constant reading N follows it", h)
	}
	if n, _ := s.Constant("N"); n != 1024 {
		t.Errorf("the original's N became %v", n)
	}
	if small.Kernel.Code != s.Kernel.Code || !strings.Contains(small.Kernel.Code, "__kernel void k") {
		t.Errorf("the derived spec's code %q, want the original's %q", small.Kernel.Code, s.Kernel.Code)
	}
	spBig, err := s.Space()
	if err != nil {
		t.Fatal(err)
	}
	spSmall, err := small.Space()
	if err != nil {
		t.Fatal(err)
	}
	if spBig.Len() != 3 || spSmall.Len() != 1 {
		t.Errorf("spaces of %d and %d configurations, want 3 (N 1024: block_size_x <= 128) and 1 (N 256: block_size_x <= 32)", spBig.Len(), spSmall.Len())
	}
	in, err := small.Instance([]space.Value{space.IntValue(32)})
	if err != nil {
		t.Fatal(err)
	}
	if in.ProblemSize[0] != 256 || in.Launch.Grid[0] != 8 {
		t.Errorf("problem size %v, grid %v; want 256 and 8 blocks of 32", in.ProblemSize, in.Launch.Grid)
	}
	if in.Args[0].Length != 256 || in.Args[1].Length != 128 || binary.LittleEndian.Uint32(in.Args[2].Scalar) != 256 {
		t.Errorf("lengths %d, %d and n %v; want 256, 128 and 256", in.Args[0].Length, in.Args[1].Length, in.Args[2].Scalar)
	}
	if same, err := s.WithConstants(nil); err != nil || same != s {
		t.Errorf("no constants: %p, %v; want the spec itself", same, err)
	}
	for _, tc := range []struct {
		values map[string]float64
		says   string
	}{
		{map[string]float64{"M": 3}, "no constant M (its constants: N, HALF)"},
		{map[string]float64{"N": -8}, "with N = -8"},
	} {
		if _, err := s.WithConstants(tc.values); err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%v: %v, want an error saying %q", tc.values, err, tc.says)
		}
	}
	if _, err := (&Spec{}).WithConstants(map[string]float64{"N": 1}); err != ErrNotParsed {
		t.Errorf("an unparsed spec: %v, want ErrNotParsed", err)
	}
}

// The specs WithConstants derives share the kernel files their spec read: a file whose
// size and modification time are those of its last read is not read again (here a
// rewrite that keeps both, which only a cache would miss), one that changed either is,
// and one that is gone is an error naming it, as Load's.
func TestWithConstantsReadsAKernelFileAgainOnlyWhenItChanged(t *testing.T) {
	dir := t.TempDir()
	cl := filepath.Join(dir, "k.cl")
	write := func(text string, mod time.Time) {
		t.Helper()
		if err := os.WriteFile(cl, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(cl, mod, mod); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "k.yaml"), []byte(sizedSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	loaded := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	write("__kernel void k() { /* one */ }\n", loaded)
	s, err := Load(filepath.Join(dir, "k.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	code := func(n float64) string {
		t.Helper()
		d, err := s.WithConstants(map[string]float64{"N": n})
		if err != nil {
			t.Fatal(err)
		}
		return d.Kernel.Code
	}
	for _, tc := range []struct {
		what, text string
		mod        time.Time
		want       string
	}{
		{"rewritten with the same size and time: kept", "__kernel void k() { /* two */ }\n", loaded, "one"},
		{"a new time", "__kernel void k() { /* two */ }\n", loaded.Add(time.Second), "two"},
		{"a new size at the same time", "__kernel void k() { /* three */ }\n", loaded.Add(time.Second), "three"},
	} {
		write(tc.text, tc.mod)
		if got := code(256); !strings.Contains(got, "/* "+tc.want+" */") {
			t.Errorf("%s: the derived spec's code is %q, want /* %s */", tc.what, got, tc.want)
		}
	}
	if !strings.Contains(s.Kernel.Code, "/* one */") {
		t.Errorf("the original's code became %q", s.Kernel.Code)
	}
	if err := os.Remove(cl); err != nil {
		t.Fatal(err)
	}
	if _, err := s.WithConstants(map[string]float64{"N": 256}); err == nil || !strings.Contains(err.Error(), "k.cl") {
		t.Errorf("a kernel file that is gone: %v, want an error naming k.cl", err)
	}
}
