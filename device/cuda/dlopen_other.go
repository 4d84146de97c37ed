//go:build !linux

package cuda

import (
	"errors"
	"runtime"
	"unsafe"
)

// errNoLoader is why the backend is unavailable: NVIDIA ships CUDA for Linux (and
// Windows, which ktune's loader does not cover).
var errNoLoader = errors.New("loading CUDA at run time is supported on Linux only, not " + runtime.GOOS)

// loaderWorks: not here.
const loaderWorks = false

// The calls of a launch are never reached, since the library never loads.

func (a *driverAPI) launchKernel(uintptr, [3]uint32, [3]uint32, uint32, unsafe.Pointer) Result {
	return errNotSupported
}
func (a *driverAPI) eventRecord(uintptr) Result                     { return errNotSupported }
func (a *driverAPI) eventQuery(uintptr) Result                      { return errNotSupported }
func (a *driverAPI) eventSynchronize(uintptr) Result                { return errNotSupported }
func (a *driverAPI) eventElapsed(*float32, uintptr, uintptr) Result { return errNotSupported }
