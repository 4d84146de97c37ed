package result

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ktune/ktune/space"
)

// A configuration measured again keeps its last measurement, in the position of that
// measurement, with one warning naming the first one dropped; 1 and True stay apart.
func TestKeepLastDropsEarlierMeasurementsOfAConfiguration(t *testing.T) {
	iv := space.IntValue
	rec := &Recording{Source: "f.json", Params: []space.Param{{Name: "bx"}}, Evaluations: []Evaluation{
		{Config: []space.Value{iv(32)}, Objective: 3},
		{Config: []space.Value{iv(64)}, Objective: 2},
		{Config: []space.Value{iv(32)}, Objective: 1},
		{Config: []space.Value{iv(1)}, Objective: 5},
		{Config: []space.Value{space.BoolValue(true)}, Objective: 6},
	}}
	if n := rec.KeepLast(); n != 1 {
		t.Fatalf("dropped %d, want 1", n)
	}
	var got []float64
	for _, e := range rec.Evaluations {
		got = append(got, e.Objective)
	}
	if !slices.Equal(got, []float64{2, 1, 5, 6}) {
		t.Errorf("kept objectives %v, want [2 1 5 6]", got)
	}
	if len(rec.Warnings) != 1 || !strings.Contains(rec.Warnings[0], "f.json: 1 measurement is of a configuration measured again later (bx=32); the last measurement is kept") {
		t.Errorf("warnings %q", rec.Warnings)
	}
	if n := rec.KeepLast(); n != 0 || len(rec.Warnings) != 1 {
		t.Errorf("a second KeepLast dropped %d and warned %q", n, rec.Warnings)
	}
}

// A time of zero or less is no measurement: it becomes a runtime error, with a warning;
// other objectives keep their values.
func TestRejectNonPositiveTimes(t *testing.T) {
	iv := space.IntValue
	rec := &Recording{Source: "f.json", Objective: "time", Params: []space.Param{{Name: "bx"}}, Evaluations: []Evaluation{
		{Config: []space.Value{iv(1)}, Objective: -1}, {Config: []space.Value{iv(2)}, Objective: 0},
		{Config: []space.Value{iv(3)}, Objective: 2},
	}}
	if n := rec.RejectNonPositiveTimes(); n != 2 {
		t.Fatalf("rejected %d, want 2", n)
	}
	if total, ok := rec.Counts(); total != 3 || ok != 1 || rec.Evaluations[0].Status != RuntimeError {
		t.Errorf("%d evaluations, %d ok, first %v", total, ok, rec.Evaluations[0].Status)
	}
	if len(rec.Warnings) != 1 || !strings.Contains(rec.Warnings[0], "2 entries have a time of zero or less (e.g. -1 for bx=1)") {
		t.Errorf("warnings %q", rec.Warnings)
	}
	energy := &Recording{Objective: "energy_delta", Evaluations: []Evaluation{{Objective: -3}}}
	if n := energy.RejectNonPositiveTimes(); n != 0 {
		t.Errorf("a non-time objective lost %d values", n)
	}
}

// An evaluation's kernel time is the objective (time), or the time kept beside another
// objective; one stored without it (before ktune kept it) falls back on the samples' mean.
func TestTimeMSIsTheTimeTheRunUsed(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name      string
		objective string
		e         Evaluation
		want      float64
		ok        bool
	}{
		{"time objective", "time", Evaluation{Status: OK, Objective: 2, Samples: []float64{1, 2, 9}}, 2, true},
		{"time kept beside a metric", "GB/s", Evaluation{Status: OK, Objective: 7, Samples: []float64{1, 2, 9}, Metrics: map[string]float64{"time": 2}}, 2, true},
		{"stored before: the mean", "GB/s", Evaluation{Status: OK, Objective: 7, Samples: []float64{1, 2, nan, 9}}, 4, true},
		{"no samples", "GB/s", Evaluation{Status: OK, Objective: 7}, nan, false},
		{"a failure", "GB/s", Evaluation{Status: RuntimeError, Objective: nan, Samples: []float64{1}}, nan, false},
		{"a failed time objective", "time", Evaluation{Status: Timeout, Objective: nan}, nan, false},
	}
	for _, tt := range tests {
		got, ok := tt.e.TimeMS(tt.objective)
		if ok != tt.ok || (ok && got != tt.want) {
			t.Errorf("%s: %v %v, want %v %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

// The spread of an evaluation's samples is their standard deviation (over n-1) divided
// by their mean, what is not a finite number left out; it is unknown below two samples.
func TestSampleCVIsTheSamplesSpreadOverTheirMean(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		samples []float64
		want    float64
		ok      bool
	}{
		{[]float64{1, 2, 3}, 0.5, true},
		{[]float64{1, nan, 2, math.Inf(1), 3}, 0.5, true},
		{[]float64{4, 4, 4, 4}, 0, true},
		{[]float64{2, 4}, math.Sqrt(2) / 3, true},
		{[]float64{2}, nan, false},
		{[]float64{2, nan}, nan, false},
		{nil, nan, false},
		{[]float64{0, 0}, nan, false},
	}
	for _, tt := range tests {
		e := Evaluation{Status: OK, Objective: 1, Samples: tt.samples}
		got, ok := e.SampleCV()
		if ok != tt.ok || ok && math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%v: %v %v, want %v %v", tt.samples, got, ok, tt.want, tt.ok)
		}
	}
}

// A recording is the same as a copy of itself read back from the store, where NaN stays
// NaN, empty lists and maps come back nil and times come back in UTC; any measurement
// that differs makes it another recording, and where it came from does not.
func TestSameAsComparesWhatARecordingHolds(t *testing.T) {
	at := time.Date(2024, 3, 4, 5, 6, 7, 123456000, time.FixedZone("CET", 3600))
	rec := func() *Recording {
		return &Recording{Format: "kerneltuner", Source: "a.json", Device: "A100", Kernel: "k", ProblemSize: "[1024]",
			Objective: "time", Params: []space.Param{{Name: "bx", Values: []space.Value{space.IntValue(32), space.IntValue(64)}}},
			Restrictions: []string{"bx >= 32"}, Warnings: []string{"w"},
			Evaluations: []Evaluation{
				{Config: []space.Value{space.IntValue(32)}, Status: OK, Objective: 1.5, Samples: []float64{1.4, 1.6},
					Metrics: map[string]float64{"GB/s": 90, "energy": math.NaN()}, CompileMS: 3, VerifyMS: math.NaN(),
					BenchmarkMS: 4, FrameworkMS: 1, StrategyMS: math.NaN(), Time: at},
				{Config: []space.Value{space.IntValue(64)}, Status: CompileError, Objective: math.NaN(), Samples: []float64{},
					Metrics: map[string]float64{}, Message: "too many registers", Time: at},
			}}
	}
	a, b := rec(), rec()
	b.Source, b.Warnings = "copy/a.json.gz", nil
	b.Evaluations[1].Samples, b.Evaluations[1].Metrics = nil, nil
	b.Evaluations[0].Time, b.Evaluations[1].Time = at.UTC(), at.UTC()
	if !a.SameAs(b) || !b.SameAs(a) {
		t.Fatal("a copy read back is not the same")
	}
	for name, change := range map[string]func(r *Recording){
		"format":      func(r *Recording) { r.Format = "t4" },
		"device":      func(r *Recording) { r.Device = "A4000" },
		"backend":     func(r *Recording) { r.Backend = "cuda" },
		"a launch":    func(r *Recording) { r.Evaluations[0].Launch = &Launch{Grid: [3]int{32, 1, 1}, Block: [3]int{32, 1, 1}} },
		"objective":   func(r *Recording) { r.Evaluations[0].Objective = 1.25 },
		"a NaN":       func(r *Recording) { r.Evaluations[0].VerifyMS = 0 },
		"a sample":    func(r *Recording) { r.Evaluations[0].Samples[1] = 1.7 },
		"a metric":    func(r *Recording) { r.Evaluations[0].Metrics["GB/s"] = 91 },
		"metrics":     func(r *Recording) { delete(r.Evaluations[0].Metrics, "energy"); r.Evaluations[0].Metrics["power"] = 1 },
		"a status":    func(r *Recording) { r.Evaluations[1].Status = RuntimeError },
		"a message":   func(r *Recording) { r.Evaluations[1].Message = "" },
		"a time":      func(r *Recording) { r.Evaluations[1].Time = at.Add(time.Microsecond) },
		"a value":     func(r *Recording) { r.Params[0].Values[1] = space.FloatValue(64) },
		"a config":    func(r *Recording) { r.Evaluations[0].Config[0] = space.StringValue("32") },
		"one more":    func(r *Recording) { r.Evaluations = append(r.Evaluations, r.Evaluations[0]) },
		"restriction": func(r *Recording) { r.Restrictions = nil },
	} {
		c := rec()
		change(c)
		if a.SameAs(c) || c.SameAs(a) {
			t.Errorf("%s changed: still the same", name)
		}
	}
}

// Rates are maximised; costs, whatever unit they are per, are minimised.
func TestHigherIsBetterTellsRatesFromCosts(t *testing.T) {
	rates := []string{"GFLOP/s", "GB/s", "TFLOP/s", "GFLOPS", "gflops", "GFLOPS/W", "gbps", "MBps",
		"bandwidth_GBps", "items_per_second", "points per second", "updates_per_s", "Mpoints/sec",
		"throughput", "effective bandwidth", " GB/s "}
	costs := []string{"time", "energy", "power", "score", "ns/step", "ms_per_sample", "time_per_step",
		"energy_per_sweep", "energy_per_item", "seconds", "s/op", "steps"}
	for _, n := range rates {
		if !HigherIsBetter(n) {
			t.Errorf("%q: lower is better, want higher (a rate)", n)
		}
	}
	for _, n := range costs {
		if HigherIsBetter(n) {
			t.Errorf("%q: higher is better, want lower (a cost)", n)
		}
	}
}

func TestSpeedupIsARatioOfPositiveValuesOnly(t *testing.T) {
	tests := []struct {
		maximize    bool
		best, other float64
		want        string
	}{
		{false, 2, 5, "2.50x better than"},
		{true, 5, 2, "2.50x better than"},
		{false, 2, 2, "as good as"},
		{false, 0, 0, "as good as"},
		{false, 0, 3, "better than"},   // no ratio to 0
		{true, -1, -3, "better than"},  // -1 over -3 would read as 0.33x
		{false, -3, -1, "better than"}, // and -1 over -3 likewise
		{true, 1, -1, "better than"},   // mixed signs
		{false, 1, math.Inf(1), "better than"},
	}
	for _, tt := range tests {
		if got := Better(tt.maximize, tt.best, tt.other); got != tt.want {
			t.Errorf("Better(%v, %v, %v) = %q, want %q", tt.maximize, tt.best, tt.other, got, tt.want)
		}
		_, ok := Speedup(tt.maximize, tt.best, tt.other)
		if want := strings.HasSuffix(tt.want, "x better than") || tt.best == tt.other && tt.best > 0; ok != want {
			t.Errorf("Speedup(%v, %v, %v): ok %v, want %v", tt.maximize, tt.best, tt.other, ok, want)
		}
	}
}

// A launch is one a device could make, no size below 1; launches are the same when both
// are unknown or both equal.
func TestLaunchIsWholeAndComparedByValue(t *testing.T) {
	for _, tt := range []struct {
		l     Launch
		valid bool
	}{
		{Launch{Grid: [3]int{16, 64, 256}, Block: [3]int{16, 4, 1}}, true},
		{Launch{Grid: [3]int{16, 64, 0}, Block: [3]int{16, 4, 1}}, false},
		{Launch{Block: [3]int{16, 4, 1}}, false},
		{Launch{}, false},
	} {
		if tt.l.Valid() != tt.valid {
			t.Errorf("%v: valid %v, want %v", tt.l, tt.l.Valid(), tt.valid)
		}
	}
	a, b := &Launch{Grid: [3]int{2, 1, 1}, Block: [3]int{8, 1, 1}}, &Launch{Grid: [3]int{2, 1, 1}, Block: [3]int{8, 1, 1}}
	c := &Launch{Grid: [3]int{2, 1, 1}, Block: [3]int{4, 1, 1}}
	if !SameLaunch(nil, nil) || !SameLaunch(a, b) || SameLaunch(a, c) || SameLaunch(a, nil) || SameLaunch(nil, b) {
		t.Error("SameLaunch compares by pointer, not value")
	}
}

// A configuration with a wrong_answer evaluation anywhere in the recording (here a check
// after tuning, recorded after its fastest success) is never the best, in either
// direction; the best is the next one, and a recording whose every success was found
// wrong has none.
func TestBestPassesOverConfigurationsFoundWrong(t *testing.T) {
	iv := space.IntValue
	nan := math.NaN()
	for _, maximize := range []bool{false, true} {
		rec := &Recording{Maximize: maximize, Evaluations: []Evaluation{
			{Config: []space.Value{iv(32)}, Status: OK, Objective: map[bool]float64{false: 1, true: 9}[maximize]},
			{Config: []space.Value{iv(64)}, Status: OK, Objective: 5},
			{Config: []space.Value{iv(16)}, Status: OK, Objective: 5},
			{Config: []space.Value{iv(32)}, Status: WrongAnswer, Objective: nan, Message: "found wrong by a check"},
		}}
		wrong := rec.FoundWrong()
		if !wrong(&rec.Evaluations[0]) || wrong(&rec.Evaluations[1]) {
			t.Errorf("maximize %v: FoundWrong of 32, 64 = %v, %v; want true, false", maximize, wrong(&rec.Evaluations[0]), wrong(&rec.Evaluations[1]))
		}
		// 64 and 16 tie; the first in the recording's order is the best
		best, ok := rec.Best()
		if !ok || best.Config[0].Int() != 64 {
			t.Errorf("maximize %v: Best = %v (%v), want bx=64", maximize, best.Config, ok)
		}
	}
	rec := &Recording{Evaluations: []Evaluation{
		{Config: []space.Value{iv(32)}, Status: OK, Objective: 1},
		{Config: []space.Value{iv(32)}, Status: WrongAnswer, Objective: nan},
	}}
	if best, ok := rec.Best(); ok {
		t.Errorf("Best of a recording whose one success was found wrong = %v, want none", best.Config)
	}
	if total, ok := rec.Counts(); total != 2 || ok != 1 {
		t.Errorf("Counts = %d, %d; want 2, 1: a success found wrong still ran", total, ok)
	}
}

// KeepWrongAnswers keeps one evaluation of a configuration found wrong, its last
// wrong_answer, where it stands, and drops its successes and earlier wrong answers,
// leaving the other configurations' evaluations, failures and all, as they were.
func TestKeepWrongAnswersLeavesAConfigurationFoundWrongItsLastWrongAnswer(t *testing.T) {
	iv := space.IntValue
	nan := math.NaN()
	rec := &Recording{Evaluations: []Evaluation{
		{Config: []space.Value{iv(32)}, Status: OK, Objective: 1},
		{Config: []space.Value{iv(64)}, Status: OK, Objective: 5},
		{Config: []space.Value{iv(16)}, Status: CompileError, Objective: nan},
		{Config: []space.Value{iv(32)}, Status: WrongAnswer, Objective: nan, Message: "found wrong by a check on call 5"},
		{Config: []space.Value{iv(32)}, Status: OK, Objective: 2},
		{Config: []space.Value{iv(32)}, Status: WrongAnswer, Objective: nan, Message: "found wrong by a check on call 9"},
		{Config: []space.Value{iv(8)}, Status: OK, Objective: 3},
	}}
	successes, dropped := rec.KeepWrongAnswers()
	if successes != 2 || dropped != 3 {
		t.Errorf("dropped %d successes, %d in all; want 2 and 3", successes, dropped)
	}
	var got []string
	for _, e := range rec.Evaluations {
		got = append(got, fmt.Sprintf("%d %s %s", e.Config[0].Int(), e.Status, e.Message))
	}
	want := []string{"64 ok ", "16 compile_error ", "32 wrong_answer found wrong by a check on call 9", "8 ok "}
	if !slices.Equal(got, want) {
		t.Errorf("kept %q, want %q", got, want)
	}
	if successes, dropped := rec.KeepWrongAnswers(); successes != 0 || dropped != 0 {
		t.Errorf("again: dropped %d successes, %d in all; want none", successes, dropped)
	}
}

// A configuration found wrong and measured successfully later keeps its wrong answer,
// not the later success, with a warning that says so; one whose wrong answer is its last
// measurement keeps it as any other, without that note.
func TestKeepLastKeepsTheWrongAnswerOfAConfigurationFoundWrong(t *testing.T) {
	iv := space.IntValue
	nan := math.NaN()
	rec := &Recording{Source: "f.json", Params: []space.Param{{Name: "bx"}}, Evaluations: []Evaluation{
		{Config: []space.Value{iv(32)}, Status: OK, Objective: 3},
		{Config: []space.Value{iv(32)}, Status: WrongAnswer, Objective: nan, Message: "output c differs"},
		{Config: []space.Value{iv(64)}, Status: OK, Objective: 2},
		{Config: []space.Value{iv(32)}, Status: OK, Objective: 1},
	}}
	if n := rec.KeepLast(); n != 2 {
		t.Fatalf("dropped %d, want 2", n)
	}
	var got []string
	for _, e := range rec.Evaluations {
		got = append(got, fmt.Sprintf("%d %s", e.Config[0].Int(), e.Status))
	}
	if want := []string{"32 wrong_answer", "64 ok"}; !slices.Equal(got, want) {
		t.Errorf("kept %q, want %q", got, want)
	}
	if best, ok := rec.Best(); !ok || best.Config[0].Int() != 64 {
		t.Errorf("best %v (%v), want bx=64", best.Config, ok)
	}
	if len(rec.Warnings) != 1 || !strings.HasSuffix(rec.Warnings[0], "the last measurement of each is kept (of a configuration with a wrong_answer measurement, its last wrong answer: found wrong once, it is no success)") {
		t.Errorf("warnings %q", rec.Warnings)
	}
	rec = &Recording{Source: "f.json", Params: []space.Param{{Name: "bx"}}, Evaluations: []Evaluation{
		{Config: []space.Value{iv(32)}, Status: OK, Objective: 3},
		{Config: []space.Value{iv(32)}, Status: WrongAnswer, Objective: nan},
	}}
	if n := rec.KeepLast(); n != 1 || rec.Evaluations[0].Status != WrongAnswer || strings.Contains(rec.Warnings[0], "wrong_answer") {
		t.Errorf("dropped %d, kept %s, warnings %q; want 1, the wrong answer, no note", n, rec.Evaluations[0].Status, rec.Warnings)
	}
}
