package spec

import (
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/space"
)

// configOf returns the values of the named configuration, in the spec's parameter order.
func configOf(t *testing.T, s *Spec, cfg map[string]any) []space.Value {
	t.Helper()
	vals := make([]space.Value, len(s.Parameters))
	for i, p := range s.Parameters {
		x, ok := cfg[p.Name]
		if !ok {
			t.Fatalf("configuration lacks %s", p.Name)
		}
		v, err := space.ValueOf(x)
		if err != nil {
			t.Fatal(err)
		}
		vals[i] = v
	}
	return vals
}

// onlyConfig returns the one configuration of a spec whose parameters have one value each.
func onlyConfig(t *testing.T, s *Spec) []space.Value {
	t.Helper()
	vals := make([]space.Value, len(s.Parameters))
	for i, p := range s.Parameters {
		if len(p.Values) != 1 {
			t.Fatalf("parameter %s has %d values, want one", p.Name, len(p.Values))
		}
		vals[i] = p.Values[0]
	}
	return vals
}

// definesLine writes in's definitions as name=value, space-separated.
func definesLine(in *Instance) string {
	var got []string
	for _, d := range in.Defines {
		got = append(got, d.Name+"="+d.Value)
	}
	return strings.Join(got, " ")
}

func TestLaunchGeometryFollowsKernelTuner(t *testing.T) {
	tests := []struct {
		name        string
		spec        string // its parameters have one value each: it has one configuration
		grid, block device.Dim3
	}{
		{"problem size 1000, block_size_x 32",
			"parameters: {block_size_x: [32]}\nproblem_size: 1000\n", device.Dim3{32, 1, 1}, device.Dim3{32, 1, 1}},
		{"problem size divisible by the block",
			"parameters: {block_size_x: [64]}\nproblem_size: [1024]\n", device.Dim3{16, 1, 1}, device.Dim3{64, 1, 1}},
		{"grid_div_y with two names",
			"parameters: {block_size_x: [16], block_size_y: [4], tile_size_y: [8]}\nproblem_size: [1000, 1000]\ngrid_div_y: [block_size_y, tile_size_y]\n", device.Dim3{63, 32, 1}, device.Dim3{16, 4, 1}},
		{"grid_div_x replaces the default divisor",
			"parameters: {block_size_x: [32], tile_size_x: [4]}\nproblem_size: [1000]\ngrid_div_x: [block_size_x, tile_size_x]\n", device.Dim3{8, 1, 1}, device.Dim3{32, 1, 1}},
		{"a divisor is truncated as int() does",
			"parameters: {block_size_x: [32]}\nproblem_size: [1000]\ngrid_div_x: [\"block_size_x / 3\"]\n", device.Dim3{100, 1, 1}, device.Dim3{32, 1, 1}},
		{"an empty divisor list divides by 1",
			"parameters: {block_size_x: [32]}\nproblem_size: [100]\ngrid_div_x: []\n", device.Dim3{100, 1, 1}, device.Dim3{32, 1, 1}},
		{"missing block size parameters mean 1",
			"parameters: {tile: [2]}\nproblem_size: [100, 7]\n", device.Dim3{100, 7, 1}, device.Dim3{1, 1, 1}},
		{"problem size expressions over parameters and constants",
			"constants: {N: 100}\nparameters: {block_size_x: [64], tile: [3]}\nproblem_size: [\"N * tile\", 8]\n", device.Dim3{5, 8, 1}, device.Dim3{64, 1, 1}},
		{"a problem size is truncated as int() does",
			"constants: {N: 100}\nparameters: {block_size_x: [32]}\nproblem_size: [\"N / 3\"]\n", device.Dim3{2, 1, 1}, device.Dim3{32, 1, 1}},
		{"three dimensions",
			"parameters: {block_size_x: [8], block_size_y: [4], block_size_z: [2]}\nproblem_size: [64, 64, 9]\n", device.Dim3{8, 16, 5}, device.Dim3{8, 4, 2}},
		{"custom block_size_names",
			"parameters: {bx: [8], by: [4], block_size_x: [1000]}\nblock_size_names: [bx, by]\nproblem_size: [64, 64]\n", device.Dim3{8, 16, 1}, device.Dim3{8, 4, 1}},
		{"explicit grid and block expressions",
			"constants: {N: 1000}\nparameters: {block_size_x: [32], tile: [4]}\nproblem_size: [N, 64]\n" +
				"grid: [\"(N + block_size_x*tile - 1) // (block_size_x*tile)\", \"problem_size_y // 2\"]\nblock: [block_size_x, 2]\n", device.Dim3{8, 32, 1}, device.Dim3{32, 2, 1}},
		{"explicit block, derived grid divides by it",
			"parameters: {block_size_x: [32]}\nproblem_size: [1000]\nblock: [256]\n", device.Dim3{4, 1, 1}, device.Dim3{256, 1, 1}},
		{"explicit grid without a problem size",
			"parameters: {block_size_x: [32]}\ngrid: [7, 3, 2]\n", device.Dim3{7, 3, 2}, device.Dim3{32, 1, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustParse(t, "kernel: {name: k, source: k.cu}\n"+tt.spec)
			in, err := s.Instance(onlyConfig(t, s))
			if err != nil {
				t.Fatal(err)
			}
			if in.Launch.Grid != tt.grid || in.Launch.Block != tt.block {
				t.Errorf("grid %v block %v, want grid %v block %v", in.Launch.Grid, in.Launch.Block, tt.grid, tt.block)
			}
		})
	}
}

func TestInstanceOfTheFullSpec(t *testing.T) {
	s, err := Load("testdata/matmul.yaml")
	if err != nil {
		t.Fatal(err)
	}
	in, err := s.Instance(s.Default) // bx 32, by 2, tile 2, shared, double, alpha 0.5
	if err != nil {
		t.Fatal(err)
	}
	wantDefines := []device.Define{
		{Name: "grid_size_x", Value: "8"}, // ceil(512 / (32*2))
		{Name: "grid_size_y", Value: "256"},
		{Name: "grid_size_z", Value: "1"},
		{Name: "block_size_x", Value: "32"},
		{Name: "block_size_y", Value: "2"},
		{Name: "block_size_z", Value: "1"},
		{Name: "tile_size_x", Value: "2"},
		{Name: "use_shared", Value: "1"},
		{Name: "precision", Value: "double"},
		{Name: "alpha_scale", Value: "0.5"},
		{Name: "kernel_tuner", Value: "1"},
	}
	if !reflect.DeepEqual(in.Defines, wantDefines) {
		t.Errorf("defines\n got %v\nwant %v", in.Defines, wantDefines)
	}
	wantLaunch := device.Launch{Grid: device.Dim3{8, 256, 1}, Block: device.Dim3{32, 2, 1}, SharedBytes: 32 * 2 * 4}
	if in.Launch != wantLaunch {
		t.Errorf("launch %+v, want %+v", in.Launch, wantLaunch)
	}
	if in.ProblemSize != (device.Dim3{512, 512, 1}) {
		t.Errorf("problem size %v", in.ProblemSize)
	}
	alpha := make([]byte, 8)
	binary.LittleEndian.PutUint64(alpha, math.Float64bits(0.75))
	wantArgs := []ArgInstance{
		{Name: "C", Kind: ArgArray, Type: "float32", Length: 512 * 512, Bytes: 4 * 512 * 512, Output: true},
		{Name: "A", Kind: ArgArray, Type: "float32", Length: 512 * 512, Bytes: 4 * 512 * 512},
		{Name: "B", Kind: ArgArray, Type: "float32", Length: 512 * 512, Bytes: 4 * 512 * 512},
		{Name: "idx", Kind: ArgArray, Type: "int32", Length: 512, Bytes: 4 * 512},
		{Name: "ones", Kind: ArgArray, Type: "float64", Length: 4, Bytes: 32},
		{Name: "n", Kind: ArgScalar, Type: "int32", Length: 1, Bytes: 4, Scalar: []byte{0, 2, 0, 0}},
		{Name: "alpha", Kind: ArgScalar, Type: "float64", Length: 1, Bytes: 8, Scalar: alpha},
		{Name: "filter", Kind: ArgConstant, Type: "float32", Length: 64, Bytes: 256},
	}
	if !reflect.DeepEqual(in.Args, wantArgs) {
		t.Errorf("args\n got %+v\nwant %+v", in.Args, wantArgs)
	}

	// Without shared memory the expression's else branch applies.
	cfg := append([]space.Value(nil), s.Default...)
	cfg[2], cfg[3] = space.IntValue(1), space.BoolValue(false)
	in, err = s.Instance(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if in.Launch.SharedBytes != 0 || in.Launch.Grid != (device.Dim3{16, 256, 1}) {
		t.Errorf("launch %+v", in.Launch)
	}
}

func TestDefinesKeepAParametersOwnValueAndCanBeOff(t *testing.T) {
	s := mustParse(t, `
kernel: {name: k, source: k.cl}
parameters: {grid_size_x: [3], block_size_x: [16], flag: [false]}
problem_size: [100]
block: [64]
`)
	in, err := s.Instance(configOf(t, s, map[string]any{"grid_size_x": 3, "block_size_x": 16, "flag": false}))
	if err != nil {
		t.Fatal(err)
	}
	want := "grid_size_x=3 grid_size_y=1 grid_size_z=1 block_size_x=16 block_size_y=1 block_size_z=1 flag=0 kernel_tuner=1"
	if got := definesLine(in); got != want {
		t.Errorf("defines %s\nwant    %s", got, want)
	}
	if in.Launch.Block[0] != 64 || in.Launch.Grid[0] != 2 {
		t.Errorf("launch %+v", in.Launch)
	}

	s = mustParse(t, `
kernel: {name: k, source: k.cl, defines: false}
parameters: {block_size_x: [16]}
problem_size: [100]
`)
	in, err = s.Instance([]space.Value{space.IntValue(16)})
	if err != nil {
		t.Fatal(err)
	}
	if in.Defines != nil {
		t.Errorf("defines %v with defines: false", in.Defines)
	}
}

// TestADefinesMappingIsExactlyItsDefinitions: kernel.defines as a mapping is Kernel
// Tuner's defines dict: those definitions alone, in the file's order, each evaluated for
// the configuration (a number, a boolean, a parameter's name, string parameters too, or an
// expression that may read the launch sizes). Before, a mapping was refused ("expected true
// or false"), though the unknown-field hint for Kernel Tuner's defines pointed to it.
func TestADefinesMappingIsExactlyItsDefinitions(t *testing.T) {
	s := mustParse(t, `
kernel:
  name: k
  source: k.cl
  defines: {NCOEF: 8, ON: true, TILE: tile, METHOD: method, WPT: "block_size_x * tile", GX: grid_size_x, HALF: "tile / 4", SCALE: 1.5e-7}
constants: {N: 1000}
parameters: {block_size_x: [16, 32], tile: [2], method: [shared, global]}
problem_size: [N]
grid_div_x: [block_size_x, tile]
`)
	in, err := s.Instance(configOf(t, s, map[string]any{"block_size_x": 32, "tile": 2, "method": "global"}))
	if err != nil {
		t.Fatal(err)
	}
	want := "NCOEF=8 ON=1 TILE=2 METHOD=global WPT=64 GX=16 HALF=0.5 SCALE=1.5e-07"
	if got := definesLine(in); got != want {
		t.Errorf("defines %s\nwant    %s", got, want)
	}
	wantList := []KernelDefine{{"NCOEF", "8"}, {"ON", "True"}, {"TILE", "tile"}, {"METHOD", "method"},
		{"WPT", "block_size_x * tile"}, {"GX", "grid_size_x"}, {"HALF", "tile / 4"}, {"SCALE", "1.5e-07"}}
	if s.Kernel.Defines || !reflect.DeepEqual(s.Kernel.DefineList, wantList) {
		t.Errorf("kernel Defines %v, DefineList %v\nwant false, %v", s.Kernel.Defines, s.Kernel.DefineList, wantList)
	}

	// the reference kernel's own launch gives its definitions' launch sizes
	s = mustParse(t, `
kernel: {name: k, source: k.cl, defines: {GX: grid_size_x}}
parameters: {block_size_x: [16]}
problem_size: [100]
arguments: [{name: y, type: float32, length: 100, output: true}]
verification: {reference: {kernel: {name: r, source: r.cl, block: [10]}}}
`)
	for _, tc := range []struct {
		instance func([]space.Value) (*Instance, error)
		want     string
	}{{s.Instance, "7"}, {s.ReferenceInstance, "10"}} {
		in, err := tc.instance([]space.Value{space.IntValue(16)})
		if err != nil || len(in.Defines) != 1 || in.Defines[0].Value != tc.want {
			t.Errorf("defines %v, %v; want GX=%s", in.Defines, err, tc.want)
		}
	}

	// an empty mapping defines nothing, as Kernel Tuner's empty dict
	s = mustParse(t, "kernel: {name: k, source: k.cl, defines: {}}\nparameters: {block_size_x: [16]}\nproblem_size: [100]\n")
	if in, err := s.Instance([]space.Value{space.IntValue(16)}); err != nil || len(in.Defines) != 0 {
		t.Errorf("defines: {} gave %v, %v; want none", in.Defines, err)
	}

	// a value that fails for a configuration fails its instance, naming the field
	s = mustParse(t, "kernel: {name: k, source: k.cl, defines: {D: \"64 // (block_size_x - 16)\"}}\nparameters: {block_size_x: [16, 32]}\nproblem_size: [100]\n")
	if _, err := s.Instance([]space.Value{space.IntValue(32)}); err != nil {
		t.Errorf("block_size_x=32: %v", err)
	}
	_, err = s.Instance([]space.Value{space.IntValue(16)})
	if err == nil || !strings.Contains(err.Error(), "test.yaml:1: kernel.defines.D: 64 // (block_size_x - 16) fails for this configuration") {
		t.Errorf("block_size_x=16: error %v", err)
	}
}

// TestAReferenceKernelKeepsItsOwnDefinesSetting: verification.reference.kernel takes
// defines as kernel does, and says nothing to be compiled as the tuned kernel is. Before,
// its defines: false was read and ignored, and the reference got the tuned kernel's
// definitions (a reference that defines the names itself, as a ported KTT or hand-written
// one may, then failed to compile).
func TestAReferenceKernelKeepsItsOwnDefinesSetting(t *testing.T) {
	names := func(ds []device.Define) string {
		var out []string
		for _, d := range ds {
			out = append(out, d.Name)
		}
		return strings.Join(out, " ")
	}
	for _, tc := range []struct {
		kernel, reference string
		want              string
	}{
		{"", "defines: false, ", ""},
		{"", "", "grid_size_x grid_size_y grid_size_z block_size_x block_size_y block_size_z kernel_tuner"},
		{"defines: false, ", "", ""},
		{"defines: false, ", "defines: true, ", "grid_size_x grid_size_y grid_size_z block_size_x block_size_y block_size_z kernel_tuner"},
		{"defines: {A: 1, B: grid_size_x}, ", "", "A B"},
		{"defines: {A: 1}, ", "defines: true, ", "grid_size_x grid_size_y grid_size_z block_size_x block_size_y block_size_z kernel_tuner"},
		{"defines: {A: 1}, ", "defines: false, ", ""},
		{"", "defines: {R: block_size_x}, ", "R"},
	} {
		for _, launch := range []string{", block: [10]", ""} { // its own launch, the kernel's
			s := mustParse(t, `
kernel: {name: k, `+tc.kernel+`source: k.cl}
parameters: {block_size_x: [16]}
problem_size: [100]
arguments: [{name: y, type: float32, length: 100, output: true}]
verification:
  reference:
    kernel: {name: r, `+tc.reference+`source: r.cl`+launch+`}
`)
			in, err := s.ReferenceInstance([]space.Value{space.IntValue(16)})
			if err != nil {
				t.Fatal(err)
			}
			if got := names(in.Defines); got != tc.want {
				t.Errorf("kernel {%s} reference {%s%s}: reference defines %q, want %q", tc.kernel, tc.reference, launch, got, tc.want)
			}
		}
	}
}

func TestInstanceErrorsNameTheField(t *testing.T) {
	tests := []struct {
		name string
		spec string
		cfg  map[string]any
		want []string
	}{
		{"divisor zero", "parameters: {tile: [1]}\nproblem_size: [10]\ngrid_div_x: [\"tile - 1\"]\n",
			map[string]any{"tile": 1}, []string{"test.yaml:4: grid_div_x[0]", "expected a positive grid divisor"}},
		{"grid not whole", "constants: {N: 10}\nparameters: {tile: [1, 3]}\ngrid: [\"N / tile\"]\n",
			map[string]any{"tile": 3}, []string{"test.yaml:4: grid[0]", "evaluates to 3.3333333333333335", "(a + b - 1) // b"}},
		{"length negative for this configuration", "parameters: {block_size_x: [1, 64]}\nproblem_size: [10]\narguments:\n  - {name: a, type: float32, length: \"50 - block_size_x\"}\n",
			map[string]any{"block_size_x": 64}, []string{"test.yaml:5: arguments[0].length", "evaluates to -14", "non-negative whole number of elements"}},
		{"scalar out of range", "parameters: {block_size_x: [1, 300]}\nproblem_size: [10]\narguments:\n  - {name: n, type: uint8, value: block_size_x}\n",
			map[string]any{"block_size_x": 300}, []string{"arguments[0].value", "300 is out of range for uint8"}},
		{"block size not whole", "parameters: {block_size_x: [1.5]}\nproblem_size: [10]\n",
			map[string]any{"block_size_x": 1.5}, []string{"parameters.block_size_x", "expected a whole number of at least 1"}},
		{"division by zero", "parameters: {tile: [0]}\nproblem_size: [\"10 // tile\"]\n",
			map[string]any{"tile": 0}, []string{"problem_size[0]", "division by zero"}},
		// It gave a grid of 0 blocks, which OpenCL ran as one work-group and the store
		// then refused, ending the tuning run with the measurement lost.
		{"a grid of no blocks", "parameters: {n: [0, 8], block_size_x: [32]}\nproblem_size: [n]\n",
			map[string]any{"n": 0, "block_size_x": 32}, []string{"problem_size[0]", "n evaluates to 0 for this configuration, a grid of no blocks"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustParse(t, "kernel: {name: k, source: k.cu}\n"+tt.spec)
			_, err := s.Instance(configOf(t, s, tt.cfg))
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("lacks %q: %v", w, err)
				}
			}
		})
	}
	s := mustParse(t, "kernel: {name: k, source: k.cu}\nparameters: {x: [1]}\nproblem_size: 1\n")
	if _, err := s.Instance(nil); err == nil {
		t.Error("a configuration with no values was accepted")
	}
	// A __local argument of 0 elements is refused at its length's line, by configuration
	// or as written: it reached the device, which said "argument 2 of k has no buffer,
	// scalar or local size", after compiling.
	local := "kernel: {name: k, source: k.cl}\nparameters: {block_size_x: [64], L: [0, 4]}\nproblem_size: [64]\n" +
		"arguments:\n  - {name: out, type: float32, length: 64, output: true}\n  - {name: tmp, kind: local, type: float32, length: %s}\n"
	ls := mustParse(t, fmt.Sprintf(local, "L"))
	want := "test.yaml:6: arguments[1].length: L evaluates to 0; expected a whole number of elements of at least 1 (OpenCL has no __local memory of 0 bytes)"
	if _, err := ls.Instance(configOf(t, ls, map[string]any{"block_size_x": 64, "L": 0})); err == nil || err.Error() != want {
		t.Errorf("a local argument of 0 elements: %v, want %q", err, want)
	}
	if _, err := ls.Instance(configOf(t, ls, map[string]any{"block_size_x": 64, "L": 4})); err != nil {
		t.Errorf("a local argument of 4 elements: %v", err)
	}
	if _, err := Parse([]byte(fmt.Sprintf(local, "0")), "test.yaml"); err == nil || !strings.Contains(err.Error(), "arguments[1].length") || !strings.Contains(err.Error(), "at least 1 (OpenCL has no __local memory of 0 bytes)") {
		t.Errorf("a local argument of length 0: %v", err)
	}

	// Host C has no launch: a problem size of 0 is the kernel's business.
	c := mustParse(t, "kernel: {name: k, source: k.c}\nparameters: {n: [0, 8]}\nproblem_size: [n]\n")
	if _, err := c.Instance(configOf(t, c, map[string]any{"n": 0})); err != nil {
		t.Errorf("host C with a problem size of 0: %v", err)
	}
}

func TestInstanceOfEveryConfiguration(t *testing.T) {
	s, err := Load("testdata/matmul.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sp, err := s.Space()
	if err != nil {
		t.Fatal(err)
	}
	for i := range sp.Len() {
		c := sp.At(i, nil)
		vals := sp.Values(c)
		in, err := s.Instance(vals)
		if err != nil {
			t.Fatalf("%s: %v", sp.Format(c), err)
		}
		bx, by, tile := vals[0].Int(), vals[1].Int(), vals[2].Int()
		want := device.Dim3{int((512 + bx*tile - 1) / (bx * tile)), int((512 + by - 1) / by), 1}
		if in.Launch.Grid != want {
			t.Errorf("%s: grid %v, want %v", sp.Format(c), in.Launch.Grid, want)
		}
		m, err := s.MetricValues(vals, 4, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := m["threads"]; got != float64(bx*by)*float64(want[0]*want[1]) {
			t.Errorf("%s: threads %v", sp.Format(c), got)
		}
	}
}
