//go:build linux

package hostc

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ktune/ktune/device"

	"github.com/ktune/ktune/internal/sysmem"
)

// TestMain gives the package's tests a private object cache; tests that count cache
// files set their own.
func TestMain(m *testing.M) {
	if os.Getenv("KTUNE_HOSTC_STRAY") != "" {
		// A child that crashes on purpose: it uses its parent's cache (KTUNE_CACHE is
		// inherited), since a folder of its own would outlive it.
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "ktune-hostc-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("KTUNE_CACHE", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// openHost opens the host device through the registry, as ktune does.
func openHost(t testing.TB) *hostDevice {
	t.Helper()
	runtime.LockOSThread() // the device contract; undone when the test's goroutine ends
	b, ok := device.Lookup(Name)
	if !ok {
		t.Fatal("backend c is not registered")
	}
	d, err := b.Open(context.Background(), 0)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { d.Close() })
	return d.(*hostDevice)
}

const vaddSource = `#ifndef UNROLL
#define UNROLL 1
#endif
void vadd(float *c, const float *a, const float *b, int n)
{
	int i = 0;
	for (; i + UNROLL <= n; i += UNROLL) {
		#pragma GCC unroll 16
		for (int j = 0; j < UNROLL; j++)
			c[i + j] = a[i + j] + b[i + j];
	}
	for (; i < n; i++)
		c[i] = a[i] + b[i];
}
`

var vaddParams = []device.Param{
	{Name: "c", Type: "float32", Pointer: true},
	{Name: "a", Type: "float32", Pointer: true},
	{Name: "b", Type: "float32", Pointer: true},
	{Name: "n", Type: "int32"},
}

func vaddSrc(unroll int) device.Source {
	return device.Source{
		Code: vaddSource, File: "vadd.c", Kernel: "vadd", Language: "c", Params: vaddParams,
		Defines: []device.Define{{Name: "UNROLL", Value: fmt.Sprint(unroll)}},
	}
}

func float32Bytes(v []float32) []byte {
	out := make([]byte, 0, 4*len(v))
	for _, x := range v {
		out = binary.LittleEndian.AppendUint32(out, math.Float32bits(x))
	}
	return out
}

func bytesFloat32(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

func int32Arg(v int32) device.Arg {
	return device.Arg{Scalar: binary.LittleEndian.AppendUint32(nil, uint32(v))}
}

func alloc(t testing.TB, d *hostDevice, data []byte) device.Buffer {
	t.Helper()
	b, err := d.Alloc(len(data))
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Write(data); err != nil {
		t.Fatal(err)
	}
	return b
}

// runVadd runs k on n elements and checks every sum exactly.
func runVadd(t testing.TB, d *hostDevice, k device.Kernel, n int) {
	t.Helper()
	a, b := make([]float32, n), make([]float32, n)
	for i := range a {
		a[i] = float32(i) * 0.5
		b[i] = float32(n-i) * 0.25
	}
	ba, bb := alloc(t, d, float32Bytes(a)), alloc(t, d, float32Bytes(b))
	bc := alloc(t, d, make([]byte, 4*n))
	defer ba.Release()
	defer bb.Release()
	defer bc.Release()
	dur, err := k.Run(context.Background(), device.Launch{Grid: device.Dim3{1}, Block: device.Dim3{1}},
		[]device.Arg{{Buffer: bc}, {Buffer: ba}, {Buffer: bb}, int32Arg(int32(n))})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if dur <= 0 {
		t.Errorf("duration %v, want > 0", dur)
	}
	out := make([]byte, 4*n)
	if err := bc.Read(out); err != nil {
		t.Fatal(err)
	}
	for i, got := range bytesFloat32(out) {
		if want := a[i] + b[i]; got != want {
			t.Fatalf("c[%d] = %v, want %v", i, got, want)
		}
	}
}

func TestBackendIsRegisteredForC(t *testing.T) {
	if !slices.ContainsFunc(device.ForLanguage("c"), func(b device.Backend) bool { return b.Name() == Name }) {
		t.Fatal("no backend named c compiles c")
	}
}

func TestDevicesListsHostWithAllCPUs(t *testing.T) {
	b, _ := device.Lookup(Name)
	infos, err := b.Devices()
	if err != nil {
		t.Fatalf("Devices: %v", err)
	}
	if len(infos) != 1 {
		t.Fatalf("%d devices, want 1", len(infos))
	}
	info := infos[0]
	if info.Backend != Name || info.Index != 0 || info.Type != "cpu" || info.Name == "" {
		t.Errorf("info = %+v", info)
	}
	if info.ComputeUnits != runtime.NumCPU() {
		t.Errorf("compute units %d, want %d", info.ComputeUnits, runtime.NumCPU())
	}
	if info.GlobalMemBytes <= 0 {
		t.Errorf("global memory %d, want > 0", info.GlobalMemBytes)
	}
	if got := openHost(t).Info(); got.Name != info.Name || got.ComputeUnits != info.ComputeUnits {
		t.Errorf("the opened device says %+v, the list %+v", got, info)
	}
	if _, err := b.Open(context.Background(), 1); err == nil {
		t.Error("Open(1) succeeded; there is one device")
	}
}

func TestDevicesUnavailableWithoutCompiler(t *testing.T) {
	b, _ := device.Lookup(Name)
	cases := []struct {
		name, cc, path string
	}{
		{"CC names no program", "/nonexistent/ktune-cc", os.Getenv("PATH")},
		{"nothing on PATH", "", t.TempDir()},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("CC", c.cc)
			t.Setenv("PATH", c.path)
			_, err := b.Devices()
			if !errors.Is(err, device.ErrUnavailable) {
				t.Fatalf("Devices error = %v, want ErrUnavailable", err)
			}
			if !strings.Contains(err.Error(), "install") {
				t.Errorf("error %q does not say what to install", err)
			}
		})
	}
}

func TestVectorAddIsExactForEveryUnroll(t *testing.T) {
	d := openHost(t)
	for _, unroll := range []int{1, 4, 7} {
		t.Run(fmt.Sprint("unroll=", unroll), func(t *testing.T) {
			k, err := d.Compile(context.Background(), vaddSrc(unroll))
			if err != nil {
				t.Fatalf("Compile: %v", err)
			}
			defer k.Release()
			runVadd(t, d, k, 1<<20+3) // +3 exercises the remainder loop
			if k.Attributes()["binary_bytes"] <= 0 {
				t.Errorf("attributes %v lack the object size", k.Attributes())
			}
		})
	}
}

func TestScalarsArriveWithTheirTypes(t *testing.T) {
	d := openHost(t)
	src := device.Source{
		Kernel: "scalars",
		Code: `#include <stdint.h>
#include <string.h>
void scalars(unsigned char *out, int32_t a, int64_t b, float c, double d,
             int8_t e, int16_t f, uint8_t g, uint16_t h, uint32_t i, uint64_t j)
{
	memcpy(out + 0, &a, 4); memcpy(out + 8, &b, 8); memcpy(out + 16, &c, 4); memcpy(out + 24, &d, 8);
	memcpy(out + 32, &e, 1); memcpy(out + 40, &f, 2); memcpy(out + 48, &g, 1); memcpy(out + 56, &h, 2);
	memcpy(out + 64, &i, 4); memcpy(out + 72, &j, 8);
	double sum = a + c + d; /* the values, not just their bytes, must be right */
	memcpy(out + 80, &sum, 8);
}
`,
		Params: []device.Param{
			{Name: "out", Type: "uint8", Pointer: true},
			{Name: "a", Type: "int32"}, {Name: "b", Type: "int64"}, {Name: "c", Type: "float32"}, {Name: "d", Type: "float64"},
			{Name: "e", Type: "int8"}, {Name: "f", Type: "int16"}, {Name: "g", Type: "uint8"}, {Name: "h", Type: "uint16"},
			{Name: "i", Type: "uint32"}, {Name: "j", Type: "uint64"},
		},
	}
	k, err := d.Compile(context.Background(), src)
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	defer k.Release()
	le := binary.LittleEndian
	var ( // variables, so that converting the negative ones to unsigned is allowed
		a = int32(-123456789)
		b = int64(-1<<62 + 5)
		c = float32(3.1415927)
		e = float64(-2.5e300)
	)
	args := []device.Arg{
		{Scalar: le.AppendUint32(nil, uint32(a))},
		{Scalar: le.AppendUint64(nil, uint64(b))},
		{Scalar: le.AppendUint32(nil, math.Float32bits(c))},
		{Scalar: le.AppendUint64(nil, math.Float64bits(e))},
		{Scalar: []byte{0x9c}},                     // int8 -100
		{Scalar: le.AppendUint16(nil, 0x8ad0)},     // int16 -30000
		{Scalar: []byte{250}},                      // uint8
		{Scalar: le.AppendUint16(nil, 65000)},      // uint16
		{Scalar: le.AppendUint32(nil, 4000000000)}, // uint32
		{Scalar: le.AppendUint64(nil, 1<<63+7)},    // uint64
	}
	out := alloc(t, d, make([]byte, 88))
	defer out.Release()
	if _, err := k.Run(context.Background(), device.Launch{}, append([]device.Arg{{Buffer: out}}, args...)); err != nil {
		t.Fatalf("Run: %v", err)
	}
	got := make([]byte, 88)
	if err := out.Read(got); err != nil {
		t.Fatal(err)
	}
	for i, arg := range args {
		if slot := got[8*i : 8*i+len(arg.Scalar)]; !slices.Equal(slot, arg.Scalar) {
			t.Errorf("%s: kernel received % x, sent % x", src.Params[i+1].Type, slot, arg.Scalar)
		}
	}
	if sum, want := math.Float64frombits(le.Uint64(got[80:])), float64(a)+float64(c)+e; sum != want {
		t.Errorf("a + c + d = %v, want %v", sum, want)
	}
}

// A scalar whose C parameter cannot hold every value of the spec's type is a compile
// error that names the argument: C converted it without a word, so that a float64 0.1
// reached a float parameter as 0.1f, a float32 2.5 an int parameter as 2, an int64 of
// 5e9 an int parameter wrapped. A parameter that holds every value (a wider integer,
// double for an int32 or a float32) or differs in sign only still compiles.
func TestLossyScalarConversionsAreCompileErrorsNamingTheArgument(t *testing.T) {
	d := openHost(t)
	params := []device.Param{
		{Name: "out", Type: "float64", Pointer: true},
		{Name: "alpha", Type: "float64"}, {Name: "beta", Type: "float32"}, {Name: "n", Type: "int64"}, {Name: "m", Type: "int32"},
	}
	cases := []struct {
		name, decl string
		arg        int // the parameter that loses values, 0 for none
	}{
		{"float64 as float", "double *out, float alpha, float beta, long n, int m", 1},
		{"float32 as int", "double *out, double alpha, int beta, long n, int m", 2},
		{"int64 as int", "double *out, double alpha, float beta, int n, int m", 3},
		{"int32 as float", "double *out, double alpha, float beta, long n, float m", 4},
		{"wider and unsigned", "double *out, long double alpha, double beta, unsigned long n, double m", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := d.Compile(context.Background(), device.Source{
				Kernel: "k", File: "k.c", Params: params,
				Code: "void k(" + c.decl + ") { out[0] = (double)alpha + (double)beta + (double)n + (double)m; }\n",
			})
			if c.arg == 0 {
				if err != nil {
					t.Fatalf("Compile: %v", err)
				}
				return
			}
			p := params[c.arg]
			wantArgumentBlamed(t, err, params, c.arg,
				fmt.Sprintf("passes the spec's argument %s (%s scalar) as parameter %d of k: declare it `%s`", p.Name, p.Type, c.arg+1, cDecl(p)))
		})
	}
}

// wantArgumentBlamed checks that err is a compile error whose log says want, and blames
// no argument of params but params[arg].
func wantArgumentBlamed(t *testing.T, err error, params []device.Param, arg int, want string) {
	t.Helper()
	var ce *device.CompileError
	if !errors.As(err, &ce) {
		t.Fatalf("error %v (%T), want *device.CompileError", err, err)
	}
	if !strings.Contains(ce.Log, want) {
		t.Errorf("log does not say %q:\n%s", want, ce.Log)
	}
	for i, other := range params {
		if i != arg && strings.Contains(ce.Log, "argument "+other.Name+" (") {
			t.Errorf("log blames %s too:\n%s", other.Name, ce.Log)
		}
	}
}

// A scalar declared a pointer in C, or an array declared an integer, is a compile error
// naming the argument: GCC 12 and Clang 14 only warn of the int conversion, and the
// kernel crashed dereferencing the scalar's value (SIGSEGV, nothing said of the
// argument) or read the array's address as a number.
func TestScalarsAndArraysSwappedAreCompileErrorsNamingTheArgument(t *testing.T) {
	d := openHost(t)
	params := []device.Param{{Name: "out", Type: "float64", Pointer: true}, {Name: "n", Type: "int64"}}
	for _, c := range []struct {
		decl, body string
		arg        int
	}{
		{"double *out, long *n", "out[0] = (double)*n;", 1},
		{"long out, long n", "(void)out; (void)n;", 0},
	} {
		_, err := d.Compile(context.Background(), device.Source{
			Kernel: "k", File: "k.c", Params: params, Code: "void k(" + c.decl + ") { " + c.body + " }\n",
		})
		var ce *device.CompileError
		if !errors.As(err, &ce) {
			t.Errorf("%s: error %v (%T), want *device.CompileError", c.decl, err, err)
			continue
		}
		p := params[c.arg]
		if want := fmt.Sprintf("passes the spec's argument %s", p.Name); !strings.Contains(ce.Log, want) {
			t.Errorf("%s: log does not say %q:\n%s", c.decl, want, ce.Log)
		}
	}
}

// Arrays whose elements differ in sign only (an int8 array declared char *, the spec's
// "char", a uint32 one int *) compile under the user's -Wall -Werror, as scalars that
// differ in sign do: the wrapper's -Wpointer-sign warning failed every configuration.
func TestArraysDifferingInSignOnlyCompileUnderWerror(t *testing.T) {
	d := openHost(t)
	_, err := d.Compile(context.Background(), device.Source{
		Kernel: "k", File: "k.c", Options: []string{"-Wall -Werror"},
		Params: []device.Param{{Name: "out", Type: "int8", Pointer: true}, {Name: "in", Type: "uint32", Pointer: true}, {Name: "n", Type: "int32"}},
		Code:   "void k(char *out, const int *in, unsigned n) { for (unsigned i = 0; i < n; i++) out[i] = (char)in[i]; }\n",
	})
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
}

func TestOpenMPKernelRunsInParallel(t *testing.T) {
	d := openHost(t)
	src := device.Source{
		Kernel:  "scale",
		Options: []string{"-fopenmp"},
		Code: `#include <omp.h>
void scale(double *x, int *threads, int n)
{
	#pragma omp parallel for
	for (int i = 0; i < n; i++)
		x[i] = 2.0 * i;
	*threads = omp_get_max_threads();
}
`,
		Params: []device.Param{{Name: "x", Type: "float64", Pointer: true}, {Name: "threads", Type: "int32", Pointer: true}, {Name: "n", Type: "int32"}},
	}
	const n = 100000
	for round := range 2 { // the second round loads OpenMP again after the first closed it
		k, err := d.Compile(context.Background(), src)
		var ce *device.CompileError
		if errors.As(err, &ce) && strings.Contains(ce.Log, "omp") {
			t.Skipf("the compiler has no OpenMP: %s", ce.Log)
		}
		if err != nil {
			t.Fatalf("Compile: %v", err)
		}
		x, threads := alloc(t, d, make([]byte, 8*n)), alloc(t, d, make([]byte, 4))
		if _, err := k.Run(context.Background(), device.Launch{}, []device.Arg{{Buffer: x}, {Buffer: threads}, int32Arg(n)}); err != nil {
			t.Fatalf("round %d: Run: %v", round, err)
		}
		got := make([]byte, 8*n)
		x.Read(got)
		for i := range n {
			if v := math.Float64frombits(binary.LittleEndian.Uint64(got[8*i:])); v != 2*float64(i) {
				t.Fatalf("round %d: x[%d] = %v, want %v", round, i, v, 2*float64(i))
			}
		}
		var tb [4]byte
		threads.Read(tb[:])
		if th := int32(binary.LittleEndian.Uint32(tb[:])); th < 1 {
			t.Errorf("omp_get_max_threads = %d", th)
		}
		k.Release()
		x.Release()
		threads.Release()
	}
	pinned.Lock()
	defer pinned.Unlock()
	if len(pinned.libs) == 0 {
		t.Error("the OpenMP runtime was not pinned")
	}
}

func TestSyntaxErrorIsCompileErrorWithTheLine(t *testing.T) {
	d := openHost(t)
	file := filepath.Join(t.TempDir(), "broken.c")
	_, err := d.Compile(context.Background(), device.Source{
		Code:   "void broken(float *x)\n{\n\tx[0] = 1.0f\n\tx[1] = 2.0f;\n}\n",
		File:   file,
		Kernel: "broken",
		Params: []device.Param{{Name: "x", Type: "float32", Pointer: true}},
	})
	var ce *device.CompileError
	if !errors.As(err, &ce) {
		t.Fatalf("error %v (%T), want *device.CompileError", err, err)
	}
	if !strings.Contains(ce.Log, file+":3:") && !strings.Contains(ce.Log, file+":4:") {
		t.Errorf("log does not point at %s line 3 or 4:\n%s", file, ce.Log)
	}
	if !strings.Contains(ce.Log, "error") {
		t.Errorf("log has no error message:\n%s", ce.Log)
	}
}

func TestMissingSymbolsAreCompileErrors(t *testing.T) {
	d := openHost(t)
	cases := []struct {
		name, code, kernel, want string
	}{
		{"kernel not defined", "void other(void) {}\n", "absent", "absent"},
		{"undefined function at load", "extern void ktune_nowhere(void);\nvoid calls(void) { ktune_nowhere(); }\n", "calls", "ktune_nowhere"},
		// without OpenMP, its functions are undefined: the note says what to set
		{"OpenMP function without OpenMP", "extern int omp_get_max_threads(void);\nvoid threads(void) { (void)omp_get_max_threads(); }\n", "threads",
			"omp_get_max_threads is a function of OpenMP's runtime, which the kernel is not compiled with: set kernel.openmp: true"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := d.Compile(context.Background(), device.Source{Code: c.code, Kernel: c.kernel})
			var ce *device.CompileError
			if !errors.As(err, &ce) {
				t.Fatalf("error %v (%T), want *device.CompileError", err, err)
			}
			if !strings.Contains(ce.Error(), c.want) {
				t.Errorf("error does not name %s:\n%s", c.want, ce.Error())
			}
		})
	}
}

// A compiler that fails without a word (a wrapper that exits 1 quietly) gives a compile
// error that says which compiler it was, how it ended and that it printed nothing: its
// empty output used to be the whole message. One killed (the out-of-memory killer's
// SIGKILL) is a compile error of the configuration too, with a note on what to do.
func TestACompilerThatFailsSilentlySaysHowItEnded(t *testing.T) {
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip(err)
	}
	cc := filepath.Join(t.TempDir(), "quiet-cc")
	script := "#!/bin/sh\nfor a in \"$@\"; do case \"$a\" in\n" +
		"-DQUIET_EXIT=1) exit 1;;\n-DQUIET_KILL=1) kill -KILL $$;;\nesac; done\nexec " + gcc + " \"$@\"\n"
	if err := os.WriteFile(cc, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CC", cc)
	d := openHost(t)
	t.Run("QUIET_EXIT", func(t *testing.T) {
		_, err := d.Compile(context.Background(), device.Source{Code: "void k(void) {}", Kernel: "k",
			Defines: []device.Define{{Name: "QUIET_EXIT", Value: "1"}}})
		var ce *device.CompileError
		if !errors.As(err, &ce) {
			t.Fatalf("error %v (%T), want *device.CompileError", err, err)
		}
		if want := "the compiler (" + cc + ") exited with status 1 and printed nothing"; strings.TrimSpace(ce.Log) != want {
			t.Errorf("log %q, want %q", ce.Log, want)
		}
	})
	t.Run("QUIET_KILL", func(t *testing.T) {
		_, err := d.Compile(context.Background(), device.Source{Code: "void k(void) {}", Kernel: "k",
			Defines: []device.Define{{Name: "QUIET_KILL", Value: "1"}}})
		var ce *device.CompileError
		if !errors.As(err, &ce) {
			t.Fatalf("error %v (%T), want *device.CompileError", err, err)
		}
		want := "the compiler (" + cc + ") was killed by signal SIGKILL (killed) and printed nothing\nnote: the compiler was killed, as the out-of-memory killer does"
		if !strings.HasPrefix(ce.Log, want) {
			t.Errorf("log %q, want it to start %q", ce.Log, want)
		}
	})
}

func TestSourcesTheBackendCannotTakeAreRejected(t *testing.T) {
	d := openHost(t)
	cases := []struct {
		name string
		src  device.Source
	}{
		{"another language", device.Source{Code: "__kernel void k() {}", Kernel: "k", Language: "opencl"}},
		{"kernel name not an identifier", device.Source{Code: "void k(void) {}", Kernel: "k<int>"}},
		{"definition name not an identifier", device.Source{Code: "void k(void) {}", Kernel: "k", Defines: []device.Define{{Name: "-o /tmp/x", Value: "1"}}}},
		{"unknown scalar type", device.Source{Code: "void k(int x) {}", Kernel: "k", Params: []device.Param{{Name: "x", Type: "complex64"}}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := d.Compile(context.Background(), c.src); err == nil {
				t.Fatal("Compile succeeded")
			}
		})
	}
}

func TestSecondCompileIsCacheHit(t *testing.T) {
	t.Setenv("KTUNE_CACHE", t.TempDir())
	d := openHost(t)
	objects := func() []string {
		m, _ := filepath.Glob(filepath.Join(d.cache.dir, "*.so"))
		return m
	}
	before, builds := len(objects()), d.builds.Load()

	k1, err := d.Compile(context.Background(), vaddSrc(4))
	if err != nil {
		t.Fatal(err)
	}
	defer k1.Release()
	if got := d.builds.Load() - builds; got != 1 {
		t.Fatalf("first compile ran the compiler %d times, want 1", got)
	}
	if got := len(objects()) - before; got != 1 {
		t.Fatalf("first compile left %d new objects, want 1", got)
	}

	hits := d.hits.Load()
	k2, err := d.Compile(context.Background(), vaddSrc(4))
	if err != nil {
		t.Fatal(err)
	}
	defer k2.Release()
	runVadd(t, d, k2, 1000)
	if d.hits.Load() != hits+1 || d.builds.Load() != builds+1 {
		t.Errorf("second compile: %d hits, %d builds; want 1 hit and no build", d.hits.Load()-hits, d.builds.Load()-builds-1)
	}

	// Another device on the same cache, as a pre-compiling process would leave it.
	d2 := openHost(t)
	k3, err := d2.Compile(context.Background(), vaddSrc(4))
	if err != nil {
		t.Fatal(err)
	}
	defer k3.Release()
	if d2.hits.Load() < 1 {
		t.Error("a second device did not hit the shared cache")
	}

	// A different definition is a different object.
	k4, err := d.Compile(context.Background(), vaddSrc(8))
	if err != nil {
		t.Fatal(err)
	}
	defer k4.Release()
	if got := len(objects()) - before; got != 2 {
		t.Errorf("%d objects after two configurations, want 2", got)
	}
}

func TestEditedHeaderMissesTheCache(t *testing.T) {
	t.Setenv("KTUNE_CACHE", t.TempDir())
	d := openHost(t)
	dir := t.TempDir()
	header := filepath.Join(dir, "value.h")
	src := device.Source{
		Code:   "#include \"value.h\"\nvoid value(int *out) { *out = VALUE; }\n",
		File:   filepath.Join(dir, "value.c"),
		Kernel: "value",
		Params: []device.Param{{Name: "out", Type: "int32", Pointer: true}},
	}
	out := alloc(t, d, make([]byte, 4))
	for _, v := range []int{7, 7, 9} {
		if err := os.WriteFile(header, fmt.Appendf(nil, "#define VALUE %d\n", v), 0o644); err != nil {
			t.Fatal(err)
		}
		k, err := d.Compile(context.Background(), src)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := k.Run(context.Background(), device.Launch{}, []device.Arg{{Buffer: out}}); err != nil {
			t.Fatal(err)
		}
		var b [4]byte
		out.Read(b[:])
		if got := int(binary.LittleEndian.Uint32(b[:])); got != v {
			t.Errorf("kernel wrote %d with VALUE %d in the header", got, v)
		}
		k.Release()
	}
	if d.hits.Load() < 1 {
		t.Error("the unchanged header did not hit the cache")
	}
}

func TestDamagedCachedObjectIsRebuilt(t *testing.T) {
	t.Setenv("KTUNE_CACHE", t.TempDir())
	d := openHost(t)
	k, err := d.Compile(context.Background(), vaddSrc(2))
	if err != nil {
		t.Fatal(err)
	}
	path := k.(*kernel).path
	k.Release() // unloaded, so the next dlopen reads the file
	if err := os.WriteFile(path, []byte("not an ELF object"), 0o644); err != nil {
		t.Fatal(err)
	}
	k, err = d.Compile(context.Background(), vaddSrc(2))
	if err != nil {
		t.Fatalf("Compile after damage: %v", err)
	}
	defer k.Release()
	runVadd(t, d, k, 100)
}

// A cached object cut short keeps its ELF header, and dlopen of it dies of SIGBUS in the
// process that loads it (ktune itself, when it probes the device): it must be rebuilt
// before it is loaded.
func TestTruncatedCachedObjectIsRebuiltNotLoaded(t *testing.T) {
	t.Setenv("KTUNE_CACHE", t.TempDir())
	d := openHost(t)
	k, err := d.Compile(context.Background(), vaddSrc(3))
	if err != nil {
		t.Fatal(err)
	}
	path := k.(*kernel).path
	k.Release()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Damaged in place, as a full disk or an interrupted copy leaves it.
	if err := os.WriteFile(path, data[:1000], 0o644); err != nil {
		t.Fatal(err)
	}
	builds := d.builds.Load()
	k, err = d.Compile(context.Background(), vaddSrc(3))
	if err != nil {
		t.Fatalf("Compile after damage: %v", err)
	}
	defer k.Release()
	if d.builds.Load() != builds+1 {
		t.Errorf("the damaged object was not rebuilt (%d builds)", d.builds.Load()-builds)
	}
	runVadd(t, d, k, 100)
}

// A cache folder deleted while ktune runs (a cleaner, rm -rf ~/.cache) is made again: the
// configurations compiled after it are not failed for want of its lock files.
func TestCacheDeletedWhileOpenIsMadeAgain(t *testing.T) {
	t.Setenv("KTUNE_CACHE", t.TempDir())
	d := openHost(t)
	k, err := d.Compile(context.Background(), vaddSrc(5))
	if err != nil {
		t.Fatal(err)
	}
	k.Release()
	if err := os.RemoveAll(d.cache.dir); err != nil {
		t.Fatal(err)
	}
	for _, unroll := range []int{5, 6} {
		k, err := d.Compile(context.Background(), vaddSrc(unroll))
		if err != nil {
			t.Fatalf("Compile (unroll %d) after the cache was deleted: %v", unroll, err)
		}
		runVadd(t, d, k, 100)
		k.Release()
	}
}

func TestOpeningSweepsAbandonedBuilds(t *testing.T) {
	t.Setenv("KTUNE_CACHE", t.TempDir())
	dir, err := CacheDir()
	if err != nil {
		t.Fatal(err)
	}
	old, fresh := filepath.Join(dir, "build-old"), filepath.Join(dir, "build-fresh")
	for _, p := range []string{old, fresh} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	long := time.Now().Add(-2 * time.Hour)
	os.Chtimes(old, long, long)
	openHost(t)
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("an abandoned build directory survived: %v", err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("a build directory in use was removed: %v", err)
	}
}

func TestParallelCompilesOfDifferentConfigurations(t *testing.T) {
	t.Setenv("KTUNE_CACHE", t.TempDir())
	d := openHost(t)
	unrolls := []int{1, 2, 3, 5, 6, 3, 5, 1} // some twice: those race for one object
	kernels := make([]device.Kernel, len(unrolls))
	errs := make([]error, len(unrolls))
	var wg sync.WaitGroup
	for i, u := range unrolls {
		wg.Go(func() { kernels[i], errs[i] = d.Compile(context.Background(), vaddSrc(u)) })
	}
	wg.Wait()
	for i, k := range kernels {
		if errs[i] != nil {
			t.Fatalf("unroll %d: %v", unrolls[i], errs[i])
		}
		runVadd(t, d, k, 4099)
		k.Release()
	}
	if n := d.builds.Load(); n > 5+1 { // five configurations and the probe
		t.Errorf("%d compiler runs for 5 configurations", n)
	}
}

func TestCompileHonoursContext(t *testing.T) {
	d := openHost(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	src := vaddSrc(1)
	src.Defines = append(src.Defines, device.Define{Name: "CANCELLED"}) // not in the cache
	if _, err := d.Compile(ctx, src); !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
}

func TestRunRejectsBadArguments(t *testing.T) {
	d := openHost(t)
	k, err := d.Compile(context.Background(), vaddSrc(1))
	if err != nil {
		t.Fatal(err)
	}
	defer k.Release()
	buf := alloc(t, d, make([]byte, 64))
	gone := alloc(t, d, make([]byte, 64))
	gone.Release()
	n := int32Arg(16)
	cases := []struct {
		name string
		args []device.Arg
	}{
		{"too few", []device.Arg{{Buffer: buf}, {Buffer: buf}, {Buffer: buf}}},
		{"local memory", []device.Arg{{Buffer: buf}, {Local: 256}, {Buffer: buf}, n}},
		{"scalar of the wrong size", []device.Arg{{Buffer: buf}, {Buffer: buf}, {Buffer: buf}, {Scalar: []byte{1, 0}}}},
		{"buffer for a scalar", []device.Arg{{Buffer: buf}, {Buffer: buf}, {Buffer: buf}, {Buffer: buf}}},
		{"scalar for an array", []device.Arg{n, {Buffer: buf}, {Buffer: buf}, n}},
		{"released buffer", []device.Arg{{Buffer: gone}, {Buffer: buf}, {Buffer: buf}, n}},
		{"empty", []device.Arg{{}, {Buffer: buf}, {Buffer: buf}, n}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := k.Run(context.Background(), device.Launch{}, c.args)
			var re *device.RuntimeError
			if !errors.As(err, &re) {
				t.Fatalf("error %v (%T), want *device.RuntimeError", err, err)
			}
		})
	}
	k.Release()
	if _, err := k.Run(context.Background(), device.Launch{}, []device.Arg{{Buffer: buf}, {Buffer: buf}, {Buffer: buf}, n}); err == nil {
		t.Error("Run after Release succeeded")
	}
}

func TestBuffersCopyWithinBounds(t *testing.T) {
	d := openHost(t)
	b, err := d.Alloc(10)
	if err != nil {
		t.Fatal(err)
	}
	if b.Size() != 10 {
		t.Errorf("size %d, want 10", b.Size())
	}
	if err := b.Write([]byte("0123456789")); err != nil {
		t.Fatal(err)
	}
	if err := b.Write([]byte("ab")); err != nil { // a prefix
		t.Fatal(err)
	}
	got := make([]byte, 10)
	if err := b.Read(got); err != nil || string(got) != "ab23456789" {
		t.Errorf("read %q, %v", got, err)
	}
	if err := b.Write(make([]byte, 11)); err == nil {
		t.Error("writing 11 bytes into 10 succeeded")
	}
	if err := b.Read(make([]byte, 11)); err == nil {
		t.Error("reading 11 bytes from 10 succeeded")
	}
	if _, err := d.Alloc(-1); err == nil {
		t.Error("Alloc(-1) succeeded")
	}
	zero, err := d.Alloc(0)
	if err != nil || zero.Size() != 0 {
		t.Errorf("Alloc(0) = %v, %v", zero, err)
	}
	d.Close() // releases b and zero
	if err := b.Read(got); err == nil {
		t.Error("Read after Close succeeded")
	}
	b.Release() // after Close: nothing left to do
	if _, err := d.Alloc(1); err == nil {
		t.Error("Alloc after Close succeeded")
	}
}

func TestOptionsAndDefinitionsReachTheCompiler(t *testing.T) {
	u, err := newUnit(device.Source{
		Code: "void k(void) {}", File: "dir/k.c", Kernel: "k",
		Options: []string{"-O2 -ffast-math", "-qopenmp", "-lfoo"},
		Defines: []device.Define{{Name: "A", Value: "1"}, {Name: "FLAG"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs("dir")
	want := []string{"-O3", "-march=native", "-fPIC", "-shared", "-fdiagnostics-color=never",
		"-O2", "-ffast-math", "-fopenmp", "-DA=1", "-DFLAG=", "-I", abs}
	if !slices.Equal(u.flags, want) {
		t.Errorf("flags\n %q\nwant\n %q", u.flags, want)
	}
	if !slices.Equal(u.libs, []string{"-lfoo", "-lm"}) {
		t.Errorf("libs %q", u.libs)
	}
	if !strings.HasPrefix(u.text, "#line 1 \"dir/k.c\"\n") {
		t.Errorf("unit does not keep the user's line numbers:\n%s", u.text)
	}
}

// A definition with an empty value (a string parameter's "", beside "restrict" or a
// pragma) defines the name as nothing, as on the OpenCL and CUDA backends: the kernel
// used to see it as 1, and `float *QUAL x` failed to compile for the "" value.
func TestAnEmptyDefinitionIsEmpty(t *testing.T) {
	d := openHost(t)
	k, err := d.Compile(context.Background(), device.Source{
		Kernel: "k", Params: []device.Param{{Name: "out", Type: "int32", Pointer: true}},
		Code: `#define STR_(x) #x
#define STR(x) STR_(x)
void k(int *QUAL out) { out[0] = (int)sizeof(STR(QUAL)); }
`,
		Defines: []device.Define{{Name: "QUAL", Value: ""}},
	})
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	defer k.Release()
	out := alloc(t, d, make([]byte, 4))
	defer out.Release()
	if _, err := k.Run(context.Background(), device.Launch{}, []device.Arg{{Buffer: out}}); err != nil {
		t.Fatalf("Run: %v", err)
	}
	got := make([]byte, 4)
	if err := out.Read(got); err != nil {
		t.Fatal(err)
	}
	if n := binary.LittleEndian.Uint32(got); n != 1 {
		t.Errorf("QUAL is spelled in %d bytes with its terminating NUL, want 1 (empty)", n)
	}
}

// Every tuning parameter is a macro, so the call wrapper must not use a name that one may
// have and the spec allows: parameters named visibility, tv_sec or tv_nsec failed every
// configuration with errors in the wrapper and a note blaming the kernel's definition.
// Each name the wrapper spells outside its strings, but for C's keywords, reserved names
// and its own ktune_ names, is defined here as a number, and the kernel must still run.
func TestTheWrapperSurvivesMacrosOfItsNames(t *testing.T) {
	d := openHost(t)
	src := device.Source{
		Kernel: "k", Params: []device.Param{{Name: "x", Type: "float32", Pointer: true}, {Name: "n", Type: "int32"}},
		Code: "void k(float *x, int n) { x[0] = (float)n; }\n",
	}
	u, err := newUnit(src)
	if err != nil {
		t.Fatal(err)
	}
	_, wrapper, _ := strings.Cut(u.text, wrapperFile)
	wrapper = regexp.MustCompile(`"[^"\n]*"`).ReplaceAllString(wrapper, "")
	keywords := strings.Fields("char const double extern float int long sizeof struct typedef void pragma k")
	var names []string
	for _, name := range regexp.MustCompile(`\b[A-Za-z_][A-Za-z0-9_]*`).FindAllString(wrapper, -1) {
		if !strings.HasPrefix(name, "__") && !strings.HasPrefix(name, "ktune_") && !slices.Contains(keywords, name) && !slices.Contains(names, name) {
			names = append(names, name)
			src.Defines = append(src.Defines, device.Define{Name: name, Value: "7"})
		}
	}
	if !slices.Contains(names, "GCC") { // the test looks at the wrapper
		t.Fatalf("found %q in the wrapper:\n%s", names, wrapper)
	}
	k, err := d.Compile(context.Background(), src)
	if err != nil {
		t.Fatalf("Compile with %q defined: %v", names, err)
	}
	defer k.Release()
	out := alloc(t, d, make([]byte, 4))
	defer out.Release()
	if _, err := k.Run(context.Background(), device.Launch{}, []device.Arg{{Buffer: out}, int32Arg(5)}); err != nil {
		t.Fatalf("Run: %v", err)
	}
	got := make([]byte, 4)
	if err := out.Read(got); err != nil {
		t.Fatal(err)
	}
	if x := bytesFloat32(got)[0]; x != 5 {
		t.Errorf("x[0] = %v, want 5", x)
	}
}

// A sanitizer whose runtime must be in the program from its start is refused before the
// compiler runs, saying what to do: an object built with -fsanitize=address ended the
// worker that loaded it (exit status 1, restarted for every configuration) with ASan's
// advice to use LD_PRELOAD, which a ktune user cannot follow. UBSan loads and stays.
func TestSanitizersThatCannotLoadAreRefused(t *testing.T) {
	for _, c := range []struct {
		opt, want string
	}{
		{"-fsanitize=address", "AddressSanitizer"},
		{"-g -fsanitize=undefined,address", "AddressSanitizer"},
		{"-fsanitize=thread", "ThreadSanitizer"},
		{"-fsanitize=memory", "MemorySanitizer"},
		{"-fsanitize=undefined -fno-sanitize-recover=all", ""},
	} {
		_, err := newUnit(device.Source{Code: "void k(void) {}", Kernel: "k", Options: []string{c.opt}})
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.opt, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want+"'s runtime must be in a program from its start") || !strings.Contains(err.Error(), "-fsanitize=undefined here")):
			t.Errorf("%s: error %v, want one naming %s and what to use instead", c.opt, err, c.want)
		}
	}
}

// A C89 kernel built with -std=c89 -pedantic-errors compiles and runs: the call wrapper's
// long long (its duration, 1000000000LL) failed every configuration with "ISO C90 does
// not support 'long long'" at <ktune call wrapper>.
func TestTheWrapperIsC89(t *testing.T) {
	d := openHost(t)
	k, err := d.Compile(context.Background(), device.Source{
		Kernel: "k", Params: []device.Param{{Name: "x", Type: "float32", Pointer: true}, {Name: "n", Type: "int32"}},
		Code:    "void k(float *x, int n)\n{\n\tx[0] = (float)n;\n}\n",
		Options: []string{"-std=c89 -pedantic-errors -Wall -Wextra -Werror"},
	})
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	defer k.Release()
	out := alloc(t, d, make([]byte, 4))
	defer out.Release()
	if _, err := k.Run(context.Background(), device.Launch{}, []device.Arg{{Buffer: out}, int32Arg(5)}); err != nil {
		t.Fatalf("Run: %v", err)
	}
	got := make([]byte, 4)
	if err := out.Read(got); err != nil {
		t.Fatal(err)
	}
	if x := bytesFloat32(got)[0]; x != 5 {
		t.Errorf("x[0] = %v, want 5", x)
	}
}

func TestParseDepsReadsMakeRules(t *testing.T) {
	cases := []struct {
		name, rule string
		want       []string
	}{
		{"one line", "/b/k.so: /b/k.c /usr/include/stdio.h\n", []string{"/usr/include/stdio.h"}},
		{"continued", "/b/k.so: /b/k.c \\\n /inc/a.h \\\n /inc/b.h\n", []string{"/inc/a.h", "/inc/b.h"}},
		{"escaped space", "/b/k.so: /b/k.c /my\\ dir/a.h\n", []string{"/my dir/a.h"}},
		{"duplicates", "/b/k.so: /b/k.c /a.h /a.h\n", []string{"/a.h"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := parseDeps([]byte(c.rule), "/b/k.c"); !slices.Equal(got, c.want) {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

func BenchmarkCompile(b *testing.B) {
	b.Setenv("KTUNE_CACHE", b.TempDir())
	d := openHost(b)
	b.Run("cold", func(b *testing.B) {
		for i := range b.N {
			src := vaddSrc(4)
			src.Defines = append(src.Defines, device.Define{Name: "SALT", Value: fmt.Sprint(i)}) // a new configuration each time
			k, err := d.Compile(context.Background(), src)
			if err != nil {
				b.Fatal(err)
			}
			k.Release()
		}
	})
	b.Run("cached", func(b *testing.B) {
		k, err := d.Compile(context.Background(), vaddSrc(4))
		if err != nil {
			b.Fatal(err)
		}
		k.Release()
		b.ResetTimer()
		for range b.N {
			k, err := d.Compile(context.Background(), vaddSrc(4))
			if err != nil {
				b.Fatal(err)
			}
			k.Release()
		}
	})
}

func BenchmarkRun(b *testing.B) {
	d := openHost(b)
	k, err := d.Compile(context.Background(), device.Source{
		Code: "void tiny(int *x, int v) { *x = v; }\n", Kernel: "tiny",
		Params: []device.Param{{Name: "x", Type: "int32", Pointer: true}, {Name: "v", Type: "int32"}},
	})
	if err != nil {
		b.Fatal(err)
	}
	defer k.Release()
	buf := alloc(b, d, make([]byte, 4))
	args := []device.Arg{{Buffer: buf}, int32Arg(3)}
	var kernelTime int64
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		dur, err := k.Run(context.Background(), device.Launch{}, args)
		if err != nil {
			b.Fatal(err)
		}
		kernelTime += int64(dur)
	}
	b.ReportMetric(float64(kernelTime)/float64(b.N), "measured-ns/op")
}

// strayKernel writes its n elements, then ahead elements past the end of x and behind
// elements before its start.
var strayKernel = device.Source{
	Code: `void stray(int *x, int n, int ahead, int behind) {
	for (int i = 0; i < n; i++) x[i] = i;
	for (int i = 0; i < ahead; i++) x[n + i] = -1;
	for (int i = 1; i <= behind; i++) x[-i] = -1;
}
`, Kernel: "stray",
	Params: []device.Param{{Name: "x", Type: "int32", Pointer: true}, {Name: "n", Type: "int32"},
		{Name: "ahead", Type: "int32"}, {Name: "behind", Type: "int32"}},
}

// A kernel that writes a few elements outside an array, where the mapping's slack used
// to take the writes unnoticed, fails with a runtime error that names the array and
// says what to check; the buffer's next launch, within bounds, succeeds.
func TestWritesJustOutsideAnArrayAreRuntimeErrorsNamingIt(t *testing.T) {
	d := openHost(t)
	k, err := d.Compile(context.Background(), strayKernel)
	if err != nil {
		t.Fatal(err)
	}
	defer k.Release()
	cases := []struct {
		name          string
		n             int // elements of x; the data ends within 64 bytes of a page
		ahead, behind int
		want          string // in the error; "" for none
	}{
		{"within bounds", 10, 0, 0, ""},
		{"one past the end", 10, 1, 0, "the kernel wrote past the end of argument x (10 elements of int32): its length in the spec is too small"},
		{"six past the end", 10, 6, 0, "past the end of argument x (10 elements of int32)"},
		{"a page's worth of elements, one past", 1000, 1, 0, "past the end of argument x (1000 elements of int32)"},
		// arrays of a multiple of 64 bytes (a QA's 1024 floats) keep a tail slack too
		{"1024 elements, one past", 1024, 1, 0, "past the end of argument x (1024 elements of int32)"},
		{"a whole page, one past", 1024 * 4, 1, 0, "past the end of argument x (4096 elements of int32)"},
		{"16 elements, sixteen past", 16, 16, 0, "past the end of argument x (16 elements of int32)"},
		{"one before the start", 10, 0, 1, "the kernel wrote before the start of argument x (10 elements of int32): the kernel indexes it below 0"},
		{"sixteen before the start", 1000, 0, 16, "before the start of argument x (1000 elements of int32)"},
		// the whole front slack is watched, not only the bytes next to the data (a QA's
		// out[i-500] on 100 floats went unnoticed)
		{"500 before the start of 100", 100, 0, 500, "before the start of argument x (100 elements of int32)"},
		{"both", 10, 2, 2, "past the end and before the start of argument x"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x := alloc(t, d, make([]byte, 4*c.n))
			defer x.Release()
			run := func(ahead, behind int) error {
				_, err := k.Run(context.Background(), device.Launch{},
					[]device.Arg{{Buffer: x}, int32Arg(int32(c.n)), int32Arg(int32(ahead)), int32Arg(int32(behind))})
				return err
			}
			err := run(c.ahead, c.behind)
			if c.want == "" {
				if err != nil {
					t.Fatalf("Run: %v", err)
				}
				return
			}
			var re *device.RuntimeError
			if !errors.As(err, &re) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Run: %v (%T), want a *device.RuntimeError saying %q", err, err, c.want)
			}
			// The canaries are whole again: the next launch is not blamed.
			if err := run(0, 0); err != nil {
				t.Fatalf("a launch within bounds after the stray one: %v", err)
			}
			got := make([]byte, 4*c.n)
			if err := x.Read(got); err != nil {
				t.Fatal(err)
			}
			for i := range c.n {
				if v := int32(binary.LittleEndian.Uint32(got[4*i:])); v != int32(i) {
					t.Fatalf("x[%d] = %d, want %d", i, v, i)
				}
			}
		})
	}
}

// A kernel that writes further past the end of an array, beyond the canaries of its tail
// slack, crashes on the guard page after it instead of going unnoticed. The
// crash takes the process, so a child (this test binary) runs the kernel.
func TestWritesFurtherPastAnArrayFaultOnItsGuardPage(t *testing.T) {
	if os.Getenv("KTUNE_HOSTC_STRAY") != "" {
		d := openHost(t)
		k, err := d.Compile(context.Background(), strayKernel)
		if err != nil {
			t.Fatal(err)
		}
		// 1000 int32 end 96 bytes before the guard page (the tail slack, with its
		// canaries): 200 elements past the end lie on the guard page.
		x := alloc(t, d, make([]byte, 4000))
		_, err = k.Run(context.Background(), device.Launch{}, []device.Arg{{Buffer: x}, int32Arg(1000), int32Arg(200), int32Arg(0)})
		fmt.Printf("the kernel returned: %v\n", err)
		os.Exit(0)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestWritesFurtherPastAnArrayFaultOnItsGuardPage$")
	cmd.Env = append(os.Environ(), "KTUNE_HOSTC_STRAY=1")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "SIGSEGV") {
		t.Fatalf("the child ended with %v, want a crash of SIGSEGV; it printed:\n%s", err, out)
	}
}

// A compiler without the OpenMP runtime (clang without libomp, as Debian installs it) fails
// an OpenMP kernel with a linker message; the log then says what to install.
func TestOpenMPWithoutItsRuntimeSaysWhatToInstall(t *testing.T) {
	clang, err := exec.LookPath("clang")
	if err != nil {
		t.Skip(err)
	}
	t.Setenv("CC", clang)
	d := openHost(t)
	_, err = d.Compile(context.Background(), device.Source{Kernel: "k", Options: []string{"-fopenmp"},
		Code:   "#include <omp.h>\nvoid k(int *n) { *n = omp_get_max_threads(); }\n",
		Params: []device.Param{{Name: "n", Type: "int32", Pointer: true}}})
	if err == nil {
		t.Skip("clang has the OpenMP runtime here")
	}
	var ce *device.CompileError
	if !errors.As(err, &ce) {
		t.Fatalf("error %v (%T), want *device.CompileError", err, err)
	}
	if !strings.Contains(ce.Log, "lacks the OpenMP runtime the spec asks for: install it (libomp-dev for clang") {
		t.Errorf("log %q: want what to install", ce.Log)
	}
}

// A process whose data is limited (a ktune worker under --worker-memory, ulimit -d) has no
// more memory for buffers than the limit, as PoCL's device says of itself under one: a
// larger buffer is a device limit, refused before anything is mapped.
func TestADataLimitBoundsTheHostsMemory(t *testing.T) {
	host := openHost(t)
	var was unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_DATA, &was); err != nil {
		t.Fatal(err)
	}
	limit := host.info.GlobalMemBytes / 2 // far above what this process maps
	lowered := was
	lowered.Cur = min(was.Cur, uint64(limit))
	if err := unix.Setrlimit(unix.RLIMIT_DATA, &lowered); err != nil {
		t.Fatal(err)
	}
	d := newHostDevice(host.tc, host.cxx, host.cxxErr, host.cache)
	defer d.Close()
	if err := unix.Setrlimit(unix.RLIMIT_DATA, &was); err != nil {
		t.Fatal(err)
	}
	if d.info.GlobalMemBytes != int64(lowered.Cur) || d.info.MaxAllocBytes != int64(lowered.Cur) {
		t.Errorf("under a data limit of %d: global memory %d, largest buffer %d; want the limit", lowered.Cur, d.info.GlobalMemBytes, d.info.MaxAllocBytes)
	}
	var le *device.LimitError
	if _, err := d.Alloc(int(lowered.Cur) + 1); !errors.As(err, &le) || (lowered.Cur == uint64(limit) && !strings.Contains(err.Error(), "data limit")) {
		t.Errorf("a buffer past the limit: %v, want a device limit naming the data limit", err)
	}
	if was.Cur == unix.RLIM_INFINITY && host.info.GlobalMemBytes != sysmem.Total() {
		t.Errorf("without a limit: global memory %d, want the host's %d", host.info.GlobalMemBytes, sysmem.Total())
	}
}

// Under a data limit (--worker-memory), an object the dynamic loader could not map says it
// ran out of memory and names the limit, rather than reading as a fault of the
// configuration's code (QA: at 288 MiB, 12 configurations of vector_add_c were stored as
// "the compiled object does not load: ... failed to map segment from shared object");
// other load failures, and any without a limit, say nothing of memory.
func TestALoadFailureUnderADataLimitSaysMemoryRanOut(t *testing.T) {
	mapFail := errors.New("/tmp/x/k.so: failed to map segment from shared object")
	undefined := errors.New("/tmp/x/k.so: undefined symbol: foo")
	var was unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_DATA, &was); err != nil {
		t.Fatal(err)
	}
	if was.Cur == unix.RLIM_INFINITY {
		if note := loadMemoryNote(mapFail); note != "" {
			t.Errorf("without a limit: %q, want nothing said of memory", note)
		}
	}
	lowered := was
	lowered.Cur = min(was.Cur, 64<<30) // far above what this process maps
	if err := unix.Setrlimit(unix.RLIMIT_DATA, &lowered); err != nil {
		t.Fatal(err)
	}
	mapNote, otherNote := loadMemoryNote(mapFail), loadMemoryNote(undefined)
	if err := unix.Setrlimit(unix.RLIMIT_DATA, &was); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("it ran out of memory: a worker's memory is limited to %.0f MiB (--worker-memory)", float64(lowered.Cur)/(1<<20))
	if !strings.Contains(mapNote, want) {
		t.Errorf("failed to map a segment under a limit: %q, want %q", mapNote, want)
	}
	if otherNote != "" {
		t.Errorf("an undefined symbol under a limit: %q, want nothing said of memory", otherNote)
	}
}

// TestBuildWarningsReachTheKernelAndSurviveTheCache checks that what the compiler prints
// for a build that succeeds (-Wall's warnings) is the kernel's Warnings, from a fresh
// build and from the cache alike, naming the user's file and line; that a clean build has
// none, -Wall and -Wextra finding nothing in the call wrapper ktune generates.
func TestBuildWarningsReachTheKernelAndSurviveTheCache(t *testing.T) {
	t.Setenv("KTUNE_CACHE", t.TempDir())
	d := openHost(t)
	src := device.Source{
		Code: "void w(int *out, int n)\n{\n\tint unused = 3;\n\tout[0] = n;\n}\n",
		File: "warned.c", Kernel: "w", Language: "c", Options: []string{"-Wall", "-Wextra"},
		Params: []device.Param{{Name: "out", Type: "int32", Pointer: true}, {Name: "n", Type: "int32"}},
	}
	for _, from := range []string{"a build", "the cache"} {
		k, err := d.Compile(context.Background(), src)
		if err != nil {
			t.Fatal(err)
		}
		got := k.(device.Warner).Warnings()
		k.Release()
		if !strings.Contains(got, "warned.c:3:") || !strings.Contains(got, "unused") || !strings.Contains(got, "warning") {
			t.Errorf("from %s: Warnings = %q, want the unused variable at warned.c:3", from, got)
		}
	}
	clean := vaddSrc(2)
	clean.Options = []string{"-Wall", "-Wextra"}
	k, err := d.Compile(context.Background(), clean)
	if err != nil {
		t.Fatal(err)
	}
	defer k.Release()
	if got := k.(device.Warner).Warnings(); got != "" {
		t.Errorf("a clean kernel's Warnings = %q, want none", got)
	}
}
