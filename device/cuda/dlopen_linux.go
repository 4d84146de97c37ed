//go:build linux

package cuda

import (
	"unsafe"

	"github.com/ebitengine/purego"
)

// loaderWorks: NVIDIA's CUDA libraries exist for Linux, where they load at run time.
const loaderWorks = true

// errNoLoader is never returned here.
var errNoLoader error

// The calls of a launch. Each converts its pointers to uintptr within SyscallN's argument
// list, where SyscallN's go:uintptrescapes keeps the memory alive and in place for the
// call. A CUresult comes back in the low 32 bits.

// launchKernel launches f on the default stream with the kernel parameters params (an
// array of pointers to the argument values).
func (a *driverAPI) launchKernel(f uintptr, grid, block [3]uint32, shared uint32, params unsafe.Pointer) Result {
	r, _, _ := purego.SyscallN(a.hot.launchKernel, f,
		uintptr(grid[0]), uintptr(grid[1]), uintptr(grid[2]),
		uintptr(block[0]), uintptr(block[1]), uintptr(block[2]),
		uintptr(shared), 0, uintptr(params), 0)
	return Result(uint32(r))
}

// eventRecord records ev on the default stream.
func (a *driverAPI) eventRecord(ev uintptr) Result {
	r, _, _ := purego.SyscallN(a.hot.eventRecord, ev, 0)
	return Result(uint32(r))
}

// eventQuery answers success once ev has completed, errNotReady before.
func (a *driverAPI) eventQuery(ev uintptr) Result {
	r, _, _ := purego.SyscallN(a.hot.eventQuery, ev)
	return Result(uint32(r))
}

// eventSynchronize blocks until ev has completed.
func (a *driverAPI) eventSynchronize(ev uintptr) Result {
	r, _, _ := purego.SyscallN(a.hot.eventSynchronize, ev)
	return Result(uint32(r))
}

// eventElapsed stores the milliseconds between two completed events in *ms.
func (a *driverAPI) eventElapsed(ms *float32, start, end uintptr) Result {
	r, _, _ := purego.SyscallN(a.hot.eventElapsedTime, uintptr(unsafe.Pointer(ms)), start, end)
	return Result(uint32(r))
}
