package simulator_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ktune/ktune/format"
	"github.com/ktune/ktune/format/kerneltuner"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/simulator"
	"github.com/ktune/ktune/space"
)

// small is a hand-made recording of a 3×2 space, a ∈ {1,2,4} and b ∈ {0,1}:
// (1,0) ok 2.0 ms, (1,1) ok 1.0 ms (the optimum), (2,0) compile error, (2,1) restricted,
// (4,0) ok 4.0 ms with no timing fields; (4,1) is not recorded.
func small() *result.Recording {
	iv := space.IntValue
	cfg := func(a, b int64) []space.Value { return []space.Value{iv(a), iv(b)} }
	return &result.Recording{
		Format:    "test",
		Objective: "time",
		Params: []space.Param{
			{Name: "a", Values: []space.Value{iv(1), iv(2), iv(4)}},
			{Name: "b", Values: []space.Value{iv(0), iv(1)}},
		},
		Evaluations: []result.Evaluation{
			{Config: cfg(1, 0), Status: result.OK, Objective: 2, Samples: []float64{1.5, 2.5}, CompileMS: 100, BenchmarkMS: 4, FrameworkMS: 1},
			{Config: cfg(1, 1), Status: result.OK, Objective: 1, Samples: []float64{0.5, 1, 1.5}, CompileMS: 200, VerifyMS: 10, BenchmarkMS: 3},
			{Config: cfg(2, 0), Status: result.CompileError, Objective: math.NaN(), CompileMS: 50, Message: "too many registers"},
			{Config: cfg(2, 1), Status: result.Restricted, Objective: math.NaN()},
			{Config: cfg(4, 0), Status: result.OK, Objective: 4, Samples: []float64{3, 5}},
		},
	}
}

func mustNew(t *testing.T, rec *result.Recording, opts simulator.Options) *simulator.Simulator {
	t.Helper()
	sim, err := simulator.New(rec, opts)
	if err != nil {
		t.Fatal(err)
	}
	return sim
}

func config(t *testing.T, sim *simulator.Simulator, a, b int64) space.Config {
	t.Helper()
	c, err := sim.Space().ConfigOf([]space.Value{space.IntValue(a), space.IntValue(b)})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestRecordedModeSearchesTheUnrestrictedRecordedConfigurations(t *testing.T) {
	sim := mustNew(t, small(), simulator.Options{})
	sp := sim.Space()
	if sp.Len() != 4 {
		t.Fatalf("Len = %d, want 4 (5 recorded, 1 restricted)", sp.Len())
	}
	for _, c := range [][2]int64{{1, 0}, {1, 1}, {2, 0}, {4, 0}} {
		if !sp.Contains(config(t, sim, c[0], c[1])) {
			t.Errorf("%v missing from the space", c)
		}
	}
	for _, c := range [][2]int64{{2, 1}, {4, 1}} {
		if sp.Contains(config(t, sim, c[0], c[1])) {
			t.Errorf("%v is in the space; restricted and unrecorded configurations are not", c)
		}
		if _, err := sim.Evaluate(context.Background(), config(t, sim, c[0], c[1])); err == nil {
			t.Errorf("Evaluate(%v) succeeded outside the recorded space", c)
		}
	}
}

func TestEvaluateReturnsTheRecordedEvaluation(t *testing.T) {
	sim := mustNew(t, small(), simulator.Options{})
	rec := sim.Recording()
	for i, want := range rec.Evaluations {
		if want.Status == result.Restricted {
			continue
		}
		c := config(t, sim, want.Config[0].Int(), want.Config[1].Int())
		got, err := sim.Evaluate(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		same := got.Status == want.Status && slices.Equal(got.Samples, want.Samples) &&
			(got.Objective == want.Objective || math.IsNaN(got.Objective) && math.IsNaN(want.Objective)) &&
			got.Message == want.Message && slices.EqualFunc(got.Config, want.Config, space.Value.Equal)
		if !same {
			t.Errorf("evaluation %d: got %+v, want %+v", i, got, want)
		}
	}
}

func TestCartesianModeGivesUnrecordedConfigurationsTheFailStatus(t *testing.T) {
	sim := mustNew(t, small(), simulator.Options{Mode: simulator.Cartesian})
	if sim.Space().Len() != 6 {
		t.Fatalf("Len = %d, want the full product 6", sim.Space().Len())
	}
	cases := []struct {
		a, b   int64
		status result.Status
	}{
		{1, 1, result.OK},
		{2, 0, result.CompileError},
		{2, 1, result.Restricted}, // recorded as restricted
		{4, 1, result.Restricted}, // not recorded at all
	}
	for _, tc := range cases {
		e, err := sim.Evaluate(context.Background(), config(t, sim, tc.a, tc.b))
		if err != nil {
			t.Fatal(err)
		}
		if e.Status != tc.status || (tc.status != result.OK) != e.Failed() {
			t.Errorf("(%d,%d): status %v failed=%v, want %v", tc.a, tc.b, e.Status, e.Failed(), tc.status)
		}
		if e.Config[0].Int() != tc.a || e.Config[1].Int() != tc.b {
			t.Errorf("(%d,%d): Config %v", tc.a, tc.b, e.Config)
		}
	}
	if e, _ := sim.Evaluate(context.Background(), config(t, sim, 4, 1)); sim.Cost(e) != 0 {
		t.Errorf("an unrecorded configuration costs %v, want 0", sim.Cost(e))
	}
}

func TestRecordedModeWithRestrictionsUsesThem(t *testing.T) {
	rec := small()
	rec.Restrictions = []string{"a * (b + 1) <= 2"} // allows (1,0), (1,1), (2,0)
	sim := mustNew(t, rec, simulator.Options{})
	if sim.Space().Len() != 3 {
		t.Fatalf("Len = %d, want 3", sim.Space().Len())
	}
	if w := sim.Warnings(); len(w) != 1 || !strings.Contains(w[0], "a=4, b=0") {
		t.Errorf("Warnings = %q, want one naming the recorded (4,0) outside the restrictions", w)
	}

	rec.Restrictions = []string{"a <= 4"} // allows (4,1), which is not recorded
	if _, err := simulator.New(rec, simulator.Options{}); err == nil || !strings.Contains(err.Error(), "cartesian") {
		t.Errorf("New with an unrecorded valid configuration: err = %v, want one suggesting cartesian mode", err)
	}
}

// The last measurement of a configuration recorded twice is used, as the readers keep it
// (result.Recording.KeepLast), and the optimum is that of the measurements kept.
func TestDuplicateRecordingsKeepTheLast(t *testing.T) {
	rec := small()
	dup := rec.Evaluations[1]
	dup.Objective = 0.1
	rec.Evaluations = append(rec.Evaluations, dup)
	sim := mustNew(t, rec, simulator.Options{})
	if got, _ := sim.Objective(config(t, sim, 1, 1)); got != 0.1 {
		t.Errorf("objective of the duplicated configuration = %v, want the last recording's 0.1", got)
	}
	if opt, _ := sim.Optimum(); opt != 0.1 {
		t.Errorf("optimum %v, want 0.1", opt)
	}
	if len(sim.Warnings()) != 1 {
		t.Errorf("Warnings = %q, want one", sim.Warnings())
	}
}

func TestStochasticFitnessDrawsRecordedSamples(t *testing.T) {
	sim := mustNew(t, small(), simulator.Options{Fitness: simulator.Stochastic, Seed: 3})
	c := config(t, sim, 1, 1)
	samples := []float64{0.5, 1, 1.5}
	seen := map[float64]int{}
	const n = 3000
	sum := 0.0
	for range n {
		e, err := sim.Evaluate(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(samples, e.Objective) || len(e.Samples) != 1 || e.Samples[0] != e.Objective {
			t.Fatalf("objective %v, samples %v: want one of the recorded samples %v", e.Objective, e.Samples, samples)
		}
		seen[e.Objective]++
		sum += e.Objective
	}
	for _, s := range samples {
		// Each sample has probability 1/3: 1000 expected, sd ≈ 26.
		if seen[s] < 850 || seen[s] > 1150 {
			t.Errorf("sample %v drawn %d times of %d, want about %d", s, seen[s], n, n/3)
		}
	}
	if mean := sum / n; math.Abs(mean-1) > 0.05 {
		t.Errorf("mean of draws %v, want about the recorded mean 1", mean)
	}
	if got, _ := sim.Objective(c); got != 1 {
		t.Errorf("Objective = %v, want the recorded mean whatever the fitness", got)
	}
	// The recorded data is untouched by the draws.
	if !slices.Equal(sim.Recording().Evaluations[1].Samples, samples) {
		t.Errorf("recording's samples changed to %v", sim.Recording().Evaluations[1].Samples)
	}
}

func TestStochasticFitnessIsReproducibleFromTheSeed(t *testing.T) {
	draws := func(sim *simulator.Simulator) []float64 {
		var out []float64
		for range 50 {
			e, _ := sim.Evaluate(context.Background(), config(t, sim, 1, 1))
			out = append(out, e.Objective)
		}
		return out
	}
	base := mustNew(t, small(), simulator.Options{Fitness: simulator.Stochastic, Seed: 1})
	a, b := draws(base.WithSeed(9)), draws(base.WithSeed(9))
	if !slices.Equal(a, b) {
		t.Errorf("same seed, different draws:\n%v\n%v", a, b)
	}
	if c := draws(base.WithSeed(10)); slices.Equal(a, c) {
		t.Errorf("seeds 9 and 10 drew the same 50 samples")
	}
	if base.WithSeed(9).Options().Seed != 9 {
		t.Errorf("WithSeed did not record its seed")
	}
}

func TestStochasticFitnessFallsBackToTheObjectiveWithoutSamples(t *testing.T) {
	rec := small()
	rec.Evaluations[1].Samples = nil
	sim := mustNew(t, rec, simulator.Options{Fitness: simulator.Stochastic})
	e, err := sim.Evaluate(context.Background(), config(t, sim, 1, 1))
	if err != nil || e.Objective != 1 {
		t.Errorf("got %v, %v; want the recorded objective 1", e.Objective, err)
	}
}

func TestStochasticFitnessNeedsATimeObjective(t *testing.T) {
	rec := small()
	rec.Objective, rec.Maximize = "GFLOP/s", true
	if _, err := simulator.New(rec, simulator.Options{Fitness: simulator.Stochastic}); err == nil {
		t.Error("stochastic fitness accepted a GFLOP/s objective; its samples are times")
	}
}

func TestCostIsTheRecordedTime(t *testing.T) {
	sim := mustNew(t, small(), simulator.Options{})
	cases := []struct {
		a, b int64
		want time.Duration
	}{
		{1, 0, 105 * time.Millisecond}, // compile 100 + benchmark 4 + framework 1
		{1, 1, 213 * time.Millisecond}, // compile 200 + verify 10 + benchmark 3
		{2, 0, 50 * time.Millisecond},  // a failed compilation still cost its compile time
		{4, 0, 8 * time.Millisecond},   // no timing fields: the samples 3 + 5
	}
	for _, tc := range cases {
		e, err := sim.Evaluate(context.Background(), config(t, sim, tc.a, tc.b))
		if err != nil {
			t.Fatal(err)
		}
		if got := sim.Cost(e); got != tc.want {
			t.Errorf("(%d,%d): Cost = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// A timing no clock can add (infinite) or too large for a time.Duration must not wrap the
// simulated clock round to a negative time, which no time limit would ever reach.
func TestCostOfTimingsOutOfRangeIsNeverNegative(t *testing.T) {
	sim := mustNew(t, small(), simulator.Options{})
	cases := []struct {
		e    result.Evaluation
		want time.Duration
	}{
		{result.Evaluation{CompileMS: math.Inf(1), BenchmarkMS: 4}, 4 * time.Millisecond},
		{result.Evaluation{CompileMS: math.NaN(), VerifyMS: math.Inf(-1), BenchmarkMS: 4}, 4 * time.Millisecond},
		{result.Evaluation{CompileMS: 1e300}, math.MaxInt64},
		{result.Evaluation{BenchmarkMS: 1e13}, math.MaxInt64}, // 317 years
		{result.Evaluation{CompileMS: -5, BenchmarkMS: 2}, 0},
	}
	for _, tc := range cases {
		if got := sim.Cost(tc.e); got != tc.want {
			t.Errorf("Cost(compile %v, verify %v, benchmark %v) = %v, want %v", tc.e.CompileMS, tc.e.VerifyMS, tc.e.BenchmarkMS, got, tc.want)
		}
	}
}

func TestFractionOfOptimum(t *testing.T) {
	sim := mustNew(t, small(), simulator.Options{})
	opt, best := sim.Optimum()
	if opt != 1 || sim.Space().Format(best) != "a=1, b=1" {
		t.Fatalf("Optimum = %v at %s, want 1 at a=1, b=1", opt, sim.Space().Format(best))
	}
	cases := []struct {
		name      string
		best, opt float64
		maximize  bool
		want      float64
	}{
		{"minimise: optimum/best", 4, 1, false, 0.25},
		{"minimise: the optimum itself", 1, 1, false, 1},
		{"maximise: best/optimum", 300, 400, true, 0.75},
		{"failed (NaN)", math.NaN(), 1, false, 0},
		{"failed (+Inf fitness)", math.Inf(1), 1, false, 0},
		{"no optimum known", 2, math.NaN(), false, 0},
	}
	for _, tc := range cases {
		if got := simulator.FractionOfOptimum(tc.best, tc.opt, tc.maximize); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
	if got := sim.FractionOfOptimum(2); got != 0.5 {
		t.Errorf("sim.FractionOfOptimum(2) = %v, want 0.5", got)
	}
}

func TestParseModeAndFitness(t *testing.T) {
	for _, m := range []simulator.Mode{simulator.Recorded, simulator.Cartesian} {
		if got, err := simulator.ParseMode(m.String()); err != nil || got != m {
			t.Errorf("ParseMode(%q) = %v, %v", m, got, err)
		}
	}
	for _, f := range []simulator.Fitness{simulator.Deterministic, simulator.Stochastic} {
		if got, err := simulator.ParseFitness(f.String()); err != nil || got != f {
			t.Errorf("ParseFitness(%q) = %v, %v", f, got, err)
		}
	}
	if _, err := simulator.ParseMode("exhaustive"); err == nil {
		t.Error("ParseMode accepted an unknown mode")
	}
}

func loadKernelTuner(t testing.TB, path string) *result.Recording {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rec, err := kerneltuner.Read(f, path)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// TestRecordedSpacesFromBenchmarkHub checks the simulator against what is known of real
// recordings: their size, failures and best configuration.
func TestRecordedSpacesFromBenchmarkHub(t *testing.T) {
	const (
		pnpoly      = "../testdata/benchmark_hub/kerneltuner_pnpoly/RTX_2080_Ti.json.gz"
		convolution = "../testdata/benchmark_hub/convolution_milo/A100.json.gz"
	)
	cases := []struct {
		name                string
		path                string
		mode                simulator.Mode
		wantLen, wantFailed int
	}{
		// pnpoly: the full product 4×31×11×3 recorded, 358 runtime failures.
		{"pnpoly/recorded", pnpoly, simulator.Recorded, 4092, 358},
		{"pnpoly/cartesian", pnpoly, simulator.Cartesian, 4092, 358},
		// convolution: 4,362 recorded of a 10,240 product, 161 of them failed.
		{"convolution/recorded", convolution, simulator.Recorded, 4362, 161},
		{"convolution/cartesian", convolution, simulator.Cartesian, 10240, 10240 - 4201},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := loadKernelTuner(t, tc.path)
			sim := mustNew(t, rec, simulator.Options{Mode: tc.mode})
			sp := sim.Space()
			if sp.Len() != tc.wantLen {
				t.Errorf("Len = %d, want %d", sp.Len(), tc.wantLen)
			}
			failed := 0
			var c space.Config
			for i := range sp.Len() {
				c = sp.At(i, c)
				e, err := sim.Evaluate(context.Background(), c)
				if err != nil {
					t.Fatal(err)
				}
				if e.Failed() {
					failed++
				}
			}
			if failed != tc.wantFailed {
				t.Errorf("%d failed configurations, want %d", failed, tc.wantFailed)
			}
			want, _ := rec.Best()
			if opt, _ := sim.Optimum(); opt != want.Objective {
				t.Errorf("Optimum = %v, want the recording's best %v", opt, want.Objective)
			}
		})
	}
}

// A successful configuration recorded with neither timing fields nor samples costs one run
// of its recorded time on the simulated clock (not nothing, which made time limits
// meaningless), with a warning; under stochastic fitness the lack of samples is said too.
func TestUntimedRecordingsCostTheirRecordedTime(t *testing.T) {
	rec := small()
	rec.Evaluations[4].Samples = nil // (4,0): ok, 4 ms, no timing fields, no samples
	for _, fitness := range []simulator.Fitness{simulator.Deterministic, simulator.Stochastic} {
		sim := mustNew(t, rec, simulator.Options{Fitness: fitness})
		e, err := sim.Evaluate(context.Background(), config(t, sim, 4, 0))
		if err != nil {
			t.Fatal(err)
		}
		if got := sim.Cost(e); got != 4*time.Millisecond {
			t.Errorf("%v: cost %v, want the recorded 4 ms", fitness, got)
		}
		clock, warned := strings.Join(sim.ClockWarnings(), "\n"), strings.Join(sim.Warnings(), "\n")
		if !strings.Contains(clock, "1 successful configurations have neither timing fields nor timing samples") ||
			(fitness == simulator.Stochastic) != strings.Contains(warned, "1 successful configurations have no timing samples") {
			t.Errorf("%v: clock warnings %q, warnings %q", fitness, sim.ClockWarnings(), sim.Warnings())
		}
	}
}

func TestNewRefusesNoRecording(t *testing.T) {
	if _, err := simulator.New(nil, simulator.Options{}); err == nil || !strings.Contains(err.Error(), "no recording") {
		t.Errorf("New(nil) = %v", err)
	}
}

// TestRecordedModeOfAProductLargerThanAnInt: a recording of 16 parameters of 20 values
// each (a product of 20^16, more than an int) is searched in recorded mode, which never
// indexes the product; cartesian mode says why it cannot.
func TestRecordedModeOfAProductLargerThanAnInt(t *testing.T) {
	rec := &result.Recording{Format: "test", Objective: "time", Params: make([]space.Param, 16)}
	for p := range rec.Params {
		rec.Params[p].Name = fmt.Sprintf("p%d", p)
		for v := range 20 {
			rec.Params[p].Values = append(rec.Params[p].Values, space.IntValue(int64(v)))
		}
	}
	for i := range 50 {
		cfg := make([]space.Value, 16)
		cfg[0], cfg[1] = space.IntValue(int64(i%20)), space.IntValue(int64(i/20)) // distinct
		for p := 2; p < len(cfg); p++ {
			cfg[p] = space.IntValue(int64((i*(p+3) + p*p) % 20))
		}
		rec.Evaluations = append(rec.Evaluations, result.Evaluation{Config: cfg, Status: result.OK, Objective: 1 + float64(i)})
	}
	sim := mustNew(t, rec, simulator.Options{})
	if sim.Space().Len() != 50 {
		t.Errorf("recorded space of %d configurations, want 50", sim.Space().Len())
	}
	_, err := simulator.New(rec, simulator.Options{Mode: simulator.Cartesian})
	if !errors.Is(err, space.ErrTooLarge) || !strings.Contains(err.Error(), "cartesian space of 6.55e+20 configurations") ||
		!strings.Contains(err.Error(), "recorded mode") {
		t.Errorf("cartesian mode: %v, want the size of the product and the way out", err)
	}
}

// The fraction of the optimum needs objectives above 0: Repeat refuses a negative score (or
// a time of 0) up front, naming the evaluation, instead of scoring runs with fractions above
// 1 or below 0. A maximised objective of 0 is a fraction of 0 and stays.
func TestObjectivesOfZeroOrBelowAreRefused(t *testing.T) {
	for _, tt := range []struct {
		objective string
		maximize  bool
		value     float64
		want      string // "" for accepted
	}{
		{"score", true, -3, "recorded evaluation 0 (a=1, b=0) has score -3: the fraction of the optimum"},
		{"score", false, -3, "has score -3"},
		{"time", false, 0, "has time 0"},
		{"GB/s", true, 0, ""},
	} {
		rec := small()
		rec.Objective, rec.Maximize = tt.objective, tt.maximize
		rec.Evaluations[0].Objective = tt.value
		sim := mustNew(t, rec, simulator.Options{}) // a landscape needs no fraction
		_, err := simulator.Repeat(context.Background(), sim, simulator.RepeatOptions{Strategy: "random", Budget: 3, Repeats: 2, Seed: 1})
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s %v (maximize %v): %v, want it accepted", tt.objective, tt.value, tt.maximize, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s %v (maximize %v): %v, want an error with %q", tt.objective, tt.value, tt.maximize, err, tt.want)
		}
	}
}

// A T4 file written by Kernel Tuner has compilation and framework times and the samples
// ("runtimes") but no "benchmark" time: measuring the samples still took their sum, which
// the clock counts. The same measurements as a Kernel Tuner cache carry benchmark_time,
// which is that sum plus a little overhead; the clock of one must be within that overhead
// of the other's, configuration by configuration, where it used to lack the whole sum
// (about 124 ms of 1.15 s for the first configuration).
func TestT4WithoutABenchmarkTimeCostsItsSamples(t *testing.T) {
	t4, err := format.Open("../testdata/benchmark_hub/convolution_milo/A100_T4.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	cache := loadKernelTuner(t, "../testdata/benchmark_hub/convolution_milo/A100.json.gz")
	simT4, simKT := mustNew(t, t4, simulator.Options{}), mustNew(t, cache, simulator.Options{})
	if simT4.Space().Len() != simKT.Space().Len() {
		t.Fatalf("T4 space of %d, cache space of %d configurations", simT4.Space().Len(), simKT.Space().Len())
	}
	var totalT4, totalKT time.Duration
	withSamples := 0
	for i := range simT4.Space().Len() {
		c := simT4.Space().At(i, nil)
		eT4, err := simT4.Evaluate(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		cKT, err := simKT.Space().ConfigOf(simT4.Space().Values(c))
		if err != nil {
			t.Fatal(err)
		}
		eKT, err := simKT.Evaluate(context.Background(), cKT)
		if err != nil {
			t.Fatal(err)
		}
		rawT4 := t4.Evaluations[slices.IndexFunc(t4.Evaluations, func(e result.Evaluation) bool {
			return slices.EqualFunc(e.Config, eT4.Config, space.Value.Equal)
		})]
		if !math.IsNaN(rawT4.BenchmarkMS) {
			t.Fatalf("%s: the T4 file has a benchmark time %v; the test needs one without", simT4.Space().Format(c), rawT4.BenchmarkMS)
		}
		sum := 0.0
		for _, s := range eT4.Samples {
			sum += s
		}
		if len(eT4.Samples) > 0 {
			withSamples++
		}
		// the T4 cost is compile + validation + framework + the samples' sum ...
		want := eT4.CompileMS + eT4.FrameworkMS + sum
		if !math.IsNaN(eT4.VerifyMS) {
			want += eT4.VerifyMS
		}
		got := simT4.Cost(eT4)
		if d := got.Seconds()*1e3 - want; math.Abs(d) > 1e-3 {
			t.Errorf("%s: cost %v, want compile %v + framework %v + samples %v ms", simT4.Space().Format(c), got, eT4.CompileMS, eT4.FrameworkMS, sum)
		}
		// ... which is the cache's cost short of the benchmark's overhead beyond its samples
		overhead := eKT.BenchmarkMS
		for _, s := range eKT.Samples {
			overhead -= s
		}
		if d := (simKT.Cost(eKT) - got).Seconds() * 1e3; d < -1e-3 || d > overhead+1e-3 {
			t.Errorf("%s: T4 cost %v, cache cost %v: want the T4 short by 0 to %.3f ms", simT4.Space().Format(c), got, simKT.Cost(eKT), overhead)
		}
		totalT4 += got
		totalKT += simKT.Cost(eKT)
	}
	if withSamples != 4201 {
		t.Errorf("%d configurations with samples, want the 4,201 that ran", withSamples)
	}
	if r := totalT4.Seconds() / totalKT.Seconds(); r < 0.99 || r > 1 {
		t.Errorf("whole space: T4 clock %v, cache clock %v (ratio %.4f, want 0.99 to 1)", totalT4, totalKT, r)
	}
}

// The optimum a replay is scored against passes over a configuration found wrong in the
// recording, here re-measured successfully after its wrong answer (the measurement the
// simulator keeps): it computes wrong answers on some input, so it is no optimum.
func TestTheOptimumPassesOverAConfigurationFoundWrong(t *testing.T) {
	iv := space.IntValue
	rec := &result.Recording{Kernel: "k", Objective: "time",
		Params: []space.Param{{Name: "bx", Values: []space.Value{iv(16), iv(32), iv(64)}}},
		Evaluations: []result.Evaluation{
			{Config: []space.Value{iv(32)}, Status: result.WrongAnswer, Objective: math.NaN()},
			{Config: []space.Value{iv(32)}, Status: result.OK, Objective: 1},
			{Config: []space.Value{iv(64)}, Status: result.OK, Objective: 2},
			{Config: []space.Value{iv(16)}, Status: result.OK, Objective: 3},
		}}
	sim, err := simulator.New(rec, simulator.Options{Mode: simulator.Recorded})
	if err != nil {
		t.Fatal(err)
	}
	if opt, _ := sim.Optimum(); opt != 2 {
		t.Errorf("the optimum is %g, want 2 (bx=64): bx=32 was found wrong", opt)
	}
}

// A run that ends on a configuration found wrong in the recording (its kept measurement a
// success, which strategies are answered) is scored as one that found nothing successful,
// not at twice the optimum, and a stop within the optimum does not count it as found.
func TestARunEndingOnAConfigurationFoundWrongIsNotScoredAboveTheOptimum(t *testing.T) {
	iv := space.IntValue
	rec := &result.Recording{Kernel: "k", Objective: "time",
		Params: []space.Param{{Name: "bx", Values: []space.Value{iv(16), iv(32), iv(64)}}},
		Evaluations: []result.Evaluation{
			{Config: []space.Value{iv(32)}, Status: result.WrongAnswer, Objective: math.NaN()},
			{Config: []space.Value{iv(32)}, Status: result.OK, Objective: 1},
			{Config: []space.Value{iv(64)}, Status: result.OK, Objective: 2},
			{Config: []space.Value{iv(16)}, Status: result.OK, Objective: 3},
		}}
	sim, err := simulator.New(rec, simulator.Options{Mode: simulator.Recorded})
	if err != nil {
		t.Fatal(err)
	}
	c, err := sim.Space().ConfigOf([]space.Value{iv(32)})
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := sim.Objective(c); ok {
		t.Errorf("bx=32's objective is %g, want none: it was found wrong", v)
	}
	if e, err := sim.Evaluate(context.Background(), c); err != nil || e.Status != result.OK || e.Objective != 1 {
		t.Errorf("bx=32 evaluates to %s %g (%v), want its kept measurement, ok 1", e.Status, e.Objective, err)
	}
	// brute force measures 16, 32, 64; its best is 32, at 1 ms
	sum, err := simulator.Repeat(context.Background(), sim, simulator.RepeatOptions{Strategy: "bruteforce", Budget: 3, Within: 0.9, Repeats: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	r := sum.Runs[0]
	if r.Fraction != 0 || r.BestObjective != nil || r.Evaluations != 3 || strings.HasPrefix(string(r.Stop), "within") {
		t.Errorf("fraction %g, best objective %v, %d evaluations, stop %q; want 0, none, 3, not within the optimum", r.Fraction, r.BestObjective, r.Evaluations, r.Stop)
	}
}
