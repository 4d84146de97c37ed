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

// A run on several devices says what each measured, and what was measured ahead in vain;
// a run on one says nothing of devices.
func TestTuneSummarySaysWhatEachDeviceMeasured(t *testing.T) {
	for _, tc := range []struct {
		rep  tuner.Report
		want string
	}{
		{tuner.Report{Backend: "opencl", Devices: []tuner.DeviceShare{{Index: 0, Measured: 9, Ahead: 2}, {Index: 2, Measured: 7, Ahead: 7}}},
			"\nmeasured on: opencl:0 9 (2 ahead), opencl:2 7 (7 ahead)\n"},
		{tuner.Report{Backend: "cuda", Devices: []tuner.DeviceShare{{Index: 0, Measured: 3}, {Index: 1, Measured: 2, Ahead: 2}}, DroppedAhead: 1},
			"\nmeasured on: cuda:0 3 (0 ahead), cuda:1 2 (2 ahead); 1 measured ahead and never asked for (not stored)\n"},
		{tuner.Report{Backend: "opencl"}, ""},
	} {
		var out bytes.Buffer
		r := tc.rep
		r.Kernel, r.Evaluations, r.SpaceSize, r.Statuses = "k", 16, 24, map[string]int{"ok": 16}
		printTuneReport(&cliEnv{stdout: &out}, &r, true)
		if got := out.String(); (tc.want == "" && strings.Contains(got, "measured on")) || !strings.Contains(got, tc.want) {
			t.Errorf("summary\n%s\nwant %q", got, tc.want)
		}
	}
}

// A resumed run's summary says how many stored successes of configurations found wrong
// it left out of the best, the median and the spreads, and compares the best with a
// default found wrong not at all; with one other success there is no median to give.
func TestTuneSummarySaysWhatWasFoundWrong(t *testing.T) {
	best, median := 1.5, 1.75
	for _, tc := range []struct {
		ok, foundWrong int
		defWrong       bool
		want, not      []string
	}{
		{3, 1, true, []string{
			"\n  1.17x better than the median configuration evaluated (1.75 ms)\n",
			"\n  the default configuration ran successfully but was found wrong (a wrong_answer evaluation in the run): no speedup over it\n",
			"\n  1 successful evaluation of a configuration found wrong in the run (a wrong_answer evaluation) is left out of the best, the median and the spreads\n",
		}, []string{"default configuration ("}},
		{4, 3, false, []string{
			"\n  3 successful evaluations of configurations found wrong in the run (a wrong_answer evaluation) are left out of the best, the median and the spreads\n",
		}, []string{"median configuration", "found wrong (a wrong_answer evaluation in the run): no speedup"}},
	} {
		var out bytes.Buffer
		printTuneReport(&cliEnv{stdout: &out}, &tuner.Report{Kernel: "k", Evaluations: tc.ok + 1, SpaceSize: 8, Objective: "time",
			Statuses: map[string]int{"ok": tc.ok, "wrong_answer": 1}, BestObjective: &best, MedianObjective: &median,
			FoundWrong: tc.foundWrong, DefaultFoundWrong: tc.defWrong}, true)
		got := out.String()
		for _, want := range tc.want {
			if !strings.Contains(got, want) {
				t.Errorf("%d found wrong of %d ok: summary\n%s\nlacks %q", tc.foundWrong, tc.ok, got, want)
			}
		}
		for _, not := range tc.not {
			if strings.Contains(got, not) {
				t.Errorf("%d found wrong of %d ok: summary\n%s\nhas %q", tc.foundWrong, tc.ok, got, not)
			}
		}
	}
}
