package ktt_test

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ktune/ktune/format/internal/formattest"
	"github.com/ktune/ktune/format/kerneltuner"
	"github.com/ktune/ktune/format/ktt"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
)

func writeRead(t *testing.T, rec *result.Recording) (*result.Recording, []byte) {
	t.Helper()
	var b bytes.Buffer
	if err := ktt.Write(&b, rec); err != nil {
		t.Fatal(err)
	}
	if !ktt.Sniff(b.Bytes()) {
		t.Fatalf("Write's output is not recognised as KTT output:\n%.500s", b.Bytes())
	}
	back, err := ktt.Read(bytes.NewReader(b.Bytes()), rec.Source)
	if err != nil {
		t.Fatalf("%v\n%.2000s", err, b.Bytes())
	}
	return back, b.Bytes()
}

// KTT's own files (profiling counters, compilation data, failures, overheads) come back
// the same through Write and Read.
func TestWriteRoundTripsKTTFiles(t *testing.T) {
	for _, path := range []string{coulomb, pnpoly} {
		t.Run(path, func(t *testing.T) {
			rec := readFile(t, path)
			back, _ := writeRead(t, rec)
			if d := formattest.Diff(rec, back); d != "" {
				t.Errorf("round trip differs:\n%s", d)
			}
		})
	}
}

// The layout is KTT 2.1's: the members its files have, a success's one computation result
// with the duration, a failure's none, and values typed as KTT types them.
func TestWriteHasKTTsLayout(t *testing.T) {
	rec := readFile(t, pnpoly)
	_, data := writeRead(t, rec)
	var doc struct {
		Metadata map[string]any
		Results  []map[string]json.RawMessage
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Metadata["TimeUnit"] != "Milliseconds" || doc.Metadata["Device"] != "NVIDIA GeForce RTX 2080 Ti" || len(doc.Results) != 4092 {
		t.Fatalf("metadata %v, %d results", doc.Metadata, len(doc.Results))
	}
	for _, k := range []string{"ComputationResults", "Configuration", "DataMovementOverhead", "ExtraDuration", "KernelName",
		"SearcherOverhead", "Status", "TotalDuration", "TotalOverhead", "ValidationOverhead"} {
		if _, ok := doc.Results[0][k]; !ok {
			t.Errorf("result 0 lacks %s", k)
		}
	}
	statuses := map[string]int{}
	for i, r := range doc.Results {
		var status string
		var comps []map[string]any
		var config []map[string]any
		if json.Unmarshal(r["Status"], &status) != nil || json.Unmarshal(r["ComputationResults"], &comps) != nil ||
			json.Unmarshal(r["Configuration"], &config) != nil {
			t.Fatalf("result %d does not decode", i)
		}
		statuses[status]++
		if (status == "Ok") != (len(comps) == 1) {
			t.Fatalf("result %d: status %s with %d computation results", i, status, len(comps))
		}
		if status == "Ok" && (comps[0]["KernelFunction"] != "Pnpoly" || comps[0]["Duration"] != rec.Evaluations[i].Objective) {
			t.Fatalf("result %d: computation %v, want Pnpoly of %v ms", i, comps[0], rec.Evaluations[i].Objective)
		}
		if config[0]["Name"] != "VERTICES" || config[0]["ValueType"] != "UnsignedInt" {
			t.Fatalf("result %d: configuration %v", i, config)
		}
	}
	// counted off the file with Python's json module
	if statuses["Ok"] != 3815 || statuses["ComputationFailed"] != 277 || len(statuses) != 2 {
		t.Errorf("statuses %v, want 3815 Ok and 277 ComputationFailed", statuses)
	}
}

// A Kernel Tuner cache with another objective (GFLOPS/W) keeps its kernel times as the
// durations and the objective as a counter of its name; its restricted configurations
// are left out, as KTT never lists them.
func TestWriteKernelTunerCacheWithAnotherObjective(t *testing.T) {
	f, err := os.Open(testdata + "/kernel_tuner/time_energy.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rec, err := kerneltuner.Read(f, "time_energy.json")
	if err != nil {
		t.Fatal(err)
	}
	// as a run tuned for GFLOPS/W stores it: the objective, and the time as a metric
	rec.Objective, rec.Maximize = "GFLOPS/W", true
	for i := range rec.Evaluations {
		e := &rec.Evaluations[i]
		if !e.Failed() {
			e.Metrics["time"], e.Objective = e.Objective, e.Metrics["GFLOPS/W"]
			delete(e.Metrics, "GFLOPS/W")
		}
	}
	back, _ := writeRead(t, rec)
	if back.Objective != "time" || back.Device != rec.Device || back.Kernel != rec.Kernel {
		t.Errorf("objective %q, device %q, kernel %q", back.Objective, back.Device, back.Kernel)
	}
	var kept []result.Evaluation
	for _, e := range rec.Evaluations {
		if e.Status != result.Restricted {
			kept = append(kept, e)
		}
	}
	if len(back.Evaluations) != len(kept) || len(kept) == 0 {
		t.Fatalf("%d evaluations back, want the %d not restricted", len(back.Evaluations), len(kept))
	}
	for i, e := range kept {
		b := back.Evaluations[i]
		if b.Status != e.Status {
			t.Errorf("evaluation %d: status %v, want %v", i, b.Status, e.Status)
		}
		if e.Failed() {
			continue
		}
		tm, _ := e.TimeMS(rec.Objective)
		if b.Objective != tm || b.Metrics["GFLOPS/W"] != e.Objective {
			t.Errorf("evaluation %d: time %v and GFLOPS/W %v, want %v and %v", i, b.Objective, b.Metrics["GFLOPS/W"], tm, e.Objective)
		}
		for k, v := range e.Metrics {
			if k != "time" && b.Metrics[k] != v {
				t.Errorf("evaluation %d: metric %s %v, want %v", i, k, b.Metrics[k], v)
			}
		}
	}
}

// Every value kind, the statuses KTT has (a timeout becomes ComputationFailed), the
// per-result timestamp and the metrics KTT keeps elsewhere come back.
func TestWriteEveryKindAndStatus(t *testing.T) {
	at := time.Date(2024, 3, 4, 5, 6, 7, 123000, time.UTC)
	rec := &result.Recording{Device: "dev", Kernel: "k", Objective: "time", Params: []space.Param{
		{Name: "i", Values: []space.Value{space.IntValue(-2), space.IntValue(3)}},
		{Name: "f", Values: []space.Value{space.FloatValue(0.5), space.FloatValue(2)}},
		{Name: "b", Values: []space.Value{space.BoolValue(false), space.BoolValue(true)}},
		{Name: "s", Values: []space.Value{space.StringValue("x"), space.StringValue("y z")}},
	}}
	statuses := []result.Status{result.OK, result.CompileError, result.RuntimeError, result.WrongAnswer, result.DeviceLimit, result.Timeout}
	for k, s := range statuses {
		e := result.Evaluation{Config: []space.Value{rec.Params[0].Values[k%2], rec.Params[1].Values[k/2%2], rec.Params[2].Values[k%2], rec.Params[3].Values[k/3]},
			Status: s, Objective: math.NaN(), CompileMS: 1.25, VerifyMS: 0.5, FrameworkMS: 3, StrategyMS: 0.125, BenchmarkMS: 7, Time: at}
		if s == result.OK {
			e.Objective = 0.75
			e.Metrics = map[string]float64{"registers": 40, "power": 250, "energy": 0.2, "l2_hits": 17, "extra_duration": 0.01, "total_overhead": 9}
		}
		rec.Evaluations = append(rec.Evaluations, e)
	}
	back, _ := writeRead(t, rec)
	for i, want := range rec.Evaluations {
		b := back.Evaluations[i]
		ws := want.Status
		if ws == result.Timeout {
			ws = result.RuntimeError
		}
		if b.Status != ws || !b.Time.Equal(at) || b.VerifyMS != 0.5 || b.FrameworkMS != 3 || b.StrategyMS != 0.125 || b.BenchmarkMS != 7 {
			t.Errorf("evaluation %d: %+v", i, b)
		}
		for j, v := range want.Config {
			if !b.Config[j].Equal(v) || b.Config[j].Kind() != v.Kind() {
				t.Errorf("evaluation %d: %s = %v (%v), want %v (%v)", i, rec.Params[j].Name, b.Config[j], b.Config[j].Kind(), v, v.Kind())
			}
		}
		if ws == result.OK {
			if b.Objective != 0.75 || b.CompileMS != 1.25 {
				t.Errorf("evaluation %d: objective %v, compile %v", i, b.Objective, b.CompileMS)
			}
			for k, v := range want.Metrics {
				if b.Metrics[k] != v {
					t.Errorf("evaluation %d: metric %s %v, want %v", i, k, b.Metrics[k], v)
				}
			}
		}
	}
}

// A success without a kernel time cannot be written: KTT records durations.
func TestWriteRefusesASuccessWithoutATime(t *testing.T) {
	rec := &result.Recording{Objective: "GFLOPS", Maximize: true, Params: []space.Param{{Name: "a", Values: []space.Value{space.IntValue(1)}}},
		Evaluations: []result.Evaluation{{Config: []space.Value{space.IntValue(1)}, Status: result.OK, Objective: 5}}}
	err := ktt.Write(&bytes.Buffer{}, rec)
	if err == nil || !strings.Contains(err.Error(), "evaluation 0 (a=1)") || !strings.Contains(err.Error(), "no kernel time") {
		t.Errorf("got %v", err)
	}
}

// Losses names each thing Write leaves out, and only what it leaves out: a recording KTT
// output holds whole has none and reads back the same; each change that KTT has no place
// for is named once and does not read back (a value only a restricted configuration has
// is lost with it).
func TestLossesNamesWhatWriteLeavesOut(t *testing.T) {
	for _, path := range []string{coulomb, pnpoly} {
		if l := ktt.Losses(readFile(t, path)); len(l) > 0 {
			t.Errorf("%s: Losses %q for KTT's own output", path, l)
		}
	}
	at := time.Date(2024, 3, 4, 5, 6, 7, 123000, time.UTC)
	base := func() *result.Recording {
		a := []space.Value{space.IntValue(1), space.IntValue(2), space.IntValue(3)}
		return &result.Recording{Format: ktt.Name, Device: "dev", Backend: "opencl", Kernel: "k", Objective: "time",
			Params: []space.Param{{Name: "a", Values: a[:2]}},
			Evaluations: []result.Evaluation{
				{Config: a[:1], Status: result.OK, Objective: 0.75, CompileMS: 1.25, VerifyMS: 0.5, BenchmarkMS: 7, FrameworkMS: 3, StrategyMS: 0.125, Time: at,
					Metrics: map[string]float64{"registers": 40}, Launch: &result.Launch{Grid: [3]int{8, 2, 1}, Block: [3]int{32, 4, 1}}},
				{Config: a[1:2], Status: result.RuntimeError, Objective: math.NaN(), CompileMS: math.NaN(), BenchmarkMS: 0, FrameworkMS: 2, StrategyMS: 0.25, Time: at},
			}}
	}
	for _, tc := range []struct {
		name   string
		change func(rec *result.Recording)
		lost   string
	}{
		{"nothing", func(*result.Recording) {}, ""},
		{"objective", func(r *result.Recording) {
			r.Objective, r.Maximize = "GFLOP/s", true
			r.Evaluations[0].Metrics["time"], r.Evaluations[0].Objective = 0.75, 12
		}, "the objective GFLOP/s"},
		{"direction", func(r *result.Recording) { r.Maximize = true }, "the objective's direction"},
		{"problem size", func(r *result.Recording) { r.ProblemSize = "[4096,4096]" }, "the problem size [4096,4096]"},
		{"restrictions", func(r *result.Recording) { r.Restrictions = []string{"a < 3", "a > 0"} }, "the 2 restrictions"},
		{"unused value", func(r *result.Recording) { r.Params[0].Values = append(r.Params[0].Values, space.IntValue(3)) },
			"the parameter values no configuration has (a=3)"},
		{"restricted", func(r *result.Recording) {
			r.Params[0].Values = append(r.Params[0].Values, space.IntValue(3))
			r.Evaluations = append(r.Evaluations, result.Evaluation{Config: []space.Value{space.IntValue(3)}, Status: result.Restricted, Objective: math.NaN()})
		}, "the configuration the restrictions exclude"},
		{"samples", func(r *result.Recording) { r.Evaluations[0].Samples = []float64{0.7, 0.8} }, "the timing samples of 1 configuration"},
		{"message", func(r *result.Recording) { r.Evaluations[1].Message = "crashed" }, "the failure message of 1 configuration"},
		{"devices", func(r *result.Recording) { r.Evaluations[0].Device, r.Evaluations[1].Device = "opencl:1", "opencl:0" },
			"the devices that measured 2 configurations (opencl:1, opencl:0)"},
		{"timeout", func(r *result.Recording) { r.Evaluations[1].Status = result.Timeout }, "the timeout of 1 configuration"},
		{"failure's compile time", func(r *result.Recording) { r.Evaluations[1].CompileMS = 30 }, "the compile time of 1 failed configuration"},
		{"failure's metrics", func(r *result.Recording) { r.Evaluations[1].Metrics = map[string]float64{"GFLOP/s": 5} }, "the metrics of 1 failed configuration"},
		{"failure's launch", func(r *result.Recording) { r.Evaluations[1].Launch = r.Evaluations[0].Launch }, "the launch sizes of 1 failed configuration"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := base()
			tc.change(rec)
			lost := ktt.Losses(rec)
			back, _ := writeRead(t, rec)
			d := formattest.Diff(rec, back)
			if tc.lost == "" {
				if len(lost) > 0 || d != "" {
					t.Errorf("Losses %q; round trip differs: %s", lost, d)
				}
				return
			}
			named := 0
			for _, l := range lost {
				if strings.HasPrefix(l, tc.lost) {
					named++
				}
			}
			if named != 1 {
				t.Errorf("Losses %q, want one beginning %q", lost, tc.lost)
			}
			if d == "" {
				t.Errorf("Losses names %q, but it reads back the same", lost)
			}
		})
	}
}
