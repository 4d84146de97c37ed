package spec

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// twoOutputs is base with two compared outputs of constant lengths and an integer one.
const twoOutputs = base + `arguments:
  - {name: c, type: float32, length: N, output: true}
  - {name: d, type: float64, length: 2 * N, output: true}
  - {name: k, type: int32, length: 10, output: true}
  - {name: n, type: int32, value: N}
`

func TestOutputsMayEachHaveAMethodToleranceAndRange(t *testing.T) {
	src := twoOutputs + `verification:
  reference: {npy: {c: c.npy, d: d.npy, k: k.npy}}
  atol: 0.01
  outputs:
    - c
    - {name: d, method: relative_norm, tolerance: 1e-12, range: [N // 2, N]}
    - {name: k, method: absolute_sum, tolerance: 3, range: 4}
`
	v := mustParse(t, src).Verification
	want := []Check{
		{Method: MethodAllclose, Atol: 0.01, Rtol: DefaultRtol},
		{Method: MethodRelativeNorm, Atol: 0.01, Rtol: DefaultRtol, Tolerance: 1e-12, Start: 500, End: 1000},
		{Method: MethodAbsoluteSum, Atol: 0.01, Rtol: DefaultRtol, Tolerance: 3, End: 4},
	}
	if !reflect.DeepEqual(v.Outputs, []int{0, 1, 2}) || !reflect.DeepEqual(v.Checks, want) {
		t.Fatalf("outputs %v checks %+v, want %+v", v.Outputs, v.Checks, want)
	}
	if v.Atol != 0.01 || v.Rtol != DefaultRtol {
		t.Errorf("verification's own atol %v rtol %v", v.Atol, v.Rtol)
	}
}

func TestVerificationsMethodIsEveryOutputsUnlessItsEntrySays(t *testing.T) {
	src := twoOutputs + `verification:
  reference: {npy: {c: c.npy, d: d.npy}}
  method: absolute_sum
  tolerance: 0.5
  outputs: [c, {name: d, method: allclose, rtol: 0}]
`
	v := mustParse(t, src).Verification
	want := []Check{
		{Method: MethodAbsoluteSum, Atol: DefaultAtol, Rtol: DefaultRtol, Tolerance: 0.5},
		{Method: MethodAllclose, Atol: DefaultAtol, Rtol: 0, Tolerance: 0.5},
	}
	if !reflect.DeepEqual(v.Checks, want) {
		t.Fatalf("checks %+v, want %+v", v.Checks, want)
	}
	// Without outputs, every output gets verification's settings.
	v = mustParse(t, twoOutputs+"verification:\n  reference: {npy: {c: c.npy, d: d.npy, k: k.npy}}\n  method: relative_norm\n  tolerance: 1e-6\n").Verification
	if len(v.Checks) != 3 || v.Checks[2] != (Check{Method: MethodRelativeNorm, Atol: DefaultAtol, Rtol: DefaultRtol, Tolerance: 1e-6}) {
		t.Fatalf("checks %+v", v.Checks)
	}
}

// TestVerificationWithoutNewFieldsKeepsItsMeaning: a spec of before per-output settings
// compares every output by allclose with its atol and rtol, over the whole output.
func TestVerificationWithoutNewFieldsKeepsItsMeaning(t *testing.T) {
	v := mustParse(t, twoOutputs+"verification:\n  reference: {npy: {c: c.npy}}\n  outputs: [c]\n  atol: 0.5\n  rtol: 0\n").Verification
	if want := (Check{Method: MethodAllclose, Atol: 0.5}); len(v.Checks) != 1 || v.Checks[0] != want || v.Check(0) != want {
		t.Fatalf("checks %+v", v.Checks)
	}
	// A Verification made in Go, without Checks, compares by its Atol and Rtol.
	lit := &Verification{Outputs: []int{0}, Atol: 1, Rtol: 2}
	if c := lit.Check(0); c != (Check{Method: MethodAllclose, Atol: 1, Rtol: 2}) {
		t.Fatalf("literal's check %+v", c)
	}
}

func TestBadComparisonsNameTheFieldAndLine(t *testing.T) {
	ref := "verification:\n  reference: {npy: {c: c.npy, d: d.npy, k: k.npy}}\n"
	tests := []badSpec{
		{"unknown method", "  method: allclsoe\n", "allclsoe",
			[]string{"verification.method", `unknown method "allclsoe"; did you mean "allclose"?`, "expected allclose, absolute_sum, relative_norm"}},
		{"unknown method of an output", "  outputs:\n    - {name: c, method: norm, tolerance: 1}\n", "method: norm",
			[]string{"verification.outputs[0].method", `unknown method "norm"`}},
		{"negative tolerance", "  outputs:\n    - {name: c, method: absolute_sum, tolerance: -1}\n", "tolerance: -1",
			[]string{"verification.outputs[0].tolerance", "-1; expected a non-negative tolerance"}},
		{"negative atol of an output", "  outputs:\n    - name: c\n      atol: -0.5\n", "atol: -0.5",
			[]string{"verification.outputs[0].atol", "-0.5; expected a non-negative tolerance"}},
		{"a method without its tolerance", "  outputs:\n    - name: c\n      method: relative_norm\n", "method: relative_norm",
			[]string{"verification.outputs[0].tolerance", "missing; method relative_norm needs one: the largest ||got - want|| / ||want|| that passes"}},
		{"verification's method without its tolerance", "  method: absolute_sum\n", "method: absolute_sum",
			[]string{"verification.tolerance", "missing; method absolute_sum needs one", "KTT's default is 1e-4"}},
		{"a tolerance for allclose", "  tolerance: 0.1\n", "tolerance: 0.1",
			[]string{"verification.tolerance", "method allclose takes atol and rtol, not a tolerance"}},
		{"atol for another method", "  outputs:\n    - {name: c, method: absolute_sum, tolerance: 1, atol: 0.1}\n", "atol: 0.1",
			[]string{"verification.outputs[0].atol", "atol is method allclose's; method absolute_sum takes a tolerance instead"}},
		{"equal_nan for another method", "  outputs:\n    - {name: c, method: relative_norm, tolerance: 1, equal_nan: true}\n", "equal_nan: true",
			[]string{"verification.outputs[0].equal_nan", "equal_nan is method allclose's; method relative_norm fails an output holding a NaN"}},
		{"equal_nan of an integer output", "  outputs:\n    - {name: k, equal_nan: true}\n", "equal_nan: true",
			[]string{"verification.outputs[0].equal_nan", "k is int32, whose values are never NaN; leave equal_nan out"}},
		{"equal_nan not a boolean", "  equal_nan: yes please\n", "equal_nan: yes please",
			[]string{"verification.equal_nan"}},
		{"atol of an integer output", "  outputs:\n    - {name: k, atol: 1}\n", "atol: 1",
			[]string{"verification.outputs[0].atol", "k is int32: allclose compares integers exactly; for a tolerance, write method: absolute_sum"}},
		{"range beyond the output", "  outputs:\n    - c\n    - name: d\n      range: [N, 3 * N]\n", "range: [N, 3 * N]",
			[]string{"verification.outputs[1].range", "[1000, 3000) ends beyond d's 2000 elements (arguments[1].length: 2 * N); expected an end at most its length"}},
		{"a prefix beyond the output", "  outputs:\n    - {name: k, range: 11}\n", "range: 11",
			[]string{"verification.outputs[0].range", "[0, 11) ends beyond k's 10 elements"}},
		{"an empty range", "  outputs:\n    - {name: c, range: [5, 5]}\n", "range: [5, 5]",
			[]string{"verification.outputs[0].range", "[5, 5) holds no element"}},
		{"a range over a parameter", "  outputs:\n    - {name: c, range: block_size_x}\n", "range: block_size_x",
			[]string{"verification.outputs[0].range[0]", `unknown name "block_size_x"`}},
		{"a range of three", "  outputs:\n    - {name: c, range: [1, 2, 3]}\n", "range: [1, 2, 3]",
			[]string{"verification.outputs[0].range", "3 items; expected 1 to 2"}},
		{"a fractional range", "  outputs:\n    - {name: c, range: N / 3}\n", "range: N / 3",
			[]string{"verification.outputs[0].range[0]", "N / 3 evaluates to 333.3333333333333; expected a whole number of elements"}},
		{"a range for every output", "  range: 10\n", "range: 10",
			[]string{"verification.range", "a range belongs to one output; give it in that output's entry of outputs"}},
		{"an entry without a name", "  outputs:\n    - {method: allclose}\n", "method: allclose",
			[]string{"verification.outputs[0].name", "missing; expected the name of an output argument"}},
		{"an entry's unknown field", "  outputs:\n    - {name: c, tol: 1}\n", "tol: 1",
			[]string{"verification.outputs[0].tol", "unknown field", `did you mean "atol"?`}},
		{"an entry naming no argument", "  outputs:\n    - {name: e}\n", "name: e",
			[]string{"verification.outputs[0].name", `no argument "e"`}},
	}
	checkRefused(t, twoOutputs+ref, tests)
}

// A mistake in a comparison is reported once: a method that is not one leaves unsaid
// what the default method would make of the rest of the entry, and a tolerance written
// but wrong is not also called missing.
func TestABadComparisonSettingIsReportedOnce(t *testing.T) {
	ref := "verification:\n  reference: {npy: {c: c.npy, d: d.npy, k: k.npy}}\n"
	refC := "verification:\n  reference: {npy: {c: c.npy}}\n"
	tests := []struct {
		name, src, at, want string
	}{
		{"a misspelt method with its tolerance", ref + "  method: relative_nrom\n  tolerance: 1e-3\n", "relative_nrom",
			`verification.method: unknown method "relative_nrom"; did you mean "relative_norm"?`},
		{"an output's unknown method with its tolerance", refC + "  outputs:\n    - {name: c, method: norm, tolerance: 1}\n", "method: norm",
			`verification.outputs[0].method: unknown method "norm"`},
		{"a negative tolerance", refC + "  outputs:\n    - {name: c, method: absolute_sum, tolerance: -1}\n", "tolerance: -1",
			"verification.outputs[0].tolerance: -1; expected a non-negative tolerance"},
		{"verification's tolerance not a number", ref + "  method: relative_norm\n  tolerance: 1e-3x\n", "tolerance: 1e-3x",
			`verification.tolerance: expected a number, found the string "1e-3x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := twoOutputs + tt.src
			_, err := Parse([]byte(src), "bad.yaml")
			if err == nil {
				t.Fatal("accepted")
			}
			msg := err.Error()
			if want := "bad.yaml:" + strconv.Itoa(lineOf(t, src, tt.at)) + ": " + tt.want; !strings.HasPrefix(msg, want) {
				t.Errorf("message does not start %q:\n%s", want, msg)
			}
			if n := strings.Count(msg, "bad.yaml:"); n != 1 {
				t.Errorf("%d errors, want the one:\n%s", n, msg)
			}
		})
	}
}

// An output has one entry in outputs: a second, which a user may mean to override the
// first, is refused rather than compared besides it.
func TestAnOutputNamedTwiceInOutputsIsRefused(t *testing.T) {
	src := twoOutputs + "verification:\n  reference: {npy: {c: c.npy, d: d.npy}}\n  outputs:\n    - c\n    - d\n    - {name: c, atol: 0.5}\n"
	_, err := Parse([]byte(src), "bad.yaml")
	if err == nil {
		t.Fatal("accepted an output named twice")
	}
	want := "bad.yaml:" + strconv.Itoa(lineOf(t, src, "{name: c, atol: 0.5}")) + ": verification.outputs[2]: c is compared by verification.outputs[0] already; give each output one entry, with all its settings"
	if err.Error() != want {
		t.Errorf("message\n%s\nwant\n%s", err, want)
	}
}
