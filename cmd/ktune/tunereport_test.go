package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ktune/ktune/tuner"
)

// The summary's statuses say which device_limits cost no budget: all of them, or how
// many, where some were found only after compiling; without any the line is as before.
func TestTuneSummarySaysWhichDeviceLimitsCostNoBudget(t *testing.T) {
	for _, tc := range []struct {
		excluded int
		want     string
	}{
		{12, "statuses: device_limit 12 (known before compiling: no budget spent), ok 40\n"},
		{9, "statuses: device_limit 12 (9 known before compiling: no budget spent), ok 40\n"},
		{0, "statuses: device_limit 12, ok 40\n"},
	} {
		var out bytes.Buffer
		printTuneReport(&cliEnv{stdout: &out}, &tuner.Report{Kernel: "k", Evaluations: 52, SpaceSize: 64,
			Statuses: map[string]int{"ok": 40, "device_limit": 12}, DeviceExcluded: tc.excluded}, true)
		if !strings.Contains(out.String(), "\n"+tc.want) {
			t.Errorf("%d excluded: summary\n%s\nlacks the line %q", tc.excluded, out.String(), tc.want)
		}
	}
}
