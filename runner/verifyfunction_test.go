package runner_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/spec"
)

// checkWithin is a verification function in C: every element within the tolerance, or
// a message naming the first that is not, with n and the tolerance it was given.
const checkWithin = `#include <math.h>
#include <stdio.h>
int check(const float *want, const float *got, long n, double tolerance, char *message, long message_size) {
    for (long i = 0; i < n; i++) {
        double d = fabs((double)got[i] - (double)want[i]);
        if (d > tolerance) {
            snprintf(message, (size_t)message_size, "element %ld of %ld differs by %g, over %g", i, n, d, tolerance);
            return 1;
        }
    }
    return 0;
}
`

// scaleSpec is an OpenCL kernel, y = 2x, wrong by 1 at index 7 where bad is 1, verified
// against itself at bad=0 by what verification (the lines after its reference) says.
func scaleSpec(t *testing.T, dir, verification string) *spec.Spec {
	t.Helper()
	path := filepath.Join(dir, "scale.yaml")
	if err := os.WriteFile(path, []byte(`
kernel:
  name: scale
  language: opencl
  code: |
    __kernel void scale(__global float *y, __global const float *x, const int n) {
        int i = get_global_id(0);
        if (i < n) y[i] = 2.0f * x[i] + (bad && i == 7 ? 1.0f : 0.0f);
    }
parameters:
  - {name: block_size_x, values: [32, 64]}
  - {name: bad, values: [0, 1]}
problem_size: [1000]
arguments:
  - {name: y, type: float32, length: 1000, output: true}
  - {name: x, type: float32, length: 1000, fill: random}
  - {name: n, type: int32, value: 1000}
verification:
  reference: {config: {block_size_x: 32, bad: 0}}
`+verification+`
iterations: 2
`), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := spec.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func writeFile(t *testing.T, dir, name, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func config(t *testing.T, sp *space.Space, values ...int) space.Config {
	t.Helper()
	vs := make([]space.Value, len(values))
	for i, v := range values {
		vs[i] = space.IntValue(int64(v))
	}
	c, err := sp.ConfigOf(vs)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestAVerificationFunctionJudgesOpenCLConfigurations: a C function, compiled on the
// host beside PoCL, passes the right configurations and fails the wrong one with its own
// message, which shows that it got the elements, their count and the tolerance; over a
// range that leaves the wrong element out, the wrong configuration passes.
func TestAVerificationFunctionJudgesOpenCLConfigurations(t *testing.T) {
	dev := openBackend(t, "opencl")
	dir := t.TempDir()
	writeFile(t, dir, "check.c", checkWithin)
	s := scaleSpec(t, dir, "  function: {name: check, source: check.c}\n  tolerance: 0.25\n")
	r, sp := runnerFor(t, s, dev)
	if err := r.Reference(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	wantVerified(t, r, sp, []space.Value{space.IntValue(32), space.IntValue(0)}, []space.Value{space.IntValue(64), space.IntValue(0)})
	var phases []string
	e := r.Evaluate(context.Background(), config(t, sp, 64, 1), func(p string) { phases = append(phases, p) })
	want := "output y: the verification function check (check.c) returned 1: element 7 of 1000 differs by 1, over 0.25"
	if e.Status != result.WrongAnswer || e.Message != want {
		t.Errorf("bad=1: %v %q, want wrong_answer %q", e.Status, e.Message, want)
	}
	// the function's call is announced, so that a crash in it is blamed on it
	if !strings.Contains(strings.Join(phases, "|"), "compiled|running: the verification function check (check.c)|running: the kernel") {
		t.Errorf("phases %q", phases)
	}

	s = scaleSpec(t, dir, "  outputs: [{name: y, function: {name: check, source: check.c}, range: [0, 7]}]\n")
	r, sp = runnerFor(t, s, dev)
	wantVerified(t, r, sp, []space.Value{space.IntValue(64), space.IntValue(1)})
}

// TestVerificationFunctionsForFloat64AndInt32Outputs: a host C kernel's float64 output is
// checked by a C function taking doubles, its int32 output by a C++ function taking
// int32_t (with size_t n: a change of sign passes); a function that returns nonzero
// without a message says so.
func TestVerificationFunctionsForFloat64AndInt32Outputs(t *testing.T) {
	dev := openHost(t)
	dir := t.TempDir()
	writeFile(t, dir, "close.c", `#include <math.h>
int close_enough(const double *want, const double *got, long n, double tolerance, char *message, long message_size) {
    for (long i = 0; i < n; i++)
        if (fabs(got[i] - want[i]) > tolerance) return 2;
    return 0;
}
`)
	writeFile(t, dir, "same.cpp", `#include <cstdint>
#include <cstddef>
#include <cstdio>
namespace chk {
template <class T> int same(const T *want, const T *got, std::size_t n, double, char *message, long size) {
    for (std::size_t i = 0; i < n; i++)
        if (want[i] != got[i]) { std::snprintf(message, size, "k[%zu] is %d, not %d", i, (int)got[i], (int)want[i]); return 1; }
    return 0;
}
}
`)
	path := filepath.Join(dir, "k.yaml")
	writeFile(t, dir, "k.yaml", `
kernel:
  name: fill
  language: c
  code: |
    void fill(double *d, int *k, int n) {
        for (int i = 0; i < n; i++) { d[i] = 0.5 * i + (OFF == 1 && i == 3 ? 1e-3 : 0.0); k[i] = i + (OFF == 2 && i == 5); }
    }
parameters: [{name: OFF, values: [0, 1, 2]}]
problem_size: [64]
arguments:
  - {name: d, type: float64, length: 64, output: true}
  - {name: k, type: int32, length: 64, output: true}
  - {name: n, type: int32, value: 64}
verification:
  reference: {config: {OFF: 0}}
  outputs:
    - {name: d, function: {name: close_enough, source: close.c}, tolerance: 1e-6}
    - {name: k, function: {name: "chk::same<int32_t>", source: same.cpp}}
iterations: 2
`)
	s, err := spec.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	r, sp := runnerFor(t, s, dev)
	if err := r.Reference(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	wantVerified(t, r, sp, []space.Value{space.IntValue(0)})
	for off, want := range map[int]string{
		1: "output d: the verification function close_enough (close.c) returned 2 (it wrote no message)",
		2: "output k: the verification function chk::same<int32_t> (same.cpp) returned 1: k[5] is 6, not 5",
	} {
		e := r.Evaluate(context.Background(), config(t, sp, off), nil)
		if e.Status != result.WrongAnswer || e.Message != want {
			t.Errorf("OFF=%d: %v %q, want wrong_answer %q", off, e.Status, e.Message, want)
		}
	}
}

// TestAVerificationFunctionOfAnotherSignatureDoesNotCompile: a declaration that the
// call does not fit (another element type, an int for n, a float result) is a compile
// error naming the function and the signature it must have, found before anything is
// measured (Reference); so is a function that does not compile, named by its file.
func TestAVerificationFunctionOfAnotherSignatureDoesNotCompile(t *testing.T) {
	dev := openBackend(t, "opencl")
	sig := "int check(const float *want, const float *got, long n, double tolerance, char *message, long message_size)"
	for _, c := range []struct {
		name, file, code string
		want             []string
	}{
		{"doubles for floats", "check.c", "int check(const double *want, const double *got, long n, double tolerance, char *message, long message_size) { return 0; }\n",
			[]string{"the verification function check (check.c) does not compile:", "check.c:1", "<ktune verification call>", "for output y (float32): declare it `" + sig + "`"}},
		{"an int count", "check.c", "int check(const float *want, const float *got, int n, double tolerance, char *message, long message_size) { return 0; }\n",
			[]string{"does not compile:", "<ktune verification call>", sig}},
		{"a float result in C++", "check.cpp", "float check(const float *want, const float *got, long n, double tolerance, char *message, long message_size) { return 0.5f; }\n",
			[]string{"the verification function check (check.cpp) does not compile:", "<ktune verification call>", sig}},
		{"no such function", "check.c", "int chekc(const float *want, const float *got, long n, double tolerance, char *message, long message_size) { return 0; }\n",
			[]string{"does not compile:", "check", sig}},
		{"a syntax error", "check.c", "int check(const float *want, const float *got, long n, double tolerance, char *message, long message_size) {\n    return 0\n}\n",
			[]string{"the verification function check (check.c) does not compile:", "check.c:2", "expected ';'"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, c.file, c.code)
			s := scaleSpec(t, dir, "  function: {name: check, source: "+c.file+"}\n")
			r, sp := runnerFor(t, s, dev)
			err := r.Reference(context.Background(), nil)
			if err == nil {
				t.Fatal("the function compiled")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
			if c.name == "a syntax error" && strings.Contains(err.Error(), "<ktune verification call>") {
				t.Errorf("a fault of the function's own code is blamed on ktune's call:\n%v", err)
			}
			// measured anyway (a runner used without Reference), each configuration fails
			// saying why, and keeps no result
			e := r.Evaluate(context.Background(), config(t, sp, 32, 0), nil)
			if e.Status == result.OK || !strings.Contains(e.Message, "does not compile") {
				t.Errorf("evaluated: %v %q", e.Status, e.Message)
			}
		})
	}
}
