package t4

import (
	"testing"

	"github.com/ktune/ktune/format/internal/formattest"
)

// Results with the corners scanResult must decode as encoding/json does, or give up on.
var scanCorners = []struct {
	src     string
	givesUp bool
}{
	{`{"configuration": {"X": 1, "Y": "a\u00e9", "Z": true, "X": null}, "times": {}, "invalidity": "correct", "correctness": 1,
	  "measurements": [{"name": "time", "value": 1.5e3, "unit": "ms", "extra": [1, {"a": {}}]}, null, {}], "objectives": ["time", 2, null, [], {}],
	  "ktune_message": "m\n", "ktune_status": null, "timestamp": "2024-01-01T00:00:00Z"}`, false},
	{`{"configuration": null, "times": null, "measurements": null, "objectives": null, "correctness": -0.0e-1}`, false},
	{`{"measurements": [], "objectives": [], "unknown": {"times": 1}, "TIMES_": 2}`, false},
	{`null`, false},
	{`{"measurements": [{"name": null, "unit": null, "value": "\ud800"}]}`, false},
	{`{"\u0074imes": {"a": 1}}`, false},
	{`{"Times": {}}`, true},                                      // encoding/json matches it by case folding
	{`{"invalidity": "correct", "invalidity": "runtime"}`, true}, // twice
	{`{"measurements": [{"Name": "time"}]}`, true},
	{`{"measurements": [{"name": "time", "name": "t"}]}`, true},
	{`{"measurements": [{"name": 5}]}`, true},    // a type error
	{`{"measurements": {"name": "time"}}`, true}, // a type error
	{`{"measurements": [5]}`, true},
	{`{"configuration": [1]}`, true}, // Object.UnmarshalJSON's error
	{`{"configuration": "x"}`, true},
	{`{"objectives": "time"}`, true},
	{`[1]`, true},
	{`{"kelvin": 1, "\u212aTUNE_STATUS": 1}`, true}, // the Kelvin sign folds to k
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
	elems, err := formattest.Elements("../../testdata/benchmark_hub/convolution_milo/A100_T4.json.gz", "results")
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range elems {
		scanned, err := formattest.ScanAgrees([]byte(e), scanResult)
		if err != nil || !scanned {
			t.Fatalf("result %d: scanned %v: %v", i, scanned, err)
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

// Scanning the results of the benchmark hub's convolution T4 file one after another, on one
// core: the part of reading that scanResult does, for comparing versions of it:
// go test -run '^$' -bench ScanResult -benchmem ./format/t4
func BenchmarkScanResult(b *testing.B) {
	formattest.BenchmarkScan(b, "../../testdata/benchmark_hub/convolution_milo/A100_T4.json.gz", "results", scanResult)
}
