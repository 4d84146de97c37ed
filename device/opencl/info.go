package opencl

import (
	"bytes"
	"unsafe"
)

// infoFunc is one of the clGet*Info calls with its object (and device) bound.
type infoFunc func(param uint32, size uintptr, value unsafe.Pointer, sizeRet *uintptr) int32

func (a *api) platformInfo(p uintptr) infoFunc {
	return func(param uint32, size uintptr, value unsafe.Pointer, sizeRet *uintptr) int32 {
		return a.GetPlatformInfo(p, param, size, value, sizeRet)
	}
}

func (a *api) deviceInfo(d uintptr) infoFunc {
	return func(param uint32, size uintptr, value unsafe.Pointer, sizeRet *uintptr) int32 {
		return a.GetDeviceInfo(d, param, size, value, sizeRet)
	}
}

func (a *api) kernelInfo(k uintptr) infoFunc {
	return func(param uint32, size uintptr, value unsafe.Pointer, sizeRet *uintptr) int32 {
		return a.GetKernelInfo(k, param, size, value, sizeRet)
	}
}

// kernelArgInfo is clGetKernelArgInfo for one argument; the caller checks that the
// library has it.
func (a *api) kernelArgInfo(k uintptr, index uint32) infoFunc {
	return func(param uint32, size uintptr, value unsafe.Pointer, sizeRet *uintptr) int32 {
		return a.GetKernelArgInfo(k, index, param, size, value, sizeRet)
	}
}

func (a *api) kernelWorkGroupInfo(k, d uintptr) infoFunc {
	return func(param uint32, size uintptr, value unsafe.Pointer, sizeRet *uintptr) int32 {
		return a.GetKernelWorkGroupInfo(k, d, param, size, value, sizeRet)
	}
}

func (a *api) buildInfo(prog, d uintptr) infoFunc {
	return func(param uint32, size uintptr, value unsafe.Pointer, sizeRet *uintptr) int32 {
		return a.GetProgramBuildInfo(prog, d, param, size, value, sizeRet)
	}
}

func (a *api) programInfo(prog uintptr) infoFunc {
	return func(param uint32, size uintptr, value unsafe.Pointer, sizeRet *uintptr) int32 {
		return a.GetProgramInfo(prog, param, size, value, sizeRet)
	}
}

// infoValue reads a fixed-size value (cl_uint, cl_ulong, size_t, size_t[3]...).
func infoValue[T any](get infoFunc, param uint32) (T, error) {
	var v T
	st := get(param, unsafe.Sizeof(v), unsafe.Pointer(&v), nil)
	return v, check("get info", st)
}

// infoSlice reads an array whose length the runtime reports (size_t[] work-item sizes).
func infoSlice[T any](get infoFunc, param uint32) ([]T, error) {
	var n uintptr
	if err := check("get info size", get(param, 0, nil, &n)); err != nil {
		return nil, err
	}
	var zero T
	out := make([]T, n/unsafe.Sizeof(zero))
	if len(out) == 0 {
		return nil, nil
	}
	st := get(param, uintptr(len(out))*unsafe.Sizeof(zero), unsafe.Pointer(&out[0]), nil)
	return out, check("get info", st)
}

// infoString reads a NUL-terminated string (names, versions, build logs).
func infoString(get infoFunc, param uint32) (string, error) {
	b, err := infoSlice[byte](get, param)
	if err != nil {
		return "", err
	}
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b), nil
}

func (a *api) eventInfo(ev uintptr) infoFunc {
	return func(param uint32, size uintptr, value unsafe.Pointer, sizeRet *uintptr) int32 {
		return a.GetEventInfo(ev, param, size, value, sizeRet)
	}
}
