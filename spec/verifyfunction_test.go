package spec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A function given for verification compares every output by it, with the tolerance
// given or the output type's default atol; an output's own entry may keep a built-in
// method, or give a function of its own.
func TestAVerificationFunctionIsEveryOutputsMethodUnlessItsEntrySays(t *testing.T) {
	src := twoOutputs + `verification:
  reference: {npy: {c: c.npy, d: d.npy, k: k.npy}}
  function: {name: check, source: check.c}
  outputs:
    - c
    - {name: d, tolerance: 1e-9}
    - {name: k, method: absolute_sum, tolerance: 2}
`
	s := mustParse(t, src)
	v := s.Verification
	fn := v.Checks[0].Function
	if fn == nil || fn.Name != "check" || fn.Language != "c" || filepath.Base(fn.Files[0]) != "check.c" {
		t.Fatalf("function %+v", fn)
	}
	c, d, k := v.Checks[0], v.Checks[1], v.Checks[2]
	if c.Method != MethodFunction || c.Tolerance != DefaultAtol || d.Method != MethodFunction || d.Function != fn || d.Tolerance != 1e-9 {
		t.Errorf("c %+v, d %+v; want both by the function, c with the default atol, d with 1e-9", c, d)
	}
	if k.Method != MethodAbsoluteSum || k.Function != nil || k.Tolerance != 2 {
		t.Errorf("k %+v, want absolute_sum without the function", k)
	}
	if fns := v.Functions(); len(fns) != 1 || fns[0] != fn {
		t.Errorf("Functions %v, want the one function once", fns)
	}
	if got := c.String(); got != "the verification function check (check.c) (tolerance 1e-06)" {
		t.Errorf("String %q", got)
	}

	// An output's own function, in C++ (by its file), with method: function written out.
	src = twoOutputs + `verification:
  reference: {npy: {c: c.npy, d: d.npy}}
  outputs:
    - c
    - name: d
      method: function
      function: {name: "ns::close<double>", source: close.cpp, compiler_options: [-O1]}
`
	v = mustParse(t, src).Verification
	if v.Checks[0].Method != MethodAllclose || v.Checks[0].Function != nil {
		t.Errorf("c %+v, want allclose", v.Checks[0])
	}
	fn = v.Checks[1].Function
	if fn == nil || fn.Language != "c++" || fn.Name != "ns::close<double>" || len(fn.CompilerOptions) != 1 {
		t.Fatalf("d's function %+v", fn)
	}
	s = mustParse(t, twoOutputs+"verification:\n  reference: {npy: {c: c.npy}}\n  outputs: [{name: c, function: {name: f, code: \"int f(void);\"}}]\n")
	if src := s.FunctionSource(s.Verification.Checks[0].Function); src.Language != "c" || src.Kernel != "f" || src.Params != nil {
		t.Errorf("inline function's source %+v, want C named f without parameters", src)
	}
}

func TestFunctionSignatureFollowsTheOutputsType(t *testing.T) {
	for typ, want := range map[string]string{
		"float32": "int check(const float *want, const float *got, long n, double tolerance, char *message, long message_size)",
		"float64": "int check(const double *want, const double *got, long n, double tolerance, char *message, long message_size)",
		"int32":   "int check(const int32_t *want, const int32_t *got, long n, double tolerance, char *message, long message_size)",
		"float16": "int check(const _Float16 *want, const _Float16 *got, long n, double tolerance, char *message, long message_size)",
	} {
		if got := FunctionSignature("check", typ); got != want {
			t.Errorf("%s: %q, want %q", typ, got, want)
		}
	}
	// a C++ template's instance is declared by its template's name
	if got := FunctionSignature("ns::check<float>", "float32"); !strings.HasPrefix(got, "int check(const float *want") {
		t.Errorf("C++ instance: %q", got)
	}
}

func TestBadVerificationFunctionsNameTheFieldAndLine(t *testing.T) {
	ref := "verification:\n  reference: {npy: {c: c.npy, d: d.npy, k: k.npy}}\n"
	tests := []badSpec{
		{"method function without one", "  method: function\n", "method: function",
			[]string{"verification.function", "missing; method function needs the C or C++ function that compares: function: {name: check, source: check.c}"}},
		{"another method beside a function", "  outputs:\n    - {name: c, method: relative_norm, tolerance: 1, function: {name: f, source: f.c}}\n", "method: relative_norm",
			[]string{"verification.outputs[0].method", "relative_norm, but a function is given beside it", "leave out method (or write method: function)"}},
		{"a function without a name", "  function:\n    source: f.c\n", "function:",
			[]string{"verification.function.name", "missing; expected the name of the C or C++ function"}},
		{"a function without code", "  function: {name: f}\n", "function:",
			[]string{"verification.function.source", "missing; expected the C or C++ file that defines f"}},
		{"a function in OpenCL", "  outputs:\n    - name: c\n      function: {name: f, source: f.cl}\n", "function: {name: f",
			[]string{"verification.outputs[0].function.language", "opencl; a verification function runs on the host", "write it in C or C++"}},
		{"a C name that is C++'s", "  function: {name: \"check<float>\", source: f.c}\n", "check<float>",
			[]string{"verification.function.name", `"check<float>" is not a C function's name`, "language: c++"}},
		{"code in a C++ name", "  function: {name: \"f(); int x\", source: f.cpp}\n", "f(); int x",
			[]string{"verification.function.name", "is not the name of a C++ function"}},
		{"an unknown field of a function", "  function: {name: f, source: f.c, defines: {A: 1}}\n", "defines",
			[]string{"verification.function.defines", "unknown field"}},
		{"atol for a function", "  outputs:\n    - {name: c, function: {name: f, source: f.c}, atol: 0.1}\n", "atol: 0.1",
			[]string{"verification.outputs[0].atol", "atol is method allclose's; method function takes a tolerance instead"}},
	}
	checkRefused(t, twoOutputs+ref, tests)
}

// Load reads a verification function's file as it reads kernel sources; a missing one
// is an error naming its field and line.
func TestLoadReadsTheVerificationFunction(t *testing.T) {
	dir := t.TempDir()
	spec := `kernel: {name: k, source: k.c}
parameters: {p: [1]}
problem_size: 1
arguments:
  - {name: y, type: float32, length: 4, output: true}
verification:
  reference: {npy: {y: y.npy}}
  function: {name: check, source: check.c}
`
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("k.yaml", spec)
	write("k.c", "void k(float *y) {}\n")
	if err := WriteNPYFile(filepath.Join(dir, "y.npy"), &Array{Type: "float32", Shape: []int{4}, Data: make([]byte, 16)}); err != nil {
		t.Fatal(err)
	}
	_, err := Load(filepath.Join(dir, "k.yaml"))
	if err == nil || !strings.Contains(err.Error(), "k.yaml:8: verification.function.source") || !strings.Contains(err.Error(), "check.c") {
		t.Fatalf("without check.c: %v", err)
	}
	write("check.c", "int check(const float *want, const float *got, long n, double tolerance, char *message, long message_size) { return 0; }\n")
	s, err := Load(filepath.Join(dir, "k.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if code := s.Verification.Functions()[0].Code; !strings.Contains(code, "int check(") || !strings.HasPrefix(code, "#line 1 ") {
		t.Errorf("function's code %q", code)
	}
}
