package ktt_test

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/ktune/ktune/format/internal/formattest"
	"github.com/ktune/ktune/format/ktt"
	"github.com/ktune/ktune/result"
)

// Seeds are cut from testdata's coulomb_sum_3d and ktt_pnpoly outputs, and an OpenCL run's
// launches of work-items (one not a multiple of its work-group size).
var fuzzSeeds = []string{
	`{
  "Metadata": {"ComputeApi": "CUDA", "Device": "NVIDIA GeForce RTX 2080 Ti", "GlobalSizeType": "CUDA", "KttVersion": "2.1.0",
    "Platform": "NVIDIA CUDA", "TimeUnit": "Microseconds", "Timestamp": "2024-08-12 11:26:23 UTC"},
  "Results": [
    {"ComputationResults": [
        {"CompilationData": {"ConstantMemorySize": 0, "LocalMemorySize": 0, "MaxWorkGroupSize": 896, "PrivateMemorySize": 0, "RegistersCount": 66},
          "Duration": 3037.408, "GlobalSize": {"X": 16, "Y": 64, "Z": 256}, "KernelFunction": "directCoulombSum",
          "LocalSize": {"X": 16, "Y": 4, "Z": 1}, "Overhead": 28046.229,
          "ProfilingData": {"Counters": [{"Name": "dram__throughput.avg.pct_of_peak_sustained_elapsed", "Type": "Double", "Value": 6.515303129123792},
            {"Name": "dram__sectors_read.sum", "Type": "Double", "Value": 2100194.0}], "RemainingProfilingRuns": 0}}],
      "Configuration": [{"Name": "WORK_GROUP_SIZE_X", "Value": 16, "ValueType": "UnsignedInt"}, {"Name": "USE_SOA", "Value": 0, "ValueType": "UnsignedInt"}],
      "DataMovementOverhead": 45836.648, "ExtraDuration": 0.0, "KernelName": "directCoulombSum_kernel", "SearcherOverhead": 35.744,
      "Status": "Ok", "TotalDuration": 3037.408, "TotalOverhead": 1112883.958, "ValidationOverhead": 10.363}
  ]
}`,
	`{"Metadata": {"ComputeApi": "OpenCL", "GlobalSizeType": "OpenCL", "TimeUnit": "Nanoseconds"}, "Results": [
{"ComputationResults": [{"KernelFunction": "k", "Duration": 500, "Overhead": 0, "GlobalSize": {"X": 1024, "Y": 8, "Z": 1}, "LocalSize": {"X": 64, "Y": 2, "Z": 1}}],
 "Configuration": [{"Name": "WG", "Value": 64, "ValueType": "UnsignedInt"}], "Status": "Ok"},
{"ComputationResults": [{"KernelFunction": "k", "Duration": 700, "Overhead": 0, "GlobalSize": {"X": 1000, "Y": 8, "Z": 1}, "LocalSize": {"X": 48, "Y": 2, "Z": 1}}],
 "Configuration": [{"Name": "WG", "Value": 48, "ValueType": "UnsignedInt"}], "Status": "Ok"}]}`,
	`{"Metadata": {"Device": "NVIDIA GeForce RTX 2080 Ti", "TimeUnit": "Microseconds"}, "Results": [
{"ComputationResults": [], "Configuration": [{"Name": "VERTICES", "Value": 600, "ValueType": "UnsignedInt"}, {"Name": "F", "Value": 1.5, "ValueType": "Double"}],
 "DataMovementOverhead": 8595.331, "KernelName": "Pnpoly", "SearcherOverhead": 39.92, "Status": "ComputationFailed", "TotalDuration": 0.0}]}`,
}

// codec is the KTT format's readers and writer, as the fuzz tests exercise them.
var codec = formattest.Codec{Read: ktt.Read, ReadWithDecoder: ktt.ReadWithDecoder, Write: ktt.Write}

func FuzzRead(f *testing.F) {
	codec.Fuzz(f, append(append([]string{}, fuzzSeeds...), cornerSeeds...), func(t *testing.T, rec *result.Recording) {
		for i, e := range rec.Evaluations {
			if len(e.Config) != len(rec.Params) {
				t.Fatalf("evaluation %d has %d values for %d params", i, len(e.Config), len(rec.Params))
			}
			if !e.Failed() && (math.IsInf(e.Objective, 0) || e.Objective != e.Objective) {
				t.Fatalf("evaluation %d: OK with objective %v", i, e.Objective)
			}
		}
	})
}

// Files with the corners the fast reader must agree on: duplicate members, a null result,
// escapes, unknown members, and a second Results array.
var cornerSeeds = []string{
	`{"Metadata": {"TimeUnit": "Microseconds"}, "Metadata": {"Device": "D\u00e9"}, "Extra": [1, {"x": null}], "Results": [null,
{"Configuration": [{"Name": "A", "Value": 1, "ValueType": "UnsignedInt"}], "Status": "Ok", "TotalDuration": 2,
 "ComputationResults": [{"KernelFunction": "k", "Duration": 2, "ProfilingData": {"Counters": [{"Name": "c", "Type": "Double", "Value": 1e400}]}}]}]}`,
	`{"Metadata": {"TimeUnit": "Seconds"}, "Results": [], "Results": [{"Configuration": [], "Status": "Ok"}]}`,
	`{"Results": [{"Status": "Ok"}], "Metadata": null}`,
	`{"Metadata": {"TimeUnit": "Seconds"}, "Results": [1]}`,
}

// The fast reader reads the KTT files in testdata by itself, and every file and corner case
// to the same recording, warnings or error as the decoder-based reader.
func TestFastReaderMatchesTheDecoder(t *testing.T) {
	var inputs [][]byte
	for _, pattern := range []string{"../../testdata/ktt/*/*.json.gz", "../../testdata/benchmark_hub/ktt_*/*.json.gz"} {
		files, _ := filepath.Glob(pattern)
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if !ktt.ReadsFast(bytes.NewReader(data)) {
				t.Errorf("%s: the fast reader gave up", f)
			}
			inputs = append(inputs, data)
		}
	}
	if len(inputs) < 2 {
		t.Fatalf("only %d KTT files in testdata", len(inputs))
	}
	for _, s := range append(append([]string{}, fuzzSeeds...), cornerSeeds...) {
		inputs = append(inputs, []byte(s))
	}
	for i, data := range inputs {
		if _, d := codec.Disagree(data, "x.json"); d != "" {
			t.Errorf("input %d: %s", i, d)
		}
	}
}
