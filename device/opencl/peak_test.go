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
	p := peakOf(device.Info{Vendor: "Advanced Micro Devices, Inc.", Type: "gpu", ComputeUnits: 56, ClockMHz: 1156}, precisions{fp64: true})
	if got := p.GFLOPS["float32"]; math.Abs(got-8286) > 1 {
		t.Errorf("float32 peak %.1f GFLOP/s, Table 1 gives 8286", got)
	}
	if p.GBs != 0 || !strings.Contains(p.Unknown, "bandwidth") {
		t.Errorf("memory peak %v (unknown: %q): OpenCL reports no bandwidth", p.GBs, p.Unknown)
	}
}

// TestPeakOfFloat64IsNamedNotGuessed: a device that computes in float64 and float16
// gets no peak of them (their rate is no fact OpenCL reports), and Unknown says so; a
// device without them says it has no such peak.
func TestPeakOfFloat64IsNamedNotGuessed(t *testing.T) {
	vega := device.Info{Vendor: "Advanced Micro Devices, Inc.", Type: "gpu", ComputeUnits: 56, ClockMHz: 1156}
	p := peakOf(vega, precisions{fp64: true, fp16: true})
	if _, ok := p.GFLOPS["float64"]; ok || p.GFLOPS["float16"] != 0 || p.GFLOPS["float32"] == 0 {
		t.Errorf("derived %v", p.GFLOPS)
	}
	if !strings.Contains(p.Unknown, "float64: the device computes in it (cl_khr_fp64), but OpenCL gives no rate of it") ||
		!strings.Contains(p.Unknown, "float16: the device computes in it (cl_khr_fp16)") {
		t.Errorf("Unknown %q", p.Unknown)
	}
	p = peakOf(vega, precisions{})
	if !strings.Contains(p.Unknown, "float64: the device reports no float64 arithmetic (cl_khr_fp64), so it has no such peak") {
		t.Errorf("Unknown %q", p.Unknown)
	}
}

func TestPeakOfACPUIsNotGuessed(t *testing.T) {
	p := peakOf(device.Info{Vendor: "GenuineIntel", Type: "cpu", ComputeUnits: 2, ClockMHz: 3000}, precisions{})
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
		// PoCL's CPU devices compute in double precision: the query is read
		if strings.Contains(d.Platform, "Portable Computing Language") && !strings.Contains(d.Peak.Unknown, "float64: the device computes in it") {
			t.Errorf("%s: Unknown %q does not say it computes in float64", d.Name, d.Peak.Unknown)
		}
	}
}
