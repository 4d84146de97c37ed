package cuda

import (
	"fmt"
	"strings"

	"github.com/ktune/ktune/device"
)

// lanes are the arithmetic units per streaming multiprocessor of a compute capability
// (NVIDIA's CUDA C++ Programming Guide, "Arithmetic Instructions"): FP32 and FP64 results
// per clock cycle and SM. An FP64 count of 0 is one the table does not give.
type lanes struct{ fp32, fp64 int }

var smLanes = map[[2]int]lanes{
	{3, 0}: {192, 8}, {3, 2}: {192, 8}, {3, 5}: {192, 64}, {3, 7}: {192, 64},
	{5, 0}: {128, 4}, {5, 2}: {128, 4}, {5, 3}: {128, 4},
	{6, 0}: {64, 32}, {6, 1}: {128, 4}, {6, 2}: {128, 4},
	{7, 0}: {64, 32}, {7, 2}: {64, 32}, {7, 5}: {64, 2},
	{8, 0}: {64, 32}, {8, 6}: {128, 2}, {8, 7}: {128, 2}, {8, 9}: {128, 2},
	{9, 0}:  {128, 64},
	{12, 0}: {128, 2},
}

// peakOf derives a device's peaks from its attributes: the arithmetic peak as SMs ×
// lanes per SM (by compute capability) × 2 (a fused multiply-add) × the SM clock, the
// memory peak as 2 (double data rate) × the memory clock × the bus width in bytes. The
// clocks are the ones the driver reports, the boost clocks where the data sheets give a
// base clock too. What the attributes do not give (a clock CUDA 13 no longer reports, a
// compute capability the table lacks) is left out, with why in Unknown.
func peakOf(major, minor, sms, clockKHz, memClockKHz, busBits int) *device.Peak {
	p := &device.Peak{GFLOPS: map[string]float64{}}
	var how, unknown []string
	l, known := smLanes[[2]int{major, minor}]
	switch {
	case sms <= 0 || clockKHz <= 0:
		unknown = append(unknown, "arithmetic: the driver reports no SM clock or count")
	case !known:
		unknown = append(unknown, fmt.Sprintf("arithmetic: lanes per SM of compute capability %d.%d are not in ktune's table", major, minor))
	default:
		ghz := float64(clockKHz) / 1e6
		p.GFLOPS["float32"] = float64(sms*l.fp32*2) * ghz
		how = append(how, fmt.Sprintf("float32 %d SMs x %d lanes x 2 (FMA) x %.3f GHz", sms, l.fp32, ghz))
		if l.fp64 > 0 {
			p.GFLOPS["float64"] = float64(sms*l.fp64*2) * ghz
			how = append(how, fmt.Sprintf("float64 %d SMs x %d lanes x 2 x %.3f GHz", sms, l.fp64, ghz))
		}
		unknown = append(unknown, "float16: not derived (it depends on the instructions: half2, tensor cores)")
	}
	if memClockKHz > 0 && busBits > 0 {
		p.GBs = 2 * float64(memClockKHz) * 1e3 * float64(busBits/8) / 1e9
		how = append(how, fmt.Sprintf("memory 2 (DDR) x %.0f MHz x %d-bit bus", float64(memClockKHz)/1e3, busBits))
	} else {
		unknown = append(unknown, "memory: the driver reports no memory clock or bus width")
	}
	p.How, p.Unknown = strings.Join(how, "; "), strings.Join(unknown, "; ")
	if len(p.GFLOPS) == 0 {
		p.GFLOPS = nil
	}
	if p.GFLOPS == nil && p.GBs == 0 {
		return &device.Peak{Unknown: p.Unknown}
	}
	return p
}
