package tuner

import (
	"math"
	"testing"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/spec"
	"github.com/ktune/ktune/tuning"
)

// The summary says how much the best configuration's timed runs varied, the median
// spread over the run, and how many other configurations lie within the best's spread of
// it: a ranking a second run may not repeat; and how many were timed over fewer runs than
// the spec's iterations.
func TestReportSaysTheBestsSpreadAndWhoIsWithinIt(t *testing.T) {
	s, err := spec.Parse([]byte(`
kernel: {name: scale, language: c, code: "void scale(float *x, int n) {}"}
parameters: [{name: p, values: [1, 2, 3, 4, 5]}]
problem_size: [1]
arguments:
  - {name: x, type: float32, length: 1, output: true}
  - {name: n, type: int32, value: 1}
iterations: 3
`), "report_test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sp, err := s.Space()
	if err != nil {
		t.Fatal(err)
	}
	eval := func(p int64, samples ...float64) tuning.Evaluated {
		c, err := sp.ConfigOf([]space.Value{space.IntValue(p)})
		if err != nil {
			t.Fatal(err)
		}
		e := result.Evaluation{Config: sp.Values(c), Status: result.OK, Samples: samples}
		e.Objective = 0
		for _, v := range samples {
			e.Objective += v / float64(len(samples))
		}
		if samples == nil {
			e.Status, e.Objective = result.Timeout, math.NaN()
		}
		return tuning.Evaluated{Config: c, Evaluation: e}
	}
	history := []tuning.Evaluated{
		eval(3, 2, 2, 2.3),        // 2.1 ms, a spread of 8.2%: 2.1 is not within 10% of 1
		eval(1, 1, 1.1, 0.9),      // the best: 1 ms, a spread of 10%
		eval(2, 1.05, 1.05, 1.05), // 5% slower, within the best's spread; no spread of its own
		eval(4),                   // a timeout: no samples
		eval(5, 3, 3),             // timed over 2 of the 3 iterations (its timeout)
	}
	r := buildReport(sp, s, 1, "k.db", "c", device.Info{Name: "cpu"}, tuning.Summary{History: history}, map[string]bool{}, nil, nil, nil, 0, nil)
	if r.BestObjective == nil || *r.BestObjective != 1 || r.BestRuns != 3 {
		t.Fatalf("best %v over %d runs, want 1 over 3", r.BestObjective, r.BestRuns)
	}
	if r.BestTimeCV == nil || math.Abs(*r.BestTimeCV-0.1) > 1e-12 {
		t.Errorf("the best's spread %v, want 0.1", r.BestTimeCV)
	}
	// the median of 0.1, 0, 0.0825 and 0 (the timeout has no samples)
	if want := math.Sqrt(0.03) / 2.1 / 2; r.MedianTimeCV == nil || math.Abs(*r.MedianTimeCV-want) > 1e-12 {
		t.Errorf("the median spread %v, want %v", r.MedianTimeCV, want)
	}
	if r.WithinSpread != 1 {
		t.Errorf("%d other configurations within the best's spread, want 1", r.WithinSpread)
	}
	if r.ShortTimed != 1 {
		t.Errorf("%d configurations timed over fewer runs than the iterations, want 1", r.ShortTimed)
	}
}

// A configuration whose runs went on for the spec's min_time has samples that are means
// of batches of runs: the summary counts its runs (samples times their batch), says how
// many each sample is the mean of, and counts the configurations timed so. The count
// is the evaluation's RunsPerSample; one stored before evaluations kept it says it in
// its note alone.
func TestReportCountsTheRunsOfBatchedSamples(t *testing.T) {
	s, err := spec.Parse([]byte(`
kernel: {name: scale, language: c, code: "void scale(float *x, int n) {}"}
parameters: [{name: p, values: [1, 2, 3]}]
problem_size: [1]
arguments:
  - {name: x, type: float32, length: 1, output: true}
  - {name: n, type: int32, value: 1}
iterations: 3
min_time: 10ms
`), "report_test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sp, err := s.Space()
	if err != nil {
		t.Fatal(err)
	}
	eval := func(p int64, per int, msg string, samples ...float64) tuning.Evaluated {
		c, err := sp.ConfigOf([]space.Value{space.IntValue(p)})
		if err != nil {
			t.Fatal(err)
		}
		e := result.Evaluation{Config: sp.Values(c), Status: result.OK, Samples: samples, Message: msg, RunsPerSample: per}
		for _, v := range samples {
			e.Objective += v / float64(len(samples))
		}
		return tuning.Evaluated{Config: c, Evaluation: e}
	}
	history := []tuning.Evaluated{
		eval(1, 100, "", 0.01, 0.011, 0.009),
		eval(2, 0, "timed over 150 runs for min_time 10ms: each of its 3 samples is the mean of 50 consecutive runs", 0.02, 0.02, 0.02),
		eval(3, 1, "", 12, 12, 12), // long enough: its iterations alone
	}
	r := buildReport(sp, s, 1, "k.db", "c", device.Info{Name: "cpu"}, tuning.Summary{History: history}, map[string]bool{}, nil, nil, nil, 0, nil)
	if r.BestObjective == nil || math.Abs(*r.BestObjective-0.01) > 1e-12 {
		t.Fatalf("best %v, want 0.01", r.BestObjective)
	}
	if r.BestRuns != 300 || r.BestRunsPerSample != 100 || r.MinTimeBatched != 2 || r.MinTime != s.MinTime || r.ShortTimed != 0 {
		t.Errorf("best runs %d, %d per sample, %d batched (min_time %v), %d short; want 300, 100, 2 (10ms), 0",
			r.BestRuns, r.BestRunsPerSample, r.MinTimeBatched, r.MinTime, r.ShortTimed)
	}
}

// On a resume, a wrong_answer evaluation stored for the fastest configuration (a check
// after dynamic tuning found it wrong on later data) keeps it from being the report's
// best, the next configuration is, and from the median; a default configuration found
// wrong is compared with nothing.
func TestReportPassesOverAConfigurationFoundWrong(t *testing.T) {
	s, err := spec.Parse([]byte(`
kernel: {name: scale, language: c, code: "void scale(float *x, int n) {}"}
parameters: [{name: p, values: [1, 2, 3]}]
problem_size: [1]
arguments:
  - {name: x, type: float32, length: 1, output: true}
  - {name: n, type: int32, value: 1}
`), "report_test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sp, err := s.Space()
	if err != nil {
		t.Fatal(err)
	}
	eval := func(p int64, status result.Status, ms float64) result.Evaluation {
		return result.Evaluation{Config: []space.Value{space.IntValue(p)}, Status: status, Objective: ms, Samples: []float64{ms}}
	}
	stored := []result.Evaluation{eval(1, result.OK, 1), eval(2, result.OK, 1.5), eval(3, result.OK, 2),
		eval(1, result.WrongAnswer, math.NaN())}
	r := buildReport(sp, s, 1, "k.db", "c", device.Info{Name: "cpu"}, tuning.Summary{}, map[string]bool{}, nil, stored, nil, 0, nil)
	if r.BestObjective == nil || *r.BestObjective != 1.5 || r.Best.String() != "p=2" {
		t.Fatalf("best %v (%v), want 1.5 of p=2", r.BestObjective, r.Best)
	}
	val := func(v *float64) float64 {
		if v == nil {
			return math.NaN()
		}
		return *v
	}
	// nor is its success one of the median's (1.5 and 2: 1.75, not the 1.5 of all three)
	if r.MedianObjective == nil || *r.MedianObjective != 1.75 || r.FoundWrong != 1 || r.Statuses["ok"] != 3 {
		t.Errorf("median %g, %d found wrong of %d ok; want 1.75, 1 of 3", val(r.MedianObjective), r.FoundWrong, r.Statuses["ok"])
	}
	// a default configuration found wrong is no reference for the best
	def := stored[0]
	r = buildReport(sp, s, 1, "k.db", "c", device.Info{Name: "cpu"}, tuning.Summary{}, map[string]bool{}, &def, stored, nil, 0, nil)
	if !r.DefaultFoundWrong || r.DefaultObjective != nil || r.SpeedupOverDef != nil || r.DefaultStatus != "" {
		t.Errorf("a default found wrong: found wrong %v, objective %g, speedup %g, status %q; want true, none (NaN), none (NaN), none",
			r.DefaultFoundWrong, val(r.DefaultObjective), val(r.SpeedupOverDef), r.DefaultStatus)
	}
	def = stored[1]
	r = buildReport(sp, s, 1, "k.db", "c", device.Info{Name: "cpu"}, tuning.Summary{}, map[string]bool{}, &def, stored, nil, 0, nil)
	if r.DefaultFoundWrong || r.DefaultObjective == nil || *r.DefaultObjective != 1.5 {
		t.Errorf("a right default: found wrong %v, objective %g; want false, 1.5", r.DefaultFoundWrong, val(r.DefaultObjective))
	}
}

// The run's best that the progress line shows and --target stops at passes over a
// configuration with a wrong_answer evaluation in the run, stored before a resume after
// its success, as a check after dynamic tuning stores it: the next best takes its place.
func TestTheSinksBestPassesOverAConfigurationFoundWrong(t *testing.T) {
	e := func(bx int64, status result.Status, ms float64) result.Evaluation {
		return result.Evaluation{Config: []space.Value{space.IntValue(bx)}, Status: status, Objective: ms}
	}
	s := &storeSink{}
	for _, tt := range []struct {
		e    result.Evaluation
		want float64
	}{
		{e(32, result.OK, 1), 1},
		{e(64, result.OK, 2), 1},
		{e(16, result.OK, 2), 1}, // a tie with 64, later
		{e(32, result.WrongAnswer, math.NaN()), 2},
		{e(8, result.OK, 0.5), 0.5},
		{e(8, result.WrongAnswer, math.NaN()), 2},
		{e(64, result.WrongAnswer, math.NaN()), 2},
		{e(32, result.OK, 0.1), 2}, // measured again, still found wrong
	} {
		s.consider(tt.e)
		if s.best == nil || s.best.Objective != tt.want {
			t.Fatalf("after %v %s: best %v, want %g", tt.e.Config, tt.e.Status, s.best, tt.want)
		}
	}
	if s.best.Config[0].Int() != 16 {
		t.Errorf("the best is bx=%v, want 16", s.best.Config)
	}
}
