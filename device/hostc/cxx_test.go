//go:build linux

package hostc

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ktune/ktune/device"
)

// openHostCXX opens the host device and skips the test where it has no C++ compiler.
func openHostCXX(t testing.TB) *hostDevice {
	t.Helper()
	d := openHost(t)
	if d.cxx == nil {
		t.Skipf("no C++ compiler: %v", d.cxxErr)
	}
	return d
}

// A template whose parameter a tuning parameter's #define gives, named as its instance
// (blocked_sqrt<float, BLOCK>), with the standard library's <vector> and <cmath>: each
// block size computes every square root exactly.
const blockedSqrtSource = `#include <vector>
#include <cmath>

template <typename T, int B>
void blocked_sqrt(T *out, const T *in, int n)
{
	std::vector<T> block(B);
	for (int i = 0; i < n; i += B) {
		int m = std::min(B, n - i);
		for (int j = 0; j < m; j++)
			block[j] = std::sqrt(in[i + j]);
		for (int j = 0; j < m; j++)
			out[i + j] = block[j];
	}
}
`

func TestCXXTemplateInstanceTunedByADefinition(t *testing.T) {
	d := openHostCXX(t)
	const n = 1000
	in := make([]float32, n)
	for i := range in {
		in[i] = float32(i) * 0.37
	}
	for _, block := range []int{1, 16, 64} {
		t.Run(fmt.Sprint("BLOCK=", block), func(t *testing.T) {
			k, err := d.Compile(context.Background(), device.Source{
				Code: blockedSqrtSource, File: "blocked.cpp", Kernel: "blocked_sqrt<float, BLOCK>", Language: "c++",
				Params: []device.Param{
					{Name: "out", Type: "float32", Pointer: true}, {Name: "in", Type: "float32", Pointer: true}, {Name: "n", Type: "int32"},
				},
				Defines: []device.Define{{Name: "BLOCK", Value: fmt.Sprint(block)}},
			})
			if err != nil {
				t.Fatalf("Compile: %v", err)
			}
			defer k.Release()
			bin, bout := alloc(t, d, float32Bytes(in)), alloc(t, d, make([]byte, 4*n))
			defer bin.Release()
			defer bout.Release()
			if _, err := k.Run(context.Background(), device.Launch{}, []device.Arg{{Buffer: bout}, {Buffer: bin}, int32Arg(n)}); err != nil {
				t.Fatalf("Run: %v", err)
			}
			got := make([]byte, 4*n)
			if err := bout.Read(got); err != nil {
				t.Fatal(err)
			}
			for i, v := range bytesFloat32(got) {
				if want := float32(math.Sqrt(float64(in[i]))); v != want {
					t.Fatalf("out[%d] = %v, want %v", i, v, want)
				}
			}
		})
	}
}

// The wrapper reaches a kernel of C linkage, one of C++ linkage (overloaded, so that the
// call picks by the arguments' types), one in a namespace, and a template named without
// its arguments, which the call deduces.
func TestCXXKernelsOfEitherLinkage(t *testing.T) {
	d := openHostCXX(t)
	const code = `#include <cstdint>
extern "C" void c_linkage(int32_t *out, int32_t v) { *out = v + 1; }
void overloaded(int32_t *out, int32_t v) { *out = v + 2; }
void overloaded(double *out, double v) { *out = v; }
namespace ns { void scoped(int32_t *out, int32_t v) { *out = v + 3; } }
template <typename T> void deduced(T *out, T v) { *out = v + 4; }
`
	params := []device.Param{{Name: "out", Type: "int32", Pointer: true}, {Name: "v", Type: "int32"}}
	for kernel, want := range map[string]int32{"c_linkage": 41, "overloaded": 42, "ns::scoped": 43, "deduced": 44} {
		t.Run(kernel, func(t *testing.T) {
			k, err := d.Compile(context.Background(), device.Source{Code: code, Kernel: kernel, Language: "c++", Params: params})
			if err != nil {
				t.Fatalf("Compile: %v", err)
			}
			defer k.Release()
			out := alloc(t, d, make([]byte, 4))
			defer out.Release()
			if _, err := k.Run(context.Background(), device.Launch{}, []device.Arg{{Buffer: out}, int32Arg(40)}); err != nil {
				t.Fatalf("Run: %v", err)
			}
			var got [4]byte
			out.Read(got[:])
			if v := int32(binary.LittleEndian.Uint32(got[:])); v != want {
				t.Errorf("out = %d, want %d", v, want)
			}
		})
	}
}

// The wrapper's checks hold in C++: a scalar whose parameter would change its value, a
// scalar declared a pointer and an array declared an integer are compile errors naming
// the spec's argument, as in C; conversions that keep every value compile.
func TestCXXArgumentMismatchesAreCompileErrorsNamingTheArgument(t *testing.T) {
	d := openHostCXX(t)
	params := []device.Param{{Name: "out", Type: "float64", Pointer: true}, {Name: "alpha", Type: "float64"}, {Name: "n", Type: "int64"}}
	for _, c := range []struct {
		decl string
		arg  int // the argument blamed, -1 for none
	}{
		{"double *out, float alpha, long n", 1},
		{"double *out, double alpha, int n", 2},
		{"double *out, double alpha, long *n", 2},
		{"long out, double alpha, long n", 0},
		{"double *out, long double alpha, unsigned long n", -1},
	} {
		t.Run(c.decl, func(t *testing.T) {
			_, err := d.Compile(context.Background(), device.Source{
				Kernel: "k", File: "k.cpp", Language: "c++", Params: params,
				Code: "void k(" + c.decl + ") { (void)out; (void)alpha; (void)n; }\n",
			})
			if c.arg < 0 {
				if err != nil {
					t.Fatalf("Compile: %v", err)
				}
				return
			}
			p := params[c.arg]
			wantArgumentBlamed(t, err, params, c.arg, fmt.Sprintf("passes the spec's argument %s (%s ", p.Name, p.Type))
		})
	}
}

// C++ converts no pointer to one whose elements differ in sign, as C does: an int8 array
// declared char * is an error naming the argument and the declaration to write, where
// signed char * (int8_t *) compiles.
func TestCXXArraysDifferingInSignAreCompileErrorsNamingTheArgument(t *testing.T) {
	d := openHostCXX(t)
	params := []device.Param{{Name: "out", Type: "int8", Pointer: true}, {Name: "n", Type: "int32"}}
	_, err := d.Compile(context.Background(), device.Source{Kernel: "k", Language: "c++", Params: params,
		Code: "void k(char *out, int n) { out[0] = (char)n; }\n"})
	var ce *device.CompileError
	if !errors.As(err, &ce) {
		t.Fatalf("error %v (%T), want *device.CompileError", err, err)
	}
	if want := "passes the spec's argument out (int8 array) as parameter 1 of k: declare it `int8_t *out`"; !strings.Contains(ce.Log, want) {
		t.Errorf("log does not say %q:\n%s", want, ce.Log)
	}
	_, err = d.Compile(context.Background(), device.Source{Kernel: "k", Language: "c++", Params: params,
		Code: "#include <cstdint>\nvoid k(std::int8_t *out, int n) { out[0] = (std::int8_t)n; }\n"})
	if err != nil {
		t.Errorf("int8_t *: %v", err)
	}
}

func TestCXXOpenMPKernelRuns(t *testing.T) {
	d := openHostCXX(t)
	k, err := d.Compile(context.Background(), device.Source{
		Kernel: "fill", Language: "c++", Options: []string{"-fopenmp"},
		Code: `#include <omp.h>
#include <vector>
extern "C" void fill(double *x, int *threads, int n)
{
	std::vector<int> seen(omp_get_max_threads());
	#pragma omp parallel for
	for (int i = 0; i < n; i++) {
		x[i] = 3.0 * i;
		seen[omp_get_thread_num()] = 1;
	}
	int t = 0;
	for (int s : seen) t += s;
	*threads = t;
}
`,
		Params: []device.Param{{Name: "x", Type: "float64", Pointer: true}, {Name: "threads", Type: "int32", Pointer: true}, {Name: "n", Type: "int32"}},
	})
	var ce *device.CompileError
	if errors.As(err, &ce) && strings.Contains(ce.Log, "omp") {
		t.Skipf("the C++ compiler has no OpenMP: %s", ce.Log)
	}
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	defer k.Release()
	const n = 100000
	x, threads := alloc(t, d, make([]byte, 8*n)), alloc(t, d, make([]byte, 4))
	defer x.Release()
	defer threads.Release()
	t.Setenv("OMP_NUM_THREADS", "2")
	if _, err := k.Run(context.Background(), device.Launch{}, []device.Arg{{Buffer: x}, {Buffer: threads}, int32Arg(n)}); err != nil {
		t.Fatalf("Run: %v", err)
	}
	got := make([]byte, 8*n)
	x.Read(got)
	for i := range n {
		if v := math.Float64frombits(binary.LittleEndian.Uint64(got[8*i:])); v != 3*float64(i) {
			t.Fatalf("x[%d] = %v, want %v", i, v, 3*float64(i))
		}
	}
	var tb [4]byte
	threads.Read(tb[:])
	if th := int32(binary.LittleEndian.Uint32(tb[:])); th < 1 {
		t.Errorf("%d threads ran the loop", th)
	}
	pinned.Lock()
	defer pinned.Unlock()
	if len(pinned.libs) == 0 {
		t.Error("the OpenMP runtime was not pinned")
	}
}

func TestCXXSyntaxErrorNamesTheUsersFileAndLine(t *testing.T) {
	d := openHostCXX(t)
	file := filepath.Join(t.TempDir(), "broken.cpp")
	_, err := d.Compile(context.Background(), device.Source{
		Code: "#include <vector>\nvoid broken(float *x)\n{\n\tstd::vector<float> v(4)\n\tx[0] = v[0];\n}\n",
		File: file, Kernel: "broken", Language: "c++",
		Params: []device.Param{{Name: "x", Type: "float32", Pointer: true}},
	})
	var ce *device.CompileError
	if !errors.As(err, &ce) {
		t.Fatalf("error %v (%T), want *device.CompileError", err, err)
	}
	if !strings.Contains(ce.Log, file+":4:") && !strings.Contains(ce.Log, file+":5:") {
		t.Errorf("log does not point at %s line 4 or 5:\n%s", file, ce.Log)
	}
	if strings.Contains(ce.Log, wrapperFile) {
		t.Errorf("log blames the call wrapper for the user's error:\n%s", ce.Log)
	}
}

// Without a C++ compiler ($CXX naming none) the device still runs C kernels, says why it
// has no C++ in its description, and a C++ kernel's compile is an environment error (the
// run stops rather than failing every configuration) that says what to install.
func TestNoCXXCompilerIsSaid(t *testing.T) {
	t.Setenv("CXX", "/nonexistent/ktune-cxx")
	d := openHost(t)
	if why := d.Info().Extra["cxx_unavailable"]; !strings.Contains(why, "$CXX") {
		t.Errorf("the device's description says %q of its C++ compiler, want why there is none", why)
	}
	k, err := d.Compile(context.Background(), vaddSrc(4))
	if err != nil {
		t.Fatalf("C kernel: %v", err)
	}
	k.Release()
	_, err = d.Compile(context.Background(), device.Source{Code: "void k(int *x) { *x = 1; }\n", Kernel: "k", Language: "c++",
		Params: []device.Param{{Name: "x", Type: "int32", Pointer: true}}})
	var env *device.EnvironmentError
	if !errors.As(err, &env) {
		t.Fatalf("error %v (%T), want *device.EnvironmentError", err, err)
	}
	for _, want := range []string{`$CXX="/nonexistent/ktune-cxx"`, "install"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if _, err := findCompiler("c++"); err == nil {
		t.Error("findCompiler found a C++ compiler with $CXX naming none")
	}
	t.Setenv("CXX", "")
	t.Setenv("PATH", t.TempDir())
	_, err = findCompiler("c++")
	if err == nil || !strings.Contains(err.Error(), "apt-get install g++") {
		t.Errorf("with nothing on PATH: %v, want what to install", err)
	}
}

func TestBackendIsRegisteredForCXX(t *testing.T) {
	if !slices.ContainsFunc(device.ForLanguage("c++"), func(b device.Backend) bool { return b.Name() == Name }) {
		t.Fatal("no backend named c compiles c++")
	}
}

func TestCXXDeviceNamesItsCompiler(t *testing.T) {
	d := openHostCXX(t)
	if got, want := d.Info().Extra["cxx_compiler"], strings.Join(d.cxx.cc, " "); got != want || got == "" {
		t.Errorf("cxx_compiler %q, want %q", got, want)
	}
}

// The same code compiled as C and as C++ makes two objects: the language is in the key.
func TestCXXAndCHaveTheirOwnCacheKeys(t *testing.T) {
	d := openHostCXX(t)
	src := device.Source{Code: "void k(int *x) { *x = 1; }\n", Kernel: "k", Params: []device.Param{{Name: "x", Type: "int32", Pointer: true}}}
	uc, err := newUnit(src)
	if err != nil {
		t.Fatal(err)
	}
	src.Language = "c++"
	ux, err := newUnit(src)
	if err != nil {
		t.Fatal(err)
	}
	if d.tc.key(uc) == d.cxx.key(ux) {
		t.Error("C and C++ units share a cache key")
	}
	if ux.ext() != ".cpp" || ux.display != "k.cpp" {
		t.Errorf("C++ unit's extension %q, display %q", ux.ext(), ux.display)
	}
}

func TestCXXKernelNamesThatAreNotFunctionsAreRefused(t *testing.T) {
	d := openHost(t)
	for _, name := range []string{"k; abort()", "k(0)", "k\n", "k/*x*/", "{k}", `k<"x">`} {
		_, err := d.Compile(context.Background(), device.Source{Code: "void k(void) {}\n", Kernel: name, Language: "c++"})
		if err == nil || !strings.Contains(err.Error(), "is not the name of a C++ function") {
			t.Errorf("kernel name %q: %v", name, err)
		}
	}
	for _, name := range []string{"k", "::k", "a::b::k", "m<float, 16>", "m<float, TILE * 2>", "m<std::int32_t, (N > 2)>"} {
		if !cxxKernelName.MatchString(name) {
			t.Errorf("kernel name %q refused", name)
		}
	}
}

// clang++ without libomp says what to install, and that $CXX (not $CC) picks another
// compiler.
func TestCXXOpenMPWithoutItsRuntimeNamesCXX(t *testing.T) {
	clang, err := exec.LookPath("clang++")
	if err != nil {
		t.Skip(err)
	}
	t.Setenv("CXX", clang)
	d := openHostCXX(t)
	_, err = d.Compile(context.Background(), device.Source{Kernel: "k", Language: "c++", Options: []string{"-fopenmp"},
		Code:   "#include <omp.h>\nvoid k(int *n) { *n = omp_get_max_threads(); }\n",
		Params: []device.Param{{Name: "n", Type: "int32", Pointer: true}}})
	if err == nil {
		t.Skip("clang++ has the OpenMP runtime here")
	}
	var ce *device.CompileError
	if !errors.As(err, &ce) {
		t.Fatalf("error %v (%T), want *device.CompileError", err, err)
	}
	if !strings.Contains(ce.Log, "lacks the OpenMP runtime the spec asks for") || !strings.Contains(ce.Log, "set $CXX to a compiler that has it") {
		t.Errorf("log %q: want what to install and $CXX", ce.Log)
	}
}
