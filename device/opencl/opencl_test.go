package opencl

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ktune/ktune/device"
)

// openTestDevice locks the test's goroutine to its thread, as devices require, opens the
// first OpenCL device and closes it when the test ends. It skips the test, giving the
// reason, where no OpenCL device exists.
func openTestDevice(tb testing.TB) device.Device {
	tb.Helper()
	runtime.LockOSThread()
	tb.Cleanup(runtime.UnlockOSThread)
	if _, err := (Backend{}).Devices(); err != nil {
		if errors.Is(err, device.ErrUnavailable) {
			tb.Skip(err)
		}
		tb.Fatal(err)
	}
	d, err := Backend{}.Open(context.Background(), 0)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := d.Close(); err != nil {
			tb.Error(err)
		}
	})
	return d
}

func compile(tb testing.TB, d device.Device, src device.Source) device.Kernel {
	tb.Helper()
	k, err := d.Compile(context.Background(), src)
	if err != nil {
		tb.Fatal(err)
	}
	return k
}

// alloc allocates a buffer holding the little-endian bytes of data (a slice of fixed-size
// numbers), or n zero bytes when data is an int.
func alloc(tb testing.TB, d device.Device, data any) device.Buffer {
	tb.Helper()
	var b []byte
	if n, ok := data.(int); ok {
		b = make([]byte, n)
	} else {
		var err error
		if b, err = binary.Append(nil, binary.LittleEndian, data); err != nil {
			tb.Fatal(err)
		}
	}
	buf, err := d.Alloc(len(b))
	if err != nil {
		tb.Fatal(err)
	}
	if err := buf.Write(b); err != nil {
		tb.Fatal(err)
	}
	return buf
}

// read reads a buffer into out, a slice of fixed-size numbers.
func read(tb testing.TB, b device.Buffer, out any) {
	tb.Helper()
	raw := make([]byte, binary.Size(out))
	if err := b.Read(raw); err != nil {
		tb.Fatal(err)
	}
	if _, err := binary.Decode(raw, binary.LittleEndian, out); err != nil {
		tb.Fatal(err)
	}
}

func scalar(tb testing.TB, v any) device.Arg {
	tb.Helper()
	b, err := binary.Append(nil, binary.LittleEndian, v)
	if err != nil {
		tb.Fatal(err)
	}
	return device.Arg{Scalar: b}
}

func TestBackendIsRegisteredForOpenCL(t *testing.T) {
	b, ok := device.Lookup("opencl")
	if !ok {
		t.Fatal(`device.Lookup("opencl") found nothing`)
	}
	if got := device.ForLanguage("opencl"); len(got) == 0 || got[0].Name() != "opencl" {
		t.Errorf("ForLanguage(opencl) = %v", got)
	}
	if b.Languages()[0] != "opencl" {
		t.Errorf("Languages = %v", b.Languages())
	}
}

func TestDevicesListsEveryDeviceWithSaneLimits(t *testing.T) {
	infos, err := Backend{}.Devices()
	if errors.Is(err, device.ErrUnavailable) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	again, err := Backend{}.Devices()
	if err != nil || len(again) != len(infos) {
		t.Fatalf("second Devices() = %d devices, %v; first gave %d", len(again), err, len(infos))
	}
	sawPoCLCPU := false
	for i, info := range infos {
		t.Logf("device %d: %s (%s, %s) on %s: %d CUs, max work-group %d %v, local %d B, global %d B, max alloc %d B",
			i, info.Name, info.Type, info.Version, info.Platform, info.ComputeUnits, info.MaxBlockSize,
			info.MaxBlockDims, info.LocalMemBytes, info.GlobalMemBytes, info.MaxAllocBytes)
		if info.Index != i || info.Backend != "opencl" {
			t.Errorf("device %d: Index %d, Backend %q", i, info.Index, info.Backend)
		}
		if again[i].Name != info.Name || again[i].Platform != info.Platform {
			t.Errorf("device %d is %q on the first call, %q on the second", i, info.Name, again[i].Name)
		}
		if info.Name == "" || info.Platform == "" || info.Version == "" || info.Type == "" {
			t.Errorf("device %d lacks a description: %+v", i, info)
		}
		if info.MaxBlockSize < 1 || info.MaxBlockDims[0] < 1 || info.ComputeUnits < 1 {
			t.Errorf("device %d: max work-group %d, work-items %v, %d compute units", i, info.MaxBlockSize, info.MaxBlockDims, info.ComputeUnits)
		}
		if info.LocalMemBytes <= 0 || info.GlobalMemBytes <= 0 || info.MaxAllocBytes <= 0 || info.MaxAllocBytes > info.GlobalMemBytes {
			t.Errorf("device %d: local %d, global %d, max alloc %d bytes", i, info.LocalMemBytes, info.GlobalMemBytes, info.MaxAllocBytes)
		}
		if strings.Contains(info.Platform, "Portable Computing Language") && info.Type == "cpu" {
			sawPoCLCPU = true
		}
	}
	if !sawPoCLCPU {
		t.Log("no PoCL CPU device among them")
	}
}

const vectorAdd = `
__kernel void vector_add(__global const float* a, __global const float* b, __global float* c, const int n) {
	int i = get_group_id(0) * BLOCK_SIZE + get_local_id(0);
	if (i < n) {
		c[i] = a[i] + SCALE * b[i];
	}
}
`

func TestVectorAddWithDefinesComputesEveryElement(t *testing.T) {
	d := openTestDevice(t)
	const n, block = 1 << 20, 128
	k := compile(t, d, device.Source{
		Code: vectorAdd, Kernel: "vector_add", Language: "opencl",
		Defines: []device.Define{{Name: "BLOCK_SIZE", Value: "128"}, {Name: "SCALE", Value: "2.0f"}},
	})
	defer k.Release()
	rng := rand.New(rand.NewPCG(1, 2))
	a, b := make([]float32, n), make([]float32, n)
	for i := range a {
		a[i], b[i] = rng.Float32()*100, rng.Float32()*100
	}
	bufA, bufB, bufC := alloc(t, d, a), alloc(t, d, b), alloc(t, d, 4*n)

	launch := device.Launch{Grid: device.Dim3{n / block, 1, 1}, Block: device.Dim3{block, 1, 1}}
	start := time.Now()
	took, err := k.Run(context.Background(), launch, []device.Arg{{Buffer: bufA}, {Buffer: bufB}, {Buffer: bufC}, scalar(t, int32(n))})
	wall := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	c := make([]float32, n)
	read(t, bufC, c)
	for i := range c {
		// Doubling is exact, so the kernel's sum (fused or not) equals Go's.
		if want := a[i] + 2*b[i]; c[i] != want {
			t.Fatalf("c[%d] = %v, want %v", i, c[i], want)
		}
	}
	if took <= 0 || took > wall {
		t.Errorf("device time %v, want > 0 and within the %v the call took", took, wall)
	}
	t.Logf("1M-element vector add: %v on the device, %v around the call", took, wall)
}

func TestDefineValuesReachThePreprocessorIntact(t *testing.T) {
	d := openTestDevice(t)
	// The kernel writes the define's stringized value, which for these values is its text.
	const code = `
#define STR2(x) #x
#define STR(x) STR2(x)
__kernel void text(__global char* out) {
	const char s[] = STR(VALUE);
	for (int i = 0; i < sizeof(s); i++) out[i] = s[i];
}
`
	// (A backslash outside a literal is no token: the preprocessor may drop it.)
	for _, value := range []string{"42", "(1 + 2)", `'\\'`, "'q'", "a<b>=c", `"text"`, `_Pragma("unroll 4")`} {
		t.Run(value, func(t *testing.T) {
			k := compile(t, d, device.Source{Code: code, Kernel: "text", Defines: []device.Define{{Name: "VALUE", Value: value}}})
			defer k.Release()
			out := alloc(t, d, 64)
			defer out.Release()
			if _, err := k.Run(context.Background(), device.Launch{}, []device.Arg{{Buffer: out}}); err != nil {
				t.Fatal(err)
			}
			got := make([]byte, 64)
			read(t, out, got)
			if s, _, _ := strings.Cut(string(got), "\x00"); s != value {
				t.Errorf("kernel saw VALUE = %q, want %q", s, value)
			}
		})
	}
}

// A define named as an identifier of the runtime's own headers leaves them alone: PoCL's
// opencl-c.h declares vload and vstore with a parameter p, and "-D p=2" made every
// configuration of a spec with a parameter p a page of syntax errors in that header.
// The kernel's own line numbers stay its own.
func TestADefineNamedAsAHeadersIdentifierLeavesTheHeaderAlone(t *testing.T) {
	d := openTestDevice(t)
	code := "#line 1 \"k.cl\"\n__kernel void k(__global int* out) {\n\tout[0] = p * x;\n}\n"
	k := compile(t, d, device.Source{Code: code, Kernel: "k", Defines: []device.Define{{Name: "p", Value: "2"}, {Name: "x", Value: "21"}}})
	defer k.Release()
	out := alloc(t, d, 4)
	defer out.Release()
	if _, err := k.Run(context.Background(), device.Launch{}, []device.Arg{{Buffer: out}}); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 4)
	read(t, out, got)
	if v := int32(binary.LittleEndian.Uint32(got)); v != 42 {
		t.Errorf("the kernel wrote %d, want 42", v)
	}
	_, err := d.Compile(context.Background(), device.Source{Code: "__kernel void k(__global int* out) {\n\tout[0] = p *;\n}\n", Kernel: "k",
		Defines: []device.Define{{Name: "p", Value: "2"}}})
	var ce *device.CompileError
	if !errors.As(err, &ce) || !strings.Contains(ce.Log, ":2:") {
		t.Errorf("a syntax error on the code's line 2 = %v, want a compile error at line 2", err)
	}
}

func TestIncludesResolveNextToTheSourceFile(t *testing.T) {
	d := openTestDevice(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "answer.h"), []byte("#define ANSWER 42\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	k := compile(t, d, device.Source{
		Code:   "#include \"answer.h\"\n__kernel void answer(__global int* out) { out[0] = ANSWER; }\n",
		File:   filepath.Join(dir, "answer.cl"),
		Kernel: "answer",
	})
	defer k.Release()
	out := alloc(t, d, 4)
	if _, err := k.Run(context.Background(), device.Launch{}, []device.Arg{{Buffer: out}}); err != nil {
		t.Fatal(err)
	}
	got := make([]int32, 1)
	read(t, out, got)
	if got[0] != 42 {
		t.Errorf("ANSWER = %d, want 42", got[0])
	}

	// PoCL keeps the quotes of a quoted -I path, so includes from a directory with a space
	// are not found there; the quoted option must at least not break other sources.
	spaced := filepath.Join(t.TempDir(), "kernels with space")
	k2 := compile(t, d, device.Source{
		Code:   "__kernel void plain(__global int* out) { out[0] = 1; }\n",
		File:   filepath.Join(spaced, "plain.cl"),
		Kernel: "plain",
	})
	k2.Release()
}

func TestCompileErrorCarriesTheBuildLog(t *testing.T) {
	d := openTestDevice(t)
	tests := []struct {
		name    string
		src     device.Source
		wantLog []string
	}{
		{"syntax error", device.Source{
			Code:   "__kernel void broken(__global float* out) {\n\tout[0] = 1.0f\n\tout[1] = 2.0f;\n}\n",
			Kernel: "broken",
		}, []string{":2:", "error"}},
		{"unknown identifier", device.Source{
			Code:   "__kernel void broken(__global float* out) {\n\tout[0] = UNDEFINED_THING;\n}\n",
			Kernel: "broken",
		}, []string{"UNDEFINED_THING"}},
		{"no such kernel", device.Source{
			Code:   "__kernel void present(__global float* out) { out[0] = 1.0f; }\n",
			Kernel: "absent",
		}, []string{`"absent"`}},
		{"invalid build option", device.Source{
			Code:    "__kernel void k(__global float* out) { out[0] = 1.0f; }\n",
			Kernel:  "k",
			Options: []string{"-cl-no-such-option"},
		}, []string{"no-such-option"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, err := d.Compile(context.Background(), tt.src)
			var ce *device.CompileError
			if !errors.As(err, &ce) {
				if k != nil {
					k.Release()
				}
				t.Fatalf("Compile = %v, want a *device.CompileError", err)
			}
			for _, want := range tt.wantLog {
				if !strings.Contains(ce.Log, want) {
					t.Errorf("log lacks %q:\n%s", want, ce.Log)
				}
			}
			var st Status
			if !errors.As(err, &st) {
				t.Errorf("error %v carries no OpenCL status", err)
			}
		})
	}
	// The device still works after failed builds.
	k := compile(t, d, device.Source{Code: "__kernel void ok(__global int* x) { x[0] = 7; }", Kernel: "ok"})
	k.Release()
}

func TestCompileRejectsBadRequestsWithoutCompiling(t *testing.T) {
	d := openTestDevice(t)
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	good := device.Source{Code: "__kernel void k(__global int* x) { x[0] = 1; }", Kernel: "k"}
	tests := []struct {
		name string
		ctx  context.Context
		src  device.Source
	}{
		{"canceled context", canceled, good},
		{"CUDA source", context.Background(), device.Source{Code: good.Code, Kernel: "k", Language: "cuda"}},
		{"no kernel name", context.Background(), device.Source{Code: good.Code}},
		{"invalid define name", context.Background(), device.Source{Code: good.Code, Kernel: "k", Defines: []device.Define{{Name: "-I/x", Value: "1"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, err := d.Compile(tt.ctx, tt.src)
			if err == nil {
				k.Release()
				t.Fatal("Compile succeeded")
			}
			var ce *device.CompileError
			if errors.As(err, &ce) {
				t.Errorf("Compile = %v, a compile error, though nothing was compiled", err)
			}
		})
	}
}

func TestLaunchBeyondALimitIsRefusedBeforeRunning(t *testing.T) {
	d := openTestDevice(t)
	info := d.Info()
	k := compile(t, d, device.Source{
		Code:   "__kernel void count(__global int* n, __local int* scratch) { if (get_global_id(0) == 0) atomic_inc(n); }",
		Kernel: "count",
	})
	defer k.Release()
	reqd := compile(t, d, device.Source{
		Code:   "__kernel __attribute__((reqd_work_group_size(16, 1, 1))) void fixed(__global int* n) { if (get_global_id(0) == 0) n[0] = 16; }",
		Kernel: "fixed",
	})
	defer reqd.Release()
	counter := alloc(t, d, 4)

	tests := []struct {
		name   string
		k      device.Kernel
		block  device.Dim3
		local  int
		failed bool
	}{
		{"twice the device's work-group size", k, device.Dim3{2 * info.MaxBlockSize, 1, 1}, 4, true},
		{"the kernel's work-group size plus one", k, device.Dim3{int(k.Attributes()["max_block_size"]) + 1, 1, 1}, 4, true},
		{"beyond the work-item size in z", k, device.Dim3{1, 1, info.MaxBlockDims[2] + 1}, 4, true},
		{"more local memory than the device has", k, device.Dim3{1, 1, 1}, int(info.LocalMemBytes) + 1, true},
		{"a block other than reqd_work_group_size", reqd, device.Dim3{8, 1, 1}, 0, true},
		{"within every limit", k, device.Dim3{min(info.MaxBlockSize, 64), 1, 1}, 4, false},
		{"reqd_work_group_size met", reqd, device.Dim3{16, 1, 1}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := []device.Arg{{Buffer: counter}}
			if tt.local > 0 {
				args = append(args, device.Arg{Local: tt.local})
			}
			if err := counter.Write(make([]byte, 4)); err != nil {
				t.Fatal(err)
			}
			_, err := tt.k.Run(context.Background(), device.Launch{Grid: device.Dim3{1, 1, 1}, Block: tt.block}, args)
			var le *device.LimitError
			if tt.failed != errors.As(err, &le) || (!tt.failed && err != nil) {
				t.Fatalf("Run = %v, want a LimitError: %v", err, tt.failed)
			}
			got := make([]int32, 1)
			read(t, counter, got)
			if ran := got[0] != 0; ran == tt.failed {
				t.Errorf("kernel ran: %v, want %v", ran, !tt.failed)
			}
			if le != nil {
				t.Logf("%v", le)
			}
		})
	}
}

// __constant buffer arguments are checked against the device's limits before the launch:
// one larger than CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, or more of them than
// CL_DEVICE_MAX_CONSTANT_ARGS, is a *device.LimitError naming the argument, the size and
// the limit. PoCL (2 MiB, 8 arguments) ran both, as a GPU would not.
func TestConstantArgumentsBeyondTheDeviceAreRefused(t *testing.T) {
	d := openTestDevice(t)
	cd := d.(*clDevice)
	if !cd.keepsArgInfo() || cd.maxConstant == 0 || cd.maxConstantArgs == 0 || cd.maxConstantArgs > 32 {
		t.Skipf("the device reports no constant limits to test, or no argument information (%d bytes, %d arguments)", cd.maxConstant, cd.maxConstantArgs)
	}
	one := compile(t, d, device.Source{
		Code:   "__kernel void first(__global float* out, __constant float* w) { if (get_global_id(0) == 0) out[0] = w[0] + 1.0f; }",
		Kernel: "first",
		Params: []device.Param{{Name: "out", Type: "float32", Pointer: true}, {Name: "weights", Type: "float32", Pointer: true}},
	})
	defer one.Release()
	out := alloc(t, d, 4)
	small := alloc(t, d, 4)
	large := alloc(t, d, int(cd.maxConstant)+4)
	launch := device.Launch{Grid: device.Dim3{1}, Block: device.Dim3{1}}
	if _, err := one.Run(context.Background(), launch, []device.Arg{{Buffer: out}, {Buffer: small}}); err != nil {
		t.Fatalf("a constant buffer of 4 bytes: %v", err)
	}
	_, err := one.Run(context.Background(), launch, []device.Arg{{Buffer: out}, {Buffer: large}})
	var le *device.LimitError
	want := fmt.Sprintf("argument weights: __constant buffer of %d bytes exceeds the device's maximum constant buffer of %d bytes",
		cd.maxConstant+4, cd.maxConstant)
	if !errors.As(err, &le) || le.What != want || le.Limit != cd.maxConstant {
		t.Errorf("a constant buffer past the limit: %v, want a LimitError %q", err, want)
	}

	n := cd.maxConstantArgs + 1
	var params, sum []string
	args := []device.Arg{{Buffer: out}}
	for i := range n {
		params = append(params, fmt.Sprintf("__constant float* w%d", i))
		sum = append(sum, fmt.Sprintf("w%d[0]", i))
		args = append(args, device.Arg{Buffer: small})
	}
	many := compile(t, d, device.Source{
		Code:   "__kernel void many(__global float* out, " + strings.Join(params, ", ") + ") { if (get_global_id(0) == 0) out[0] = " + strings.Join(sum, " + ") + "; }",
		Kernel: "many",
	})
	defer many.Release()
	_, err = many.Run(context.Background(), launch, args)
	wantPrefix := fmt.Sprintf("kernel many takes %d __constant arguments (w0, w1, ", n)
	wantSuffix := fmt.Sprintf("), more than the device's maximum of %d", cd.maxConstantArgs)
	if !errors.As(err, &le) || !strings.HasPrefix(le.What, wantPrefix) || !strings.HasSuffix(le.What, wantSuffix) {
		t.Errorf("%d constant arguments: %v, want a LimitError %q...%q", n, err, wantPrefix, wantSuffix)
	}
}

func TestLocalMemoryArgumentsBackAReduction(t *testing.T) {
	d := openTestDevice(t)
	const code = `
__kernel void block_sum(__global const float* in, __global float* out, __local float* scratch) {
	size_t lid = get_local_id(0);
	scratch[lid] = in[get_global_id(0)];
	barrier(CLK_LOCAL_MEM_FENCE);
	for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {
		if (lid < s) scratch[lid] += scratch[lid + s];
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	if (lid == 0) out[get_group_id(0)] = scratch[0];
}
`
	k := compile(t, d, device.Source{Code: code, Kernel: "block_sum"})
	defer k.Release()
	for _, block := range []int{1, 16, 64, 256} {
		const groups = 32
		in := make([]float32, groups*block)
		want := make([]float32, groups)
		for i := range in {
			in[i] = float32(i % 97) // small integers: every partial sum is exact
			want[i/block] += in[i]
		}
		bufIn, bufOut := alloc(t, d, in), alloc(t, d, 4*groups)
		_, err := k.Run(context.Background(),
			device.Launch{Grid: device.Dim3{groups, 1, 1}, Block: device.Dim3{block, 1, 1}},
			[]device.Arg{{Buffer: bufIn}, {Buffer: bufOut}, {Local: 4 * block}})
		if err != nil {
			t.Fatalf("block %d: %v", block, err)
		}
		got := make([]float32, groups)
		read(t, bufOut, got)
		for g := range got {
			if got[g] != want[g] {
				t.Fatalf("block %d: sum of group %d = %v, want %v", block, g, got[g], want[g])
			}
		}
		bufIn.Release()
		bufOut.Release()
	}
}

func TestScalarArgumentsArriveExactly(t *testing.T) {
	d := openTestDevice(t)
	const code = `
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void scalars(__global double* out, int i, float f, double x, long l, uchar u) {
	out[0] = i;
	out[1] = f;
	out[2] = x;
	out[3] = l;
	out[4] = u;
}
`
	k, err := d.Compile(context.Background(), device.Source{Code: code, Kernel: "scalars"})
	var ce *device.CompileError
	if errors.As(err, &ce) && strings.Contains(ce.Log, "double") {
		t.Skipf("device lacks fp64: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer k.Release()
	out := alloc(t, d, 5*8)
	args := []device.Arg{{Buffer: out}, scalar(t, int32(-7)), scalar(t, float32(3.25)), scalar(t, 1.0000000001),
		scalar(t, int64(1)<<40+3), scalar(t, uint8(200))}
	if _, err := k.Run(context.Background(), device.Launch{}, args); err != nil {
		t.Fatal(err)
	}
	got := make([]float64, 5)
	read(t, out, got)
	want := []float64{-7, 3.25, 1.0000000001, 1<<40 + 3, 200}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("out[%d] = %v, want %v", i, got[i], want[i])
		}
	}
}

// foreignBuffer is a buffer of some other backend.
type foreignBuffer struct{}

func (foreignBuffer) Size() int          { return 4 }
func (foreignBuffer) Write([]byte) error { return nil }
func (foreignBuffer) Read([]byte) error  { return nil }
func (foreignBuffer) Release()           {}

func TestRunRejectsBadArguments(t *testing.T) {
	d := openTestDevice(t)
	k := compile(t, d, device.Source{Code: "__kernel void k(__global int* x, int v) { x[0] = v; }", Kernel: "k"})
	defer k.Release()
	buf := alloc(t, d, 4)
	released := alloc(t, d, 4)
	released.Release()
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name    string
		ctx     context.Context
		args    []device.Arg
		runtime bool // a *device.RuntimeError is expected
	}{
		{"too few", context.Background(), []device.Arg{{Buffer: buf}}, false},
		{"too many", context.Background(), []device.Arg{{Buffer: buf}, scalar(t, int32(1)), scalar(t, int32(1))}, false},
		{"empty argument", context.Background(), []device.Arg{{Buffer: buf}, {}}, false},
		{"two kinds at once", context.Background(), []device.Arg{{Buffer: buf}, {Scalar: []byte{1, 0, 0, 0}, Local: 4}}, false},
		{"foreign buffer", context.Background(), []device.Arg{{Buffer: foreignBuffer{}}, scalar(t, int32(1))}, false},
		{"released buffer", context.Background(), []device.Arg{{Buffer: released}, scalar(t, int32(1))}, false},
		{"scalar of the wrong size", context.Background(), []device.Arg{{Buffer: buf}, scalar(t, int64(1))}, true},
		{"canceled context", canceled, []device.Arg{{Buffer: buf}, scalar(t, int32(1))}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := k.Run(tt.ctx, device.Launch{}, tt.args)
			if err == nil {
				t.Fatal("Run succeeded")
			}
			var re *device.RuntimeError
			if errors.As(err, &re) != tt.runtime {
				t.Errorf("Run = %v; a RuntimeError: %v, want %v", err, errors.As(err, &re), tt.runtime)
			}
			// A refused argument says which, so that the runner can name it.
			var ae *device.ArgError
			if tt.runtime && (!errors.As(err, &ae) || ae.Index != 1 || !strings.Contains(err.Error(), "does not take 8 bytes")) {
				t.Errorf("Run = %v, want a device.ArgError for argument 1 saying it does not take 8 bytes", err)
			}
		})
	}
	if _, err := k.Run(canceled, device.Launch{}, []device.Arg{{Buffer: buf}, scalar(t, int32(1))}); !errors.Is(err, context.Canceled) {
		t.Errorf("Run with a canceled context = %v, want context.Canceled", err)
	}
	// A valid launch still works after the refusals.
	if _, err := k.Run(context.Background(), device.Launch{}, []device.Arg{{Buffer: buf}, scalar(t, int32(9))}); err != nil {
		t.Fatal(err)
	}
	got := make([]int32, 1)
	read(t, buf, got)
	if got[0] != 9 {
		t.Errorf("x[0] = %d, want 9", got[0])
	}
}

// A kernel reports how each parameter is passed and its type in ktune's words, so that a
// spec's arguments can be checked before a launch reinterprets their bytes; a typedef,
// which the runtime reports by its own name, stays unknown.
func TestKernelsDeclareTheirParameters(t *testing.T) {
	d := openTestDevice(t)
	k := compile(t, d, device.Source{Kernel: "k", Code: `typedef float real;
__kernel void k(__global float *out, __global const int *in, float alpha, uint n, long l,
                double x, uchar c, float4 v, real r, __local float *tile, __constant short *table,
                __global float4 *vectors, __global const half *h) { }`})
	defer k.Release()
	params, detailed := k.(device.Declarer).Declared()
	if !detailed {
		t.Fatal("Declared gives only the count; PoCL keeps argument information with -cl-kernel-arg-info")
	}
	want := []device.Declared{
		{Name: "out", Decl: "__global float* out", Pointer: true, Type: "float32", Lanes: 1},
		{Name: "in", Decl: "__global int* in", Pointer: true, Type: "int32", Lanes: 1},
		{Name: "alpha", Decl: "float alpha", Type: "float32", Lanes: 1},
		{Name: "n", Decl: "uint n", Type: "uint32", Lanes: 1},
		{Name: "l", Decl: "long l", Type: "int64", Lanes: 1},
		{Name: "x", Decl: "double x", Type: "float64", Lanes: 1},
		{Name: "c", Decl: "uchar c", Type: "uint8", Lanes: 1},
		{Name: "v", Decl: "float4 v", Type: "float32", Lanes: 4},
		{Name: "r", Decl: "real r", Lanes: 1},
		{Name: "tile", Decl: "__local float* tile", Pointer: true, Local: true, Type: "float32", Lanes: 1},
		{Name: "table", Decl: "__constant short* table", Pointer: true, Type: "int16", Lanes: 1},
		{Name: "vectors", Decl: "__global float4* vectors", Pointer: true, Type: "float32", Lanes: 4},
		{Name: "h", Decl: "__global half* h", Pointer: true, Type: "float16", Lanes: 1},
	}
	if len(params) != len(want) {
		t.Fatalf("Declared gives %d parameters, want %d: %+v", len(params), len(want), params)
	}
	for i := range want {
		if params[i] != want[i] {
			t.Errorf("parameter %d = %+v, want %+v", i, params[i], want[i])
		}
	}
}

// The option that keeps the argument information is added once, and not again where the
// user gave it; a user's own options still reach the compiler.
func TestArgumentInformationIsKeptWhateverTheUsersOptions(t *testing.T) {
	d := openTestDevice(t)
	for _, opts := range [][]string{nil, {"-cl-kernel-arg-info"}, {"-cl-fast-relaxed-math", "-cl-kernel-arg-info"}} {
		k := compile(t, d, device.Source{Kernel: "k", Options: opts, Code: `__kernel void k(__global float *y, int n) { }`})
		params, detailed := k.(device.Declarer).Declared()
		k.Release()
		if !detailed || len(params) != 2 || params[1].Decl != "int n" {
			t.Errorf("options %q: Declared = %+v, %v; want y and int n in detail", opts, params, detailed)
		}
	}
}

func TestBuffersCopyPartiallyAndRefuseOverruns(t *testing.T) {
	d := openTestDevice(t)
	b, err := d.Alloc(16)
	if err != nil {
		t.Fatal(err)
	}
	if b.Size() != 16 {
		t.Errorf("Size = %d, want 16", b.Size())
	}
	if err := b.Write([]byte{1, 2, 3, 4, 5, 6, 7, 8}); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 4)
	if err := b.Read(got); err != nil || string(got) != "\x01\x02\x03\x04" {
		t.Errorf("Read = %v, %v", got, err)
	}
	if err := b.Write(make([]byte, 17)); err == nil {
		t.Error("Write of 17 bytes into 16 succeeded")
	}
	if err := b.Read(make([]byte, 17)); err == nil {
		t.Error("Read of 17 bytes from 16 succeeded")
	}
	// a buffer of no bytes exists, as on the other backends, and holds nothing
	if z, err := d.Alloc(0); err != nil || z.Size() != 0 {
		t.Errorf("Alloc(0) = %v", err)
	} else {
		if err := z.Write(nil); err != nil {
			t.Errorf("Write of nothing into a buffer of 0 bytes: %v", err)
		}
		if err := z.Write([]byte{1}); err == nil || !strings.Contains(err.Error(), "a transfer of 1 bytes does not fit a buffer of 0 bytes") {
			t.Errorf("Write of 1 byte into 0: %v", err)
		}
		z.Release()
	}
	if _, err := d.Alloc(-1); err == nil {
		t.Error("Alloc(-1) succeeded")
	}
	var le *device.LimitError
	if _, err := d.Alloc(int(min(d.Info().MaxAllocBytes+1, math.MaxInt))); !errors.As(err, &le) {
		t.Errorf("Alloc beyond the largest allocation = %v, want a LimitError", err)
	}
	b.Release()
	b.Release()
	if err := b.Write([]byte{1}); err == nil {
		t.Error("Write after Release succeeded")
	}
}

func TestBuffersCopyOnTheDevice(t *testing.T) {
	d := openTestDevice(t)
	src, err := d.Alloc(8)
	if err != nil {
		t.Fatal(err)
	}
	dst, err := d.Alloc(16)
	if err != nil {
		t.Fatal(err)
	}
	if err := src.Write([]byte{1, 2, 3, 4, 5, 6, 7, 8}); err != nil {
		t.Fatal(err)
	}
	if err := dst.Write(make([]byte, 16)); err != nil {
		t.Fatal(err)
	}
	c, ok := dst.(device.Copier)
	if !ok {
		t.Fatal("OpenCL buffers do not copy on the device")
	}
	if err := c.CopyFrom(src, 6); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 8)
	if err := dst.Read(got); err != nil || string(got) != "\x01\x02\x03\x04\x05\x06\x00\x00" {
		t.Errorf("after copying 6 bytes: %v, %v", got, err)
	}
	if err := c.CopyFrom(src, 9); err == nil {
		t.Error("copying 9 bytes from a buffer of 8 succeeded")
	}
	if err := src.(device.Copier).CopyFrom(dst, 9); err == nil {
		t.Error("copying 9 bytes into a buffer of 8 succeeded")
	}
	src.Release()
	if err := c.CopyFrom(src, 1); err == nil {
		t.Error("copying from a released buffer succeeded")
	}
}

func TestCloseReleasesEverythingAndRefusesLaterUse(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if _, err := (Backend{}).Devices(); err != nil {
		t.Skip(err)
	}
	d, err := Backend{}.Open(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	k := compile(t, d, device.Source{Code: "__kernel void k(__global int* x) { x[0] = 1; }", Kernel: "k"})
	buf := alloc(t, d, 4)
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
	if _, err := k.Run(context.Background(), device.Launch{}, []device.Arg{{Buffer: buf}}); err == nil {
		t.Error("Run after Close succeeded")
	}
	if err := buf.Read(make([]byte, 4)); err == nil {
		t.Error("Read after Close succeeded")
	}
	if _, err := d.Alloc(4); err == nil {
		t.Error("Alloc after Close succeeded")
	}
	if _, err := d.Compile(context.Background(), device.Source{Code: "__kernel void k() {}", Kernel: "k"}); err == nil {
		t.Error("Compile after Close succeeded")
	}
	k.Release() // harmless after Close
	buf.Release()
	if _, err := (Backend{}).Open(context.Background(), 1<<20); err == nil {
		t.Error("Open of a device that does not exist succeeded")
	}
}

func TestMissingLibraryMakesTheBackendUnavailable(t *testing.T) {
	tests := []struct {
		name       string
		candidates []string
		override   bool
		want       string
	}{
		{"no runtime installed", []string{"/nonexistent/libOpenCL.so.1"}, false, "not found: install an OpenCL runtime, e.g. apt-get install pocl-opencl-icd"},
		{"bad override", []string{"/nonexistent/libOpenCL.so"}, true, LibraryEnv + "=/nonexistent/libOpenCL.so cannot be loaded"},
		{"not an OpenCL library", []string{"libc.so.6"}, false, "lacks clGetPlatformIDs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if runtime.GOOS != "linux" && tt.candidates[0] == "libc.so.6" {
				t.Skip("libc.so.6 is Linux's")
			}
			_, err := loadLibrary(tt.candidates, tt.override)
			if !errors.Is(err, device.ErrUnavailable) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("loadLibrary = %v, want ErrUnavailable saying %q", err, tt.want)
			}
		})
	}
}

// TestUnavailableProcessStartsAndReports runs this test binary again with LibraryEnv
// pointing nowhere: the backend must report why it is unavailable, not panic.
func TestUnavailableProcessStartsAndReports(t *testing.T) {
	if os.Getenv("KTUNE_OPENCL_TEST_CHILD") == "1" {
		_, err := Backend{}.Devices()
		if !errors.Is(err, device.ErrUnavailable) {
			t.Fatalf("Devices = %v, want ErrUnavailable", err)
		}
		if _, err := (Backend{}).Open(context.Background(), 0); !errors.Is(err, device.ErrUnavailable) {
			t.Fatalf("Open = %v, want ErrUnavailable", err)
		}
		t.Log(err)
		return
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestUnavailableProcessStartsAndReports$", "-test.v")
	cmd.Env = append(os.Environ(), "KTUNE_OPENCL_TEST_CHILD=1", LibraryEnv+"=/nonexistent/libOpenCL.so.1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "cannot be loaded") {
		t.Errorf("child output lacks the reason:\n%s", out)
	}
}

// A kernel name the program lacks is a compile error naming the kernels it has and the
// closest one (a QA saw only "no kernel named", where the host C backend suggests).
func TestAMisspelledKernelNameSuggestsTheProgramsKernels(t *testing.T) {
	d := openTestDevice(t)
	const code = `__kernel void jacobi(__global float* out) { out[0] = 1; }
__kernel void jacobi_ref(__global float* out) { out[0] = 2; }`
	_, err := d.Compile(context.Background(), device.Source{Code: code, Kernel: "jacobbi"})
	var ce *device.CompileError
	if !errors.As(err, &ce) || !strings.Contains(ce.Log, `no kernel named "jacobbi" in the program; did you mean "jacobi"?`) ||
		!strings.Contains(ce.Log, "jacobi_ref") {
		t.Fatalf("Compile = %v", err)
	}
}

// TestBuildWarningsOfASuccessfulBuildReachTheKernel checks that the build log of a
// program that builds with warnings is the kernel's Warnings, naming the user's file and
// line, and that a clean program has none.
func TestBuildWarningsOfASuccessfulBuildReachTheKernel(t *testing.T) {
	d := openTestDevice(t)
	warned := compile(t, d, device.Source{
		Code:    "#line 1 \"warned.cl\"\n__kernel void w(__global int* out) {\n\tint x = 1.5;\n\tout[0] = x * SCALE;\n}\n",
		Kernel:  "w",
		Defines: []device.Define{{Name: "SCALE", Value: "2"}},
	})
	defer warned.Release()
	if got := warned.(device.Warner).Warnings(); !strings.Contains(got, "warned.cl:2:") || !strings.Contains(got, "warning") || !strings.Contains(got, "1.5") {
		t.Errorf("Warnings = %q, want the implicit conversion of 1.5 at warned.cl:2", got)
	}
	clean := compile(t, d, device.Source{Code: "__kernel void ok(__global int* x) { x[0] = 7; }", Kernel: "ok"})
	defer clean.Release()
	if got := clean.(device.Warner).Warnings(); got != "" {
		t.Errorf("a clean program's Warnings = %q, want none", got)
	}
}
