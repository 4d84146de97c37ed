package dynamic_test

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ktune/ktune/dynamic"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/spec"
)

// countSpec is y = alpha*x + y over the first n of N floats, n given by the
// application on each call, with a planted count-dependent bug: a configuration with
// tile_size_x 2 leaves alone the tail of n past the last whole tile of
// block_size_x*tile_size_x elements. At n 4096 every configuration is right; at 3968
// (31 * 128) only 128 2 is wrong; at 4000 every tile of 2. The objective, a rank the spec
// fixes, makes the tiles of 2 the best, in the order 128 2, 64 2, 32 2, then 128 1, 64 1
// and the known-good 32 1, so that which configuration tuning ends on does not depend on
// PoCL's timings on a loaded machine.
const countSpec = `
kernel:
  name: axpyn
  source: axpyn.cl
constants:
  N: 4096
parameters:
  - name: block_size_x
    values: [32, 64, 128]
  - name: tile_size_x
    values: [1, 2]
problem_size: [N]
grid_div_x: [block_size_x, tile_size_x]
arguments:
  - {name: y, type: float32, length: N, output: true, fill: random}
  - {name: x, type: float32, length: N, fill: random}
  - {name: alpha, type: float32, value: 2}
  - {name: n, type: int32, value: N}
metrics:
  - name: rank
    expr: "(3 - tile_size_x) * 10 - block_size_x / 32"
objective: rank
verification:
  reference:
    config: {block_size_x: 32, tile_size_x: 1}
iterations: 2
`

const countKernel = `
__kernel void axpyn(__global float *y, __global const float *x, const float alpha, const int n) {
    int i = get_group_id(0) * block_size_x * tile_size_x + get_local_id(0);
#if tile_size_x == 2
    const int end = n / (block_size_x * tile_size_x) * (block_size_x * tile_size_x); /* planted: the tail is left alone */
#else
    const int end = n;
#endif
    for (int t = 0; t < tile_size_x; t++) {
        int k = i + t * block_size_x;
        if (k < end) y[k] = alpha * x[k] + y[k];
    }
}
`

func countAxpy(t testing.TB) *spec.Spec {
	t.Helper()
	openCL(t)
	return loadSpec(t, "axpyn.yaml", map[string]string{"axpyn.yaml": countSpec, "axpyn.cl": countKernel})
}

// countData is an application's input with a count n of the N elements, and the y it
// expects back: the first n updated, the rest as given.
func countData(rng *rand.Rand, n int) (dynamic.Data, []float32) { return countDataN(rng, axpyN, n) }

// countDataN is countData for the constant N at n, the count at count.
func countDataN(rng *rand.Rand, n, count int) (dynamic.Data, []float32) {
	x, y, want := make([]float32, n), make([]float32, n), make([]float32, n)
	alpha := float32(rng.IntN(5) + 1)
	for i := range x {
		x[i], y[i] = float32(rng.IntN(1000))/8, float32(rng.IntN(1000))/8
		want[i] = y[i]
		if i < count {
			want[i] = alpha*x[i] + y[i]
		}
	}
	return dynamic.Data{"x": x, "y": y, "alpha": alpha, "n": int32(count)}, want
}

// tuneCount tunes countSpec over its whole space on calls with n 4096, on which every
// configuration is right, and checks that the search ends on the best by rank, 128 2.
func tuneCount(t *testing.T, tu *dynamic.Tuner, rng *rand.Rand) {
	t.Helper()
	for call := range 5 {
		data, want := countData(rng, 4096)
		res, err := tu.Run(context.Background(), data)
		if err != nil {
			t.Fatalf("tuning call %d: %v", call, err)
		}
		checkY(t, call, res, want)
		if !res.Tuning || res.Failure != "" {
			t.Fatalf("tuning call %d: tuning %v, failure %q; want a tuning step that agrees", call, res.Tuning, res.Failure)
		}
	}
	if tu.Tuning() {
		t.Fatal("still tuning after the whole space")
	}
	if got := fmtValues(tu.Searches()[0].Running); got != "128 2" {
		t.Fatalf("tuning ended on %s, want 128 2, the best by rank", got)
	}
}

// checkedCall is one call of a table of calls after tuning, on countData of its count,
// and what the call must come to.
type checkedCall struct {
	n       int      // the call's count
	checked bool     // whether the call is checked
	wrong   []string // the configurations its check finds wrong, in order
	config  string   // the configuration whose outputs answer it; "" for the reference's own
	// judge, where not "", is who judges the call, and failure what its reference's
	// failure says ("" for none).
	judge, failure string
}

// runCalls makes tu's calls, one a case on countData of its count, in order, and checks
// each: the call returns the right y and is no tuning step, is checked or not as the case
// says, finds its configurations wrong, is answered by its configuration (or the
// reference's outputs), and is judged as it says. eachError, where not nil, looks at each
// check error of a call too. It returns the calls' results.
func runCalls(t *testing.T, tu *dynamic.Tuner, rng *rand.Rand, calls []checkedCall, eachError func(call int, res dynamic.Result, ce *dynamic.CheckError)) []dynamic.Result {
	t.Helper()
	var results []dynamic.Result
	for call, tc := range calls {
		data, want := countData(rng, tc.n)
		res, err := tu.Run(context.Background(), data)
		if err != nil {
			t.Fatalf("call %d (n %d): %v", call, tc.n, err)
		}
		checkY(t, call, res, want)
		var wrong []string
		for _, ce := range res.CheckErrors {
			wrong = append(wrong, fmtValues(ce.Config))
			if eachError != nil {
				eachError(call, res, ce)
			}
		}
		judged := tc.judge == "" || res.Judge == tc.judge && (tc.failure == "") == (res.ReferenceFailure == "") && strings.Contains(res.ReferenceFailure, tc.failure)
		if res.Checked != tc.checked || !slices.Equal(wrong, tc.wrong) || fmtValues(res.Config) != tc.config || res.Reference != (tc.config == "") || res.Tuning || !judged {
			t.Errorf("call %d (n %d): checked %v by %q (reference failure %q), found wrong %v, answered by %q (reference %v), tuning %v; want checked %v, wrong %v, answered by %q, judged by %q (failure %q)",
				call, tc.n, res.Checked, res.Judge, res.ReferenceFailure, wrong, fmtValues(res.Config), res.Reference, res.Tuning, tc.checked, tc.wrong, tc.config, tc.judge, tc.failure)
		}
		results = append(results, res)
	}
	return results
}

// Without a check, the gap this option closes: the tuned configuration, right on every
// tuning call's data, returns a wrong y once the application's count changes.
func TestWithoutACheckALaterCountGetsAWrongAnswer(t *testing.T) {
	s := countAxpy(t)
	tu := newTuner(t, s, dynamic.Options{Budget: 6, Seed: 1})
	rng := rand.New(rand.NewPCG(11, 1))
	tuneCount(t, tu, rng)
	data, want := countData(rng, 4000)
	res, err := tu.Run(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := res.Float32s("y")
	if slices.Equal(got, want) || res.Checked || fmtValues(res.Config) != "128 2" {
		t.Fatalf("an unchecked call at n 4000 ran %v (checked %v) and got the right y; the planted bug should show", res.Config, res.Checked)
	}
}

// With CheckOnChange naming n, the first call of each new count is checked: at 3968 the
// best, 128 2, disagrees, is reported and marked failed, and the next best, 64 2, right
// at 3968, answers and runs the later calls; at 4000 it disagrees too, and so does the
// one after it, 32 2, and 128 1 answers. Every call returns the right y, and the calls
// of a count already checked are not checked again.
func TestACheckOnAChangedCountCatchesASizeDependentBug(t *testing.T) {
	s := countAxpy(t)
	tu := newTuner(t, s, dynamic.Options{Budget: 6, Seed: 1, CheckOnChange: []string{"n"}})
	rng := rand.New(rand.NewPCG(11, 1))
	tuneCount(t, tu, rng)
	runCalls(t, tu, rng, []checkedCall{
		{n: 4096, config: "128 2"}, // the count the best was tried on
		{n: 3968, checked: true, wrong: []string{"128 2"}, config: "64 2"},
		{n: 3968, config: "64 2"},
		{n: 4000, checked: true, wrong: []string{"64 2", "32 2"}, config: "128 1"},
		{n: 4000, config: "128 1"},
		{n: 4096, checked: true, config: "128 1"}, // 128 1 agreed last at 4000
		{n: 3968, checked: true, config: "128 1"},
	}, func(call int, res dynamic.Result, ce *dynamic.CheckError) {
		if ce.Status != result.WrongAnswer || ce.Call != 6+call ||
			!strings.Contains(ce.Msg, "output y:") || !strings.Contains(ce.Error(), "call "+strconv.Itoa(6+call)+" of the spec's own sizes") ||
			!strings.Contains(ce.Error(), "block_size_x=") || !strings.Contains(res.Failure, ce.Error()) {
			t.Errorf("call %d: check error %q (status %s, call %d); want a wrong answer of call %d naming the configuration and output y, in Failure %q",
				call, ce.Error(), ce.Status, ce.Call, 6+call, res.Failure)
		}
	})
	sr := tu.Searches()[0]
	var failed []string
	for _, ce := range sr.Failed {
		failed = append(failed, fmtValues(ce.Config)+" then "+fmtValues(ce.Next))
	}
	if want := []string{"128 2 then 64 2", "64 2 then 32 2", "32 2 then 128 1"}; !slices.Equal(failed, want) || fmtValues(sr.Running) != "128 1" {
		t.Errorf("the search reports failed %q, running %v; want %q, running 128 1", failed, sr.Running, want)
	}
	// Retune forgets the failures with the search
	if err := tu.Retune(context.Background()); err != nil {
		t.Fatal(err)
	}
	if sr := tu.Searches()[0]; sr.Failed != nil || sr.Running != nil {
		t.Errorf("after Retune the search reports failed %v, running %v", sr.Failed, sr.Running)
	}
}

// CheckEvery checks by count, whatever the data: every second call after tuning. A
// wrong best found on a checked call is answered by a configuration that agrees; the
// unchecked calls before it were the application's risk, which the interval bounds.
func TestCheckEveryChecksEveryNthCall(t *testing.T) {
	s := countAxpy(t)
	tu := newTuner(t, s, dynamic.Options{Budget: 6, Seed: 1, CheckEvery: 2})
	rng := rand.New(rand.NewPCG(11, 1))
	tuneCount(t, tu, rng)
	ctx := context.Background()
	var checked []int
	for call := range 6 {
		data, want := countData(rng, 4096)
		res, err := tu.Run(ctx, data)
		if err != nil {
			t.Fatal(err)
		}
		checkY(t, call, res, want)
		if res.Checked {
			checked = append(checked, call)
		}
		if res.Failure != "" || fmtValues(res.Config) != "128 2" {
			t.Errorf("call %d at n 4096 ran %v, failure %q; want 128 2, right there", call, res.Config, res.Failure)
		}
	}
	if want := []int{1, 3, 5}; !slices.Equal(checked, want) {
		t.Errorf("calls %v after tuning were checked, want %v", checked, want)
	}
	// at 3968 an unchecked call is wrong, the checked one after it is caught
	data, want := countData(rng, 3968)
	res, err := tu.Run(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := res.Float32s("y"); res.Checked || slices.Equal(got, want) {
		t.Fatalf("the unchecked call at 3968 (checked %v) got the right y; the planted bug should show", res.Checked)
	}
	res, err = tu.Run(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	checkY(t, 7, res, want)
	if !res.Checked || len(res.CheckErrors) != 1 || fmtValues(res.CheckErrors[0].Config) != "128 2" || fmtValues(res.Config) != "64 2" {
		t.Errorf("the checked call at 3968: checked %v, errors %v, answered by %v; want 128 2 found wrong and 64 2 answering", res.Checked, res.Failure, res.Config)
	}
}

// Options naming what a check cannot use are refused when the tuner is made.
func TestCheckOptionsAreValidated(t *testing.T) {
	s := countAxpy(t)
	for _, tc := range []struct {
		opts dynamic.Options
		says string
	}{
		{dynamic.Options{CheckEvery: -1}, "CheckEvery -1"},
		{dynamic.Options{CheckOnChange: []string{"m"}}, "CheckOnChange names m, no argument of the spec; it takes scalar arguments (the spec's: alpha, n)"},
		{dynamic.Options{CheckOnChange: []string{"x"}}, "CheckOnChange names x, an array, not a scalar"},
	} {
		tc.opts.Backend = "opencl"
		if tu, err := dynamic.New(context.Background(), s, tc.opts); err == nil || !strings.Contains(err.Error(), tc.says) {
			if tu != nil {
				tu.Close()
			}
			t.Errorf("New with %+v: %v; want an error saying %q", tc.opts, err, tc.says)
		}
	}
}

// A check of a size's search (RunSized) names that size: the search at N 2048 tunes
// on n 2048 and its best, 128 2, is caught at n 2000, as are 64 2 and 32 2 after it
// (2000 is no multiple of 64): after three tries the known-good configuration answers,
// and the next call checks the next best, 128 1, which agrees. The spec's own size's
// search is left alone.
func TestACheckNamesTheSizeOfItsSearch(t *testing.T) {
	s := countAxpy(t)
	tu := newTuner(t, s, dynamic.Options{Budget: 6, Seed: 1, CheckOnChange: []string{"n"}})
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(12, 1))
	const size = 2048
	run := func(n int) dynamic.Result {
		t.Helper()
		x, y, want := make([]float32, size), make([]float32, size), make([]float32, size)
		for i := range x {
			x[i], y[i] = float32(rng.IntN(1000))/8, float32(rng.IntN(1000))/8
			want[i] = y[i]
			if i < n {
				want[i] = 3*x[i] + y[i]
			}
		}
		res, err := tu.RunSized(ctx, dynamic.Sizes{"N": size}, dynamic.Data{"x": x, "y": y, "alpha": float32(3), "n": int32(n)})
		if err != nil {
			t.Fatal(err)
		}
		got, err := res.Float32s("y")
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("n %d: a wrong y from %v", n, res.Config)
		}
		return res
	}
	for range 5 {
		run(size)
	}
	res := run(2000)
	if len(res.CheckErrors) != 3 || fmtValues(res.Config) != "32 1" {
		t.Fatalf("the call at n 2000 found %d wrong configurations (%q) and ran %v, want 3 and the known-good 32 1", len(res.CheckErrors), res.Failure, res.Config)
	}
	if next := run(2000); !next.Checked || next.Failure != "" || fmtValues(next.Config) != "128 1" {
		t.Errorf("the call after: checked %v, failure %q, ran %v; want 128 1 checked and agreeing", next.Checked, next.Failure, next.Config)
	}
	ce := res.CheckErrors[0]
	if ce.Sizes["N"] != size || !strings.Contains(ce.Error(), "call 6 of N=2048: the tuned configuration block_size_x=128, tile_size_x=2 is wrong") {
		t.Errorf("the check error %q (sizes %v); want call 6 of N=2048 naming 128 2", ce.Error(), ce.Sizes)
	}
	for _, sr := range tu.Searches() {
		if sr.Sizes == nil && sr.Failed != nil {
			t.Errorf("the spec's own size's search reports failures %v", sr.Failed)
		}
	}
}

// CheckOnChange compares values as the kernel receives them: n given as int32(4096),
// []int32{4096}, its raw little-endian bytes, or left out (the spec's value, N) is one
// value, and none of these calls is checked after tuning on int32(4096); the first call
// of 3968, in any of those forms, is. alpha, named too, is the same as float32(2) and
// []float32{2}, and another value as -0 after 0.
func TestCheckOnChangeComparesValuesNotTheirGoForm(t *testing.T) {
	s := countAxpy(t)
	tu := newTuner(t, s, dynamic.Options{Budget: 6, Seed: 1, CheckOnChange: []string{"n", "alpha"}})
	rng := rand.New(rand.NewPCG(11, 1))
	tuneCount(t, tu, rng)
	le := func(n int32) []byte { return []byte{byte(n), byte(n >> 8), byte(n >> 16), byte(n >> 24)} }
	ctx := context.Background()
	for call, tc := range []struct {
		form    string
		n       int
		value   any // n's value as given; nil leaves it out
		alpha   any // alpha's; countData's when nil
		checked bool
	}{
		{"int32, with tuning's last alpha changed to 2", 4096, int32(4096), nil, true},
		{"int32", 4096, int32(4096), nil, false},
		{"[]int32", 4096, []int32{4096}, nil, false},
		{"raw bytes", 4096, le(4096), nil, false},
		{"left out", 4096, nil, nil, false},
		{"[]int32 of a new count", 3968, []int32{3968}, nil, true},
		{"int32 of that count", 3968, int32(3968), nil, false},
		{"raw bytes of that count", 3968, le(3968), nil, false},
		{"alpha as []float32", 3968, int32(3968), []float32{2}, false},
		{"alpha as float32", 3968, int32(3968), float32(2), false},
		{"alpha 0", 3968, int32(3968), float32(0), true},
		{"alpha -0, not 0", 3968, int32(3968), float32(math.Copysign(0, -1)), true},
		{"left out again", 4096, nil, nil, true},
	} {
		data, want := countData(rng, tc.n)
		if tc.value == nil {
			delete(data, "n")
		} else {
			data["n"] = tc.value
		}
		if tc.alpha != nil {
			data["alpha"] = tc.alpha
			x, y := data["x"].([]float32), data["y"].([]float32)
			a, ok := tc.alpha.(float32)
			if !ok {
				a = tc.alpha.([]float32)[0]
			}
			for i := range want {
				if i < tc.n {
					want[i] = a*x[i] + y[i]
				}
			}
		} else {
			data["alpha"] = float32(2) // one alpha throughout, so that only n changes
			x, y := data["x"].([]float32), data["y"].([]float32)
			for i := range want {
				if i < tc.n {
					want[i] = 2*x[i] + y[i]
				}
			}
		}
		res, err := tu.Run(ctx, data)
		if err != nil {
			t.Fatalf("call %d (%s): %v", call, tc.form, err)
		}
		checkY(t, call, res, want)
		if res.Checked != tc.checked {
			t.Errorf("call %d, n %d as %s: checked %v, want %v", call, tc.n, tc.form, res.Checked, tc.checked)
		}
	}
}
