package t4_test

import (
	"bytes"
	"compress/gzip"
	"testing"

	"github.com/ktune/ktune/format/internal/formattest"
	"github.com/ktune/ktune/format/t4"
)

// Seeds are cut from benchmark_hub's A100_T4.json.gz and shaped like KTT's T4 output.
var fuzzSeeds = []string{
	`{
  "metadata": {"timeunit": "miliseconds"},
  "results": [
    {"timestamp": "2023-12-22 09:54:05.502007+00:00",
      "configuration": {"block_size_x": 16, "block_size_y": 1, "read_only": 0},
      "times": {"compilation": 918.5990339610726, "framework": 105.24242906831205, "search_algorithm": 0, "validation": 0,
        "runtimes": [3.976191997528076, 3.8789119720458984]},
      "invalidity": "correct", "correctness": 1,
      "measurements": [{"name": "time", "value": 3.8753279224038124, "unit": ""}],
      "objectives": ["time"]},
    {"timestamp": "2023-12-22 13:17:23.719843+00:00",
      "configuration": {"block_size_x": 32, "block_size_y": 4, "read_only": 1},
      "times": {"compilation": 8965.449352981523, "framework": 2.0405638497322798, "search_algorithm": 0, "validation": 0},
      "invalidity": "runtime", "correctness": 0,
      "measurements": [{"name": "time", "value": "RuntimeFailedConfig", "unit": ""}],
      "objectives": ["time"]}
  ],
  "schema_version": "1.0.0"
}`,
	`{"schema_version": "1.0.0", "metadata": {"timeunit": "microseconds", "device": "GPU", "tune_params": {"X": [1, 2.5, true, "s"]}, "objective": "time", "maximize": false},
"results": [{"configuration": {"X": 2.5}, "times": {"compilation_time": 2000, "runtimes": [1500], "data": 30, "profiling_runs": 0},
"invalidity": "correct", "correctness": 1, "measurements": [{"name": "time", "value": 1000, "unit": ""}, {"name": "dram__sectors_read.sum", "type": "Double", "value": 2112507.0, "unit": ""}], "objectives": ["time"]},
{"configuration": {"X": "s"}, "times": {}, "invalidity": "constraints", "correctness": 1, "measurements": [{"name": "time", "value": NaN}]}]}`,
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
		rec, err := t4.Read(bytes.NewReader(data), "fuzz.json")
		if err != nil {
			return
		}
		var b bytes.Buffer
		if err := t4.Write(&b, rec); err != nil {
			t.Fatalf("Write of a recording Read accepted: %v", err)
		}
		back, err := t4.Read(&b, "fuzz.json")
		if err != nil {
			t.Fatalf("Read of what Write wrote: %v\n%s", err, b.String())
		}
		if d := formattest.Diff(rec, back); d != "" {
			t.Fatalf("round trip differs:\n%s\n%s", d, b.String())
		}
	})
}
