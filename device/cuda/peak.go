package cuda

import (
	"fmt"

	"github.com/ktune/ktune/device"
)

// lanes are the arithmetic units per streaming multiprocessor of a compute capability
// (NVIDIA's CUDA C++ Programming Guide, "Arithmetic Instructions"): FP32, FP64 and FP16
// results per clock cycle and SM. A count of 0 is one the table does not give.
//
// FP16 is the rate of half2 add, multiply and fused multiply-add, tensor cores excluded,
// as the data sheets' "FP16 (non-Tensor)" figures give it; it is left out where the
// guide gives no 16-bit arithmetic (before 5.3) and where the guide and the data sheets
// do not agree or say nothing (8.7, 12.0). The architectures' whitepapers and data sheets
// state the ratios the table carries (peak_test.go checks them):
//   - 6.0 (Tesla P100 SXM2): FP64 5.3, FP32 10.6, FP16 21.2 TFLOP/s: 1:2:4;
//   - 6.1 (GTX 1080, GP104): FP64 and FP16 at 1/32 and 1/64 of FP32;
//   - 7.0 (Tesla V100 SXM2): FP64 7.8, FP32 15.7, FP16 (non-Tensor) 31.4 TFLOP/s;
//   - 7.5 (Turing whitepaper, RTX 2080 Ti): FP32 13.4, FP16 (non-Tensor) 26.9 TFLOP/s;
//   - 8.0 (A100 SXM4): FP64 9.7, FP32 19.5, FP16 (non-Tensor) 78 TFLOP/s;
//   - 8.6 (GA102 whitepaper, RTX 3090): FP32 and FP16 (non-Tensor) 35.6 TFLOP/s;
//   - 8.9 (Ada whitepaper, RTX 4090): FP32 and FP16 (non-Tensor) 82.6 TFLOP/s;
//   - 9.0 (H100 SXM5): FP64 33.5 (data sheet: 34), FP32 66.9, FP16 (non-Tensor) 133.8.
type lanes struct{ fp32, fp64, fp16 int }

var smLanes = map[[2]int]lanes{
	{3, 0}: {192, 8, 0}, {3, 2}: {192, 8, 0}, {3, 5}: {192, 64, 0}, {3, 7}: {192, 64, 0},
	{5, 0}: {128, 4, 0}, {5, 2}: {128, 4, 0}, {5, 3}: {128, 4, 256},
	{6, 0}: {64, 32, 128}, {6, 1}: {128, 4, 2}, {6, 2}: {128, 4, 256},
	{7, 0}: {64, 32, 128}, {7, 2}: {64, 32, 128}, {7, 5}: {64, 2, 128},
	{8, 0}: {64, 32, 256}, {8, 6}: {128, 2, 128}, {8, 7}: {128, 2, 0}, {8, 9}: {128, 2, 128},
	{9, 0}:  {128, 64, 256},
	{12, 0}: {128, 2, 0},
}

// peakOf derives a device's peaks from its attributes: the arithmetic peak as SMs ×
// lanes per SM (by compute capability) × 2 (a fused multiply-add) × the SM clock, the
// memory peak as 2 (double data rate) × the memory clock × the bus width in bytes. The
// clocks are the ones the driver reports, the boost clocks where the data sheets give a
// base clock too. What the attributes do not give (a clock CUDA 13 no longer reports, a
// compute capability the table lacks) is left out, with why in Unknown.
func peakOf(major, minor, sms, clockKHz, memClockKHz, busBits int) *device.Peak {
	p := &device.Peak{}
	l, known := smLanes[[2]int{major, minor}]
	switch {
	case sms <= 0 || clockKHz <= 0:
		p.Lack(device.ArithmeticFigure, "the driver reports no SM clock or count")
	case !known:
		p.Lack(device.ArithmeticFigure, fmt.Sprintf("lanes per SM of compute capability %d.%d are not in ktune's table", major, minor))
	default:
		ghz := float64(clockKHz) / 1e6
		p.Derive("float32", float64(sms*l.fp32*2)*ghz, fmt.Sprintf("%d SMs x %d lanes x 2 (FMA) x %.3f GHz", sms, l.fp32, ghz))
		if l.fp64 > 0 {
			p.Derive("float64", float64(sms*l.fp64*2)*ghz, fmt.Sprintf("%d SMs x %d lanes x 2 x %.3f GHz", sms, l.fp64, ghz))
		}
		if l.fp16 > 0 {
			p.Derive("float16", float64(sms*l.fp16*2)*ghz, fmt.Sprintf("%d SMs x %d lanes (half2, tensor cores excluded) x 2 x %.3f GHz", sms, l.fp16, ghz))
		} else {
			p.Lack("float16", fmt.Sprintf("ktune's table gives no 16-bit rate of compute capability %d.%d", major, minor))
		}
	}
	if memClockKHz > 0 && busBits > 0 {
		p.Derive(device.MemoryFigure, 2*float64(memClockKHz)*1e3*float64(busBits/8)/1e9,
			fmt.Sprintf("2 (DDR) x %.0f MHz x %d-bit bus", float64(memClockKHz)/1e3, busBits))
	} else {
		p.Lack(device.MemoryFigure, "the driver reports no memory clock or bus width")
	}
	return p
}
