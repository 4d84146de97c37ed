package opencl

import (
	"fmt"
	"strings"

	"github.com/ktune/ktune/device"
)

// amdLanes are the single-precision lanes of a compute unit of an AMD GPU (GCN and
// RDNA: 64 stream processors per compute unit).
const amdLanes = 64

// peakOf derives what OpenCL's device queries allow of a device's peaks. OpenCL reports
// compute units and a clock, but not how many lanes a compute unit has, nor the memory's
// bandwidth: the arithmetic peak is derived only where the lanes per compute unit are a
// fact of the vendor's architecture (AMD GPUs: compute units × 64 × 2 (FMA) × the
// clock), and the memory peak never. A CPU's arithmetic peak depends on its SIMD width
// and its FMA units per core, which OpenCL does not report, and its compute units may be
// hardware threads rather than cores: it is left to the user.
func peakOf(info device.Info) *device.Peak {
	unknown := "memory: OpenCL reports no memory bandwidth"
	amd := strings.Contains(info.Vendor, "Advanced Micro Devices") || strings.HasPrefix(info.Vendor, "AMD")
	if info.Type != "gpu" || !amd || info.ComputeUnits <= 0 || info.ClockMHz <= 0 {
		what := "arithmetic: OpenCL reports compute units and a clock but not the lanes of a compute unit"
		if info.Type == "cpu" {
			what += " (for a CPU: SIMD width x FMA units x cores x clock; its compute units may be hardware threads)"
		}
		return &device.Peak{Unknown: what + "; " + unknown}
	}
	ghz := float64(info.ClockMHz) / 1e3
	return &device.Peak{
		GFLOPS:  map[string]float64{"float32": float64(info.ComputeUnits*amdLanes*2) * ghz},
		How:     fmt.Sprintf("float32 %d compute units x %d lanes x 2 (FMA) x %.3f GHz (the clock OpenCL reports)", info.ComputeUnits, amdLanes, ghz),
		Unknown: "float64 and float16: their rate differs between AMD GPUs; " + unknown,
	}
}
