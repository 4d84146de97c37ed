package spec

import (
	"strconv"
	"strings"
	"testing"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/space"
)

// launchGeometrySpec is a CUDA sequence whose launches give their grids as Kernel Tuner
// gives the kernel's: a problem size and divisors of their own, and dynamic shared memory
// of their own.
const launchGeometrySpec = `kernel:
  language: cuda
  code: |
    __global__ void rows(float *m, int n) {}
    __global__ void cols(float *m, int n) {}
    __global__ void all(float *m, int n) {}
constants: {W: 1000, H: 300}
parameters:
  - {name: block_size_x, values: [32, 64]}
  - {name: TILE, values: [1, 4]}
problem_size: [W, H]
shared_memory_bytes: 128
launches:
  - kernel: rows
    problem_size: [H]
    block: [block_size_x]
    shared_memory_bytes: block_size_x * TILE * 4
  - kernel: cols
    grid_div_x: [block_size_x, TILE]
    grid_div_y: []
  - kernel: all
arguments:
  - {name: m, type: float32, length: W * H}
  - {name: n, type: int32, value: W}
`

// A launch's own problem size is divided by its block, its own divisors divide the
// spec's problem size, and its shared memory is its own; a launch that gives none of them
// has the spec's.
func TestALaunchsProblemSizeDivisorsAndSharedMemoryAreItsOwn(t *testing.T) {
	s := mustParse(t, launchGeometrySpec)
	if s.Launches[0].ProblemSize[0] != "H" || s.Launches[1].GridDiv[0][1] != "TILE" || s.Launches[0].SharedMemoryBytes != "block_size_x * TILE * 4" {
		t.Fatalf("launches %+v", s.Launches)
	}
	in, err := s.Instance([]space.Value{space.IntValue(64), space.IntValue(4)})
	if err != nil {
		t.Fatal(err)
	}
	want := []device.Launch{
		{Grid: device.Dim3{5, 1, 1}, Block: device.Dim3{64, 1, 1}, SharedBytes: 1024},   // ceil(300 / 64)
		{Grid: device.Dim3{4, 300, 1}, Block: device.Dim3{64, 1, 1}, SharedBytes: 128},  // ceil(1000 / 256), 300 / 1
		{Grid: device.Dim3{16, 300, 1}, Block: device.Dim3{64, 1, 1}, SharedBytes: 128}, // the spec's launch
	}
	for i, w := range want {
		if got := in.Launches[i].Launch; got != w {
			t.Errorf("launches[%d]: %+v, want %+v", i, got, w)
		}
	}
	if in.Launch != want[2] {
		t.Errorf("the spec's launch %+v, want %+v", in.Launch, want[2])
	}
}

// A launch whose own problem size is 0 at a configuration fails that configuration,
// naming the field.
func TestALaunchsProblemSizeOfNoneFailsTheConfiguration(t *testing.T) {
	src := strings.Replace(launchGeometrySpec, "problem_size: [H]", "problem_size: [H * (TILE - 1)]", 1)
	s := mustParse(t, src)
	if _, err := s.Instance([]space.Value{space.IntValue(32), space.IntValue(4)}); err != nil {
		t.Fatal(err)
	}
	_, err := s.Instance([]space.Value{space.IntValue(32), space.IntValue(1)})
	want := "test.yaml:" + strconv.Itoa(lineOf(t, src, "problem_size: [H * (TILE - 1)]")) + ": launches[0].problem_size[0]: H * (TILE - 1) evaluates to 0 for this configuration, a grid of no blocks"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v\nwant %q", err, want)
	}
}

func TestBadLaunchGeometryNamesFieldAndLine(t *testing.T) {
	tests := []struct {
		name, old, new, at, want string
	}{
		{"a problem size with a grid", "    problem_size: [H]\n", "    problem_size: [H]\n    grid: [4]\n", "  - kernel: rows",
			"launches[0].problem_size: cannot be combined with the launch's grid, which it would compute; give one of them"},
		{"a divisor with a grid", "    grid_div_y: []\n", "    grid_div_y: []\n    grid: [4]\n", "  - kernel: cols",
			"launches[1].grid_div_x: cannot be combined with the launch's grid"},
		{"a negative problem size", "problem_size: [H]", "problem_size: [-H]", "problem_size: [-H]",
			"launches[0].problem_size[0]: -H evaluates to -300; expected a non-negative problem size"},
		{"an unknown name in a divisor", "grid_div_x: [block_size_x, TILE]", "grid_div_x: [block_size_x, TILES]", "grid_div_x:",
			`launches[1].grid_div_x[1]: expression "TILES", column 1: unknown name "TILES"`},
		{"shared memory of OpenCL", "language: cuda", "language: opencl", "shared_memory_bytes: block_size_x",
			"launches[0].shared_memory_bytes: dynamic shared memory is CUDA's, not opencl"},
		{"negative shared memory", "shared_memory_bytes: block_size_x * TILE * 4", "shared_memory_bytes: -4", "shared_memory_bytes: -4",
			"launches[0].shared_memory_bytes: -4 evaluates to -4; expected a non-negative whole number of bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(launchGeometrySpec, tc.old) {
				t.Fatalf("the spec lacks %q", tc.old)
			}
			src := strings.Replace(launchGeometrySpec, tc.old, tc.new, 1)
			_, err := Parse([]byte(src), "spec.yaml")
			want := "spec.yaml:" + strconv.Itoa(lineOf(t, src, tc.at)) + ": " + tc.want
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("error %v\nwant %q", err, want)
			}
		})
	}
}

// A launch with a problem size of its own needs no grid where the spec has no problem
// size.
func TestALaunchsProblemSizeStandsForTheSpecs(t *testing.T) {
	src := strings.Replace(launchGeometrySpec, "problem_size: [W, H]\n", "", 1)
	src = strings.Replace(src, "  - kernel: all\n", "", 1)
	src = strings.Replace(src, "    grid_div_y: []\n", "    problem_size: [W]\n", 1)
	s := mustParse(t, src)
	in, err := s.Instance([]space.Value{space.IntValue(32), space.IntValue(1)})
	if err != nil {
		t.Fatal(err)
	}
	if g := in.Launches[1].Launch.Grid; g != (device.Dim3{32, 1, 1}) { // ceil(1000 / 32)
		t.Errorf("launches[1]'s grid %v, want 32 x 1 x 1", g)
	}
}

// Every launch is compiled with the definitions of the spec's launch (grid_size_x and the
// block size names), not of its own: the functions of one source share one build.
func TestLaunchesSeeTheSpecsLaunchInTheirDefinitions(t *testing.T) {
	s := mustParse(t, launchGeometrySpec)
	in, err := s.Instance([]space.Value{space.IntValue(64), space.IntValue(4)})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, d := range in.Defines {
		got[d.Name] = d.Value
	}
	if got["grid_size_x"] != "16" || got["grid_size_y"] != "300" || got["block_size_x"] != "64" {
		t.Errorf("definitions %v, want the spec's launch's grid 16 x 300 (launches[0]'s is 5 x 1)", in.Defines)
	}
}
