//go:build linux

package hostc

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/internal/float16"
)

// halfScaleParams are y = alpha * x + beta over n halves: float16 arrays and a float16
// scalar beside a float one.
var halfScaleParams = []device.Param{
	{Name: "y", Type: "float16", Pointer: true},
	{Name: "x", Type: "float16", Pointer: true},
	{Name: "alpha", Type: "float32"},
	{Name: "beta", Type: "float16"},
	{Name: "n", Type: "int32"},
}

const halfScaleCode = `void half_scale(_Float16 *y, const _Float16 *x, float alpha, _Float16 beta, int n)
{
	for (int i = 0; i < n; i++)
		y[i] = (_Float16)(alpha * (float)x[i] + (float)beta);
}
`

// TestHalfArraysAreFloat16 runs a _Float16 kernel in C and in C++: the halves ktune
// writes reach it as _Float16, and the halves it writes back are the float results
// rounded to nearest even, as float16.FromFloat64 rounds them.
func TestHalfArraysAreFloat16(t *testing.T) {
	for _, lang := range []string{"c", "c++"} {
		t.Run(lang, func(t *testing.T) {
			d := openHost(t)
			if lang == "c++" && d.cxx == nil {
				t.Skipf("no C++ compiler: %v", d.cxxErr)
			}
			k, err := d.Compile(context.Background(), device.Source{Kernel: "half_scale", File: "half_scale.c", Language: lang, Params: halfScaleParams, Code: halfScaleCode})
			if err != nil {
				var ce *device.CompileError
				if errors.As(err, &ce) && float16Missing(ce.Log) {
					t.Skipf("the compiler has no _Float16 here: %v", err)
				}
				t.Fatalf("Compile: %v", err)
			}
			defer k.Release()
			const n = 1000
			xs := make([]uint16, n)
			for i := range xs {
				xs[i] = float16.FromFloat64(float64(i-500) * 0.37)
			}
			xb, _ := binary.Append(nil, binary.LittleEndian, xs)
			bx, by := alloc(t, d, xb), alloc(t, d, make([]byte, 2*n))
			defer bx.Release()
			defer by.Release()
			alpha, beta := float32(1.7), float16.FromFloat64(0.25)
			args := []device.Arg{{Buffer: by}, {Buffer: bx},
				{Scalar: binary.LittleEndian.AppendUint32(nil, math.Float32bits(alpha))},
				{Scalar: binary.LittleEndian.AppendUint16(nil, beta)}, int32Arg(n)}
			if _, err := k.Run(context.Background(), device.Launch{}, args); err != nil {
				t.Fatalf("Run: %v", err)
			}
			out := make([]byte, 2*n)
			if err := by.Read(out); err != nil {
				t.Fatal(err)
			}
			for i := range n {
				got := binary.LittleEndian.Uint16(out[2*i:])
				want := float16.FromFloat64(float64(alpha*float32(float16.Float64(xs[i])) + 0.25))
				if got != want {
					t.Fatalf("y[%d] = %#04x (%v), want %#04x (%v)", i, got, float16.Float64(got), want, float16.Float64(want))
				}
			}
		})
	}
}

// A float16 array declared float *, or a float32 scalar declared _Float16 (which would
// lose its value), is a compile error naming the argument, in C and in C++.
func TestHalfMismatchesAreCompileErrorsNamingTheArgument(t *testing.T) {
	for _, lang := range []string{"c", "c++"} {
		for _, c := range []struct {
			decl string
			arg  int // the argument blamed, -1 for none
		}{
			{"_Float16 *y, const float *x, float alpha, _Float16 beta, int n", 1},
			{"_Float16 *y, const _Float16 *x, _Float16 alpha, _Float16 beta, int n", 2},
			{"_Float16 *y, const _Float16 *x, double alpha, float beta, int n", -1}, // wider: no value lost
		} {
			t.Run(lang+": "+c.decl, func(t *testing.T) {
				d := openHost(t)
				if lang == "c++" && d.cxx == nil {
					t.Skipf("no C++ compiler: %v", d.cxxErr)
				}
				_, err := d.Compile(context.Background(), device.Source{
					Kernel: "k", File: "k.c", Language: lang, Params: halfScaleParams,
					Code: "void k(" + c.decl + ") { (void)y; (void)x; (void)alpha; (void)beta; (void)n; }\n",
				})
				var ce *device.CompileError
				if errors.As(err, &ce) && float16Missing(ce.Log) {
					t.Skipf("the compiler has no _Float16 here: %v", err)
				}
				if c.arg < 0 {
					if err != nil {
						t.Fatalf("Compile: %v", err)
					}
					return
				}
				p := halfScaleParams[c.arg]
				wantArgumentBlamed(t, err, halfScaleParams, c.arg, fmt.Sprintf("passes the spec's argument %s (%s ", p.Name, p.Type))
			})
		}
	}
}

// TestAMissingFloat16IsSaid checks float16Missing against what compilers without
// _Float16 print (GCC 12 with -m32, in a UTF-8 locale and in C; Clang 14 with
// -march=x86-64; compilers that do not know the name), and that other errors about the
// wrapper do not read so.
func TestAMissingFloat16IsSaid(t *testing.T) {
	for _, log := range []string{
		"<ktune call wrapper>:12:9: error: ‘_Float16’ is not supported on this target",
		"<ktune call wrapper>:12:9: error: '_Float16' is not supported on this target",
		"<ktune call wrapper>:12:9: error: _Float16 is not supported on this target",
		"k.cpp:1:8: error: '_Float16' does not name a type",
		"<ktune call wrapper>:12:2: error: unknown type name '_Float16'",
	} {
		if !float16Missing(log) {
			t.Errorf("%q does not read as a missing _Float16", log)
		}
	}
	for _, log := range []string{
		"<ktune call wrapper>:20:3: error: passing argument 2 of 'k' from incompatible pointer type [-Werror=incompatible-pointer-types]\nk.c:1:6: note: expected 'const float *' but argument is of type '_Float16 *'",
		"k.c:1:1: error: unknown type name 'half'",
	} {
		if float16Missing(log) {
			t.Errorf("%q reads as a missing _Float16", log)
		}
	}
}

// TestACompilerWithoutFloat16SaysSo compiles a float16 kernel for 32-bit x86 without SSE2
// (-m32 -march=i686), where GCC and Clang have no _Float16: the log says that the
// compiler lacks it, and what to do.
func TestACompilerWithoutFloat16SaysSo(t *testing.T) {
	d := openHost(t)
	_, err := d.Compile(context.Background(), device.Source{Kernel: "half_scale", File: "half_scale.c", Params: halfScaleParams, Code: halfScaleCode, Options: []string{"-m32", "-march=i686"}})
	var ce *device.CompileError
	if !errors.As(err, &ce) {
		t.Fatalf("Compile = %v, want a compile error", err)
	}
	if !float16Missing(ce.Log) {
		t.Skipf("this compiler does not refuse _Float16 for -m32 in so many words:\n%s", ce.Log)
	}
	if !strings.Contains(ce.Log, "has no _Float16 for this target, which float16 (half) arguments need: GCC 12 or later") {
		t.Errorf("the log does not say what is missing:\n%s", ce.Log)
	}
}
