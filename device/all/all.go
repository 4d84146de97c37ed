// Package all registers every device backend ktune has; programs blank-import it.
package all

import (
	_ "github.com/ktune/ktune/device/cuda"   // CUDA (driver API, NVRTC, NVML), loaded at run time
	_ "github.com/ktune/ktune/device/hostc"  // host C
	_ "github.com/ktune/ktune/device/opencl" // OpenCL, loaded at run time
)
