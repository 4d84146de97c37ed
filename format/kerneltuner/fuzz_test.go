package kerneltuner_test

import (
	"strings"
	"testing"

	"github.com/ktune/ktune/format/internal/formattest"
	"github.com/ktune/ktune/format/kerneltuner"
)

// Seeds are cut from the real files in testdata.
var fuzzSeeds = []string{
	`{
"device_name": "NVIDIA RTX A4000",
"kernel_name": "vector_add",
"problem_size": 100,
"tune_params_keys": ["block_size_x"],
"tune_params": {"block_size_x": [128, 192]},
"cache": {
"128": {"block_size_x": 128, "time": 0.04073600071881499, "times": [0.1268800050020218, 0.031072000041604042], "compile_time": 440.9545585513115, "verification_time": 0, "benchmark_time": 1.091592013835907, "strategy_time": 0, "framework_time": 0.8587837219238281, "timestamp": "2022-12-23 12:11:26.411558+00:00"},
"192": {"block_size_x": 192, "time": "RuntimeFailedConfig", "compile_time": 436.15153804421425, "verification_time": 0, "benchmark_time": 1.0972395539283752, "strategy_time": 0, "framework_time": 1.6656816005706787}
}
}`,
	`{"device_name": "NVIDIA RTX A4000", "kernel_name": "vector_add", "tune_params_keys": ["block_size_x", "test_string", "test_bool", "test_mixed"], "tune_params": {"block_size_x": [128], "test_string": ["alg_1", "alg_2"], "test_bool": [true, false], "test_mixed": ["test", 1, true, 2.45]}, "cache": {
"128,alg_2,True,2.45": {"block_size_x": 128, "test_string": "alg_2", "test_bool": true, "test_mixed": 2.45, "time": 0.04073600071881499, "GFLOP/s": 12.5},`,
	`{"problem_size": [4096, 4096], "tune_params_keys": ["a", "b"], "tune_params": {"a": [1, 2], "b": [0.5, 1.0]}, "objective": "GFLOP/s", "cache": {
"1,0.5": {"a": 1, "b": 0.5, "time": 1e20, "__error__": "CompilationFailedConfig"},
"2,1.0": {"a": 2, "b": 1.0, "time": NaN, "GFLOP/s": 3.5, "ktune_status": "timeout", "ktune_message": "x"}`,
}

// Well-formed files with the corners of JSON that the fast reader decodes itself or hands
// to encoding/json: escapes, duplicate members, nesting, mixed arrays, numbers out of
// range, invalid UTF-8.
var fastSeeds = []string{
	`{"tune_params_keys": ["a", "b"], "tune_params": {"a": [1, 2], "b": ["x", "y\u00e9"]}, "objective": "time", "cache": {
"1,x": {"a": 1, "b": "x", "time": 1.5, "times": [1.5, 1e400, null, 2], "GFLOP/s": -0, "nested": {"k": [1, {"z": null}]}, "time": 2.5},
"2,y\u00e9": {"a": 2, "b": "y\u00e9", "t\u0069me": 3, "times": [], "flag": true, "list": [1, "two"], "ktune_status": "timeout"},
"1.0,y\u00e9": {"a": 1.0, "b": "y\u00e9", "time": "CompilationFailedConfig", "timestamp": "2023-01-26 19:47:39.876766+00:00"}
}, "device_name": "dev\"ice", "kernel_name": null, "problem_size": "[1, 2]", "cache": {}}`,
	"{\"tune_params_keys\": [\"a\"], \"cache\": {\"1\": {\"a\": 1, \"time\": 1, \"note\": \"\xff\xfe\"}}}",
	`{"tune_params_keys": ["a"], "tune_params": {"a": [1]}, "cache": {"1": {"a": 1, "time": 1}, "1": {"a": 1, "time": 0.5}}}`,
	`{"tune_params_keys": ["a"], "tune_params": {"a": [2, 3]}, "cache": {"2": {"a": 2, "time": 1e20}, "3": {"time": 4}}}`,
	` {"cache": {}, "tune_params": {"a": [1]}} `,
	`{"tune_params_keys": ["a"], "tune_params": {"a": [1, 2, 3, 4]}, "cache": {"1": {"a": 1, "time": true}, "2": {"a": 2, "time": -0.5, "times": [1, NaN, 1e999]},
"3": {"a": "3", "time": 123456789012345678901234567890}, "4": {"a": 4, "time": 0, "timestamp": "x"}}}`,
	// what ktune's export adds, well formed and not
	`{"tune_params_keys": ["a"], "tune_params": {"a": [1, 2, 3, 4]}, "cache": {"1": {"a": 1, "time": 1, "ktune_runs_per_sample": 3, "ktune_launch": {"grid": [4, 1, 1], "block": [32, 2, 1]}},
"2": {"a": 2, "time": 1, "ktune_runs_per_sample": 0, "ktune_launch": {"grid": [4, 1], "block": [32, 2, 1]}}, "3": {"a": 3, "time": 1, "ktune_runs_per_sample": "2", "ktune_launch": {"grid": [4, 1, 1e400], "block": [32, -2, 1.5]}},
"4": {"a": 4, "time": 1, "ktune_runs_per_sample": [1], "ktune_launch": [[1, 1, 1], [1, 1, 1]]}}}`,
}

// The fast reader and the decoder-based one give the same recording, warnings and errors.
func TestFastReaderMatchesTheDecoderOnCornerCases(t *testing.T) {
	// nesting one past encoding/json's limit of 10,000 (the top object, the cache and the
	// entry count too), and one within it
	deep := func(n int) string {
		return `{"tune_params_keys": ["a"], "cache": {"1": {"a": 1, "time": 1, "deep": ` +
			strings.Repeat("[", n) + strings.Repeat("]", n) + `}}}`
	}
	corners := append(append([]string{}, fastSeeds...), fuzzSeeds...)
	corners = append(corners, deep(9998), deep(9997))
	for i, s := range corners {
		if _, d := codec.Disagree([]byte(s), "corner.json"); d != "" {
			t.Errorf("case %d: %s", i, d)
		}
		if i < len(fastSeeds) && !kerneltuner.ReadsFast(strings.NewReader(s)) {
			t.Errorf("case %d: the fast reader gave up", i)
		}
	}
}

// codec is the Kernel Tuner format's readers and writer, as the fuzz tests exercise them.
var codec = formattest.Codec{Read: kerneltuner.Read, ReadWithDecoder: kerneltuner.ReadWithDecoder, Write: kerneltuner.Write}

func FuzzRead(f *testing.F) {
	codec.Fuzz(f, append(append([]string{}, fuzzSeeds...), fastSeeds...), nil)
}
