package spec

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
)

func mustParse(t *testing.T, src string) *Spec {
	t.Helper()
	s, err := Parse([]byte(src), "test.yaml")
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return s
}

// declared is the spec without its compiled expressions, file name, lines and text,
// which differ between otherwise equal specs.
func declared(s *Spec) Spec {
	out := *s
	out.c, out.files, out.lines, out.raw = nil, nil, nil, nil
	out.argsLine, out.argLines = 0, nil
	out.File = ""
	return out
}

func TestYAMLAndJSONParseToTheSameSpec(t *testing.T) {
	y, err := Load("testdata/matmul.yaml")
	if err != nil {
		t.Fatal(err)
	}
	j, err := Load("testdata/matmul.json")
	if err != nil {
		t.Fatal(err)
	}
	if a, b := declared(y), declared(j); !reflect.DeepEqual(a, b) {
		t.Errorf("YAML and JSON specs differ:\nyaml: %+v\njson: %+v", a, b)
	}
	// Same compiled behaviour: every configuration gives the same instance.
	sp, err := y.Space()
	if err != nil {
		t.Fatal(err)
	}
	for i := range sp.Len() {
		vals := sp.Values(sp.At(i, nil))
		a, errA := y.Instance(vals)
		b, errB := j.Instance(vals)
		if errA != nil || errB != nil {
			t.Fatalf("%s: %v / %v", sp.Format(sp.At(i, nil)), errA, errB)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("%s: instances differ:\n%+v\n%+v", sp.Format(sp.At(i, nil)), a, b)
		}
	}
}

func TestFullSpecFields(t *testing.T) {
	s, err := Load("testdata/matmul.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if s.Kernel.Name != "matmul_kernel" || s.Kernel.Language != "cuda" || !s.Kernel.Defines {
		t.Errorf("kernel = %+v", s.Kernel)
	}
	wantFiles := []string{filepath.Join("testdata", "epilogue.cu"), filepath.Join("testdata", "matmul.cu")}
	if !reflect.DeepEqual(s.Kernel.Files, wantFiles) {
		t.Errorf("files = %v, want %v", s.Kernel.Files, wantFiles)
	}
	if !strings.Contains(s.Kernel.Code, "__device__ float epilogue") || !strings.Contains(s.Kernel.Code, "matmul_kernel(") ||
		strings.Index(s.Kernel.Code, "epilogue(float") > strings.Index(s.Kernel.Code, "matmul_kernel(") {
		t.Errorf("code is not the two files in order:\n%s", s.Kernel.Code)
	}
	names := make([]string, len(s.Parameters))
	for i, p := range s.Parameters {
		names[i] = p.Name
	}
	if got := strings.Join(names, ","); got != "block_size_x,block_size_y,tile_size_x,use_shared,precision,alpha_scale" {
		t.Errorf("parameter order %s", got)
	}
	if got := s.Parameters[1].Values; len(got) != 3 || got[2].Int() != 4 {
		t.Errorf("block_size_y values %v", got)
	}
	if s.Parameters[4].Values[1].Kind() != space.String || s.Parameters[3].Values[0].Kind() != space.Bool {
		t.Errorf("value kinds: %v %v", s.Parameters[4].Values, s.Parameters[3].Values)
	}
	if !reflect.DeepEqual(s.Constants, []Constant{{"N", 512}, {"FLOPS", 2 * 512 * 512 * 512}}) {
		t.Errorf("constants %v", s.Constants)
	}
	if s.Iterations != 10 || s.Statistic != "median" || s.Timeout != 30*time.Second || s.CompileTimeout != 150*time.Second || s.Seed != 42 {
		t.Errorf("iterations %d statistic %s timeout %v compile_timeout %v seed %d", s.Iterations, s.Statistic, s.Timeout, s.CompileTimeout, s.Seed)
	}
	if name, max := s.Objective(); name != "GFLOP/s" || !max {
		t.Errorf("objective %s maximize %v", name, max)
	}
	if len(s.Default) != 6 || s.Default[0].Int() != 32 || s.Default[4].Str() != "double" {
		t.Errorf("default config %v", s.Default)
	}
	v := s.Verification
	if v == nil || v.Kernel == nil || v.Kernel.Name != "matmul_naive" || v.Kernel.Language != "cuda" ||
		!reflect.DeepEqual(v.Outputs, []int{0}) || v.Atol != 1e-4 || v.Rtol != 1e-3 || len(v.Config) != 6 {
		t.Errorf("verification %+v", v)
	}
	if src, ok := s.ReferenceSource(); !ok || src.Kernel != "matmul_naive" || !strings.Contains(src.Code, "matmul_naive(") {
		t.Errorf("reference source %+v", src)
	}
	wantParams := []device.Param{
		{Name: "C", Type: "float32", Pointer: true}, {Name: "A", Type: "float32", Pointer: true},
		{Name: "B", Type: "float32", Pointer: true}, {Name: "idx", Type: "int32", Pointer: true},
		{Name: "ones", Type: "float64", Pointer: true}, {Name: "n", Type: "int32"},
		{Name: "alpha", Type: "float64"}, {Name: "filter", Type: "float32", Pointer: true},
	}
	if got := s.KernelParams(); !reflect.DeepEqual(got, wantParams) {
		t.Errorf("kernel params %+v", got)
	}
	src := s.Source()
	if src.Kernel != "matmul_kernel" || src.Language != "cuda" || !reflect.DeepEqual(src.Options, []string{"-lineinfo", "--use_fast_math"}) ||
		src.File != filepath.Join("testdata", "epilogue.cu") || !reflect.DeepEqual(src.Params, wantParams) {
		t.Errorf("source %+v", src)
	}
	sp, err := s.Space()
	if err != nil {
		t.Fatal(err)
	}
	// 2*3*3*2*2*2 = 144 combinations; block_size_x*block_size_y <= 64 removes (32, 4):
	// 5 of 6 (bx, by) pairs; use_shared or tile_size_x == 1 keeps 4 of 6 (tile, shared).
	if want := 5 * 4 * 2 * 2; sp.Len() != want {
		t.Errorf("space has %d configurations, want %d", sp.Len(), want)
	}
}

func TestDefaultsOfAMinimalSpec(t *testing.T) {
	s := mustParse(t, `
kernel: {name: vector_add, source: vector_add.cl}
parameters: {block_size_x: [32, 64]}
problem_size: 1000
`)
	if s.Kernel.Language != "opencl" || !s.Kernel.Defines || s.Kernel.Code != "" {
		t.Errorf("kernel %+v", s.Kernel)
	}
	if s.Iterations != DefaultIterations || s.Statistic != "mean" || s.Timeout != 10*time.Second || s.CompileTimeout != 5*time.Minute || s.Seed != 0 || s.MinTime != 0 {
		t.Errorf("defaults: %d %s %v %v %d min_time %v", s.Iterations, s.Statistic, s.Timeout, s.CompileTimeout, s.Seed, s.MinTime)
	}
	if name, max := s.Objective(); name != "time" || max {
		t.Errorf("objective %s %v", name, max)
	}
	if s.BlockSizeNames != [3]string{"block_size_x", "block_size_y", "block_size_z"} || s.Verification != nil || s.Default != nil {
		t.Errorf("block names %v verification %v default %v", s.BlockSizeNames, s.Verification, s.Default)
	}
}

// A restriction comparing a parameter with a value it never takes (a misspelled string)
// works as written, as Python computes it, but is a warning naming its line and field;
// the restrictions that compare with values the parameters take are not.
func TestARestrictionWithAValueNoParameterTakesIsAWarning(t *testing.T) {
	s := mustParse(t, `
kernel: {name: k, source: k.cl}
parameters:
  ACC: [single, double]
  block_size_x: [32, 64]
problem_size: 1000
restrictions:
  - ACC == 'double' or block_size_x == 64
  - ACC != 'dubble' or block_size_x == 32
`)
	if len(s.Warnings) != 1 {
		t.Fatalf("warnings %v, want 1", s.Warnings)
	}
	w := s.Warnings[0]
	want := "test.yaml:9: restrictions[1]: ACC != 'dubble' is always true: 'dubble' is none of ACC's values ('single', 'double'); did you mean 'double'?"
	if w.Error() != want || w.Line != 9 || w.Field != "restrictions[1]" {
		t.Errorf("warning %q (line %d, field %q), want %q", w, w.Line, w.Field, want)
	}
	sp, err := s.Space()
	if err != nil {
		t.Fatal(err)
	}
	if sp.Len() != 3 {
		t.Errorf("space of %d, want 3 configurations (all but single, 32), as Python computes the restrictions", sp.Len())
	}
}

func TestOpenMPAddsTheFlag(t *testing.T) {
	s := mustParse(t, `
kernel: {name: k, code: "void k(float *a) {}", language: c, openmp: true, compiler_options: [-O2]}
parameters: [{name: threads, values: [1, 2]}]
problem_size: [1]
arguments: [{name: a, type: float, length: 4}]
`)
	if got := s.Source().Options; !reflect.DeepEqual(got, []string{"-O2", "-fopenmp"}) {
		t.Errorf("options %v", got)
	}
}

// A host C kernel with OpenMP directives compiled without OpenMP runs on one thread, its
// threads parameter ignored, and every configuration still ran without a word: Load warns,
// naming the file and line of the directive (or the spec's line of inline code). With
// openmp: true or -fopenmp among the options, or in a language other than C, it does not.
func TestOpenMPDirectivesWithoutOpenMPAreWarned(t *testing.T) {
	dir := t.TempDir()
	kernel := "#include <omp.h>\nvoid k(float *a, int n)\n{\n  #pragma omp parallel for num_threads(threads)\n  for (int i = 0; i < n; i++) a[i] = 1.0f;\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "k.c"), []byte(kernel), 0o644); err != nil {
		t.Fatal(err)
	}
	rest := "parameters: [{name: threads, values: [1, 2]}]\nproblem_size: [1]\narguments: [{name: a, type: float32, length: 4}, {name: n, type: int32, value: 4}]\n"
	cases := []struct {
		name, kernel, want string
		line               int
	}{
		{"file", "kernel: {name: k, source: k.c}\n", "kernel.source: k.c:4 has an OpenMP directive (#pragma omp), but the kernel is compiled without OpenMP: the compiler ignores it and the kernel runs on one thread; set kernel.openmp: true", 1},
		{"inline", "kernel:\n  name: k\n  language: c\n  code: |\n    void k(float *a, int n) {\n      _Pragma(\"omp parallel for\")\n      for (int i = 0; i < n; i++) a[i] = 1.0f;\n    }\n", "kernel.code: this line of the code has an OpenMP directive", 6},
		// in a quoted string only the first line is the spec's: the warning is there
		{"quoted", "kernel:\n  name: k\n  language: c\n  code: \"void k(float *a, int n) {\\n#pragma omp parallel for\\nfor (int i = 0; i < n; i++) a[i] = 1.0f;\\n}\"\n", "kernel.code: the code has an OpenMP directive", 4},
		{"openmp", "kernel: {name: k, source: k.c, openmp: true}\n", "", 0},
		{"option", "kernel: {name: k, source: k.c, compiler_options: [-O2 -fopenmp]}\n", "", 0},
		{"no directive", "kernel: {name: k, code: \"void k(float *a, int n) { /* #pragma omp */ }\", language: c}\n", "", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, c.name+".yaml")
			if err := os.WriteFile(path, []byte(c.kernel+rest), 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if c.want == "" {
				if len(s.Warnings) != 0 {
					t.Errorf("warnings %v, want none", s.Warnings)
				}
				return
			}
			if len(s.Warnings) != 1 {
				t.Fatalf("warnings %v, want 1", s.Warnings)
			}
			if w := s.Warnings[0]; !strings.Contains(w.Error(), c.want) || w.Line != c.line {
				t.Errorf("warning %q at line %d, want %q at line %d", w, w.Line, c.want, c.line)
			}
		})
	}
}

// Relative paths in compiler options are relative to the spec, as its other paths are:
// the compiler looked for them in the folder ktune ran in, so that a host C spec with
// -Iinc tuned from its own folder and failed every configuration from another ("helper.h:
// No such file or directory"), and a compile cache shared by both could give one run the
// other's object.
func TestCompilerOptionPathsAreRelativeToTheSpec(t *testing.T) {
	dir := t.TempDir()
	s, err := Parse([]byte(`
kernel:
  name: k
  language: c
  code: "void k(float *a) {}"
  compiler_options: [-Iinc, -I, lib, "-O2 -isystem sys -include pre.h", --include-path=cu, -I/abs, "-L.", "-DS=\"a b\" -Iq", -lm]
parameters: [{name: p, values: [1]}]
problem_size: [1]
arguments: [{name: a, type: float32, length: 4}]
`), filepath.Join(dir, "k.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	at := func(p string) string { return filepath.Join(dir, p) }
	want := []string{"-I" + at("inc"), "-I", at("lib"), "-O2 -isystem " + at("sys") + " -include " + at("pre.h"),
		"--include-path=" + at("cu"), "-I/abs", "-L" + dir, `-DS="a b" -Iq`, "-lm"}
	if got := s.Source().Options; !reflect.DeepEqual(got, want) {
		t.Errorf("options\n %q\nwant\n %q", got, want)
	}
	// in a folder whose path has a space, a backend would split the path: as written
	spaced := filepath.Join(dir, "my specs")
	s, err = Parse([]byte("kernel: {name: k, language: c, code: \"void k(void) {}\", compiler_options: [-Iinc]}\nparameters: [{name: p, values: [1]}]\nproblem_size: [1]\n"),
		filepath.Join(spaced, "k.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Source().Options; !reflect.DeepEqual(got, []string{"-Iinc"}) {
		t.Errorf("options in %s: %q, want [-Iinc]", spaced, got)
	}
}

func TestParametersAsMappingKeepTheirOrder(t *testing.T) {
	s := mustParse(t, `
kernel: {name: k, source: k.cu}
parameters:
  zeta: [1, 2]
  alpha: "[i for i in range(3)]"
  mid: [a, b]
  single: 7
problem_size: [10]
`)
	var got []string
	for _, p := range s.Parameters {
		got = append(got, p.Name+"="+p.Values[len(p.Values)-1].String())
	}
	if strings.Join(got, " ") != "zeta=2 alpha=2 mid=b single=7" {
		t.Errorf("got %v", got)
	}
}

// lineOf returns the 1-based line of the first line of src containing sub.
func lineOf(t *testing.T, src, sub string) int {
	t.Helper()
	for i, l := range strings.Split(src, "\n") {
		if strings.Contains(l, sub) {
			return i + 1
		}
	}
	t.Fatalf("%q not in spec", sub)
	return 0
}

// parseOneError parses src as the file name, which Parse must refuse with one error, not
// several joined; it returns the error.
func parseOneError(t *testing.T, src, name string) error {
	t.Helper()
	_, err := Parse([]byte(src), name)
	if err == nil {
		t.Fatal("no error")
	}
	var joined interface{ Unwrap() []error }
	if errors.As(err, &joined) {
		t.Fatalf("%d errors, want one:\n%v", len(joined.Unwrap()), err)
	}
	return err
}

// badSpec is a spec that Parse must refuse, and what its message must say.
type badSpec struct {
	name string
	src  string
	at   string   // a substring of the offending line
	want []string // substrings of the message, the first the field path
}

// checkRefused parses each case's src after prefix as bad.yaml, in a subtest each: Parse
// must refuse it with a message that reads "bad.yaml:LINE: " and want[0] at the line
// holding at, and that says each of want[1:].
func checkRefused(t *testing.T, prefix string, cases []badSpec) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			src := prefix + tt.src
			_, err := Parse([]byte(src), "bad.yaml")
			if err == nil {
				t.Fatal("accepted")
			}
			msg := err.Error()
			at := "bad.yaml:" + strconv.Itoa(lineOf(t, src, tt.at)) + ": " + tt.want[0]
			if !strings.Contains(msg, at) {
				t.Errorf("message does not read %q:\n%s", at, msg)
			}
			for _, w := range tt.want[1:] {
				if !strings.Contains(msg, w) {
					t.Errorf("message lacks %q:\n%s", w, msg)
				}
			}
		})
	}
}

const base = `kernel:
  name: vector_add
  language: opencl
  code: "__kernel void vector_add(__global float *c, int n) {}"
constants: {N: 1000}
parameters:
  - name: block_size_x
    values: [32, 64, 128]
  - name: tile
    values: [1, 2]
problem_size: [N]
`

// min_time is a Go duration, the timed runs' least length; 0 turns it off, written as a
// number or a duration.
func TestMinTimeIsADurationOrZero(t *testing.T) {
	for _, c := range []struct {
		field string
		want  time.Duration
	}{
		{"min_time: 10ms\n", 10 * time.Millisecond},
		{"min_time: 1.5s\ntimeout: 20s\n", 1500 * time.Millisecond},
		{"min_time: 0\n", 0},
		{"min_time: 0s\n", 0},
		{"", 0},
	} {
		s := mustParse(t, base+c.field)
		if s.MinTime != c.want {
			t.Errorf("%q: min_time %v, want %v", c.field, s.MinTime, c.want)
		}
	}
}

func TestBadSpecsNameFileLineFieldAndExpectation(t *testing.T) {
	tests := []struct {
		name string
		src  string
		at   string   // a substring of the offending line; "" when the error has no line
		want []string // substrings of the message, the first the field path
	}{
		{"typo in a restriction name", base + "restrictions:\n  - \"blok_size_x * tile <= 256\"\n",
			"blok_size_x", []string{"restrictions[0]", `unknown name "blok_size_x"`, `did you mean "block_size_x"?`}},
		{"missing kernel name", strings.Replace(base, "  name: vector_add\n", "", 1),
			"kernel:", []string{"kernel.name", "missing; expected the name of the kernel function"}},
		{"missing kernel", strings.Replace(base, "kernel:\n  name: vector_add\n  language: opencl\n  code: \"__kernel void vector_add(__global float *c, int n) {}\"\n", "", 1),
			"constants:", []string{"kernel", "missing"}},
		{"unknown argument type", base + "arguments:\n  - {name: c, type: flaot32, length: N}\n",
			"flaot32", []string{"arguments[0].type", `unknown type "flaot32"`, `did you mean "float32"?`, "expected one of float16, float32, float64"}},
		{"bad fill kind", base + "arguments:\n  - name: c\n    type: float32\n    length: N\n    fill: {randon: {low: 0}}\n",
			"randon", []string{"arguments[0].fill.randon", "unknown field", `did you mean "random"?`}},
		{"bad fill word", base + "arguments:\n  - name: c\n    type: float32\n    length: N\n    fill: ones\n",
			"fill: ones", []string{"arguments[0].fill", `unknown fill "ones"`, "expected zeros, random"}},
		{"fill bounds reversed", base + "arguments:\n  - name: c\n    type: float32\n    length: N\n    fill: {random: {low: 2, high: 1}}\n",
			"low: 2", []string{"arguments[0].fill.random", "low 2 is above high 1"}},
		{"fill out of the type's range", base + "arguments:\n  - name: c\n    type: uint8\n    length: N\n    fill: {constant: 300}\n",
			"300", []string{"arguments[0].fill.constant", "300 is out of range for uint8"}},
		{"negative length", base + "arguments:\n  - name: c\n    type: float32\n    length: -5\n",
			"length: -5", []string{"arguments[0].length", "evaluates to -5", "expected a non-negative whole number of elements"}},
		{"negative length from constants", base + "arguments:\n  - name: c\n    type: float32\n    length: N - 2000\n",
			"N - 2000", []string{"arguments[0].length", "evaluates to -1000", "expected a non-negative whole number of elements"}},
		{"length names an unknown name", base + "arguments:\n  - name: c\n    type: float32\n    length: M * 2\n",
			"M * 2", []string{"arguments[0].length", `unknown name "M"`}},
		{"scalar with a length", base + "arguments:\n  - name: n\n    type: int32\n    value: N\n    length: 3\n",
			"length: 3", []string{"arguments[0].length", "does not apply to a scalar argument"}},
		{"scalar value out of range", base + "arguments:\n  - {name: n, type: int8, value: N}\n",
			"int8", []string{"arguments[0].value", "1000 is out of range for int8"}},
		{"half constant past 65504", base + "arguments:\n  - name: c\n    type: half\n    length: N\n    fill: {constant: 70000}\n",
			"70000", []string{"arguments[0].fill.constant", "70000 is out of range for float16, whose largest finite value is 65504"}},
		{"half random bound past 65504", base + "arguments:\n  - name: c\n    type: float16\n    length: N\n    fill: {random: {low: 0, high: 1e5}}\n",
			"1e5", []string{"arguments[0].fill.random.high", "100000 is out of range for float16"}},
		{"half scalar past 65504", base + "arguments:\n  - {name: x, type: float16, value: N * 100}\n",
			"float16", []string{"arguments[0].value", "N * 100: 100000 is out of range for float16"}},
		{"iterations zero", base + "iterations: 0\n",
			"iterations", []string{"iterations", "0; expected a whole number of timed runs, at least 1"}},
		{"iterations not a number", base + "iterations: many\n",
			"iterations", []string{"iterations", `expected an integer, found the string "many"`}},
		{"unknown statistic", base + "statistic: avg\n",
			"statistic", []string{"statistic", `unknown statistic "avg"`, "expected mean, median or min"}},
		{"timeout without unit", base + "timeout: 10\n",
			"timeout", []string{"timeout", "10 has no unit; expected a positive Go duration such as 10s"}},
		// 0s would be refused in turn.
		{"timeout of zero without unit", base + "timeout: 0\n",
			"timeout", []string{"timeout", "0 has no unit; expected a positive Go duration such as 10s"}},
		{"timeout negative without unit", base + "timeout: -5\n",
			"timeout", []string{"timeout", "-5 has no unit; expected a positive Go duration such as 10s"}},
		{"explicit grid not whole", base + "grid: [\"N / 3\"]\n",
			"grid:", []string{"grid[0]", "evaluates to 333.3333333333333; expected a positive whole number"}},
		{"bad timeout", base + "timeout: 10 seconds\n",
			"timeout", []string{"timeout", "expected a Go duration such as 10s"}},
		{"compile_timeout without unit", base + "compile_timeout: 60\n",
			"compile_timeout", []string{"compile_timeout", "60 has no unit; expected a positive Go duration such as 60s"}},
		{"compile_timeout not positive", base + "compile_timeout: 0s\n",
			"compile_timeout", []string{"compile_timeout", "0s; expected a positive duration"}},
		{"min_time without unit", base + "min_time: 10\n",
			"min_time", []string{"min_time", "10 has no unit; expected a positive Go duration such as 10s"}},
		{"min_time negative", base + "min_time: -5ms\n",
			"min_time", []string{"min_time", "-5ms; expected a positive duration"}},
		{"min_time not a duration", base + "min_time: 10 ms\n",
			"min_time", []string{"min_time", `"10 ms" is not a duration`}},
		{"min_time past the timeout", base + "timeout: 2s\nmin_time: 2s\n",
			"min_time", []string{"min_time", "2s is not shorter than the timeout of 2s, which would end the runs first"}},
		{"min_time past the default timeout", base + "min_time: 1m\n",
			"min_time", []string{"min_time", "1m0s is not shorter than the timeout of 10s"}},
		{"malformed YAML", base + "restrictions: [\"tile > 1\"\nseed: 3\n",
			"restrictions:", []string{"malformed YAML"}},
		{"sequence inside a mapping", base + "seed: 3\n- 4\n",
			"- 4", []string{"malformed YAML", "did not find expected key"}},
		{"tab-indented YAML", base + "seed:\n\t3\n",
			"\t3", []string{"malformed YAML"}},
		{"unknown top-level field", base + "problemsize: [1]\n",
			"problemsize", []string{"problemsize", `unknown field; did you mean "problem_size"?`}},
		{"Kernel Tuner's name", base + "tune_params: {x: [1]}\n",
			"tune_params", []string{"tune_params", "Kernel Tuner's tune_params is parameters here"}},
		{"Kernel Tuner's cmem_args", base + "cmem_args: {filter: f}\n",
			"cmem_args", []string{"cmem_args", "Kernel Tuner's cmem_args is arguments[].kind: constant here"}},
		{"Kernel Tuner's verify", base + "verify: check\n",
			"verify", []string{"verify", "Kernel Tuner's verify is verification.function here"}},
		{"Kernel Tuner's strategy", base + "strategy: genetic_algorithm\n",
			"strategy", []string{"strategy", "Kernel Tuner's strategy is a flag of ktune tune: --strategy NAME"}},
		{"Kernel Tuner's cache", base + "cache: vector_add.json\n",
			"cache", []string{"cache", "Kernel Tuner's cache is the results database (ktune tune --db", "--format kerneltuner"}},
		{"Kernel Tuner's texmem_args", base + "texmem_args: {x: {}}\n",
			"texmem_args", []string{"texmem_args", "not supported: ktune has no texture memory"}},
		{"Kernel Tuner's name inside the kernel", strings.Replace(base, "  language: opencl", "  lang: opencl", 1),
			"lang:", []string{"kernel.lang", "Kernel Tuner's lang is kernel.language here"}},
		{"text as a define's value", strings.Replace(base, "  language: opencl", "  language: opencl\n  defines: {NCOEF: 8, TYPE: float}", 1),
			"TYPE: float", []string{"kernel.defines.TYPE", `unknown name "float"`, "text such as a type name goes in kernel.compiler_options: [-DTYPE=float]"}},
		{"a define's name not a C identifier", strings.Replace(base, "  language: opencl", "  language: opencl\n  defines: {8BIT: 1}", 1),
			"8BIT", []string{"kernel.defines.8BIT", `"8BIT" is not a name the preprocessor can define`}},
		{"an argument named as a define", strings.Replace(base, "  language: opencl", "  language: opencl\n  defines: {n: 8}", 1) + "arguments:\n  - {name: n, type: int32, value: 3}\n",
			"name: n, type", []string{"arguments[0].name", `"n" is also a name of kernel.defines`, "rename one of them"}},
		{"a define's value a list", strings.Replace(base, "  language: opencl", "  language: opencl\n  defines: {L: [1, 2]}", 1),
			"L: [1, 2]", []string{"kernel.defines.L", "expected a number or an expression string, found a list"}},
		{"a reference kernel's argument unknown", base + "arguments: [{name: c, type: float32, length: N, output: true}, {name: n, type: int32, value: N}]\nverification:\n  reference:\n    kernel: {name: ref, code: k, arguments: [c, nn]}\n",
			"arguments: [c, nn]", []string{"verification.reference.kernel.arguments[1]", `no argument "nn"; did you mean "n"?`}},
		{"a reference kernel without the compared output", base + "arguments: [{name: c, type: float32, length: N, output: true}, {name: n, type: int32, value: N}]\nverification:\n  reference:\n    kernel: {name: ref, code: k, arguments: [n]}\n",
			"arguments: [n]", []string{"verification.reference.kernel.arguments", "the reference takes no c, a compared output, so it cannot compute it"}},
		{"a reference kernel's argument twice", base + "arguments: [{name: c, type: float32, length: N, output: true}, {name: n, type: int32, value: N}]\nverification:\n  reference:\n    kernel: {name: ref, code: k, arguments: [c, n, c]}\n",
			"arguments: [c, n, c]", []string{"verification.reference.kernel.arguments[2]", `"c" is given twice`}},
		{"arguments of the tuned kernel", strings.Replace(base, "  language: opencl", "  language: opencl\n  arguments: [c]", 1),
			"arguments: [c]", []string{"kernel.arguments", "unknown field"}},
		{"a reference kernel in another device language", base + "arguments: [{name: c, type: float32, length: N, output: true}]\nverification:\n  reference:\n    kernel: {name: ref, source: ref.cu}\n",
			"kernel: {name: ref", []string{"verification.reference.kernel.language", "cuda, but the kernel is opencl: a reference kernel runs on the kernel's device, so write it in opencl, or in C or C++, which run once on the host"}},
		{"a device reference of a host kernel", "kernel: {name: k, language: c, code: \"void k(float *c) {}\"}\nparameters: {p: [1]}\nproblem_size: 1\narguments: [{name: c, type: float32, length: 4, output: true}]\nverification:\n  reference:\n    kernel: {name: ref, source: ref.cl}\n",
			"kernel: {name: ref", []string{"verification.reference.kernel.language", "opencl, but the kernel is c: a host kernel's reference runs on the host too; write it in C or C++"}},
		{"a host reference with a grid", base + "arguments: [{name: c, type: float32, length: N, output: true}]\nverification:\n  reference:\n    kernel:\n      name: ref\n      source: ref.c\n      grid: [N]\n",
			"grid: [N]", []string{"verification.reference.kernel.grid", "a C reference runs once on the host, called as a plain function, which has no grid: leave it out"}},
		{"a host reference with a block", base + "arguments: [{name: c, type: float32, length: N, output: true}]\nverification:\n  reference:\n    kernel:\n      name: ref\n      language: c++\n      code: k\n      block: [16]\n",
			"block: [16]", []string{"verification.reference.kernel.block", "a C++ reference runs once on the host", "which has no block"}},
		{"a host reference of a kernel with local memory", base + "arguments: [{name: c, type: float32, length: N, output: true}, {name: t, kind: local, type: float32, length: block_size_x}]\nverification:\n  reference:\n    kernel: {name: ref, source: ref.c}\n",
			"kernel: {name: ref", []string{"verification.reference.kernel.arguments", "missing; the reference runs on the host, where local memory (t) has no meaning: list the arguments it takes"}},
		{"a host reference taking local memory", base + "arguments: [{name: c, type: float32, length: N, output: true}, {name: t, kind: local, type: float32, length: block_size_x}]\nverification:\n  reference:\n    kernel: {name: ref, source: ref.c, arguments: [c, t]}\n",
			"arguments: [c, t]", []string{"verification.reference.kernel.arguments[1]", `"t" is local memory, which has no meaning on the host`, "leave it out"}},
		{"unknown kernel field", strings.Replace(base, "  language: opencl", "  langauge: opencl", 1),
			"langauge", []string{"kernel.langauge", `did you mean "language"?`}},
		{"unknown language", strings.Replace(base, "language: opencl", "language: openCL2", 1),
			"openCL2", []string{"kernel.language", `unknown language "openCL2"`, "expected opencl, cuda, c or c++"}},
		{"duplicate parameter", strings.Replace(base, "problem_size: [N]\n", "  - {name: tile, values: [4]}\nproblem_size: [N]\n", 1),
			"values: [4]", []string{"parameters[2].name", `parameter "tile" is defined twice`}},
		{"empty values", strings.Replace(base, "values: [1, 2]", "values: []", 1),
			"values: []", []string{"parameters[1].values", "empty; expected at least one value"}},
		{"bad value expression", strings.Replace(base, "values: [1, 2]", `values: "[2**i for i in rang(3)]"`, 1),
			"rang(3)", []string{"parameters[1].values", "unknown function"}},
		{"mixed value kinds", strings.Replace(base, "values: [1, 2]", "values: [1, two]", 1),
			"[1, two]", []string{"parameters[1].values", "mixes strings and numbers"}},
		{"parameter name not an identifier", strings.Replace(base, "name: tile", "name: tile-size", 1),
			"tile-size", []string{"parameters[1].name", "not a valid identifier"}},
		{"parameter named by a reserved word", strings.Replace(base, "name: tile", "name: lambda", 1),
			"lambda", []string{"parameters[1].name", `"lambda" is a reserved word in expressions`, "choose another name"}},
		{"parameter named by a C keyword", strings.Replace(base, "name: tile", "name: int", 1),
			"name: int", []string{"parameters[1].name", `"int" is a keyword of C, and ktune #defines every parameter`}},
		// the kernel's function would be renamed in its source: host C failed every
		// configuration with errors "in expansion of macro", some in ktune's call wrapper
		{"parameter named as the kernel", strings.Replace(base, "name: tile", "name: vector_add", 1),
			"- name: vector_add", []string{"parameters[1].name", `"vector_add" is the kernel's name, and ktune #defines every parameter`}},
		{"constant named by a reserved word", strings.Replace(base, "{N: 1000}", "{N: 1000, None: 3}", 1),
			"constants:", []string{"constants.None", `"None" is a reserved word in expressions`}},
		{"argument named as a parameter", base + "arguments:\n  - {name: tile, type: int32, value: 3}\n",
			"name: tile, type", []string{"arguments[0].name", `"tile" is also the name of tunable parameter "tile", which ktune #defines`, "rename one of them"}},
		{"argument named as a block size", base + "arguments:\n  - {name: block_size_y, type: int32, value: 3}\n",
			"name: block_size_y, type", []string{"arguments[0].name", "a block size name"}},
		{"a constant's name as a bare value", strings.Replace(base, "values: [1, 2]", "values: [1, N]", 1),
			"[1, N]", []string{"parameters[1].values[1]", `N is a constant (1000), and unquoted in a list of values it is the string "N"`, `write values: "[1, N]" to use its value, or quote it ('N')`}},
		{"a constant's name as a bare value, mapping form", strings.Replace(base, "parameters:\n  - name: block_size_x\n    values: [32, 64, 128]\n  - name: tile\n    values: [1, 2]\n", "parameters:\n  block_size_x: [32]\n  tile: [N, two]\n", 1),
			"[N, two]", []string{"parameters.tile.values[0]", "N is a constant (1000)", `write values: "[N]"`}},
		{"value list reads an unknown name", strings.Replace(base, "values: [1, 2]", `values: "[M]"`, 1),
			`"[M]"`, []string{"parameters[1].values", `unknown name "M"`}},
		{"constant shadows a parameter", strings.Replace(base, "{N: 1000}", "{N: 1000, tile: 3}", 1),
			"constants:", []string{"constants.tile", "also a parameter name"}},
		{"grid and grid_div", base + "grid: [10]\ngrid_div_x: [block_size_x]\n",
			"grid_div_x", []string{"grid_div_x", "cannot be combined with an explicit grid"}},
		{"problem size missing", strings.Replace(base, "problem_size: [N]\n", "", 1),
			"", []string{"problem_size", "missing; expected 1 to 3 sizes"}},
		{"four problem sizes", strings.Replace(base, "problem_size: [N]", "problem_size: [N, 1, 1, 1]", 1),
			"problem_size", []string{"problem_size", "4 items; expected 1 to 3"}},
		{"unknown metric name in objective", base + "metrics:\n  - {name: GFLOPs, expr: \"N / time\"}\nobjective: GFLOP/s\n",
			"objective:", []string{"objective", `unknown objective "GFLOP/s"`, `did you mean "GFLOPs"?`}},
		{"metric reads an unknown name", base + "metrics:\n  - {name: GFLOPs, expr: \"N / tme\"}\n",
			"tme", []string{"metrics[0].expr", `unknown name "tme"`, `did you mean "time"?`}},
		{"default config where a restriction overflows", base + "restrictions: [\"tile * 2**53 + 1 > 0\"]\ndefault_config: {block_size_x: 32, tile: 1}\n",
			"default_config", []string{"default_config", `the restriction "tile * 2**53 + 1 > 0" cannot be computed here: an integer result reaches 2**53`}},
		{"default config violates a restriction", base + "restrictions: [\"block_size_x * tile <= 128\"]\ndefault_config: {block_size_x: 128, tile: 2}\n",
			"default_config", []string{"default_config", `violates the restriction "block_size_x * tile <= 128"`}},
		{"default config value not a value", base + "default_config: {block_size_x: 48, tile: 2}\n",
			"default_config", []string{"default_config.block_size_x", "48 is not one of the parameter's values"}},
		{"default config incomplete", base + "default_config: {block_size_x: 32}\n",
			"default_config", []string{"default_config", `no value for parameter "tile"`}},
		{"default config typo", base + "default_config: {block_size_x: 32, tlie: 1}\n",
			"default_config", []string{"default_config.tlie", `did you mean "tile"?`}},
		{"verification of a non-output", base + "arguments:\n  - {name: c, type: float32, length: N}\nverification:\n  reference: {npy: {c: c.npy}}\n  outputs: [c]\n",
			"outputs: [c]", []string{"verification.outputs[0]", `argument "c" is not an output`}},
		{"verification without reference", base + "arguments:\n  - {name: c, type: float32, length: N, output: true}\nverification:\n  atol: 0.1\n",
			"verification:", []string{"verification.reference", "missing"}},
		{"negative tolerance", base + "arguments:\n  - {name: c, type: float32, length: N, output: true}\nverification:\n  reference: {npy: {c: c.npy}}\n  atol: -1\n",
			"atol", []string{"verification.atol", "expected a non-negative tolerance"}},
		{"reference config typo", base + "arguments:\n  - {name: c, type: float32, length: N, output: true}\nverification:\n  reference: {config: {block_size: 32, tile: 1}}\n",
			"reference:", []string{"verification.reference.config.block_size", `did you mean "block_size_x"?`}},
		{"block size name no parameter has", base + "block_size_names: [block_sizex]\n",
			"block_size_names", []string{"block_size_names[0]", `"block_sizex" is no parameter`, "x block size would always be 1", `did you mean "block_size_x"?`}},
		{"grid divisor of a dimension the problem lacks", base + "grid_div_y: [tile]\n",
			"grid_div_y", []string{"grid_div_y", "the problem has 1 dimension", "add the size to problem_size or remove grid_div_y"}},
		{"openmp on opencl", strings.Replace(base, "  language: opencl\n", "  language: opencl\n  openmp: true\n", 1),
			"openmp: true", []string{"kernel.openmp", "only applies to languages c and c++"}},
		{"tab indent", base + "seed:\n\t1\n", "\t1", []string{"malformed YAML", "a tab indents this line"}},
		{"empty spec", "", "", []string{"empty spec"}},
		{"not a mapping", "- 1\n- 2\n", "- 1", []string{"expected a mapping"}},
		{"given twice", base + "seed: 1\nseed: 2\n", "seed: 2", []string{"seed", "given twice"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.src), "bad.yaml")
			if err == nil {
				t.Fatal("accepted")
			}
			msg := err.Error()
			prefix := "bad.yaml"
			if tt.at != "" {
				prefix += ":" + strconv.Itoa(lineOf(t, tt.src, tt.at))
			}
			if !strings.Contains(msg, prefix+": ") && !strings.Contains(msg, prefix+":") {
				t.Errorf("message does not start with %q:\n%s", prefix, msg)
			}
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("message lacks %q:\n%s", w, msg)
				}
			}
			if tt.at != "" && !strings.Contains(msg, prefix+": "+tt.want[0]) && !strings.Contains(msg, prefix+": malformed") {
				t.Errorf("message does not read %q:\n%s", prefix+": "+tt.want[0], msg)
			}
			var se *Error
			if !errors.As(err, &se) || se.File != "bad.yaml" {
				t.Errorf("not a *spec.Error naming the file: %#v", err)
			}
		})
	}
}

func TestJSONSyntaxErrorsHaveALine(t *testing.T) {
	src := "{\n  \"kernel\": {\"name\": \"k\", \"source\": \"k.cl\"},\n  \"parameters\": [\n    {\"name\": \"x\", \"values\": [1, 2]},,\n  ]\n}\n"
	_, err := Parse([]byte(src), "bad.json")
	if err == nil || !strings.Contains(err.Error(), "bad.json:4: malformed JSON at column 38") {
		t.Errorf("got %v", err)
	}
}

func TestManyProblemsAreReportedTogether(t *testing.T) {
	src := base + "iterations: 0\nstatistic: avg\nseed: -1\n"
	_, err := Parse([]byte(src), "bad.yaml")
	if err == nil {
		t.Fatal("accepted")
	}
	for _, f := range []string{"iterations", "statistic", "seed"} {
		if !strings.Contains(err.Error(), ": "+f+": ") {
			t.Errorf("%s not reported:\n%v", f, err)
		}
	}
}

func TestLoadReportsMissingSourcesAndBadNPY(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if err := WriteNPYFile(filepath.Join(dir, "in.npy"), &Array{Type: "float64", Shape: []int{4}, Data: make([]byte, 32)}); err != nil {
		t.Fatal(err)
	}
	p := write("spec.yaml", `
kernel: {name: k, source: missing.cl}
parameters: {block_size_x: [1]}
problem_size: 4
arguments:
  - {name: a, type: float32, length: 4, fill: {npy: in.npy}}
`)
	_, err := Load(p)
	if err == nil {
		t.Fatal("accepted")
	}
	for _, w := range []string{"spec.yaml:2: kernel.source: open ", "missing.cl", "spec.yaml:6: arguments[0].fill.npy", "holds float64, but argument \"a\" is float32; give the argument type: float64, or save the array as float32 (numpy: a.astype(numpy.float32))"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("lacks %q:\n%v", w, err)
		}
	}
	write("k.cl", "__kernel void k(__global float *a) {}")
	p = write("spec2.yaml", `
kernel: {name: k, source: k.cl}
parameters: {block_size_x: [1]}
problem_size: 4
arguments:
  - {name: a, type: float64, length: 5, fill: {npy: in.npy}}
`)
	if _, err := Load(p); err == nil || !strings.Contains(err.Error(), "holds 4 elements (shape [4]), but argument \"a\" has length 5") {
		t.Errorf("got %v", err)
	}
	// A length of a million was printed 1.048576e+06; it is the whole number, with the
	// expression that gave it.
	p = write("spec2m.yaml", `
kernel: {name: k, source: k.cl}
constants: {N: 1024}
parameters: {block_size_x: [1]}
problem_size: 4
arguments:
  - {name: a, type: float64, length: N * N, fill: {npy: in.npy}}
`)
	if _, err := Load(p); err == nil || !strings.Contains(err.Error(), "holds 4 elements (shape [4]), but argument \"a\" has length N * N = 1048576") {
		t.Errorf("got %v", err)
	}
	// a file of a list is named by its index, at its own line
	p = write("spec3.yaml", `
kernel:
  name: k
  source:
    - k.cl
    - gone.cl
parameters: {block_size_x: [1]}
problem_size: 4
arguments:
  - {name: a, type: float64, length: 4, fill: {npy: in.npy}}
`)
	if _, err := Load(p); err == nil || !strings.Contains(err.Error(), "spec3.yaml:6: kernel.source[1]: open ") {
		t.Errorf("got %v", err)
	}
}

func TestNPYReference(t *testing.T) {
	dir := t.TempDir()
	if err := WriteNPYFile(filepath.Join(dir, "c.npy"), &Array{Type: "float32", Shape: []int{2, 2}, Data: make([]byte, 16)}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "k.cl"), []byte("__kernel void k(__global float *c) {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := func(typ string) string {
		p := filepath.Join(dir, typ+".yaml")
		src := "kernel: {name: k, source: k.cl}\nparameters: {block_size_x: [1, 2]}\nproblem_size: 4\n" +
			"arguments:\n  - {name: c, type: " + typ + ", length: 4, output: true}\n  - {name: d, type: float32, length: 4, output: true}\n" +
			"verification:\n  reference: {npy: {c: c.npy}}\n  outputs: [c]\n"
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	s, err := Load(spec("float32"))
	if err != nil {
		t.Fatal(err)
	}
	v := s.Verification
	if !reflect.DeepEqual(v.Outputs, []int{0}) || v.NPY[0] != filepath.Join(dir, "c.npy") || v.Atol != DefaultAtol || v.Rtol != DefaultRtol || v.Kernel != nil {
		t.Errorf("verification %+v", v)
	}
	if _, ok := s.ReferenceSource(); ok {
		t.Error("an npy reference has no reference kernel")
	}
	if _, err := Load(spec("int32")); err == nil || !strings.Contains(err.Error(), "verification.reference.npy.c") || !strings.Contains(err.Error(), "holds float32, but argument \"c\" is int32") {
		t.Errorf("type mismatch: %v", err)
	}
	// Outputs default to every output argument; each needs a file.
	_, err = Parse([]byte("kernel: {name: k, source: k.cl}\nparameters: {x: [1]}\nproblem_size: 4\n"+
		"arguments:\n  - {name: c, type: float32, length: 4, output: true}\n  - {name: d, type: float32, length: 4, output: true}\n"+
		"verification:\n  reference: {npy: {c: c.npy}}\n"), "v.yaml")
	if err == nil || !strings.Contains(err.Error(), `no file for output "d"`) {
		t.Errorf("missing npy for an output: %v", err)
	}
}

// TestArgumentsMayUseExpressionKeywords: an argument is named as in the kernel, and names
// such as in or is are common there; expressions never read arguments.
func TestArgumentsMayUseExpressionKeywords(t *testing.T) {
	s := mustParse(t, base+"arguments:\n  - {name: out, type: float32, length: N, output: true}\n  - {name: in, type: float32, length: N}\n  - {name: is, type: int32, value: 2}\n")
	if len(s.Arguments) != 3 || s.Arguments[1].Name != "in" || s.Arguments[2].Name != "is" {
		t.Errorf("arguments %+v", s.Arguments)
	}
	// with kernel.defines false, nothing is #defined, so a parameter's name is free too
	s = mustParse(t, strings.Replace(base, "  language: opencl\n", "  language: opencl\n  defines: false\n", 1)+
		"arguments:\n  - {name: tile, type: int32, value: 3}\n")
	if len(s.Arguments) != 1 {
		t.Errorf("arguments %+v", s.Arguments)
	}
}

func TestSpaceReportsAnEmptySpace(t *testing.T) {
	s := mustParse(t, base+"restrictions: [\"tile > 5\"]\n")
	if _, err := s.Space(); err == nil || !strings.Contains(err.Error(), "the space is empty") {
		t.Errorf("got %v", err)
	}
	// the restriction that no configuration satisfies on its own is named; one that
	// empties the space only with the others is not
	s = mustParse(t, base+"restrictions: [\"tile > 5\", \"tile >= 1\"]\n")
	_, err := s.Space()
	var se *Error
	if !errors.As(err, &se) || !strings.Contains(err.Error(), `no configuration satisfies restrictions[0] "tile > 5" even on its own`) ||
		strings.Contains(err.Error(), "restrictions[1]") {
		t.Errorf("got %v", err)
	}
	// a restriction that raises for every value (as Python would) is said to, not to be
	// a comparison that never holds; one that raises for some values only is not
	for _, c := range []struct{ src, want string }{
		{"block_size_x // (tile - tile) > 2", `restrictions[0] "block_size_x // (tile - tile) > 2" raises for every value, as Python would`},
		{"block_size_x // (tile - 1) > 200", `no configuration satisfies restrictions[0] "block_size_x // (tile - 1) > 200" even on its own (a comparison`},
	} {
		s = mustParse(t, base+"restrictions: [\""+c.src+"\"]\n")
		if _, err = s.Space(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want it to say %s", c.src, err, c.want)
		}
	}
	// a restriction that cannot be computed is the reason given, alone: the space is not
	// empty, it is not built
	s = mustParse(t, base+"restrictions: [\"tile ** 60 > 0\"]\n")
	_, err = s.Space()
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "2**53") || strings.Contains(err.Error(), "on its own") ||
		strings.Contains(err.Error(), "empty") {
		t.Errorf("got %v", err)
	}
}

// A space whose index would pass the memory bound is a *space.TooLargeError, which names
// the restriction and which the caller prefixes with the file, not an empty space.
func TestSpaceTooLargeForItsMemoryBound(t *testing.T) {
	s := mustParse(t, base+"restrictions: [\"block_size_x * tile != 64\"]\n")
	if _, err := s.SpaceContext(context.Background(), space.BuildOptions{MaxBytes: 1}); err == nil {
		t.Fatal("built a space in 1 byte")
	} else if tl := (*space.TooLargeError)(nil); !errors.As(err, &tl) || !strings.Contains(err.Error(), `"block_size_x * tile != 64"`) {
		t.Errorf("got %v, want a *space.TooLargeError naming the restriction", err)
	}
	if sp, err := s.SpaceContext(context.Background(), space.BuildOptions{}); err != nil || sp.Len() != 4 {
		t.Errorf("with the default bound: %v, want the 4 configurations", err)
	}
}

func TestMetricsEvaluate(t *testing.T) {
	s := mustParse(t, `
kernel: {name: matmul, source: matmul.cu}
constants: {N: 1000}
parameters:
  - {name: block_size_x, values: [16, 32]}
  - {name: tile, values: [1, 2]}
problem_size: [N, N]
metrics:
  - {name: GFLOP/s, expr: "2*N**3 / (time/1e3) / 1e9", maximize: true}
  - {name: gflops, expr: "2*N**3 / (time/1e3) / 1e9"}
  - {name: per_thread, expr: "gflops / (block_size_x * grid_size_x * grid_size_y * tile)"}
  - {name: half_time, expr: "time / 2"}
objective: half_time
`)
	vals := []space.Value{space.IntValue(32), space.IntValue(2)}
	got, err := s.MetricValues(vals, 2.0, nil)
	if err != nil {
		t.Fatal(err)
	}
	// 2e9 flop in 2 ms: 1000 GFLOP/s. Grid: ceil(1000/32) = 32 by 1000 (no block_size_y).
	want := map[string]float64{"GFLOP/s": 1000, "gflops": 1000, "per_thread": 1000.0 / (32 * 32 * 1000 * 2), "half_time": 1}
	for k, w := range want {
		if math.Abs(got[k]-w) > 1e-12*math.Abs(w) {
			t.Errorf("%s = %v, want %v", k, got[k], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %v", got)
	}
	if name, max := s.Objective(); name != "half_time" || max {
		t.Errorf("objective %s %v", name, max)
	}
	if _, err := s.MetricValues(vals, 0, nil); err == nil || !strings.Contains(err.Error(), "metrics[0].expr") {
		t.Errorf("division by zero time: %v", err)
	}
}

func TestMetricsInKernelTunerMappingForm(t *testing.T) {
	s := mustParse(t, `
kernel: {name: k, source: k.cu}
parameters: {x: [1]}
problem_size: 8
metrics:
  GB/s: "8 * 4 / (time / 1e3) / 1e9"
  rate: {expr: "1 / time", maximize: true}
objective: rate
`)
	want := []Metric{{Name: "GB/s", Expr: "8 * 4 / (time / 1e3) / 1e9", Maximize: true},
		{Name: "rate", Expr: "1 / time", Maximize: true, MaximizeWritten: true}}
	if !slices.Equal(s.Metrics, want) {
		t.Errorf("metrics %+v, want %+v", s.Metrics, want)
	}
	if _, max := s.Objective(); !max {
		t.Error("rate should be maximised")
	}
}

// A metric whose maximize is not written takes its direction from its name, by the rule
// that gives an imported file's objective its direction (result.HigherIsBetter): rates are
// maximised, anything else minimised. A written maximize always wins. Before, an unwritten
// maximize was false, so that 'ktune tune' minimised a GB/s that 'ktune import' of the same
// measurements maximised.
func TestMetricDirectionFollowsTheNameUnlessWritten(t *testing.T) {
	tests := []struct {
		name, maximize string // maximize as written in the spec; "" for none
		want           bool
	}{
		{"GB/s", "", true},
		{"GFLOP/s", "", true},
		{"GFLOPS", "", true},
		{"GFLOPS/W", "", true},
		{"throughput", "", true},
		{"bandwidth_GBps", "", true},
		{"gbps", "", true},
		{"MBps", "", true},
		{"items_per_second", "", true},
		{"steps", "", false},
		{"score", "", false},
		{"energy_per_item", "", false},
		{"half_time", "", false},
		{"ns/step", "", false},
		{"ms_per_sample", "", false},
		{"GB/s", "false", false},
		{"score", "true", true},
		{"half_time", "true", true},
	}
	for _, tt := range tests {
		list, mapping := "{name: "+tt.name+", expr: \"1 / time\"}", tt.name+": {expr: \"1 / time\"}"
		if tt.maximize != "" {
			list = strings.Replace(list, "}", ", maximize: "+tt.maximize+"}", 1)
			mapping = strings.Replace(mapping, "}", ", maximize: "+tt.maximize+"}", 1)
		}
		for _, metrics := range []string{"\n  - " + list, "\n  " + mapping, " {" + tt.name + ": \"1 / time\"}"} {
			if tt.maximize != "" && !strings.Contains(metrics, "maximize") {
				continue // the plain mapping form cannot write maximize
			}
			s := mustParse(t, "kernel: {name: k, source: k.cu}\nparameters: {x: [1]}\nproblem_size: 8\nmetrics:"+metrics+"\nobjective: "+tt.name+"\n")
			m := s.Metrics[0]
			if m.Maximize != tt.want || m.MaximizeWritten != (tt.maximize != "") {
				t.Errorf("metrics:%s: maximize %v (written %v), want %v", metrics, m.Maximize, m.MaximizeWritten, tt.want)
			}
			if _, max := s.Objective(); max != tt.want {
				t.Errorf("metrics:%s: the objective is maximised: %v, want %v", metrics, max, tt.want)
			}
		}
	}
}

// TestDocExampleIsAValidSpec keeps the help text honest: its example parses and builds.
func TestDocExampleIsAValidSpec(t *testing.T) {
	start := strings.Index(Doc, "\n---\n")
	end := strings.Index(Doc, "\n...\n")
	if start < 0 || end < start {
		t.Fatal("Doc has no ---/... delimited example")
	}
	s, err := Parse([]byte(Doc[start+1:end+5]), "doc.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sp, err := s.Space()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Instance(s.Default); err != nil {
		t.Fatal(err)
	}
	m, err := s.MetricValues(sp.Values(sp.At(0, nil)), 1, map[string]float64{"power": 250})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(m["GFLOPS/W"]*250-m["GFLOP/s"]) > 1e-9*m["GFLOP/s"] {
		t.Fatalf("metrics %v", m)
	}
	for _, f := range topFields {
		if !strings.Contains(Doc, "\n"+f+":") && !strings.Contains(Doc, "#   "+f+":") {
			t.Errorf("Doc does not show %s", f)
		}
	}
}

// The variants Doc shows in its comments parse as the example around them: statistic
// min, Kernel Tuner's defines mapping, a reference kernel with a launch and arguments of
// its own, a reference configuration and a C reference on the host; and every field of the parser's sub-mappings is
// named in Doc.
func TestDocVariantsParse(t *testing.T) {
	start := strings.Index(Doc, "\n---\n")
	end := strings.Index(Doc, "\n...\n")
	example := Doc[start+1 : end+5]
	variants := []struct{ prefix, line string }{
		{"statistic: mean", "statistic: min"},
		{"  defines: true", `  defines: {NCOEF: 8, TILE: tile_size_x, WPT: "block_size_x * tile_size_x"}`},
		{"    kernel: {name: matmul_naive", "    kernel: {name: matmul_naive, source: naive.cu, block: [16, 16], arguments: [C, A, B]}"},
		{"    kernel: {name: matmul_naive", "    config: {block_size_x: 16, block_size_y: 1, tile_size_x: 1}"},
		{"    kernel: {name: matmul_naive", "    kernel: {name: matmul_ref, source: reference.c, arguments: [C, A, B, n]}"},
	}
	for _, v := range variants {
		lines := strings.Split(example, "\n")
		found := false
		for i, l := range lines {
			if strings.HasPrefix(l, v.prefix) {
				lines[i], found = v.line, true
			}
		}
		if !found {
			t.Errorf("Doc's example has no line %q", v.prefix)
			continue
		}
		if !strings.Contains(Doc, strings.TrimSpace(strings.SplitN(v.line, "{", 2)[0])) {
			t.Errorf("Doc does not show %q", v.line)
		}
		s, err := Parse([]byte(strings.Join(lines, "\n")), "doc.yaml")
		if err != nil {
			t.Errorf("%s: %v", v.line, err)
			continue
		}
		if _, err := s.Instance(s.Default); err != nil {
			t.Errorf("%s: %v", v.line, err)
		}
	}
	for _, f := range []string{
		"name:", "language:", "source:", "code:", "compiler_options:", "defines:", "openmp:",
		"block:", "grid:", "arguments:", "kind:", "type:", "length:", "value:", "fill:",
		"output:", "zeros", "random", "constant", "range", "npy", "distribution", "low",
		"high", "mean", "stddev", "seed", "start", "step", "reference:", "outputs:", "atol:",
		"rtol:", "config", "expr:", "maximize:", "values:", "min_time:", "statistic:",
		"| min", "c++", "cpp", "cxx",
	} {
		if !strings.Contains(Doc, f) {
			t.Errorf("Doc does not name %s", f)
		}
	}
}

func TestObservablesFeedMetricsAndTheObjective(t *testing.T) {
	const base = `
kernel: {name: k, language: cuda, code: "x"}
constants: {N: 1000}
parameters: [{name: block_size_x, values: [32, 64]}]
problem_size: [N]
arguments: [{name: x, type: float32, length: N}]
`
	s, err := Parse([]byte(base+`
metrics:
  - {name: gflops, expr: "N / (time / 1e3) / 1e9", maximize: true}
  - {name: GFLOPS/W, expr: "gflops / power", maximize: true}
  - {name: joules, expr: "energy * 1"}
objective: GFLOPS/W
`), "obs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Observes(); !slices.Equal(got, []string{"energy", "power"}) {
		t.Fatalf("Observes = %v", got)
	}
	vals := []space.Value{space.IntValue(32)}
	m, err := s.MetricValues(vals, 0.001, map[string]float64{"power": 100, "energy": 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(m["GFLOPS/W"]-0.01) > 1e-12 || m["joules"] != 0.5 {
		t.Fatalf("metrics %v", m)
	}
	_, err = s.MetricValues(vals, 0.001, map[string]float64{"energy": 0.5})
	if err == nil || !strings.Contains(err.Error(), "reads power, which this device does not measure") {
		t.Fatalf("a missing observable: %v", err)
	}
	// Only CUDA devices measure these: another backend is refused before tuning, naming
	// what reads them.
	if err := s.Unmeasured("cuda"); err != nil {
		t.Errorf("cuda: %v", err)
	}
	err = s.Unmeasured("opencl")
	var se *Error
	if !errors.As(err, &se) || se.Field != "metrics[2]" || se.Line != 11 ||
		!strings.Contains(err.Error(), `metric "GFLOPS/W" reads "power", which only cuda devices measure`) ||
		!strings.Contains(err.Error(), `metric "joules" reads "energy"`) || !strings.Contains(err.Error(), "the opencl backend measures none") {
		t.Errorf("opencl: %v", err)
	}

	// An observable may be the objective itself, lower being better.
	s, err = Parse([]byte(base+"objective: energy\n"), "obs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if name, max := s.Objective(); name != "energy" || max || !slices.Equal(s.Observes(), []string{"energy"}) {
		t.Fatalf("objective %s %v, observes %v", name, max, s.Observes())
	}
	if err := s.Unmeasured("c"); !errors.As(err, &se) || se.Field != "objective" || !strings.Contains(err.Error(), `the objective reads "energy"`) {
		t.Errorf("c: %v", err)
	}
	// A parameter or metric of an observable's name keeps its meaning.
	s, err = Parse([]byte(`
kernel: {name: k, language: cuda, code: "x"}
parameters: [{name: power, values: [1, 2]}]
problem_size: [8]
arguments: [{name: x, type: float32, length: 8}]
metrics: [{name: twice, expr: "power * 2"}]
`), "obs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Observes()) != 0 {
		t.Fatalf("a parameter named power is observed: %v", s.Observes())
	}
	if m, err := s.MetricValues([]space.Value{space.IntValue(2)}, 1, nil); err != nil || m["twice"] != 4 {
		t.Fatalf("%v %v", m, err)
	}
	if _, err := Parse([]byte(base+"objective: energyy\n"), "obs.yaml"); err == nil || !strings.Contains(err.Error(), "energy") {
		t.Fatalf("a misspelt observable: %v", err)
	}
}

func TestConstantArgumentsAreCUDAs(t *testing.T) {
	spec := func(lang string) string {
		return `
kernel: {name: k, language: ` + lang + `, code: "x"}
parameters: [{name: block_size_x, values: [32]}]
problem_size: [16]
arguments:
  - {name: out, type: float32, length: 16, output: true}
  - {name: coef, kind: constant, type: float32, length: 4, fill: {range: {start: 1, step: 1}}}
`
	}
	s, err := Parse([]byte(spec("cuda")), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	inst, err := s.Instance([]space.Value{space.IntValue(32)})
	if err != nil {
		t.Fatal(err)
	}
	if a := inst.Args[1]; a.Kind != ArgConstant || a.Length != 4 || a.Bytes != 16 {
		t.Fatalf("constant argument %+v", a)
	}
	data, err := s.Generate(1, 4)
	if err != nil || math.Float32frombits(uint32(data[12])|uint32(data[13])<<8|uint32(data[14])<<16|uint32(data[15])<<24) != 4 {
		t.Fatalf("constant contents %v %v", data, err)
	}
	_, err = Parse([]byte(spec("opencl")), "c.yaml")
	if err == nil || !strings.Contains(err.Error(), "arguments[1].kind") || !strings.Contains(err.Error(), "CUDA's") {
		t.Fatalf("a constant argument for OpenCL: %v", err)
	}
	_, err = Parse([]byte(strings.Replace(spec("cuda"), "fill: {range: {start: 1, step: 1}}", "output: true", 1)), "c.yaml")
	if err == nil || !strings.Contains(err.Error(), "does not apply to a constant argument") {
		t.Fatalf("an output constant: %v", err)
	}
}

// Local memory arguments are OpenCL's and dynamic shared memory is CUDA's: the other
// backends refuse the one at every launch and ignore the other, so a spec that asks for
// them in another language is refused at the line that does, saying what to write instead.
func TestLocalMemoryIsOpenCLsAndSharedMemoryCUDAs(t *testing.T) {
	const src = `kernel: {name: k, language: %s, code: "x"}
parameters: [{name: block_size_x, values: [32]}]
problem_size: [16]
arguments:
  - {name: out, type: float32, length: 16, output: true}
%s`
	const local = "  - {name: tile, kind: local, type: float32, length: block_size_x}\n"
	const shared = "shared_memory_bytes: block_size_x * 4\n"
	tests := []struct {
		language, extra string
		at              string   // the line the error names; "" when the spec is valid
		want            []string // substrings of the message
	}{
		{"opencl", local, "", nil},
		{"cuda", shared, "", nil},
		{"cuda", local, "kind: local", []string{`arguments[1].kind: argument "tile": local memory arguments are OpenCL's`, "not cuda", "shared_memory_bytes", "__shared__"}},
		{"c", local, "kind: local", []string{`arguments[1].kind: argument "tile": local memory arguments are OpenCL's`, "not c", "declare the array in the kernel"}},
		{"opencl", shared, "shared_memory_bytes", []string{"shared_memory_bytes: dynamic shared memory is CUDA's, not opencl", "kind: local", "remove shared_memory_bytes"}},
		{"c", shared, "shared_memory_bytes", []string{"shared_memory_bytes: dynamic shared memory is CUDA's, not c", "declare arrays in the kernel"}},
	}
	for _, tt := range tests {
		spec := fmt.Sprintf(src, tt.language, tt.extra)
		s, err := Parse([]byte(spec), "mem.yaml")
		if tt.at == "" {
			if err != nil {
				t.Errorf("%s with %q: %v", tt.language, tt.extra, err)
				continue
			}
			in, err := s.Instance([]space.Value{space.IntValue(32)})
			if err != nil {
				t.Fatal(err)
			}
			switch tt.language {
			case "cuda":
				if in.Launch.SharedBytes != 128 {
					t.Errorf("cuda: %d bytes of shared memory, want 128", in.Launch.SharedBytes)
				}
			case "opencl":
				if a := in.Args[1]; a.Kind != ArgLocal || a.Bytes != 128 {
					t.Errorf("opencl: local argument %+v, want 128 bytes of local memory", a)
				}
			}
			continue
		}
		prefix := fmt.Sprintf("mem.yaml:%d: ", lineOf(t, spec, tt.at))
		if err == nil || !strings.HasPrefix(err.Error(), prefix) {
			t.Errorf("%s with %q: %v, want an error starting %q", tt.language, tt.extra, err, prefix)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s with %q: the message lacks %q:\n%v", tt.language, tt.extra, w, err)
			}
		}
	}
}

// Restrictions read the spec's constants, as the other expressions do ('ktune help spec'),
// and are stored with the constants bound to their values.
func TestRestrictionsReadConstants(t *testing.T) {
	s, err := Parse([]byte(`kernel: {name: k, language: opencl, code: "__kernel void k() {}"}
constants: {N: 100000, W: N / 1000}
parameters:
  - {name: block_size_x, values: [32, 64, 128]}
  - {name: tile_size_x, values: [1, 2, 4]}
restrictions: ["N % (block_size_x * tile_size_x) == 0", "tile_size_x < W"]
problem_size: [N]
`), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sp, err := s.Space()
	if err != nil {
		t.Fatal(err)
	}
	// 100000 = 2^5 * 5^5: 32·1 divides it; 32·2, 64, 128 and beyond do not
	if sp.Len() != 1 {
		t.Errorf("%d configurations, want 1 (block_size_x=32, tile_size_x=1)", sp.Len())
	}
	bound, err := s.BoundRestrictions()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(bound, []string{"100000 % (block_size_x * tile_size_x) == 0", "tile_size_x < 100"}) {
		t.Errorf("bound restrictions %q", bound)
	}
}

// A Spec that Parse did not make (a struct literal, or the zero Spec) answers
// ErrNotParsed instead of panicking on its missing compiled expressions.
func TestASpecLiteralSaysItWasNotParsed(t *testing.T) {
	for _, s := range []*Spec{{}, {Kernel: Kernel{Name: "k", Language: "c", Code: "void k(void){}"},
		Parameters: []space.Param{{Name: "x", Values: []space.Value{space.IntValue(1)}}}}, nil} {
		vals := []space.Value{space.IntValue(1)}
		if _, err := s.Space(); !errors.Is(err, ErrNotParsed) {
			t.Errorf("Space: %v", err)
		}
		if _, err := s.Instance(vals); !errors.Is(err, ErrNotParsed) {
			t.Errorf("Instance: %v", err)
		}
		if _, err := s.MetricValues(vals, 1, nil); !errors.Is(err, ErrNotParsed) {
			t.Errorf("MetricValues: %v", err)
		}
		if _, err := s.Generate(0, 4); !errors.Is(err, ErrNotParsed) {
			t.Errorf("Generate: %v", err)
		}
		if err := s.Unmeasured("c"); !errors.Is(err, ErrNotParsed) {
			t.Errorf("Unmeasured: %v", err)
		}
		if s.Observes() != nil {
			t.Error("Observes of a literal")
		}
	}
}

// Parameter value lists read the constants, as Kernel Tuner's tune_params["num_blocks"] =
// [NB] reads NB: a whole constant is an int value (so the parameter is #defined as 64, not
// 64.0), and a quoted name stays a string.
func TestValueListsReadConstants(t *testing.T) {
	dir := t.TempDir()
	kernel := `__kernel void reduce(__global float *partial, __global const float *in, int n) {
    __local float sum[block_size_x];
    float s = 0;
    for (int i = get_global_id(0); i < n; i += num_blocks * block_size_x)
        s += in[i];
    sum[get_local_id(0)] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) {
        for (int i = 1; i < block_size_x; i++)
            s += sum[i];
        partial[get_group_id(0)] = s * scale;
    }
}
`
	specText := `kernel: {name: reduce, source: reduce.cl}
constants:
  N: 4096
  NB: 64
  half: 0.5
parameters:
  - {name: num_blocks, values: "[NB, 2*NB]"}
  - {name: block_size_x, values: "[2**i for i in range(5, 14) if N // NB % 2**i == 0]"}
  - {name: scale, values: "[half, 1]"}
  - {name: label, values: ['NB', other]}
problem_size: [num_blocks]
grid_div_x: []
arguments:
  - {name: partial, type: float32, length: num_blocks, output: true}
  - {name: in, type: float32, length: N}
  - {name: n, type: int32, value: N}
default_config: {num_blocks: 64, block_size_x: 32, scale: 1, label: NB}
`
	if err := os.WriteFile(filepath.Join(dir, "reduce.cl"), []byte(kernel), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "reduce.yaml")
	if err := os.WriteFile(path, []byte(specText), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]space.Value{
		"num_blocks": {space.IntValue(64), space.IntValue(128)},
		// 4096 / 64 = 64 = 2**6: 32 and 64 divide it
		"block_size_x": {space.IntValue(32), space.IntValue(64)},
		"scale":        {space.FloatValue(0.5), space.IntValue(1)},
		"label":        {space.StringValue("NB"), space.StringValue("other")},
	}
	for _, p := range s.Parameters {
		if !slices.Equal(p.Values, want[p.Name]) {
			t.Errorf("%s: values %v, want %v", p.Name, p.Values, want[p.Name])
		}
	}
	in, err := s.Instance(s.Default)
	if err != nil {
		t.Fatal(err)
	}
	if in.ProblemSize[0] != 64 || in.Launch.Grid[0] != 64 {
		t.Errorf("problem size %v, grid %v; want 64 blocks", in.ProblemSize, in.Launch.Grid)
	}
	for _, d := range in.Defines {
		if d.Name == "num_blocks" && d.Value != "64" {
			t.Errorf("num_blocks is #defined as %q, want 64", d.Value)
		}
	}

	// Kernel Tuner's mapping form reads them too; a value list naming no constant fails.
	m := mustParse(t, "kernel: {name: k, source: k.cl}\nconstants: {NB: 8}\nparameters: {num_blocks: \"[NB, NB // 2]\"}\nproblem_size: [num_blocks]\n")
	if got := m.Parameters[0].Values; !slices.Equal(got, []space.Value{space.IntValue(8), space.IntValue(4)}) {
		t.Errorf("mapping form: values %v, want [8 4]", got)
	}
}

// TestAFailedConstantIsReportedOnceWithPythonsReason: a constant whose expression fails is
// one error, at its line, with the reason Python would raise; the expressions that read it
// (problem size, lengths, values, metrics) add no "unknown name" errors of their own. A
// length that divides by zero says so instead of "evaluates to NaN".
func TestAFailedConstantIsReportedOnceWithPythonsReason(t *testing.T) {
	const tail = `parameters:
  - {name: block_size_x, values: "[32, N]"}
problem_size: [N]
arguments:
  - {name: c, type: float32, length: N, output: true}
  - {name: n, type: int32, value: N}
metrics:
  - {name: GB/s, expr: "4 * N / time / 1e6"}
`
	const head = "kernel:\n  name: vector_add\n  language: opencl\n  code: \"__kernel void vector_add(__global float *c, int n) {}\"\n"
	for _, c := range []struct{ name, constants, want string }{
		{"beyond 64 bits", "constants: {N: \"10**100\"}\n", "beyond 64 bits"},
		{"division by zero", "constants: {M: 4, N: \"M // 0\"}\n", "integer division or modulo by zero"},
		{"float division by zero", "constants: {M: 4, N: \"M / 0\"}\n", "division by zero"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := parseOneError(t, head+c.constants+tail, "s.yaml")
			if msg := err.Error(); !strings.Contains(msg, "s.yaml:5: constants.N") || !strings.Contains(msg, c.want) {
				t.Errorf("error %q, want it at s.yaml:5, constants.N, saying %q", msg, c.want)
			}
		})
	}

	src := head + "constants: {N: 1000}\n" + strings.Replace(tail, "length: N,", "length: N / 0,", 1)
	_, err := Parse([]byte(src), "s.yaml")
	if err == nil || !strings.Contains(err.Error(), "arguments[0].length: N / 0 fails: division by zero; expected a non-negative whole number") {
		t.Errorf("a length dividing by zero: %v", err)
	}
}

// A constant that reads itself, a later constant or constants that read it back is one
// error at its line that says so, not an "unknown name" among no names.
func TestConstantsReadOnlyEarlierOnes(t *testing.T) {
	const head = "kernel:\n  name: vector_add\n  language: opencl\n  code: \"__kernel void vector_add(__global float *c) {}\"\n"
	const tail = `parameters:
  - {name: block_size_x, values: "[32, 64]"}
problem_size: [1024]
arguments:
  - {name: c, type: float32, length: 1024, output: true}
`
	for _, c := range []struct{ name, constants, want string }{
		{"itself", "constants:\n  N: \"N + 1\"\n", `s.yaml:6: constants.N: "N + 1" reads N itself; a constant may read only the constants before it`},
		{"a later one", "constants:\n  N: \"M * 2\"\n  M: 4\n", `s.yaml:6: constants.N: "M * 2" reads M, which is defined after it (line 7); a constant may read only the constants before it: move M above N`},
		{"one that reads it", "constants:\n  N: \"M * 2\"\n  M: \"N + 1\"\n", `s.yaml:6: constants.N: "M * 2" reads M, which reads N: constants that read each other have no value`},
		{"through a third", "constants:\n  A: 1\n  N: \"A + M\"\n  M: \"K - 1\"\n  K: \"N * 2\"\n", `s.yaml:7: constants.N: "A + M" reads M, which reads K, which reads N: constants that read each other have no value`},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := parseOneError(t, head+c.constants+tail, "s.yaml")
			if err.Error() != c.want {
				t.Errorf("error\n %s\nwant\n %s", err, c.want)
			}
		})
	}
}

// Kernel Tuner's own block size names need no parameter, as in Kernel Tuner: a spec that
// lists all three for a one-dimensional kernel parses.
func TestKernelTunersBlockSizeNamesNeedNoParameter(t *testing.T) {
	if _, err := Parse([]byte(base+"block_size_names: [block_size_x, block_size_y, block_size_z]\n"), "kt.yaml"); err != nil {
		t.Fatal(err)
	}
}

// Members given as null are not given, as Kernel Tuner's keyword arguments default to
// None (a QA's JSON spec dumped from them held "grid_div_y": null).
func TestNullMembersAreNotGiven(t *testing.T) {
	s, err := Parse([]byte(base+"grid_div_y: null\nblock_size_names: ~\nrestrictions: null\n"), "kt.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if s.BlockSizeNames[0] != "block_size_x" || len(s.Restrictions) != 0 || s.GridDiv[1] != nil {
		t.Errorf("null members: block names %v, restrictions %v, grid_div_y %v", s.BlockSizeNames, s.Restrictions, s.GridDiv[1])
	}
}

// Inline code starts, in what the device compiles, with a #line directive naming the spec
// and the line its first line sits on, so that compilers' messages point into the spec
// rather than at its first line (host C, CUDA) or at a runtime's temporary file (PoCL).
func TestInlineCodeIsCompiledAtItsLineOfTheSpec(t *testing.T) {
	const params = "parameters: {x: [1]}\nproblem_size: 1\n"
	tests := []struct {
		name, src string
		at        string // a substring of the line the code's first line sits on
	}{
		{"block", "kernel:\n  name: k\n  language: c\n  code: |\n    void k(void) {\n    }\n" + params, "void k(void) {"},
		{"block with a comment and an indentation indicator", "kernel:\n  name: k\n  language: c\n  code: |2  # the kernel\n      void k(void) {}\n" + params, "void k(void) {}"},
		{"folded block", "kernel:\n  name: k\n  language: c\n  code: >\n    void k(void) {}\n" + params, "void k(void) {}"},
		{"quoted", "kernel:\n  name: k\n  language: c\n  code: \"void k(void) {}\"\n" + params, "void k(void) {}"},
		{"plain on the next line", "kernel:\n  name: k\n  language: c\n  code:\n    void k(void) {}\n" + params, "void k(void) {}"},
		{"flow mapping", "\n\nkernel: {name: k, language: c, code: \"void k(void) {}\"}\n" + params, "void k(void) {}"},
		{"JSON", "{\n \"kernel\": {\"name\": \"k\", \"language\": \"c\",\n  \"code\": \"void k(void) {}\"},\n \"parameters\": {\"x\": [1]}, \"problem_size\": 1}\n", "void k(void) {}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse([]byte(tt.src), "dir/inline.yaml")
			if err != nil {
				t.Fatalf("%v\n%s", err, tt.src)
			}
			line := lineOf(t, tt.src, tt.at)
			if s.Kernel.CodeLine != line {
				t.Errorf("code line %d, want %d:\n%s", s.Kernel.CodeLine, line, tt.src)
			}
			want := fmt.Sprintf("#line %d \"dir/inline.yaml\"\n%s", line, s.Kernel.Code)
			if got := s.Source().Code; got != want {
				t.Errorf("source code\n%q, want\n%q", got, want)
			}
		})
	}

	// The reference kernel's code alike, and code given by an alias where its anchor is;
	// code from files has its own #line directives (Load), and a spec parsed without a
	// file name has no name to give.
	refs := "parameters: {x: [1]}\nproblem_size: 1\narguments: [{name: out, type: int32, length: 1, output: true}]\n" +
		"verification:\n  reference:\n    kernel:\n      name: ref\n      code: |\n        void ref(int *out) {\n          *out = 1;\n        }\n"
	for _, src := range []string{
		"kernel: {name: k, source: k.c}\n" + refs,
		"kernel:\n  name: k\n  language: c\n  code: &c |\n    void k(int *out) {}\n" + strings.Replace(refs, "code: |\n        void ref(int *out) {\n          *out = 1;\n        }\n", "code: *c\n", 1),
	} {
		s, err := Parse([]byte(src), "inline.yaml")
		if err != nil {
			t.Fatal(err)
		}
		ref, ok := s.ReferenceSource()
		first := strings.TrimSpace(strings.SplitN(s.Verification.Kernel.Code, "\n", 2)[0])
		if want := fmt.Sprintf("#line %d \"inline.yaml\"\n%s\n", lineOf(t, src, first), first); !ok || !strings.HasPrefix(ref.Code, want) {
			t.Errorf("reference code %q, want it to start %q", ref.Code, want)
		}
		if len(s.Kernel.Files) > 0 && (s.Kernel.CodeLine != 0 || strings.Contains(s.Source().Code, "#line")) {
			t.Errorf("a kernel from a file: code line %d, code %q", s.Kernel.CodeLine, s.Source().Code)
		}
	}
	s, err := Parse([]byte("kernel: {name: k, language: c, code: \"void k(void) {}\"}\n"+params), "")
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Source().Code; got != "void k(void) {}" {
		t.Errorf("code of a spec without a file name %q", got)
	}
}

// Every rate unit Doc lists is maximised by the rule it describes (result.HigherIsBetter),
// and the rule knows no unit Doc leaves out (QA: /second and per_sec were missing).
func TestDocListsTheRateUnitsOfTheDirectionRule(t *testing.T) {
	_, rest, ok := strings.Cut(Doc, "or bandwidth, or ending in")
	list, _, ok2 := strings.Cut(rest, ", case")
	if !ok || !ok2 {
		t.Fatal("Doc does not list the rate units")
	}
	list = strings.NewReplacer("#", " ", " or ", ",").Replace(list)
	var units []string
	for _, u := range strings.Split(list, ",") {
		if u = strings.TrimSpace(u); u != "" {
			units = append(units, u)
			if !result.HigherIsBetter("items" + u) {
				t.Errorf("Doc lists %q as a rate unit, but items%s is minimised", u, u)
			}
		}
	}
	for _, u := range []string{"/s", "/sec", "/second", "per_s", "per_sec", "per_second", "bps", "/W"} {
		if !slices.Contains(units, u) && result.HigherIsBetter("items"+u) {
			t.Errorf("items%s is maximised, but Doc's list %q leaves %s out", u, units, u)
		}
	}
}

// A program that builds a spec in memory parses it, then reads the files it names with
// ReadFiles: the same spec as Load's, where Parse alone left the kernel without code and a
// library user had no way to read it but writing the spec to a file.
func TestReadFilesReadsWhatParseLeft(t *testing.T) {
	data, err := os.ReadFile("testdata/matmul.yaml")
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := Load("testdata/matmul.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Parse(data, "testdata/matmul.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if s.Source().Code != "" {
		t.Fatal("Parse read the kernel source")
	}
	if err := s.ReadFiles(); err != nil {
		t.Fatal(err)
	}
	if got, want := s.Source(), loaded.Source(); !reflect.DeepEqual(got, want) {
		t.Errorf("after ReadFiles, Source = %+v\nwant Load's %+v", got, want)
	}
	rs, _ := s.ReferenceSource()
	lrs, _ := loaded.ReferenceSource()
	if !strings.Contains(rs.Code, "__global__") || rs.Code != lrs.Code {
		t.Errorf("after ReadFiles, the reference kernel's code is %q, want Load's", rs.Code)
	}
	// relative to the path Parse was given: from elsewhere, the files are not there
	s, err = Parse(data, "matmul.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.ReadFiles(); err == nil || !strings.Contains(err.Error(), "matmul.yaml:5: kernel.source") {
		t.Errorf("ReadFiles of sources that are not there = %v, want an error at kernel.source", err)
	}
}

// A spec parsed from data without a path is called "spec" in its errors, which began
// with ":" and a line number.
func TestErrorsOfASpecWithoutAPathNameIt(t *testing.T) {
	_, err := Parse([]byte("kernel: {name: x, language: opencl, code: 'k'}\nparameters: 3\nproblem_size: [1]\n"), "")
	if err == nil || !strings.HasPrefix(err.Error(), "spec:2: parameters: ") {
		t.Errorf("Parse = %v, want an error that begins spec:2: parameters:", err)
	}
	_, err = Parse(nil, "")
	if err == nil || !strings.HasPrefix(err.Error(), "spec: empty spec") {
		t.Errorf("Parse of nothing = %v, want an error that begins spec: empty spec", err)
	}
}

// TestABlockOfOneThreadByDefaultIsWarnedOf: Kernel Tuner's x block is 256 threads where no
// parameter gives it, ktune's 1; a ported spec that tuned no block size ran blocks of one
// thread without a word.
func TestABlockOfOneThreadByDefaultIsWarnedOf(t *testing.T) {
	const kernel = "kernel: {name: k, language: opencl, code: \"__kernel void k() {}\"}\n"
	for _, tc := range []struct {
		src  string
		warn bool
	}{
		{kernel + "parameters: {unroll: [0, 1]}\nproblem_size: [1000]\n", true},
		{kernel + "parameters: {unroll: [0, 1], block_size_x: [64]}\nproblem_size: [1000]\n", false},
		{kernel + "parameters: {unroll: [0, 1]}\nproblem_size: [1000]\nblock: [256]\n", false},
		{kernel + "parameters: {unroll: [0, 1], bx: [64]}\nblock_size_names: [bx]\nproblem_size: [1000]\n", false},
		{strings.Replace(kernel, "opencl", "c", 1) + "parameters: {unroll: [0, 1]}\nproblem_size: [1000]\n", false},
	} {
		s := mustParse(t, tc.src)
		var got []string
		for _, w := range s.Warnings {
			got = append(got, w.Error())
		}
		want := "test.yaml:3: block_size_names: no parameter is named block_size_x and there is no block, so every block has 1 thread in x (Kernel Tuner would use 256); tune a parameter block_size_x, or give block: [256]"
		switch {
		case tc.warn && (len(got) != 1 || got[0] != want):
			t.Errorf("%s: warnings %q\nwant [%q]", tc.src, got, want)
		case !tc.warn && len(got) != 0:
			t.Errorf("%s: warnings %q, want none", tc.src, got)
		}
	}
}

// C++ is a language of its own on the host: written c++, cpp or cxx (in any case), or
// implied by a source file's extension as GCC reads it (.cpp, .cc, .cxx, .C); .c and .h
// stay C.
func TestCXXIsImpliedByItsSpellingsAndExtensions(t *testing.T) {
	for _, c := range []struct{ kernel, want string }{
		{"{name: k, source: k.cpp}", "c++"},
		{"{name: k, source: k.cc}", "c++"},
		{"{name: k, source: k.cxx}", "c++"},
		{"{name: k, source: k.C}", "c++"},
		{"{name: k, source: k.hpp}", "c++"},
		{"{name: k, source: k.c}", "c"},
		{"{name: k, source: K.H}", "c++"},
		{"{name: k, source: k.h}", "c"},
		{"{name: k, code: 'void k(float *a) {}', language: c++}", "c++"},
		{"{name: k, code: 'void k(float *a) {}', language: CPP}", "c++"},
		{"{name: k, code: 'void k(float *a) {}', language: cxx}", "c++"},
		{"{name: k, source: k.cpp, language: c}", "c"},
	} {
		s := mustParse(t, "kernel: "+c.kernel+"\nparameters: {p: [1]}\nproblem_size: 1\narguments: [{name: a, type: float32, length: 4}]\n")
		if s.Kernel.Language != c.want {
			t.Errorf("kernel %s: language %q, want %q", c.kernel, s.Kernel.Language, c.want)
		}
		if got := s.Source().Language; got != c.want {
			t.Errorf("kernel %s: the device gets language %q, want %q", c.kernel, got, c.want)
		}
	}
}

// C++ on the host is as C is: OpenMP applies to it (a directive without it is warned of),
// a parameter may not be a C++ keyword (its #define would break the code) nor the
// function's name a template instance names, and a reference kernel in C checks a C++
// kernel and the reverse, both running on the host, where OpenCL's does not.
func TestCXXIsAHostLanguage(t *testing.T) {
	const rest = "problem_size: 1\narguments: [{name: a, type: float32, length: 4, output: true}]\n"
	s := mustParse(t, "kernel: {name: k, language: c++, openmp: true, code: 'void k(float *a) {}'}\nparameters: {p: [1]}\n"+rest)
	if got := s.Source().Options; !reflect.DeepEqual(got, []string{"-fopenmp"}) {
		t.Errorf("options %v, want [-fopenmp]", got)
	}
	s = mustParse(t, "kernel: {name: k, language: cpp, code: \"void k(float *a) {\\n#pragma omp parallel for\\nfor (;;) {}\\n}\"}\nparameters: {p: [1]}\n"+rest)
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0].Error(), "set kernel.openmp: true") {
		t.Errorf("warnings %v, want one of OpenMP", s.Warnings)
	}
	for _, c := range []struct{ kernel, param, want string }{
		{"{name: k, language: c++, code: 'void k(float *a) {}'}", "class", `"class" is a keyword of C++`},
		{"{name: 'matmul<float, 16>', language: c++, code: 'void k(float *a) {}'}", "matmul", `"matmul" is the kernel's name`},
	} {
		_, err := Parse([]byte("kernel: "+c.kernel+"\nparameters: {"+c.param+": [1]}\n"+rest), "test.yaml")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("parameter %s of kernel %s: %v, want %q", c.param, c.kernel, err, c.want)
		}
	}
	_, err := Parse([]byte("kernel: {name: k, language: c++, code: 'void k(float *a) {}', defines: {new: 1}}\nparameters: {p: [1]}\n"+rest), "test.yaml")
	if err == nil || !strings.Contains(err.Error(), `kernel.defines.new: "new" is a keyword of C++`) {
		t.Errorf("a definition named new: %v, want it refused as a C++ keyword", err)
	}
	// a C kernel may have a parameter named as a C++ keyword
	mustParse(t, "kernel: {name: k, language: c, code: 'void k(float *a) {}'}\nparameters: {class: [1]}\n"+rest)

	ref := "verification:\n  reference:\n    kernel: {name: ref, code: 'void ref(float *a) {}', language: %s}\n"
	for _, c := range []struct{ kernel, ref, err string }{
		{"c++", "c", ""},
		{"c", "cxx", ""},
		{"c++", "c++", ""},
		{"opencl", "c++", ""}, // on the host (HostReference)
		{"c++", "opencl", "opencl, but the kernel is c++"},
	} {
		src := fmt.Sprintf("kernel: {name: k, language: %s, code: 'void k(float *a) {}'}\nparameters: {p: [1]}\n"+rest+ref, c.kernel, c.ref)
		s, err := Parse([]byte(src), "test.yaml")
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s kernel, %s reference: %v, want %q", c.kernel, c.ref, err, c.err)
			}
		case err != nil:
			t.Errorf("%s kernel, %s reference: %v", c.kernel, c.ref, err)
		default:
			if r, ok := s.ReferenceSource(); !ok || r.Language != map[string]string{"c": "c", "cxx": "c++", "c++": "c++"}[c.ref] || s.HostReference() != (c.kernel == "opencl") {
				t.Errorf("%s kernel, %s reference: the reference compiles as %q", c.kernel, c.ref, r.Language)
			}
		}
	}
}

// A C kernel's name is a C identifier: a template's instance names a C++ function, which
// the host C backend refused at every configuration's compile when the spec said C.
func TestACKernelNamedAsATemplateInstanceIsRefused(t *testing.T) {
	const rest = "\nparameters: {p: [1]}\nproblem_size: 1\narguments: [{name: a, type: float32, length: 4}]\n"
	_, err := Parse([]byte("kernel: {name: 'k<float>', source: k.c}"+rest), "test.yaml")
	if err == nil || !strings.Contains(err.Error(), `kernel.name: "k<float>" is not a C function's name`) || !strings.Contains(err.Error(), "language: c++") {
		t.Errorf("%v, want the name refused, with language: c++", err)
	}
	mustParse(t, "kernel: {name: 'k<float>', source: k.cpp}"+rest)
	mustParse(t, "kernel: {name: 'k<float>', source: k.cu}"+rest)
}

// TestHalfOutputsGetTheirOwnDefaultTolerance checks that float16 outputs compare with
// DefaultHalfAtol and DefaultHalfRtol unless the spec gives a tolerance, which then holds
// for every float type.
func TestHalfOutputsGetTheirOwnDefaultTolerance(t *testing.T) {
	for _, tt := range []struct {
		verification       string
		f32Atol, f32Rtol   float64
		halfAtol, halfRtol float64
	}{
		{"{reference: {config: {block_size_x: 32, tile: 1}}}", DefaultAtol, DefaultRtol, DefaultHalfAtol, DefaultHalfRtol},
		{"{reference: {config: {block_size_x: 32, tile: 1}}, atol: 0.5}", 0.5, DefaultRtol, 0.5, DefaultHalfRtol},
		{"{reference: {config: {block_size_x: 32, tile: 1}}, atol: 0, rtol: 0.01}", 0, 0.01, 0, 0.01},
	} {
		s := mustParse(t, base+"arguments:\n  - {name: c, type: half, length: N, output: true}\nverification: "+tt.verification+"\n")
		v := s.Verification
		if a, r := v.Tolerance("float16"); a != tt.halfAtol || r != tt.halfRtol {
			t.Errorf("%s: float16 compares with atol %v rtol %v, want %v %v", tt.verification, a, r, tt.halfAtol, tt.halfRtol)
		}
		if a, r := v.Tolerance("float32"); a != tt.f32Atol || r != tt.f32Rtol {
			t.Errorf("%s: float32 compares with atol %v rtol %v, want %v %v", tt.verification, a, r, tt.f32Atol, tt.f32Rtol)
		}
		// what the runner compares with: the output's own check
		if c := v.Check(0); c.Atol != tt.halfAtol || c.Rtol != tt.halfRtol {
			t.Errorf("%s: the float16 output's check is %v, want atol %v rtol %v", tt.verification, c, tt.halfAtol, tt.halfRtol)
		}
	}
}

// TestHalfOutputsOwnEntriesKeepHalfDefaults gives float16 and float32 outputs entries
// of their own in outputs: what an entry leaves out falls back on verification's
// settings, else on the defaults of the output's type.
func TestHalfOutputsOwnEntriesKeepHalfDefaults(t *testing.T) {
	args := "arguments:\n  - {name: h, type: float16, length: N, output: true}\n  - {name: f, type: float32, length: N, output: true}\n"
	for _, tt := range []struct {
		verification string
		h, f         Check
	}{
		{"{reference: {config: {block_size_x: 32, tile: 1}}, outputs: [{name: h, range: 8}, f]}",
			Check{Method: MethodAllclose, Atol: DefaultHalfAtol, Rtol: DefaultHalfRtol, End: 8},
			Check{Method: MethodAllclose, Atol: DefaultAtol, Rtol: DefaultRtol}},
		{"{reference: {config: {block_size_x: 32, tile: 1}}, rtol: 0.1, outputs: [{name: h, atol: 0.25}, {name: f, atol: 0.5}]}",
			Check{Method: MethodAllclose, Atol: 0.25, Rtol: 0.1},
			Check{Method: MethodAllclose, Atol: 0.5, Rtol: 0.1}},
		{"{reference: {config: {block_size_x: 32, tile: 1}}, atol: 0.5}",
			Check{Method: MethodAllclose, Atol: 0.5, Rtol: DefaultHalfRtol},
			Check{Method: MethodAllclose, Atol: 0.5, Rtol: DefaultRtol}},
	} {
		s := mustParse(t, base+args+"verification: "+tt.verification+"\n")
		if h, f := s.Verification.Check(0), s.Verification.Check(1); h != tt.h || f != tt.f {
			t.Errorf("%s: checks %+v and %+v, want %+v and %+v", tt.verification, h, f, tt.h, tt.f)
		}
	}
}

// A C or C++ reference of an OpenCL or CUDA kernel runs on the host (HostReference): it
// takes every argument in the spec's order, constant memory as an array, unless it lists
// its own; a reference in the kernel's language, or of a host kernel, does not.
func TestAHostReferenceTakesItsArgumentsAsArrays(t *testing.T) {
	const cuda = "kernel: {name: k, source: k.cu}\nparameters: {p: [1]}\nproblem_size: 4\n" +
		"arguments:\n  - {name: out, type: float32, length: 4, output: true}\n  - {name: f, kind: constant, type: float32, length: 4}\n  - {name: n, type: int32, value: 4}\n"
	for _, c := range []struct {
		name, ref string
		host      bool
		args      []int // KernelArgs
		passed    []int // the arguments ReferenceArgs picks, by index
	}{
		{"C, every argument", "{name: ref, source: ref.c}", true, []int{0, 1, 2}, []int{0, 1, 2}},
		{"C++, its own order", "{name: ref, source: ref.cpp, arguments: [n, f, out]}", true, []int{2, 1, 0}, []int{2, 1, 0}},
		{"C++ by its language", "{name: ref, language: c++, code: k, arguments: [out, n]}", true, []int{0, 2}, []int{0, 2}},
		{"CUDA, constant memory copied", "{name: ref, code: k, arguments: [out, n]}", false, []int{0, 2}, []int{0, 2, 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := mustParse(t, cuda+"verification:\n  reference:\n    kernel: "+c.ref+"\n")
			if s.HostReference() != c.host {
				t.Errorf("HostReference %v, want %v", s.HostReference(), c.host)
			}
			if !slices.Equal(s.Verification.KernelArgs, c.args) {
				t.Errorf("KernelArgs %v, want %v", s.Verification.KernelArgs, c.args)
			}
			args := make([]device.Arg, len(s.Arguments))
			for i := range args {
				args[i] = device.Arg{Scalar: []byte{byte(i)}}
			}
			var got []int
			for _, a := range s.ReferenceArgs(args) {
				got = append(got, int(a.Scalar[0]))
			}
			if !slices.Equal(got, c.passed) {
				t.Errorf("ReferenceArgs pass %v, want %v", got, c.passed)
			}
			src, _ := s.ReferenceSource()
			if len(src.Params) != len(c.args) || c.host && !src.Params[slices.Index(c.args, 0)].Pointer {
				t.Errorf("reference parameters %+v", src.Params)
			}
		})
	}
	// A C reference of a C kernel is the host kernel's own kind of reference.
	s := mustParse(t, "kernel: {name: k, source: k.cpp}\nparameters: {p: [1]}\nproblem_size: 1\narguments: [{name: a, type: float32, length: 4, output: true}]\nverification:\n  reference:\n    kernel: {name: ref, source: ref.c}\n")
	if s.HostReference() || s.Verification.KernelArgs != nil {
		t.Errorf("a C reference of a C++ kernel: HostReference %v, KernelArgs %v", s.HostReference(), s.Verification.KernelArgs)
	}
}
