package main

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/store"
)

// stopJSON is what the stop condition tests read of tune's --json summary.
type stopJSON struct {
	Run         int64              `json:"run"`
	Evaluations int                `json:"evaluations"`
	Resumed     int                `json:"resumed_from_store"`
	Measured    int                `json:"measured"`
	Stop        string             `json:"stop"`
	Objective   string             `json:"objective"`
	BestObj     *float64           `json:"best_objective"`
	BestTimeMS  *float64           `json:"best_time_ms"`
	Efficiency  *efficiencySummary `json:"efficiency"`
	Condition   *struct {
		Kind             string
		Value, Threshold *float64
		Unit             string
		Before           bool
	} `json:"stop_condition"`
}

// condition checks the structured stop condition: its kind, whether it was reached
// before, and where want gives them, its value and threshold.
func (r stopJSON) condition(t *testing.T, kind string, before bool, value, threshold *float64, unit string) {
	t.Helper()
	c := r.Condition
	if c == nil {
		t.Errorf("no stop_condition beside stop %q", r.Stop)
		return
	}
	eq := func(a, b *float64) bool {
		return a == nil && b == nil || a != nil && b != nil && math.Abs(*a-*b) <= 1e-9*math.Abs(*b)
	}
	if c.Kind != kind || c.Before != before || !eq(c.Value, value) || !eq(c.Threshold, threshold) || c.Unit != unit {
		f := func(x *float64) any {
			if x == nil {
				return nil
			}
			return *x
		}
		t.Errorf("stop_condition %s before %v value %v threshold %v unit %q; want %s before %v value %v threshold %v unit %q (stop %q)",
			c.Kind, c.Before, f(c.Value), f(c.Threshold), c.Unit, kind, before, f(value), f(threshold), unit, r.Stop)
	}
}

func ptr(x float64) *float64 { return &x }

func tuneStop(t *testing.T, args ...string) stopJSON {
	t.Helper()
	out, errOut, code := ktune(t, append(append([]string{"tune"}, args...), "--json")...)
	if code != 0 {
		t.Fatalf("tune %q: exit %d: %s", args, code, errOut)
	}
	var rep stopJSON
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	return rep
}

// saxpyGBs is the essential bandwidth of testdata/efficiency's SAXPY (12 N bytes, N =
// 262144) in a kernel time of ms milliseconds.
func saxpyGBs(ms float64) float64 { return 12 * 262144 / (ms / 1e3) / 1e9 }

// storedTimes are the times of a run's evaluations in the order they were measured.
func storedTimes(t *testing.T, db string, run int64) []float64 {
	t.Helper()
	evals := runEvaluations(t, db, run)
	var ms []float64
	for _, e := range evals {
		if e.Failed() {
			t.Fatalf("run %d: %v failed: %s %s", run, e.Config, e.Status, e.Message)
		}
		ms = append(ms, e.Objective)
	}
	return ms
}

// TestStopWithinPeakEndsTheSearchAtAWellPerformingConfiguration tunes SAXPY on PoCL by
// brute force over its 4 configurations, then again with a memory peak given so that the
// first configuration brute force measures reached 100% of it, and --stop-within-peak 0.01:
// the search ends after that one configuration, and the summary says what it reached. The
// margin is wide because this kernel of about 0.1 ms, on a CPU device shared with other
// work, measured up to 13 times slower from one run to the next under CI's load. With a
// peak a hundred times the best bandwidth measured and a threshold of the whole peak, no
// configuration reaches it and the whole budget is spent.
func TestStopWithinPeakEndsTheSearchAtAWellPerformingConfiguration(t *testing.T) {
	needBackend(t, "opencl")
	specPath := copyEfficiencySpec(t, "")
	db := filepath.Join(t.TempDir(), "k.db")
	common := []string{specPath, "--device", "opencl", "--strategy", "bruteforce", "--budget", "4", "--db", db, "--new", "--peak-gflops", "1e9"}
	full := tuneStop(t, append(common, "--peak-gbs", "40")...)
	if full.Evaluations != 4 || full.BestTimeMS == nil {
		t.Fatalf("the brute-force run evaluated %d configurations (best %v), want 4", full.Evaluations, full.BestTimeMS)
	}
	times := storedTimes(t, db, full.Run)
	first, best := saxpyGBs(times[0]), saxpyGBs(*full.BestTimeMS)

	peak := strconv.FormatFloat(first, 'g', 6, 64) // the first configuration at 100%
	early := tuneStop(t, append(common, "--peak-gbs", peak, "--stop-within-peak", "0.01")...)
	if early.Evaluations != 1 || early.Measured != 1 {
		t.Errorf("stopped after %d evaluations (%d measured), want 1: the first reached 100%% of the peak (times before %v ms, now %v ms)",
			early.Evaluations, early.Measured, times, storedTimes(t, db, early.Run))
	}
	given, _ := strconv.ParseFloat(peak, 64)
	if want := "within 1% of peak: "; !strings.HasPrefix(early.Stop, want) || !strings.Contains(early.Stop, "GB/s of "+strconv.FormatFloat(given, 'g', 4, 64)+" GB/s (") {
		t.Errorf("stop %q, want %q and the bandwidth reached of the peak given, %.4g GB/s", early.Stop, want, given)
	}
	e := early.Efficiency
	if e == nil || e.Best == nil || e.Best.Percent < 1 || e.Best.Bound != "memory" {
		t.Fatalf("efficiency of the run that stopped: %+v", e)
	}
	if pct := strconv.FormatFloat(e.Best.Percent, 'f', 1, 64) + "%)"; !strings.HasSuffix(early.Stop, pct) {
		t.Errorf("stop %q, want it to end with the summary's efficiency, %s", early.Stop, pct)
	}
	early.condition(t, "within_peak", false, ptr(e.Best.Percent), ptr(1), "%")
	full.condition(t, "budget", false, ptr(4), ptr(4), "evaluations")

	peak = strconv.FormatFloat(100*best, 'g', 6, 64) // the best at 1%
	whole := tuneStop(t, append(common, "--peak-gbs", peak, "--stop-within-peak", "1")...)
	if whole.Evaluations != 4 || strings.HasPrefix(whole.Stop, "within") {
		t.Errorf("a threshold no configuration reaches: %d evaluations, stop %q; want the whole budget of 4", whole.Evaluations, whole.Stop)
	}

	// the summary in words names the condition on its first line
	text, errOut, code := ktune(t, append([]string{"tune"}, append(common, "--peak-gbs", strconv.FormatFloat(first, 'g', 6, 64), "--stop-within-peak", "0.01")...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if line, _, _ := strings.Cut(text, "\n"); !strings.Contains(line, "; stopped: within 1% of peak: ") || !strings.Contains(line, "1 of the space's 4 configurations evaluated") {
		t.Errorf("first line of the summary: %s", line)
	}
}

// TestStopAtAnObjectiveRespectsItsDirection tunes SAXPY on PoCL to an objective value:
// a time every configuration reaches (at most 1e9 ms) ends the search at the first, one
// none reaches (1e-9 ms) spends the budget, and with a maximised objective (GB/s) the
// direction turns: at least 0 GB/s ends at the first, at least 1e12 never.
func TestStopAtAnObjectiveRespectsItsDirection(t *testing.T) {
	needBackend(t, "opencl")
	minimised := copyEfficiencySpec(t, "")
	maximised := copyEfficiencySpec(t, "objective: GB/s\n")
	db := filepath.Join(t.TempDir(), "k.db")
	for _, tc := range []struct {
		spec, at    string
		evaluations int
		stop        string
	}{
		{minimised, "1e9", 1, "target reached: time "},
		{minimised, "1e-9", 4, ""},
		{maximised, "0", 1, "target reached: GB/s "},
		{maximised, "1e12", 4, ""},
	} {
		rep := tuneStop(t, tc.spec, "--device", "opencl", "--strategy", "bruteforce", "--budget", "4", "--db", db, "--new", "--stop-at", tc.at)
		if rep.Evaluations != tc.evaluations {
			t.Errorf("%s --stop-at %s: %d evaluations (stop %q), want %d", rep.Objective, tc.at, rep.Evaluations, rep.Stop, tc.evaluations)
		}
		switch {
		case tc.stop == "" && strings.HasPrefix(rep.Stop, "target"):
			t.Errorf("%s --stop-at %s: stop %q, want the budget", rep.Objective, tc.at, rep.Stop)
		case tc.stop != "" && rep.BestObj == nil:
			t.Errorf("%s --stop-at %s: no best", rep.Objective, tc.at)
		case tc.stop != "":
			at, _ := strconv.ParseFloat(tc.at, 64)
			unit := map[bool]string{true: "ms", false: "GB/s"}[rep.Objective == "time"]
			rep.condition(t, "target", false, rep.BestObj, ptr(at), unit)
			g := strconv.FormatFloat(at, 'g', -1, 64)
			bound := map[bool]string{true: "at most " + g + " ms", false: "at least " + g}[rep.Objective == "time"]
			if !strings.HasPrefix(rep.Stop, tc.stop) || !strings.HasSuffix(rep.Stop, "("+bound+")") {
				t.Errorf("%s --stop-at %s: stop %q, want %q... (%s)", rep.Objective, tc.at, rep.Stop, tc.stop, bound)
			}
		}
	}
}

// TestAResumedRunThatMeetsTheStopConditionMeasuresNothing leaves a run of SAXPY on PoCL
// interrupted after 2 of its 4 configurations, as a killed run is, and tunes it again with
// a threshold its best met already: nothing is measured, the command says so, and the run
// stays interrupted; so with an objective value its best reached; a threshold none meets
// then continues it to its budget.
func TestAResumedRunThatMeetsTheStopConditionMeasuresNothing(t *testing.T) {
	needBackend(t, "opencl")
	specPath := copyEfficiencySpec(t, "")
	db := filepath.Join(t.TempDir(), "k.db")
	args := []string{specPath, "--device", "opencl", "--strategy", "bruteforce", "--db", db, "--peak-gflops", "1e9"}
	first := tuneStop(t, append(args, "--budget", "2", "--peak-gbs", "40")...)
	if first.Evaluations != 2 || first.BestTimeMS == nil {
		t.Fatalf("first run: %d evaluations, best %v", first.Evaluations, first.BestTimeMS)
	}
	interrupt := func() {
		st, err := store.Open(context.Background(), db)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		if err := st.FinishRun(context.Background(), first.Run, store.StatusInterrupted); err != nil {
			t.Fatal(err)
		}
	}
	interrupt()
	best := saxpyGBs(*first.BestTimeMS)
	met := append(args, "--budget", "4", "--peak-gbs", strconv.FormatFloat(2*best, 'g', 6, 64), "--stop-within-peak", "0.25") // the best at 50%
	out, errOut, code := ktune(t, append(append([]string{"tune"}, met...), "--json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep stopJSON
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Run != first.Run || rep.Measured != 0 || rep.Evaluations != 2 || rep.Resumed != 2 {
		t.Errorf("run %d: %d evaluations, %d resumed, %d measured; want run %d's 2, none measured", rep.Run, rep.Evaluations, rep.Resumed, rep.Measured, first.Run)
	}
	if !strings.HasPrefix(rep.Stop, "within 25% of peak: ") || !strings.HasSuffix(rep.Stop, ", reached before this command") {
		t.Errorf("stop %q", rep.Stop)
	}
	if rep.Condition == nil || rep.Condition.Kind != "within_peak" || !rep.Condition.Before || rep.Condition.Value == nil || *rep.Condition.Value < 25 || *rep.Condition.Threshold != 25 {
		t.Errorf("stop_condition %+v, want within_peak reached before, at least 25%% of 25%%", rep.Condition)
	}
	if want := "run " + strconv.FormatInt(first.Run, 10) + "'s 2 evaluations already meet the stop condition (within 25% of peak: "; !strings.Contains(errOut, want) {
		t.Errorf("standard error lacks %q:\n%s", want, errOut)
	}
	if got := runStatus(t, db, first.Run); got != store.StatusInterrupted {
		t.Errorf("the run is %s, want it left interrupted", got)
	}

	// so does an objective value its best reached: any time is at most 1e9 ms
	at := tuneStop(t, append(args, "--budget", "4", "--peak-gbs", "40", "--stop-at", "1e9")...)
	if at.Run != first.Run || at.Measured != 0 || !strings.HasPrefix(at.Stop, "target reached: time ") || !strings.HasSuffix(at.Stop, "(at most 1e+09 ms), reached before this command") {
		t.Errorf("--stop-at on the resumed run: run %d, %d measured, stop %q", at.Run, at.Measured, at.Stop)
	}
	at.condition(t, "target", true, at.BestObj, ptr(1e9), "ms")

	// a threshold no configuration reaches (the best at 1% of the peak, the others'
	// noise is not a hundred times) continues it
	more := tuneStop(t, append(args, "--budget", "4", "--peak-gbs", strconv.FormatFloat(100*best, 'g', 6, 64), "--stop-within-peak", "1")...)
	if more.Run != first.Run || more.Resumed != 2 || more.Measured != 2 || more.Evaluations != 4 {
		t.Errorf("run %d: %d evaluations, %d resumed, %d measured; want run %d's 2 resumed and 2 more measured", more.Run, more.Evaluations, more.Resumed, more.Measured, first.Run)
	}
}

func runStatus(t *testing.T, db string, run int64) store.RunStatus {
	t.Helper()
	return runInfo(t, db, run).Status
}

// TestStopWithinPeakIsRefusedWhereNoEfficiencyCanBeComputed: a spec without
// essential_ops, one that excludes them, and a device whose peak is neither derived
// (PoCL's OpenCL gives no memory bandwidth) nor given are usage errors that say what to
// do, before anything is stored; so are fractions outside (0, 1] and a target that is no
// number.
func TestStopWithinPeakIsRefusedWhereNoEfficiencyCanBeComputed(t *testing.T) {
	needBackend(t, "opencl")
	text, err := os.ReadFile("../../testdata/efficiency/saxpy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const ops = "essential_ops:\n  bytes: 12 * N\n  flops: 2 * N\n"
	if !strings.Contains(string(text), ops) {
		t.Fatalf("testdata/efficiency/saxpy.yaml no longer declares %q", ops)
	}
	variant := func(name, with string) string {
		p := copyEfficiencySpec(t, "")
		copied, err := os.ReadFile(p) // names the shared kernel
		if err != nil {
			t.Fatal(err)
		}
		p2 := filepath.Join(filepath.Dir(p), name+".yaml")
		if err := os.WriteFile(p2, []byte(strings.Replace(string(copied), ops, with, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		return p2
	}
	withOps := copyEfficiencySpec(t, "")
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no essential_ops", []string{variant("none", ""), "--stop-within-peak", "0.75", "--peak-gbs", "40"},
			"--stop-within-peak 0.75): the spec declares no essential_ops"},
		{"excluded", []string{variant("excluded", "essential_ops: {excluded: latency-bound}\n"), "--stop-within-peak", "0.75"},
			"the spec excludes its kernel from efficiency against a peak (essential_ops: excluded: latency-bound)"},
		// each missing figure alone, with PoCL's reason for it, and what gives it
		{"no peaks", []string{withOps, "--stop-within-peak", "0.75"},
			"ktune tune: stop within 75% of the device's peak (--stop-within-peak 0.75): no efficiency: " +
				"the device's memory bandwidth peak is unknown (" + poclUnknown(t, "memory") + "): " +
				"give it with --peak-gbs GB/s, or gbs: GB/s in the device's entry of a peaks file (--peaks); " +
				"its float32 arithmetic peak is unknown (" + poclUnknown(t, "float32") + "): " +
				"give it with --peak-gflops GFLOP/s, or gflops: {float32: GFLOP/s} in the device's entry of a peaks file (--peaks); " +
				"take them from the device's data sheet or a measurement (STREAM for memory)\n"},
		{"no compute peak", []string{withOps, "--stop-within-peak", "0.75", "--peak-gbs", "40"},
			"ktune tune: stop within 75% of the device's peak (--stop-within-peak 0.75): no efficiency: " +
				"the device's float32 arithmetic peak is unknown (" + poclUnknown(t, "float32") + "): " +
				"give it with --peak-gflops GFLOP/s, or gflops: {float32: GFLOP/s} in the device's entry of a peaks file (--peaks); " +
				"take it from the device's data sheet or a measurement\n"},
		{"no compute peak in the peaks file", []string{withOps, "--stop-within-peak", "0.75", "--peaks", writePeaksFile(t, "\"opencl:0\": {gbs: 40}\n")},
			"give it with --peak-gflops GFLOP/s, or gflops: {float32: GFLOP/s} in the device's entry of a peaks file (--peaks); " +
				"take it from the device's data sheet or a measurement\n"},
		{"fraction 0", []string{withOps, "--stop-within-peak", "0"}, "--stop-within-peak 0: want a fraction"},
		{"fraction above 1", []string{withOps, "--stop-within-peak", "1.5"}, "want a fraction between 0 and 1"},
		{"target NaN", []string{withOps, "--stop-at", "NaN"}, "--stop-at NaN: want a finite objective value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".db")
			_, errOut, code := ktune(t, append([]string{"tune", "--device", "opencl", "--budget", "2", "--db", db}, tc.args...)...)
			if code != 2 || !strings.Contains(errOut, tc.want) || !strings.Contains(errOut, "Usage: ktune tune") {
				t.Errorf("exit %d, want 2 and %q in:\n%s", code, tc.want, errOut)
			}
			// refused before the store is opened: not even the database file is made
			if _, err := os.Stat(db); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the refused command left the database behind (%v)", err)
			}
		})
	}
}

// TestAResumedRunWhoseWellPerformingConfigurationsWereFoundWrongGoesOn leaves a run of
// SAXPY on PoCL interrupted after 2 of its 4 configurations, then stores a wrong_answer
// evaluation for each of them, as a check after dynamic tuning stores one: a threshold
// their successes met (--stop-within-peak), or an objective value (--stop-at), does not
// count them as met, and the resumed run measures more, where without the wrong answers
// it would measure nothing (TestAResumedRunThatMeetsTheStopConditionMeasuresNothing).
func TestAResumedRunWhoseWellPerformingConfigurationsWereFoundWrongGoesOn(t *testing.T) {
	needBackend(t, "opencl")
	specPath := copyEfficiencySpec(t, "")
	for _, tc := range []struct {
		name string
		stop func(bestGBs float64) []string
	}{
		{"within the peak", func(best float64) []string {
			return []string{"--peak-gbs", strconv.FormatFloat(2*best, 'g', 6, 64), "--stop-within-peak", "0.25"} // the stored best at 50%
		}},
		{"at an objective value", func(float64) []string { return []string{"--peak-gbs", "40", "--stop-at", "1e9"} }}, // any time
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "k.db")
			args := []string{specPath, "--device", "opencl", "--strategy", "bruteforce", "--db", db, "--peak-gflops", "1e9"}
			first := tuneStop(t, append(args, "--budget", "2", "--peak-gbs", "40")...)
			if first.Evaluations != 2 || first.BestTimeMS == nil {
				t.Fatalf("first run: %d evaluations, best %v", first.Evaluations, first.BestTimeMS)
			}
			ctx := context.Background()
			st, err := store.Open(ctx, db)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range runEvaluations(t, db, first.Run) {
				found := result.Evaluation{Config: e.Config, Status: result.WrongAnswer, Objective: math.NaN(),
					Message: "found wrong by a check on call 9, after tuning (against the reference): output 0 differs"}
				if err := st.AddEvaluation(ctx, first.Run, found); err != nil {
					t.Fatal(err)
				}
			}
			if err := st.FinishRun(ctx, first.Run, store.StatusInterrupted); err != nil {
				t.Fatal(err)
			}
			st.Close()
			// the budget counts the wrong answers stored as evaluations too: 4 of 6
			rep := tuneStop(t, append(append(args, "--budget", "6"), tc.stop(saxpyGBs(*first.BestTimeMS))...)...)
			if rep.Run != first.Run || rep.Measured < 1 || strings.HasSuffix(rep.Stop, "reached before this command") {
				t.Errorf("run %d: %d measured, stop %q; want run %d resumed and measured further: its stored successes were found wrong",
					rep.Run, rep.Measured, rep.Stop, first.Run)
			}
			if rep.Condition != nil && rep.Condition.Before {
				t.Errorf("stop_condition %+v says it was reached before", rep.Condition)
			}
		})
	}
}
