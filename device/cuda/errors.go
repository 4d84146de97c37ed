package cuda

import (
	"fmt"
	"unsafe"

	"github.com/ktune/ktune/device"
)

// Result is a CUresult, the status the driver API returns. Errors from this package wrap
// it, so callers can inspect the exact code with errors.As.
type Result uint32

// Results the backend tests for (cuda.h).
const (
	success                 Result = 0
	errInvalidValue         Result = 1
	errOutOfMemory          Result = 2
	errNoDevice             Result = 100
	errInvalidImage         Result = 200
	errNoBinaryForGPU       Result = 209
	errInvalidPTX           Result = 218
	errUnsupportedPTX       Result = 222
	errNotFound             Result = 500
	errNotReady             Result = 600
	errIllegalAddress       Result = 700
	errLaunchOutOfResources Result = 701
	errLaunchTimeout        Result = 702
	errAssert               Result = 710
	errHardwareStack        Result = 714
	errIllegalInstruction   Result = 715
	errMisalignedAddress    Result = 716
	errInvalidAddressSpace  Result = 717
	errInvalidPC            Result = 718
	errLaunchFailed         Result = 719
	errNotSupported         Result = 801
	errSystemDriverMismatch Result = 803
	errInsufficientDriver   Result = 35 // the runtime API's code, which some drivers return from cuInit too
)

// resultNames names the codes the backend meets most, for when cuGetErrorName is not at
// hand (the driver did not load) or fails.
var resultNames = map[Result]string{
	0:   "CUDA_SUCCESS",
	1:   "CUDA_ERROR_INVALID_VALUE",
	2:   "CUDA_ERROR_OUT_OF_MEMORY",
	3:   "CUDA_ERROR_NOT_INITIALIZED",
	4:   "CUDA_ERROR_DEINITIALIZED",
	100: "CUDA_ERROR_NO_DEVICE",
	101: "CUDA_ERROR_INVALID_DEVICE",
	200: "CUDA_ERROR_INVALID_IMAGE",
	201: "CUDA_ERROR_INVALID_CONTEXT",
	209: "CUDA_ERROR_NO_BINARY_FOR_GPU",
	218: "CUDA_ERROR_INVALID_PTX",
	222: "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
	400: "CUDA_ERROR_INVALID_HANDLE",
	500: "CUDA_ERROR_NOT_FOUND",
	600: "CUDA_ERROR_NOT_READY",
	700: "CUDA_ERROR_ILLEGAL_ADDRESS",
	701: "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
	702: "CUDA_ERROR_LAUNCH_TIMEOUT",
	710: "CUDA_ERROR_ASSERT",
	714: "CUDA_ERROR_HARDWARE_STACK_ERROR",
	715: "CUDA_ERROR_ILLEGAL_INSTRUCTION",
	716: "CUDA_ERROR_MISALIGNED_ADDRESS",
	717: "CUDA_ERROR_INVALID_ADDRESS_SPACE",
	718: "CUDA_ERROR_INVALID_PC",
	719: "CUDA_ERROR_LAUNCH_FAILED",
	801: "CUDA_ERROR_NOT_SUPPORTED",
	803: "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
	999: "CUDA_ERROR_UNKNOWN",
}

// Error is the CUDA result's name (CUDA_ERROR_...), or its number for one it does not know.
func (r Result) Error() string {
	if n, ok := resultNames[r]; ok {
		return n
	}
	return fmt.Sprintf("CUresult %d", uint32(r))
}

// sticky reports whether r leaves the context unusable: after an illegal address, a
// failed launch or a device-side assert every later call of the process fails, so the
// process must be replaced (CUDA programming guide, error handling).
func (r Result) sticky() bool {
	switch r {
	case errIllegalAddress, errLaunchTimeout, errAssert, errHardwareStack, errIllegalInstruction,
		errMisalignedAddress, errInvalidAddressSpace, errInvalidPC, errLaunchFailed:
		return true
	}
	return false
}

// cudaError is a failed driver call: the call, its result and the driver's description.
type cudaError struct {
	call   string
	result Result
	desc   string // cuGetErrorString's text, when the driver gave one
}

func (e *cudaError) Error() string {
	if e.desc != "" {
		return fmt.Sprintf("%s: %v (%s)", e.call, e.result, e.desc)
	}
	return fmt.Sprintf("%s: %v", e.call, e.result)
}

func (e *cudaError) Unwrap() []error {
	if e.result.sticky() {
		return []error{e.result, device.ErrDeviceLost}
	}
	return []error{e.result}
}

// check turns a result of call into an error, nil on success. Sticky results also match
// device.ErrDeviceLost.
func (a *driverAPI) check(call string, r Result) error {
	if r == success {
		return nil
	}
	e := &cudaError{call: call, result: r}
	if a != nil {
		var s *byte
		if a.GetErrorString(int32(r), &s) == 0 && s != nil {
			e.desc = goString(s)
		}
	}
	return e
}

// wrap is check for a result known to be an error.
func (a *driverAPI) wrap(r Result) error { return a.check("cuInit", r) }

// goString copies a NUL-terminated C string that the library owns.
func goString(p *byte) string {
	if p == nil {
		return ""
	}
	n := 0
	for *(*byte)(unsafe.Add(unsafe.Pointer(p), n)) != 0 {
		n++
	}
	return string(unsafe.Slice(p, n))
}

// cBytes returns s as a NUL-terminated byte slice for a C string parameter.
func cBytes(s string) []byte {
	b := make([]byte, len(s)+1)
	copy(b, s)
	return b
}

// nulTerminated returns the text of b up to its first NUL.
func nulTerminated(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}
