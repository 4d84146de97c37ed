package kerneltuner_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

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
	// A size that depends on the parameters has no integer array: it is written as Kernel
	// Tuner writes the problem_size it was given (c["problem_size"] = problem_size), a
	// parameter's name as that string, several dimensions as a list, and it reads back as
	// ktune keeps it.
	for in, want := range map[string]string{
		"num_blocks": `"num_blocks"`,
		"MWG*4,512":  `["MWG*4",512]`,
		"max(a, b)":  `"max(a, b)"`, // an expression with a comma of its own is one dimension
		// spaces Read keeps are written back: a list would lose them (the fuzzer's " A")
		" A":         `" A"`,
		" ":          `" "`,
		"MWG*4, 512": `"MWG*4, 512"`,
		"a,01":       `["a","01"]`,
	} {
		rec := oneParam("time", false, 1, 2)
		rec.ProblemSize = in
		h, _ := header(t, rec)
		if got := strings.Join(strings.Fields(string(h["problem_size"])), ""); got != strings.Join(strings.Fields(want), "") {
			t.Errorf("problem size %q written as %s, want %s", in, h["problem_size"], want)
		}
		if _, ok := h["ktune_problem_size"]; ok {
			t.Errorf("problem size %q also written as ktune_problem_size", in)
		}
		if back := roundTrip(t, rec); back.ProblemSize != in {
			t.Errorf("problem size %q reads back as %q", in, back.ProblemSize)
		}
	}
	// What ktune wrote before still reads.
	old, err := readBytes([]byte(`{"ktune_problem_size": "MWG*4,512", "tune_params_keys": ["a"], "tune_params": {"a": [1]}, "cache": {}}`))
	if err != nil || old.ProblemSize != "MWG*4,512" {
		t.Errorf("ktune_problem_size reads as %v, %v", old, err)
	}
	// One whose text reads as JSON is kept as a string in "problem_size" would be, so that
	// it writes back as that string.
	old, err = readBytes([]byte(`{"ktune_problem_size": "true", "tune_params_keys": ["a"], "tune_params": {"a": [1]}, "cache": {}}`))
	if err != nil || old.ProblemSize != `"true"` {
		t.Fatalf("ktune_problem_size true reads as %v, %v", old, err)
	}
	if back := roundTrip(t, old); back.ProblemSize != old.ProblemSize {
		t.Errorf("ktune_problem_size true reads back as %q", back.ProblemSize)
	}
}

// Kernel Tuner's cache schema requires "problem_size" and every entry's "timestamp".
// KTT output has neither a problem size nor a time per result: the export gives an empty
// size (no claim of one) and the Unix epoch, named in ktune_unrecorded, so that ktune
// reads the times back as unknown.
func TestWriteGivesWhatTheSchemaRequiresForKTTOutput(t *testing.T) {
	rec, err := format.Open(filepath.Join(testdata, "ktt/coulomb_sum_3d/RTX_2080_Ti.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if rec.ProblemSize != "" || !rec.Evaluations[0].Time.IsZero() {
		t.Fatalf("KTT output read with problem size %q, time %v", rec.ProblemSize, rec.Evaluations[0].Time)
	}
	h, written := header(t, rec)
	if string(h["problem_size"]) != "[]" {
		t.Errorf("problem_size %s, want []", h["problem_size"])
	}
	var doc struct {
		Cache map[string]map[string]any `json:"cache"`
	}
	if err := json.Unmarshal(written, &doc); err != nil {
		t.Fatal(err)
	}
	for key, entry := range doc.Cache {
		unrecorded, _ := entry["ktune_unrecorded"].([]any)
		if entry["timestamp"] != "1970-01-01T00:00:00+00:00" || !slices.Contains(unrecorded, any("timestamp")) {
			t.Fatalf("entry %s: timestamp %v, ktune_unrecorded %v", key, entry["timestamp"], entry["ktune_unrecorded"])
		}
	}
	back, err := kerneltuner.Read(bytes.NewReader(written), "back.json")
	if err != nil {
		t.Fatal(err)
	}
	if back.ProblemSize != "" {
		t.Errorf("reads back with problem size %q", back.ProblemSize)
	}
	for i := range back.Evaluations {
		if !back.Evaluations[i].Time.IsZero() {
			t.Fatalf("evaluation %d reads back measured at %v", i, back.Evaluations[i].Time)
		}
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

// A cache records the space's restrictions, which Kernel Tuner keeps outside it (a ktune
// tuning run's, a T4 file's), so that an exported run reads back over the same space.
func TestWriteKeepsTheRestrictions(t *testing.T) {
	rec := oneParam("time", false, 1, 3, 2)
	rec.Restrictions = []string{"a <= 2", "a % 2 == 1 or a > 1"}
	h, _ := header(t, rec)
	var written []string
	if err := json.Unmarshal(h["ktune_restrictions"], &written); err != nil || !slices.Equal(written, rec.Restrictions) {
		t.Errorf("ktune_restrictions written as %s (%v)", h["ktune_restrictions"], err)
	}
	if back := roundTrip(t, rec); !slices.Equal(back.Restrictions, rec.Restrictions) {
		t.Errorf("restrictions read back as %q, want %q", back.Restrictions, rec.Restrictions)
	}
	// none: no member, as before
	if h, _ := header(t, oneParam("time", false, 1)); h["ktune_restrictions"] != nil {
		t.Errorf("a recording without restrictions gets ktune_restrictions %s", h["ktune_restrictions"])
	}
	if _, err := readBytes([]byte(`{"tune_params_keys": ["a"], "tune_params": {"a": [1]}, "ktune_restrictions": "a < 2", "cache": {}}`)); err == nil ||
		!strings.Contains(err.Error(), "ktune_restrictions") {
		t.Errorf("ktune_restrictions as a string: %v, want an error naming the field", err)
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

// Python reads a JSON number without a fraction or exponent as an int, and Kernel
// Tuner's get_best_config passes over an objective that is no float (it takes it for a
// failure), so every measured number must be written as Python writes a float: a time of
// exactly 2 ms as 2.0, and time_energy.json's temperature of 45.0 as it was, not as 45.
func TestWriteWritesMeasuredNumbersAsPythonFloats(t *testing.T) {
	rec := readFile(t, filepath.Join(testdata, "kernel_tuner/time_energy.json"))
	ev := &rec.Evaluations[0]
	ev.Objective, ev.Samples, ev.CompileMS = 2, []float64{2, 2.5}, 555
	_, data := header(t, rec)
	var c struct {
		Cache map[string]map[string]json.RawMessage `json:"cache"`
	}
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	first := c.Cache["128,1080"]
	for field, want := range map[string]string{
		"time": "2.0", "times": "[2.0, 2.5]", "compile_time": "555.0",
		"temperature": "45.0", "core_freq": "1080.0", "f": "1080.0",
		"verification_time": "0.0", // recorded as 0, read as the float 0
	} {
		if got := string(first[field]); got != want {
			t.Errorf("%s written as %s, want %s", field, got, want)
		}
	}
	// every other entry too: no measured number reads back as a Python int
	for key, entry := range c.Cache {
		for field, raw := range entry {
			s := string(raw)
			if field == "block_size_x" || field == "nvml_gr_clock" || !(s[0] == '-' || s[0] >= '0' && s[0] <= '9') {
				continue
			}
			if !strings.ContainsAny(s, ".e") {
				t.Errorf("entry %s: %s written as %s, which Python reads as an int", key, field, s)
			}
		}
	}
	back := roundTrip(t, rec)
	if d := formattest.Diff(rec, back); d != "" {
		t.Errorf("round trip differs:\n%s", d)
	}
	// the parameters keep their integers: Kernel Tuner's keys are str() of them
	if _, ok := c.Cache["128,1080"]; !ok || string(first["block_size_x"]) != "128" {
		t.Errorf("parameter values changed: %s", first["block_size_x"])
	}
}

// A cache entry holds the parameters and the measurements side by side, so a parameter
// named as a measurement member ("time", which Kernel Tuner forbids as a parameter name,
// or "compile_time") was written twice in each entry: Python and ktune kept the
// measurement, and the export no longer read back ("inconsistent with its key: the key
// says time=1 but the entry has time=0.0407..."). Write refuses it before writing.
func TestWriteRefusesAParameterNamedAsAnEntryMember(t *testing.T) {
	for _, name := range []string{"time", "times", "compile_time", "timestamp", "ktune_status", "GFLOP/s"} {
		rec := readFile(t, filepath.Join(testdata, "kernel_tuner/vector_add_A4000.json"))
		rec.Params[0].Name = name
		if name == "GFLOP/s" {
			rec.Objective, rec.Maximize = name, true
		}
		var b bytes.Buffer
		err := kerneltuner.Write(&b, rec)
		if err == nil || !strings.Contains(err.Error(), `parameter "`+name+`" has the name of a member`) || !strings.Contains(err.Error(), "export to t4 or ktt") {
			t.Errorf("parameter %s: error %v", name, err)
		}
		if b.Len() != 0 {
			t.Errorf("parameter %s: %d bytes written", name, b.Len())
		}
	}
	// a parameter named as a metric is written, and the metric left out, as before
	rec := readFile(t, filepath.Join(testdata, "kernel_tuner/time_energy.json"))
	rec.Params[1].Name = "temperature"
	back := roundTrip(t, rec)
	if got := back.Evaluations[0].Config[1]; got.String() != "1080" {
		t.Errorf("parameter temperature reads back as %v", got)
	}
}

// The device that measured each entry (a run on several devices) is kept in ktune_device,
// which Kernel Tuner ignores, and read back; an entry no device measured has none.
func TestWriteKeepsTheDeviceThatMeasuredEachEntry(t *testing.T) {
	rec := ktuneRun()
	rec.Format = kerneltuner.Name
	for i := range rec.Evaluations {
		rec.Evaluations[i].Time = rec.Evaluations[i].Time.Truncate(time.Microsecond) // a cache's timestamps keep µs
	}
	if d := formattest.Diff(rec, roundTrip(t, rec)); d != "" {
		t.Errorf("round trip differs:\n%s", d)
	}
	doc, _ := header(t, rec)
	var cache map[string]map[string]any
	if err := json.Unmarshal(doc["cache"], &cache); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]any{"8": "opencl:1", "16": "opencl:0", "8192": nil} {
		if got := cache[key]["ktune_device"]; got != want {
			t.Errorf("entry %s: ktune_device %v, want %v", key, got, want)
		}
	}
}
