package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/tuner"
)

// The summary's first line says what its evaluations are, in counts that add up: on
// PoCL, a brute-force search of 6 configurations, 3 of whose blocks are over the device's
// maximum work-group size, measured 3 and refused 3 before compiling. (It said "6 of the
// space's 6 configurations evaluated" with the statuses alone telling them apart, and a
// resumed run "(3 of them measured by this command, 3 before)" of 9.)
func TestTuneSummaryCountsAddUpWithConfigurationsOverADeviceLimit(t *testing.T) {
	needBackend(t, "opencl")
	b, _ := device.Lookup("opencl")
	devs, err := b.Devices()
	if err != nil || len(devs) == 0 || devs[0].MaxBlockSize <= 0 || devs[0].MaxBlockSize > 1<<14 {
		t.Skipf("no OpenCL device with a maximum work-group size to exceed: %v", err)
	}
	max := devs[0].MaxBlockSize
	dir := t.TempDir()
	spec := fmt.Sprintf(`kernel: {name: fill, source: fill.cl}
constants: {N: %d}
parameters:
  - {name: block_size_x, values: [%d, %d, %d, %d, %d, %d]}
problem_size: [N]
grid_div_x: [block_size_x]
arguments:
  - {name: y, type: float32, length: N, output: true}
  - {name: n, type: int32, value: N}
iterations: 3
`, 8*max, max/4, max/2, max, 2*max, 4*max, 8*max)
	files := map[string]string{"fill.yaml": spec,
		"fill.cl": "__kernel void fill(__global float *y, int n) { int i = get_global_id(0); if (i < n) y[i] = i; }\n"}
	writeFiles(t, dir, files)
	out, errOut, code := ktune(t, "tune", filepath.Join(dir, "fill.yaml"), "--strategy", "bruteforce", "--db", filepath.Join(dir, "k.db"), "--precompilers", "0")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"6 of the space's 6 configurations evaluated (3 measured, 3 over a device limit known before compiling: not compiled, no budget spent) with bruteforce",
		"statuses: device_limit 3 (known before compiling: no budget spent), ok 3",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the summary lacks %q:\n%s", want, out)
		}
	}
}

// A resumed run's first line counts what this command measured, what the run had
// measured before it and what was refused before compiling, which add up to the
// evaluations (the numbers are tuner's, checked on a resumed run there).
func TestTuneSummaryOfAResumedRunSaysWhatEachCountIs(t *testing.T) {
	r := &tuner.Report{Kernel: "fill", Device: "cpu", Backend: "opencl", Strategy: "random", SpaceSize: 12, Evaluations: 12,
		Resumed: 4, Measured: 2, DeviceExcluded: 6, Statuses: map[string]int{"ok": 6, "device_limit": 6}, Stop: "budget"}
	var b strings.Builder
	printTuneReport(&cliEnv{stdout: &b}, r, false)
	want := "12 of the space's 12 configurations evaluated (2 measured by this command, 4 before it, 6 over a device limit known before compiling: not compiled, no budget spent)"
	if !strings.Contains(b.String(), want) {
		t.Errorf("the summary lacks %q:\n%s", want, b.String())
	}
}
