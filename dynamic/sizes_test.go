package dynamic_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ktune/ktune/dynamic"
	"github.com/ktune/ktune/runner"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/spec"
	"github.com/ktune/ktune/tuning"
)

// sizedAxpy is the tests' axpy with a restriction that reads N: a tile of
// block_size_x*tile_size_x elements may cover at most an eighth of the array. At N 4096
// every configuration is valid (12), at 1024 nine, at 256 three; at 64 not even the
// reference configuration.
func sizedAxpy(t testing.TB) *spec.Spec {
	t.Helper()
	openCL(t)
	text := strings.Replace(axpySpec, "problem_size:", "restrictions: [\"block_size_x * tile_size_x <= N / 8\"]\nproblem_size:", 1)
	return loadSpec(t, "axpy.yaml", map[string]string{"axpy.yaml": text, "axpy.cl": axpyKernel})
}

// sizedData is an application's input of n elements, and the y it expects back.
func sizedData(rng *rand.Rand, n int) (dynamic.Data, []float32) {
	x, y, want := make([]float32, n), make([]float32, n), make([]float32, n)
	alpha := float32(rng.IntN(5) + 1)
	for i := range x {
		x[i], y[i] = float32(rng.IntN(1000))/8, float32(rng.IntN(1000))/8
		want[i] = alpha*x[i] + y[i]
	}
	return dynamic.Data{"x": x, "y": y, "alpha": alpha}, want
}

func sizes(n int) dynamic.Sizes { return dynamic.Sizes{"N": float64(n)} }

// Calls alternating between three sizes each get a + b of their own data, and each
// size's search is its own: its space (the restriction reads N), its budget counted
// apart, its end when its own budget is spent while the others go on, and after that
// its own best, valid at its size.
func TestCallsOfSeveralSizesKeepASearchEach(t *testing.T) {
	s := sizedAxpy(t)
	const budget = 4
	tu := newTuner(t, s, dynamic.Options{Budget: budget, Seed: 5})
	rng := rand.New(rand.NewPCG(4, 4))
	ctx := context.Background()
	// 1024 twice as often as the others: its search ends first
	pattern := []int{1024, 256, 1024, 4096}
	tuningCalls := map[int]int{}
	endedFirst := 0
	for call := range 4 * len(pattern) {
		n := pattern[call%len(pattern)]
		data, want := sizedData(rng, n)
		res, err := tu.RunSized(ctx, sizes(n), data)
		if err != nil {
			t.Fatalf("call %d (N %d): %v", call, n, err)
		}
		checkY(t, call, res, want)
		cfg := res.Config
		if res.Tuning {
			tuningCalls[n]++
			cfg = res.Tried
		}
		if bx, tx := cfg[0].Float(), cfg[1].Float(); bx*tx > float64(n)/8 {
			t.Errorf("call %d (N %d) ran %v, outside that size's space", call, n, cfg)
		}
		if !res.Tuning && res.Config[1].Float() == 4 {
			t.Errorf("call %d (N %d) after tuning runs %v, a wrong configuration", call, n, res.Config)
		}
		if endedFirst == 0 && !tu.TuningSized(sizes(n)) {
			endedFirst = n
			if !tu.TuningSized(sizes(4096)) {
				t.Errorf("N %d ended its search at call %d, and N 4096's ended with it", n, call)
			}
		}
	}
	if endedFirst != 1024 {
		t.Errorf("the first search to end was N %d's, want 1024's (called twice as often)", endedFirst)
	}
	// the baseline counts against each size's budget; N 256 has 3 configurations only
	want := map[int]int{1024: budget - 1, 4096: budget - 1, 256: 2}
	for n, w := range want {
		if tuningCalls[n] != w {
			t.Errorf("N %d: %d tuning calls, want %d", n, tuningCalls[n], w)
		}
		sum := tu.SummarySized(sizes(n))
		if sum.Stop == "" || sum.Evaluations != w+1 {
			t.Errorf("N %d: stopped (%q) after %d evaluations, want %d", n, sum.Stop, sum.Evaluations, w+1)
		}
	}
	if tu.Summary().Evaluations != tu.SummarySized(sizes(4096)).Evaluations || tu.SummarySized(dynamic.Sizes{"N": 4096}).Stop == "" {
		t.Error("N 4096, the spec's own, is not the search of Run")
	}
	got := map[string]int{}
	for _, sr := range tu.Searches() {
		got[sr.Sizes.String()] = sr.Configurations
	}
	if len(got) != 3 || got["N=256"] != 3 || got["N=1024"] != 9 || got[""] != 12 {
		t.Errorf("searches and their spaces %v; want N=256: 3, N=1024: 9 and the spec's own (\"\"): 12", got)
	}
}

// With MaxSizes, a new size drops the search of the size called least recently; calling
// that size again starts its search from scratch, while the others keep theirs.
func TestMaxSizesEvictsTheLeastRecentlyCalledSize(t *testing.T) {
	s := sizedAxpy(t)
	tu := newTuner(t, s, dynamic.Options{Budget: 5, Seed: 1, MaxSizes: 2})
	rng := rand.New(rand.NewPCG(6, 6))
	run := func(n int) dynamic.Result {
		t.Helper()
		data, want := sizedData(rng, n)
		res, err := tu.RunSized(context.Background(), sizes(n), data)
		if err != nil {
			t.Fatalf("N %d: %v", n, err)
		}
		checkY(t, n, res, want)
		return res
	}
	run(256)
	run(1024)
	run(256) // 1024 is now the least recently called
	run(2048)
	var kept []string
	for _, sr := range tu.Searches() {
		kept = append(kept, sr.Sizes.String())
	}
	if !slices.Equal(kept, []string{"N=2048", "N=256"}) {
		t.Errorf("kept %v, want N=2048 and N=256, most recent first", kept)
	}
	if n := tu.SummarySized(sizes(1024)).Evaluations; n != 0 || !tu.TuningSized(sizes(1024)) {
		t.Errorf("the evicted N 1024 still reports %d evaluations", n)
	}
	if n := tu.SummarySized(sizes(256)).Evaluations; n != 3 {
		t.Errorf("N 256 kept its search: %d evaluations, want 3 (the baseline and two tries)", n)
	}
	if !run(1024).Tuning {
		t.Error("N 1024 called again is no tuning step")
	}
	if n := tu.SummarySized(sizes(1024)).Evaluations; n != 2 {
		t.Errorf("N 1024 called again: %d evaluations, want 2: a new search", n)
	}
	if n := tu.SummarySized(sizes(256)).Evaluations; n != 0 {
		t.Errorf("N 256, now the least recent, was not evicted (%d evaluations)", n)
	}
	// RetuneSized ends one size's search only
	if err := tu.RetuneSized(context.Background(), sizes(2048)); err != nil {
		t.Fatal(err)
	}
	if a, b := tu.SummarySized(sizes(2048)).Evaluations, tu.SummarySized(sizes(1024)).Evaluations; a != 0 || b != 2 {
		t.Errorf("after RetuneSized of N 2048: %d and %d evaluations at N 2048 and 1024, want 0 and 2", a, b)
	}
}

// Data whose lengths do not fit the sizes given are the caller's error, naming the
// argument, the length expected and the sizes; sizes naming no constant, or at which the
// spec is not valid, are refused; none of them costs a search anything.
func TestDataOfAnotherSizeThanGivenIsAnError(t *testing.T) {
	s := sizedAxpy(t)
	tu := newTuner(t, s, dynamic.Options{Budget: 4, Seed: 1})
	rng := rand.New(rand.NewPCG(8, 8))
	ctx := context.Background()
	big, _ := sizedData(rng, 4096)
	var de *runner.DataError
	_, err := tu.RunSized(ctx, sizes(1024), big)
	if !errors.As(err, &de) || (de.Arg != "x" && de.Arg != "y") || !strings.Contains(err.Error(), "got 4096 float32 elements; the array has 1024") ||
		!strings.Contains(err.Error(), "N=1024") {
		t.Errorf("4096 elements at N 1024: %v; want a DataError naming the array, its 1024 elements and N=1024", err)
	}
	small, _ := sizedData(rng, 1024)
	_, err = tu.Run(ctx, small)
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "the array has 4096") || !strings.Contains(err.Error(), "RunSized") {
		t.Errorf("1024 elements at the spec's own N: %v; want a DataError saying 4096 and pointing at RunSized", err)
	}
	for _, tc := range []struct {
		sizes dynamic.Sizes
		says  string
	}{
		{dynamic.Sizes{"M": 1024}, "sizes name M, which is no constant of the spec (its constants: N)"},
		// the spec at N 64 is refused by its parser: its reference configuration is no
		// longer valid
		{sizes(64), "with N = 64: " + s.File + ":22: verification.reference.config: violates the restriction"},
		{sizes(-8), "N = -8"},
	} {
		if _, err := tu.RunSized(ctx, tc.sizes, small); err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("sizes %v: %v, want an error saying %q", tc.sizes, err, tc.says)
		}
	}
	if got := tu.Searches(); len(got) != 2 || got[0].Summary.Evaluations != 0 || got[1].Summary.Evaluations != 0 {
		t.Errorf("after bad calls only, the searches are %+v; want N=1024's and the spec's own, with no evaluations", got)
	}
	if _, err := tu.RunSized(ctx, sizes(1024), small); err != nil {
		t.Fatal(err)
	}
}

// sizedRecorder is a tuning.Sink of one size, closed with its search.
type sizedRecorder struct {
	recorder
	n      float64
	closed bool
}

func (r *sizedRecorder) Close() error { r.closed = true; return nil }

// SinkFor gives each size's search its own sink, told every constant at that size; each
// gets that size's evaluations only, and is closed when its search is dropped.
func TestSinkForRecordsEachSizeApart(t *testing.T) {
	s := sizedAxpy(t)
	var sinks []*sizedRecorder
	sinkFor := func(_ context.Context, z dynamic.Sizes, ss *spec.Spec, sp *space.Space) (tuning.Sink, error) {
		if n, _ := ss.Constant("N"); n != z["N"] {
			t.Errorf("SinkFor got N %v and a spec of N %v", z["N"], n)
		}
		r := &sizedRecorder{n: z["N"]}
		sinks = append(sinks, r)
		return r, nil
	}
	tu, err := dynamic.New(context.Background(), s, dynamic.Options{Backend: "opencl", Budget: 3, Seed: 2, SinkFor: sinkFor})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(2, 9))
	for _, n := range []int{1024, 4096, 1024, 4096, 1024, 4096} {
		data, want := sizedData(rng, n)
		res, err := tu.RunSized(context.Background(), sizes(n), data)
		if err != nil {
			t.Fatal(err)
		}
		checkY(t, n, res, want)
	}
	tu.Close()
	if len(sinks) != 2 || sinks[0].n != 1024 || sinks[1].n != 4096 {
		t.Fatalf("%d sinks; want one for N 1024, then one for N 4096", len(sinks))
	}
	for _, r := range sinks {
		if len(r.got) != 3 || !r.closed {
			t.Errorf("N %v's sink got %d evaluations (closed %v), want its budget of 3, closed", r.n, len(r.got), r.closed)
		}
		for _, e := range r.got {
			if bx, tx := e.Config[0].Float(), e.Config[1].Float(); bx*tx > r.n/8 {
				t.Errorf("N %v's sink got %v, a configuration of another size", r.n, e.Config)
			}
		}
	}
	if _, err := dynamic.New(context.Background(), s, dynamic.Options{Backend: "opencl", Sink: &recorder{}, SinkFor: sinkFor}); err == nil {
		t.Error("New took both Sink and SinkFor")
	}
}
