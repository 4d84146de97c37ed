package efficiency

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/ktune/ktune/expr"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/strategy"
	"github.com/ktune/ktune/tuning"
)

// Batched GEMM's Section 6 threshold: 75% of a memory peak of 256 GB/s, for a task of
// 12.8 MB, is met at 192 GB/s, a time of 12.8e6 / 192e9 s = 0.0666... ms.
var (
	gemmBatchedOps = Ops{Bytes: 12.8e6, Precision: "float32"}
	gtx1070Memory  = Peaks{Precision: "float32", GBs: 256, GBsFrom: "given"}
)

func TestNewThresholdRefusesWhatCannotStopASearch(t *testing.T) {
	for _, tc := range []struct {
		name     string
		ops      Ops
		p        Peaks
		fraction float64
		want     string
	}{
		{"fraction 0", gemmBatchedOps, gtx1070Memory, 0, "not in (0, 1]"},
		{"fraction above 1", gemmBatchedOps, gtx1070Memory, 1.5, "not in (0, 1]"},
		{"fraction NaN", gemmBatchedOps, gtx1070Memory, math.NaN(), "not in (0, 1]"},
		{"excluded", Ops{Excluded: "latency-bound"}, gtx1070Memory, 0.75, "excludes its kernel from efficiency against a peak (essential_ops: excluded: latency-bound)"},
		{"no operations", Ops{Precision: "float32"}, gtx1070Memory, 0.75, "declares no essential operations"},
		{"memory peak unknown", gemmBatchedOps, Peaks{Precision: "float32", GFLOPS: 5783}, 0.75, "give it with --peak-gbs GB/s"},
		{"compute peak unknown", Ops{Flops: 1e9, Precision: "float64"}, gtx1070Memory, 0.75, "give it with --peak-gflops GFLOP/s, or gflops: {float64: GFLOP/s} in the device's entry of a peaks file (--peaks)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewThreshold(tc.ops, tc.p, tc.fraction)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
			if strings.Contains(tc.name, "unknown") && !errors.As(err, new(*MissingPeakError)) {
				t.Errorf("error %T, want a *MissingPeakError", err)
			}
		})
	}
}

func TestThresholdIsMetAtTheFractionOfThePeak(t *testing.T) {
	th, err := NewThreshold(gemmBatchedOps, gtx1070Memory, 0.75)
	if err != nil {
		t.Fatal(err)
	}
	at := 12.8e6 / 192e9 * 1e3 // ms
	if !near(th.TimeMS(), at) {
		t.Errorf("TimeMS %v, want %v", th.TimeMS(), at)
	}
	for _, tc := range []struct {
		ms      float64
		met     bool
		percent float64
	}{
		{at * 0.99, true, 75 / 0.99},
		{at / 2, true, 150},
		{at * 1.01, false, 75 / 1.01},
		{at * 10, false, 7.5},
	} {
		r, met := th.Met(tc.ms)
		if met != tc.met || !near(r.Percent, tc.percent) {
			t.Errorf("Met(%v ms) = %.4f%%, %v; want %.4f%%, %v", tc.ms, r.Percent, met, tc.percent, tc.met)
		}
	}
	if _, met := th.Met(math.NaN()); met {
		t.Error("a NaN time met the threshold")
	}
}

func TestTheReasonNamesTheBoundsThroughputAndPeak(t *testing.T) {
	mem, err := NewThreshold(gemmBatchedOps, gtx1070Memory, 0.75)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := mem.Met(12.8e6 / 200e9 * 1e3) // 200 GB/s
	if got, want := mem.Reason(r), "within 75% of peak: 200 GB/s of 256 GB/s (78.1%)"; got != want {
		t.Errorf("memory-bound reason %q, want %q", got, want)
	}
	// GEMM, compute-bound: 2 * 2048^3 flops in 4 ms is 4295 GFLOP/s of 5783
	gemm := Ops{Flops: 2 * 2048 * 2048 * 2048, Precision: "float32"}
	comp, err := NewThreshold(gemm, Peaks{Precision: "float32", GFLOPS: 5783}, 0.7)
	if err != nil {
		t.Fatal(err)
	}
	r, met := comp.Met(4)
	if !met {
		t.Fatalf("4 ms is %.1f%% of the peak, not 70%%", r.Percent)
	}
	if got, want := comp.Reason(r), "within 70% of peak: 4295 GFLOP/s of 5783 GFLOP/s float32 (74.3%)"; got != want {
		t.Errorf("compute-bound reason %q, want %q", got, want)
	}
}

func TestTheWatchStopsOnASuccessMeetingTheThreshold(t *testing.T) {
	th, err := NewThreshold(gemmBatchedOps, gtx1070Memory, 0.75)
	if err != nil {
		t.Fatal(err)
	}
	fast := th.TimeMS() * 0.9
	for _, tc := range []struct {
		name      string
		objective string
		e         result.Evaluation
		stop      bool
	}{
		{"a slow success", "time", result.Evaluation{Status: result.OK, Objective: th.TimeMS() * 1.1}, false},
		{"a fast success", "time", result.Evaluation{Status: result.OK, Objective: fast}, true},
		{"a fast wrong answer", "time", result.Evaluation{Status: result.WrongAnswer, Objective: fast, Metrics: map[string]float64{"time": fast}}, false},
		{"a fast timeout", "time", result.Evaluation{Status: result.Timeout, Objective: math.Inf(1)}, false},
		// an objective other than the time: the watch reads the time the evaluation keeps
		{"a metric, fast", "GB/s", result.Evaluation{Status: result.OK, Objective: 1, Metrics: map[string]float64{"time": fast}}, true},
		{"a metric, slow", "GB/s", result.Evaluation{Status: result.OK, Objective: 1e9, Metrics: map[string]float64{"time": 2 * fast}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := th.Watch(tc.objective)
			// the state a session would pass: its best objective does not matter
			st := tuning.State{Evaluations: 1, Distinct: 1, SpaceLen: 10, Best: tc.e.Objective}
			if got := w.Stop(st); got != "" {
				t.Fatalf("stopped before any evaluation: %q", got)
			}
			if got := w.Observe(tc.e); got != tc.stop {
				t.Errorf("Observe %v, want %v", got, tc.stop)
			}
			got := w.Stop(st)
			if tc.stop != (got != "") {
				t.Fatalf("Stop %q, want a stop: %v", got, tc.stop)
			}
			if tc.stop && !strings.HasPrefix(string(got), "within 75% of peak: 213.3 GB/s of 256 GB/s (83.3%)") {
				t.Errorf("reason %q", got)
			}
		})
	}
}

// A configuration found wrong (a wrong_answer evaluation observed, before or after its
// successes) never meets the threshold: the watch forgets what it met, and stops again
// only on another configuration, with that one's efficiency.
func TestTheWatchForgetsAConfigurationFoundWrong(t *testing.T) {
	th, err := NewThreshold(gemmBatchedOps, gtx1070Memory, 0.75)
	if err != nil {
		t.Fatal(err)
	}
	fast, faster, slow := th.TimeMS()*0.9, th.TimeMS()*0.8, th.TimeMS()*1.1 // 83.3%, 93.75%, 68.2% of the peak
	ok := func(k int64, ms float64) result.Evaluation {
		return result.Evaluation{Config: []space.Value{space.IntValue(k)}, Status: result.OK, Objective: ms}
	}
	wrong := func(k int64) result.Evaluation {
		return result.Evaluation{Config: []space.Value{space.IntValue(k)}, Status: result.WrongAnswer, Objective: math.NaN(),
			Message: "found wrong by a check on call 7, after tuning (against the reference)"}
	}
	w := th.Watch("time")
	for i, step := range []struct {
		e       result.Evaluation
		met     bool    // what Observe reports
		reached float64 // the percentage Reached gives after it; 0 for none
	}{
		{ok(1, fast), true, 83.333},
		{ok(2, faster), true, 93.75},
		{wrong(2), false, 83.333}, // k=2 forgotten: k=1 still meets it
		{ok(2, faster), false, 83.333},
		{ok(3, slow), false, 83.333},
		{wrong(1), false, 0}, // none left
		{wrong(4), false, 0},
		{ok(4, faster), false, 0}, // found wrong before its success
		{ok(5, fast), true, 83.333},
	} {
		if got := w.Observe(step.e); got != step.met {
			t.Errorf("step %d, k=%v %s: Observe %v, want %v", i, step.e.Config[0], step.e.Status, got, step.met)
		}
		r, has := w.Reached()
		stop := w.Stop(tuning.State{})
		switch {
		case step.reached == 0 && (has || stop != ""):
			t.Fatalf("step %d, k=%v %s: reached %.1f%% (stop %q), want nothing met", i, step.e.Config[0], step.e.Status, r.Percent, stop)
		case step.reached != 0 && (!has || math.Abs(r.Percent-step.reached) > 0.001):
			t.Fatalf("step %d, k=%v %s: reached %.2f%% (%v), want %.1f%%", i, step.e.Config[0], step.e.Status, r.Percent, has, step.reached)
		case step.reached != 0 && !strings.HasSuffix(string(stop), fmt.Sprintf("(%.1f%%)", r.Percent)):
			t.Fatalf("step %d: stop %q, want it to end with (%.1f%%)", i, stop, r.Percent)
		}
	}
}

// A session whose sink shows the watch its evaluations ends on the first configuration
// that meets the threshold, and the summary's Stop says so.
func TestASessionEndsOnTheFirstWellPerformingConfiguration(t *testing.T) {
	vals := make([]space.Value, 16)
	for i := range vals {
		vals[i] = space.IntValue(int64(i))
	}
	sp, err := expr.NewSpace([]space.Param{{Name: "k", Values: vals}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	th, err := NewThreshold(gemmBatchedOps, gtx1070Memory, 0.75)
	if err != nil {
		t.Fatal(err)
	}
	// k's time: 0.2 ms less 0.01 per step; 75% of the peak (0.0667 ms) is first reached at
	// k = 14 (0.06 ms), which brute force evaluates 15th
	timeOf := func(k int64) float64 { return 0.2 - 0.01*float64(k) }
	w := th.Watch("time")
	st, err := strategy.New("bruteforce", nil)
	if err != nil {
		t.Fatal(err)
	}
	ev := evaluatorFunc(func(_ context.Context, c space.Config) (result.Evaluation, error) {
		return result.Evaluation{Status: result.OK, Objective: timeOf(sp.Values(c)[0].Int())}, nil
	})
	sess, err := tuning.New(sp, st, ev, tuning.Options{Sink: watchSink{w}, Stop: []tuning.StopCondition{w.Stop}})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := sess.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if sum.Evaluations != 15 || !strings.HasPrefix(string(sum.Stop), "within 75% of peak: 213.3 GB/s of 256 GB/s") {
		t.Errorf("stopped after %d evaluations: %q; want 15, within 75%% of the peak at 213.3 GB/s", sum.Evaluations, sum.Stop)
	}
}

type evaluatorFunc func(context.Context, space.Config) (result.Evaluation, error)

func (f evaluatorFunc) Evaluate(ctx context.Context, c space.Config) (result.Evaluation, error) {
	return f(ctx, c)
}

type watchSink struct{ w *Watch }

func (s watchSink) Record(_ context.Context, e result.Evaluation) error {
	s.w.Observe(e)
	return nil
}
