package cuda

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ktune/ktune/device"
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
