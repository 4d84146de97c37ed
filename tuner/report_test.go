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
	r := buildReport(sp, s, 1, "k.db", "c", device.Info{Name: "cpu"}, tuning.Summary{History: history}, map[string]bool{}, nil, nil, nil, 0)
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
