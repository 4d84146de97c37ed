//go:build linux || darwin || freebsd || netbsd

package opencl

import (
	"unsafe"

	"github.com/ebitengine/purego"
)

// The calls of a launch. Each converts its pointers to uintptr within SyscallN's argument
// list, where SyscallN's go:uintptrescapes keeps the memory alive and in place for the
// call. A cl_int result comes back in the low 32 bits.

// SetKernelArg passes size bytes at value as argument index; a nil value with a size
// allocates __local memory.
func (a *api) SetKernelArg(k uintptr, index uint32, size uintptr, value unsafe.Pointer) int32 {
	r, _, _ := purego.SyscallN(a.hot.setKernelArg, k, uintptr(index), size, uintptr(value))
	return int32(r)
}

// EnqueueNDRangeKernel enqueues with no global offset and no wait list.
func (a *api) EnqueueNDRangeKernel(q, k uintptr, dims uint32, global, local *[3]uintptr, event *uintptr) int32 {
	r, _, _ := purego.SyscallN(a.hot.enqueueNDRangeKernel, q, k, uintptr(dims), 0,
		uintptr(unsafe.Pointer(global)), uintptr(unsafe.Pointer(local)), 0, 0, uintptr(unsafe.Pointer(event)))
	return int32(r)
}

// WaitForEvents blocks until the n events have completed.
func (a *api) WaitForEvents(n uint32, events *uintptr) int32 {
	r, _, _ := purego.SyscallN(a.hot.waitForEvents, uintptr(n), uintptr(unsafe.Pointer(events)))
	return int32(r)
}

// GetEventProfilingInfo reads one cl_ulong timestamp.
func (a *api) GetEventProfilingInfo(ev uintptr, param uint32, value *uint64) int32 {
	r, _, _ := purego.SyscallN(a.hot.getEventProfilingInfo, ev, uintptr(param), unsafe.Sizeof(*value), uintptr(unsafe.Pointer(value)), 0)
	return int32(r)
}

// ReleaseEvent drops the event returned by an enqueue.
func (a *api) ReleaseEvent(ev uintptr) int32 {
	r, _, _ := purego.SyscallN(a.hot.releaseEvent, ev)
	return int32(r)
}
