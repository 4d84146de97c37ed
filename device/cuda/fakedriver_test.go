//go:build linux

package cuda

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/device/internal/dl"
)

// TestCallsReachTheDriverAsItsCSignaturesSay runs the backend against testdata/
// fakedriver.c, a stand-in for libcuda, NVRTC and NVML built here with the C compiler:
// every call the backend makes goes through the same C calling convention as with the
// real libraries, and the stand-in checks and records what arrives (options, launch
// geometry, kernel parameters, symbols). It proves the bindings, not the GPU: the GPU
// tests in gpu_test.go do that where a GPU is lent. The libraries load once per process,
// so the test runs in a child process.
func TestCallsReachTheDriverAsItsCSignaturesSay(t *testing.T) {
	if lib := os.Getenv("KTUNE_CUDA_FAKE_CHILD"); lib != "" {
		fakeDriverChild(t, lib)
		return
	}
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler to build the stand-in driver")
	}
	lib := filepath.Join(t.TempDir(), "libfakecuda.so")
	if out, err := exec.Command(cc, "-shared", "-fPIC", "-O1", "-o", lib, "testdata/fakedriver.c").CombinedOutput(); err != nil {
		t.Fatalf("building the stand-in: %v\n%s", err, out)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestCallsReachTheDriverAsItsCSignaturesSay$", "-test.v")
	cmd.Env = append(os.Environ(), "KTUNE_CUDA_FAKE_CHILD="+lib, DriverEnv+"="+lib, NVRTCEnv+"="+lib, NVMLEnv+"="+lib,
		CacheEnv+"="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

func fakeDriverChild(t *testing.T, lib string) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	h, err := dl.Open(lib)
	if err != nil {
		t.Fatal(err)
	}
	var options func() string
	var launch func() *[8]uint32
	var dynShared func() int32
	var setFreeMemory func(uintptr)
	var compilations, modulesLoaded, energyReads func() int32
	var launchLog func() string
	var clearLaunchLog func()
	for name, f := range map[string]any{"fake_options": &options, "fake_launch": &launch, "fake_dynamic_shared": &dynShared,
		"fake_set_free_memory": &setFreeMemory, "fake_compilations": &compilations, "fake_modules_loaded": &modulesLoaded,
		"fake_launch_log": &launchLog, "fake_clear_launch_log": &clearLaunchLog, "fake_energy_reads": &energyReads} {
		if err := dl.Bind(f, h, name); err != nil {
			t.Fatal(err)
		}
	}

	infos, err := Backend{}.Devices()
	if err != nil {
		t.Fatal(err)
	}
	in := infos[0]
	if len(infos) != 1 || in.Name != "Fake H100" || in.ComputeUnits != 132 || in.MaxBlockSize != 1024 || in.MaxBlockDims != [3]int{1024, 1024, 64} ||
		in.LocalMemBytes != 232448 || in.RegistersPerBlock != 65536 || in.ClockMHz != 1980 || in.GlobalMemBytes != 80<<30 ||
		in.Driver != "CUDA 12.4" || in.Extra["arch"] != "sm_90" || in.Extra["target"] != "sm_90" || in.Extra["nvrtc"] != "12.4" ||
		in.Extra["pci_bus_id"] != "0000:19:00.0" || in.Extra["max_grid_dims"] != "2147483647,65535,65535" || in.Extra["nvml"] != "" {
		t.Fatalf("device info %+v", in)
	}
	// the fake H100 SXM's attributes: 132 SMs x 128 lanes x 2 x 1.98 GHz, 2 x 2619 MHz x 640 bytes
	if p := in.Peak; p == nil || math.Abs(p.GFLOPS["float32"]-66908.16) > 1e-6 || math.Abs(p.GFLOPS["float64"]-33454.08) > 1e-6 ||
		math.Abs(p.GBs-3352.32) > 1e-6 {
		t.Fatalf("peak %+v", in.Peak)
	}
	dev, err := Backend{}.Open(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	d := dev.(*cuDevice)
	ctx := context.Background()

	// Compilation: the options NVRTC receives, the template's lowered name, attributes.
	dir := t.TempDir()
	src := device.Source{Language: "cuda", File: filepath.Join(dir, "scale.cu"), Kernel: "scale<2>", Options: []string{"-use_fast_math"},
		Defines: []device.Define{{Name: "block_size_x", Value: "64"}},
		Code:    "template <int A> __global__ void scale(float *x, int n, float a) {}"}
	k, err := d.Compile(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	want := "-use_fast_math|-arch=sm_90|-Dblock_size_x=64|-I" + dir + "|"
	if d.rtc.include != "" { // a CUDA toolkit on this machine (the GPU's)
		want += "-I" + d.rtc.include + "|"
	}
	if got := options(); got != want {
		t.Fatalf("NVRTC received %q, want %q", got, want)
	}
	attrs := k.Attributes()
	if attrs["registers"] != 128 || attrs["max_block_size"] != 512 || attrs["local_mem_bytes"] != 1024 || attrs["cached"] != 0 {
		t.Fatalf("attributes %v", attrs)
	}
	if k2, err := d.Compile(ctx, src); err != nil || k2.Attributes()["cached"] != 1 {
		t.Fatalf("the second compilation is not a cache hit: %v %v", err, k2)
	} else {
		k2.Release()
	}

	// What NVRTC says of a build that succeeds is the kernel's warnings, from the module
	// cache too; a clean build has none.
	if w := k.(device.Warner).Warnings(); w != "" {
		t.Fatalf("a clean build's warnings: %q", w)
	}
	warned := src
	warned.Code += " // int unused_warning;"
	for _, from := range []string{"NVRTC", "the module cache"} {
		kw, err := d.Compile(ctx, warned)
		if err != nil {
			t.Fatal(err)
		}
		if w := kw.(device.Warner).Warnings(); !strings.Contains(w, `scale.cu(1): warning #177-D: variable "unused_warning"`) {
			t.Fatalf("warnings from %s: %q", from, w)
		}
		kw.Release()
	}

	// Several functions of one source: one NVRTC compilation with a name expression each,
	// one module, a function of each name; the module is unloaded with the last kernel.
	compiledBefore, loadedBefore := compilations(), modulesLoaded()
	shared := src
	shared.Code += "\n__global__ void offset(float *x, int n, float a) {}"
	fns, err := d.CompileFunctions(ctx, shared, []device.Function{{Name: "scale<2>"}, {Name: "offset"}})
	if err != nil {
		t.Fatal(err)
	}
	if compilations()-compiledBefore != 1 || modulesLoaded()-loadedBefore != 1 {
		t.Fatalf("two functions of one source: %d compilations, %d modules; want 1, 1", compilations()-compiledBefore, modulesLoaded()-loadedBefore)
	}
	if again, err := d.CompileFunctions(ctx, shared, []device.Function{{Name: "scale<2>"}, {Name: "offset"}}); err != nil ||
		compilations()-compiledBefore != 1 || again[1].Attributes()["cached"] != 1 {
		t.Fatalf("the same two functions again are not one cache hit: %v, %d compilations", err, compilations()-compiledBefore)
	} else {
		again[0].Release()
		again[1].Release()
	}

	// A launch: buffers, scalars and the __constant__ symbol arrive where the C side reads them.
	var re *device.RuntimeError
	buf, err := d.Alloc(16)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := binary.Append(nil, binary.LittleEndian, []float32{1, 2, 3, 4})
	if err := buf.Write(raw); err != nil {
		t.Fatal(err)
	}
	coef, _ := binary.Append(nil, binary.LittleEndian, []float32{0.5, 0, 0, 0})
	args := []device.Arg{{Buffer: buf}, {Scalar: binary.LittleEndian.AppendUint32(nil, 4)},
		{Symbol: "coef", Scalar: coef}, {Scalar: binary.LittleEndian.AppendUint32(nil, math.Float32bits(3))}}
	dur, err := k.Run(ctx, device.Launch{Grid: device.Dim3{2, 3}, Block: device.Dim3{64, 2}}, args)
	if err != nil || dur != 250*time.Microsecond {
		t.Fatalf("run: %v %v", dur, err)
	}
	if got := *launch(); got != [8]uint32{2, 3, 1, 64, 2, 1, 0, 1} {
		t.Fatalf("launch geometry %v", got)
	}
	out := make([]byte, 16)
	if err := buf.Read(out); err != nil {
		t.Fatal(err)
	}
	var x [4]float32
	binary.Decode(out, binary.LittleEndian, x[:])
	if x != [4]float32{3.5, 6.5, 9.5, 12.5} {
		t.Fatalf("the kernel saw other arguments: %v", x)
	}

	// Each function of the shared module launches as itself.
	clearLaunchLog()
	other, err := d.Alloc(16)
	if err != nil {
		t.Fatal(err)
	}
	otherArgs := slices.Clone(args)
	otherArgs[0] = device.Arg{Buffer: other}
	for _, f := range []device.Kernel{fns[1], fns[0]} {
		if _, err := f.Run(ctx, device.Launch{Grid: device.Dim3{1}, Block: device.Dim3{64}}, otherArgs); err != nil {
			t.Fatal(err)
		}
	}
	if got := launchLog(); got != "offset;_Z5scaleILi2EEvPfif;" {
		t.Fatalf("launched %q, want offset then scale<2>", got)
	}
	// A sequence runs its steps back to back between two events: three launches take
	// 3 x 250 µs and the two gaps of 10 µs between them, which per-launch events leave out.
	one64 := device.Launch{Grid: device.Dim3{1}, Block: device.Dim3{64}}
	clearLaunchLog()
	seq := []device.Step{{Kernel: fns[1], Launch: one64, Args: otherArgs}, {Kernel: fns[0], Launch: one64, Args: otherArgs},
		{Kernel: fns[0], Launch: one64, Args: otherArgs}}
	if dur, err := d.RunSequence(ctx, seq); err != nil || dur.Round(time.Microsecond) != 770*time.Microsecond { // ms as a float32
		t.Fatalf("a sequence of three launches: %v, %v; want 770µs", dur, err)
	}
	if got := launchLog(); got != "offset;_Z5scaleILi2EEvPfif;_Z5scaleILi2EEvPfif;" {
		t.Fatalf("the sequence launched %q", got)
	}
	if dur, err := device.RunSequence(ctx, struct{ device.Device }{d}, seq); err != nil || dur.Round(time.Microsecond) != 750*time.Microsecond {
		t.Fatalf("the same launches timed each: %v, %v; want 750µs", dur, err)
	}
	// A step over a limit is refused, naming it, before it reaches the driver.
	calls0 := launch()[7]
	seq[1].Launch.Block = device.Dim3{1024}
	var se *device.StepError
	if _, err := d.RunSequence(ctx, seq); !errors.As(err, &se) || se.Index != 1 || !errors.As(err, new(*device.LimitError)) || launch()[7] != calls0+1 {
		t.Fatalf("a sequence whose second step breaks a limit: %v (launches %d -> %d)", err, calls0, launch()[7])
	}
	loaded := modulesLoaded()
	fns[0].Release()
	if modulesLoaded() != loaded {
		t.Fatal("releasing one function of two unloaded their module")
	}
	fns[1].Release()
	if modulesLoaded() != loaded-1 {
		t.Fatal("releasing both functions left their module loaded")
	}
	other.Release()

	// A device-side copy: the kernel's output back to what was written before it.
	pristine, err := d.Alloc(16)
	if err != nil {
		t.Fatal(err)
	}
	if err := pristine.Write(raw); err != nil {
		t.Fatal(err)
	}
	if err := buf.(device.Copier).CopyFrom(pristine, 12); err != nil {
		t.Fatal(err)
	}
	if err := buf.Read(out); err != nil {
		t.Fatal(err)
	}
	binary.Decode(out, binary.LittleEndian, x[:])
	if x != [4]float32{1, 2, 3, 12.5} {
		t.Fatalf("after copying 12 bytes on the device: %v", x)
	}
	if err := buf.(device.Copier).CopyFrom(pristine, 17); err == nil {
		t.Fatal("a copy of 17 bytes between buffers of 16 succeeded")
	}
	pristine.Release()

	// Dynamic shared memory above the kernel's default is requested first.
	if _, err := k.Run(ctx, device.Launch{Grid: device.Dim3{1}, Block: device.Dim3{64}, SharedBytes: 60000}, args); err != nil {
		t.Fatal(err)
	}
	if dynShared() != 60000 || launch()[6] != 60000 {
		t.Fatalf("dynamic shared memory: attribute %d, launch %d", dynShared(), launch()[6])
	}
	// A block the kernel's registers do not allow never reaches the driver.
	calls := launch()[7]
	var le *device.LimitError
	if _, err := k.Run(ctx, device.Launch{Grid: device.Dim3{1}, Block: device.Dim3{1024}}, args); !errors.As(err, &le) || launch()[7] != calls {
		t.Fatalf("a 1024-thread block: %v (launches %d -> %d)", err, calls, launch()[7])
	}

	// A kernel whose bounds check is off by two writes two floats past the end of x, into
	// the canary after it (without one, on a GPU, into the rest of the allocation's
	// granule, unseen): its first launch fails naming x, and the data read back are x's
	// four elements.
	params := []device.Param{{Name: "x", Type: "float32", Pointer: true}, {Name: "n", Type: "int32"},
		{Name: "coef", Type: "float32", Pointer: true}, {Name: "a", Type: "float32"}}
	overSrc := src
	overSrc.Params = params
	overSrc.Defines = append(slices.Clone(src.Defines), device.Define{Name: "over", Value: "2"})
	kOver, err := d.Compile(ctx, overSrc)
	if err != nil {
		t.Fatal(err)
	}
	if err := buf.Write(raw); err != nil {
		t.Fatal(err)
	}
	one := device.Launch{Grid: device.Dim3{1}, Block: device.Dim3{64}}
	const says = "the kernel wrote past the end of argument x (4 elements of float32): its length in the spec is too small or the kernel overruns it"
	if _, err := kOver.Run(ctx, one, args); !errors.As(err, &re) || !strings.HasSuffix(err.Error(), says) {
		t.Fatalf("a kernel that writes past x: %v", err)
	}
	if err := buf.Read(out); err != nil {
		t.Fatal(err)
	}
	binary.Decode(out, binary.LittleEndian, x[:])
	if x != [4]float32{3.5, 6.5, 9.5, 12.5} {
		t.Fatalf("after the overrun x reads %v", x)
	}
	if err := buf.Read(make([]byte, 20)); err == nil {
		t.Fatal("a read of 20 bytes from a buffer of 16 succeeded")
	}
	// The same overrun of a float16 array (a __half *) counts its 16 bytes as 8 halves.
	halfSrc := overSrc
	halfSrc.Params = slices.Clone(params)
	halfSrc.Params[0].Type = "float16"
	kHalf, err := d.Compile(ctx, halfSrc)
	if err != nil {
		t.Fatal(err)
	}
	const saysHalf = "the kernel wrote past the end of argument x (8 elements of float16): its length in the spec is too small or the kernel overruns it"
	if _, err := kHalf.Run(ctx, one, args); !errors.As(err, &re) || !strings.HasSuffix(err.Error(), saysHalf) {
		t.Fatalf("a kernel that writes past a float16 x: %v", err)
	}
	kHalf.Release()
	if err := buf.Write(raw); err != nil {
		t.Fatal(err)
	}
	// The canary was written again: the next kernel's first launch, in bounds, is not
	// blamed, with the parameters' names or without them. The overrunning kernel's later
	// (timed) launches are not checked.
	inSrc := src
	inSrc.Params = params
	for _, s := range []device.Source{inSrc, src} {
		kIn, err := d.Compile(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := kIn.Run(ctx, one, args); err != nil {
			t.Fatalf("an in-bounds kernel after one that overran: %v", err)
		}
		kIn.Release()
	}
	// A kernel that also writes x[-3] to x[-1] writes before x's start, into the canary
	// there (without one, into the allocation's start, or another buffer's end, unseen):
	// its first launch fails naming x, x's data are intact, and the canary is whole again
	// for the next kernel.
	if err := buf.Write(raw); err != nil {
		t.Fatal(err)
	}
	underSrc := src
	underSrc.Params = params
	underSrc.Defines = append(slices.Clone(src.Defines), device.Define{Name: "under", Value: "3"})
	kUnder, err := d.Compile(ctx, underSrc)
	if err != nil {
		t.Fatal(err)
	}
	const saysBefore = "the kernel wrote before the start of argument x (4 elements of float32): the kernel indexes it below 0"
	if _, err := kUnder.Run(ctx, one, args); !errors.As(err, &re) || !strings.HasSuffix(err.Error(), saysBefore) {
		t.Fatalf("a kernel that writes before x: %v", err)
	}
	kUnder.Release()
	if err := buf.Read(out); err != nil {
		t.Fatal(err)
	}
	binary.Decode(out, binary.LittleEndian, x[:])
	if x != [4]float32{3.5, 6.5, 9.5, 12.5} {
		t.Fatalf("after the write before x, x reads %v", x)
	}
	kIn, err := d.Compile(ctx, inSrc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kIn.Run(ctx, one, args); err != nil {
		t.Fatalf("an in-bounds kernel after one that wrote before x: %v", err)
	}
	kIn.Release()
	if _, err := kOver.Run(ctx, one, args); err != nil {
		t.Fatalf("the second launch of a kernel that overruns: %v", err)
	}
	// That later launch spoiled the canary again: CheckOverruns, which the runner calls
	// after the timed runs, finds it and writes it again.
	if err := kOver.(device.OverrunChecker).CheckOverruns(args); !errors.As(err, &re) || !strings.HasSuffix(err.Error(), says) {
		t.Fatalf("CheckOverruns after the second launch of a kernel that overruns: %v", err)
	}
	if err := kOver.(device.OverrunChecker).CheckOverruns(args); err != nil {
		t.Fatalf("CheckOverruns with the canary written again: %v", err)
	}
	// Without the parameters' names the message gives the position; an array of no
	// elements has a canary too.
	empty, err := d.Alloc(0)
	if err != nil || empty.Size() != 0 || empty.Read(nil) != nil || empty.Write(nil) != nil {
		t.Fatalf("a buffer of 0 bytes: %v", err)
	}
	overSrc.Params = nil
	kOver0, err := d.Compile(ctx, overSrc)
	if err != nil {
		t.Fatal(err)
	}
	args0 := slices.Clone(args)
	args0[0], args0[1] = device.Arg{Buffer: empty}, device.Arg{Scalar: binary.LittleEndian.AppendUint32(nil, 0)}
	if _, err := kOver0.Run(ctx, one, args0); err == nil || !strings.Contains(err.Error(), "wrote past the end of argument 0 (0 bytes)") {
		t.Fatalf("a kernel that writes into an array of no elements: %v", err)
	}
	kOver0.Release()
	kOver.Release()
	empty.Release()
	// A buffer that fits the device's memory only without its canaries goes without; one
	// that does not fit at all is a device limit.
	setFreeMemory(1 << 20)
	if b, err := d.Alloc(1<<20 - 4096); err != nil || b.(*buffer).Slack != 0 || b.(*buffer).Front != 0 {
		t.Fatalf("a buffer that fits only without its canary: %v", err)
	} else {
		b.Release()
	}
	if b, err := d.Alloc(1<<20 - 2*65536); err != nil || b.(*buffer).Slack != device.GuardBytes || b.(*buffer).Front != device.GuardBytes {
		t.Fatalf("a buffer that fits with its canary: %v", err)
	} else {
		b.Release()
	}
	if _, err := d.Alloc(1<<20 + 1); !errors.As(err, &le) {
		t.Fatalf("a buffer larger than the free memory: %v", err)
	}
	setFreeMemory(1 << 40)

	// Compiler failures: the log, and shared memory overuse as a device limit.
	src.Code = "syntax error"
	var ce *device.CompileError
	if _, err := d.Compile(ctx, src); !errors.As(err, &ce) || !strings.Contains(ce.Log, "expected") {
		t.Fatalf("a syntax error: %v", err)
	}
	src.Code = "huge"
	if _, err := d.Compile(ctx, src); !errors.As(err, &le) || le.Want != 0x44580 {
		t.Fatalf("shared memory overuse: %v", err)
	}

	// NVML: 250 W over the observation; clocks; settings refused without root. The
	// energy's time lies between the sleep and the wall time around Begin and End (it was
	// held within 50 ms of the sleep, which a loaded machine may oversleep by more).
	o := d.Observers()[0]
	before := time.Now()
	o.Begin()
	time.Sleep(o.Window() + 10*time.Millisecond)
	m, err := o.End(10)
	around := time.Since(before)
	if observed := m["energy"] * 10 / m["power"]; err != nil || math.Abs(m["power"]-250) > 5 ||
		observed < (o.Window()+10*time.Millisecond).Seconds()-0.005 || observed > around.Seconds()+0.005 ||
		m["core_clock"] != 1980 || m["memory_clock"] != 2619 {
		t.Fatalf("observation %v %v (%v around it)", m, err, around)
	}
	// An observation shorter than the window reports clocks alone, and reads the energy
	// counter once, at its start: an End that read it too cost every evaluation about
	// 3 ms more on an H200, where the spec reads neither energy nor power.
	reads := energyReads()
	o.Begin()
	if m, err := o.End(3); err != nil || m["energy"] != 0 || m["power"] != 0 || m["core_clock"] != 1980 {
		t.Fatalf("a short observation: %v %v", m, err)
	}
	if n := energyReads() - reads; n != 1 {
		t.Fatalf("a short observation read the energy counter %d times, want once (at Begin)", n)
	}
	if s := d.Settings(); len(s) != 1 || s[0] != "nvml_gr_clock" {
		t.Fatalf("settings %v", s)
	}
	if err := d.Set("nvml_gr_clock", 1410); err == nil || !strings.Contains(err.Error(), "needs root") {
		t.Fatalf("setting the clock: %v", err)
	}

	// A fault: the error is a runtime error that loses the device, which then refuses work.
	_, err = k.Run(ctx, device.Launch{Grid: device.Dim3{13}, Block: device.Dim3{64}}, args)
	if !errors.As(err, &re) || !errors.Is(err, device.ErrDeviceLost) || !strings.Contains(err.Error(), "illegal memory access") {
		t.Fatalf("a fault: %v", err)
	}
	if _, err := d.Alloc(16); err == nil || !strings.Contains(err.Error(), "lost") {
		t.Fatalf("a lost device allocated: %v", err)
	}
	if err := d.Close(); err != nil {
		t.Fatalf("closing a lost device: %v", err)
	}
}
