package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ktune/ktune/device"
)

// ktune devices gives an OpenCL device's constant memory limits, which tune checks each
// __constant argument against, as clinfo does ("Max constant buffer size", "Max number of
// constant args"; PoCL: 2 MiB and 8); they were missing from both outputs.
func TestDevicesGiveAnOpenCLDevicesConstantMemory(t *testing.T) {
	needBackend(t, "opencl")
	out, errOut, code := ktune(t, "devices", "--json")
	if code != 0 {
		t.Fatalf("devices --json: exit %d: %s", code, errOut)
	}
	var reports []backendReport
	if err := json.Unmarshal([]byte(out), &reports); err != nil {
		t.Fatal(err)
	}
	text, errOut, code := ktune(t, "devices")
	if code != 0 {
		t.Fatalf("devices: exit %d: %s", code, errOut)
	}
	for _, r := range reports {
		if r.Backend != "opencl" {
			continue
		}
		for _, d := range r.Devices {
			bytes, err1 := strconv.ParseInt(d.Extra["max_constant_bytes"], 10, 64)
			args, err2 := strconv.Atoi(d.Extra["max_constant_args"])
			if err1 != nil || err2 != nil || bytes <= 0 || args <= 0 {
				t.Errorf("device %s: max_constant_bytes %q, max_constant_args %q, want positive numbers", d.Name, d.Extra["max_constant_bytes"], d.Extra["max_constant_args"])
				continue
			}
			want := fmt.Sprintf("constant memory %s per __constant argument, at most %d of them", humanBytes(int(bytes)), args)
			if !strings.Contains(text, want) {
				t.Errorf("devices does not say %q:\n%s", want, text)
			}
		}
	}
}

// ktune devices says of PoCL's CPU device that OpenCL gives neither of its peaks, and
// which options give them, rather than guessing one.
func TestDevicesSayWhichPeaksAreUnknown(t *testing.T) {
	needBackend(t, "opencl")
	out, errOut, code := ktune(t, "devices", "--json")
	if code != 0 {
		t.Fatalf("devices --json: exit %d: %s", code, errOut)
	}
	var reports []backendReport
	if err := json.Unmarshal([]byte(out), &reports); err != nil {
		t.Fatal(err)
	}
	text, _, _ := ktune(t, "devices")
	for _, r := range reports {
		for _, d := range r.Devices {
			if r.Backend != "opencl" || d.Type != "cpu" {
				continue
			}
			if d.Peak == nil || d.Peak.GFLOPS != nil || d.Peak.GBs != 0 || !strings.Contains(d.Peak.Unknown, "no memory bandwidth") {
				t.Errorf("%s: peak %+v", d.Name, d.Peak)
				continue
			}
			// --json has each figure on its own as well as the joined text
			if !slices.Contains(d.Peak.Figures, device.PeakFigure{Name: "memory", Unknown: "OpenCL reports no memory bandwidth"}) {
				t.Errorf("%s: figures %+v lack the memory peak's, unknown", d.Name, d.Peak.Figures)
			}
			if !strings.Contains(text, "peaks unknown: ") || !strings.Contains(text, "(--peak-gflops, --peak-gbs, or a peaks file: --peaks)") ||
				!strings.Contains(text, "\n        memory   unknown: OpenCL reports no memory bandwidth\n") ||
				!strings.Contains(text, "\n        float64  unknown: the device computes in it (cl_khr_fp64), but OpenCL gives no rate of it\n") {
				t.Errorf("devices does not say which peaks are unknown:\n%s", text)
			}
		}
	}
}

// writePeak shows each derived figure on a line of its own with how it was derived, as
// the CUDA backend derives an H100 SXM5's (132 SMs at 1.98 GHz, HBM3 at 2619 MHz on a
// 5120-bit bus).
func TestDevicesPeakLinesSayHowEachFigureWasDerived(t *testing.T) {
	var b strings.Builder
	p := &device.Peak{}
	p.Derive(device.MemoryFigure, 3352.3, "2 (DDR) x 2619 MHz x 5120-bit bus")
	p.Derive("float32", 66908.2, "132 SMs x 128 lanes x 2 (FMA) x 1.980 GHz")
	p.Derive("float64", 33454.1, "132 SMs x 64 lanes x 2 x 1.980 GHz")
	p.Derive("float16", 133816.3, "132 SMs x 256 lanes (half2, tensor cores excluded) x 2 x 1.980 GHz")
	writePeak(&b, p)
	want := `      peaks, each as derived:
        float32  66908 GFLOP/s: 132 SMs x 128 lanes x 2 (FMA) x 1.980 GHz
        float64  33454 GFLOP/s: 132 SMs x 64 lanes x 2 x 1.980 GHz
        float16  133816 GFLOP/s: 132 SMs x 256 lanes (half2, tensor cores excluded) x 2 x 1.980 GHz
        memory   3352 GB/s: 2 (DDR) x 2619 MHz x 5120-bit bus
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
