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
