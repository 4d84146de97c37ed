package cuda

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/ktune/ktune/device"
)

// These tests need no GPU: they check the parts of the backend that decide before the
// driver is called, and how the backend reports a machine without CUDA.

func TestBackendIsRegisteredForCUDA(t *testing.T) {
	b, ok := device.Lookup(Name)
	if !ok {
		t.Fatal("the cuda backend is not registered")
	}
	if !slices.Equal(b.Languages(), []string{"cuda"}) {
		t.Fatalf("languages %v", b.Languages())
	}
	if got := device.ForLanguage("cuda"); len(got) != 1 || got[0].Name() != Name {
		t.Fatalf("ForLanguage(cuda) = %v", got)
	}
}

func TestMissingLibrariesMakeTheBackendUnavailable(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the loader is Linux's")
	}
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	tests := []struct {
		name string
		load func(t *testing.T) error
		want string
	}{
		{"driver override that does not exist", func(t *testing.T) error {
			_, err := loadDriverFrom(env(DriverEnv, "/nonexistent/libcuda.so.1"))
			return err
		}, DriverEnv + "=/nonexistent/libcuda.so.1 cannot be loaded"},
		{"a library that is not the driver", func(t *testing.T) error {
			_, err := loadDriverFrom(env(DriverEnv, "libc.so.6"))
			return err
		}, "lacks cuInit"},
		{"NVRTC override that does not exist", func(t *testing.T) error {
			_, err := loadNVRTCFrom(env(NVRTCEnv, "/nonexistent/libnvrtc.so.12"))
			return err
		}, NVRTCEnv + "=/nonexistent/libnvrtc.so.12 cannot be loaded"},
		{"a library that is not NVRTC", func(t *testing.T) error {
			_, err := loadNVRTCFrom(env(NVRTCEnv, "libc.so.6"))
			return err
		}, "lacks nvrtcVersion"},
		{"no NVRTC anywhere", func(t *testing.T) error {
			dir := t.TempDir()
			_, err := loadNVRTCFrom(env(homeEnv, dir))
			if err == nil {
				t.Skip("this machine has NVRTC on its library path")
			}
			return err
		}, "install the CUDA toolkit's NVRTC"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.load(t) // the subtest's t: "no NVRTC anywhere" skips itself, not its parent
			if !errors.Is(err, device.ErrUnavailable) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want ErrUnavailable saying %q", err, tt.want)
			}
		})
	}
	if _, err := loadNVMLFrom(env(NVMLEnv, "/nonexistent/libnvidia-ml.so.1")); err == nil || !strings.Contains(err.Error(), "power and energy are not measured") {
		t.Errorf("NVML from nowhere: %v", err)
	}
}

// TestUnavailableProcessStartsAndReports runs this test binary again with the driver
// library pointing nowhere: Devices and Open must say why, not panic.
func TestUnavailableProcessStartsAndReports(t *testing.T) {
	if os.Getenv("KTUNE_CUDA_TEST_CHILD") == "1" {
		_, err := Backend{}.Devices()
		if !errors.Is(err, device.ErrUnavailable) {
			t.Fatalf("Devices = %v, want ErrUnavailable", err)
		}
		if _, err := (Backend{}).Open(t.Context(), 0); !errors.Is(err, device.ErrUnavailable) {
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
	cmd.Env = append(os.Environ(), "KTUNE_CUDA_TEST_CHILD=1", DriverEnv+"=/nonexistent/libcuda.so.1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "cannot be loaded") {
		t.Errorf("child output lacks the reason:\n%s", out)
	}
}

func TestNVRTCIsSoughtByVersionThenInToolkits(t *testing.T) {
	got := nvrtcCandidates(func(k string) string {
		if k == homeEnv {
			return "/opt/cuda-12.4"
		}
		return ""
	})
	want := []string{"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2"}
	if !slices.Equal(got[:3], want) {
		t.Fatalf("first candidates %v, want %v", got[:3], want)
	}
	i := slices.Index(got, "/opt/cuda-12.4/lib64/libnvrtc.so.12")
	j := slices.Index(got, "/usr/local/cuda/lib64/libnvrtc.so.12")
	if i < 0 || j < 0 || i > j {
		t.Fatalf("CUDA_HOME (%d) must come before /usr/local/cuda (%d): %v", i, j, got)
	}
	if got[len(got)-1] != "libnvrtc.so" {
		t.Fatalf("last candidate %q, want the development name", got[len(got)-1])
	}
}

func TestArchitectureFollowsTheDeviceAndNVRTC(t *testing.T) {
	tests := []struct {
		cc        int
		supported []int
		want      target
		err       string
	}{
		{90, []int{75, 80, 86, 89, 90}, target{"-arch=sm_90", true}, ""},
		{86, nil, target{"-arch=sm_86", true}, ""},                              // NVRTC before 11.2 cannot list: try the device's own
		{120, []int{75, 80, 86, 89, 90}, target{"-arch=compute_90", false}, ""}, // a GPU newer than NVRTC: PTX the driver compiles
		{87, []int{75, 80, 86, 89, 90}, target{"-arch=compute_86", false}, ""},
		{61, []int{75, 80, 86, 89, 90}, target{}, "not for the device's sm_61"},
	}
	for _, tt := range tests {
		got, err := chooseArch(tt.cc, tt.supported)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("sm_%d: %v, want an error saying %q", tt.cc, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("sm_%d with %v: %+v %v, want %+v", tt.cc, tt.supported, got, err, tt.want)
		}
	}
}

func TestNVRTCOptions(t *testing.T) {
	dir := t.TempDir()
	src := device.Source{
		File:    filepath.Join(dir, "k.cu"),
		Options: []string{"-use_fast_math --std=c++17", " -lineinfo "},
		Defines: []device.Define{{Name: "block_size_x", Value: "128"}, {Name: "T", Value: "unsigned int"}, {Name: "S", Value: `"a b"`}},
	}
	got, arch, err := nvrtcOptions(src, target{"-arch=sm_80", true}, "/usr/local/cuda/include")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"-use_fast_math", "--std=c++17", "-lineinfo", "-arch=sm_80",
		"-Dblock_size_x=128", "-DT=unsigned int", `-DS="a b"`, "-I" + dir, "-I/usr/local/cuda/include"}
	if !slices.Equal(got, want) || arch.option != "-arch=sm_80" {
		t.Fatalf("options %q (%v), want %q", got, arch, want)
	}
	// The user's architecture wins, in each spelling NVRTC takes.
	for _, opts := range [][]string{{"-arch=compute_75"}, {"-arch", "compute_75"}, {"--gpu-architecture=compute_75"}} {
		got, arch, err := nvrtcOptions(device.Source{Options: opts}, target{"-arch=sm_80", true}, "")
		if err != nil || arch.cubin || arch.option != "-arch=compute_75" || slices.Contains(got, "-arch=sm_80") {
			t.Errorf("%q: %q %+v %v", opts, got, arch, err)
		}
	}
	if _, arch, _ := nvrtcOptions(device.Source{Options: []string{"-arch=sm_75"}}, target{"-arch=compute_90", false}, ""); !arch.cubin {
		t.Error("a user's sm_XY must give a CUBIN")
	}
	for _, bad := range []device.Define{{Name: "1x", Value: "1"}, {Name: "x", Value: "a\nb"}} {
		if _, _, err := nvrtcOptions(device.Source{Defines: []device.Define{bad}}, target{}, ""); err == nil {
			t.Errorf("define %+v accepted", bad)
		}
	}
}

func TestSharedMemoryOveruseAtCompileTimeIsADeviceLimit(t *testing.T) {
	log := "ptxas error   : Entry function '_Z4tileILi128EEvPf' uses too much shared data (0x10004 bytes, 0xc000 max)\n"
	le := resourceOveruse(log)
	if le == nil || le.Want != 0x10004 || le.Limit != 0xc000 || !strings.Contains(le.What, "65540 bytes of shared memory") {
		t.Fatalf("%+v", le)
	}
	if resourceOveruse("kernel.cu(3): error: identifier \"x\" is undefined") != nil {
		t.Fatal("a plain compile error taken for a device limit")
	}
}

func TestFaultsThatPoisonTheContextAreDeviceLost(t *testing.T) {
	var cu *driverAPI // no driver: errors carry the result's name only
	for _, r := range []Result{errIllegalAddress, errLaunchFailed, errMisalignedAddress, errAssert, errIllegalInstruction} {
		err := cu.check("cuEventQuery", r)
		if !errors.Is(err, device.ErrDeviceLost) {
			t.Errorf("%v does not match ErrDeviceLost", r)
		}
		var got Result
		if !errors.As(err, &got) || got != r {
			t.Errorf("%v: errors.As gives %v", r, got)
		}
		if !strings.Contains(err.Error(), r.Error()) || !strings.HasPrefix(r.Error(), "CUDA_ERROR_") {
			t.Errorf("message %q", err)
		}
	}
	for _, r := range []Result{errInvalidValue, errLaunchOutOfResources, errOutOfMemory, errNotFound} {
		if errors.Is(cu.check("x", r), device.ErrDeviceLost) {
			t.Errorf("%v is not sticky", r)
		}
	}
	if cu.check("x", success) != nil || Result(12345).Error() != "CUresult 12345" {
		t.Error("success or unknown codes")
	}
}

// testKernel is a kernel as newKernel leaves it, on a device with an H100's limits, for
// checks that happen before the driver is called.
func testKernel() *kernel {
	d := &cuDevice{info: device.Info{
		MaxBlockSize: 1024, MaxBlockDims: [3]int{1024, 1024, 64}, LocalMemBytes: 227 * 1024,
		Extra: map[string]string{"max_grid_dims": "2147483647,65535,65535"},
	}, maxGrid: parseDims("2147483647,65535,65535"), kernels: map[*kernel]struct{}{}, buffers: map[*buffer]struct{}{}}
	return &kernel{dev: d, name: "gemm", mod: 1, fn: 1, maxThreads: 512, registers: 128, staticShared: 48 * 1024, dynShared: 0,
		symbols: map[string]*symbolCopy{}}
}

func TestLaunchesBeyondALimitAreRefusedBeforeTheDriver(t *testing.T) {
	k := testKernel()
	tests := []struct {
		grid, block device.Dim3
		shared      int
		want        string
	}{
		{device.Dim3{64, 64}, device.Dim3{16, 16}, 0, ""},
		{device.Dim3{1}, device.Dim3{32, 32, 2}, 0, "exceeds the device's maximum of 1024 threads per block"},
		{device.Dim3{1}, device.Dim3{1, 1, 128}, 0, "block size 128 in z exceeds the device's maximum of 64"},
		{device.Dim3{1, 70000}, device.Dim3{32}, 0, "grid size 70000 in y exceeds the device's maximum of 65535 blocks"},
		{device.Dim3{1}, device.Dim3{32, 32}, 0, "uses 128 registers per thread, which allows at most 512 threads per block, not 1024"},
		{device.Dim3{1}, device.Dim3{256}, 200 * 1024, "shared memory of 253952 bytes per block (49152 static in kernel gemm, 204800 dynamic) exceeds the device's 232448"},
	}
	for _, tt := range tests {
		grid, block, err := geometry(device.Launch{Grid: tt.grid, Block: tt.block, SharedBytes: tt.shared})
		if err != nil {
			t.Fatal(err)
		}
		err = k.checkLimits(grid, block, tt.shared)
		if tt.want == "" {
			if err != nil {
				t.Errorf("%v x %v: %v", tt.grid, tt.block, err)
			}
			continue
		}
		var le *device.LimitError
		if !errors.As(err, &le) || !strings.Contains(le.What, tt.want) {
			t.Errorf("%v x %v + %d: %v, want a limit error saying %q", tt.grid, tt.block, tt.shared, err, tt.want)
		}
	}
	if _, _, err := geometry(device.Launch{Grid: device.Dim3{-1}}); err == nil {
		t.Error("a negative grid was accepted")
	}
	if g, b, err := geometry(device.Launch{}); err != nil || g != [3]uint32{1, 1, 1} || b != [3]uint32{1, 1, 1} {
		t.Errorf("an empty launch is one thread: %v %v %v", g, b, err)
	}
}

func TestArgumentsAreLaidOutAsCuLaunchKernelReadsThem(t *testing.T) {
	k := testKernel()
	in := &buffer{dev: k.dev, ptr: 0x7f0000001000, Guard: device.Guard{Size: 64}}
	out := &buffer{dev: k.dev, ptr: 0x7f0000002000, Guard: device.Guard{Size: 64}}
	args := []device.Arg{
		{Buffer: out},
		{Buffer: in},
		{Scalar: []byte{0x2a, 0, 0, 0}}, // int32 42
		{Scalar: []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}}, // a 12-byte struct takes two slots
		{Scalar: []byte{0xff}}, // uint8
	}
	if err := k.setArgs(args); err != nil {
		t.Fatal(err)
	}
	if len(k.params) != 5 || len(k.vals) != 6 {
		t.Fatalf("%d parameters in %d slots, want 5 in 6", len(k.params), len(k.vals))
	}
	ptr := func(i int) uint64 { return *(*uint64)(k.params[i]) }
	if ptr(0) != out.ptr || ptr(1) != in.ptr {
		t.Fatalf("buffer arguments %#x %#x", ptr(0), ptr(1))
	}
	if v := *(*int32)(k.params[2]); v != 42 {
		t.Fatalf("int32 argument %d", v)
	}
	if b := unsafe.Slice((*byte)(k.params[3]), 12); !slices.Equal(b, args[3].Scalar) {
		t.Fatalf("struct argument %v", b)
	}
	if uintptr(k.params[4])-uintptr(k.params[3]) != 16 || *(*uint8)(k.params[4]) != 0xff {
		t.Fatal("the byte after the struct is not in the next free slot")
	}
	for _, bad := range []device.Arg{{Local: 256}, {}, {Buffer: in, Scalar: []byte{1}}, {Buffer: &buffer{dev: &cuDevice{}, ptr: 1}}} {
		if err := k.setArgs([]device.Arg{bad}); err == nil {
			t.Errorf("argument %+v accepted", bad)
		}
	}
	in.ptr = 0 // released
	if err := k.setArgs([]device.Arg{{Buffer: in}}); !errors.Is(err, errClosed) {
		t.Errorf("a released buffer: %v", err)
	}
}

func TestComputeCapabilityParsing(t *testing.T) {
	if cc, err := computeCapability("8.6"); err != nil || cc != 86 {
		t.Fatalf("8.6: %d %v", cc, err)
	}
	if cc, err := computeCapability("12.0"); err != nil || cc != 120 {
		t.Fatalf("12.0: %d %v", cc, err)
	}
	if _, err := computeCapability("sm_86"); err == nil {
		t.Fatal("sm_86 parsed")
	}
}

func TestModuleCacheKeysEverythingThatDecidesTheModule(t *testing.T) {
	t.Setenv(CacheEnv, t.TempDir())
	c := openModuleCache()
	if c == nil {
		t.Fatal("no cache")
	}
	code := `extern "C" __global__ void k(float *x) { x[0] = V; }`
	opts := []string{"-arch=sm_90", "-DV=1"}
	base, ok := c.key(code, "k", opts, "libnvrtc.so.12|12.4")
	if !ok {
		t.Fatal("a self-contained source is not cacheable")
	}
	for name, k := range map[string]func() (string, bool){
		"define": func() (string, bool) {
			return c.key(code, "k", []string{"-arch=sm_90", "-DV=2"}, "libnvrtc.so.12|12.4")
		},
		"arch": func() (string, bool) {
			return c.key(code, "k", []string{"-arch=sm_80", "-DV=1"}, "libnvrtc.so.12|12.4")
		},
		"nvrtc":   func() (string, bool) { return c.key(code, "k", opts, "libnvrtc.so.12|12.6") },
		"kernel":  func() (string, bool) { return c.key(code, "k2", opts, "libnvrtc.so.12|12.4") },
		"source":  func() (string, bool) { return c.key(code+" ", "k", opts, "libnvrtc.so.12|12.4") },
		"options": func() (string, bool) { return c.key(code, "k", []string{"-arch=sm_90 -DV=1"}, "libnvrtc.so.12|12.4") },
	} {
		if key, _ := k(); key == base {
			t.Errorf("changing the %s keeps the key", name)
		}
	}
	if _, ok := c.key("#include \"tile.h\"\n"+code, "k", opts, "x"); ok {
		t.Error("a source with a local include is cached")
	}
	if _, ok := c.key("#include <cuda_fp16.h>\n"+code, "k", opts, "x"); !ok {
		t.Error("a source with only NVRTC's own headers is not cached")
	}

	if _, ok := c.load(base); ok {
		t.Fatal("a miss loaded something")
	}
	want := compiled{Image: []byte{0x7f, 'E', 'L', 'F', 0, 1}, Lowered: "_Z1kPf", Log: "warning: unused"}
	if err := c.store(base, want); err != nil {
		t.Fatal(err)
	}
	got, ok := c.load(base)
	if !ok || !slices.Equal(got.Image, want.Image) || got.Lowered != want.Lowered || got.Log != want.Log {
		t.Fatalf("loaded %+v %v", got, ok)
	}
	// A truncated entry (a crash mid-write cannot leave one, but a full disk could) is a miss.
	os.WriteFile(filepath.Join(c.dir, base+".mod"), []byte("garbage"), 0o644)
	if _, ok := c.load(base); ok {
		t.Fatal("a corrupt entry loaded")
	}
	t.Setenv(CacheEnv, "off")
	if openModuleCache() != nil {
		t.Fatal("the cache is on when turned off")
	}
	var off *moduleCache
	if _, ok := off.key(code, "k", opts, "x"); ok {
		t.Fatal("a nil cache keys")
	}
}

// NVRTC is given its own toolkit's include folder, found from where the library was
// loaded: the usual layout (lib64 beside include), the cross layout (targets/<arch>/lib),
// pip's wheels (nvidia/cuda_nvrtc/lib beside nvidia/cuda_runtime/include), a bare soname
// read back from the process's map, and CUDA_HOME when the library's folder has none. A
// folder without cuda_fp16.h does not count.
func TestTheToolkitIncludeFolderIsFoundBesideNVRTC(t *testing.T) {
	root := t.TempDir()
	mk := func(parts ...string) string {
		dir := filepath.Join(append([]string{root}, parts...)...)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	header := func(dir string) {
		if err := os.WriteFile(filepath.Join(dir, includeMarker), []byte("// half\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	usual, cross, pip, home := mk("cuda-13.0", "include"), mk("cuda-12.4", "targets", "x86_64-linux", "include"), mk("site", "nvidia", "cuda_runtime", "include"), mk("home", "include")
	for _, dir := range []string{usual, cross, pip, home} {
		header(dir)
	}
	empty := mk("bare", "include") // no cuda_fp16.h
	lib := func(parts ...string) string { return filepath.Join(mk(parts...), "libnvrtc.so.13") }
	noEnv := func(string) string { return "" }
	withHome := func(k string) string {
		if k == homeEnv {
			return filepath.Join(root, "home")
		}
		return ""
	}
	maps := "7f0000000000-7f0000100000 r-xp 00000000 08:01 123 " + filepath.Join(root, "cuda-13.0", "lib64", "libnvrtc.so.13.0.88") + "\n" +
		"7f0000200000-7f0000300000 r-xp 00000000 08:01 124 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
	mk("cuda-13.0", "lib64")
	tests := []struct {
		name, path string
		getenv     func(string) string
		maps, want string
	}{
		{"lib64 beside include", lib("cuda-13.0", "lib64"), noEnv, "", usual},
		{"targets/x86_64-linux/lib", lib("cuda-12.4", "targets", "x86_64-linux", "lib"), noEnv, "", cross},
		{"pip's wheels", lib("site", "nvidia", "cuda_nvrtc", "lib"), noEnv, "", pip},
		{"a soname the loader resolved", "libnvrtc.so.13", noEnv, maps, usual},
		{"CUDA_HOME when the library's folder has none", lib("bare", "lib64"), withHome, "", home},
	}
	for _, tt := range tests {
		got := toolkitInclude(tt.path, tt.getenv, tt.maps)
		// /usr/local/cuda and /usr/include come after these; on a machine with a toolkit
		// they may answer where the temporary layout does not.
		if got != tt.want {
			t.Errorf("%s: include folder %q, want %q (candidates %q)", tt.name, got, tt.want, includeCandidates(tt.path, tt.getenv, tt.maps))
		}
	}
	if got := toolkitInclude(lib("bare", "lib64"), noEnv, ""); got == empty {
		t.Errorf("a folder without %s was taken", includeMarker)
	}
	if got := loadedPath("libnvrtc.so.12", maps); got != "" {
		t.Errorf("libnvrtc.so.12 is not mapped, got %q", got)
	}
}

// NVRTC 13 fails the whole build when one name expression names no function of the
// source (H200, 2026-11-27): the complaint maps to that function's index, so the runner
// names the launch whose function is missing. An error in the code itself comes first.
func TestAMissingNameExpressionIsNamedByItsIndex(t *testing.T) {
	const nvrtc13 = `__nv_name_map(2): error: identifier "no_such_function" is undefined
  #pragma nv_mangled_name no_such_function
                          ^

__nv_name_map(2): error: Error in parsing name expression for lowered name lookup. Input name expression was: " no_such_function"
  #pragma nv_mangled_name no_such_function
                          ^

2 errors detected in the compilation of "kernel.cu".`
	names := []string{"scale", "no_such_function", "sum<4>"}
	if got := missingNameExpression(nvrtc13, names); got != 1 {
		t.Errorf("NVRTC 13's log: index %d, want 1", got)
	}
	if got := missingNameExpression(nvrtc13, []string{"scale", "other"}); got != -1 {
		t.Errorf("a name that is not among the build's: index %d, want -1", got)
	}
	withCodeError := "kernel.cu(4): error: identifier \"u\" is undefined\n\n" + nvrtc13
	if got := missingNameExpression(withCodeError, names); got != -1 {
		t.Errorf("a log with an error in the code too: index %d, want -1", got)
	}
	if got := missingNameExpression("kernel.cu(4): error: expected a \";\"\n", names); got != -1 {
		t.Errorf("a plain syntax error: index %d, want -1", got)
	}
}
