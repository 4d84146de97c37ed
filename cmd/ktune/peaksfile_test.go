package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// tuneOnPoCLDevice tunes SAXPY's whole space into db on device opencl:index of two PoCL
// CPU devices of one name (POCL_DEVICES="pthread pthread"), in a process of its own:
// PoCL reads POCL_DEVICES once per process.
func tuneOnPoCLDevice(t *testing.T, specPath, db string, index int, extra ...string) []byte {
	t.Helper()
	args := append([]string{"tune", specPath, "--device", fmt.Sprintf("opencl:%d", index), "--strategy", "bruteforce",
		"--budget", "4", "--no-precompile", "--db", db, "--json"}, extra...)
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "KTUNE_TEST_AS_MAIN=1", "POCL_DEVICES=pthread pthread")
	var errb strings.Builder
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("tune on opencl:%d: %v\n%s", index, err, errb.String())
	}
	return out
}

// storedGBs is the essential GB/s (SAXPY: 12 N bytes) of each timed evaluation of run.
func storedGBs(t *testing.T, db string, run int64) []float64 {
	t.Helper()
	evals := runEvaluations(t, db, run)
	var out []float64
	for _, e := range evals {
		if ms, ok := e.TimeMS("time"); ok {
			out = append(out, saxpyGBs(ms))
		}
	}
	return out
}

func writePeaksFile(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "peaks.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestPeaksFileGivesEachDeviceItsPeak tunes SAXPY on two PoCL devices of one name, and
// amortizes with well-performing by the peak with a peaks file that gives each device a
// different memory peak: each run's well-performing configurations are those that reach
// 60% of its own device's peak, worked out by hand from the stored times. The report of
// each run names the file's peak of its device; a file naming a device none of the runs
// was measured on is refused, naming the runs' devices.
func TestPeaksFileGivesEachDeviceItsPeak(t *testing.T) {
	needBackend(t, "opencl")
	specPath := copyEfficiencySpec(t, "")
	db := filepath.Join(t.TempDir(), "k.db")
	tuneOnPoCLDevice(t, specPath, db, 0)
	tuneOnPoCLDevice(t, specPath, db, 1)
	gbs := map[int64][]float64{1: storedGBs(t, db, 1), 2: storedGBs(t, db, 2)}
	fastest := map[int64]float64{}
	for run, vs := range gbs {
		if len(vs) != 4 {
			t.Fatalf("run %d: %d timed evaluations, want SAXPY's 4", run, len(vs))
		}
		for _, v := range vs {
			fastest[run] = math.Max(fastest[run], v)
		}
	}
	// opencl:0's peak is its fastest configuration's GB/s; opencl:1's 1.5 times its own:
	// one peak for both would make one of the runs' counts wrong
	peaks := map[int64]float64{1: fastest[1], 2: 1.5 * fastest[2]}
	pf := writePeaksFile(t, fmt.Sprintf("\"opencl:0\": {gbs: %v, gflops: {float32: 1e9}}\n\"opencl:1\": {gbs: %v, gflops: {float32: 1e9}}\n", peaks[1], peaks[2]))
	const within = 0.6
	out, errOut, code := ktune(t, "portability", "--run", "1,2", "--db", db, "--within-peak", "0.6", "--peaks", pf, "--json")
	if code != 0 {
		t.Fatalf("portability --peaks: exit %d: %s", code, errOut)
	}
	var doc struct {
		Amortization []struct{ Valid, Well int } `json:"amortization"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Amortization) != 2 {
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
			t.Errorf("run %d (peak %.4g GB/s): %d well of %d, by hand %d of 4", run, peaks[run], a.Well, a.Valid, well)
		}
	}

	// the report of run 2 is against opencl:1's peak, from the file
	page := filepath.Join(t.TempDir(), "r.html")
	if _, errOut, code := ktune(t, "report", "--run", "2", "--db", db, "--peaks", pf, "-o", page, "--graph-nodes", "0", "--bootstrap", "0"); code != 0 {
		t.Fatalf("report --peaks: exit %d: %s", code, errOut)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("%.4g GB/s (given: peaks file %s, device &#34;opencl:1&#34;)", peaks[2], pf); !strings.Contains(string(html), want) {
		t.Errorf("report of run 2 does not give the memory peak %q", want)
	}

	// a device the file names that no run was measured on
	extra := writePeaksFile(t, fmt.Sprintf("\"opencl:0\": {gbs: %v}\n\"opencl:7\": {gbs: 5}\n", peaks[1]))
	_, errOut, code = ktune(t, "portability", "--run", "1,2", "--db", db, "--within-peak", "0.6", "--peaks", extra)
	if code == 0 || !strings.Contains(errOut, extra) || !strings.Contains(errOut, `"opencl:7", which is no device of the runs`) ||
		!strings.Contains(errOut, "(opencl:0)") || !strings.Contains(errOut, "(opencl:1)") {
		t.Errorf("portability with an unknown device in the peaks file: exit %d, %s", code, errOut)
	}
	// a report whose run's device the file does not name
	only0 := writePeaksFile(t, fmt.Sprintf("\"opencl:0\": {gbs: %v}\n", peaks[1]))
	_, errOut, code = ktune(t, "report", "--run", "2", "--db", db, "--peaks", only0, "-o", page)
	if code == 0 || !strings.Contains(errOut, "names no device") || !strings.Contains(errOut, "(opencl:1)") {
		t.Errorf("report of a device the peaks file lacks: exit %d, %s", code, errOut)
	}
	// --peak-gbs wins over the file for every run: the faster run's best is at 100% of
	// it, and the threshold is 60% or, where PoCL under load made one run that much
	// slower than the other, just below the slower run's best (portability refuses a run
	// none of whose configurations is well-performing), so that the counts are worked
	// out by hand from the stored times whatever the two runs measured
	both := math.Max(fastest[1], fastest[2])
	withinBoth := min(within, math.Min(fastest[1], fastest[2])/both*(1-1e-9))
	out, errOut, code = ktune(t, "portability", "--run", "1,2", "--db", db, "--within-peak", strconv.FormatFloat(withinBoth, 'g', -1, 64),
		"--peaks", pf, "--peak-gbs", fmt.Sprint(both), "--json")
	if code != 0 {
		t.Fatalf("portability --peaks --peak-gbs: exit %d: %s", code, errOut)
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	for i, run := range []int64{1, 2} {
		well := 0
		for _, v := range gbs[run] {
			if v/both >= withinBoth {
				well++
			}
		}
		if a := doc.Amortization[i]; a.Well != well {
			t.Errorf("with --peak-gbs, run %d: %d well, by hand %d", run, a.Well, well)
		}
	}
}

// TestTunePeaksFileGivesTheDevicesPeak tunes with a peaks file: the summary's efficiency
// is against the file's peaks of the tuned device, and a file that does not name the
// device is refused before anything is measured.
func TestTunePeaksFileGivesTheDevicesPeak(t *testing.T) {
	needBackend(t, "opencl")
	specPath := copyEfficiencySpec(t, "")
	db := filepath.Join(t.TempDir(), "k.db")
	pf := writePeaksFile(t, "\"opencl:1\": {gbs: 7.5, gflops: {float32: 40, float64: 20}}\n\"opencl:0\": {gbs: 3}\n")
	var rep efficiencyJSON
	out := tuneOnPoCLDevice(t, specPath, db, 1, "--peaks", pf)
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("tune --json: %v\n%s", err, out)
	}
	e := rep.Efficiency
	if e == nil || e.Peaks == nil || e.Peaks.GBs != 7.5 || e.Peaks.GFLOPS != 40 || !strings.Contains(e.Peaks.GBsFrom, `device "opencl:1"`) || e.Best == nil {
		t.Fatalf("tune --peaks: efficiency %+v, want opencl:1's peaks 7.5 GB/s and 40 GFLOP/s from the file", e)
	}
	want := 100 * 12 * 262144 / (*rep.BestTimeMS / 1e3) / 1e9 / 7.5
	if math.Abs(*e.Best.MemoryPercent-want) > 1e-9*want {
		t.Errorf("memory share %v%%, by hand %v%%", *e.Best.MemoryPercent, want)
	}
	other := writePeaksFile(t, "\"gfx90a\": {gbs: 1600}\n")
	_, errOut, code := ktune(t, "tune", specPath, "--device", "opencl", "--budget", "4", "--db", db, "--peaks", other)
	if code == 0 || !strings.Contains(errOut, `names no device`) || !strings.Contains(errOut, `"gfx90a"`) {
		t.Errorf("tune with a peaks file lacking the device: exit %d, %s", code, errOut)
	}
	if _, errOut, code := ktune(t, "tune", specPath, "--peaks", filepath.Join(t.TempDir(), "none.yaml"), "--db", db); code == 0 || !strings.Contains(errOut, "none.yaml") {
		t.Errorf("tune with a missing peaks file: exit %d, %s", code, errOut)
	}
}
