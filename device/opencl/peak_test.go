package opencl

import (
	"math"
	"strings"
	"testing"

	"github.com/ktune/ktune/device"
)

// TestPeakOfAnAMDGPUMatchesSeed003Table1 derives the Radeon RX Vega 56's arithmetic peak
// (56 compute units at its 1156 MHz base clock) and compares it with seed 003's Table 1.
func TestPeakOfAnAMDGPUMatchesSeed003Table1(t *testing.T) {
	p := peakOf(device.Info{Vendor: "Advanced Micro Devices, Inc.", Type: "gpu", ComputeUnits: 56, ClockMHz: 1156})
	if got := p.GFLOPS["float32"]; math.Abs(got-8286) > 1 {
		t.Errorf("float32 peak %.1f GFLOP/s, Table 1 gives 8286", got)
	}
	if p.GBs != 0 || !strings.Contains(p.Unknown, "bandwidth") {
		t.Errorf("memory peak %v (unknown: %q): OpenCL reports no bandwidth", p.GBs, p.Unknown)
	}
}

func TestPeakOfACPUIsNotGuessed(t *testing.T) {
	p := peakOf(device.Info{Vendor: "GenuineIntel", Type: "cpu", ComputeUnits: 2, ClockMHz: 3000})
	if p.GFLOPS != nil || p.GBs != 0 || !strings.Contains(p.Unknown, "SIMD width") {
		t.Errorf("got %+v", p)
	}
}

// TestDevicesSayWhatPeaksTheyLack lists the real devices: each has a Peak that gives a
// value or says why it cannot.
func TestDevicesSayWhatPeaksTheyLack(t *testing.T) {
	devs, err := Backend{}.Devices()
	if err != nil {
		t.Skipf("OpenCL unavailable: %v", err)
	}
	for _, d := range devs {
		if d.Peak == nil || d.Peak.GBs == 0 && d.Peak.Unknown == "" {
			t.Errorf("%s: peak %+v", d.Name, d.Peak)
		}
	}
}
