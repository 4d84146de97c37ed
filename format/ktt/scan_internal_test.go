package ktt

import (
	"path/filepath"
	"testing"

	"github.com/ktune/ktune/format/internal/formattest"
)

// Results with the corners scanResult must decode as encoding/json does, or give up on.
var scanCorners = []struct {
	src     string
	givesUp bool
}{
	{`{"ComputationResults": [{"CompilationData": {"RegistersCount": 66, "X": [1, {"a": null}], "RegistersCount": 67}, "Duration": 3037.408,
	   "GlobalSize": {"X": 16}, "KernelFunction": "k\u00e9", "Overhead": 28046.229, "CompilationOverhead": null,
	   "ProfilingData": {"Counters": [{"Name": "c", "Type": "Double", "Value": 6.5}, null, {"Value": "x"}], "RemainingProfilingRuns": 0},
	   "PowerUsage": 1e2, "EnergyConsumption": -0}, null, {}],
	  "Configuration": [{"Name": "A", "Value": 16, "ValueType": "UnsignedInt"}, {"Name": "B", "Value": 1.5, "ValueType": null}, null],
	  "DataMovementOverhead": 45836.648, "ExtraDuration": 0.0, "KernelName": "kern", "SearcherOverhead": null, "Status": "Ok",
	  "TotalDuration": 3037.408, "TotalOverhead": 1112883.958, "ValidationOverhead": 10.363, "ProfilingRunsOverhead": 1, "ProfilingOverhead": 2,
	  "Timestamp": "2024-08-12 11:26:23 UTC", "Extra": {"Status": 1}}`, false},
	{`{"ComputationResults": [{"ProfilingData": null, "CompilationData": null, "Duration": null}], "Configuration": [], "TotalDuration": null}`, false},
	{`{"ComputationResults": [{"ProfilingData": {}, "CompilationData": {}}], "Configuration": null, "ComputationResults": null}`, true}, // twice
	{`{"ComputationResults": [{"ProfilingData": {"Counters": null}}]}`, false},
	{`{"ComputationResults": [{"ProfilingData": {"Counters": []}}]}`, false},
	{`null`, false},
	{`{"\u0053tatus": "Ok"}`, false},
	{`{"status": "Ok"}`, true}, // encoding/json matches it by case folding
	{`{"Configuration": [{"name": "A"}]}`, true},
	{`{"ComputationResults": [{"duration": 1}]}`, true},
	{`{"ComputationResults": [{"ProfilingData": {"counters": []}}]}`, true},
	{`{"ComputationResults": [{"ProfilingData": {"Counters": [{"NAME": "c"}]}}]}`, true},
	{`{"TotalDuration": "1"}`, true},   // a type error
	{`{"TotalDuration": 1e400}`, true}, // beyond a float64
	{`{"Overhead": 1, "ExtraDuration": true}`, true},
	{`{"Status": 1}`, true},
	{`{"Configuration": {}}`, true},
	{`{"ComputationResults": [{"CompilationData": [1]}]}`, true},
	{`{"ComputationResults": [{"ProfilingData": []}]}`, true},
	{`{"ComputationResults": [1]}`, true},
	{`"Ok"`, true},
}

func TestScanResultDecodesAsEncodingJSON(t *testing.T) {
	for _, c := range scanCorners {
		scanned, err := formattest.ScanAgrees([]byte(c.src), scanResult)
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
		}
		if scanned == c.givesUp {
			t.Errorf("%s: scanned %v, want %v", c.src, scanned, !c.givesUp)
		}
	}
	files, _ := filepath.Glob("../../testdata/ktt/*/*.json.gz")
	more, _ := filepath.Glob("../../testdata/benchmark_hub/ktt_*/*.json.gz")
	files = append(files, more...)
	if len(files) < 2 {
		t.Fatalf("only %d KTT files in testdata", len(files))
	}
	for _, f := range files {
		elems, err := formattest.Elements(f, "Results")
		if err != nil {
			t.Fatal(err)
		}
		for i, e := range elems {
			scanned, err := formattest.ScanAgrees([]byte(e), scanResult)
			if err != nil || !scanned {
				t.Fatalf("%s: result %d: scanned %v: %v", f, i, scanned, err)
			}
		}
	}
}

func FuzzScanResult(f *testing.F) {
	for _, c := range scanCorners {
		f.Add([]byte(c.src))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := formattest.ScanAgrees(data, scanResult); err != nil {
			t.Fatal(err)
		}
	})
}

// Scanning the results of the benchmark hub's pnpoly KTT output one after another, on one
// core: the part of reading that scanResult does, for comparing versions of it:
// go test -run '^$' -bench ScanResult -benchmem ./format/ktt
func BenchmarkScanResult(b *testing.B) {
	formattest.BenchmarkScan(b, "../../testdata/benchmark_hub/ktt_pnpoly/RTX_2080_Ti.json.gz", "Results", scanResult)
}
