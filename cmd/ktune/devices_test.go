package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
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
			}
			if !strings.Contains(text, "peaks unknown: ") || !strings.Contains(text, "(--peak-gflops, --peak-gbs)") {
				t.Errorf("devices does not say which peaks are unknown:\n%s", text)
			}
		}
	}
}
