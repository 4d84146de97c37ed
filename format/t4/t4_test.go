package t4_test

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ktune/ktune/format"
	"github.com/ktune/ktune/format/internal/formattest"
	"github.com/ktune/ktune/format/kerneltuner"
	"github.com/ktune/ktune/format/t4"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
)

const (
	testdata = "../../testdata"
	realT4   = testdata + "/benchmark_hub/convolution_milo/A100_T4.json.gz"
	realKT   = testdata + "/benchmark_hub/convolution_milo/A100.json.gz"
)

func loadSchema(t *testing.T) *validator {
	t.Helper()
	data, err := os.ReadFile("testdata/results-schema.json")
	if err != nil {
		t.Fatal(err)
	}
	v, err := newValidator(data)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func open(t *testing.T, path string, read func(*os.File) (*result.Recording, error)) *result.Recording {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rec, err := read(f)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func readT4(t *testing.T, path string) *result.Recording {
	return open(t, path, func(f *os.File) (*result.Recording, error) { return t4.Read(f, path) })
}

func readKT(t *testing.T, path string) *result.Recording {
	return open(t, path, func(f *os.File) (*result.Recording, error) { return kerneltuner.Read(f, path) })
}

func readString(src string) (*result.Recording, error) {
	return t4.Read(strings.NewReader(src), "test.json")
}

func TestReadMatchesIndependentReading(t *testing.T) {
	want, err := formattest.T4Stats(realT4)
	if err != nil {
		t.Fatal(err)
	}
	rec := readT4(t, realT4)
	formattest.CheckStats(t, rec, want)
	// Read off the file with Python's json module.
	total, valid := rec.Counts()
	best, _ := rec.Best()
	if total != 4362 || valid != 4201 || best.Objective != 0.5536000076681376 {
		t.Errorf("got %d/%d best %v", total, valid, best.Objective)
	}
	if len(rec.Params) != 10 || rec.Params[0].Name != "block_size_x" || len(rec.Params[0].Values) != 16 || rec.Objective != "time" {
		t.Errorf("params %v objective %q", rec.Params, rec.Objective)
	}
	if len(rec.Warnings) != 0 {
		t.Errorf("warnings %q", rec.Warnings)
	}
}

// The T4 file was converted from the Kernel Tuner cache of the same run, so both readers
// must agree configuration by configuration.
func TestReadAgreesWithTheKernelTunerCacheOfTheSameRun(t *testing.T) {
	t4rec, ktrec := readT4(t, realT4), readKT(t, realKT)
	byKey := map[string]result.Evaluation{}
	for _, e := range ktrec.Evaluations {
		byKey[kerneltuner.Key(e.Config)] = e
	}
	if len(byKey) != len(t4rec.Evaluations) {
		t.Fatalf("%d cache entries, %d T4 results", len(byKey), len(t4rec.Evaluations))
	}
	// T4 derives parameter lists from the values; Kernel Tuner's are given in order.
	for i, p := range t4rec.Params {
		if p.Name != ktrec.Params[i].Name || len(p.Values) != len(ktrec.Params[i].Values) {
			t.Errorf("param %d: %v vs %v", i, p, ktrec.Params[i])
		}
	}
	for _, e := range t4rec.Evaluations {
		k := kerneltuner.Key(e.Config)
		c, ok := byKey[k]
		if !ok {
			t.Fatalf("T4 configuration %s not in the cache", k)
		}
		same := func(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }
		if e.Status != c.Status || !same(e.Objective, c.Objective) || len(e.Samples) != len(c.Samples) ||
			e.CompileMS != c.CompileMS || e.FrameworkMS != c.FrameworkMS || e.VerifyMS != c.VerifyMS {
			t.Fatalf("%s: T4 %+v\ncache %+v", k, e, c)
		}
	}
}

func roundTrip(t *testing.T, rec *result.Recording) (*result.Recording, []byte) {
	t.Helper()
	var b bytes.Buffer
	if err := t4.Write(&b, rec); err != nil {
		t.Fatalf("Write: %v", err)
	}
	out := append([]byte{}, b.Bytes()...)
	back, err := t4.Read(&b, rec.Source)
	if err != nil {
		t.Fatalf("Read of what Write wrote: %v", err)
	}
	if len(back.Warnings) != 0 {
		t.Errorf("warnings reading what Write wrote: %q", back.Warnings)
	}
	return back, out
}

func TestWriteRoundTripsRealFile(t *testing.T) {
	rec := readT4(t, realT4)
	back, _ := roundTrip(t, rec)
	if d := formattest.Diff(rec, back); d != "" {
		t.Errorf("round trip differs:\n%s", d)
	}
}

func TestWriteKeepsWhatT4LacksInMetadata(t *testing.T) {
	rec := readKT(t, realKT) // parameter lists in the user's order, device, problem size
	back, _ := roundTrip(t, rec)
	want := *rec
	want.Format = t4.Name
	if d := formattest.Diff(&want, back); d != "" {
		t.Errorf("Kernel Tuner recording through T4 differs:\n%s", d)
	}
}

func handMade() *result.Recording {
	rec := &result.Recording{
		Device: "dev", Kernel: "k", ProblemSize: "[1,2]", Objective: "time", Restrictions: []string{"a <= 2"},
		Params: []space.Param{
			{Name: "a", Values: []space.Value{space.IntValue(1), space.IntValue(2)}},
			{Name: "s", Values: []space.Value{space.StringValue("x"), space.BoolValue(false), space.FloatValue(2)}},
		},
	}
	at := time.Date(2024, 3, 4, 5, 6, 7, 0, time.UTC)
	statuses := []result.Status{result.OK, result.Restricted, result.CompileError, result.RuntimeError, result.Timeout, result.WrongAnswer}
	for i, s := range statuses {
		e := result.Evaluation{
			Config:    []space.Value{rec.Params[0].Values[i%2], rec.Params[1].Values[i/2]},
			Status:    s,
			Objective: math.NaN(),
			CompileMS: 1.5, VerifyMS: 0.25, BenchmarkMS: 3, FrameworkMS: 4, StrategyMS: 0.5,
			Metrics: map[string]float64{"registers": 32},
			Time:    at,
		}
		if s == result.OK {
			e.Objective, e.Samples = 1.25, []float64{1.5, 1}
		}
		rec.Evaluations = append(rec.Evaluations, e)
	}
	return rec
}

func TestWriteRoundTripsEveryT4Status(t *testing.T) {
	rec := handMade()
	back, _ := roundTrip(t, rec)
	rec.Format = t4.Name
	if d := formattest.Diff(rec, back); d != "" {
		t.Errorf("round trip differs:\n%s", d)
	}
}

func TestWriteOutputValidatesAgainstTheT4Schema(t *testing.T) {
	v := loadSchema(t)
	for name, rec := range map[string]*result.Recording{
		"real T4":             readT4(t, realT4),
		"Kernel Tuner cache":  readKT(t, realKT),
		"every status":        handMade(),
		"non-time objective":  func() *result.Recording { r := handMade(); r.Objective, r.Maximize = "registers", true; return r }(),
		"no evaluations":      {Objective: "time"},
		"device-limit status": func() *result.Recording { r := handMade(); r.Evaluations[1].Status = result.DeviceLimit; return r }(),
	} {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := t4.Write(&b, rec); err != nil {
				t.Fatal(err)
			}
			if errs := v.Validate(decodeDoc(t, b.Bytes())); len(errs) > 0 {
				t.Errorf("Write's output violates the schema:\n%s", strings.Join(errs, "\n"))
			}
		})
	}
}

func TestRealFileValidatesAgainstTheT4Schema(t *testing.T) {
	data, err := format.ReadAll(mustOpen(t, realT4), realT4)
	if err != nil {
		t.Fatal(err)
	}
	if errs := loadSchema(t).Validate(decodeDoc(t, data)); len(errs) > 0 {
		t.Errorf("benchmark_hub's T4 file violates the schema:\n%s", strings.Join(errs, "\n"))
	}
}

func mustOpen(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func TestReadConvertsTimeUnits(t *testing.T) {
	src := `{"schema_version": "1.0.0", "metadata": {"timeunit": "microseconds", "device": "GPU"}, "results": [
{"configuration": {"X": 1}, "times": {"compilation_time": 2000, "runtimes": [1500, 500], "validation": 10, "data": 3000},
 "invalidity": "correct", "correctness": 1,
 "measurements": [{"name": "time", "value": 1000, "unit": ""}, {"name": "energy", "value": 7, "unit": "J"}, {"name": "kernel_time", "value": 2, "unit": "s"}],
 "objectives": ["time"]}]}`
	rec, err := readString(src)
	if err != nil {
		t.Fatal(err)
	}
	e := rec.Evaluations[0]
	if e.Objective != 1 || e.CompileMS != 2 || e.VerifyMS != 0.01 || e.Samples[0] != 1.5 || e.Metrics["data"] != 3 ||
		e.Metrics["energy"] != 7 || e.Metrics["kernel_time"] != 2000 || rec.Device != "GPU" {
		t.Errorf("evaluation %+v device %q", e, rec.Device)
	}
}

func TestReadStatuses(t *testing.T) {
	tests := []struct {
		invalidity  string
		correctness string
		value       string
		want        result.Status
	}{
		{"correct", "1", "1.5", result.OK},
		{"correct", "0", "1.5", result.WrongAnswer},
		{"correct", "1", `"RuntimeFailedConfig"`, result.RuntimeError},
		{"correct", "1", `"CompilationFailedConfig"`, result.CompileError},
		{"compile", "1", `"CompilationFailedConfig"`, result.CompileError},
		{"runtime", "1", `"RuntimeFailedConfig"`, result.RuntimeError},
		{"timeout", "1", "1.5", result.Timeout},
		{"correctness", "0", "1.5", result.WrongAnswer},
		{"constraints", "1", `"InvalidConfig"`, result.Restricted},
	}
	for _, tt := range tests {
		t.Run(tt.invalidity+" "+tt.value, func(t *testing.T) {
			src := `{"schema_version": "1.0.0", "results": [{"configuration": {"X": 1}, "times": {}, "invalidity": "` + tt.invalidity +
				`", "correctness": ` + tt.correctness + `, "measurements": [{"name": "time", "value": ` + tt.value + `, "unit": ""}], "objectives": ["time"]}]}`
			rec, err := readString(src)
			if err != nil {
				t.Fatal(err)
			}
			if e := rec.Evaluations[0]; e.Status != tt.want || (e.Status == result.OK) == math.IsNaN(e.Objective) {
				t.Errorf("status %v objective %v, want %v", e.Status, e.Objective, tt.want)
			}
		})
	}
}

func TestReadRejectsBadFiles(t *testing.T) {
	good := `{"schema_version": "1.0.0", "results": [
{"configuration": {"X": 1, "Y": "a"}, "times": {}, "invalidity": "correct", "correctness": 1, "measurements": [{"name": "time", "value": 1, "unit": ""}]},
{"configuration": {"X": 2, "Y": "b"}, "times": {}, "invalidity": "runtime", "correctness": 1, "measurements": []}
]}`
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"not an object", `[]`, []string{"top level"}},
		{"no results", `{"schema_version": "1.0.0"}`, []string{"no results"}},
		{"unknown invalidity", strings.Replace(good, `"runtime"`, `"broken"`, 1), []string{"test.json:3:", "result 1", `"broken"`}},
		{"missing invalidity", strings.Replace(good, `"invalidity": "runtime", `, ``, 1), []string{"result 1", "invalidity"}},
		{"extra parameter", strings.Replace(good, `"Y": "b"`, `"Y": "b", "Z": 3`, 1), []string{"result 1", `"Z"`}},
		{"missing parameter", strings.Replace(good, `, "Y": "b"`, ``, 1), []string{"result 1", `lacks parameter "Y"`}},
		{"configuration not an object", strings.Replace(good, `{"X": 2, "Y": "b"}`, `[2]`, 1), []string{"result 1"}},
		{"measurement name not a string", strings.Replace(good, `"name": "time"`, `"name": 5`, 1), []string{"result 0", "test.json:2:"}},
		{"unknown time unit", strings.Replace(good, `"schema_version": "1.0.0"`, `"metadata": {"timeunit": "fortnights"}`, 1), []string{"fortnights"}},
		{"schema version 2", strings.Replace(good, `"1.0.0"`, `"2.0.0"`, 1), []string{"schema_version"}},
		{"truncated", good[:len(good)/2], []string{"truncated"}},
		{"garbage", strings.Replace(good, `"times": {}, "invalidity": "runtime"`, `"times": {}} "invalidity": "runtime"`, 1), []string{"test.json:3:", "invalid JSON"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := readString(tt.src)
			formattest.Refused(t, err, tt.want)
		})
	}
}

func TestSniff(t *testing.T) {
	data, err := format.ReadAll(mustOpen(t, realT4), realT4)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		src  []byte
		want bool
	}{
		{data, true},
		{[]byte(`{"results": [], "schema_version": "1.0.0"}`), true},
		{[]byte(`{"tune_params_keys": [], "cache": {}}`), false},
		{[]byte(`{"Metadata": {}, "Results": []}`), false},
		{[]byte(`{"results": []}`), false},
	}
	for _, tt := range tests {
		if got := t4.Sniff(tt.src); got != tt.want {
			t.Errorf("Sniff(%.40s) = %v", tt.src, got)
		}
	}
}

func TestWriteRejectsConfigOfTheWrongLength(t *testing.T) {
	rec := handMade()
	rec.Evaluations[2].Config = rec.Evaluations[2].Config[:1]
	if err := t4.Write(&bytes.Buffer{}, rec); err == nil || !strings.Contains(err.Error(), "evaluation 2") {
		t.Errorf("error %v", err)
	}
}

func TestReadWarningsNameTheResultsAndTheirLines(t *testing.T) {
	src := `{"schema_version": "1.0.0", "metadata": {"tune_params": {"X": [1, 2]}}, "results": [
{"configuration": {"X": 1}, "times": {}, "invalidity": "correct", "correctness": 1,
 "measurements": [{"name": "time", "value": 1.5, "unit": ""}], "objectives": ["time"]},
{"configuration": {"X": 3}, "times": {}, "invalidity": "correct", "correctness": 1,
 "measurements": [{"name": "time", "value": "oops", "unit": ""}], "objectives": ["time"]},
{"configuration": {"X": 2}, "times": {}, "invalidity": "correct", "correctness": 1,
 "measurements": [], "objectives": ["time"]}]}`
	rec, err := readString(src)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`test.json: 1 result has a configuration value missing from metadata.tune_params (result 1 at line 4: X=3); it was appended to its parameter's list`,
		`test.json: 2 results marked correct have no numeric "time" measurement (result 1 at line 4: the string "oops"; result 2 at line 6: missing); they are counted as runtime errors`,
	}
	if !slices.Equal(rec.Warnings, want) {
		t.Errorf("warnings\n%q\nwant\n%q", rec.Warnings, want)
	}
}

// Reading the benchmark hub's convolution T4 file (4,362 results) with the fast reader and with the decoder-based one alone, for the ratio
// between them: go test -run '^$' -bench Read -benchmem ./format/t4
func BenchmarkRead(b *testing.B) {
	codec.BenchmarkRead(b, realT4)
}

// A malformed ktune_runs_per_sample or ktune_launch (what ktune's export adds) is left
// out of its result, whose measurement is kept, and the warning names the file, the field
// and the results by index, configuration and line with what is wrong, counting those it
// does not name; both readers say the same.
func TestReadWarnsOfMalformedExportFieldsAndKeepsTheMeasurement(t *testing.T) {
	result1 := func(x int, extra string) string {
		return fmt.Sprintf(`{"configuration": {"X": %d, "Y": "a"}, "times": {}, "invalidity": "correct", "correctness": 1, `+
			`"measurements": [{"name": "time", "value": 2.5, "unit": ""}], "objectives": ["time"]%s}`, x, extra)
	}
	results := []string{
		result1(1, `, "ktune_runs_per_sample": 0`),
		result1(2, `, "ktune_runs_per_sample": 1.5, "ktune_launch": {"grid": [1, 1, 1]}`),
		result1(3, `, "ktune_launch": {"grid": [1, 1, 1], "block": [32, 1]}`),
		result1(4, `, "ktune_runs_per_sample": 3, "ktune_launch": {"grid": [2, 1, 1], "block": [32, 1, 1]}`),
		result1(5, `, "ktune_runs_per_sample": null, "ktune_launch": null`),
	}
	for x := 6; x <= 9; x++ {
		results = append(results, result1(x, `, "ktune_launch": {"grid": "1,1,1", "block": [32, 1, 1]}`))
	}
	src := `{"schema_version": "1.0.0", "metadata": {"tune_params": {"X": [1, 2, 3, 4, 5, 6, 7, 8, 9], "Y": ["a"]}}, "results": [
` + strings.Join(results, ",\n") + "]}"
	path := filepath.Join(t.TempDir(), "r.json")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	want := []string{
		path + `: 2 results have a malformed "ktune_runs_per_sample" (result 0 (X=1, Y="a") at line 2: is the number 0, want a whole number from 1 to 2147483647; ` +
			`result 1 (X=2, Y="a") at line 3: is the number 1.5, want a whole number from 1 to 2147483647); the values are left out; the measurements are kept`,
		path + `: 6 results have a malformed "ktune_launch" (result 1 (X=2, Y="a") at line 3: has no block; result 2 (X=3, Y="a") at line 4: block is an array of 2, want an array of 3 sizes [x, y, z]; ` +
			`result 5 (X=6, Y="a") at line 7: grid is the string "1,1,1", want an array of 3 sizes [x, y, z]; and 3 more); the values are left out; the measurements are kept`,
	}
	for _, rec := range codec.ReadWithEach(t, path) {
		if !slices.Equal(rec.Warnings, want) {
			t.Errorf("warnings:\n%s\nwant\n%s", strings.Join(rec.Warnings, "\n"), strings.Join(want, "\n"))
		}
		if len(rec.Evaluations) != len(results) {
			t.Fatalf("%d evaluations, want the %d results", len(rec.Evaluations), len(results))
		}
		for _, ev := range rec.Evaluations {
			x := ev.Config[0].Int()
			if ev.Status != result.OK || ev.Objective != 2.5 {
				t.Errorf("result X=%d: %s %g, want its measurement, ok 2.5", x, ev.Status, ev.Objective)
			}
			wantRuns, wantLaunch := 0, (*result.Launch)(nil)
			if x == 4 {
				wantRuns, wantLaunch = 3, &result.Launch{Grid: [3]int{2, 1, 1}, Block: [3]int{32, 1, 1}}
			}
			if ev.RunsPerSample != wantRuns || !result.SameLaunch(ev.Launch, wantLaunch) {
				t.Errorf("result X=%d: runs per sample %d, launch %v; want %d, %v", x, ev.RunsPerSample, ev.Launch, wantRuns, wantLaunch)
			}
		}
	}
}
