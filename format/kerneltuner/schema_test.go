package kerneltuner_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ktune/ktune/format"
	"github.com/ktune/ktune/format/internal/formattest"
	"github.com/ktune/ktune/format/kerneltuner"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
)

// loadCacheSchema reads Kernel Tuner's cache schema 1.0.0 (testdata/README.md).
func loadCacheSchema(t *testing.T) *formattest.Validator {
	t.Helper()
	data, err := os.ReadFile("testdata/cache-schema-1.0.0.json")
	if err != nil {
		t.Fatal(err)
	}
	v, err := formattest.NewValidator(data)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// violations validates a document against the cache schema.
func violations(t *testing.T, v *formattest.Validator, data []byte) []string {
	t.Helper()
	doc, err := formattest.DecodeJSON(data)
	if err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	return v.Validate(doc)
}

// The validator must reject what the cache schema forbids, or passing means nothing.
func TestSchemaValidatorRejectsCacheViolations(t *testing.T) {
	v := loadCacheSchema(t)
	const head = `"schema_version": "1.0.0", "device_name": "d", "kernel_name": "k", "tune_params_keys": ["a"], "tune_params": {"a": [1]}, "objective": "time"`
	const timings = `"compile_time": 1, "verification_time": 0, "benchmark_time": 2, "framework_time": 0.5`
	tests := []struct {
		name string
		doc  string
		want string
	}{
		{"valid", `{` + head + `, "problem_size": [4], "cache": {"1": {"time": 1.5, ` + timings + `, "strategy_time": 0, "timestamp": "2023-12-22T13:17:23.719843+00:00"}}}`, ""},
		{"no strategy time", `{` + head + `, "problem_size": [4], "cache": {"1": {"time": 1.5, ` + timings + `, "timestamp": "2023-12-22T13:17:23+00:00"}}}`,
			`$.cache.1: lacks required property "strategy_time"`},
		{"str(datetime)", `{` + head + `, "problem_size": [4], "cache": {"1": {"time": 1.5, ` + timings + `, "strategy_time": 0, "timestamp": "2023-12-22 13:17:23+00:00"}}}`,
			"not an RFC 3339 date-time"},
		{"float key", `{` + head + `, "problem_size": [4], "cache": {"1.5": {"time": 1.5}}}`, `"1.5" does not match`},
		{"no problem size", `{` + head + `, "cache": {}}`, `lacks required property "problem_size"`},
		{"named problem size", `{` + head + `, "problem_size": "num_blocks", "cache": {}}`, "$.problem_size: is string, want type array"},
		{"time of another type", `{` + head + `, "problem_size": [4], "cache": {"1": {"time": [1], ` + timings + `, "strategy_time": 0, "timestamp": "2023-12-22T13:17:23+00:00"}}}`,
			"$.cache.1.time: anyOf"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := violations(t, v, []byte(tt.doc))
			got := strings.Join(errs, "\n")
			if (tt.want == "") != (len(errs) == 0) || !strings.Contains(got, tt.want) {
				t.Errorf("violations %q, want one containing %q", got, tt.want)
			}
		})
	}
}

// ktuneRun is a recording as the store gives back a ktune tuning run: every timing (the
// strategy's included), nanosecond timestamps, the time beside a metric objective, and
// failures of several kinds.
func ktuneRun() *result.Recording {
	at := time.Date(2026, 11, 26, 16, 51, 15, 259656039, time.UTC)
	rec := &result.Recording{Format: "ktune", Device: "pthread-cpu", Kernel: "transpose", ProblemSize: "[1000,700]",
		Objective: "GB/s", Maximize: true,
		Params: []space.Param{{Name: "block_size_x", Values: []space.Value{space.IntValue(8), space.IntValue(16), space.IntValue(8192)}}}}
	for i, st := range []result.Status{result.OK, result.CompileError, result.DeviceLimit} {
		e := result.Evaluation{Config: []space.Value{rec.Params[0].Values[i]}, Status: st, Objective: math.NaN(),
			CompileMS: 151, VerifyMS: 2.5, BenchmarkMS: 10, FrameworkMS: 0.5, StrategyMS: 0.03125, Time: at.Add(time.Duration(i) * time.Second)}
		// measured on two devices; the device limit, refused before compiling, on none
		e.Device = []string{"opencl:1", "opencl:0", ""}[i]
		// a configuration's launch, whether or not it ran; runs per sample of a measurement
		e.Launch = &result.Launch{Grid: [3]int{125, 88, 1}, Block: [3]int{int(rec.Params[0].Values[i].Int()), 8, 1}}
		if st == result.OK {
			e.RunsPerSample = 4
		}
		switch st {
		case result.OK:
			e.Objective, e.Samples = 6.8068, []float64{0.82271, 0.9, 1.0279}
			e.Metrics = map[string]float64{"time": 0.82271}
		case result.CompileError:
			e.BenchmarkMS, e.VerifyMS, e.Message = math.NaN(), math.NaN(), "error: expected ';'"
		case result.DeviceLimit:
			e.CompileMS, e.BenchmarkMS, e.Message = math.NaN(), math.NaN(), "block size 8192 exceeds the device's maximum of 4096"
		}
		rec.Evaluations = append(rec.Evaluations, e)
	}
	return rec
}

// What Write produces conforms to Kernel Tuner's cache schema 1.0.0, for ktune's own runs
// (which lacked strategy_time), runs stored before ktune recorded the strategy's time, and
// every format ktune reads. The one exception is Kernel Tuner's own: a problem size over
// the parameters, written as Kernel Tuner writes it, is no array of integers.
func TestWriteOutputValidatesAgainstTheCacheSchema(t *testing.T) {
	v := loadCacheSchema(t)
	open := func(path string) *result.Recording {
		rec, err := format.Open(filepath.Join(testdata, path))
		if err != nil {
			t.Fatal(err)
		}
		return rec
	}
	before := ktuneRun()
	for i := range before.Evaluations {
		before.Evaluations[i].StrategyMS = math.NaN()
	}
	named := ktuneRun()
	named.ProblemSize = "num_blocks"
	for _, tt := range []struct {
		name string
		rec  *result.Recording
		want string // the one violation expected
	}{
		{"a ktune run", ktuneRun(), ""},
		{"a run stored before strategy times", before, ""},
		{"a problem size over the parameters", named, "$.problem_size: is string, want type array"},
		{"Kernel Tuner cache", open("kernel_tuner/vector_add_A4000.json"), ""},
		{"T4", open("benchmark_hub/convolution_milo/A100_T4.json.gz"), ""},
		{"KTT", open("ktt/coulomb_sum_3d/RTX_2080_Ti.json.gz"), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := kerneltuner.Write(&b, tt.rec); err != nil {
				t.Fatal(err)
			}
			errs := violations(t, v, b.Bytes())
			if got := strings.Join(errs, "\n"); (tt.want == "" && len(errs) > 0) || (tt.want != "" && (len(errs) != 1 || !strings.Contains(got, tt.want))) {
				t.Errorf("violations:\n%s\nwant %q", got, tt.want)
			}
		})
	}
}

// The strategy's time is written as strategy_time and reads back; unknown (a run stored
// before ktune recorded it, or a file without it), it is 0 named in ktune_unrecorded and
// reads back unknown.
func TestWriteKeepsTheStrategysTime(t *testing.T) {
	for _, known := range []bool{true, false} {
		rec := ktuneRun()
		if !known {
			for i := range rec.Evaluations {
				rec.Evaluations[i].StrategyMS = math.NaN()
			}
		}
		_, written := header(t, rec)
		var doc struct {
			Cache map[string]map[string]any `json:"cache"`
		}
		if err := json.Unmarshal(written, &doc); err != nil {
			t.Fatal(err)
		}
		for key, e := range doc.Cache {
			unrecorded := fmt.Sprint(e["ktune_unrecorded"])
			if want := map[bool]float64{true: 0.03125, false: 0}[known]; e["strategy_time"] != want ||
				strings.Contains(unrecorded, "strategy_time") == known {
				t.Errorf("known %v: entry %s: strategy_time %v, ktune_unrecorded %s", known, key, e["strategy_time"], unrecorded)
			}
		}
		back := roundTrip(t, rec)
		want := *rec
		want.Format = kerneltuner.Name
		// timestamps are written to the microsecond
		for i := range want.Evaluations {
			want.Evaluations[i].Time = want.Evaluations[i].Time.Truncate(time.Microsecond)
		}
		if d := formattest.Diff(&want, back); d != "" {
			t.Errorf("known %v: round trip differs:\n%s", known, d)
		}
	}
}
