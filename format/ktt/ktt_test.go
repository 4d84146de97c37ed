package ktt_test

import (
	"bytes"
	"compress/gzip"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ktune/ktune/format/internal/formattest"
	"github.com/ktune/ktune/format/ktt"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
)

const testdata = "../../testdata"

var (
	coulomb = filepath.Join(testdata, "ktt/coulomb_sum_3d/RTX_2080_Ti.json.gz")
	pnpoly  = filepath.Join(testdata, "benchmark_hub/ktt_pnpoly/RTX_2080_Ti.json.gz")
)

func readFile(t *testing.T, path string) *result.Recording {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rec, err := ktt.Read(f, path)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func readString(src string) (*result.Recording, error) {
	return ktt.Read(strings.NewReader(src), "test.json")
}

func TestReadMatchesIndependentReading(t *testing.T) {
	// Counts and best times (ms) read off the files with Python's json module.
	tests := []struct {
		path         string
		total, valid int
		best         float64
		params       []string
	}{
		{coulomb, 210, 210, 0.769696, []string{"WORK_GROUP_SIZE_X", "WORK_GROUP_SIZE_Y", "INNER_UNROLL_FACTOR", "Z_ITERATIONS", "USE_CONSTANT_MEMORY", "USE_SOA", "VECTOR_SIZE", "WORK_GROUP_SIZE_Z"}},
		{pnpoly, 4092, 3815, 8.023776, []string{"VERTICES", "BLOCK_SIZE_X", "TILE_SIZE", "BETWEEN_METHOD", "USE_METHOD"}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			want, err := formattest.KTTStats(tt.path)
			if err != nil {
				t.Fatal(err)
			}
			rec := readFile(t, tt.path)
			formattest.CheckStats(t, rec, want)
			total, valid := rec.Counts()
			best, _ := rec.Best()
			if total != tt.total || valid != tt.valid || math.Abs(best.Objective-tt.best) > 1e-12 {
				t.Errorf("got %d/%d best %v, want %d/%d best %v", total, valid, best.Objective, tt.total, tt.valid, tt.best)
			}
			if len(rec.Params) != len(tt.params) {
				t.Fatalf("%d params", len(rec.Params))
			}
			for i, p := range rec.Params {
				if p.Name != tt.params[i] {
					t.Errorf("param %d = %s, want %s", i, p.Name, tt.params[i])
				}
				for j := 1; j < len(p.Values); j++ {
					if !p.Values[j-1].Less(p.Values[j]) {
						t.Errorf("%s values not strictly ascending: %v", p.Name, p.Values)
					}
				}
			}
			if rec.Device != "NVIDIA GeForce RTX 2080 Ti" || rec.Format != ktt.Name || rec.Objective != "time" || rec.Maximize {
				t.Errorf("header %q %q %q %v", rec.Device, rec.Format, rec.Objective, rec.Maximize)
			}
		})
	}
}

func TestReadMetricsFromProfilingAndCompilationData(t *testing.T) {
	rec := readFile(t, coulomb)
	e := rec.Evaluations[0]
	// The first result: Duration 3037.408 us, RegistersCount 66, 33 counters.
	if !near(e.Objective, 3.037408) {
		t.Errorf("objective %v", e.Objective)
	}
	if e.Metrics["registers"] != 66 || e.Metrics["max_work_group_size"] != 896 || e.Metrics["dram__throughput.avg.pct_of_peak_sustained_elapsed"] != 6.515303129123792 {
		t.Errorf("metrics %v", e.Metrics)
	}
	counters := 0
	for k := range e.Metrics {
		if strings.Contains(k, "__") {
			counters++
		}
	}
	if counters != 33 {
		t.Errorf("%d counters, want 33", counters)
	}
	if !near(e.VerifyMS, 0.010363) || !near(e.StrategyMS, 0.035744) || !near(e.BenchmarkMS, 3.037408) {
		t.Errorf("timings %v %v %v", e.VerifyMS, e.StrategyMS, e.BenchmarkMS)
	}
	// Framework time: the rest of TotalOverhead (1112883.958 us) beside the searcher's
	// (35.744 us) and validation (10.363 us): data movement (45836.648 us), kernel overhead
	// (28046.229 us) and 1038954.974 us that KTT 2.1 counts in the total but writes in no
	// member of its own.
	if math.Abs(e.FrameworkMS-(1112.883958-0.035744-0.010363)) > 1e-9 {
		t.Errorf("framework %v", e.FrameworkMS)
	}
	for _, v := range e.Config {
		if v.Kind() != space.Int {
			t.Errorf("config value %v of kind %v", v, v.Kind())
		}
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Abs(b) }

func result1(status, extra string) string {
	return `{"Metadata": {"Device": "GPU", "TimeUnit": "Milliseconds"}, "Results": [{"KernelName": "k", "Status": "` + status + `",
"Configuration": [{"Name": "A", "Value": 1, "ValueType": "UnsignedInt"}, {"Name": "B", "Value": 2.0, "ValueType": "Double"}, {"Name": "C", "Value": 2, "ValueType": "Double"}],
"ComputationResults": [` + extra + `], "TotalDuration": 5.0, "SearcherOverhead": 1}]}`
}

func TestReadStatuses(t *testing.T) {
	tests := []struct {
		status string
		want   result.Status
	}{
		{"Ok", result.OK},
		{"CompilationFailed", result.CompileError},
		{"ComputationFailed", result.RuntimeError},
		{"ValidationFailed", result.WrongAnswer},
		{"DeviceLimitsExceeded", result.DeviceLimit},
	}
	for _, tt := range tests {
		t.Run(tt.status, func(t *testing.T) {
			rec, err := readString(result1(tt.status, `{"KernelFunction": "f", "Duration": 2.5, "Overhead": 1}`))
			if err != nil {
				t.Fatal(err)
			}
			e := rec.Evaluations[0]
			if e.Status != tt.want || (e.Status == result.OK) == math.IsNaN(e.Objective) {
				t.Errorf("status %v objective %v", e.Status, e.Objective)
			}
		})
	}
}

func TestReadSumsKernelFunctionsAndKeepsTypes(t *testing.T) {
	rec, err := readString(result1("Ok", `{"KernelFunction": "f", "Duration": 2.5, "Overhead": 1, "CompilationData": {"RegistersCount": 10}},
{"KernelFunction": "g", "Duration": 1.5, "Overhead": 1, "CompilationOverhead": 3, "CompilationData": {"RegistersCount": 20},
 "ProfilingData": {"Counters": [{"Name": "c", "Type": "UnsignedInt", "Value": 7}]}, "PowerUsage": 100}`))
	if err != nil {
		t.Fatal(err)
	}
	e := rec.Evaluations[0]
	if e.Objective != 4 || e.CompileMS != 3 || e.FrameworkMS != 2 {
		t.Errorf("objective %v compile %v framework %v", e.Objective, e.CompileMS, e.FrameworkMS)
	}
	if e.Metrics["f/registers"] != 10 || e.Metrics["g/registers"] != 20 || e.Metrics["g/c"] != 7 || e.Metrics["g/power"] != 100 {
		t.Errorf("metrics %v", e.Metrics)
	}
	kinds := []space.Kind{space.Int, space.Float, space.Float}
	for i, v := range e.Config {
		if v.Kind() != kinds[i] {
			t.Errorf("config[%d] = %v of kind %v, want %v", i, v, v.Kind(), kinds[i])
		}
	}
}

func TestReadConvertsTimeUnits(t *testing.T) {
	for unit, factor := range map[string]float64{"Nanoseconds": 1e-6, "Microseconds": 1e-3, "Milliseconds": 1, "Seconds": 1e3} {
		src := strings.Replace(result1("Ok", `{"KernelFunction": "f", "Duration": 2000}`), "Milliseconds", unit, 1)
		rec, err := readString(src)
		if err != nil {
			t.Fatal(err)
		}
		if got := rec.Evaluations[0].Objective; math.Abs(got-2000*factor) > 1e-12*got {
			t.Errorf("%s: objective %v ms, want %v", unit, got, 2000*factor)
		}
	}
}

func TestReadRejectsBadFiles(t *testing.T) {
	good := `{"Metadata": {"TimeUnit": "Microseconds"}, "Results": [
{"Status": "Ok", "Configuration": [{"Name": "A", "Value": 1}], "ComputationResults": [{"Duration": 1}]},
{"Status": "Ok", "Configuration": [{"Name": "A", "Value": 2}], "ComputationResults": [{"Duration": 2}]}]}`
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"no metadata", `{"Results": []}`, []string{"no Metadata"}},
		{"unknown time unit", strings.Replace(good, "Microseconds", "Ticks", 1), []string{"test.json:1:", `"Ticks"`}},
		{"unknown status", strings.Replace(good, `"Status": "Ok", "Configuration": [{"Name": "A", "Value": 2}]`, `"Status": "Fine", "Configuration": [{"Name": "A", "Value": 2}]`, 1), []string{"test.json:3:", "result 1", `"Fine"`}},
		{"other parameter", strings.Replace(good, `"Name": "A", "Value": 2`, `"Name": "B", "Value": 2`, 1), []string{"result 1", `"B"`}},
		{"parameter value not a number", strings.Replace(good, `"Value": 2`, `"Value": [2]`, 1), []string{"result 1", `"A"`}},
		{"no duration", strings.Replace(good, `{"Duration": 2}`, `{}`, 1), []string{"result 1", "Duration"}},
		{"duration a string", strings.Replace(good, `"Duration": 2`, `"Duration": "2"`, 1), []string{"result 1", "test.json:3:"}},
		{"truncated", good[:len(good)-30], []string{"truncated"}},
		{"garbage", strings.Replace(good, `"Status": "Ok", "Configuration": [{"Name": "A", "Value": 2}]`, `"Status": "Ok" "Configuration": [{"Name": "A", "Value": 2}]`, 1), []string{"test.json:3:", "invalid JSON"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := readString(tt.src)
			formattest.Refused(t, err, tt.want)
		})
	}
}

func TestReadPlainAndGzipAlike(t *testing.T) {
	raw, err := os.ReadFile(coulomb)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	var plain bytes.Buffer
	if _, err := plain.ReadFrom(zr); err != nil {
		t.Fatal(err)
	}
	a, err := ktt.Read(bytes.NewReader(raw), coulomb)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ktt.Read(&plain, coulomb)
	if err != nil {
		t.Fatal(err)
	}
	if d := formattest.Diff(a, b); d != "" {
		t.Error(d)
	}
}

func TestSniff(t *testing.T) {
	tests := []struct {
		src  string
		want bool
	}{
		{`{"Metadata": {"KttVersion": "2.1.0"}, "Results": []}`, true},
		{`{"ConfigurationSpace": {}, "Search": {}, "General": {}, "KernelSpecification": {}}`, false},
		{`{"results": [], "schema_version": "1.0.0"}`, false},
		{`{"tune_params_keys": [], "cache": {}}`, false},
	}
	for _, tt := range tests {
		if got := ktt.Sniff([]byte(tt.src)); got != tt.want {
			t.Errorf("Sniff(%s) = %v", tt.src, got)
		}
	}
}

func TestReadWarningNamesTheResultsWithoutKernelDurations(t *testing.T) {
	src := `{"Metadata": {"Device": "GPU", "TimeUnit": "Milliseconds"}, "Results": [
{"KernelName": "k", "Status": "Ok", "Configuration": [{"Name": "A", "Value": 1, "ValueType": "UnsignedInt"}],
 "ComputationResults": [{"KernelFunction": "f", "Duration": 2.5, "Overhead": 1}], "TotalDuration": 5.0},
{"KernelName": "k", "Status": "Ok", "Configuration": [{"Name": "A", "Value": 2, "ValueType": "UnsignedInt"}],
 "ComputationResults": [], "TotalDuration": 4.0}]}`
	rec, err := readString(src)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`test.json: 1 Ok result has no kernel durations (result 1 at line 4); its objective is TotalDuration`}
	if !slices.Equal(rec.Warnings, want) {
		t.Errorf("warnings\n%q\nwant\n%q", rec.Warnings, want)
	}
	if e := rec.Evaluations[1]; e.Objective != 4 {
		t.Errorf("objective %v, want TotalDuration 4", e.Objective)
	}
}

// KTT 2.1's output has no CompilationOverhead (the recorded files hold none): their compile
// time is unknown, not 0 ms, so that an export says so (Kernel Tuner's ktune_unrecorded, no
// T4 "compilation") instead of claiming every kernel compiled in no time. A failure without
// computation results has none either; a file that records it is summed as before.
func TestReadLeavesCompileTimeUnknownWhereKTTHasNone(t *testing.T) {
	for _, path := range []string{coulomb, pnpoly} {
		rec := readFile(t, path)
		for i, e := range rec.Evaluations {
			if !math.IsNaN(e.CompileMS) {
				t.Fatalf("%s: evaluation %d (%v): compile time %v, want unknown (NaN)", path, i, e.Status, e.CompileMS)
			}
		}
	}
	rec, err := readString(result1("CompilationFailed", ""))
	if err != nil {
		t.Fatal(err)
	}
	if c := rec.Evaluations[0].CompileMS; !math.IsNaN(c) {
		t.Errorf("failure without computation results: compile time %v, want NaN", c)
	}
	rec, err = readString(result1("Ok", `{"KernelFunction": "f", "Duration": 2.5, "Overhead": 1, "CompilationOverhead": 0}`))
	if err != nil {
		t.Fatal(err)
	}
	if c := rec.Evaluations[0].CompileMS; c != 0 {
		t.Errorf("CompilationOverhead 0: compile time %v, want 0", c)
	}
}

// TotalOverhead is KTT's sum of all its overheads, of which KTT 2.1 writes some members
// and not others (the creation of a kernel that failed, among them): the verification,
// compile and framework times Read makes of a result add up, with the searcher's time, to
// the whole total, each member counted once. Without a total, or with one smaller than the
// searcher's, validation and compile times, framework time is the members that hold it.
func TestReadFrameworkTimeIsTheRestOfTheTotalOverhead(t *testing.T) {
	tests := []struct {
		name                       string
		status, computation, extra string
		compile, verify, framework float64
	}{
		{"KTT 2.1 success", "Ok", `{"KernelFunction": "f", "Duration": 2, "Overhead": 3}`,
			`, "DataMovementOverhead": 4, "ValidationOverhead": 0.5, "TotalOverhead": 20`, math.NaN(), 0.5, 20 - 1 - 0.5},
		{"KTT 2.1 failure", "ComputationFailed", ``,
			`, "DataMovementOverhead": 4, "TotalOverhead": 300`, math.NaN(), 0, 300 - 1},
		{"compilation recorded", "Ok", `{"KernelFunction": "f", "Duration": 2, "Overhead": 3, "CompilationOverhead": 6}`,
			`, "DataMovementOverhead": 4, "ValidationOverhead": 0.5, "TotalOverhead": 20`, 6, 0.5, 20 - 1 - 0.5 - 6},
		{"no total", "Ok", `{"KernelFunction": "f", "Duration": 2, "Overhead": 3}`,
			`, "DataMovementOverhead": 4, "ProfilingOverhead": 0.25`, math.NaN(), 0, 4 + 3 + 0.25},
		{"total smaller than its parts", "Ok", `{"KernelFunction": "f", "Duration": 2, "Overhead": 3, "CompilationOverhead": 6}`,
			`, "DataMovementOverhead": 4, "TotalOverhead": 5`, 6, 0, 4 + 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := strings.Replace(result1(tt.status, tt.computation), `"SearcherOverhead": 1`, `"SearcherOverhead": 1`+tt.extra, 1)
			rec, err := readString(src)
			if err != nil {
				t.Fatal(err)
			}
			e := rec.Evaluations[0]
			if !sameFloat(e.CompileMS, tt.compile) || e.VerifyMS != tt.verify || e.FrameworkMS != tt.framework || e.StrategyMS != 1 || e.BenchmarkMS != 5 {
				t.Errorf("compile %v verify %v framework %v strategy %v benchmark %v, want %v %v %v 1 5",
					e.CompileMS, e.VerifyMS, e.FrameworkMS, e.StrategyMS, e.BenchmarkMS, tt.compile, tt.verify, tt.framework)
			}
		})
	}
}

func sameFloat(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }

// Reading the benchmark hub's pnpoly KTT output (4,092 results) with the fast reader and with the decoder-based one alone, for the ratio
// between them: go test -run '^$' -bench Read -benchmem ./format/ktt
func BenchmarkRead(b *testing.B) {
	codec.BenchmarkRead(b, pnpoly)
}
