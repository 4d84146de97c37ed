package t4_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/ktune/ktune/format"
	"github.com/ktune/ktune/format/internal/formattest"
	"github.com/ktune/ktune/format/t4"
	"github.com/ktune/ktune/result"
)

// roundTripValid writes rec and reads it back, checks that the file is valid by the T4
// schema and reads back as rec, and returns what Write wrote.
func roundTripValid(t *testing.T, rec *result.Recording) []byte {
	t.Helper()
	back, written := roundTrip(t, rec)
	rec.Format = t4.Name
	if d := formattest.Diff(rec, back); d != "" {
		t.Errorf("round trip differs:\n%s", d)
	}
	if errs := loadSchema(t).Validate(decodeDoc(t, written)); len(errs) > 0 {
		t.Errorf("schema violations: %q", errs)
	}
	return written
}

// written decodes what Write wrote.
func written(t *testing.T, rec *result.Recording) map[string]any {
	t.Helper()
	var b bytes.Buffer
	if err := t4.Write(&b, rec); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	return doc
}

func TestWriteGivesTheProblemSizeAsAnArrayOfIntegers(t *testing.T) {
	for in, want := range map[string]string{"128,128": "[128,128]", "400000": "[400000]", "[1,2]": "[1,2]", "N*M": `"N*M"`} {
		rec := handMade()
		rec.ProblemSize = in
		meta, _ := written(t, rec)["metadata"].(map[string]any)
		got, _ := json.Marshal(meta["problem_size"])
		if string(got) != want {
			t.Errorf("problem size %q written as %s, want %s", in, got, want)
		}
	}
}

// Exporting the benchmark hub's T4 file gives back what it holds: failures are not
// correct, and no timing it lacks (it has no "benchmark") is invented.
func TestWriteKeepsCorrectnessAndTimingsOfARealFile(t *testing.T) {
	type res struct {
		Invalidity  string         `json:"invalidity"`
		Correctness float64        `json:"correctness"`
		Times       map[string]any `json:"times"`
	}
	var orig, out struct {
		Results []res `json:"results"`
	}
	data := gunzipFile(t, realT4)
	if err := json.Unmarshal(data, &orig); err != nil {
		t.Fatal(err)
	}
	_, written := roundTrip(t, readT4(t, realT4))
	if err := json.Unmarshal(written, &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Results) != len(orig.Results) {
		t.Fatalf("%d results, original %d", len(out.Results), len(orig.Results))
	}
	failures := 0
	for i, o := range orig.Results {
		w := out.Results[i]
		if o.Invalidity != "correct" {
			failures++
		}
		if w.Invalidity != o.Invalidity || w.Correctness != o.Correctness {
			t.Fatalf("result %d: invalidity %q correctness %v, original %q %v", i, w.Invalidity, w.Correctness, o.Invalidity, o.Correctness)
		}
		for k := range w.Times {
			if _, ok := o.Times[k]; !ok {
				t.Fatalf("result %d: times.%s written, the original has none", i, k)
			}
		}
		for k := range o.Times {
			if _, ok := w.Times[k]; !ok {
				t.Fatalf("result %d: times.%s lost", i, k)
			}
		}
	}
	if failures != 161 {
		t.Errorf("%d failures in the original, want the 161 compile and runtime failures", failures)
	}
}

// Every failure, timeouts included, has correctness 0; a tuned run's failure messages are
// kept (in ktune_message: T4 has no field for them) and read back.
func TestWriteMarksFailuresIncorrectAndKeepsTheirMessages(t *testing.T) {
	rec := handMade()
	for i := range rec.Evaluations {
		if e := &rec.Evaluations[i]; e.Status != result.OK {
			e.Message = "failed: " + e.Status.String()
		}
	}
	rec.Evaluations[0].CompileMS = math.NaN() // not recorded: left out, and read back so
	written := roundTripValid(t, rec)
	var doc struct {
		Results []struct {
			Correctness int            `json:"correctness"`
			Times       map[string]any `json:"times"`
		} `json:"results"`
	}
	if err := json.Unmarshal(written, &doc); err != nil {
		t.Fatal(err)
	}
	for i, r := range doc.Results {
		want := 0
		if rec.Evaluations[i].Status == result.OK {
			want = 1
		}
		if r.Correctness != want {
			t.Errorf("%v: correctness %d, want %d", rec.Evaluations[i].Status, r.Correctness, want)
		}
	}
	if _, ok := doc.Results[0].Times["compilation"]; ok {
		t.Errorf("an unrecorded compilation time is written: %v", doc.Results[0].Times)
	}
}

func gunzipFile(t *testing.T, path string) []byte {
	t.Helper()
	f := mustOpen(t, path)
	defer f.Close()
	data, err := format.ReadAll(f, path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// T4 has no device-limit invalidity. The export says "runtime" (the device would not run
// it), not "constraints", which reads back as restricted: a complete run with device-limit
// failures would then seem to lack configurations its restrictions allow. ktune_status
// keeps the status exactly.
func TestWriteKeepsTheDeviceLimitStatus(t *testing.T) {
	rec := handMade()
	rec.Evaluations[1].Status = result.DeviceLimit
	rec.Evaluations[1].Message = "block size 8192 exceeds the device's maximum of 4096"
	out := roundTripValid(t, rec)
	var doc struct {
		Results []map[string]any `json:"results"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	for i, r := range doc.Results {
		st := rec.Evaluations[i].Status
		_, hasStatus := r["ktune_status"]
		switch {
		case st == result.DeviceLimit && (r["invalidity"] != "runtime" || r["ktune_status"] != "device_limit"):
			t.Errorf("device_limit written as invalidity %v, ktune_status %v", r["invalidity"], r["ktune_status"])
		case st != result.DeviceLimit && hasStatus:
			t.Errorf("%v written with ktune_status %v, which its invalidity %v tells", st, r["ktune_status"], r["invalidity"])
		}
	}
	// A reader of T4 alone sees a runtime failure, never a restricted configuration.
	plain := strings.Replace(string(out), `"ktune_status": "device_limit", `, "", 1)
	other, err := t4.Read(strings.NewReader(plain), "plain.json")
	if err != nil || other.Evaluations[1].Status != result.RuntimeError {
		t.Errorf("without ktune_status it reads as %v, %v", other.Evaluations[1].Status, err)
	}
}

// Every result carries its time in ms, whatever the objective, as Kernel Tuner's T4
// writer has it: the time kept beside a metric objective, or for an evaluation stored
// before ktune kept it, the mean of its samples; a failure has none.
func TestWriteGivesEveryResultItsTime(t *testing.T) {
	rec := handMade()
	rec.Objective, rec.Maximize = "GB/s", true
	ok := &rec.Evaluations[0]
	ok.Objective, ok.Samples = 7, []float64{1, 2, 9}
	ok.Metrics = map[string]float64{"time": 2, "registers": 32}
	old := *ok
	old.Config = rec.Evaluations[1].Config
	old.Metrics = map[string]float64{"registers": 32} // as stored before: no time
	rec.Evaluations[1] = old
	doc := written(t, rec)
	results, _ := doc["results"].([]any)
	for i, want := range []any{2.0, 4.0, nil, nil} {
		r := results[i].(map[string]any)
		var got any
		for _, m := range r["measurements"].([]any) {
			if m := m.(map[string]any); m["name"] == "time" {
				if m["unit"] != "ms" {
					t.Errorf("result %d: time in %q", i, m["unit"])
				}
				got = m["value"]
			}
		}
		if got != want {
			t.Errorf("result %d (%v): time %v, want %v", i, rec.Evaluations[i].Status, got, want)
		}
	}
	back, _ := roundTrip(t, rec)
	if tm, ok := back.Evaluations[1].TimeMS(back.Objective); !ok || tm != 4 || back.Evaluations[1].Metrics["time"] != 4 {
		t.Errorf("the time reads back as %v %v, metrics %v", tm, ok, back.Evaluations[1].Metrics)
	}
}

// The device that measured each result (a run on several devices) is kept in
// ktune_device, a member of ktune's own as the schema allows, and read back; a result no
// device measured has none.
func TestWriteKeepsTheDeviceThatMeasuredEachResult(t *testing.T) {
	rec := handMade()
	devices := []string{"opencl:0", "opencl:1", "", "opencl:1", "opencl:0", ""}
	for i := range rec.Evaluations {
		rec.Evaluations[i].Device = devices[i]
		if devices[i] != "" { // and, as ktune measured them, their launches and runs per sample
			rec.Evaluations[i].Launch = &result.Launch{Grid: [3]int{64 * (i + 1), 1, 1}, Block: [3]int{32, 2, 1}}
			rec.Evaluations[i].RunsPerSample = i + 1
		}
	}
	written := roundTripValid(t, rec)
	var doc struct {
		Results []map[string]any `json:"results"`
	}
	if err := json.Unmarshal(written, &doc); err != nil {
		t.Fatal(err)
	}
	for i, r := range doc.Results {
		got, ok := r["ktune_device"]
		if want := devices[i]; (want == "" && ok) || (want != "" && got != want) {
			t.Errorf("result %d: ktune_device %v (present %v), want %q", i, got, ok, want)
		}
		launch, _ := json.Marshal(r["ktune_launch"])
		if want := fmt.Sprintf(`{"block":[32,2,1],"grid":[%d,1,1]}`, 64*(i+1)); devices[i] != "" &&
			(string(launch) != want || r["ktune_runs_per_sample"] != float64(i+1)) {
			t.Errorf("result %d: ktune_launch %s, ktune_runs_per_sample %v; want %s and %d", i, launch, r["ktune_runs_per_sample"], want, i+1)
		}
	}
}
