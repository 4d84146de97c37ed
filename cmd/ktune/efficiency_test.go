package main

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ktune/ktune/store"
)

// copyEfficiencySpec copies testdata/efficiency's SAXPY spec into a temporary folder, with
// extra appended, and returns its path. The kernel the copy names is one copy for the
// whole test binary (sharedKernel): OpenCL runtimes such as PoCL cache a build by its
// source and options, which name the kernel's folder, so the tests share their builds of
// SAXPY instead of compiling each configuration again in a folder of their own.
func copyEfficiencySpec(t *testing.T, extra string) string {
	t.Helper()
	kernel := sharedKernel(t, "../../testdata/efficiency/saxpy.cl")
	b, err := os.ReadFile("../../testdata/efficiency/saxpy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(b), "source: saxpy.cl\n", "source: "+kernel+"\n", 1)
	if text == string(b) {
		t.Fatal("testdata/efficiency/saxpy.yaml no longer names its kernel as source: saxpy.cl")
	}
	path := filepath.Join(t.TempDir(), "saxpy.yaml")
	if err := os.WriteFile(path, []byte(text+extra), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

type efficiencyJSON struct {
	Run        int64              `json:"run"`
	Best       map[string]any     `json:"best_configuration"`
	BestTimeMS *float64           `json:"best_time_ms"`
	Efficiency *efficiencySummary `json:"efficiency"`
}

type efficiencySummary struct {
	Ops struct {
		Bytes, Flops float64
		Precision    string
		Excluded     string
	} `json:"essential_ops"`
	Peaks *struct {
		GFLOPS     float64 `json:"gflops"`
		GBs        float64 `json:"gbs"`
		GFLOPSFrom string  `json:"gflops_from"`
		GBsFrom    string  `json:"gbs_from"`
	} `json:"peaks"`
	Best *struct {
		Percent        float64  `json:"percent"`
		Bound          string   `json:"bound"`
		MemoryPercent  *float64 `json:"memory_percent"`
		ComputePercent *float64 `json:"compute_percent"`
	} `json:"best"`
	Missing string `json:"missing"`
}

// TestTuneEfficiencyIsEquation2OfTheStoredBest tunes SAXPY on PoCL with peaks given and
// checks the summary's efficiency against seed 003's eq. 2 worked out by hand from the
// best evaluation as the store keeps it: 12 N bytes and 2 N flops over its time.
func TestTuneEfficiencyIsEquation2OfTheStoredBest(t *testing.T) {
	needBackend(t, "opencl")
	specPath := copyEfficiencySpec(t, "")
	db := filepath.Join(t.TempDir(), "k.db")
	const gbs, gflops = 40.0, 0.5 // a compute peak so low that the compute share wins
	out, errOut, code := ktune(t, "tune", specPath, "--device", "opencl", "--strategy", "bruteforce", "--budget", "2", "--db", db,
		"--peak-gbs", "40", "--peak-gflops", "0.5", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep efficiencyJSON
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	e := rep.Efficiency
	if e == nil || e.Best == nil || e.Peaks == nil {
		t.Fatalf("no efficiency in %s", out)
	}
	if e.Ops.Bytes != 12*262144 || e.Ops.Flops != 2*262144 || e.Ops.Precision != "float32" {
		t.Errorf("essential ops %+v", e.Ops)
	}
	if e.Peaks.GBs != gbs || e.Peaks.GFLOPS != gflops || e.Peaks.GBsFrom != "given: --peak-gbs" || e.Peaks.GFLOPSFrom != "given: --peak-gflops" {
		t.Errorf("peaks %+v", *e.Peaks)
	}

	// the best evaluation as stored: the objective is the time, in ms
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tally, err := st.Tally(context.Background(), rep.Run)
	if err != nil || !tally.HasBest {
		t.Fatalf("tally %+v, %v", tally, err)
	}
	ms := tally.Best.Objective
	if rep.BestTimeMS == nil || *rep.BestTimeMS != ms {
		t.Errorf("best time %v, stored %v", rep.BestTimeMS, ms)
	}
	seconds := ms / 1e3
	mem := 100 * (12 * 262144 / seconds / 1e9) / gbs
	comp := 100 * (2 * 262144 / seconds / 1e9) / gflops
	want, bound := math.Max(mem, comp), "compute"
	if mem > comp {
		bound = "memory"
	}
	if math.Abs(e.Best.Percent-want) > 1e-9*want || e.Best.Bound != bound {
		t.Errorf("efficiency %v%% %s-bound; eq. 2 by hand from the stored time %v ms: %v%% %s-bound", e.Best.Percent, e.Best.Bound, ms, want, bound)
	}
	if e.Best.MemoryPercent == nil || math.Abs(*e.Best.MemoryPercent-mem) > 1e-9*mem || e.Best.ComputePercent == nil || math.Abs(*e.Best.ComputePercent-comp) > 1e-9*comp {
		t.Errorf("shares %v, %v; want %v, %v", e.Best.MemoryPercent, e.Best.ComputePercent, mem, comp)
	}

	// the same run's summary in words, resumed from the store: nothing is measured again
	text, errOut, code := ktune(t, "tune", specPath, "--device", "opencl", "--strategy", "bruteforce", "--budget", "2", "--db", db,
		"--peak-gbs", "40", "--peak-gflops", "0.5")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(text, "efficiency: ") || !strings.Contains(text, "of the device's peak, "+bound+"-bound") || !strings.Contains(text, "GB/s peak (given: --peak-gbs)") {
		t.Errorf("summary without the efficiency:\n%s", text)
	}

	// the report of the run computes it again from the store, with the same peaks given
	page, errOut, code := ktune(t, "report", "--run", strconv.FormatInt(rep.Run, 10), "--db", db, "-o", "-", "--peak-gbs", "40", "--peak-gflops", "0.5")
	if code != 0 {
		t.Fatalf("report: exit %d: %s", code, errOut)
	}
	page = html.UnescapeString(page)
	if want := fmt.Sprintf("The most efficient configuration reaches %.1f%% of the device's peak, %s-bound", want, bound); !strings.Contains(page, want) {
		t.Errorf("report lacks %q", want)
	}
	// without peaks, the same: those the run stored when it was tuned, saying so
	page, errOut, code = ktune(t, "report", "--run", strconv.FormatInt(rep.Run, 10), "--db", db, "-o", "-")
	if code != 0 {
		t.Fatalf("report without peaks: exit %d: %s", code, errOut)
	}
	page = html.UnescapeString(page)
	if want := fmt.Sprintf("The most efficient configuration reaches %.1f%% of the device's peak, %s-bound", want, bound); !strings.Contains(page, want) {
		t.Errorf("report without peaks lacks %q", want)
	}
	if want := fmt.Sprintf("40 GB/s (stored with run %d: given: --peak-gbs)", rep.Run); !strings.Contains(page, want) {
		t.Errorf("report without peaks lacks %q", want)
	}
}

// TestTuneWithoutPeaksSaysWhatToPass tunes on PoCL, whose OpenCL reports no peaks, without
// giving any: no efficiency, and the summary says which options give the peaks.
func TestTuneWithoutPeaksSaysWhatToPass(t *testing.T) {
	needBackend(t, "opencl")
	specPath := copyEfficiencySpec(t, "")
	db := filepath.Join(t.TempDir(), "k.db")
	out, errOut, code := ktune(t, "tune", specPath, "--device", "opencl", "--budget", "1", "--db", db, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep efficiencyJSON
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	e := rep.Efficiency
	if e == nil || e.Best != nil || !strings.Contains(e.Missing, "--peak-gbs") || !strings.Contains(e.Missing, "--peak-gflops") ||
		!strings.Contains(e.Missing, "OpenCL reports no memory bandwidth") {
		t.Errorf("efficiency %+v", e)
	}
	// a peak given alone is not enough where the operations need both
	text, errOut, code := ktune(t, "tune", specPath, "--device", "opencl", "--budget", "1", "--db", db, "--new", "--peak-gbs", "40")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// the figure missing alone, with its own reason: not the memory peak's, which is given
	if want := "  efficiency: the device's float32 arithmetic peak is unknown (" + poclUnknown(t, "float32") + "): " +
		"give it with --peak-gflops GFLOP/s, or gflops: {float32: GFLOP/s} in the device's entry of a peaks file (--peaks); " +
		"take it from the device's data sheet or a measurement\n"; !strings.Contains(text, want) || strings.Contains(text, "memory bandwidth") {
		t.Errorf("summary lacks %q:\n%s", want, text)
	}
	// the report of the run tuned without peaks: PoCL's OpenCL gives none, and the run
	// stored none; the page says which options give them
	page, errOut, code := ktune(t, "report", "--run", strconv.FormatInt(rep.Run, 10), "--db", db, "-o", "-")
	if code != 0 || !strings.Contains(html.UnescapeString(page), "No efficiency: the device's memory bandwidth peak is unknown ("+poclUnknown(t, "memory")+"): "+
		"give it with --peak-gbs GB/s, or gbs: GB/s in the device's entry of a peaks file (--peaks); its float32 arithmetic peak is unknown") {
		t.Errorf("report without peaks: exit %d, no word of the missing peaks: %s", code, errOut)
	}
	if _, errOut, code := ktune(t, "tune", specPath, "--peak-gbs", "-3"); code != 2 || !strings.Contains(errOut, "want a positive number") {
		t.Errorf("--peak-gbs -3: exit %d, %s", code, errOut)
	}
}

// TestTuneSaysWhyAnExcludedKernelHasNoEfficiency: a spec whose essential_ops say why no
// peak suits it gets that reason instead of an efficiency.
func TestTuneSaysWhyAnExcludedKernelHasNoEfficiency(t *testing.T) {
	needBackend(t, "opencl")
	specPath := copyEfficiencySpec(t, "")
	b, err := os.ReadFile(specPath)
	if err != nil {
		t.Fatal(err)
	}
	b = []byte(strings.Replace(string(b), "essential_ops:\n  bytes: 12 * N\n  flops: 2 * N\n", "essential_ops: {excluded: judged against its baseline}\n", 1))
	if err := os.WriteFile(specPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	text, errOut, code := ktune(t, "tune", specPath, "--device", "opencl", "--budget", "1", "--db", filepath.Join(t.TempDir(), "k.db"), "--peak-gbs", "40")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(text, "efficiency: excluded: judged against its baseline") {
		t.Errorf("summary:\n%s", text)
	}
}

// TestPortabilityWellPerformingByThePeak tunes SAXPY's whole space twice on PoCL and
// amortizes with well-performing defined as a fraction of the peak (seed 003, Section 6):
// the well-performing configurations are those whose efficiency, worked out by hand
// from the stored times, reaches it.
func TestPortabilityWellPerformingByThePeak(t *testing.T) {
	needBackend(t, "opencl")
	specPath := copyEfficiencySpec(t, "")
	db := filepath.Join(t.TempDir(), "k.db")
	for _, extra := range [][]string{nil, {"--new"}} {
		args := append([]string{"tune", specPath, "--device", "opencl", "--strategy", "bruteforce", "--budget", "4", "--db", db}, extra...)
		if _, errOut, code := ktune(t, args...); code != 0 {
			t.Fatalf("tune: exit %d: %s", code, errOut)
		}
	}
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	// the memory peak is the fastest configuration's GB/s: it is at 100%, the others below
	gbs := map[int64][]float64{}
	fastest := 0.0
	for _, run := range []int64{1, 2} {
		evals, err := st.Evaluations(context.Background(), run)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evals {
			if ms, ok := e.TimeMS("time"); ok {
				gbs[run] = append(gbs[run], 12*262144/(ms/1e3)/1e9)
				fastest = math.Max(fastest, gbs[run][len(gbs[run])-1])
			}
		}
	}
	st.Close()
	// 60% of the peak, or below the slower run's best where PoCL under load made one run
	// that much slower than the other (portability refuses a run none of whose
	// configurations is well-performing)
	within := 0.6
	for _, run := range []int64{1, 2} {
		if best := slices.Max(gbs[run]) / fastest; best < within+0.05 {
			within = math.Floor(90*best) / 100
		}
	}
	withinArg := strconv.FormatFloat(within, 'g', -1, 64)
	peak := strconv.FormatFloat(fastest, 'g', -1, 64)
	// the compute peak so high that the memory share is the larger one
	out, errOut, code := ktune(t, "portability", "--run", "1,2", "--db", db, "--within-peak", withinArg, "--peak-gbs", peak, "--peak-gflops", "1e9", "--json")
	if code != 0 {
		t.Fatalf("portability: exit %d: %s", code, errOut)
	}
	var doc struct {
		Settings struct {
			WithinPeak float64 `json:"within_peak"`
		} `json:"settings"`
		Amortization []struct {
			Valid, Well int
		} `json:"amortization"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Settings.WithinPeak != within || len(doc.Amortization) != 2 {
		t.Fatalf("settings %+v, %d spaces", doc.Settings, len(doc.Amortization))
	}
	for i, run := range []int64{1, 2} {
		well := 0
		for _, v := range gbs[run] {
			if 100*v/fastest >= 100*within {
				well++
			}
		}
		if a := doc.Amortization[i]; a.Valid != len(gbs[run]) || a.Well != well {
			t.Errorf("run %d: %d well of %d, by hand %d of %d", run, a.Well, a.Valid, well, len(gbs[run]))
		}
	}
	text, _, _ := ktune(t, "portability", "--run", "1,2", "--db", db, "--within-peak", withinArg, "--peak-gbs", peak, "--peak-gflops", "1e9")
	if !strings.Contains(text, fmt.Sprintf("well-performing at %g%% of the device's peak or more (eq. 2)", 100*within)) {
		t.Errorf("portability does not say the threshold is the peak's:\n%s", text)
	}
	// without peaks PoCL's runs have none: the error names each figure missing, with its
	// reason as the device stored with the run says it, and what gives it
	if _, errOut, code := ktune(t, "portability", "--run", "1,2", "--db", db, "--within-peak", "0.6"); code == 0 || !strings.Contains(errOut,
		" (opencl:0)): no efficiency: the device's memory bandwidth peak is unknown ("+poclUnknown(t, "memory")+"): "+
			"give it with --peak-gbs GB/s, or gbs: GB/s in the device's entry of a peaks file (--peaks); its float32 arithmetic peak is unknown (") {
		t.Errorf("no peaks: exit %d, %s", code, errOut)
	}
	if _, errOut, code := ktune(t, "portability", "--run", "1,2", "--db", db, "--within-peak", "0.6", "--peak-gbs", "30"); code == 0 || !strings.HasSuffix(errOut,
		" (opencl:0)): no efficiency: the device's float32 arithmetic peak is unknown ("+poclUnknown(t, "float32")+"): "+
			"give it with --peak-gflops GFLOP/s, or gflops: {float32: GFLOP/s} in the device's entry of a peaks file (--peaks); "+
			"take it from the device's data sheet or a measurement\n") {
		t.Errorf("no arithmetic peak: exit %d, %s", code, errOut)
	}
	if _, errOut, code := ktune(t, "portability", "--run", "1,2", "--db", db, "--within-peak", "0.6", "--within", "0.9"); code != 2 || !strings.Contains(errOut, "not both") {
		t.Errorf("--within with --within-peak: exit %d, %s", code, errOut)
	}
}
