package opencl

import (
	"fmt"
	"strings"

	"github.com/ktune/ktune/device"
)

// amdLanes are the single-precision lanes of a compute unit of an AMD GPU (GCN and
// RDNA: 64 stream processors per compute unit).
const amdLanes = 64

// precisions says which floating-point types besides float32 a device computes in, as
// its extensions (cl_khr_fp64, cl_khr_fp16) and its double-precision configuration say.
type precisions struct{ fp64, fp16 bool }

// peakOf derives what OpenCL's device queries allow of a device's peaks. OpenCL reports
// compute units and a clock, but not how many lanes a compute unit has, nor the memory's
// bandwidth: the arithmetic peak is derived only where the lanes per compute unit are a
// fact of the vendor's architecture (AMD GPUs: compute units × 64 × 2 (FMA) × the
// clock), and the memory peak never. A CPU's arithmetic peak depends on its SIMD width
// and its FMA units per core, which OpenCL does not report, and its compute units may be
// hardware threads rather than cores: it is left to the user. float64 and float16 are
// never derived: their rate is a fraction of float32's that differs between chips of one
// vendor (AMD: 1/2 on Vega 20, 1/16 on Vega 10 and RDNA; packed float16 at twice
// float32's from Vega on, once before) and OpenCL names no chip reliably; Unknown says
// whether the device computes in them at all, and so whether there is a peak to give.
func peakOf(info device.Info, prec precisions) *device.Peak {
	p := &device.Peak{}
	amd := strings.Contains(info.Vendor, "Advanced Micro Devices") || strings.HasPrefix(info.Vendor, "AMD")
	if info.Type != "gpu" || !amd || info.ComputeUnits <= 0 || info.ClockMHz <= 0 {
		why := "OpenCL reports compute units and a clock but not the lanes of a compute unit"
		if info.Type == "cpu" {
			why += " (for a CPU: SIMD width x FMA units x cores x clock, and its compute units may be hardware threads)"
		}
		p.Lack("float32", why)
	} else {
		ghz := float64(info.ClockMHz) / 1e3
		p.Derive("float32", float64(info.ComputeUnits*amdLanes*2)*ghz,
			fmt.Sprintf("%d compute units x %d lanes x 2 (FMA) x %.3f GHz (the clock OpenCL reports)", info.ComputeUnits, amdLanes, ghz))
	}
	p.Lack(device.MemoryFigure, "OpenCL reports no memory bandwidth")
	for _, f := range []struct {
		name, ext string
		has       bool
	}{{"float64", "cl_khr_fp64", prec.fp64}, {"float16", "cl_khr_fp16", prec.fp16}} {
		if f.has {
			p.Lack(f.name, "the device computes in it ("+f.ext+"), but OpenCL gives no rate of it")
		} else {
			p.Lack(f.name, "the device reports no "+f.name+" arithmetic ("+f.ext+"), so it has no such peak")
		}
	}
	return p
}
