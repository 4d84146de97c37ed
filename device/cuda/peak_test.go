package cuda

import (
	"math"
	"strings"
	"testing"
)

// TestPeakOfMatchesSeed003Table1 derives the peaks of seed 003's NVIDIA GPUs from their
// attributes (the base clocks the paper's figures use, the memory clocks and buses of
// their data sheets) and compares them with its Table 1 (GFLOP/s single precision, GB/s).
func TestPeakOfMatchesSeed003Table1(t *testing.T) {
	for _, tc := range []struct {
		name                                string
		major, minor, sms, clockKHz, memKHz int
		bus                                 int
		gflops, gbs                         float64
	}{
		{"Tesla K20", 3, 5, 13, 706000, 2600000, 320, 3524, 208},
		{"GeForce GTX 750", 5, 0, 4, 1020000, 2505000, 128, 1044, 80},
		{"GeForce GTX 1070", 6, 1, 15, 1506000, 4004000, 256, 5783, 256},
		{"GeForce RTX 2080Ti", 7, 5, 68, 1350000, 7000000, 352, 11750, 616},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := peakOf(tc.major, tc.minor, tc.sms, tc.clockKHz, tc.memKHz, tc.bus)
			// Table 1 rounds to whole numbers
			if got := p.GFLOPS["float32"]; math.Abs(got-tc.gflops) > 1 {
				t.Errorf("float32 peak %.1f GFLOP/s, Table 1 gives %v", got, tc.gflops)
			}
			if math.Abs(p.GBs-tc.gbs) > 1 {
				t.Errorf("memory peak %.1f GB/s, Table 1 gives %v", p.GBs, tc.gbs)
			}
			if !strings.Contains(p.How, "SMs") || !strings.Contains(p.How, "bus") {
				t.Errorf("How %q does not say how", p.How)
			}
		})
	}
}

func TestPeakOfLeavesOutWhatItCannotDerive(t *testing.T) {
	p := peakOf(4, 1, 10, 1000000, 0, 0) // no such compute capability, no memory clock
	if p.GFLOPS != nil || p.GBs != 0 {
		t.Errorf("derived %+v from nothing", p)
	}
	if !strings.Contains(p.Unknown, "4.1") || !strings.Contains(p.Unknown, "memory") {
		t.Errorf("Unknown %q does not say why", p.Unknown)
	}
}

// TestPeakOfMatchesDataSheetsPerPrecision derives the float32, float64 and float16
// (non-tensor) peaks of GPUs from their SM counts and boost clocks and compares them
// with their data sheets and whitepapers, in TFLOP/s (0: the sheet gives none, and
// the figure is not checked; the sheets round to three digits, hence 0.6%):
//   - Tesla P100 SXM2 data sheet: FP64 5.3, FP32 10.6, FP16 21.2 (56 SMs, 1480 MHz);
//   - Tesla V100 SXM2 data sheet: FP64 7.8, FP32 15.7, FP16 (V100 whitepaper, non-Tensor)
//     31.4 (80 SMs, 1530 MHz);
//   - Turing whitepaper, RTX 2080 Ti Founders Edition: FP32 14.2, FP16 (non-Tensor)
//     28.5 (68 SMs, 1635 MHz);
//   - A100 SXM4 data sheet: FP64 9.7, FP32 19.5, FP16 (A100 whitepaper, non-Tensor) 78
//     (108 SMs, 1410 MHz);
//   - GA102 whitepaper, RTX 3090: FP32 35.6, FP16 (non-Tensor) 35.6 (82 SMs, 1695 MHz);
//   - Ada whitepaper, RTX 4090: FP32 82.6, FP16 (non-Tensor) 82.6 (128 SMs, 2520 MHz);
//   - H100 SXM5 data sheet: FP64 34 (Hopper whitepaper: 33.5), FP32 67 (66.9), FP16
//     (whitepaper, non-Tensor) 133.8 (132 SMs, 1980 MHz).
func TestPeakOfMatchesDataSheetsPerPrecision(t *testing.T) {
	for _, tc := range []struct {
		name              string
		major, minor, sms int
		clockKHz          int
		fp32, fp64, fp16  float64 // TFLOP/s
	}{
		{"Tesla P100 SXM2", 6, 0, 56, 1480000, 10.6, 5.3, 21.2},
		{"Tesla V100 SXM2", 7, 0, 80, 1530000, 15.7, 7.8, 31.4},
		{"GeForce RTX 2080 Ti FE", 7, 5, 68, 1635000, 14.2, 0, 28.5},
		{"A100 SXM4", 8, 0, 108, 1410000, 19.5, 9.7, 78},
		{"GeForce RTX 3090", 8, 6, 82, 1695000, 35.6, 0, 35.6},
		{"GeForce RTX 4090", 8, 9, 128, 2520000, 82.6, 0, 82.6},
		{"H100 SXM5", 9, 0, 132, 1980000, 66.9, 33.5, 133.8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := peakOf(tc.major, tc.minor, tc.sms, tc.clockKHz, 0, 0)
			for prec, want := range map[string]float64{"float32": tc.fp32, "float64": tc.fp64, "float16": tc.fp16} {
				got := p.GFLOPS[prec] / 1e3
				if want != 0 && math.Abs(got-want) > 0.006*want {
					t.Errorf("%s peak %.3f TFLOP/s, the sheet gives %v", prec, got, want)
				}
			}
			if !strings.Contains(p.How, "float16") || !strings.Contains(p.How, "tensor cores excluded") {
				t.Errorf("How %q does not say how float16 was derived", p.How)
			}
		})
	}
}

func TestPeakOfSaysWhereTheTableHasNoFloat16Rate(t *testing.T) {
	for _, cc := range [][2]int{{5, 2}, {8, 7}, {12, 0}} {
		p := peakOf(cc[0], cc[1], 10, 1000000, 0, 0)
		if _, ok := p.GFLOPS["float16"]; ok || p.GFLOPS["float32"] == 0 || !strings.Contains(p.Unknown, "float16") {
			t.Errorf("compute capability %d.%d: %+v", cc[0], cc[1], p)
		}
	}
}
