package kerneltuner_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ktune/ktune/format"
	"github.com/ktune/ktune/format/internal/formattest"
	"github.com/ktune/ktune/format/kerneltuner"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
)

const testdata = "../../testdata"

var realFiles = []string{
	"kernel_tuner/vector_add_A4000.json",
	"kernel_tuner/strategies_test_cache.json",
	"kernel_tuner/time_energy.json",
	"benchmark_hub/convolution_milo/A100.json.gz",
	"benchmark_hub/kerneltuner_pnpoly/RTX_2080_Ti.json.gz",
}

func readFile(t *testing.T, path string) *result.Recording {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rec, err := kerneltuner.Read(f, path)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return rec
}

func readBytes(data []byte) (*result.Recording, error) {
	return kerneltuner.Read(bytes.NewReader(data), "test.json")
}

func gunzip(t *testing.T, path string) []byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data, err := format.ReadAll(bytes.NewReader(raw), path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestReadMatchesIndependentReading(t *testing.T) {
	for _, name := range realFiles {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(testdata, name)
			want, err := formattest.KernelTunerStats(path)
			if err != nil {
				t.Fatal(err)
			}
			rec := readFile(t, path)
			formattest.CheckStats(t, rec, want)
			if len(rec.Warnings) != 0 {
				t.Errorf("warnings on a closed, clean file: %q", rec.Warnings)
			}
		})
	}
}

// The numbers below were read off the files with Python's json module.
func TestReadKnownNumbers(t *testing.T) {
	tests := []struct {
		file         string
		total, valid int
		best         float64
		params       int
		device       string
		problem      string
	}{
		{"benchmark_hub/convolution_milo/A100.json.gz", 4362, 4201, 0.5536000076681376, 10, "NVIDIA A100-PCIE-40GB", "[4096,4096]"},
		{"benchmark_hub/kerneltuner_pnpoly/RTX_2080_Ti.json.gz", 4092, 3734, 0.015913600102066994, 4, "NVIDIA GeForce RTX 2080 Ti", "20000000"},
		{"kernel_tuner/vector_add_A4000.json", 15, 15, 0.03175771422684193, 1, "NVIDIA RTX A4000", "100"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			rec := readFile(t, filepath.Join(testdata, tt.file))
			total, valid := rec.Counts()
			best, _ := rec.Best()
			if total != tt.total || valid != tt.valid || best.Objective != tt.best {
				t.Errorf("got %d/%d best %v, want %d/%d best %v", total, valid, best.Objective, tt.total, tt.valid, tt.best)
			}
			if len(rec.Params) != tt.params || rec.Device != tt.device || rec.ProblemSize != tt.problem {
				t.Errorf("header: %d params, device %q, problem %q", len(rec.Params), rec.Device, rec.ProblemSize)
			}
			if rec.Format != kerneltuner.Name || rec.Objective != "time" || rec.Maximize {
				t.Errorf("format %q objective %q maximize %v", rec.Format, rec.Objective, rec.Maximize)
			}
		})
	}
}

func TestReadCountsFailureKinds(t *testing.T) {
	rec := readFile(t, filepath.Join(testdata, "benchmark_hub/convolution_milo/A100.json.gz"))
	counts := map[result.Status]int{}
	for _, e := range rec.Evaluations {
		counts[e.Status]++
		if e.Status != result.OK && !math.IsNaN(e.Objective) {
			t.Fatalf("failed evaluation with objective %v", e.Objective)
		}
	}
	want := map[result.Status]int{result.OK: 4201, result.RuntimeError: 155, result.CompileError: 6}
	for s, n := range want {
		if counts[s] != n {
			t.Errorf("%v: %d, want %d", s, counts[s], n)
		}
	}
}

func TestReadKeepsValueTypesAndOrder(t *testing.T) {
	rec := readFile(t, filepath.Join(testdata, "kernel_tuner/strategies_test_cache.json"))
	names := []string{"block_size_x", "test_string", "test_single", "test_bool", "test_mixed"}
	for i, p := range rec.Params {
		if p.Name != names[i] {
			t.Fatalf("param %d = %s, want %s", i, p.Name, names[i])
		}
	}
	mixed := rec.Params[4].Values
	kinds := []space.Kind{space.String, space.Int, space.Bool, space.Float}
	for i, v := range mixed {
		if v.Kind() != kinds[i] {
			t.Errorf("test_mixed[%d] = %v of kind %v, want %v", i, v, v.Kind(), kinds[i])
		}
	}
	// The first entry is "128,alg_2,15,True,2.45".
	cfg := rec.Evaluations[0].Config
	if got := kerneltuner.Key(cfg); got != "128,alg_2,15,True,2.45" {
		t.Errorf("key of the first entry = %q", got)
	}
	wantKinds := []space.Kind{space.Int, space.String, space.Int, space.Bool, space.Float}
	for i, v := range cfg {
		if v.Kind() != wantKinds[i] {
			t.Errorf("config[%d] = %v of kind %v, want %v", i, v, v.Kind(), wantKinds[i])
		}
	}
}

func TestReadTimingsMetricsAndTimestamps(t *testing.T) {
	rec := readFile(t, filepath.Join(testdata, "kernel_tuner/time_energy.json"))
	e := rec.Evaluations[0] // "128,1080"
	if e.Objective != 3.165401004254818 || len(e.Samples) != 32 || e.Samples[0] != 3.2092161178588867 {
		t.Errorf("objective %v, %d samples", e.Objective, len(e.Samples))
	}
	if e.CompileMS != 555.5126052349806 || e.VerifyMS != 0 || e.BenchmarkMS != 106.16594180464745 || e.FrameworkMS != 0 || e.StrategyMS != 0 {
		t.Errorf("timings %v %v %v %v %v", e.CompileMS, e.VerifyMS, e.BenchmarkMS, e.FrameworkMS, e.StrategyMS)
	}
	for k, v := range map[string]float64{"energy": 0.23700487666378292, "GFLOPS/W": 0.3375457970575376, "ps_energy": 0.23700487666378292,
		"temperature": 45, "core_freq": 1080, "f": 1080} {
		if got, ok := e.Metrics[k]; !ok || got != v {
			t.Errorf("metric %s = %v (present %v), want %v", k, got, ok, v)
		}
	}
	for _, k := range []string{"time", "times", "compile_time", "strategy_time", "block_size_x", "timestamp"} {
		if _, ok := e.Metrics[k]; ok {
			t.Errorf("metric %s should not be a metric", k)
		}
	}
	want := time.Date(2026, 6, 4, 7, 40, 27, 255674000, time.UTC)
	if !e.Time.Equal(want) {
		t.Errorf("time %v, want %v", e.Time, want)
	}
}

func TestReadFailureMarkers(t *testing.T) {
	tests := []struct {
		name  string
		entry string
		want  result.Status
	}{
		{"time string InvalidConfig", `"time": "InvalidConfig"`, result.Restricted},
		{"time string CompilationFailedConfig", `"time": "CompilationFailedConfig"`, result.CompileError},
		{"time string RuntimeFailedConfig", `"time": "RuntimeFailedConfig", "times": []`, result.RuntimeError},
		{"__error__ InvalidConfig", `"time": 1.5, "__error__": "InvalidConfig"`, result.Restricted},
		{"__error__ CompilationFailedConfig", `"__error__": "CompilationFailedConfig"`, result.CompileError},
		{"__error__ RuntimeFailedConfig", `"__error__": "RuntimeFailedConfig"`, result.RuntimeError},
		{"huge failure time", `"time": 1e20`, result.RuntimeError},
		{"larger failure time", `"time": 1.0E+30`, result.RuntimeError},
		{"Python NaN time", `"time": NaN`, result.RuntimeError},
		{"missing time", `"GFLOP/s": 3`, result.RuntimeError},
		{"measured", `"time": 0.5`, result.OK},
		{"measured integer", `"time": 2`, result.OK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := `{"tune_params_keys": ["x"], "tune_params": {"x": [1]}, "cache": {"1": {"x": 1, ` + tt.entry + `}}}`
			rec, err := readBytes([]byte(src))
			if err != nil {
				t.Fatal(err)
			}
			e := rec.Evaluations[0]
			if e.Status != tt.want {
				t.Errorf("status %v, want %v", e.Status, tt.want)
			}
			if (e.Status == result.OK) == math.IsNaN(e.Objective) {
				t.Errorf("status %v with objective %v", e.Status, e.Objective)
			}
		})
	}
}

func TestReadNonTimeObjective(t *testing.T) {
	src := `{"tune_params_keys": ["x"], "tune_params": {"x": [1, 2]}, "objective": "GFLOP/s", "cache": {
"1": {"x": 1, "time": 2.0, "GFLOP/s": 10.5},
"2": {"x": 2, "time": "RuntimeFailedConfig", "GFLOP/s": "RuntimeFailedConfig"}}}`
	rec, err := readBytes([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if !rec.Maximize || rec.Objective != "GFLOP/s" {
		t.Errorf("objective %q maximize %v", rec.Objective, rec.Maximize)
	}
	e := rec.Evaluations[0]
	if e.Objective != 10.5 || e.Metrics["time"] != 2 {
		t.Errorf("objective %v, time metric %v", e.Objective, e.Metrics["time"])
	}
	if rec.Evaluations[1].Status != result.RuntimeError {
		t.Errorf("status %v", rec.Evaluations[1].Status)
	}
}

// truncateAfterEntries cuts a one-entry-per-line cache after n complete entries, and
// then keeps cut more bytes of the next entry.
func truncateAfterEntries(t *testing.T, data []byte, n, cut int) []byte {
	t.Helper()
	start := bytes.Index(data, []byte(`"cache": {`))
	if start < 0 {
		t.Fatal("no cache")
	}
	lines := bytes.SplitAfter(data[start:], []byte("\n"))
	end := start
	for _, l := range lines[:n+1] { // the "cache": { line and n entry lines
		end += len(l)
	}
	return append([]byte{}, data[:end+cut]...)
}

func TestReadInterruptedCache(t *testing.T) {
	full := gunzip(t, filepath.Join(testdata, "benchmark_hub/kerneltuner_pnpoly/RTX_2080_Ti.json.gz"))
	tests := []struct {
		name string
		n    int // complete entries
		cut  int // bytes of the next entry
	}{
		{"mid-entry", 100, 57},
		{"after the comma, as Kernel Tuner leaves it", 100, 0},
		{"inside a number", 7, 140},
		{"no entries yet", 0, 0},
		{"in the first key", 0, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := truncateAfterEntries(t, full, tt.n, tt.cut)
			for _, gz := range []bool{false, true} {
				input := data
				if gz {
					var b bytes.Buffer
					zw := gzip.NewWriter(&b)
					zw.Write(data)
					zw.Close()
					input = b.Bytes()
				}
				path := filepath.Join(t.TempDir(), "open.json")
				if err := os.WriteFile(path, input, 0o644); err != nil {
					t.Fatal(err)
				}
				rec := readFile(t, path)
				if len(rec.Evaluations) != tt.n {
					t.Errorf("gzip %v: %d evaluations, want %d", gz, len(rec.Evaluations), tt.n)
				}
				if len(rec.Warnings) != 1 || !strings.Contains(rec.Warnings[0], "unclosed") ||
					!strings.Contains(rec.Warnings[0], "read "+strconv.Itoa(tt.n)+" complete entries") ||
					!strings.Contains(rec.Warnings[0], path) || !strings.Contains(rec.Warnings[0], "line ") {
					t.Errorf("gzip %v: warnings %q", gz, rec.Warnings)
				}
			}
		})
	}
}

func TestReadInterruptedMatchesClosedPrefix(t *testing.T) {
	full := gunzip(t, filepath.Join(testdata, "benchmark_hub/kerneltuner_pnpoly/RTX_2080_Ti.json.gz"))
	whole, err := readBytes(full)
	if err != nil {
		t.Fatal(err)
	}
	open, err := readBytes(truncateAfterEntries(t, full, 250, 33))
	if err != nil {
		t.Fatal(err)
	}
	prefix := *whole
	prefix.Evaluations = whole.Evaluations[:250]
	if d := formattest.Diff(&prefix, open); d != "" {
		t.Errorf("interrupted file differs from the closed one's first entries:\n%s", d)
	}
}

func TestReadRejectsBadFiles(t *testing.T) {
	good := `{"tune_params_keys": ["x", "y"], "tune_params": {"x": [1, 2], "y": ["a", "b"]}, "cache": {
"1,a": {"x": 1, "y": "a", "time": 1.0},
"2,b": {"x": 2, "y": "b", "time": 2.0}
}}`
	tests := []struct {
		name string
		src  string
		want []string // substrings of the error
	}{
		{"empty", ``, []string{"empty"}},
		{"not an object", `[1, 2]`, []string{"want a JSON object"}},
		{"no parameters", `{"cache": {}}`, []string{"no tune_params_keys"}},
		{"garbage mid-file", strings.Replace(good, `"time": 2.0`, `"time": 2.0 oops`, 1), []string{"test.json:3:", "invalid JSON", "byte "}},
		{"key inconsistent with values", strings.Replace(good, `"2,b": {"x": 2`, `"2,b": {"x": 1`, 1), []string{"test.json:3:", `"2,b"`, "key says x=2", "entry has x=1"}},
		{"key with a wrong number of values", strings.Replace(good, `"2,b"`, `"2,b,c"`, 1), []string{`"2,b,c"`, "inconsistent"}},
		{"int written as float", strings.Replace(good, `"x": 2,`, `"x": 2.0,`, 1), []string{"x=2.0"}},
		{"parameter of the wrong type", strings.Replace(good, `"x": 2,`, `"x": [2],`, 1), []string{`parameter "x" is an array`}},
		{"entry not an object", strings.Replace(good, `{"x": 2, "y": "b", "time": 2.0}`, `3`, 1), []string{`cache entry "2,b"`}},
		{"tune_params not arrays", strings.Replace(good, `"x": [1, 2]`, `"x": 1`, 1), []string{`tune_params["x"]`}},
		{"tune_params_keys not strings", strings.Replace(good, `["x", "y"]`, `[1, 2]`, 1), []string{"tune_params_keys"}},
		{"duplicate parameter", strings.Replace(good, `["x", "y"]`, `["x", "x"]`, 1), []string{"twice"}},
		{"truncated header", good[:40], []string{"truncated"}},
		{"trailing data", good + ` {}`, []string{"after the top-level object"}},
		{"closed with a trailing comma", strings.Replace(good, "2.0}\n}}", "2.0},\n}}", 1), []string{"invalid JSON"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := readBytes([]byte(tt.src))
			formattest.Refused(t, err, tt.want)
		})
	}
}

func TestReadCorruptGzip(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(testdata, "benchmark_hub/kerneltuner_pnpoly/RTX_2080_Ti.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = kerneltuner.Read(bytes.NewReader(raw[:len(raw)/2]), "cut.json.gz")
	if err == nil || !strings.Contains(err.Error(), "cut.json.gz") || !strings.Contains(err.Error(), "gzip") {
		t.Errorf("error %v", err)
	}
	flipped := append([]byte{}, raw...)
	flipped[len(flipped)/2] ^= 0xff
	if _, err := kerneltuner.Read(bytes.NewReader(flipped), "flipped.json.gz"); err == nil {
		t.Error("no error for a corrupt gzip stream")
	}
}

func TestReadCorruptRealFileNamesPosition(t *testing.T) {
	data := gunzip(t, filepath.Join(testdata, "benchmark_hub/kerneltuner_pnpoly/RTX_2080_Ti.json.gz"))
	i := bytes.Index(data, []byte(`"3,32,1,0"`))
	corrupt := append([]byte{}, data...)
	corrupt[i+12] = '#' // the entry's opening brace
	_, err := kerneltuner.Read(bytes.NewReader(corrupt), "corrupt.json")
	var fe *format.Error
	if !errors.As(err, &fe) {
		t.Fatalf("error %v", err)
	}
	wantLine := bytes.Count(data[:i], []byte("\n")) + 1
	if fe.Line != wantLine || fe.Offset < int64(i) || fe.Offset > int64(i+20) {
		t.Errorf("error at line %d offset %d, want line %d near %d: %v", fe.Line, fe.Offset, wantLine, i, err)
	}
}

func roundTrip(t *testing.T, rec *result.Recording) *result.Recording {
	t.Helper()
	var b bytes.Buffer
	if err := kerneltuner.Write(&b, rec); err != nil {
		t.Fatalf("Write: %v", err)
	}
	back, err := kerneltuner.Read(&b, rec.Source)
	if err != nil {
		t.Fatalf("Read of what Write wrote: %v", err)
	}
	if len(back.Warnings) != 0 {
		t.Errorf("warnings reading what Write wrote: %q", back.Warnings)
	}
	return back
}

func TestWriteRoundTripsRealFiles(t *testing.T) {
	for _, name := range realFiles {
		t.Run(name, func(t *testing.T) {
			rec := readFile(t, filepath.Join(testdata, name))
			if d := formattest.Diff(rec, roundTrip(t, rec)); d != "" {
				t.Errorf("round trip differs:\n%s", d)
			}
		})
	}
}

func TestWriteRoundTripsKtuneStatuses(t *testing.T) {
	at := time.Date(2025, 1, 2, 3, 4, 5, 6000, time.UTC)
	rec := &result.Recording{
		Format: kerneltuner.Name, Device: "dev", Kernel: "k", ProblemSize: "callable", Objective: "GFLOP/s", Maximize: true,
		Params: []space.Param{
			{Name: "a", Values: []space.Value{space.IntValue(1), space.IntValue(2), space.IntValue(3)}},
			{Name: "b", Values: []space.Value{space.FloatValue(1), space.FloatValue(0.5)}},
			{Name: "c", Values: []space.Value{space.BoolValue(true), space.StringValue("x y")}},
		},
	}
	statuses := []result.Status{result.OK, result.Restricted, result.CompileError, result.RuntimeError, result.Timeout, result.WrongAnswer, result.DeviceLimit}
	for i, s := range statuses {
		e := result.Evaluation{
			Config:    []space.Value{rec.Params[0].Values[i%3], rec.Params[1].Values[i/3%2], rec.Params[2].Values[i/6]},
			Status:    s,
			Objective: math.NaN(),
			CompileMS: float64(i), VerifyMS: 1, BenchmarkMS: 2, FrameworkMS: 3,
			Metrics: map[string]float64{"time": 0.25, "energy": float64(i) / 7},
			Time:    at,
		}
		if s == result.OK {
			e.Objective = 123.456
			e.Samples = []float64{0.25, 0.5}
		} else {
			e.Message = "failed: " + s.String()
			delete(e.Metrics, "time")
		}
		rec.Evaluations = append(rec.Evaluations, e)
	}
	if d := formattest.Diff(rec, roundTrip(t, rec)); d != "" {
		t.Errorf("round trip differs:\n%s", d)
	}
}

// Kernel Tuner resumes from an open cache by checking whether the stripped text ends in
// "}\n}" and appends entries as "\n" + `"key": {...}` + ","; what Write produces must pass
// that check, and reopening it that way must still read.
func TestWriteFollowsKernelTunerFileConventions(t *testing.T) {
	rec := readFile(t, filepath.Join(testdata, "kernel_tuner/vector_add_A4000.json"))
	var b bytes.Buffer
	if err := kerneltuner.Write(&b, rec); err != nil {
		t.Fatal(err)
	}
	text := strings.TrimSpace(b.String())
	if !strings.HasSuffix(text, "}\n}") {
		t.Fatalf("does not end in }\\n}: %q", text[len(text)-10:])
	}
	for _, k := range []string{`"schema_version": "1.0.0"`, `"tune_params_keys": ["block_size_x"]`, `"objective": "time"`, `"128": {"block_size_x": 128, "time": 0.04073600071881499`} {
		if !strings.Contains(text, k) {
			t.Errorf("output lacks %s", k)
		}
	}
	reopened := text[:len(text)-3] + ","
	back, err := kerneltuner.Read(strings.NewReader(reopened), "reopened.json")
	if err != nil {
		t.Fatal(err)
	}
	if d := formattest.Diff(rec, back); d != "" || len(back.Warnings) != 1 {
		t.Errorf("reopened file: %s %q", d, back.Warnings)
	}
}

func TestWriteRejectsUnwritableRecordings(t *testing.T) {
	p := []space.Param{{Name: "a", Values: []space.Value{space.IntValue(1)}}}
	tests := []struct {
		name string
		rec  result.Recording
	}{
		{"config of the wrong length", result.Recording{Params: p, Evaluations: []result.Evaluation{{Config: nil}}}},
		{"duplicate configuration", result.Recording{Params: p, Evaluations: []result.Evaluation{
			{Config: []space.Value{space.IntValue(1)}, Objective: 1}, {Config: []space.Value{space.IntValue(1)}, Objective: 2}}}},
		{"NaN parameter value", result.Recording{Params: []space.Param{{Name: "a", Values: []space.Value{space.FloatValue(math.NaN())}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := kerneltuner.Write(io.Discard, &tt.rec); err == nil {
				t.Error("no error")
			}
		})
	}
}

func TestSniff(t *testing.T) {
	tests := []struct {
		src  string
		want bool
	}{
		{`{"device_name": "x", "tune_params_keys": [], "cache": {}}`, true},
		{`{"tune_params": {"a": [1]}, "cache": {`, true},
		{`{"results": [], "schema_version": "1.0.0"}`, false},
		{`{"Metadata": {}, "Results": []}`, false},
		{`{"General": {}, "ConfigurationSpace": {}}`, false},
		{`not json`, false},
	}
	for _, tt := range tests {
		if got := kerneltuner.Sniff([]byte(tt.src)); got != tt.want {
			t.Errorf("Sniff(%s) = %v", tt.src, got)
		}
	}
}

// The fast reader reads every Kernel Tuner file in testdata by itself, and to the same
// recording as the decoder-based reader.
func TestFastReaderMatchesTheDecoder(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/*/*.json")
	more, _ := filepath.Glob("../../testdata/benchmark_hub/*/*.json.gz")
	files = append(files, more...)
	n := 0
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if plain, err := format.ReadAll(bytes.NewReader(data), path); err != nil || !kerneltuner.Sniff(plain) {
			continue
		}
		n++
		if !kerneltuner.ReadsFast(bytes.NewReader(data)) {
			t.Errorf("%s: the fast reader gave up", path)
		}
		fast, err := kerneltuner.Read(bytes.NewReader(data), path)
		if err != nil {
			t.Fatal(err)
		}
		slow, err := kerneltuner.ReadWithDecoder(bytes.NewReader(data), path)
		if err != nil {
			t.Fatal(err)
		}
		if d := formattest.Diff(slow, fast); d != "" || !slices.Equal(slow.Warnings, fast.Warnings) {
			t.Errorf("%s: the readers differ:\n%s\n%q\n%q", path, d, slow.Warnings, fast.Warnings)
		}
	}
	if n < 8 {
		t.Fatalf("only %d Kernel Tuner files in testdata", n)
	}
}

// Reading seed 000's GEMM space (17,956 entries of 32 samples each) with the fast reader
// and with the decoder-based one alone, for the ratio between them:
// go test -run '^$' -bench Read -benchmem ./format/kerneltuner
func BenchmarkRead(b *testing.B) {
	codec.BenchmarkRead(b, "../../testdata/benchmark_hub/kerneltuner_gemm/RTX_3090.json.gz")
}

// An entry whose value tune_params lacks is kept, and the value joins the parameter's
// list (after the listed ones), so every command can place the entry in the space.
func TestReadAddsValuesMissingFromTuneParams(t *testing.T) {
	const cache = `{"device_name":"D","kernel_name":"k","tune_params_keys":["bx"],"tune_params":{"bx":[32,64]},` +
		`"cache":{"32":{"bx":32,"time":0.5},"96":{"bx":96,"time":0.1}}}`
	rec, err := kerneltuner.Read(strings.NewReader(cache), "c.json")
	if err != nil {
		t.Fatal(err)
	}
	var vals []string
	for _, v := range rec.Params[0].Values {
		vals = append(vals, v.String())
	}
	if strings.Join(vals, ",") != "32,64,96" || len(rec.Evaluations) != 2 {
		t.Errorf("values %v, %d entries", vals, len(rec.Evaluations))
	}
	if len(rec.Warnings) != 1 || !strings.Contains(rec.Warnings[0], "1 parameter value of entries is not in tune_params (e.g. bx=96); it is added") {
		t.Errorf("warnings %q", rec.Warnings)
	}
	// a string among numbers is quoted: "96" is not 96
	rec, err = kerneltuner.Read(strings.NewReader(strings.Replace(cache, `"bx":96`, `"bx":"96"`, 1)), "c.json")
	if err != nil || len(rec.Warnings) != 1 || !strings.Contains(rec.Warnings[0], `(e.g. bx="96")`) {
		t.Errorf("%v, warnings %q", err, rec.Warnings)
	}
}

// An entry whose time is no measurement is counted as a failure, and the warning names
// the entries, by key and line, and what they hold; both readers say the same.
func TestReadWarningsNameTheEntries(t *testing.T) {
	const cache = `{"tune_params_keys": ["bx"], "tune_params": {"bx": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}, "cache": {
"1": {"bx": 1, "time": true},
"2": {"bx": 2, "time": NaN},
"3": {"bx": 3, "time": "0.5"},
"4": {"bx": 4, "time": 1e400},
"5": {"bx": 5, "time": {}},
"6": {"bx": 6, "time": 1e20},
"7": {"bx": 7, "time": 0},
"8": {"bx": 8, "time": -1, "times": [1, NaN, 2]},
"9": {"bx": 9, "time": 1.5, "times": [1, 2, 1e999, "x"], "timestamp": "yesterday"},
"10": {"bx": 10}
}}`
	want := []string{
		`c.json: 1 entry has an unparsable timestamp (entry "9" at line 10: "yesterday"); its time is left unknown`,
		`c.json: 6 entries have no usable "time" value (entry "1" at line 2: the boolean true; entry "2" at line 3: NaN, Infinity or null; entry "3" at line 4: the string "0.5"; and 3 more); they are counted as runtime errors`,
		`c.json: 1 entry has a "time" of 1e20 or more, which older Kernel Tuner versions record for a failed configuration (entry "6" at line 7: 1e20); it is counted as a runtime error`,
		`c.json: 2 entries have a "time" of zero or less (entry "7" at line 8: 0; entry "8" at line 9: -1); they are counted as runtime errors`,
		`c.json: 2 entries have values in "times" that are not finite numbers (entry "8" at line 9: 1 of 3: NaN, Infinity or null; entry "9" at line 10: 2 of 4, the first 1e999 (beyond a float64's range)); they are left out of the samples`,
	}
	for _, read := range []func(io.Reader, string) (*result.Recording, error){kerneltuner.Read, kerneltuner.ReadWithDecoder} {
		rec, err := read(strings.NewReader(cache), "c.json")
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(rec.Warnings, want) {
			t.Errorf("warnings:\n%s\nwant\n%s", strings.Join(rec.Warnings, "\n"), strings.Join(want, "\n"))
		}
		ok := 0
		for _, ev := range rec.Evaluations {
			if ev.Status == result.OK {
				ok++
				if len(ev.Samples) != 2 {
					t.Errorf("samples %v, want the two finite ones", ev.Samples)
				}
			}
		}
		if ok != 1 {
			t.Errorf("%d successful entries, want 1", ok)
		}
	}
}

// Every entry of a written cache has Kernel Tuner's "time", the mean of its "times", also
// when the objective is a metric (a run tuned for GB/s).
func TestWriteGivesEveryEntryItsTime(t *testing.T) {
	rec := &result.Recording{Objective: "GB/s", Maximize: true,
		Params: []space.Param{{Name: "bx", Values: []space.Value{space.IntValue(32)}}},
		Evaluations: []result.Evaluation{{Config: []space.Value{space.IntValue(32)}, Status: result.OK,
			Objective: 150, Samples: []float64{1, 3}, Metrics: map[string]float64{"GB/s": 150}}}}
	var b bytes.Buffer
	if err := kerneltuner.Write(&b, rec); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"time": 2`) {
		t.Errorf("no mean time in\n%s", b.String())
	}
	back, err := kerneltuner.Read(bytes.NewReader(b.Bytes()), "back.json")
	if err != nil {
		t.Fatal(err)
	}
	if e := back.Evaluations[0]; back.Objective != "GB/s" || e.Objective != 150 {
		t.Errorf("read back: objective %s = %v", back.Objective, e.Objective)
	}
}

// A malformed ktune_runs_per_sample or ktune_launch (what ktune's export adds) is left
// out of its entry, whose measurement is kept, and the warning names the file, the field
// and the entries by key and line with what is wrong, counting those it does not name;
// both readers say the same. A null is no value, as an absent member.
func TestReadWarnsOfMalformedExportFieldsAndKeepsTheMeasurement(t *testing.T) {
	const cache = `{"tune_params_keys": ["bx"], "tune_params": {"bx": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}, "cache": {
"1": {"bx": 1, "time": 1.5, "ktune_runs_per_sample": "3"},
"2": {"bx": 2, "time": 1.5, "ktune_runs_per_sample": 0},
"3": {"bx": 3, "time": 1.5, "ktune_runs_per_sample": -2},
"4": {"bx": 4, "time": 1.5, "ktune_runs_per_sample": 2.5},
"5": {"bx": 5, "time": 1.5, "ktune_launch": {"block": [64, 1, 1]}},
"6": {"bx": 6, "time": 1.5, "ktune_launch": {"grid": [1, 2.5, 1], "block": [64, 1, 1]}},
"7": {"bx": 7, "time": 1.5, "ktune_launch": "big"},
"8": {"bx": 8, "time": 1.5, "ktune_launch": {"grid": [1, 1], "block": [64, 1, 1]}, "ktune_runs_per_sample": 1e400},
"9": {"bx": 9, "time": 1.5, "ktune_launch": {"grid": [2, 1, 1], "block": [64, 1, 1]}, "ktune_runs_per_sample": 4},
"10": {"bx": 10, "time": 1.5, "ktune_launch": null, "ktune_runs_per_sample": null}
}}`
	path := filepath.Join(t.TempDir(), "c.json")
	if err := os.WriteFile(path, []byte(cache), 0o644); err != nil {
		t.Fatal(err)
	}
	want := []string{
		path + `: 5 entries have a malformed "ktune_runs_per_sample" (entry "1" at line 2: is the string "3", want a whole number from 1 to 2147483647; ` +
			`entry "2" at line 3: is the number 0, want a whole number from 1 to 2147483647; entry "3" at line 4: is the number -2, want a whole number from 1 to 2147483647; ` +
			`and 2 more); the values are left out; the measurements are kept`,
		path + `: 4 entries have a malformed "ktune_launch" (entry "5" at line 6: has no grid; ` +
			`entry "6" at line 7: grid[1] is the number 2.5, want a whole number from 1 to 2147483647; ` +
			`entry "7" at line 8: is the string "big", want an object {"grid": [x, y, z], "block": [x, y, z]}; and 1 more); the values are left out; the measurements are kept`,
	}
	for _, rec := range codec.ReadWithEach(t, path) {
		if !slices.Equal(rec.Warnings, want) {
			t.Errorf("warnings:\n%s\nwant\n%s", strings.Join(rec.Warnings, "\n"), strings.Join(want, "\n"))
		}
		if len(rec.Evaluations) != 10 {
			t.Fatalf("%d evaluations, want the 10 entries", len(rec.Evaluations))
		}
		for _, ev := range rec.Evaluations {
			bx := ev.Config[0].Int()
			if ev.Status != result.OK || ev.Objective != 1.5 {
				t.Errorf("entry %d: %s %g, want its measurement, ok 1.5", bx, ev.Status, ev.Objective)
			}
			wantRuns, wantLaunch := 0, (*result.Launch)(nil)
			if bx == 9 {
				wantRuns, wantLaunch = 4, &result.Launch{Grid: [3]int{2, 1, 1}, Block: [3]int{64, 1, 1}}
			}
			if ev.RunsPerSample != wantRuns || !result.SameLaunch(ev.Launch, wantLaunch) {
				t.Errorf("entry %d: runs per sample %d, launch %v; want %d, %v", bx, ev.RunsPerSample, ev.Launch, wantRuns, wantLaunch)
			}
		}
	}
}

// Thousands of entries with one malformed field give one warning that counts them, not a
// line each.
func TestReadCountsRepeatedMalformedExportFields(t *testing.T) {
	const n = 5000
	var b strings.Builder
	b.WriteString(`{"tune_params_keys": ["bx"], "cache": {`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "\n%q: {\"bx\": %d, \"time\": 2, \"ktune_launch\": {\"grid\": [1, 1, 1], \"block\": [0, 1, 1]}}", strconv.Itoa(i), i)
	}
	b.WriteString("\n}}")
	path := filepath.Join(t.TempDir(), "many.json")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	rec, err := format.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	want := path + `: 5000 entries have a malformed "ktune_launch" (entry "0" at line 2: block[0] is the number 0, want a whole number from 1 to 2147483647; ` +
		`entry "1" at line 3: block[0] is the number 0, want a whole number from 1 to 2147483647; entry "2" at line 4: block[0] is the number 0, want a whole number from 1 to 2147483647; ` +
		`and 4997 more); the values are left out; the measurements are kept`
	// the other warning says that bx's values come from the entries (tune_params lacks it)
	launch := slices.DeleteFunc(slices.Clone(rec.Warnings), func(w string) bool { return !strings.Contains(w, "ktune_launch") })
	if len(rec.Warnings) != 2 || len(launch) != 1 || launch[0] != want {
		t.Errorf("warnings:\n%s\nwant one of ktune_launch:\n%s", strings.Join(rec.Warnings, "\n"), want)
	}
	if ok, _ := rec.Counts(); len(rec.Evaluations) != n {
		t.Errorf("%d evaluations (%d ok), want %d", len(rec.Evaluations), ok, n)
	}
}
