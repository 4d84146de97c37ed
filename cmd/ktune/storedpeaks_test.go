package main

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/efficiency"
	"github.com/ktune/ktune/store"
)

// TestTunedPeaksAreStoredForReportAndPortability tunes SAXPY's whole space on two PoCL
// devices, one run with --peak-gbs and --peak-gflops, the other with a peaks file, and
// reads both runs back without being given any peak: the report of each names the peak
// its run stored and where it came from, and portability's well-performing by the peak
// counts, worked out by hand from the stored times, are against each run's stored peaks.
// A flag given to the report still wins.
func TestTunedPeaksAreStoredForReportAndPortability(t *testing.T) {
	needBackend(t, "opencl")
	specPath := copyEfficiencySpec(t, "")
	db := filepath.Join(t.TempDir(), "k.db")
	// peaks far above a CPU's SAXPY, so that efficiency is memory-bound and well below 1
	peaks := map[int64]float64{1: 1000, 2: 2000}
	tuneOnPoCLDevice(t, specPath, db, 0, "--peak-gbs", "1000", "--peak-gflops", "1e9")
	pf := writePeaksFile(t, "\"opencl:1\": {gbs: 2000, gflops: {float32: 1e9}}\n")
	tuneOnPoCLDevice(t, specPath, db, 1, "--peaks", pf)

	for run, want := range map[int64]string{
		1: "1000 GB/s (stored with run 1: given: --peak-gbs)",
		2: fmt.Sprintf("2000 GB/s (stored with run 2: given: peaks file %s, device \"opencl:1\")", pf),
	} {
		page, errOut, code := ktune(t, "report", "--run", strconv.FormatInt(run, 10), "--db", db, "-o", "-", "--graph-nodes", "0", "--bootstrap", "0")
		if code != 0 {
			t.Fatalf("report of run %d: exit %d: %s", run, code, errOut)
		}
		page = html.UnescapeString(page)
		if !strings.Contains(page, ">"+want+"<") || !strings.Contains(page, "The most efficient configuration reaches") {
			t.Errorf("report of run %d without peaks lacks its stored memory peak %q", run, want)
		}
	}
	page, errOut, code := ktune(t, "report", "--run", "1", "--db", db, "-o", "-", "--graph-nodes", "0", "--bootstrap", "0", "--peak-gbs", "500")
	if page = html.UnescapeString(page); code != 0 || !strings.Contains(page, ">500 GB/s (given: --peak-gbs)<") ||
		!strings.Contains(page, ">1e+09 GFLOP/s float32 (stored with run 1: given: --peak-gflops)<") {
		t.Errorf("report --peak-gbs 500: exit %d, %s; the flag does not win over the stored memory peak, or the stored arithmetic peak is not used", code, errOut)
	}

	// well-performing: at least the fraction of its peak that the less efficient run's
	// best reaches, so that each count by hand is at least one and tells the peaks apart
	gbs := map[int64][]float64{1: storedGBs(t, db, 1), 2: storedGBs(t, db, 2)}
	within := math.Inf(1)
	for run, vs := range gbs {
		if len(vs) != 4 {
			t.Fatalf("run %d: %d timed evaluations, want SAXPY's 4", run, len(vs))
		}
		within = math.Min(within, slicesMax(vs)/peaks[run])
	}
	within *= 1 - 1e-9
	out, errOut, code := ktune(t, "portability", "--run", "1,2", "--db", db, "--within-peak", strconv.FormatFloat(within, 'g', -1, 64), "--json")
	if code != 0 {
		t.Fatalf("portability --within-peak: exit %d: %s", code, errOut)
	}
	var doc struct {
		Amortization []struct{ Valid, Well int } `json:"amortization"`
		Peaks        []struct {
			Run       int64   `json:"run"`
			GBs       float64 `json:"gbs"`
			GBsFrom   string  `json:"gbs_from"`
			GBsSource struct {
				From string `json:"from"`
				Flag string `json:"flag"`
				File string `json:"file"`
				Run  int64  `json:"run"`
			} `json:"gbs_source"`
		} `json:"peaks"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Amortization) != 2 || len(doc.Peaks) != 2 {
		t.Fatalf("portability --json: %v\n%s", err, out)
	}
	for i, run := range []int64{1, 2} {
		well := 0
		for _, v := range gbs[run] {
			if v/peaks[run] >= within {
				well++
			}
		}
		if a := doc.Amortization[i]; a.Valid != 4 || a.Well != well {
			t.Errorf("run %d (stored peak %v GB/s): %d well of %d, by hand %d of 4", run, peaks[run], a.Well, a.Valid, well)
		}
		if p := doc.Peaks[i]; p.Run != run || p.GBs != peaks[run] || p.GBsSource.Run != run {
			t.Errorf("portability's peaks of run %d: %+v", run, p)
		}
	}
	if s := doc.Peaks[0].GBsSource; s.From != "flag" || s.Flag != "--peak-gbs" {
		t.Errorf("run 1's memory peak's source %+v, want the flag --peak-gbs", s)
	}
	if s := doc.Peaks[1].GBsSource; s.From != "file" || s.File != pf {
		t.Errorf("run 2's memory peak's source %+v, want the file %s", s, pf)
	}
	text, errOut, code := ktune(t, "portability", "--run", "1,2", "--db", db, "--within-peak", strconv.FormatFloat(within, 'g', -1, 64))
	if code != 0 || !strings.Contains(text, "memory 1000 GB/s (stored with run 1: given: --peak-gbs)") ||
		!strings.Contains(text, "memory 2000 GB/s (stored with run 2: given: peaks file "+pf) {
		t.Errorf("portability: exit %d, %s; the text does not name each run's stored peak and its source:\n%s", code, errOut, text)
	}
}

func slicesMax(vs []float64) float64 {
	m := math.Inf(-1)
	for _, v := range vs {
		m = math.Max(m, v)
	}
	return m
}

// TestResumedTuneKeepsThePeaksItWasGiven resumes an interrupted run given --peak-gflops
// alone: the memory peak given when the run began stays its peak, in the summary (saying
// it was stored) and in what the run stores, beside the new arithmetic peak.
func TestResumedTuneKeepsThePeaksItWasGiven(t *testing.T) {
	needBackend(t, "opencl")
	specPath := copyEfficiencySpec(t, "")
	db := filepath.Join(t.TempDir(), "k.db")
	args := []string{"tune", specPath, "--device", "opencl", "--strategy", "bruteforce", "--no-precompile", "--db", db, "--json"}
	if _, errOut, code := ktune(t, append(args, "--budget", "2", "--peak-gbs", "1000", "--peak-gflops", "1e9")...); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// as a process killed while tuning leaves it
	if err := st.FinishRun(context.Background(), 1, store.StatusInterrupted); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := ktune(t, append(args, "--budget", "4", "--peak-gflops", "5e8")...)
	var rep efficiencyJSON
	if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil {
		t.Fatalf("exit %d, %v: %s%s", code, err, out, errOut)
	}
	if e := rep.Efficiency; rep.Run != 1 || e == nil || e.Peaks == nil || e.Peaks.GBs != 1000 || e.Peaks.GBsFrom != "stored with run 1: given: --peak-gbs" ||
		e.Peaks.GFLOPS != 5e8 || e.Peaks.GFLOPSFrom != "given: --peak-gflops" {
		t.Fatalf("resumed run %d's efficiency %+v", rep.Run, e)
	}
	info, err := st.Run(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	kept, err := efficiency.StoredOf(info)
	if err != nil || kept == nil || kept.GBs == nil || kept.GFLOPS == nil {
		t.Fatalf("stored peaks %+v, %v", kept, err)
	}
	if want := (efficiency.Figure{Value: 1000, Unit: "GB/s", Source: efficiency.Source{From: "flag", Flag: "--peak-gbs"}}); *kept.GBs != want {
		t.Errorf("stored memory peak %+v, want %+v", *kept.GBs, want)
	}
	if want := (efficiency.Figure{Value: 5e8, Unit: "GFLOP/s", Source: efficiency.Source{From: "flag", Flag: "--peak-gflops"}}); *kept.GFLOPS != want {
		t.Errorf("stored arithmetic peak %+v, want %+v", *kept.GFLOPS, want)
	}
}

// interruptRun marks run of db interrupted, as a process killed while tuning leaves it.
func interruptRun(t *testing.T, db string, run int64) {
	t.Helper()
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.FinishRun(context.Background(), run, store.StatusInterrupted); err != nil {
		t.Fatal(err)
	}
}

// TestResumedStopWithinPeakUsesTheStoredPeaks leaves a run of SAXPY on PoCL, whose OpenCL
// derives no peak, interrupted after 2 configurations tuned with a memory peak of 0.001
// GB/s given, and resumes it with --stop-within-peak and no peak: the stored peaks make
// the threshold, which the stored evaluations already meet by far (any SAXPY time is a
// million times the peak), so nothing is measured, and the summary names the peak's
// source, the run. What was reached is worked out from the stored best time, so that no
// fresh timing decides it. A --peak-gbs given on a later resumption wins over the stored
// one: a thousand million GB/s, which no time reaches, continues the run to its budget.
func TestResumedStopWithinPeakUsesTheStoredPeaks(t *testing.T) {
	needBackend(t, "opencl")
	specPath := copyEfficiencySpec(t, "")
	db := filepath.Join(t.TempDir(), "k.db")
	args := []string{specPath, "--device", "opencl", "--strategy", "bruteforce", "--no-precompile", "--db", db}
	first := tuneStop(t, append(args, "--budget", "2", "--peak-gbs", "0.001", "--peak-gflops", "1e9")...)
	if first.Evaluations != 2 {
		t.Fatalf("first run: %d evaluations, want 2", first.Evaluations)
	}
	interruptRun(t, db, first.Run)
	best := slicesMin(storedTimes(t, db, first.Run))
	gbs := saxpyGBs(best)
	percent := 100 * gbs / 0.001

	met := tuneStop(t, append(args, "--budget", "4", "--stop-within-peak", "0.75")...)
	if met.Run != first.Run || met.Measured != 0 || met.Resumed != 2 {
		t.Errorf("run %d: %d resumed, %d measured; want run %d's 2, none measured", met.Run, met.Resumed, met.Measured, first.Run)
	}
	if want := fmt.Sprintf("within 75%% of peak: %.4g GB/s of 0.001 GB/s (%.1f%%), reached before this command", gbs, percent); met.Stop != want {
		t.Errorf("stop %q, want %q", met.Stop, want)
	}
	met.condition(t, "within_peak", true, &percent, ptr(75), "%")
	if e := met.Efficiency; e == nil || e.Peaks == nil || e.Peaks.GBs != 0.001 || e.Peaks.GBsFrom != "stored with run 1: given: --peak-gbs" ||
		e.Peaks.GFLOPS != 1e9 || e.Peaks.GFLOPSFrom != "stored with run 1: given: --peak-gflops" || e.Best == nil || math.Abs(e.Best.Percent-percent) > 1e-9*percent {
		t.Errorf("efficiency %+v, want against run 1's stored peaks, the best at %v%%", e, percent)
	}
	if got := runStatus(t, db, first.Run); got != store.StatusInterrupted {
		t.Errorf("the run is %s, want it left interrupted", got)
	}
	// the text summary says where the peak came from too
	text, errOut, code := ktune(t, append([]string{"tune"}, append(args, "--budget", "4", "--stop-within-peak", "0.75")...)...)
	if code != 0 || !strings.Contains(text, "0.001 GB/s peak (stored with run 1: given: --peak-gbs)") {
		t.Errorf("exit %d, %s; the summary does not name the stored peak:\n%s", code, errOut, text)
	}

	more := tuneStop(t, append(args, "--budget", "4", "--stop-within-peak", "1", "--peak-gbs", "1e9")...)
	if more.Run != first.Run || more.Resumed != 2 || more.Measured != 2 || more.Stop != "budget" {
		t.Errorf("run %d: %d resumed, %d measured, stop %q; want run %d's 2 resumed, 2 more measured to the budget", more.Run, more.Resumed, more.Measured, more.Stop, first.Run)
	}
	if e := more.Efficiency; e == nil || e.Peaks == nil || e.Peaks.GBs != 1e9 || e.Peaks.GBsFrom != "given: --peak-gbs" || e.Peaks.GFLOPSFrom != "stored with run 1: given: --peak-gflops" {
		t.Errorf("efficiency %+v, want the flag's memory peak and the stored arithmetic one", e)
	}
	if n := storedRuns(t, db); n != 1 {
		t.Errorf("%d runs stored, want the one resumed", n)
	}
}

func slicesMin(vs []float64) float64 {
	m := math.Inf(1)
	for _, v := range vs {
		m = math.Min(m, v)
	}
	return m
}

// poclUnknown is why PoCL's first OpenCL device's figure (a precision, or memory) is not
// derived, as the backend says it: the reason a missing peak's error quotes.
func poclUnknown(t *testing.T, figure string) string {
	t.Helper()
	b, _ := device.Lookup("opencl")
	devs, err := b.Devices()
	if err != nil || len(devs) == 0 {
		t.Fatalf("opencl devices: %v", err)
	}
	why := devs[0].Peak.UnknownOf(figure)
	if why == "" {
		t.Fatalf("opencl:0 says nothing of its %s peak: %+v", figure, devs[0].Peak)
	}
	return why
}

// TestResumedStopWithinPeakWithoutPeaksChangesNothing resumes a run of SAXPY on PoCL
// tuned without peaks (PoCL derives none; the run stored none) with --stop-within-peak
// and no peak: a usage error that names each missing figure with PoCL's reason for it and
// what gives it, says the run's stored peaks were looked at, and leaves the store as it
// was: one run, interrupted, with its 2 evaluations and its settings. So does the same
// with --new, which would create a run.
func TestResumedStopWithinPeakWithoutPeaksChangesNothing(t *testing.T) {
	needBackend(t, "opencl")
	specPath := copyEfficiencySpec(t, "")
	db := filepath.Join(t.TempDir(), "k.db")
	args := []string{"tune", specPath, "--device", "opencl", "--strategy", "bruteforce", "--no-precompile", "--db", db}
	if _, errOut, code := ktune(t, append(args, "--budget", "2")...); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	interruptRun(t, db, 1)
	before := runInfo(t, db, 1)
	if kept, err := efficiency.StoredOf(before); err != nil || kept != nil {
		t.Fatalf("run 1, tuned without peaks on PoCL, stored peaks %+v (%v)", kept, err)
	}
	missing := "no efficiency: the device's memory bandwidth peak is unknown (" + poclUnknown(t, "memory") + "): " +
		"give it with --peak-gbs GB/s, or gbs: GB/s in the device's entry of a peaks file (--peaks); " +
		"its float32 arithmetic peak is unknown (" + poclUnknown(t, "float32") + "): " +
		"give it with --peak-gflops GFLOP/s, or gflops: {float32: GFLOP/s} in the device's entry of a peaks file (--peaks); " +
		"take them from the device's data sheet or a measurement (STREAM for memory)"
	for _, tc := range []struct {
		name  string
		extra []string
		want  string
	}{
		{"resumed", nil, "ktune tune: stop within 50% of the device's peak (--stop-within-peak 0.5), resuming run 1, which stored none of the peaks missing: " + missing + "\n"},
		{"new", []string{"--new"}, "ktune tune: stop within 50% of the device's peak (--stop-within-peak 0.5): " + missing + "\n"},
	} {
		_, errOut, code := ktune(t, append(append(args, "--budget", "4", "--stop-within-peak", "0.5"), tc.extra...)...)
		if first, _, _ := strings.Cut(errOut, "Usage: "); code != 2 || first != tc.want {
			t.Errorf("%s: exit %d, want 2 and\n%s\ngot\n%s", tc.name, code, tc.want, errOut)
		}
		if n := storedRuns(t, db); n != 1 {
			t.Errorf("%s: %d runs stored after the usage error, want run 1 alone", tc.name, n)
		}
		after := runInfo(t, db, 1)
		if after.Status != store.StatusInterrupted || string(after.Settings) != string(before.Settings) || !after.Finished.Equal(before.Finished) {
			t.Errorf("%s: run 1 changed: %s, settings %s, finished %v; was %s, %s, %v", tc.name, after.Status, after.Settings, after.Finished, before.Status, before.Settings, before.Finished)
		}
		if n := len(runEvaluations(t, db, 1)); n != 2 {
			t.Errorf("%s: run 1 has %d evaluations, want its 2", tc.name, n)
		}
	}
}

func runInfo(t *testing.T, db string, run int64) store.RunInfo {
	t.Helper()
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	info, err := st.Run(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	return info
}
