package t4_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
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
	// what ktune's export adds, well formed and not
	`{"schema_version": "1.0.0", "metadata": {"tune_params": {"X": [1, 2, 3]}}, "results": [
{"configuration": {"X": 1}, "times": {}, "invalidity": "correct", "correctness": 1, "measurements": [{"name": "time", "value": 1, "unit": ""}], "objectives": ["time"],
 "ktune_runs_per_sample": 2, "ktune_launch": {"grid": [8, 1, 1], "block": [16, 4, 1]}},
{"configuration": {"X": 2}, "times": {}, "invalidity": "correct", "correctness": 1, "measurements": [{"name": "time", "value": 1, "unit": ""}], "objectives": ["time"],
 "ktune_runs_per_sample": -1, "ktune_launch": {"grid": [8, 1, 1]}},
{"configuration": {"X": 3}, "times": {}, "invalidity": "correct", "correctness": 1, "measurements": [{"name": "time", "value": 1, "unit": ""}], "objectives": ["time"],
 "ktune_runs_per_sample": true, "ktune_launch": {"grid": [8, 1.5, 1], "block": "x"}}]}`,
}

// codec is the T4 format's readers and writer, as the fuzz tests exercise them.
var codec = formattest.Codec{Read: t4.Read, ReadWithDecoder: t4.ReadWithDecoder, Write: t4.Write}

func FuzzRead(f *testing.F) {
	codec.Fuzz(f, append(append([]string{}, fuzzSeeds...), cornerSeeds...), nil)
}

// Files with the corners the fast reader must agree on: metadata twice (and after the
// results), a second results array, a null result, escapes, unknown members, warnings
// that name lines, and errors found while decoding and while building.
var cornerSeeds = []string{
	`{"results": [{"configuration": {"X": 1}, "invalidity": "correct", "measurements": [{"name": "t", "value": 2}]},
  {"configuration": {"X": 3}, "invalidity": "correct", "measurements": [{"name": "t", "value": "oops"}]}],
 "metadata": {"timeunit": "s", "tune_params": {"X": [1]}, "restrictions": ["X > 0"]}, "extra": [1, {"x": null}],
 "metadata": {"objective": "t", "device": "D\u00e9", "restrictions": ["X < 9"]}, "schema_version": "1.0"}`,
	`{"schema_version": "1.0.0", "results": [], "results": [{"configuration": {"X": 1}, "invalidity": "correct", "measurements": [{"name": "time", "value": 1}]}]}`,
	`{"schema_version": "1.0.0", "results": [null]}`,
	`{"schema_version": "1.0.0", "results": [{"configuration": {"X": 1}, "invalidity": "correct", "measurements": [{"name": "time", "value": 1}]},
  {"configuration": {"X": 2}, "invalidity": "broken", "measurements": []}, {"configuration": [2]}]}`,
	`{"schema_version": "1.0.0", "metadata": {"timeunit": "fortnights"}, "results": [{"configuration": {"X": 1}, "invalidity": "correct"}]}`,
	`{"schema_version": "2.0.0", "results": []}`,
	`{"metadata": {}, "results": [{"Configuration": {"X": 1}, "INVALIDITY": "correct", "measurements": [{"name": "time", "value": 1}], "measurements": [{"name": "time", "value": 2}]}]}`,
	`{"metadata": {"tune_params": {"X": [1], "X": [2]}}, "results": []}`,
}

// The fast reader reads the T4 files in testdata by itself, and every file and corner case
// to the same recording, warnings or error as the decoder-based reader.
func TestFastReaderMatchesTheDecoder(t *testing.T) {
	var inputs [][]byte
	files, _ := filepath.Glob("../../testdata/benchmark_hub/*/*_T4.json.gz")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !t4.ReadsFast(bytes.NewReader(data)) {
			t.Errorf("%s: the fast reader gave up", f)
		}
		inputs = append(inputs, data)
	}
	if len(inputs) < 1 {
		t.Fatal("no T4 file in testdata")
	}
	for _, s := range append(append([]string{}, fuzzSeeds...), cornerSeeds...) {
		inputs = append(inputs, []byte(s))
		if strings.Contains(s, "NaN") {
			continue
		}
		// Python's NaN aside, every seed is JSON: the same content written again
		var b bytes.Buffer
		if err := json.Indent(&b, []byte(s), "", "\t"); err != nil {
			t.Fatalf("seed %.40q: %v", s, err)
		}
		inputs = append(inputs, b.Bytes())
	}
	for i, data := range inputs {
		if _, d := codec.Disagree(data, "x.json"); d != "" {
			t.Errorf("input %d: %s", i, d)
		}
	}
}
