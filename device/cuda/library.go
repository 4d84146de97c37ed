package cuda

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unsafe"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/device/internal/dl"
)

// Environment variables that override which libraries are loaded, each a path or a name
// that the dynamic loader finds.
const (
	DriverEnv = "KTUNE_CUDA_LIBRARY"  // the driver API, libcuda.so.1
	NVRTCEnv  = "KTUNE_NVRTC_LIBRARY" // the run-time compiler, e.g. /usr/local/cuda/lib64/libnvrtc.so.12
	NVMLEnv   = "KTUNE_NVML_LIBRARY"  // the management library, libnvidia-ml.so.1
	homeEnv   = "CUDA_HOME"           // a CUDA toolkit, searched for NVRTC
	pathEnv   = "CUDA_PATH"           // the same, as Windows installers name it
	toolkit   = "/usr/local/cuda"     // the toolkit's usual place
	nvrtcBase = "libnvrtc.so"         // NVRTC's development name
	driverLib = "libcuda.so.1"        // the driver's runtime name
	nvmlLib   = "libnvidia-ml.so.1"   // NVML's runtime name
)

// nvrtcVersions are the NVRTC sonames probed, newest first. CUDA 11.2 and later keep one
// soname per major version.
var nvrtcVersions = []string{"13", "12", "11.2", "11.1", "11.0"}

// nvrtcCandidates lists where NVRTC is looked for: each versioned name through the dynamic
// loader's search path, then inside the CUDA toolkits named by CUDA_HOME, CUDA_PATH and
// /usr/local/cuda, then the unversioned development name.
func nvrtcCandidates(getenv func(string) string) []string {
	var out []string
	for _, v := range nvrtcVersions {
		out = append(out, nvrtcBase+"."+v)
	}
	var homes []string
	for _, h := range []string{getenv(homeEnv), getenv(pathEnv), toolkit} {
		if h != "" && !contains(homes, h) {
			homes = append(homes, h)
		}
	}
	for _, h := range homes {
		for _, dir := range []string{"lib64", "lib", filepath.Join("targets", "x86_64-linux", "lib"), filepath.Join("targets", "sbsa-linux", "lib")} {
			for _, v := range nvrtcVersions {
				out = append(out, filepath.Join(h, dir, nvrtcBase+"."+v))
			}
		}
	}
	return append(out, nvrtcBase)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// driverAPI holds the bound entry points of the CUDA driver API. Handles (CUcontext,
// CUmodule, CUfunction, CUevent) are opaque pointers the driver owns, kept as uintptr;
// device memory is a CUdeviceptr (uint64). Where the driver has a _v2 entry point, that
// is the one bound.
type driverAPI struct {
	Init               func(flags uint32) int32
	DriverGetVersion   func(v *int32) int32
	DeviceGetCount     func(n *int32) int32
	DeviceGet          func(dev *int32, ordinal int32) int32
	DeviceGetName      func(name *byte, n int32, dev int32) int32
	DeviceGetAttribute func(v *int32, attr int32, dev int32) int32
	DeviceTotalMem     func(bytes *uintptr, dev int32) int32
	DeviceGetPCIBusID  func(id *byte, n int32, dev int32) int32
	PrimaryCtxRetain   func(ctx *uintptr, dev int32) int32
	PrimaryCtxRelease  func(dev int32) int32
	CtxSetCurrent      func(ctx uintptr) int32
	CtxSynchronize     func() int32
	ModuleLoadData     func(mod *uintptr, image unsafe.Pointer) int32
	ModuleUnload       func(mod uintptr) int32
	ModuleGetFunction  func(fn *uintptr, mod uintptr, name string) int32
	ModuleGetGlobal    func(ptr *uint64, bytes *uintptr, mod uintptr, name string) int32
	FuncGetAttribute   func(v *int32, attr int32, fn uintptr) int32
	FuncSetAttribute   func(fn uintptr, attr int32, v int32) int32
	MemAlloc           func(ptr *uint64, bytes uintptr) int32
	MemFree            func(ptr uint64) int32
	MemcpyHtoD         func(dst uint64, src unsafe.Pointer, bytes uintptr) int32
	MemcpyDtoH         func(dst unsafe.Pointer, src uint64, bytes uintptr) int32
	MemcpyDtoD         func(dst, src uint64, bytes uintptr) int32
	EventCreate        func(ev *uintptr, flags uint32) int32
	EventDestroy       func(ev uintptr) int32
	GetErrorName       func(r int32, s **byte) int32
	GetErrorString     func(r int32, s **byte) int32

	// The calls of every launch go through purego.SyscallN, as in the OpenCL backend: a
	// fifth of the cost of a RegisterFunc binding.
	hot struct {
		launchKernel, eventRecord, eventQuery, eventSynchronize, eventElapsedTime uintptr
	}
}

// symbols pairs each entry point with its C names, preferred first.
func (a *driverAPI) symbols() []symbol {
	return []symbol{
		{&a.Init, []string{"cuInit"}},
		{&a.DriverGetVersion, []string{"cuDriverGetVersion"}},
		{&a.DeviceGetCount, []string{"cuDeviceGetCount"}},
		{&a.DeviceGet, []string{"cuDeviceGet"}},
		{&a.DeviceGetName, []string{"cuDeviceGetName"}},
		{&a.DeviceGetAttribute, []string{"cuDeviceGetAttribute"}},
		{&a.DeviceTotalMem, []string{"cuDeviceTotalMem_v2", "cuDeviceTotalMem"}},
		{&a.DeviceGetPCIBusID, []string{"cuDeviceGetPCIBusId"}},
		{&a.PrimaryCtxRetain, []string{"cuDevicePrimaryCtxRetain"}},
		{&a.PrimaryCtxRelease, []string{"cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"}},
		{&a.CtxSetCurrent, []string{"cuCtxSetCurrent"}},
		{&a.CtxSynchronize, []string{"cuCtxSynchronize"}},
		{&a.ModuleLoadData, []string{"cuModuleLoadData"}},
		{&a.ModuleUnload, []string{"cuModuleUnload"}},
		{&a.ModuleGetFunction, []string{"cuModuleGetFunction"}},
		{&a.ModuleGetGlobal, []string{"cuModuleGetGlobal_v2", "cuModuleGetGlobal"}},
		{&a.FuncGetAttribute, []string{"cuFuncGetAttribute"}},
		{&a.FuncSetAttribute, []string{"cuFuncSetAttribute"}},
		{&a.MemAlloc, []string{"cuMemAlloc_v2", "cuMemAlloc"}},
		{&a.MemFree, []string{"cuMemFree_v2", "cuMemFree"}},
		{&a.MemcpyHtoD, []string{"cuMemcpyHtoD_v2", "cuMemcpyHtoD"}},
		{&a.MemcpyDtoH, []string{"cuMemcpyDtoH_v2", "cuMemcpyDtoH"}},
		{&a.MemcpyDtoD, []string{"cuMemcpyDtoD_v2", "cuMemcpyDtoD"}},
		{&a.EventCreate, []string{"cuEventCreate"}},
		{&a.EventDestroy, []string{"cuEventDestroy_v2", "cuEventDestroy"}},
		{&a.GetErrorName, []string{"cuGetErrorName"}},
		{&a.GetErrorString, []string{"cuGetErrorString"}},
	}
}

func (a *driverAPI) hotSymbols() []hotSymbol {
	return []hotSymbol{
		{&a.hot.launchKernel, []string{"cuLaunchKernel"}},
		{&a.hot.eventRecord, []string{"cuEventRecord"}},
		{&a.hot.eventQuery, []string{"cuEventQuery"}},
		{&a.hot.eventSynchronize, []string{"cuEventSynchronize"}},
		{&a.hot.eventElapsedTime, []string{"cuEventElapsedTime_v2", "cuEventElapsedTime"}},
	}
}

// nvrtcAPI holds the bound entry points of NVRTC. A program is an opaque pointer.
type nvrtcAPI struct {
	path              string // the library loaded, for messages
	include           string // its CUDA toolkit's include folder, "" where none was found
	Version           func(major, minor *int32) int32
	CreateProgram     func(prog *uintptr, src string, name string, nHeaders int32, headers, includeNames unsafe.Pointer) int32
	DestroyProgram    func(prog *uintptr) int32
	AddNameExpression func(prog uintptr, expr string) int32
	CompileProgram    func(prog uintptr, nOptions int32, options unsafe.Pointer) int32
	GetProgramLogSize func(prog uintptr, size *uintptr) int32
	GetProgramLog     func(prog uintptr, log *byte) int32
	GetPTXSize        func(prog uintptr, size *uintptr) int32
	GetPTX            func(prog uintptr, ptx *byte) int32
	GetLoweredName    func(prog uintptr, expr string, lowered **byte) int32
	GetErrorString    func(r int32) string

	// Optional: CUBIN output (CUDA 11.1) and the list of supported architectures (11.2).
	GetCUBINSize         func(prog uintptr, size *uintptr) int32
	GetCUBIN             func(prog uintptr, cubin *byte) int32
	GetNumSupportedArchs func(n *int32) int32
	GetSupportedArchs    func(archs *int32) int32
}

func (a *nvrtcAPI) symbols() []symbol {
	return []symbol{
		{&a.Version, []string{"nvrtcVersion"}},
		{&a.CreateProgram, []string{"nvrtcCreateProgram"}},
		{&a.DestroyProgram, []string{"nvrtcDestroyProgram"}},
		{&a.AddNameExpression, []string{"nvrtcAddNameExpression"}},
		{&a.CompileProgram, []string{"nvrtcCompileProgram"}},
		{&a.GetProgramLogSize, []string{"nvrtcGetProgramLogSize"}},
		{&a.GetProgramLog, []string{"nvrtcGetProgramLog"}},
		{&a.GetPTXSize, []string{"nvrtcGetPTXSize"}},
		{&a.GetPTX, []string{"nvrtcGetPTX"}},
		{&a.GetLoweredName, []string{"nvrtcGetLoweredName"}},
		{&a.GetErrorString, []string{"nvrtcGetErrorString"}},
	}
}

func (a *nvrtcAPI) optionalSymbols() []symbol {
	return []symbol{
		{&a.GetCUBINSize, []string{"nvrtcGetCUBINSize"}},
		{&a.GetCUBIN, []string{"nvrtcGetCUBIN"}},
		{&a.GetNumSupportedArchs, []string{"nvrtcGetNumSupportedArchs"}},
		{&a.GetSupportedArchs, []string{"nvrtcGetSupportedArchs"}},
	}
}

// nvmlAPI holds the bound entry points of NVML. A device handle is an opaque pointer.
type nvmlAPI struct {
	Init              func() int32
	Shutdown          func() int32
	DeviceByPCIBusID  func(busID string, dev *uintptr) int32
	DevicePowerUsage  func(dev uintptr, milliwatts *uint32) int32
	DeviceTotalEnergy func(dev uintptr, millijoules *uint64) int32
	DeviceClockInfo   func(dev uintptr, clock int32, mhz *uint32) int32
	DevicePowerLimit  func(dev uintptr, milliwatts *uint32) int32
	ErrorString       func(r int32) string

	// Optional: setting clocks and the power limit (root only, Volta and later).
	SetGPULockedClocks      func(dev uintptr, minMHz, maxMHz uint32) int32
	ResetGPULockedClocks    func(dev uintptr) int32
	SetMemoryLockedClocks   func(dev uintptr, minMHz, maxMHz uint32) int32
	ResetMemoryLockedClocks func(dev uintptr) int32
	SetPowerLimit           func(dev uintptr, milliwatts uint32) int32
}

func (a *nvmlAPI) symbols() []symbol {
	return []symbol{
		{&a.Init, []string{"nvmlInit_v2", "nvmlInit"}},
		{&a.Shutdown, []string{"nvmlShutdown"}},
		{&a.DeviceByPCIBusID, []string{"nvmlDeviceGetHandleByPciBusId_v2", "nvmlDeviceGetHandleByPciBusId"}},
		{&a.DevicePowerUsage, []string{"nvmlDeviceGetPowerUsage"}},
		{&a.DeviceTotalEnergy, []string{"nvmlDeviceGetTotalEnergyConsumption"}},
		{&a.DeviceClockInfo, []string{"nvmlDeviceGetClockInfo"}},
		{&a.DevicePowerLimit, []string{"nvmlDeviceGetPowerManagementLimit"}},
		{&a.ErrorString, []string{"nvmlErrorString"}},
	}
}

func (a *nvmlAPI) optionalSymbols() []symbol {
	return []symbol{
		{&a.SetGPULockedClocks, []string{"nvmlDeviceSetGpuLockedClocks"}},
		{&a.ResetGPULockedClocks, []string{"nvmlDeviceResetGpuLockedClocks"}},
		{&a.SetMemoryLockedClocks, []string{"nvmlDeviceSetMemoryLockedClocks"}},
		{&a.ResetMemoryLockedClocks, []string{"nvmlDeviceResetMemoryLockedClocks"}},
		{&a.SetPowerLimit, []string{"nvmlDeviceSetPowerManagementLimit"}},
	}
}

// symbol is a function pointer to bind and the C names to try, in order.
type symbol struct {
	fptr  any
	names []string
}

// hotSymbol is where to store a C function's address and the names to try.
type hotSymbol struct {
	addr  *uintptr
	names []string
}

// bindAll binds every symbol from the library h, trying each symbol's names in order; it
// fails on the first symbol none of whose names is found.
func bindAll(h uintptr, syms []symbol) error {
	for _, s := range syms {
		if err := bindFirst(h, s); err != nil {
			return err
		}
	}
	return nil
}

func bindFirst(h uintptr, s symbol) error {
	var first error
	for _, n := range s.names {
		if err := dl.Bind(s.fptr, h, n); err == nil {
			return nil
		} else if first == nil {
			first = err
		}
	}
	return fmt.Errorf("lacks %s (%v)", strings.Join(s.names, " and "), first)
}

func lookupFirst(h uintptr, s hotSymbol) error {
	var first error
	for _, n := range s.names {
		addr, err := dl.Lookup(h, n)
		if err == nil {
			*s.addr = addr
			return nil
		}
		if first == nil {
			first = err
		}
	}
	return fmt.Errorf("lacks %s (%v)", strings.Join(s.names, " and "), first)
}

// openFirst opens the first candidate that loads and returns its handle and path.
func openFirst(candidates []string) (uintptr, string, error) {
	if !loaderWorks {
		return 0, "", errNoLoader
	}
	var first error
	for _, path := range candidates {
		h, err := dl.Open(path)
		if err == nil {
			return h, path, nil
		}
		if first == nil {
			first = err
		}
	}
	return 0, "", first
}

var (
	driverOnce sync.Once
	driver     *driverAPI
	driverErr  error

	nvrtcOnce sync.Once
	nvrtc     *nvrtcAPI
	nvrtcErr  error

	nvmlOnce sync.Once
	nvml     *nvmlAPI
	nvmlErr  error
)

// loadDriver loads and binds the driver API and initialises it, once per process. Its
// errors wrap device.ErrUnavailable and say what to install or fix.
func loadDriver() (*driverAPI, error) {
	driverOnce.Do(func() { driver, driverErr = loadDriverFrom(os.Getenv) })
	return driver, driverErr
}

func loadDriverFrom(getenv func(string) string) (*driverAPI, error) {
	candidates, override := []string{driverLib, "libcuda.so"}, false
	if p := getenv(DriverEnv); p != "" {
		candidates, override = []string{p}, true
	}
	h, path, err := openFirst(candidates)
	if err != nil {
		if override {
			return nil, fmt.Errorf("cuda %w: %s=%s cannot be loaded: %v", device.ErrUnavailable, DriverEnv, candidates[0], err)
		}
		return nil, fmt.Errorf("cuda %w: the NVIDIA driver library %s is not installed (no NVIDIA GPU driver on this machine); install the NVIDIA driver or set %s (%v)",
			device.ErrUnavailable, driverLib, DriverEnv, err)
	}
	a := new(driverAPI)
	if err := bindAll(h, a.symbols()); err != nil {
		return nil, fmt.Errorf("cuda %w: %s %v: it is not the CUDA driver library", device.ErrUnavailable, path, err)
	}
	for _, s := range a.hotSymbols() {
		if err := lookupFirst(h, s); err != nil {
			return nil, fmt.Errorf("cuda %w: %s %v: it is not the CUDA driver library", device.ErrUnavailable, path, err)
		}
	}
	if r := Result(a.Init(0)); r != success {
		why := "cuInit failed"
		switch r {
		case errNoDevice:
			why = "the NVIDIA driver found no CUDA-capable GPU"
		case errInsufficientDriver, errSystemDriverMismatch:
			why = "the NVIDIA kernel module and the driver library do not match; reboot or reinstall the driver"
		}
		return nil, fmt.Errorf("cuda %w: %s: %w", device.ErrUnavailable, why, a.wrap(r))
	}
	return a, nil
}

// loadNVRTC loads and binds NVRTC once per process.
func loadNVRTC() (*nvrtcAPI, error) {
	nvrtcOnce.Do(func() { nvrtc, nvrtcErr = loadNVRTCFrom(os.Getenv) })
	return nvrtc, nvrtcErr
}

func loadNVRTCFrom(getenv func(string) string) (*nvrtcAPI, error) {
	candidates, override := nvrtcCandidates(getenv), false
	if p := getenv(NVRTCEnv); p != "" {
		candidates, override = []string{p}, true
	}
	h, path, err := openFirst(candidates)
	if err != nil {
		if override {
			return nil, fmt.Errorf("cuda %w: %s=%s cannot be loaded: %v", device.ErrUnavailable, NVRTCEnv, candidates[0], err)
		}
		return nil, fmt.Errorf("cuda %w: NVRTC, the CUDA run-time compiler (%s.13, .12 or .11.x), was not found on the library path nor under %s, %s or %s; install the CUDA toolkit's NVRTC (e.g. the cuda-nvrtc package) or set %s to the library (%v)",
			device.ErrUnavailable, nvrtcBase, homeEnv, pathEnv, toolkit, NVRTCEnv, err)
	}
	a := &nvrtcAPI{path: path}
	if err := bindAll(h, a.symbols()); err != nil {
		return nil, fmt.Errorf("cuda %w: %s %v: it is not NVRTC", device.ErrUnavailable, path, err)
	}
	a.include = toolkitInclude(path, getenv, selfMaps())
	for _, s := range a.optionalSymbols() {
		bindFirst(h, s) // older NVRTC lacks them; callers check for nil
	}
	return a, nil
}

// loadNVML loads and initialises NVML once per process.
func loadNVML() (*nvmlAPI, error) {
	nvmlOnce.Do(func() { nvml, nvmlErr = loadNVMLFrom(os.Getenv) })
	return nvml, nvmlErr
}

func loadNVMLFrom(getenv func(string) string) (*nvmlAPI, error) {
	candidates := []string{nvmlLib, "libnvidia-ml.so"}
	if p := getenv(NVMLEnv); p != "" {
		candidates = []string{p}
	}
	h, path, err := openFirst(candidates)
	if err != nil {
		return nil, fmt.Errorf("NVML (%s) cannot be loaded, so power and energy are not measured: %v", candidates[0], err)
	}
	a := new(nvmlAPI)
	if err := bindAll(h, a.symbols()); err != nil {
		return nil, fmt.Errorf("%s %v: it is not NVML", path, err)
	}
	for _, s := range a.optionalSymbols() {
		bindFirst(h, s) // older NVML lacks some; callers check for nil
	}
	if r := a.Init(); r != 0 {
		return nil, fmt.Errorf("nvmlInit: %s", a.ErrorString(r))
	}
	return a, nil
}
