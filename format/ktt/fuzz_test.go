package ktt_test

import (
	"bytes"
	"compress/gzip"
	"math"
	"testing"

	"github.com/ktune/ktune/format/ktt"
)

// Seeds are cut from testdata's coulomb_sum_3d and ktt_pnpoly outputs.
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
	`{"Metadata": {"Device": "NVIDIA GeForce RTX 2080 Ti", "TimeUnit": "Microseconds"}, "Results": [
{"ComputationResults": [], "Configuration": [{"Name": "VERTICES", "Value": 600, "ValueType": "UnsignedInt"}, {"Name": "F", "Value": 1.5, "ValueType": "Double"}],
 "DataMovementOverhead": 8595.331, "KernelName": "Pnpoly", "SearcherOverhead": 39.92, "Status": "ComputationFailed", "TotalDuration": 0.0}]}`,
}

func FuzzRead(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write([]byte(s))
		zw.Close()
		f.Add(b.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rec, err := ktt.Read(bytes.NewReader(data), "fuzz.json")
		if err != nil {
			return
		}
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
