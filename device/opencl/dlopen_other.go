//go:build !(linux || darwin || freebsd || netbsd)

package opencl

import (
	"errors"
	"runtime"
	"unsafe"
)

// errNoLoader is why the backend is unavailable on systems without dlopen support here.
var errNoLoader = errors.New("loading OpenCL at run time is not supported on " + runtime.GOOS)

func dlopen(string) (uintptr, error)          { return 0, errNoLoader }
func lookup(uintptr, string) (uintptr, error) { return 0, errNoLoader }
func bind(any, uintptr, string) error         { return errNoLoader }

// The calls of a launch are never reached, since the library never loads; they answer
// CL_INVALID_OPERATION.

func (a *api) SetKernelArg(uintptr, uint32, uintptr, unsafe.Pointer) int32 { return -59 }
func (a *api) EnqueueNDRangeKernel(q, k uintptr, dims uint32, global, local *[3]uintptr, event *uintptr) int32 {
	return -59
}
func (a *api) WaitForEvents(uint32, *uintptr) int32                 { return -59 }
func (a *api) GetEventProfilingInfo(uintptr, uint32, *uint64) int32 { return -59 }
func (a *api) ReleaseEvent(uintptr) int32                           { return -59 }
