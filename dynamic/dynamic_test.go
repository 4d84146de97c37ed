package dynamic_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ktune/ktune/device"
	_ "github.com/ktune/ktune/device/opencl"
	"github.com/ktune/ktune/dynamic"
	"github.com/ktune/ktune/efficiency"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/runner"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/spec"
	"github.com/ktune/ktune/tuning"
)

// axpySpec is y = alpha*x + y over n floats, with two planted faults: tile_size_x 4
// leaves the last element of every tile alone (a wrong answer the spec's own reference
// would also catch), and block_size_x 128 with tile_size_x 2 does not compile.
const axpySpec = `
kernel:
  name: axpy
  source: axpy.cl
constants:
  N: 4096
parameters:
  - name: block_size_x
    values: [16, 32, 64, 128]
  - name: tile_size_x
    values: [1, 2, 4]
problem_size: [N]
grid_div_x: [block_size_x, tile_size_x]
arguments:
  - {name: y, type: float32, length: N, output: true, fill: random}
  - {name: x, type: float32, length: N, fill: random}
  - {name: alpha, type: float32, value: 2}
  - {name: n, type: int32, value: N}
verification:
  reference:
    config: {block_size_x: 32, tile_size_x: 1}
iterations: 4
`

const axpyKernel = `
#if block_size_x == 128 && tile_size_x == 2
#error planted compile error
#endif
__kernel void axpy(__global float *y, __global const float *x, const float alpha, const int n) {
    int i = get_group_id(0) * block_size_x * tile_size_x + get_local_id(0);
    for (int t = 0; t < tile_size_x; t++) {
        int k = i + t * block_size_x;
#if tile_size_x == 4
        if (t == tile_size_x - 1) continue; /* planted wrong answer */
#endif
        if (k < n) y[k] = alpha * x[k] + y[k];
    }
}
`

const axpyN = 4096

// openCL skips the test where PoCL (or another OpenCL device) is missing.
func openCL(t testing.TB) {
	t.Helper()
	b, ok := device.Lookup("opencl")
	if !ok {
		t.Skip("backend opencl is not registered")
	}
	if devs, err := b.Devices(); err != nil || len(devs) == 0 {
		t.Skipf("no OpenCL device here: %v", err)
	}
}

func axpy(t testing.TB) *spec.Spec {
	t.Helper()
	openCL(t)
	return loadSpec(t, "axpy.yaml", map[string]string{"axpy.yaml": axpySpec, "axpy.cl": axpyKernel})
}

func newTuner(t testing.TB, s *spec.Spec, opts dynamic.Options) *dynamic.Tuner {
	t.Helper()
	opts.Backend = "opencl"
	tu, err := dynamic.New(context.Background(), s, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tu.Close() })
	return tu
}

// appData is an application's own input for one call, and the y it expects back.
func appData(rng *rand.Rand) (dynamic.Data, []float32) {
	x, y := make([]float32, axpyN), make([]float32, axpyN)
	alpha := float32(rng.IntN(5) + 1)
	want := make([]float32, axpyN)
	for i := range x {
		x[i], y[i] = float32(rng.IntN(1000))/8, float32(rng.IntN(1000))/8
		want[i] = alpha*x[i] + y[i]
	}
	return dynamic.Data{"x": x, "y": y, "alpha": alpha}, want
}

func checkY(t *testing.T, call int, res dynamic.Result, want []float32) {
	t.Helper()
	got, err := res.Float32s("y")
	if err != nil {
		t.Fatalf("call %d: %v", call, err)
	}
	if !slices.Equal(got, want) {
		i := 0
		for got[i] == want[i] {
			i++
		}
		t.Fatalf("call %d (%v, tried %v): y[%d] = %v, want %v", call, res.Config, res.Tried, i, got[i], want[i])
	}
}

// Every call returns the right y for the application's own data, whatever configuration
// it tried: the planted wrong answers and the compile error are told to the session as
// failures and answered by the known-good configuration. The tuning calls try distinct
// configurations, and the calls after the budget run the best.
func TestEveryCallAnswersTheApplicationsDataCorrectly(t *testing.T) {
	s := axpy(t)
	const budget = 12 // the whole space
	tu := newTuner(t, s, dynamic.Options{Budget: budget, Seed: 3})
	rng := rand.New(rand.NewPCG(1, 2))
	ctx := context.Background()
	tried := map[string]bool{}
	var wrong, broken, tuningCalls int
	for call := range 20 {
		data, want := appData(rng)
		res, err := tu.Run(ctx, data)
		if err != nil {
			t.Fatalf("call %d: %v", call, err)
		}
		checkY(t, call, res, want)
		if !res.Tuning {
			if tu.Tuning() {
				t.Errorf("call %d was no tuning step, but the tuner says it is tuning", call)
			}
			best := tu.Summary().Best
			if best == nil || fmtValues(res.Config) != fmtValues(valuesOf(t, s, best)) {
				t.Errorf("call %d after tuning ran %v, want the best %v", call, res.Config, best)
			}
			if res.Config[1].Float() == 4 {
				t.Errorf("call %d after tuning runs %v, a wrong configuration", call, res.Config)
			}
			continue
		}
		tuningCalls++
		key := strings.TrimSpace(fmtValues(res.Tried))
		if tried[key] {
			t.Errorf("call %d tried %s again", call, key)
		}
		tried[key] = true
		switch {
		case res.Tried[1].Float() == 4:
			wrong++
			if !strings.Contains(res.Failure, "wrong_answer") {
				t.Errorf("call %d tried %s, which is wrong, and says %q", call, key, res.Failure)
			}
		case res.Tried[0].Float() == 128 && res.Tried[1].Float() == 2:
			broken++
			if !strings.Contains(res.Failure, "planted compile error") {
				t.Errorf("call %d tried %s, which does not compile, and says %q", call, key, res.Failure)
			}
		case res.Failure != "":
			t.Errorf("call %d: %s failed: %s", call, key, res.Failure)
		}
		if res.Failure != "" && fmtValues(res.Config) != "32 1" {
			t.Errorf("call %d: a failure answered by %v, want the known-good 32 1", call, res.Config)
		}
	}
	// the baseline is the known-good configuration, measured on the first call: the
	// budget's other 11 are the tuning calls
	if tuningCalls != budget-1 || wrong != 4 || broken != 1 {
		t.Errorf("%d tuning calls (%d wrong answers caught, %d compile errors); want %d, 4 and 1", tuningCalls, wrong, broken, budget-1)
	}
	sum := tu.Summary()
	if sum.Stop == "" || sum.Evaluations != budget {
		t.Errorf("the search stopped (%q) after %d evaluations, want the budget of %d", sum.Stop, sum.Evaluations, budget)
	}
}

func valuesOf(t *testing.T, s *spec.Spec, c space.Config) []space.Value {
	sp, err := s.Space()
	if err != nil {
		t.Fatal(err)
	}
	return sp.Values(c)
}

func fmtValues(vs []space.Value) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = v.String()
	}
	return strings.Join(parts, " ")
}

// Data that do not fit the spec's arguments are the caller's error, naming the
// argument, and cost the search nothing.
func TestBadDataIsAnErrorNamingTheArgument(t *testing.T) {
	s := axpy(t)
	tu := newTuner(t, s, dynamic.Options{Budget: 4, Seed: 1})
	good, _ := appData(rand.New(rand.NewPCG(1, 1)))
	with := func(name string, v any) dynamic.Data {
		d := dynamic.Data{}
		for k, x := range good {
			d[k] = x
		}
		if v == nil {
			delete(d, name)
		}
		d[name] = v
		return d
	}
	for _, tc := range []struct {
		name string
		data dynamic.Data
		arg  string
		says string
	}{
		{"unknown argument", with("z", []float32{1}), "z", "no argument of this name"},
		{"short array", with("x", make([]float32, axpyN-1)), "x", "got 4095 float32 elements; the array has 4096"},
		{"wrong element type", with("x", make([]float64, axpyN)), "x", "got []float64 for an argument of type float32"},
		{"scalar of the wrong type", with("alpha", 2.0), "alpha", "got float64"},
		{"scalar of two elements", with("alpha", []float32{1, 2}), "alpha", "the scalar has 1"},
		{"bytes not whole elements", with("y", make([]byte, 4*axpyN+2)), "y", "not a whole number of float32 elements"},
		{"a string", with("n", "4096"), "n", "got string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tu.Run(context.Background(), tc.data)
			var de *runner.DataError
			if !errors.As(err, &de) || de.Arg != tc.arg || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("got %v, want a DataError for %s saying %q", err, tc.arg, tc.says)
			}
		})
	}
	if n := tu.Summary().Evaluations; n != 0 {
		t.Errorf("bad data cost the search %d evaluations", n)
	}
	if _, err := tu.Run(context.Background(), good); err != nil {
		t.Fatal(err)
	}
	if n := tu.Summary().Evaluations; n != 2 { // the baseline and the first try
		t.Errorf("after one good call, %d evaluations; want 2", n)
	}
}

// A cancelled call returns the context's error and tells the session nothing; the
// next call goes on with the search, and a closed tuner refuses calls.
func TestCancelledCallsLeaveTheSearchAsItWas(t *testing.T) {
	s := axpy(t)
	tu := newTuner(t, s, dynamic.Options{Budget: 5, Seed: 1})
	rng := rand.New(rand.NewPCG(5, 5))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	data, want := appData(rng)
	if _, err := tu.Run(ctx, data); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled call: %v, want context.Canceled", err)
	}
	if n := tu.Summary().Evaluations; n != 0 {
		t.Errorf("a cancelled call cost %d evaluations", n)
	}
	res, err := tu.Run(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	checkY(t, 0, res, want)
	short, cancel2 := context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel2()
	time.Sleep(time.Millisecond)
	if _, err := tu.Start(short, data).Wait(); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a call past its deadline: %v, want context.DeadlineExceeded", err)
	}
	tu.Close()
	if _, err := tu.Run(context.Background(), data); !errors.Is(err, dynamic.ErrClosed) {
		t.Errorf("a call after Close: %v, want ErrClosed", err)
	}
	if err := tu.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
}

// Start returns at once; the calls are served in the order they were started, each
// with its own data.
func TestStartedCallsAnswerEachTheirOwnData(t *testing.T) {
	s := axpy(t)
	tu := newTuner(t, s, dynamic.Options{Budget: 6, Seed: 2})
	rng := rand.New(rand.NewPCG(7, 7))
	var pending []*dynamic.Pending
	var wants [][]float32
	for range 8 {
		data, want := appData(rng)
		pending = append(pending, tu.Start(context.Background(), data))
		wants = append(wants, want)
	}
	tuningCalls := 0
	for i, p := range pending {
		res, err := p.Wait()
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		checkY(t, i, res, wants[i])
		// in order: the budget's tuning calls (all but the baseline) come first
		if res.Tuning != (i < 5) {
			t.Errorf("call %d: tuning %v, want %v", i, res.Tuning, i < 5)
		}
		if res.Tuning {
			tuningCalls++
		}
	}
	if tuningCalls != 5 {
		t.Errorf("%d tuning calls, want 5", tuningCalls)
	}
}

// Retune starts a new search: the next calls tune again, from scratch.
func TestRetuneStartsANewSearch(t *testing.T) {
	s := axpy(t)
	tu := newTuner(t, s, dynamic.Options{Budget: 3, Seed: 4})
	rng := rand.New(rand.NewPCG(9, 9))
	run := func() dynamic.Result {
		t.Helper()
		data, want := appData(rng)
		res, err := tu.Run(context.Background(), data)
		if err != nil {
			t.Fatal(err)
		}
		checkY(t, 0, res, want)
		return res
	}
	for range 2 {
		if !run().Tuning {
			t.Fatal("a call within the budget was no tuning step")
		}
	}
	if run().Tuning || tu.Tuning() {
		t.Fatal("tuning went on past the budget")
	}
	if err := tu.Retune(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !tu.Tuning() || tu.Summary().Evaluations != 0 {
		t.Fatalf("after Retune: tuning %v, %d evaluations; want a new search", tu.Tuning(), tu.Summary().Evaluations)
	}
	if !run().Tuning {
		t.Error("the first call after Retune was no tuning step")
	}
}

// A target the baseline reaches ends the search at once: the known-good configuration
// is fast enough, and every call runs it.
func TestAFastEnoughTargetEndsTheSearch(t *testing.T) {
	s := axpy(t)
	tu := newTuner(t, s, dynamic.Options{Budget: 10, Target: 1e6, Seed: 1}) // ms
	data, want := appData(rand.New(rand.NewPCG(3, 3)))
	for call := range 3 {
		res, err := tu.Run(context.Background(), data)
		if err != nil {
			t.Fatal(err)
		}
		checkY(t, call, res, want)
		if res.Tuning {
			t.Errorf("call %d tuned, after the baseline reached the target", call)
		}
	}
	if sum := tu.Summary(); sum.Stop != tuning.StopTarget || sum.Evaluations != 1 {
		t.Errorf("stopped (%q) after %d evaluations, want the target after the baseline", sum.Stop, sum.Evaluations)
	}
}

// recorder is a tuning.Sink that keeps what it is given.
type recorder struct{ got []result.Evaluation }

func (r *recorder) Record(_ context.Context, e result.Evaluation) error {
	r.got = append(r.got, e)
	return nil
}

// The sink receives the baseline and every configuration tried, failures included, as
// the session counts them.
func TestTheSinkRecordsEveryEvaluation(t *testing.T) {
	s := axpy(t)
	sink := &recorder{}
	tu := newTuner(t, s, dynamic.Options{Budget: 12, Seed: 3, Sink: sink})
	rng := rand.New(rand.NewPCG(1, 2))
	for call := range 12 {
		data, want := appData(rng)
		res, err := tu.Run(context.Background(), data)
		if err != nil {
			t.Fatal(err)
		}
		checkY(t, call, res, want)
	}
	statuses := map[result.Status]int{}
	for _, e := range sink.got {
		statuses[e.Status]++
	}
	if len(sink.got) != 12 || statuses[result.WrongAnswer] != 4 || statuses[result.CompileError] != 1 || statuses[result.OK] != 7 {
		t.Errorf("the sink got %d evaluations %v; want 12: 7 ok, 4 wrong answers, 1 compile error", len(sink.got), statuses)
	}
	if first := sink.got[0]; fmtValues(first.Config) != "32 1" || first.Status != result.OK {
		t.Errorf("the first recorded is %v %v, want the known-good baseline 32 1", first.Config, first.Status)
	}
}

// axpyWithOps is axpy with the operations its task essentially needs: x read, y read and
// written, 12 bytes an element.
func axpyWithOps(t *testing.T) *spec.Spec {
	t.Helper()
	openCL(t)
	return loadSpec(t, "axpy.yaml", map[string]string{"axpy.yaml": axpySpec + "essential_ops: {bytes: 12 * N}\n", "axpy.cl": axpyKernel})
}

// A well-performing threshold (a fraction of the device's peak, seed 003's Section 6)
// that the known-good baseline meets ends the search at once: with a memory peak of
// 0.001 GB/s given, any run of axpy's 49152 bytes reaches far more than 75% of it. The
// summary says what was reached, and every call runs the baseline.
func TestAThresholdOfThePeakTheBaselineMeetsEndsTheSearch(t *testing.T) {
	s := axpyWithOps(t)
	tu := newTuner(t, s, dynamic.Options{Budget: 10, WithinPeak: 0.75, Peaks: efficiency.Given{GBs: 0.001}, Seed: 1})
	data, want := appData(rand.New(rand.NewPCG(3, 3)))
	for call := range 3 {
		res, err := tu.Run(context.Background(), data)
		if err != nil {
			t.Fatal(err)
		}
		checkY(t, call, res, want)
		if res.Tuning {
			t.Errorf("call %d tuned, after the baseline met the threshold", call)
		}
	}
	sum := tu.Summary()
	if sum.Evaluations != 1 || !strings.HasPrefix(string(sum.Stop), "within 75% of peak: ") || !strings.Contains(string(sum.Stop), " GB/s of 0.001 GB/s (") {
		t.Errorf("stopped (%q) after %d evaluations, want the threshold after the baseline", sum.Stop, sum.Evaluations)
	}
}

// A peaks file gives the tuner's device its peak (by backend:index): the same threshold
// the baseline meets ends the search; a file that does not name the device is refused.
func TestAPeaksFileGivesTheThresholdItsPeak(t *testing.T) {
	s := axpyWithOps(t)
	pf, err := efficiency.ParseFile("peaks.yaml", []byte("\"opencl:0\": {gbs: 0.001}\n\"opencl:5\": {gbs: 1e9}\n"))
	if err != nil {
		t.Fatal(err)
	}
	tu := newTuner(t, s, dynamic.Options{Budget: 10, WithinPeak: 0.75, PeaksFile: pf, Seed: 1})
	data, want := appData(rand.New(rand.NewPCG(3, 3)))
	res, err := tu.Run(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	checkY(t, 0, res, want)
	if sum := tu.Summary(); sum.Evaluations != 1 || !strings.Contains(string(sum.Stop), " GB/s of 0.001 GB/s (") {
		t.Errorf("stopped (%q) after %d evaluations, want the file's peak met by the baseline", sum.Stop, sum.Evaluations)
	}
	other, err := efficiency.ParseFile("other.yaml", []byte("\"gfx90a\": {gbs: 1600}\n"))
	if err != nil {
		t.Fatal(err)
	}
	tu2, err := dynamic.New(context.Background(), s, dynamic.Options{Backend: "opencl", Budget: 10, WithinPeak: 0.75, PeaksFile: other})
	if err == nil {
		tu2.Close()
	}
	if err == nil || !strings.Contains(err.Error(), "peaks file other.yaml names no device") {
		t.Errorf("a peaks file without the device: %v", err)
	}
}

// A threshold no configuration meets (the whole of a peak of 1e9 GB/s) leaves the
// search to its budget.
func TestAThresholdOfThePeakNoneMeetsSpendsTheBudget(t *testing.T) {
	s := axpyWithOps(t)
	tu := newTuner(t, s, dynamic.Options{Budget: 6, WithinPeak: 1, Peaks: efficiency.Given{GBs: 1e9}, Seed: 3})
	rng := rand.New(rand.NewPCG(1, 2))
	for call := range 8 {
		data, want := appData(rng)
		res, err := tu.Run(context.Background(), data)
		if err != nil {
			t.Fatal(err)
		}
		checkY(t, call, res, want)
	}
	if sum := tu.Summary(); sum.Evaluations != 6 || sum.Stop != tuning.StopBudget {
		t.Errorf("stopped (%q) after %d evaluations, want the budget of 6", sum.Stop, sum.Evaluations)
	}
}

// A threshold of the peak that no efficiency can be computed for is refused by New,
// saying what to give.
func TestAThresholdOfThePeakNeedsOperationsAndPeaks(t *testing.T) {
	for _, tc := range []struct {
		name  string
		s     func(*testing.T) *spec.Spec
		opts  dynamic.Options
		want  string
		exact bool // want is the whole message
	}{
		{"no essential_ops", func(t *testing.T) *spec.Spec { return axpy(t) }, dynamic.Options{WithinPeak: 0.75, Peaks: efficiency.Given{GBs: 40}},
			"declares no essential_ops", false},
		// the memory figure alone, with PoCL's reason for it alone, and the options that give it
		{"no memory peak", axpyWithOps, dynamic.Options{WithinPeak: 0.75},
			"dynamic: WithinPeak 0.75: no efficiency: the device's memory bandwidth peak is unknown (OpenCL reports no memory bandwidth): " +
				"give it with Options.Peaks.GBs (GB/s), or gbs in the device's entry of Options.PeaksFile; " +
				"take it from the device's data sheet or a measurement (STREAM for memory)", true},
		{"a fraction above 1", axpyWithOps, dynamic.Options{WithinPeak: 1.5, Peaks: efficiency.Given{GBs: 40}},
			"WithinPeak 1.5; expected a fraction of the device's peak above 0 and at most 1", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Backend = "opencl"
			tu, err := dynamic.New(context.Background(), tc.s(t), tc.opts)
			if err == nil {
				tu.Close()
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || tc.exact && err.Error() != tc.want {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}
