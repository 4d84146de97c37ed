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
