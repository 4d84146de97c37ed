package opencl

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"unsafe"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/device/internal/dl"
)

// LibraryEnv names the environment variable that overrides which OpenCL library is loaded,
// e.g. KTUNE_OPENCL_LIBRARY=/opt/rocm/lib/libOpenCL.so.
const LibraryEnv = "KTUNE_OPENCL_LIBRARY"

// defaultLibraries are tried in order when LibraryEnv is unset: the ICD loader's runtime
// name first (present without development packages), then the development symlink.
var defaultLibraries = func() []string {
	if runtime.GOOS == "darwin" {
		return []string{"/System/Library/Frameworks/OpenCL.framework/OpenCL"}
	}
	return []string{"libOpenCL.so.1", "libOpenCL.so"}
}()

// api holds the bound entry points of the OpenCL library. Handles (cl_platform_id,
// cl_context, cl_mem...) are opaque C pointers kept as uintptr: they point to memory the
// runtime owns, never to Go memory. Parameters that point to Go memory are unsafe.Pointer
// or typed pointers, valid only for the duration of the call.
type api struct {
	GetPlatformIDs          func(n uint32, platforms unsafe.Pointer, count *uint32) int32
	GetPlatformInfo         func(p uintptr, param uint32, size uintptr, value unsafe.Pointer, sizeRet *uintptr) int32
	GetDeviceIDs            func(p uintptr, typ uint64, n uint32, devices unsafe.Pointer, count *uint32) int32
	GetDeviceInfo           func(d uintptr, param uint32, size uintptr, value unsafe.Pointer, sizeRet *uintptr) int32
	CreateContext           func(props unsafe.Pointer, n uint32, devices unsafe.Pointer, notify, user uintptr, errcode *int32) uintptr
	CreateCommandQueue      func(ctx, dev uintptr, props uint64, errcode *int32) uintptr
	CreateProgramWithSource func(ctx uintptr, n uint32, strs unsafe.Pointer, lengths unsafe.Pointer, errcode *int32) uintptr
	BuildProgram            func(prog uintptr, n uint32, devices unsafe.Pointer, options string, notify, user uintptr) int32
	GetProgramBuildInfo     func(prog, dev uintptr, param uint32, size uintptr, value unsafe.Pointer, sizeRet *uintptr) int32
	GetProgramInfo          func(prog uintptr, param uint32, size uintptr, value unsafe.Pointer, sizeRet *uintptr) int32
	CreateKernel            func(prog uintptr, name string, errcode *int32) uintptr
	GetKernelInfo           func(k uintptr, param uint32, size uintptr, value unsafe.Pointer, sizeRet *uintptr) int32
	GetKernelWorkGroupInfo  func(k, dev uintptr, param uint32, size uintptr, value unsafe.Pointer, sizeRet *uintptr) int32
	CreateBuffer            func(ctx uintptr, flags uint64, size uintptr, host unsafe.Pointer, errcode *int32) uintptr
	EnqueueWriteBuffer      func(q, mem uintptr, blocking uint32, offset, size uintptr, ptr unsafe.Pointer, nWait uint32, wait unsafe.Pointer, event unsafe.Pointer) int32
	EnqueueReadBuffer       func(q, mem uintptr, blocking uint32, offset, size uintptr, ptr unsafe.Pointer, nWait uint32, wait unsafe.Pointer, event unsafe.Pointer) int32
	EnqueueCopyBuffer       func(q, src, dst uintptr, srcOffset, dstOffset, size uintptr, nWait uint32, wait unsafe.Pointer, event unsafe.Pointer) int32
	Finish                  func(q uintptr) int32
	GetEventInfo            func(ev uintptr, param uint32, size uintptr, value unsafe.Pointer, sizeRet *uintptr) int32
	ReleaseKernel           func(k uintptr) int32
	ReleaseProgram          func(prog uintptr) int32
	ReleaseMemObject        func(mem uintptr) int32
	ReleaseCommandQueue     func(q uintptr) int32
	ReleaseContext          func(ctx uintptr) int32

	// GetKernelArgInfo is OpenCL 1.2's; nil where the library predates it, and then the
	// kernel's parameters are known by their count only.
	GetKernelArgInfo func(k uintptr, index uint32, param uint32, size uintptr, value unsafe.Pointer, sizeRet *uintptr) int32
	// CreateSubBuffer is OpenCL 1.1's; nil where the library predates it, and then
	// buffers have no canary before their data (see buffer).
	CreateSubBuffer func(mem uintptr, flags uint64, typ uint32, info unsafe.Pointer, errcode *int32) uintptr

	// The calls of every launch go through purego.SyscallN, which costs about a fifth of
	// a call through a RegisterFunc binding (0.2 against 1 µs); see dlopen_unix.go.
	hot struct {
		setKernelArg, enqueueNDRangeKernel, waitForEvents, getEventProfilingInfo, releaseEvent uintptr
	}
}

// symbols pairs each entry point with its C name, for binding.
func (a *api) symbols() []symbol {
	return []symbol{
		{&a.GetPlatformIDs, "clGetPlatformIDs"},
		{&a.GetPlatformInfo, "clGetPlatformInfo"},
		{&a.GetDeviceIDs, "clGetDeviceIDs"},
		{&a.GetDeviceInfo, "clGetDeviceInfo"},
		{&a.CreateContext, "clCreateContext"},
		{&a.CreateCommandQueue, "clCreateCommandQueue"},
		{&a.CreateProgramWithSource, "clCreateProgramWithSource"},
		{&a.BuildProgram, "clBuildProgram"},
		{&a.GetProgramBuildInfo, "clGetProgramBuildInfo"},
		{&a.GetProgramInfo, "clGetProgramInfo"},
		{&a.CreateKernel, "clCreateKernel"},
		{&a.GetKernelInfo, "clGetKernelInfo"},
		{&a.GetKernelWorkGroupInfo, "clGetKernelWorkGroupInfo"},
		{&a.CreateBuffer, "clCreateBuffer"},
		{&a.EnqueueWriteBuffer, "clEnqueueWriteBuffer"},
		{&a.EnqueueReadBuffer, "clEnqueueReadBuffer"},
		{&a.EnqueueCopyBuffer, "clEnqueueCopyBuffer"},
		{&a.Finish, "clFinish"},
		{&a.GetEventInfo, "clGetEventInfo"},
		{&a.ReleaseKernel, "clReleaseKernel"},
		{&a.ReleaseProgram, "clReleaseProgram"},
		{&a.ReleaseMemObject, "clReleaseMemObject"},
		{&a.ReleaseCommandQueue, "clReleaseCommandQueue"},
		{&a.ReleaseContext, "clReleaseContext"},
	}
}

// hotSymbols pairs each address of api.hot with its C name.
func (a *api) hotSymbols() []hotSymbol {
	return []hotSymbol{
		{&a.hot.setKernelArg, "clSetKernelArg"},
		{&a.hot.enqueueNDRangeKernel, "clEnqueueNDRangeKernel"},
		{&a.hot.waitForEvents, "clWaitForEvents"},
		{&a.hot.getEventProfilingInfo, "clGetEventProfilingInfo"},
		{&a.hot.releaseEvent, "clReleaseEvent"},
	}
}

// hotSymbol is where to store a C function's address and the function's name.
type hotSymbol struct {
	addr *uintptr
	name string
}

// symbol is a function pointer to bind and the C symbol it binds to.
type symbol struct {
	fptr any
	name string
}

var (
	loadOnce sync.Once
	loaded   *api
	loadErr  error
)

// library loads and binds the OpenCL library once per process. The library stays loaded:
// OpenCL drivers do not support being unloaded.
func library() (*api, error) {
	loadOnce.Do(func() {
		if p := os.Getenv(LibraryEnv); p != "" {
			loaded, loadErr = loadLibrary([]string{p}, true)
		} else {
			loaded, loadErr = loadLibrary(defaultLibraries, false)
		}
	})
	return loaded, loadErr
}

// loadLibrary opens the first candidate that loads and binds the API from it; override
// says the one candidate came from LibraryEnv. Its errors wrap device.ErrUnavailable and
// say what to install or fix.
func loadLibrary(candidates []string, override bool) (*api, error) {
	var first error
	for _, path := range candidates {
		h, err := dl.Open(path)
		if err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		a := new(api)
		for _, s := range a.symbols() {
			if err := dl.Bind(s.fptr, h, s.name); err != nil {
				return nil, fmt.Errorf("opencl %w: %s lacks %s (%v): it is not an OpenCL library", device.ErrUnavailable, path, s.name, err)
			}
		}
		for _, s := range a.hotSymbols() {
			addr, err := dl.Lookup(h, s.name)
			if err != nil {
				return nil, fmt.Errorf("opencl %w: %s lacks %s (%v): it is not an OpenCL library", device.ErrUnavailable, path, s.name, err)
			}
			*s.addr = addr
		}
		if err := dl.Bind(&a.GetKernelArgInfo, h, "clGetKernelArgInfo"); err != nil {
			a.GetKernelArgInfo = nil
		}
		if err := dl.Bind(&a.CreateSubBuffer, h, "clCreateSubBuffer"); err != nil {
			a.CreateSubBuffer = nil
		}
		return a, nil
	}
	if override {
		return nil, fmt.Errorf("opencl %w: %s=%s cannot be loaded: %v", device.ErrUnavailable, LibraryEnv, candidates[0], first)
	}
	return nil, fmt.Errorf("opencl %w: %s not found: install an OpenCL runtime, e.g. apt-get install pocl-opencl-icd, or set %s (%v)",
		device.ErrUnavailable, candidates[0], LibraryEnv, first)
}
