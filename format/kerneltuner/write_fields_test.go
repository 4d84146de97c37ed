package kerneltuner_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ktune/ktune/format"
	_ "github.com/ktune/ktune/format/all"
	"github.com/ktune/ktune/format/internal/formattest"
	"github.com/ktune/ktune/format/kerneltuner"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
)

// oneParam is a recording of parameter a = 1..3 with the given objective values.
func oneParam(objective string, maximize bool, values ...float64) *result.Recording {
	rec := &result.Recording{Format: kerneltuner.Name, Device: "dev", Kernel: "k", Objective: objective, Maximize: maximize,
		Params: []space.Param{{Name: "a"}}}
	for i, v := range values {
		a := space.IntValue(int64(i + 1))
		rec.Params[0].Values = append(rec.Params[0].Values, a)
		rec.Evaluations = append(rec.Evaluations, result.Evaluation{Config: []space.Value{a}, Status: result.OK, Objective: v,
			CompileMS: math.NaN(), VerifyMS: math.NaN(), BenchmarkMS: math.NaN(), FrameworkMS: math.NaN()})
	}
	return rec
}

// header decodes what Write wrote, for the top-level members.
func header(t *testing.T, rec *result.Recording) (map[string]json.RawMessage, []byte) {
	t.Helper()
	var b bytes.Buffer
	if err := kerneltuner.Write(&b, rec); err != nil {
		t.Fatal(err)
	}
	var h map[string]json.RawMessage
	if err := json.Unmarshal(b.Bytes(), &h); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b.Bytes())
	}
	return h, b.Bytes()
}

// Kernel Tuner's cache schema: "problem_size" is an array of integers.
func TestWriteGivesTheProblemSizeAsAnArrayOfIntegers(t *testing.T) {
	for in, want := range map[string]string{
		"128,128":     "[128,128]", // what ktune tune stored before it stored arrays
		"400000":      "[400000]",  // a 1-D size, as Kernel Tuner writes it
		"[4096,4096]": "[4096,4096]",
	} {
		rec := oneParam("time", false, 1, 2)
		rec.ProblemSize = in
		h, _ := header(t, rec)
		if string(h["problem_size"]) != want {
			t.Errorf("problem size %q written as %s, want %s", in, h["problem_size"], want)
		}
		back := roundTrip(t, rec)
		if back.ProblemSize != want {
			t.Errorf("problem size %q reads back as %q, want %q", in, back.ProblemSize, want)
		}
	}
	// A size that depends on the parameters has no integer array: Kernel Tuner gets none
	// (it checks the size only when there is one) and ktune keeps it in its own field.
	rec := oneParam("time", false, 1, 2)
	rec.ProblemSize = "MWG*4,512"
	h, _ := header(t, rec)
	if _, ok := h["problem_size"]; ok || string(h["ktune_problem_size"]) != `"MWG*4,512"` {
		t.Errorf("problem_size %s, ktune_problem_size %s", h["problem_size"], h["ktune_problem_size"])
	}
	if back := roundTrip(t, rec); back.ProblemSize != "MWG*4,512" {
		t.Errorf("reads back as %q", back.ProblemSize)
	}
}

// A cache records the objective's direction, which its name does not tell ("score"), and
// reading prefers the record to the guess from the name.
func TestWriteRecordsTheObjectivesDirection(t *testing.T) {
	for _, tt := range []struct {
		objective string
		maximize  bool
		best      float64
	}{
		{"score", true, 3},
		{"score", false, 1},
		{"GFLOP/s", false, 1}, // a name that guesses "higher" loses to the record
		{"time", true, 3},
	} {
		rec := oneParam(tt.objective, tt.maximize, 1, 3, 2)
		h, _ := header(t, rec)
		if string(h["objective"]) != `"`+tt.objective+`"` || string(h["ktune_maximize"]) != map[bool]string{true: "true", false: "false"}[tt.maximize] {
			t.Errorf("%s maximize=%v: objective %s, ktune_maximize %s", tt.objective, tt.maximize, h["objective"], h["ktune_maximize"])
		}
		back := roundTrip(t, rec)
		best, ok := back.Best()
		if back.Maximize != tt.maximize || !ok || best.Objective != tt.best {
			t.Errorf("%s maximize=%v reads back maximize=%v, best %v; want best %v", tt.objective, tt.maximize, back.Maximize, best.Objective, tt.best)
		}
	}
	// A cache without the record (Kernel Tuner's own) still guesses from the name.
	rec, err := readBytes([]byte(`{"tune_params_keys": ["a"], "tune_params": {"a": [1, 2]}, "objective": "GFLOP/s",
"cache": {"1": {"a": 1, "GFLOP/s": 5}, "2": {"a": 2, "GFLOP/s": 7}}}`))
	if err != nil || !rec.Maximize {
		t.Errorf("GFLOP/s without ktune_maximize: maximize=%v, %v", rec != nil && rec.Maximize, err)
	}
	if _, err := readBytes([]byte(`{"tune_params_keys": ["a"], "tune_params": {"a": [1]}, "ktune_maximize": "yes", "cache": {}}`)); err == nil ||
		!strings.Contains(err.Error(), "ktune_maximize") {
		t.Errorf("ktune_maximize \"yes\": %v, want an error naming the field", err)
	}
}

// A timing the recording lacks (the benchmark hub's T4 files have no benchmark time) is
// written as 0, as Kernel Tuner's simulation mode needs it, but named in
// ktune_unrecorded, so that it reads back as unknown, not as a measured 0.
func TestWriteMarksTimingsTheRecordingLacks(t *testing.T) {
	path := filepath.Join(testdata, "benchmark_hub/convolution_milo/A100_T4.json.gz")
	rec, err := format.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(rec.Evaluations[0].BenchmarkMS) || math.IsNaN(rec.Evaluations[0].CompileMS) {
		t.Fatalf("T4 file read with benchmark %v, compile %v; want unknown and known", rec.Evaluations[0].BenchmarkMS, rec.Evaluations[0].CompileMS)
	}
	var b bytes.Buffer
	if err := kerneltuner.Write(&b, rec); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Cache map[string]map[string]any `json:"cache"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for key, entry := range doc.Cache {
		if entry["benchmark_time"] != 0.0 || fmt.Sprint(entry["ktune_unrecorded"]) != "[benchmark_time]" {
			t.Fatalf("entry %s: benchmark_time %v, ktune_unrecorded %v", key, entry["benchmark_time"], entry["ktune_unrecorded"])
		}
	}
	back, err := kerneltuner.Read(&b, "back.json")
	if err != nil {
		t.Fatal(err)
	}
	want := *rec
	want.Format = kerneltuner.Name
	if d := formattest.Diff(&want, back); d != "" {
		t.Errorf("T4 recording through a cache differs:\n%s", d)
	}
}
