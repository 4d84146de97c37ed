package cuda

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/internal/float16"
)

// The tests below run kernels on a real NVIDIA GPU. Where the driver, a GPU or NVRTC is
// missing they skip, giving the reason the backend reports.

// openTestDevice locks the test's goroutine to its thread, as devices require, opens the
// first CUDA device and closes it when the test ends.
func openTestDevice(tb testing.TB) *cuDevice {
	tb.Helper()
	if os.Getenv(CacheEnv) == "" {
		tb.Setenv(CacheEnv, tb.TempDir()) // compiled modules stay out of the user's cache
	}
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
	return d.(*cuDevice)
}

func compile(tb testing.TB, d device.Device, src device.Source) device.Kernel {
	tb.Helper()
	if src.Language == "" {
		src.Language = "cuda"
	}
	k, err := d.Compile(context.Background(), src)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(k.Release)
	return k
}

func floats(tb testing.TB, d device.Device, v []float32) device.Buffer {
	tb.Helper()
	b, err := d.Alloc(4 * len(v))
	if err != nil {
		tb.Fatal(err)
	}
	raw, _ := binary.Append(nil, binary.LittleEndian, v)
	if err := b.Write(raw); err != nil {
		tb.Fatal(err)
	}
	return b
}

func readFloats(tb testing.TB, b device.Buffer, n int) []float32 {
	tb.Helper()
	raw := make([]byte, 4*n)
	if err := b.Read(raw); err != nil {
		tb.Fatal(err)
	}
	out := make([]float32, n)
	binary.Decode(raw, binary.LittleEndian, out)
	return out
}

func i32(v int32) device.Arg {
	return device.Arg{Scalar: binary.LittleEndian.AppendUint32(nil, uint32(v))}
}

const vectorAdd = `
extern "C" __global__ void vector_add(float *c, const float *a, const float *b, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i] * SCALE;
}`

func TestDevicesReportTheGPU(t *testing.T) {
	d := openTestDevice(t)
	info := d.Info()
	if info.Backend != Name || info.Type != "gpu" || info.ComputeUnits < 1 || info.MaxBlockSize < 512 ||
		info.LocalMemBytes < 48*1024 || info.GlobalMemBytes < 1<<30 || info.RegistersPerBlock < 32768 {
		t.Fatalf("implausible device %+v", info)
	}
	for _, key := range []string{"compute_capability", "arch", "target", "nvrtc", "max_grid_dims", "pci_bus_id"} {
		if info.Extra[key] == "" {
			t.Errorf("Extra[%q] missing: %v", key, info.Extra)
		}
	}
	t.Logf("%s, %s, %s, NVRTC %s, target %s, %d SMs", info.Name, info.Version, info.Driver, info.Extra["nvrtc"], info.Extra["target"], info.ComputeUnits)
}

func TestVectorAddWithDefinesComputesEveryElementAndIsTimed(t *testing.T) {
	d := openTestDevice(t)
	const n = 1<<20 + 3
	a, b := make([]float32, n), make([]float32, n)
	for i := range a {
		a[i], b[i] = float32(i), float32(i%7)
	}
	ab, bb := floats(t, d, a), floats(t, d, b)
	cb := floats(t, d, make([]float32, n))
	k := compile(t, d, device.Source{Code: vectorAdd, Kernel: "vector_add",
		Defines: []device.Define{{Name: "block_size_x", Value: "256"}, {Name: "SCALE", Value: "2.0f"}}})
	dur, err := k.Run(context.Background(), device.Launch{Grid: device.Dim3{(n + 255) / 256}, Block: device.Dim3{256}},
		[]device.Arg{{Buffer: cb}, {Buffer: ab}, {Buffer: bb}, i32(n)})
	if err != nil {
		t.Fatal(err)
	}
	if dur <= 0 || dur > time.Second {
		t.Fatalf("kernel time %v", dur)
	}
	c := readFloats(t, cb, n)
	for i := range c {
		if c[i] != a[i]+2*b[i] {
			t.Fatalf("c[%d] = %v, want %v", i, c[i], a[i]+2*b[i])
		}
	}
	attrs := k.Attributes()
	if attrs["registers"] < 1 || attrs["max_block_size"] < 256 {
		t.Fatalf("attributes %v", attrs)
	}
	// A device-side copy after the launch gives c the contents of a again.
	if err := cb.(device.Copier).CopyFrom(ab, 4*n); err != nil {
		t.Fatal(err)
	}
	c = readFloats(t, cb, n)
	for i := range c {
		if c[i] != a[i] {
			t.Fatalf("after the device-side copy c[%d] = %v, want %v", i, c[i], a[i])
		}
	}
}

func TestTemplatedKernelsAreFoundByNameWithArguments(t *testing.T) {
	d := openTestDevice(t)
	src := `
template <typename T, int N>
__global__ void scale(T *x) { x[threadIdx.x] *= (T)N; }`
	k := compile(t, d, device.Source{Code: src, Kernel: "scale<float, 3>"})
	x := floats(t, d, []float32{1, 2, 3, 4})
	if _, err := k.Run(context.Background(), device.Launch{Grid: device.Dim3{1}, Block: device.Dim3{4}}, []device.Arg{{Buffer: x}}); err != nil {
		t.Fatal(err)
	}
	if got := readFloats(t, x, 4); got[0] != 3 || got[3] != 12 {
		t.Fatalf("scale<float, 3> gave %v", got)
	}
}

func TestCompileErrorsCarryNVRTCsLog(t *testing.T) {
	d := openTestDevice(t)
	_, err := d.Compile(context.Background(), device.Source{Language: "cuda", Kernel: "k",
		Code: `extern "C" __global__ void k(float *x) { x[0] = undefined_name; }`})
	var ce *device.CompileError
	if !errors.As(err, &ce) || !strings.Contains(ce.Log, "undefined_name") {
		t.Fatalf("got %v, want a compile error naming the identifier", err)
	}
	_, err = d.Compile(context.Background(), device.Source{Language: "cuda", Kernel: "missing",
		Code: `extern "C" __global__ void k(float *x) { x[0] = 1; }`})
	if !errors.As(err, &ce) {
		t.Fatalf("a missing kernel: %v", err)
	}
}

func TestResourceOveruseIsADeviceLimit(t *testing.T) {
	d := openTestDevice(t)
	// Static shared memory beyond any GPU's 227 KiB: ptxas refuses it.
	_, err := d.Compile(context.Background(), device.Source{Language: "cuda", Kernel: "big",
		Code: `extern "C" __global__ void big(float *x) { __shared__ float s[70000]; s[threadIdx.x] = x[threadIdx.x]; __syncthreads(); x[threadIdx.x] = s[69999 - threadIdx.x]; }`})
	var le *device.LimitError
	if !errors.As(err, &le) {
		t.Fatalf("got %v, want a device limit", err)
	}
	// A kernel bounded to 128 threads cannot run 256: refused before the launch.
	k := compile(t, d, device.Source{Kernel: "bounded",
		Code: `extern "C" __global__ void __launch_bounds__(128) bounded(float *x) { x[threadIdx.x] += 1; }`})
	x := floats(t, d, make([]float32, 256))
	_, err = k.Run(context.Background(), device.Launch{Grid: device.Dim3{1}, Block: device.Dim3{256}}, []device.Arg{{Buffer: x}})
	if !errors.As(err, &le) || !strings.Contains(le.What, "threads per block") {
		t.Fatalf("got %v, want a limit error on the block size", err)
	}
	if d.lost != nil {
		t.Fatal("a refused launch lost the device")
	}
}

func TestDynamicSharedMemoryBeyondTheDefaultLimit(t *testing.T) {
	d := openTestDevice(t)
	if d.info.LocalMemBytes < 64*1024 {
		t.Skipf("the device allows %d bytes of shared memory per block", d.info.LocalMemBytes)
	}
	k := compile(t, d, device.Source{Kernel: "reverse", Code: `
extern "C" __global__ void reverse(float *x, int n) {
    extern __shared__ float s[];
    for (int i = threadIdx.x; i < n; i += blockDim.x) s[i] = x[i];
    __syncthreads();
    for (int i = threadIdx.x; i < n; i += blockDim.x) x[i] = s[n - 1 - i];
}`})
	const n = 16384 // 64 KiB
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(i)
	}
	x := floats(t, d, v)
	if _, err := k.Run(context.Background(), device.Launch{Grid: device.Dim3{1}, Block: device.Dim3{256}, SharedBytes: 4 * n},
		[]device.Arg{{Buffer: x}, i32(n)}); err != nil {
		t.Fatal(err)
	}
	if got := readFloats(t, x, n); got[0] != n-1 || got[n-1] != 0 {
		t.Fatalf("reversed %v ... %v", got[0], got[n-1])
	}
}

func TestConstantSymbolsReceiveTheArgumentsBytes(t *testing.T) {
	d := openTestDevice(t)
	k := compile(t, d, device.Source{Kernel: "copy", Code: `
__constant__ float coef[4];
extern "C" __global__ void copy(float *out) { out[threadIdx.x] = coef[threadIdx.x]; }`})
	out := floats(t, d, make([]float32, 4))
	for _, want := range [][]float32{{1, 2, 3, 4}, {5, 6, 7, 8}} {
		raw, _ := binary.Append(nil, binary.LittleEndian, want)
		if _, err := k.Run(context.Background(), device.Launch{Grid: device.Dim3{1}, Block: device.Dim3{4}},
			[]device.Arg{{Buffer: out}, {Symbol: "coef", Scalar: raw}}); err != nil {
			t.Fatal(err)
		}
		if got := readFloats(t, out, 4); got[0] != want[0] || got[3] != want[3] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
	_, err := k.Run(context.Background(), device.Launch{Grid: device.Dim3{1}, Block: device.Dim3{4}},
		[]device.Arg{{Buffer: out}, {Symbol: "nosuch", Scalar: []byte{0, 0, 0, 0}}})
	if err == nil || !strings.Contains(err.Error(), "no __constant__") {
		t.Fatalf("a missing symbol: %v", err)
	}
}

// TestAKernelThatWritesPastAnArrayFailsNamingIt: a write one element past x lands in the
// rest of the driver's allocation granule without a fault, and the configuration would
// "verify". The canary after x's data catches it at the kernel's first launch, naming x,
// without losing the device; the data read back are x's, later launches go unchecked,
// and the next kernel is not blamed.
func TestAKernelThatWritesPastAnArrayFailsNamingIt(t *testing.T) {
	d := openTestDevice(t)
	const code = `
extern "C" __global__ void fill(float *x, int n) {
    int i = threadIdx.x;
    if (i < n + OVER) x[i] = 1.0f;
}`
	params := []device.Param{{Name: "x", Type: "float32", Pointer: true}, {Name: "n", Type: "int32"}}
	kernel := func(over string) device.Kernel {
		return compile(t, d, device.Source{Code: code, Kernel: "fill", Params: params, Defines: []device.Define{{Name: "OVER", Value: over}}})
	}
	past, within := kernel("1"), kernel("0")
	x := floats(t, d, make([]float32, 32))
	l := device.Launch{Grid: device.Dim3{1}, Block: device.Dim3{64}}
	args := []device.Arg{{Buffer: x}, i32(32)}
	_, err := past.Run(context.Background(), l, args)
	var re *device.RuntimeError
	const says = "the kernel wrote past the end of argument x (32 elements of float32)"
	if !errors.As(err, &re) || errors.Is(err, device.ErrDeviceLost) || !strings.Contains(err.Error(), says) {
		t.Fatalf("got %v, want a runtime error saying %q", err, says)
	}
	for i, v := range readFloats(t, x, 32) {
		if v != 1 {
			t.Fatalf("x[%d] = %v after the launch, want 1", i, v)
		}
	}
	if _, err := within.Run(context.Background(), l, args); err != nil {
		t.Fatalf("an in-bounds kernel after one that overran: %v", err)
	}
	if _, err := past.Run(context.Background(), l, args); err != nil {
		t.Fatalf("the second launch of a kernel that overruns: %v", err)
	}
}

// TestAnIllegalAddressLosesTheDevice faults a kernel in a child process, since the fault
// poisons the context for the rest of the process that runs it.
func TestAnIllegalAddressLosesTheDevice(t *testing.T) {
	if os.Getenv("KTUNE_CUDA_FAULT_CHILD") == "1" {
		d := openTestDevice(t)
		k := compile(t, d, device.Source{Kernel: "wild", Code: `
extern "C" __global__ void wild(float *x) { x[(size_t)threadIdx.x << 40] = 1.0f; }`})
		x := floats(t, d, make([]float32, 32))
		_, err := k.Run(context.Background(), device.Launch{Grid: device.Dim3{1}, Block: device.Dim3{32}}, []device.Arg{{Buffer: x}})
		var re *device.RuntimeError
		if !errors.As(err, &re) || !errors.Is(err, device.ErrDeviceLost) {
			t.Fatalf("got %v, want a runtime error that loses the device", err)
		}
		if _, err := d.Compile(context.Background(), device.Source{Language: "cuda", Kernel: "wild", Code: "x"}); err == nil || !strings.Contains(err.Error(), "lost") {
			t.Fatalf("a lost device compiled again: %v", err)
		}
		t.Log("FAULT:", err)
		return
	}
	openTestDevice(t) // skips without a GPU
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestAnIllegalAddressLosesTheDevice$", "-test.v")
	cmd.Env = append(os.Environ(), "KTUNE_CUDA_FAULT_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "FAULT:") || !strings.Contains(string(out), "CUDA_ERROR_") {
		t.Fatalf("child output:\n%s", out)
	}
}

func TestNVMLMeasuresEnergyAndPowerOverAWindow(t *testing.T) {
	d := openTestDevice(t)
	obs := d.Observers()
	if len(obs) == 0 {
		t.Skipf("no NVML: %s", d.info.Extra["nvml"])
	}
	o := obs[0]
	k := compile(t, d, device.Source{Kernel: "spin", Code: `
extern "C" __global__ void spin(float *x, int n) {
    float v = x[blockIdx.x * blockDim.x + threadIdx.x];
    for (int i = 0; i < n; i++) v = v * 0.999f + 0.001f;
    x[blockIdx.x * blockDim.x + threadIdx.x] = v;
}`})
	const blocks = 1024
	x := floats(t, d, make([]float32, blocks*256))
	args := []device.Arg{{Buffer: x}, i32(20000)}
	if err := o.Begin(); err != nil {
		t.Fatal(err)
	}
	start, runs := time.Now(), 0
	for time.Since(start) < o.Window()+50*time.Millisecond {
		if _, err := k.Run(context.Background(), device.Launch{Grid: device.Dim3{blocks}, Block: device.Dim3{256}}, args); err != nil {
			t.Fatal(err)
		}
		runs++
	}
	m, err := o.End(runs)
	if err != nil {
		t.Fatal(err)
	}
	if !(m["power"] > 5 && m["power"] < 2000) || !(m["energy"] > 0) || math.Abs(m["energy"]*float64(runs)/m["power"]-time.Since(start).Seconds()) > 0.2 ||
		m["core_clock"] <= 0 || m["memory_clock"] <= 0 {
		t.Fatalf("implausible observation over %d runs: %v", runs, m)
	}
	t.Logf("%d runs: %.1f W, %.4f J per run, SM %v MHz, memory %v MHz", runs, m["power"], m["energy"], m["core_clock"], m["memory_clock"])
	// Too short an observation reports clocks only.
	o.Begin()
	m, _ = o.End(1)
	if _, ok := m["energy"]; ok {
		t.Fatalf("energy over an instant: %v", m)
	}
}

// halfKernel computes y = x * a + b in half precision, x and y arrays of float16 and a a
// float16 scalar, through cuda_fp16.h's intrinsics (sm_53 and later). OVER elements are
// written past the end of y.
const halfKernel = `#include <cuda_fp16.h>
extern "C" __global__ void axpb_half(__half *y, const __half *x, __half a, float b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n + OVER) y[i] = __hadd(__hmul(x[i < n ? i : 0], a), __float2half(b));
}`

// TestHalfArraysThroughCUDAFP16 runs a kernel on __half arrays and a __half scalar, the
// spec's float16 type, built with #include <cuda_fp16.h>. NVRTC 13 has no built-in
// cuda_fp16.h (H200, 2026-11-27), so the backend gives NVRTC the CUDA toolkit's include
// folder, as nvcc has it: the kernel compiles without options of its own. The inputs
// are multiples of 1/8 whose products and sums halves hold exactly: every element must
// be the value computed on the host, and a kernel writing one half past y is named with
// y's length in halves.
func TestHalfArraysThroughCUDAFP16(t *testing.T) {
	d := openTestDevice(t)
	ctx := context.Background()
	const n = 4096
	params := []device.Param{{Name: "y", Type: "float16", Pointer: true}, {Name: "x", Type: "float16", Pointer: true},
		{Name: "a", Type: "float16"}, {Name: "b", Type: "float32"}, {Name: "n", Type: "int32"}}
	src := device.Source{Language: "cuda", Code: halfKernel, Kernel: "axpb_half", Params: params,
		Defines: []device.Define{{Name: "OVER", Value: "0"}}}
	t.Logf("NVRTC %s (%s), toolkit include folder %q", d.info.Extra["nvrtc"], d.rtc.path, d.rtc.include)
	k, err := d.Compile(ctx, src)
	var ce *device.CompileError
	if errors.As(err, &ce) && strings.Contains(ce.Log, "cuda_fp16.h") {
		t.Fatalf("NVRTC %s cannot include cuda_fp16.h with the toolkit include folder the backend found (%q; candidates %q):\n%s",
			d.info.Extra["nvrtc"], d.rtc.include, includeCandidates(d.rtc.path, os.Getenv, selfMaps()), ce.Log)
	}
	if err != nil {
		t.Fatalf("compiling a __half kernel: %v", err)
	}
	t.Cleanup(k.Release)

	x, want := make([]uint16, n), make([]uint16, n)
	a := float16.FromFloat64(3)
	for i := range x {
		x[i] = float16.FromFloat64(float64(i%200-100) / 8)
		prod := float16.FromFloat64(float16.Float64(x[i]) * 3)
		want[i] = float16.FromFloat64(float16.Float64(prod) + 0.5)
	}
	xb, yb := upload(t, d, x), upload(t, d, make([]uint16, n))
	args := []device.Arg{{Buffer: yb}, {Buffer: xb}, {Scalar: binary.LittleEndian.AppendUint16(nil, a)},
		{Scalar: binary.LittleEndian.AppendUint32(nil, math.Float32bits(0.5))}, i32(n)}
	l := device.Launch{Grid: device.Dim3{n / 128}, Block: device.Dim3{128}}
	if _, err := k.Run(ctx, l, args); err != nil {
		t.Fatal(err)
	}
	got := make([]uint16, n)
	download(t, yb, got)
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("y[%d] = %v (0x%04x), want %v (0x%04x) = %v * 3 + 0.5", i, float16.Float64(got[i]), got[i],
				float16.Float64(want[i]), want[i], float16.Float64(x[i]))
		}
	}
	if v := float16.Float64(got[1]); v != -36.625 { // x[1] = -99/8
		t.Fatalf("y[1] = %v, want -36.625", v)
	}

	// One half past y: the canary after its 8192 bytes names it in halves.
	src.Defines = []device.Define{{Name: "OVER", Value: "1"}}
	over := compile(t, d, src)
	_, err = over.Run(ctx, device.Launch{Grid: device.Dim3{n/128 + 1}, Block: device.Dim3{128}}, args)
	const says = "the kernel wrote past the end of argument y (4096 elements of float16)"
	var re *device.RuntimeError
	if !errors.As(err, &re) || errors.Is(err, device.ErrDeviceLost) || !strings.Contains(err.Error(), says) {
		t.Fatalf("a kernel writing one half past y: %v; want a runtime error saying %q", err, says)
	}
}

// upload allocates a buffer holding data, a slice of fixed-size values.
func upload(tb testing.TB, d device.Device, data any) device.Buffer {
	tb.Helper()
	raw, err := binary.Append(nil, binary.LittleEndian, data)
	if err != nil {
		tb.Fatal(err)
	}
	b, err := d.Alloc(len(raw))
	if err != nil {
		tb.Fatal(err)
	}
	if err := b.Write(raw); err != nil {
		tb.Fatal(err)
	}
	return b
}

// download reads b into out, a slice of fixed-size values as long as b.
func download(tb testing.TB, b device.Buffer, out any) {
	tb.Helper()
	raw := make([]byte, binary.Size(out))
	if err := b.Read(raw); err != nil {
		tb.Fatal(err)
	}
	if _, err := binary.Decode(raw, binary.LittleEndian, out); err != nil {
		tb.Fatal(err)
	}
}

// sequenceSource holds three functions built into one module: a templated scale, an
// integer recurrence that keeps the GPU busy for a while (its result exact on the host),
// and a block sum through dynamic shared memory of one float per thread.
const sequenceSource = `
template <int F> __global__ void scale(float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= F;
}
extern "C" __global__ void lcg(unsigned *u, int n, int iters) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned v = u[i];
    for (int k = 0; k < iters; k++) v = v * 1664525u + 1013904223u;
    u[i] = v;
}
extern "C" __global__ void block_sum(const float *x, float *sums, int n) {
    extern __shared__ float s[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (int h = blockDim.x / 2; h > 0; h /= 2) {
        if (threadIdx.x < h) s[threadIdx.x] += s[threadIdx.x + h];
        __syncthreads();
    }
    if (threadIdx.x == 0) sums[blockIdx.x] = s[0];
}`

// lcgHost is the kernel lcg's recurrence on the host.
func lcgHost(v uint32, iters int) uint32 {
	for range iters {
		v = v*1664525 + 1013904223
	}
	return v
}

// TestFunctionsOfOneSourceRunAsATimedSequence builds three functions of one source with
// CompileFunctions (one NVRTC program, a name expression each, one module) and runs them
// as a sequence with RunSequence: the recurrence, scale<2>, a block sum of 256 threads
// with 64 KiB of dynamic shared memory (past the default 48 KiB, raised for that launch;
// 1 KiB where the device has no more than 64 KiB), a block sum of 64 threads with 256
// bytes, and the recurrence again. Every result is checked exactly (the sums are of
// integers below 2^24), and the sequence, timed by events from its first launch's start
// to its last one's end, takes at least 80% of the launches' own times added up (the
// recurrence's two launches are most of it: a sequence timing one of them alone falls
// short) and at most that sum plus 10% and 20 µs a launch. A step over the block-size
// limit is refused naming it, and the device goes on.
func TestFunctionsOfOneSourceRunAsATimedSequence(t *testing.T) {
	d := openTestDevice(t)
	ctx := context.Background()
	fl := func(name string) device.Param { return device.Param{Name: name, Type: "float32", Pointer: true} }
	n32 := device.Param{Name: "n", Type: "int32"}
	fns := []device.Function{
		{Name: "scale<2>", Params: []device.Param{fl("x"), n32}},
		{Name: "lcg", Params: []device.Param{{Name: "u", Type: "uint32", Pointer: true}, n32, {Name: "iters", Type: "int32"}}},
		{Name: "block_sum", Params: []device.Param{fl("x"), fl("sums"), n32}},
	}
	ks, err := d.CompileFunctions(ctx, device.Source{Language: "cuda", Code: sequenceSource}, fns)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range ks {
		t.Cleanup(k.Release)
	}
	if len(ks) != 3 || ks[0].(*kernel).module != ks[1].(*kernel).module || ks[1].(*kernel).module != ks[2].(*kernel).module {
		t.Fatalf("%d kernels; want 3 of one module", len(ks))
	}
	scale, lcg, blockSum := ks[0], ks[1], ks[2]

	const n, iters = 1 << 20, 4096
	u0, x0 := make([]uint32, n), make([]float32, n)
	for i := range x0 {
		u0[i], x0[i] = uint32(i)*2654435761, float32(i%1000)/2
	}
	ub, xb := upload(t, d, u0), upload(t, d, x0)
	sums256, sums64 := upload(t, d, make([]float32, n/256)), upload(t, d, make([]float32, n/64))
	nArg := i32(n)
	big := 64 * 1024
	if d.info.LocalMemBytes <= int64(big) {
		big = 1024
	}
	seq := []device.Step{
		{Kernel: lcg, Launch: device.Launch{Grid: device.Dim3{n / 256}, Block: device.Dim3{256}}, Args: []device.Arg{{Buffer: ub}, nArg, i32(iters)}},
		{Kernel: scale, Launch: device.Launch{Grid: device.Dim3{n / 256}, Block: device.Dim3{256}}, Args: []device.Arg{{Buffer: xb}, nArg}},
		{Kernel: blockSum, Launch: device.Launch{Grid: device.Dim3{n / 256}, Block: device.Dim3{256}, SharedBytes: big}, Args: []device.Arg{{Buffer: xb}, {Buffer: sums256}, nArg}},
		{Kernel: blockSum, Launch: device.Launch{Grid: device.Dim3{n / 64}, Block: device.Dim3{64}, SharedBytes: 64 * 4}, Args: []device.Arg{{Buffer: xb}, {Buffer: sums64}, nArg}},
		{Kernel: lcg, Launch: device.Launch{Grid: device.Dim3{n / 256}, Block: device.Dim3{256}}, Args: []device.Arg{{Buffer: ub}, nArg, i32(iters)}},
	}
	first, err := d.RunSequence(ctx, seq)
	if err != nil {
		t.Fatal(err)
	}
	u, x := make([]uint32, n), make([]float32, n)
	s256, s64 := make([]float32, n/256), make([]float32, n/64)
	download(t, ub, u)
	download(t, xb, x)
	download(t, sums256, s256)
	download(t, sums64, s64)
	for i := 0; i < n; i += 997 {
		if want := lcgHost(u0[i], 2*iters); u[i] != want {
			t.Fatalf("u[%d] = %d after the two lcg launches, want %d", i, u[i], want)
		}
	}
	for i := range x {
		if want := float32(i % 1000); x[i] != want {
			t.Fatalf("x[%d] = %v after scale<2>, want %v", i, x[i], want)
		}
	}
	for _, c := range []struct {
		sums  []float32
		block int
	}{{s256, 256}, {s64, 64}} {
		for b := range c.sums {
			want := 0
			for i := b * c.block; i < (b+1)*c.block; i++ {
				want += i % 1000
			}
			if c.sums[b] != float32(want) {
				t.Fatalf("the sum of block %d of %d threads is %v, want %d", b, c.block, c.sums[b], want)
			}
		}
	}

	// Timing: the best of five, of each launch alone and of the sequence.
	best := func(run func() (time.Duration, error)) time.Duration {
		var m time.Duration
		for i := range 5 {
			dur, err := run()
			if err != nil {
				t.Fatal(err)
			}
			if i == 0 || dur < m {
				m = dur
			}
		}
		return m
	}
	var sum time.Duration
	each := make([]time.Duration, len(seq))
	for i, st := range seq {
		each[i] = best(func() (time.Duration, error) { return st.Kernel.Run(ctx, st.Launch, st.Args) })
		sum += each[i]
	}
	whole := best(func() (time.Duration, error) { return d.RunSequence(ctx, seq) })
	t.Logf("launches alone %v (sum %v); the sequence %v (its first run %v)", each, sum, whole, first)
	for i, e := range each {
		if whole < e {
			t.Errorf("the sequence took %v, less than its launch %d alone (%v)", whole, i, e)
		}
	}
	if limit := sum + sum/10 + time.Duration(len(seq))*20*time.Microsecond; whole < sum*8/10 || whole > limit {
		t.Errorf("the sequence took %v; its launches alone add up to %v: want between %v and %v", whole, sum, sum*8/10, limit)
	}

	// A step over the device's block size is refused naming it (the steps before it have
	// run), and the device goes on.
	bad := slices.Clone(seq)
	bad[3].Launch = device.Launch{Grid: device.Dim3{1}, Block: device.Dim3{d.info.MaxBlockSize * 2}, SharedBytes: 256}
	var se *device.StepError
	var le *device.LimitError
	if _, err := d.RunSequence(ctx, bad); !errors.As(err, &se) || se.Index != 3 || !errors.As(err, &le) {
		t.Fatalf("a step over the block size: %v; want a device limit naming step 3", err)
	}
	if d.lost != nil {
		t.Fatalf("a refused step lost the device: %v", d.lost)
	}
	if _, err := d.RunSequence(ctx, seq[1:2]); err != nil {
		t.Fatalf("a sequence after a refused one: %v", err)
	}
}

// TestCompileFunctionsNamesAFunctionTheSourceLacks: NVRTC compiles each name expression
// into the program, so a function the source lacks may fail the whole build rather than
// its cuModuleGetFunction (the stand-in's way). Either way the error is a
// *device.FunctionError with the function's index (device.MultiCompiler's contract, by
// which the runner names the launch), and says its name.
func TestCompileFunctionsNamesAFunctionTheSourceLacks(t *testing.T) {
	d := openTestDevice(t)
	_, err := d.CompileFunctions(context.Background(), device.Source{Language: "cuda", Code: sequenceSource},
		[]device.Function{{Name: "scale<2>"}, {Name: "no_such_function"}})
	var fe *device.FunctionError
	switch {
	case errors.As(err, &fe) && fe.Index == 1 && strings.Contains(err.Error()+compileLog(err), "no_such_function"):
	case err != nil && !errors.As(err, &fe) && strings.Contains(compileLog(err), "no_such_function"):
		t.Fatalf("NVRTC failed the whole build over the missing function, and CompileFunctions gave no FunctionError: the runner then names the build's first launch, not the one whose function is missing (map NVRTC's complaint about a name expression to its index). Got: %v", err)
	default:
		t.Fatalf("got %v (log %q); want a FunctionError of function 1 naming no_such_function", err, compileLog(err))
	}
}

// compileLog is a compile error's log, or "".
func compileLog(err error) string {
	var ce *device.CompileError
	if errors.As(err, &ce) {
		return ce.Log
	}
	return ""
}

func BenchmarkLaunch(b *testing.B) {
	d := openTestDevice(b)
	k := compile(b, d, device.Source{Code: vectorAdd, Kernel: "vector_add",
		Defines: []device.Define{{Name: "block_size_x", Value: "256"}, {Name: "SCALE", Value: "1.0f"}}})
	const n = 1 << 16
	a := floats(b, d, make([]float32, n))
	args := []device.Arg{{Buffer: a}, {Buffer: a}, {Buffer: a}, i32(n)}
	l := device.Launch{Grid: device.Dim3{n / 256}, Block: device.Dim3{256}}
	ctx := context.Background()
	var kernel time.Duration
	for b.Loop() {
		dur, err := k.Run(ctx, l, args)
		if err != nil {
			b.Fatal(err)
		}
		kernel += dur
	}
	b.ReportMetric(float64(kernel.Nanoseconds())/float64(b.N), "kernel-ns/op")
}

// BenchmarkCompile compiles with NVRTC every time (the module cache off) and loads the
// module; BenchmarkCompileCached loads it from the module cache.
func BenchmarkCompile(b *testing.B) {
	b.Setenv(CacheEnv, "off")
	benchmarkCompile(b)
}

func BenchmarkCompileCached(b *testing.B) {
	b.Setenv(CacheEnv, b.TempDir())
	benchmarkCompile(b)
}

func benchmarkCompile(b *testing.B) {
	d := openTestDevice(b)
	src := device.Source{Language: "cuda", Code: vectorAdd, Kernel: "vector_add",
		Defines: []device.Define{{Name: "block_size_x", Value: "256"}, {Name: "SCALE", Value: "1.0f"}}}
	for b.Loop() {
		k, err := d.Compile(context.Background(), src)
		if err != nil {
			b.Fatal(err)
		}
		k.Release()
	}
}
