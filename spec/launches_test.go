package spec

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/space"
)

// launchesSpec is a ping-pong stencil and a reduction of its result: two functions of one
// inline source, the first repeated STEPS // SPL times with its arrays swapped.
const launchesSpec = `kernel:
  language: opencl
  code: |
    __kernel void step(__global const float *a, __global float *b, int n) {}
    __kernel void total(__global const float *b, __global float *sum, int n) {}
constants:
  N: 1000
  STEPS: 12
parameters:
  - {name: BS, values: [32, 64]}
  - {name: SPL, values: [1, 2, 5]}
launches:
  - kernel: step
    grid: ["(N + BS - 1) // BS"]
    block: [BS]
    arguments: [a, b, n]
    repeat: STEPS // SPL
    swap: [a, b]
  - kernel: total
    grid: [1]
    block: [64]
    arguments: [b, sum, n]
arguments:
  - {name: a, type: float32, length: N}
  - {name: b, type: float32, length: N}
  - {name: sum, type: float32, length: 1, output: true}
  - {name: n, type: int32, value: N}
`

func TestLaunchesParseIntoInstancesPerConfiguration(t *testing.T) {
	s := mustParse(t, launchesSpec)
	if s.Kernel.Name != "step" {
		t.Errorf("kernel name %q, want the first function launched", s.Kernel.Name)
	}
	if len(s.Launches) != 2 || s.Launches[0].Repeat != "STEPS // SPL" || len(s.Launches[0].Swap) != 2 {
		t.Fatalf("launches %+v", s.Launches)
	}
	in, err := s.Instance([]space.Value{space.IntValue(64), space.IntValue(5)})
	if err != nil {
		t.Fatal(err)
	}
	l := in.Launches
	if len(l) != 2 || l[0].Repeat != 2 || l[1].Repeat != 1 {
		t.Fatalf("launch instances %+v", l)
	}
	if l[0].Launch.Grid != (device.Dim3{16, 1, 1}) || l[0].Launch.Block != (device.Dim3{64, 1, 1}) {
		t.Errorf("first launch %+v, want 16 groups of 64", l[0].Launch)
	}
	if l[1].Launch.Grid != (device.Dim3{1, 1, 1}) || l[1].Launch.Block != (device.Dim3{64, 1, 1}) {
		t.Errorf("second launch %+v", l[1].Launch)
	}
	if want := []int{0, 1, 3}; !slices.Equal(l[0].Args, want) {
		t.Errorf("first launch's arguments %v, want %v", l[0].Args, want)
	}
	src := s.LaunchSource(1)
	if src.Kernel != "total" || len(src.Params) != 3 || src.Params[1].Name != "sum" {
		t.Errorf("second launch's source %+v", src)
	}
	args := []device.Arg{{Local: 1}, {Local: 2}, {Local: 3}, {Local: 4}}
	got := s.LaunchArgs(0, args, []int{1, 0, 2, 3})
	if len(got) != 3 || got[0].Local != 2 || got[1].Local != 1 || got[2].Local != 4 {
		t.Errorf("swapped arguments %+v", got)
	}
}

// A repeat that is not a whole number of at least 1 at a configuration makes that
// configuration's instance fail, naming the field and line: the runner records it as a
// runtime_error and goes on (a restriction keeps such configurations out of the space).
func TestARepeatBelowOneFailsThatConfiguration(t *testing.T) {
	src := strings.Replace(launchesSpec, "repeat: STEPS // SPL", "repeat: STEPS // SPL - 6", 1)
	s := mustParse(t, src)
	if _, err := s.Instance([]space.Value{space.IntValue(32), space.IntValue(1)}); err != nil {
		t.Fatalf("12 - 6 launches: %v", err)
	}
	_, err := s.Instance([]space.Value{space.IntValue(32), space.IntValue(2)})
	want := "test.yaml:" + strconv.Itoa(lineOf(t, src, "repeat:")) + ": launches[0].repeat: STEPS // SPL - 6 evaluates to 0; expected a whole number of launches, at least 1"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want %q", err, want)
	}
	src = strings.Replace(launchesSpec, "repeat: STEPS // SPL", "repeat: STEPS / SPL", 1)
	s = mustParse(t, src)
	if _, err := s.Instance([]space.Value{space.IntValue(32), space.IntValue(5)}); err == nil || !strings.Contains(err.Error(), "2.4; expected a whole number") {
		t.Errorf("12 / 5 launches: %v", err)
	}
}

func TestBadLaunchesNameFieldAndLine(t *testing.T) {
	tests := []struct {
		name, old, new, at, want string
	}{
		{"an unknown function", "kernel: total", "kernel: totl", "kernel: totl",
			`launches[1].kernel: no function "totl" in the kernel's source; did you mean "total"?`},
		{"an argument not in the spec", "arguments: [b, sum, n]", "arguments: [b, summ, n]", "arguments: [b, summ, n]",
			`launches[1].arguments[1]: no argument "summ"; did you mean "sum"?`},
		{"an argument twice", "arguments: [b, sum, n]", "arguments: [b, b, n]", "arguments: [b, b, n]",
			`launches[1].arguments[1]: "b" is given twice`},
		{"a repeat of none", "repeat: STEPS // SPL", "repeat: STEPS - 12", "repeat:",
			`launches[0].repeat: STEPS - 12 evaluates to 0; expected a whole number of launches, at least 1`},
		{"a swap of a scalar", "swap: [a, b]", "swap: [a, n]", "swap: [a, n]",
			`launches[0].swap[1]: "n" is int32, not an array`},
		{"a swap of an array the launch does not take", "swap: [a, b]", "swap: [a, sum]", "swap: [a, sum]",
			`launches[0].swap[1]: "sum" is not an argument of this launch`},
		{"a swap without repeat", "    repeat: STEPS // SPL\n", "", "swap: [a, b]",
			`launches[0].swap: exchanges two arrays between repetitions, but the launch has no repeat`},
		{"a swap of arrays of different types", "{name: b, type: float32,", "{name: b, type: int32,", "swap: [a, b]",
			`launches[0].swap: a is an array of float32 but b of int32; exchanged arrays must have one type and length`},
		{"a swap of arrays of different lengths", "{name: b, type: float32, length: N}", "{name: b, type: float32, length: N + 1}", "swap: [a, b]",
			`launches[0].swap: a has 1000 elements but b 1001; exchanged arrays must have one type and length`},
		{"a launch without a function", "  - kernel: total\n", "  - grid: [1]\n", "  - grid: [1]",
			`launches[1].kernel: missing; expected the name of the function to launch`},
		{"an unknown field", "    grid: [1]\n", "    grd: [1]\n", "grd:",
			`launches[1].grd: unknown field; did you mean "grid"?`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(launchesSpec, tc.old) {
				t.Fatalf("the spec lacks %q", tc.old)
			}
			src := strings.Replace(launchesSpec, tc.old, tc.new, 1)
			_, err := Parse([]byte(src), "spec.yaml")
			want := "spec.yaml:" + strconv.Itoa(lineOf(t, src, tc.at)) + ": " + tc.want
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("error %v\nwant %q", err, want)
			}
		})
	}
}

// A swap of arrays whose lengths differ at some configurations only fails those.
func TestASwapOfArraysOfDifferentLengthsAtAConfigurationFailsIt(t *testing.T) {
	src := strings.Replace(launchesSpec, "{name: b, type: float32, length: N}", "{name: b, type: float32, length: N * SPL // SPL + (BS - 32)}", 1)
	s := mustParse(t, src)
	if _, err := s.Instance([]space.Value{space.IntValue(32), space.IntValue(1)}); err != nil {
		t.Fatal(err)
	}
	_, err := s.Instance([]space.Value{space.IntValue(64), space.IntValue(1)})
	if err == nil || !strings.Contains(err.Error(), "launches[0].swap: a has 1000 elements but b 1032 for this configuration") {
		t.Errorf("error %v", err)
	}
}

// A launch's own source is read by ReadFiles, and its functions are looked for there.
func TestALaunchsOwnSourceIsReadAndChecked(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("main.cl", "__kernel void step(__global float *a, __global float *b, int n) {}\n")
	write("final.cl", "__kernel void total(__global float *b, __global float *sum, int n) {}\n")
	src := `kernel: {source: main.cl}
parameters:
  - {name: BS, values: [32]}
launches:
  - {kernel: step, grid: [4], block: [BS], arguments: [a, b, n]}
  - {kernel: total, source: final.cl, grid: [1], block: [1], arguments: [b, sum, n]}
arguments:
  - {name: a, type: float32, length: 100}
  - {name: b, type: float32, length: 100}
  - {name: sum, type: float32, length: 1, output: true}
  - {name: n, type: int32, value: 100}
`
	write("spec.yaml", src)
	s, err := Load(filepath.Join(dir, "spec.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.LaunchSource(1).Code, "void total") || !strings.Contains(s.LaunchSource(0).Code, "void step") {
		t.Errorf("sources not read: %q, %q", s.LaunchSource(0).Code, s.LaunchSource(1).Code)
	}
	write("spec.yaml", strings.Replace(src, "{kernel: total, source: final.cl", "{kernel: total, source: main.cl", 1))
	_, err = Load(filepath.Join(dir, "spec.yaml"))
	if err == nil || !strings.Contains(err.Error(), `spec.yaml:6: launches[1].kernel: no function "total" in the launch's source`) {
		t.Errorf("error %v", err)
	}
}

func TestLaunchDeclaredParametersAreCheckedPerLaunch(t *testing.T) {
	src := launchesSpec
	s := mustParse(t, src)
	params := []device.Declared{
		{Name: "b", Decl: "__global const float* b", Pointer: true, Type: "float32", Lanes: 1},
		{Name: "sum", Decl: "__global int* sum", Pointer: true, Type: "int32", Lanes: 1},
		{Name: "n", Decl: "int n", Type: "int32", Lanes: 1},
	}
	err := s.CheckLaunchDeclared(1, params, true)
	want := "test.yaml:" + strconv.Itoa(lineOf(t, src, "arguments: [b, sum, n]")) + ": launches[1].arguments[1]: sum is an array of float32 in the spec, but launches[1] (total) takes __global int* sum"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v\nwant %q", err, want)
	}
	if err := s.CheckLaunchDeclared(1, params[:2], true); err == nil || !strings.Contains(err.Error(), "launches[1].arguments: 3 in the spec, but launches[1] (total) takes 2") {
		t.Errorf("count: %v", err)
	}
	params[1].Type, params[1].Decl = "float32", "__global float* sum"
	if err := s.CheckLaunchDeclared(1, params, true); err != nil {
		t.Errorf("matching parameters: %v", err)
	}
}
