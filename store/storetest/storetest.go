// Package storetest is the behaviour that every store.Store backend must show, as tests
// that a backend's test package runs against its own databases: Run(t, newLocation). It
// covers every method of the interface through store.Open, with two stores on one
// database standing for two processes.
package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/efficiency"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/store"
)

// NewLocation returns the location of a new, empty database for t, as store.Open takes
// it; the backend's package must be imported.
type NewLocation func(t testing.TB) string

// Run runs the conformance tests, each on a database of its own.
func Run(t *testing.T, newLocation NewLocation) {
	tests := []struct {
		name string
		test func(t *testing.T, loc string)
	}{
		{"ImportedRecordingReadsBackEqual", importedRecordingReadsBackEqual},
		{"SpacesAndDevicesAreStoredOnce", spacesAndDevicesAreStoredOnce},
		{"RunLifecycleAndResume", runLifecycleAndResume},
		{"RunsFilter", runsFilter},
		{"MissingIDsAreErrNotFound", missingIDsAreErrNotFound},
		{"ANewStoreReadsEmptyAndFollowsAWriter", aNewStoreReadsEmpty},
		{"RejectsBadInput", rejectsBadInput},
		{"AddEvaluationsIsAllOrNothing", addEvaluationsIsAllOrNothing},
		{"LookupFindsTheFirstOfTheSameValues", lookupFindsTheFirstOfTheSameValues},
		{"TallyAgreesWithAScanInBothDirections", tallyAgreesWithAScan},
		{"TallyOfARunWithoutSuccesses", tallyOfARunWithoutSuccesses},
		{"TallyPassesOverAConfigurationFoundWrong", tallyPassesOverAConfigurationFoundWrong},
		{"EvaluationsAfterIsTheFullReadSliced", evaluationsAfterIsTheFullReadSliced},
		{"ConcurrentWritersKeepSeqDenseAndOrdered", concurrentWritersKeepSeqDenseAndOrdered},
		{"ImportRecordingOnceStoresOnceFromTwoStores", importRecordingOnceStoresOnce},
		{"AReopenedStoreReadsWhatWasWritten", aReopenedStoreReadsWhatWasWritten},
		{"MessagesAreStoredAsUTF8WithoutNUL", messagesAreStoredAsUTF8WithoutNUL},
		{"EachEvaluationKeepsTheDeviceThatMeasuredIt", eachEvaluationKeepsItsDevice},
		{"NamesAndValuesAreStoredAsUTF8", namesAndValuesAreStoredAsUTF8},
		{"ValuesThatWouldBecomeOneAreRefused", valuesThatWouldBecomeOneAreRefused},
		{"ExtremeValuesReadBackExactly", extremeValuesReadBackExactly},
		{"TheRunsPeaksReadBackWithTheirSources", runPeaksReadBackWithTheirSources},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.test(t, newLocation(t)) })
	}
}

// open opens the store at loc for the rest of t.
func open(t *testing.T, loc string) store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), loc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := st.Close(); err != nil {
			t.Error(err)
		}
	})
	return st
}

var (
	iv = space.IntValue
	fv = space.FloatValue
	bv = space.BoolValue
	sv = space.StringValue
)

var base = time.Date(2024, 5, 17, 9, 30, 0, 123456789, time.UTC)

// Recording has a parameter of every value kind, including a string with a comma (which
// makes ConfigKey ambiguous) and one evaluation of every status, non-finite values,
// launches, warnings, runs per sample and the devices that measured (a ktune export's,
// read back: two devices of one run, and evaluations that name none).
func Recording() *result.Recording {
	nan := math.NaN()
	return &result.Recording{
		Format:      "kerneltuner",
		Source:      "testdata/gemm_A100_cache.json",
		Device:      "NVIDIA A100-PCIE-40GB",
		Backend:     "cuda",
		Kernel:      "gemm",
		ProblemSize: "4096x4096x4096",
		Params: []space.Param{
			{Name: "block_size_x", Values: []space.Value{iv(16), iv(32), iv(64)}},
			{Name: "ratio", Values: []space.Value{fv(1), fv(0.5), fv(2.5e-5)}},
			{Name: "use_shared", Values: []space.Value{bv(true), bv(false)}},
			{Name: "layout", Values: []space.Value{sv("row"), sv("col,major"), sv("q\"\x01ü")}},
		},
		Restrictions: []string{"block_size_x * ratio >= 16", "use_shared or layout == 'row'"},
		Objective:    "time",
		Evaluations: []result.Evaluation{
			{Config: []space.Value{iv(16), fv(1), bv(true), sv("row")}, Status: result.OK, Objective: 1.5,
				Samples: []float64{1.4, 1.5, 1.6}, Metrics: map[string]float64{"gflops": 91.6, "energy": nan, "peak": math.Inf(1)},
				CompileMS: 120.5, VerifyMS: 3.25, BenchmarkMS: 4.5, FrameworkMS: 0.75, StrategyMS: 0.0625, Time: base,
				Launch: &result.Launch{Grid: [3]int{256, 128, 1}, Block: [3]int{16, 1, 1}}, RunsPerSample: 40, Device: "cuda:1"},
			{Config: []space.Value{iv(32), fv(0.5), bv(false), sv("col,major")}, Status: result.Restricted,
				Objective: nan, CompileMS: nan, VerifyMS: nan, BenchmarkMS: nan, FrameworkMS: nan, StrategyMS: nan},
			{Config: []space.Value{iv(64), fv(2.5e-5), bv(true), sv("q\"\x01ü")}, Status: result.CompileError,
				Objective: nan, CompileMS: 80, VerifyMS: nan, BenchmarkMS: nan, FrameworkMS: nan, StrategyMS: nan,
				Message: "error: too many resources requested for launch\nline 2", Time: base.Add(time.Second), Device: "cuda:0"},
			{Config: []space.Value{iv(16), fv(0.5), bv(true), sv("row")}, Status: result.RuntimeError,
				Objective: nan, CompileMS: nan, VerifyMS: nan, BenchmarkMS: nan, FrameworkMS: nan, StrategyMS: nan,
				Message: "CUDA_ERROR_LAUNCH_FAILED", Time: base.Add(2 * time.Second)},
			{Config: []space.Value{iv(32), fv(1), bv(true), sv("row")}, Status: result.Timeout,
				Objective: nan, Samples: []float64{math.Inf(1)}, Time: base.Add(3 * time.Second)},
			{Config: []space.Value{iv(64), fv(1), bv(false), sv("row")}, Status: result.WrongAnswer,
				Objective: 0.9, Samples: []float64{0.9}, Metrics: map[string]float64{"max_abs_error": 1e-2}, Time: base.Add(4 * time.Second),
				Warnings: "gemm.cu(3): warning #177-D: variable \"t\" was declared but never referenced", Device: "cuda:1"},
			{Config: []space.Value{iv(64), fv(0.5), bv(true), sv("col,major")}, Status: result.DeviceLimit,
				Objective: nan, Message: "work-group size 4096 > 1024", Time: base.Add(5 * time.Second),
				Launch: &result.Launch{Grid: [3]int{1 << 31, 65535, 65535}, Block: [3]int{64, 64, 1}}},
			{Config: []space.Value{iv(16), fv(2.5e-5), bv(false), sv("row")}, Status: result.OK, Objective: 0.25,
				Samples: []float64{0.25}, Time: base.Add(-72 * time.Hour)},
		},
		Warnings: []string{"line 7: unknown key \"foo\" ignored"},
	}
}

// SameRecording reports how got differs from want, comparing printed forms so that NaN
// equals NaN, which is what a round trip must keep.
func SameRecording(t testing.TB, got, want *result.Recording) {
	t.Helper()
	g, w := *got, *want
	g.Evaluations, w.Evaluations = nil, nil
	if gs, ws := fmt.Sprintf("%+v", g), fmt.Sprintf("%+v", w); gs != ws {
		t.Errorf("recording differs:\n got %s\nwant %s", gs, ws)
	}
	sameEvaluations(t, got.Evaluations, want.Evaluations)
}

func sameEvaluations(t testing.TB, got, want []result.Evaluation) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d evaluations, want %d", len(got), len(want))
	}
	for k := range want {
		SameEvaluation(t, k, got[k], want[k])
	}
}

// SameEvaluation reports how evaluation k, got, differs from want, as SameRecording does.
func SameEvaluation(t testing.TB, k int, got, want result.Evaluation) {
	t.Helper()
	if !result.SameLaunch(got.Launch, want.Launch) {
		t.Errorf("evaluation %d: launch %v, want %v", k, got.Launch, want.Launch)
	}
	got.Launch, want.Launch = nil, nil // printed as addresses
	if !got.Time.Equal(want.Time) {
		t.Errorf("evaluation %d: time %v, want %v", k, got.Time, want.Time)
	}
	got.Time, want.Time = time.Time{}, time.Time{}
	if gs, ws := fmt.Sprintf("%+v", got), fmt.Sprintf("%+v", want); gs != ws {
		t.Errorf("evaluation %d differs:\n got %s\nwant %s", k, gs, ws)
	}
}

// NewRun stores rec's device and space and starts a tuning run over them, in rec's
// direction.
func NewRun(t testing.TB, st store.Store, rec *result.Recording) int64 {
	t.Helper()
	ctx := context.Background()
	dev, err := st.PutDevice(ctx, store.Device{Name: rec.Device, Backend: "cuda"})
	if err != nil {
		t.Fatal(err)
	}
	sp, err := st.PutSpace(ctx, store.Space{Kernel: rec.Kernel, Params: rec.Params, Restrictions: rec.Restrictions})
	if err != nil {
		t.Fatal(err)
	}
	id, err := st.CreateRun(ctx, store.RunInfo{SpaceID: sp, DeviceID: dev, Kind: store.KindTuning,
		Strategy: "random", Seed: 1<<63 + 42, StrategyOptions: []byte(`{"budget": 100}`), Maximize: rec.Maximize})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func importedRecordingReadsBackEqual(t *testing.T, loc string) {
	st := open(t, loc)
	ctx := context.Background()
	want := Recording()
	id, err := st.ImportRecording(ctx, want)
	if err != nil {
		t.Fatal(err)
	}
	got, err := st.Recording(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	SameRecording(t, got, want)
	run, err := st.Run(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if run.Kind != store.KindImport || run.Status != store.StatusFinished || run.Finished.IsZero() ||
		run.Evaluations != len(want.Evaluations) || run.Kernel != "gemm" || run.Device != want.Device || run.Backend != "cuda" ||
		run.Source != want.Source || run.Format != want.Format || !slices.Equal(run.Warnings, want.Warnings) {
		t.Errorf("imported run = %+v", run)
	}
	// a tuning run's evaluations read back as they were added, one by one
	runID := NewRun(t, st, want)
	for _, e := range want.Evaluations {
		if err := st.AddEvaluation(ctx, runID, e); err != nil {
			t.Fatal(err)
		}
	}
	if run, err := st.Run(ctx, runID); err != nil || run.Evaluations != len(want.Evaluations) {
		t.Errorf("the tuning run counts %d evaluations (%v), want %d", run.Evaluations, err, len(want.Evaluations))
	}
	es, err := st.Evaluations(ctx, runID)
	if err != nil {
		t.Fatal(err)
	}
	sameEvaluations(t, es, want.Evaluations)
	rec, err := st.Recording(ctx, runID)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Format != "ktune" || rec.Source == "" {
		t.Errorf("a tuning run reads back with format %q and source %q; want ktune and the database", rec.Format, rec.Source)
	}
}

func spacesAndDevicesAreStoredOnce(t *testing.T, loc string) {
	st := open(t, loc)
	ctx := context.Background()
	rec := Recording()
	sp := store.Space{Kernel: rec.Kernel, Params: rec.Params, Restrictions: rec.Restrictions}
	a, err := st.PutSpace(ctx, sp)
	if err != nil {
		t.Fatal(err)
	}
	sp.Restrictions = slices.Clone(sp.Restrictions)
	b, err := st.PutSpace(ctx, sp)
	if err != nil || a != b {
		t.Fatalf("the same space stored twice: ids %d and %d, %v", a, b, err)
	}
	sp.Restrictions = sp.Restrictions[:1]
	if c, err := st.PutSpace(ctx, sp); err != nil || c == a {
		t.Errorf("another space got id %d (the first's is %d), %v", c, a, err)
	}
	got, err := st.Space(ctx, a)
	if err != nil || got.Kernel != "gemm" || len(got.Params) != 4 || !slices.Equal(got.Restrictions, rec.Restrictions) {
		t.Errorf("Space = %+v, %v", got, err)
	}

	d1, err := st.PutDevice(ctx, store.Device{Name: "A100", Backend: "cuda", Properties: []byte(`{"cc": "8.0"}`)})
	if err != nil {
		t.Fatal(err)
	}
	d2, err := st.PutDevice(ctx, store.Device{Name: "A100", Backend: "cuda"}) // no properties: keeps them
	if err != nil || d1 != d2 {
		t.Fatalf("the same device stored twice: ids %d and %d, %v", d1, d2, err)
	}
	if d, err := st.Device(ctx, d1); err != nil || string(d.Properties) != `{"cc": "8.0"}` || d.Name != "A100" || d.Backend != "cuda" {
		t.Errorf("Device = %+v (%s), %v", d, d.Properties, err)
	}
	if _, err := st.PutDevice(ctx, store.Device{Name: "A100", Backend: "cuda", Properties: []byte(`{"cc": "8.6"}`)}); err != nil {
		t.Fatal(err)
	}
	if d, _ := st.Device(ctx, d1); string(d.Properties) != `{"cc": "8.6"}` {
		t.Errorf("new properties did not replace the old: %s", d.Properties)
	}
	if d3, err := st.PutDevice(ctx, store.Device{Name: "A100", Backend: "opencl"}); err != nil || d3 == d1 {
		t.Errorf("the same name on another backend got id %d (the first's is %d), %v", d3, d1, err)
	}
}

func runLifecycleAndResume(t *testing.T, loc string) {
	st := open(t, loc)
	ctx := context.Background()
	id := NewRun(t, st, Recording())
	run, err := st.Run(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != store.StatusRunning || run.Objective != "time" || run.Seed != 1<<63+42 || run.Started.IsZero() ||
		!run.Finished.IsZero() || run.Strategy != "random" || string(run.StrategyOptions) != `{"budget": 100}` {
		t.Errorf("new run = %+v", run)
	}
	if err := st.FinishRun(ctx, id, store.StatusInterrupted); err != nil {
		t.Fatal(err)
	}
	if run, _ = st.Run(ctx, id); run.Status != store.StatusInterrupted || run.Finished.IsZero() {
		t.Errorf("interrupted run = %+v", run)
	}
	// resuming: running again, no finishing time, the resuming command's settings
	if err := st.FinishRun(ctx, id, store.StatusRunning); err != nil {
		t.Fatal(err)
	}
	if err := st.SetRunSettings(ctx, id, []byte(`{"budget": 200}`)); err != nil {
		t.Fatal(err)
	}
	if run, _ = st.Run(ctx, id); run.Status != store.StatusRunning || !run.Finished.IsZero() || string(run.Settings) != `{"budget": 200}` {
		t.Errorf("resumed run = %+v (settings %s)", run, run.Settings)
	}
	if err := st.FinishRun(ctx, id, store.StatusFinished); err != nil {
		t.Fatal(err)
	}
	if run, _ = st.Run(ctx, id); run.Status != store.StatusFinished || run.Finished.Before(run.Started) {
		t.Errorf("finished run = %+v", run)
	}
	if err := st.FinishRun(ctx, id, "done"); err == nil {
		t.Error("FinishRun took an unknown status")
	}
	if err := st.SetRunSettings(ctx, id, []byte(`[1]`)); err == nil {
		t.Error("SetRunSettings took settings that are no JSON object")
	}
}

func runsFilter(t *testing.T, loc string) {
	st := open(t, loc)
	ctx := context.Background()
	rec := Recording()
	tuning := NewRun(t, st, rec)
	imported, err := st.ImportRecording(ctx, rec)
	if err != nil {
		t.Fatal(err)
	}
	rec.Device, rec.Kernel = "AMD Instinct MI250X", "conv"
	other, err := st.ImportRecording(ctx, rec)
	if err != nil {
		t.Fatal(err)
	}
	ids := func(f store.RunFilter) []int64 {
		runs, err := st.Runs(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		for _, r := range runs {
			got = append(got, r.ID)
		}
		return got
	}
	first, _ := st.Run(ctx, tuning)
	for _, c := range []struct {
		f    store.RunFilter
		want []int64
	}{
		{store.RunFilter{}, []int64{tuning, imported, other}},
		{store.RunFilter{Kind: store.KindImport}, []int64{imported, other}},
		{store.RunFilter{Kernel: "conv"}, []int64{other}},
		{store.RunFilter{Device: "NVIDIA A100-PCIE-40GB"}, []int64{tuning, imported}},
		{store.RunFilter{Status: store.StatusRunning}, []int64{tuning}},
		{store.RunFilter{SpaceID: first.SpaceID, Kind: store.KindImport}, []int64{imported}},
		{store.RunFilter{DeviceID: first.DeviceID}, []int64{tuning, imported}}, // one name and backend: one device
		{store.RunFilter{Kernel: "none"}, nil},
	} {
		if got := ids(c.f); !slices.Equal(got, c.want) {
			t.Errorf("Runs(%+v) = %v, want %v", c.f, got, c.want)
		}
	}
}

func missingIDsAreErrNotFound(t *testing.T, loc string) {
	st := open(t, loc)
	ctx := context.Background()
	rec := Recording()
	id := NewRun(t, st, rec)
	const missing = 987654
	e := rec.Evaluations[0]
	errs := map[string]error{}
	_, errs["Device"] = st.Device(ctx, missing)
	_, errs["Space"] = st.Space(ctx, missing)
	_, errs["Run"] = st.Run(ctx, missing)
	errs["FinishRun"] = st.FinishRun(ctx, missing, store.StatusFinished)
	errs["SetRunSettings"] = st.SetRunSettings(ctx, missing, []byte(`{}`))
	errs["AddEvaluation"] = st.AddEvaluation(ctx, missing, e)
	errs["AddEvaluations"] = st.AddEvaluations(ctx, missing, []result.Evaluation{e})
	_, errs["Evaluations"] = st.Evaluations(ctx, missing)
	_, errs["EvaluationsAfter"] = st.EvaluationsAfter(ctx, missing, 0)
	_, errs["Tally"] = st.Tally(ctx, missing)
	_, _, errs["Lookup"] = st.Lookup(ctx, missing, e.Config)
	_, errs["Recording"] = st.Recording(ctx, missing)
	run, _ := st.Run(ctx, id)
	_, errs["CreateRun with a missing space"] = st.CreateRun(ctx, store.RunInfo{SpaceID: missing, DeviceID: run.DeviceID, Kind: store.KindTuning})
	_, errs["CreateRun with a missing device"] = st.CreateRun(ctx, store.RunInfo{SpaceID: run.SpaceID, DeviceID: missing, Kind: store.KindTuning})
	for what, err := range errs {
		if !errors.Is(err, store.ErrNotFound) {
			t.Errorf("%s of a missing id: %v, want store.ErrNotFound", what, err)
		}
	}
}

func rejectsBadInput(t *testing.T, loc string) {
	st := open(t, loc)
	ctx := context.Background()
	rec := Recording()
	id := NewRun(t, st, rec)
	run, _ := st.Run(ctx, id)
	short := rec.Evaluations[0]
	short.Config = short.Config[:2]
	badLaunch := rec.Evaluations[0]
	badLaunch.Launch = &result.Launch{Grid: [3]int{0, 1, 1}, Block: [3]int{1, 1, 1}}
	for what, err := range map[string]error{
		"a configuration of the wrong length": st.AddEvaluation(ctx, id, short),
		"a launch with a size of 0":           st.AddEvaluation(ctx, id, badLaunch),
		"an unknown status":                   st.AddEvaluation(ctx, id, result.Evaluation{Config: rec.Evaluations[0].Config, Status: result.Status(99)}),
		"a space without parameters": func() error {
			_, err := st.PutSpace(ctx, store.Space{Kernel: "k"})
			return err
		}(),
		"a parameter named twice": func() error {
			_, err := st.PutSpace(ctx, store.Space{Kernel: "k", Params: []space.Param{{Name: "x", Values: []space.Value{iv(1)}}, {Name: "x", Values: []space.Value{iv(2)}}}})
			return err
		}(),
		"an unknown run kind": func() error {
			_, err := st.CreateRun(ctx, store.RunInfo{SpaceID: run.SpaceID, DeviceID: run.DeviceID, Kind: "guess"})
			return err
		}(),
		"properties that are no object": func() error {
			_, err := st.PutDevice(ctx, store.Device{Name: "x", Properties: []byte(`"text"`)})
			return err
		}(),
		"an empty recording": func() error {
			_, err := st.ImportRecording(ctx, &result.Recording{Kernel: "k", Params: rec.Params})
			return err
		}(),
	} {
		if err == nil {
			t.Errorf("%s was stored", what)
		}
	}
	if es, _ := st.Evaluations(ctx, id); len(es) != 0 {
		t.Errorf("the run holds %d evaluations after refused ones", len(es))
	}
}

func addEvaluationsIsAllOrNothing(t *testing.T, loc string) {
	st := open(t, loc)
	ctx := context.Background()
	rec := Recording()
	id := NewRun(t, st, rec)
	bad := slices.Clone(rec.Evaluations)
	bad[5].Config = bad[5].Config[:1]
	if err := st.AddEvaluations(ctx, id, bad); err == nil {
		t.Fatal("AddEvaluations stored a configuration of the wrong length")
	}
	if run, _ := st.Run(ctx, id); run.Evaluations != 0 {
		t.Errorf("a refused AddEvaluations left %d evaluations", run.Evaluations)
	}
	if err := st.AddEvaluation(ctx, id, rec.Evaluations[0]); err != nil {
		t.Fatal(err)
	}
	if err := st.AddEvaluations(ctx, id, rec.Evaluations[1:]); err != nil {
		t.Fatal(err)
	}
	if err := st.AddEvaluations(ctx, id, nil); err != nil {
		t.Fatal(err)
	}
	es, err := st.Evaluations(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	sameEvaluations(t, es, rec.Evaluations)
}

func lookupFindsTheFirstOfTheSameValues(t *testing.T, loc string) {
	st := open(t, loc)
	ctx := context.Background()
	rec := Recording()
	id := NewRun(t, st, rec)
	first := rec.Evaluations[0]
	again := first
	again.Objective = 9
	// "col,major" and "row" make the key of ("a", "b,c") and ("a,b", "c") the same
	comma := rec.Evaluations[1]
	for _, e := range []result.Evaluation{comma, first, again} {
		if err := st.AddEvaluation(ctx, id, e); err != nil {
			t.Fatal(err)
		}
	}
	got, ok, err := st.Lookup(ctx, id, first.Config)
	if err != nil || !ok || got.Objective != 1.5 {
		t.Errorf("Lookup = %v, %v, %v; want the first evaluation (objective 1.5)", got.Objective, ok, err)
	}
	got, ok, err = st.Lookup(ctx, id, comma.Config)
	if err != nil || !ok || got.Status != result.Restricted {
		t.Errorf("Lookup of a configuration with a comma = %v, %v, %v", got.Status, ok, err)
	}
	// the float 16 is not the int 16
	other := slices.Clone(first.Config)
	other[0] = fv(16)
	if _, ok, err := st.Lookup(ctx, id, other); ok || err != nil {
		t.Errorf("Lookup of a float where an int was stored = %v, %v; want a miss", ok, err)
	}
	if _, ok, err := st.Lookup(ctx, id, rec.Evaluations[7].Config); ok || err != nil {
		t.Errorf("Lookup of a configuration never added = %v, %v; want a miss", ok, err)
	}
}

func tallyAgreesWithAScan(t *testing.T, loc string) {
	st := open(t, loc)
	ctx := context.Background()
	for _, maximize := range []bool{false, true} {
		rec := Recording()
		rec.Maximize = maximize
		// a tie with the best of each direction, later in the run
		tie := rec.Evaluations[7]
		if maximize {
			tie = rec.Evaluations[0]
		}
		tie.Config = []space.Value{iv(32), fv(2.5e-5), bv(false), sv("row")}
		tie.Time = base.Add(time.Hour)
		rec.Evaluations = append(rec.Evaluations, tie)
		// a wrong answer better than every success in both directions
		rec.Evaluations[5].Objective = map[bool]float64{false: -1, true: 100}[maximize]
		id := NewRun(t, st, rec)
		if err := st.AddEvaluations(ctx, id, rec.Evaluations); err != nil {
			t.Fatal(err)
		}
		got, err := st.Tally(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		wantBest := map[bool]int{false: 7, true: 0}[maximize] // the first of the tie
		if got.Evaluations != len(rec.Evaluations) || got.Succeeded != 3 || !got.HasBest {
			t.Fatalf("maximize %v: Tally = %d evaluations, %d succeeded, best %v; want %d, 3, true",
				maximize, got.Evaluations, got.Succeeded, got.HasBest, len(rec.Evaluations))
		}
		wantWrong, wrong := 0, rec.FoundWrong()
		for i := range rec.Evaluations {
			if e := &rec.Evaluations[i]; !e.Failed() && wrong(e) {
				wantWrong++
			}
		}
		if got.FoundWrong != wantWrong {
			t.Errorf("maximize %v: Tally counts %d successes found wrong, a scan %d", maximize, got.FoundWrong, wantWrong)
		}
		SameEvaluation(t, wantBest, got.Best, rec.Evaluations[wantBest])
	}
}

func tallyOfARunWithoutSuccesses(t *testing.T, loc string) {
	st := open(t, loc)
	ctx := context.Background()
	rec := Recording()
	id := NewRun(t, st, rec)
	if got, err := st.Tally(ctx, id); err != nil || got.Evaluations != 0 || got.HasBest {
		t.Errorf("Tally of an empty run = %+v, %v", got, err)
	}
	if err := st.AddEvaluations(ctx, id, rec.Evaluations[1:5]); err != nil {
		t.Fatal(err)
	}
	if got, err := st.Tally(ctx, id); err != nil || got.Evaluations != 4 || got.Succeeded != 0 || got.HasBest {
		t.Errorf("Tally of a run of failures = %+v, %v", got, err)
	}
	// an OK evaluation without an objective (NaN) is no success
	e := rec.Evaluations[0]
	e.Objective = math.NaN()
	if err := st.AddEvaluation(ctx, id, e); err != nil {
		t.Fatal(err)
	}
	if got, err := st.Tally(ctx, id); err != nil || got.Evaluations != 5 || got.Succeeded != 0 || got.HasBest {
		t.Errorf("Tally with an OK evaluation without objective = %+v, %v", got, err)
	}
}

// tallyPassesOverAConfigurationFoundWrong checks that a configuration with a wrong_answer
// evaluation anywhere in the run (a check after dynamic tuning found it wrong on later
// data, after its successful evaluation) is not the run's best, in both directions: the
// best is the next configuration, here a tie with the one found wrong (which Postgres's
// query reaches through the tied objective), as result.Recording.Best finds it; the
// successes still count as run, and FoundWrong counts them. A run whose only success was
// found wrong has no best.
func tallyPassesOverAConfigurationFoundWrong(t *testing.T, loc string) {
	st := open(t, loc)
	ctx := context.Background()
	for _, maximize := range []bool{false, true} {
		rec := Recording()
		rec.Maximize = maximize
		wrong := map[bool]int{false: 7, true: 0}[maximize] // the best success, before the check
		tie := rec.Evaluations[wrong]
		tie.Config = []space.Value{iv(32), fv(2.5e-5), bv(false), sv("row")}
		tie.Time = base.Add(time.Hour)
		found := result.Evaluation{Config: rec.Evaluations[wrong].Config, Status: result.WrongAnswer, Objective: math.NaN(),
			Message: "found wrong by a check on call 40, after tuning", Time: base.Add(2 * time.Hour)}
		rec.Evaluations = append(rec.Evaluations, tie, found)
		id := NewRun(t, st, rec)
		if err := st.AddEvaluations(ctx, id, rec.Evaluations); err != nil {
			t.Fatal(err)
		}
		got, err := st.Tally(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if got.Evaluations != len(rec.Evaluations) || got.Succeeded != 3 || got.FoundWrong != 1 || !got.HasBest {
			t.Fatalf("maximize %v: Tally = %d evaluations, %d succeeded (%d found wrong), best %v; want %d, 3 (1), true",
				maximize, got.Evaluations, got.Succeeded, got.FoundWrong, got.HasBest, len(rec.Evaluations))
		}
		wantBest := len(rec.Evaluations) - 2 // the tie, not the configuration found wrong
		SameEvaluation(t, wantBest, got.Best, rec.Evaluations[wantBest])
		if scan, ok := rec.Best(); !ok || store.ConfigKey(scan.Config) != store.ConfigKey(got.Best.Config) {
			t.Errorf("maximize %v: Recording.Best = %v (%v), the tally's best %v", maximize, scan.Config, ok, got.Best.Config)
		}
	}
	rec := Recording()
	id := NewRun(t, st, rec)
	found := rec.Evaluations[0]
	found.Status, found.Objective = result.WrongAnswer, math.NaN()
	if err := st.AddEvaluations(ctx, id, []result.Evaluation{rec.Evaluations[0], found}); err != nil {
		t.Fatal(err)
	}
	if got, err := st.Tally(ctx, id); err != nil || got.Evaluations != 2 || got.Succeeded != 1 || got.FoundWrong != 1 || got.HasBest {
		t.Errorf("Tally of a run whose one success was found wrong = %d evaluations, %d succeeded (%d found wrong), best %v (%v); want 2, 1 (1), none (%v)",
			got.Evaluations, got.Succeeded, got.FoundWrong, got.HasBest, got.Best.Config, err)
	}
}

func evaluationsAfterIsTheFullReadSliced(t *testing.T, loc string) {
	st := open(t, loc)
	ctx := context.Background()
	rec := Recording()
	id := NewRun(t, st, rec)
	for k, e := range rec.Evaluations {
		if err := st.AddEvaluation(ctx, id, e); err != nil {
			t.Fatal(err)
		}
		all, err := st.Evaluations(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		for n := -1; n <= k+2; n++ {
			after, err := st.EvaluationsAfter(ctx, id, n)
			if err != nil {
				t.Fatal(err)
			}
			want := all[min(max(n, 0), len(all)):]
			if len(after) != len(want) {
				t.Fatalf("after %d of %d: %d evaluations, want %d", n, len(all), len(after), len(want))
			}
			for j := range want {
				SameEvaluation(t, j, after[j], want[j])
			}
		}
	}
}

// concurrentWritersKeepSeqDenseAndOrdered adds evaluations to one run from several
// goroutines of two stores (two processes) at once: every evaluation is stored once, and
// each writer's own evaluations read back in the order it added them.
func concurrentWritersKeepSeqDenseAndOrdered(t *testing.T, loc string) {
	stores := []store.Store{open(t, loc), open(t, loc)}
	ctx := context.Background()
	rec := Recording()
	id := NewRun(t, stores[0], rec)
	const writers, each = 6, 25
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st := stores[w%2]
			for k := range each {
				e := rec.Evaluations[0]
				e.Objective = float64(w*1000 + k)
				var err error
				if k%5 == 4 { // some in batches, which take a range of numbers at once
					err = st.AddEvaluations(ctx, id, []result.Evaluation{e})
				} else {
					err = st.AddEvaluation(ctx, id, e)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	// a reader following the run meanwhile sees no gap: what it read first stays first
	var followed []result.Evaluation
	done := make(chan struct{})
	go func() {
		defer close(done)
		for len(followed) < writers*each {
			more, err := stores[1].EvaluationsAfter(ctx, id, len(followed))
			if err != nil {
				errs <- err
				return
			}
			followed = append(followed, more...)
		}
	}()
	wg.Wait()
	<-done
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	es, err := stores[0].Evaluations(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != writers*each {
		t.Fatalf("%d evaluations stored, want %d", len(es), writers*each)
	}
	next := make([]int, writers)
	for k, e := range es {
		w, n := int(e.Objective)/1000, int(e.Objective)%1000
		if n != next[w] {
			t.Fatalf("evaluation %d is writer %d's %d, want its %d", k, w, n, next[w])
		}
		next[w]++
		if followed[k].Objective != e.Objective {
			t.Fatalf("a reader following the run read %v as evaluation %d, which is %v", followed[k].Objective, k, e.Objective)
		}
	}
	if run, _ := stores[1].Run(ctx, id); run.Evaluations != writers*each {
		t.Errorf("Run counts %d evaluations, want %d", run.Evaluations, writers*each)
	}
	if tally, _ := stores[1].Tally(ctx, id); tally.Evaluations != writers*each || tally.Best.Objective != 0 {
		t.Errorf("Tally = %d evaluations, best %v", tally.Evaluations, tally.Best.Objective)
	}
}

func importRecordingOnceStoresOnce(t *testing.T, loc string) {
	stores := []store.Store{open(t, loc), open(t, loc)}
	ctx := context.Background()
	const importers = 6
	type got struct {
		run      store.RunInfo
		imported bool
		err      error
	}
	results := make(chan got, importers)
	start := make(chan struct{})
	for k := range importers {
		go func() {
			<-start
			run, imported, err := stores[k%2].ImportRecordingOnce(ctx, Recording())
			results <- got{run, imported, err}
		}()
	}
	close(start)
	imported, ids := 0, map[int64]bool{}
	for range importers {
		g := <-results
		if g.err != nil {
			t.Fatal(g.err)
		}
		if g.imported {
			imported++
		}
		ids[g.run.ID] = true
	}
	if imported != 1 || len(ids) != 1 {
		t.Fatalf("%d of %d imports stored the recording, into %d runs; want 1 and 1", imported, importers, len(ids))
	}
	var held int64
	for id := range ids {
		held = id
	}
	// a copy read from another file is the same recording
	copied := Recording()
	copied.Source = "elsewhere/copy.json"
	if run, imported, err := stores[1].ImportRecordingOnce(ctx, copied); err != nil || imported || run.ID != held || run.Source != Recording().Source {
		t.Errorf("a copy: run %+v, imported %v, %v; want run %d, read from %s, not imported", run, imported, err, held, Recording().Source)
	}
	other := Recording()
	other.Evaluations[3].Message = "another message"
	if _, imported, err := stores[0].ImportRecordingOnce(ctx, other); err != nil || !imported {
		t.Errorf("a recording of another message was not imported: %v, %v", imported, err)
	}
	// one whose first evaluation differs, which the query of held imports tells apart
	changed := Recording()
	changed.Evaluations[0].Objective++
	if run, imported, err := stores[1].ImportRecordingOnce(ctx, changed); err != nil || !imported || run.ID == held || run.Evaluations != len(changed.Evaluations) {
		t.Errorf("a recording of another first objective: run %+v, imported %v, %v; want a new run of %d evaluations", run, imported, err, len(changed.Evaluations))
	}
	if runs, _ := stores[1].Runs(ctx, store.RunFilter{}); len(runs) != 3 {
		t.Errorf("the database holds %d runs, want 3", len(runs))
	}
}

// aNewStoreReadsEmpty reads a store that nothing was written to yet (a new file, a
// database without ktune's tables): no runs, every id missing; a second store on the same
// location, opened before the first write, then reads what the first wrote.
func aNewStoreReadsEmpty(t *testing.T, loc string) {
	ctx := context.Background()
	reader := open(t, loc)
	runs, err := reader.Runs(ctx, store.RunFilter{})
	if err != nil || len(runs) != 0 {
		t.Errorf("Runs of a new store = %v, %v; want none", runs, err)
	}
	rec := Recording()
	e := rec.Evaluations[0]
	errs := map[string]error{}
	_, errs["Device"] = reader.Device(ctx, 1)
	_, errs["Space"] = reader.Space(ctx, 1)
	_, errs["Run"] = reader.Run(ctx, 1)
	_, errs["Evaluations"] = reader.Evaluations(ctx, 1)
	_, errs["EvaluationsAfter"] = reader.EvaluationsAfter(ctx, 1, 0)
	_, errs["Tally"] = reader.Tally(ctx, 1)
	_, _, errs["Lookup"] = reader.Lookup(ctx, 1, e.Config)
	_, errs["Recording"] = reader.Recording(ctx, 1)
	for what, err := range errs {
		if !errors.Is(err, store.ErrNotFound) {
			t.Errorf("%s of a new store: %v, want store.ErrNotFound", what, err)
		}
	}

	writer := open(t, loc)
	if err := writer.FinishRun(ctx, 1, store.StatusFinished); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("FinishRun of a new store: %v, want store.ErrNotFound", err)
	}
	id := NewRun(t, writer, rec)
	if err := writer.AddEvaluations(ctx, id, rec.Evaluations); err != nil {
		t.Fatal(err)
	}
	runs, err = reader.Runs(ctx, store.RunFilter{})
	if err != nil || len(runs) != 1 || runs[0].ID != id || runs[0].Evaluations != len(rec.Evaluations) {
		t.Fatalf("Runs after another store's first write = %+v, %v; want run %d of %d evaluations", runs, err, id, len(rec.Evaluations))
	}
	es, err := reader.Evaluations(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	sameEvaluations(t, es, rec.Evaluations)
}

// messagesAreStoredAsUTF8WithoutNUL stores messages and compiler warnings with NUL bytes
// and bytes that are not UTF-8, by each path that stores evaluations: every backend keeps
// them with U+FFFD in place of each NUL byte and of each run of other bytes, which
// PostgreSQL's text could not hold, so that a run reads back the same from any.
func messagesAreStoredAsUTF8WithoutNUL(t *testing.T, loc string) {
	st := open(t, loc)
	ctx := context.Background()
	const (
		message      = "error: bad\x00byte \xff\xfe here: caf\xe9 \xc3\xa9\x00\x00"
		wantMessage  = "error: bad\uFFFDbyte \uFFFD here: caf\uFFFD \u00e9\uFFFD\uFFFD"
		warnings     = "warning: \xfe\x00"
		wantWarnings = "warning: \uFFFD\uFFFD"
	)
	rec := Recording()
	for i := range rec.Evaluations {
		rec.Evaluations[i].Message, rec.Evaluations[i].Warnings = message, warnings
	}
	imported, err := st.ImportRecording(ctx, rec)
	if err != nil {
		t.Fatal(err)
	}
	tuned := NewRun(t, st, rec)
	if err := st.AddEvaluation(ctx, tuned, rec.Evaluations[0]); err != nil {
		t.Fatal(err)
	}
	if err := st.AddEvaluations(ctx, tuned, rec.Evaluations[1:]); err != nil {
		t.Fatal(err)
	}
	for _, id := range []int64{imported, tuned} {
		es, err := st.Evaluations(ctx, id)
		if err != nil || len(es) != len(rec.Evaluations) {
			t.Fatalf("run %d: %d evaluations, %v", id, len(es), err)
		}
		for i, e := range es {
			if e.Message != wantMessage || e.Warnings != wantWarnings {
				t.Errorf("run %d, evaluation %d: message %q, warnings %q; want %q, %q", id, i, e.Message, e.Warnings, wantMessage, wantWarnings)
			}
		}
		if e, ok, err := st.Lookup(ctx, id, rec.Evaluations[0].Config); err != nil || !ok || e.Message != wantMessage {
			t.Errorf("run %d: Lookup = %q, %v, %v", id, e.Message, ok, err)
		}
	}
	// a message of UTF-8 is kept as it is
	valid := Recording()
	valid.Evaluations[0].Message = "naïve \u00e9\t\n"
	id, err := st.ImportRecording(ctx, valid)
	if err != nil {
		t.Fatal(err)
	}
	if es, err := st.Evaluations(ctx, id); err != nil || len(es) == 0 || es[0].Message != valid.Evaluations[0].Message {
		t.Errorf("a message of valid UTF-8 read back as %v, %v", es, err)
	}
}

func aReopenedStoreReadsWhatWasWritten(t *testing.T, loc string) {
	ctx := context.Background()
	st, err := store.Open(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	rec := Recording()
	id := NewRun(t, st, rec)
	for _, e := range rec.Evaluations[:3] {
		if err := st.AddEvaluation(ctx, id, e); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	again := open(t, loc)
	es, err := again.Evaluations(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	sameEvaluations(t, es, rec.Evaluations[:3])
	// a resumed run goes on numbering after what it holds
	if err := again.AddEvaluation(ctx, id, rec.Evaluations[3]); err != nil {
		t.Fatal(err)
	}
	if after, err := again.EvaluationsAfter(ctx, id, 3); err != nil || len(after) != 1 || after[0].Status != result.RuntimeError {
		t.Errorf("EvaluationsAfter(3) after a resume = %v, %v", after, err)
	}
}

// eachEvaluationKeepsItsDevice stores a run measured on two devices, one evaluation at a
// time and in a batch, and reads every evaluation's device back through each read: a
// user tells from them which device measured what.
func eachEvaluationKeepsItsDevice(t *testing.T, loc string) {
	st := open(t, loc)
	ctx := context.Background()
	rec := Recording()
	devices := []string{"opencl:0", "opencl:1", "", "opencl:1", "opencl:0", "opencl:1", "", "opencl:0"}
	for k := range rec.Evaluations {
		rec.Evaluations[k].Device = devices[k]
	}
	one, batch := NewRun(t, st, rec), NewRun(t, st, rec)
	for _, e := range rec.Evaluations {
		if err := st.AddEvaluation(ctx, one, e); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.AddEvaluations(ctx, batch, rec.Evaluations); err != nil {
		t.Fatal(err)
	}
	for _, id := range []int64{one, batch} {
		es, err := st.Evaluations(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]string, len(es))
		for k, e := range es {
			got[k] = e.Device
		}
		if !slices.Equal(got, devices) {
			t.Errorf("run %d: devices %q, want %q", id, got, devices)
		}
		after, err := st.EvaluationsAfter(ctx, id, 5)
		if err != nil || len(after) != 3 || after[0].Device != "opencl:1" || after[1].Device != "" || after[2].Device != "opencl:0" {
			t.Errorf("run %d: EvaluationsAfter(5) = %d evaluations, %v; want those on opencl:1, none, opencl:0", id, len(after), err)
		}
		if e, ok, err := st.Lookup(ctx, id, rec.Evaluations[3].Config); err != nil || !ok || e.Device != "opencl:1" {
			t.Errorf("run %d: Lookup = %v, %v, device %q; want opencl:1", id, ok, err, e.Device)
		}
		// the best: evaluation 7, objective 0.25, measured on opencl:0
		if tally, err := st.Tally(ctx, id); err != nil || !tally.HasBest || tally.Best.Device != "opencl:0" {
			t.Errorf("run %d: Tally's best on %q (%v), want opencl:0", id, tally.Best.Device, err)
		}
	}
}

// latin1 is a recording as a file in Latin-1 gives it (é is the byte 0xe9), with NUL
// bytes besides, in every name the store keeps and in a parameter's string values.
func latin1() *result.Recording {
	rec := Recording()
	rec.Kernel, rec.Device, rec.Backend, rec.ProblemSize = "gemm_\xe9", "A100\x00", "cu\xffda", "4096\xd7"
	rec.Params[3].Name = "lay\xe9out"
	rec.Params[3].Values[2] = sv("q\xe9\x00")
	for k := range rec.Evaluations {
		if c := rec.Evaluations[k].Config; c[3].String() == "q\"\x01ü" {
			c[3] = sv("q\xe9\x00")
		}
	}
	rec.Evaluations[0].Metrics = map[string]float64{"gfl\xf6ps": 91.6}
	return rec
}

// namesAndValuesAreStoredAsUTF8 imports a recording of a file in Latin-1, with NUL bytes,
// and writes such names through each method that stores them: every backend keeps them as
// UTF-8, U+FFFD in place of each run of bytes that are not UTF-8 and, in a column of its
// own, of each NUL byte (which JSON escapes), and reads them back the same; an import
// says which fields changed among its warnings, is found again by ImportRecordingOnce,
// and a configuration given as it was is found by Lookup.
func namesAndValuesAreStoredAsUTF8(t *testing.T, loc string) {
	st := open(t, loc)
	ctx := context.Background()
	rec := latin1()
	id, err := st.ImportRecording(ctx, rec)
	if err != nil {
		t.Fatalf("import of a recording in Latin-1: %v", err)
	}
	got, err := st.Recording(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	const stored = "q\uFFFD\x00" // inside JSON: the NUL byte kept
	if got.Kernel != "gemm_\uFFFD" || got.Device != "A100\uFFFD" || got.Backend != "cu\uFFFDda" || got.ProblemSize != "4096\uFFFD" ||
		got.Params[3].Name != "lay\uFFFDout" || got.Params[3].Values[2] != sv(stored) {
		t.Errorf("read back kernel %q, device %q, backend %q, problem size %q, parameter %q of values %q",
			got.Kernel, got.Device, got.Backend, got.ProblemSize, got.Params[3].Name, got.Params[3].Values)
	}
	if v := got.Evaluations[2].Config[3]; v != sv(stored) {
		t.Errorf("evaluation 2's value of the parameter read back as %q, want %q", v.String(), stored)
	}
	if m := got.Evaluations[0].Metrics; len(m) != 1 || m["gfl\uFFFDps"] != 91.6 {
		t.Errorf("evaluation 0's metrics read back as %v", m)
	}
	for _, field := range []string{"the kernel's name", "the device's name", "the backend's name", "the problem size",
		"parameter \"lay\uFFFDout\"", "configurations' values of parameter \"lay\uFFFDout\"", "names of metrics"} {
		if !slices.ContainsFunc(got.Warnings, func(w string) bool { return strings.Contains(w, field) && strings.Contains(w, "U+FFFD") }) {
			t.Errorf("no warning of the import names %s: %q", field, got.Warnings)
		}
	}
	if e, ok, err := st.Lookup(ctx, id, rec.Evaluations[2].Config); err != nil || !ok || e.Status != result.CompileError {
		t.Errorf("Lookup of a configuration as the file gave it = %v, %v, %v; want evaluation 2", e.Status, ok, err)
	}
	if runs, err := st.Runs(ctx, store.RunFilter{Kernel: rec.Kernel, Device: rec.Device}); err != nil || len(runs) != 1 || runs[0].ID != id {
		t.Errorf("Runs of the kernel and device as the file named them = %+v, %v; want run %d", runs, err, id)
	}
	if run, imported, err := st.ImportRecordingOnce(ctx, latin1()); err != nil || imported || run.ID != id {
		t.Errorf("ImportRecordingOnce of the same file = run %d, %v, %v; want run %d found", run.ID, imported, err, id)
	}

	// the methods a tuning run writes through
	dev, err := st.PutDevice(ctx, store.Device{Name: "cpu\xff\x00", Backend: "c", Properties: []byte("{\"vendor\": \"Intel\xae\"}")})
	if err != nil {
		t.Fatal(err)
	}
	if d, err := st.Device(ctx, dev); err != nil || d.Name != "cpu\uFFFD\uFFFD" || string(d.Properties) != "{\"vendor\": \"Intel\uFFFD\"}" {
		t.Errorf("device read back as %q of properties %s, %v", d.Name, d.Properties, err)
	}
	params := []space.Param{{Name: "x\xe9", Values: []space.Value{sv("a\xe9"), sv("a\x00b"), sv("")}}}
	sp, err := st.PutSpace(ctx, store.Space{Kernel: "k\xe9", Params: params})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := st.Space(ctx, sp); err != nil || got.Kernel != "k\uFFFD" || got.Params[0].Name != "x\uFFFD" ||
		!slices.Equal(got.Params[0].Values, []space.Value{sv("a\uFFFD"), sv("a\x00b"), sv("")}) {
		t.Errorf("space read back as %q, %+v, %v", got.Kernel, got.Params, err)
	}
	if again, err := st.PutSpace(ctx, store.Space{Kernel: "k\xe9", Params: params}); err != nil || again != sp {
		t.Errorf("the same space again = %d, %v; want %d", again, err, sp)
	}
	run, err := st.CreateRun(ctx, store.RunInfo{SpaceID: sp, DeviceID: dev, Kind: store.KindTuning, Strategy: "rand\xe9",
		StrategyOptions: []byte("{\"note\": \"\xe9\"}"), Objective: "t\x00", Source: "s\xe9", Format: "f\xe9"})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SetRunSettings(ctx, run, []byte("{\"spec\": \"caf\xe9\"}")); err != nil {
		t.Fatal(err)
	}
	info, err := st.Run(ctx, run)
	if err != nil || info.Strategy != "rand\uFFFD" || string(info.StrategyOptions) != "{\"note\": \"\uFFFD\"}" || info.Objective != "t\uFFFD" ||
		info.Source != "s\uFFFD" || info.Format != "f\uFFFD" || string(info.Settings) != "{\"spec\": \"caf\uFFFD\"}" || info.Kernel != "k\uFFFD" {
		t.Errorf("run read back as %+v, %v", info, err)
	}
	for i, v := range params[0].Values {
		e := result.Evaluation{Config: []space.Value{v}, Status: result.OK, Objective: float64(i + 1)}
		if err := st.AddEvaluation(ctx, run, e); err != nil {
			t.Fatalf("add the evaluation of %q: %v", v.String(), err)
		}
	}
	es, err := st.Evaluations(ctx, run)
	if err != nil || len(es) != 3 || es[0].Config[0] != sv("a\uFFFD") || es[1].Config[0] != sv("a\x00b") || es[2].Config[0] != sv("") {
		t.Errorf("evaluations read back as %+v, %v", es, err)
	}
	for i, v := range params[0].Values {
		if e, ok, err := st.Lookup(ctx, run, []space.Value{v}); err != nil || !ok || e.Objective != float64(i+1) {
			t.Errorf("Lookup(%q) = %v, %v, %v; want the evaluation of objective %d", v.String(), e.Objective, ok, err, i+1)
		}
	}
}

// valuesThatWouldBecomeOneAreRefused gives distinct string values of one parameter that
// would be one as the store keeps them (U+FFFD for their bytes that are not UTF-8): every
// backend refuses them, saying which, rather than storing two configurations as one.
func valuesThatWouldBecomeOneAreRefused(t *testing.T, loc string) {
	st := open(t, loc)
	ctx := context.Background()
	inParams := latin1()
	inParams.Params[3].Values[1] = sv("q\xe8\x00") // and "q\xe9\x00"
	inConfigs := latin1()
	inConfigs.Evaluations[1].Config[3] = sv("q\xe8\x00") // no value of the parameter
	names := latin1()
	names.Params[2].Name = "lay\xe8out" // and "lay\xe9out"
	for what, rec := range map[string]*result.Recording{"two values of a parameter": inParams, "a configuration's value and a parameter's": inConfigs} {
		_, err := st.ImportRecording(ctx, rec)
		if err == nil || !strings.Contains(err.Error(), `parameter "lay\xe9out"`) || !strings.Contains(err.Error(), `"q\xe8\x00"`) {
			t.Errorf("import of %s that would become one: %v", what, err)
		}
		if _, _, err := st.ImportRecordingOnce(ctx, rec); err == nil {
			t.Errorf("ImportRecordingOnce of %s that would become one stored it", what)
		}
	}
	if _, err := st.ImportRecording(ctx, names); err == nil || !strings.Contains(err.Error(), `"lay\xe8out"`) {
		t.Errorf("import of two parameters' names that would become one: %v", err)
	}
	_, err := st.PutSpace(ctx, store.Space{Kernel: "k", Params: []space.Param{{Name: "x", Values: []space.Value{sv("\xe9"), sv("\xe8")}}}})
	if err == nil || !strings.Contains(err.Error(), `parameter "x"`) {
		t.Errorf("a space of two values that would become one: %v", err)
	}
	if runs, err := st.Runs(ctx, store.RunFilter{}); err != nil || len(runs) != 0 {
		t.Errorf("refused recordings left runs %+v, %v", runs, err)
	}
}

// extremeValuesReadBackExactly stores what lies at the edges of each column's type, by a
// tuning run and by an import: infinite, subnormal, the largest and negative-zero floats,
// the extreme integers and empty strings of configurations, empty names, the extreme
// seeds, times before 1970, with nanoseconds, and in another zone. Every backend reads
// them back exactly (times in UTC), except that a -0 of a column of its own (an objective,
// a time) reads back as 0 (SQLite keeps no sign of a whole number; samples and
// configurations keep it), and a run's best is its infinite objective where that is the
// best.
func extremeValuesReadBackExactly(t *testing.T, loc string) {
	st := open(t, loc)
	ctx := context.Background()
	zone := time.FixedZone("UTC+5:45", 5*3600+45*60)
	negZero := math.Copysign(0, -1)
	rec := &result.Recording{
		Kernel: "", Device: "", Objective: "time",
		Params: []space.Param{
			{Name: "i", Values: []space.Value{iv(math.MaxInt64), iv(math.MinInt64), iv(0)}},
			{Name: "f", Values: []space.Value{fv(math.MaxFloat64), fv(5e-324), fv(negZero), fv(0.1 + 0.2)}},
			{Name: "s", Values: []space.Value{sv(""), sv(" "), sv("\t\n")}},
		},
		Evaluations: []result.Evaluation{
			{Config: []space.Value{iv(math.MaxInt64), fv(math.MaxFloat64), sv("")}, Status: result.OK, Objective: math.Inf(1),
				Samples: []float64{math.Inf(1), math.MaxFloat64}, CompileMS: 5e-324, VerifyMS: negZero, BenchmarkMS: math.MaxFloat64,
				FrameworkMS: 0.1 + 0.2, StrategyMS: math.SmallestNonzeroFloat64, Time: time.Date(1969, 7, 20, 20, 17, 40, 999999999, zone)},
			{Config: []space.Value{iv(math.MinInt64), fv(5e-324), sv(" ")}, Status: result.OK, Objective: math.Inf(-1),
				Samples: []float64{negZero}, Metrics: map[string]float64{"": math.Inf(-1), "tiny": 5e-324},
				CompileMS: math.NaN(), VerifyMS: math.NaN(), BenchmarkMS: math.NaN(), FrameworkMS: math.NaN(), StrategyMS: math.NaN(),
				Time: time.Date(2262, 4, 11, 23, 47, 16, 854775807, time.UTC)},
			{Config: []space.Value{iv(0), fv(negZero), sv("\t\n")}, Status: result.OK, Objective: negZero,
				CompileMS: math.NaN(), VerifyMS: math.NaN(), BenchmarkMS: math.NaN(), FrameworkMS: math.NaN(), StrategyMS: math.NaN(),
				Time: time.Unix(0, 1).In(zone)},
		},
	}
	imported, err := st.ImportRecording(ctx, rec)
	if err != nil {
		t.Fatal(err)
	}
	tuned := NewRun(t, st, rec)
	if err := st.AddEvaluations(ctx, tuned, rec.Evaluations[:1]); err != nil {
		t.Fatal(err)
	}
	for _, e := range rec.Evaluations[1:] {
		if err := st.AddEvaluation(ctx, tuned, e); err != nil {
			t.Fatal(err)
		}
	}
	got, err := st.Recording(ctx, imported)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprintf("%v", got.Params) != fmt.Sprintf("%v", rec.Params) || got.Kernel != "" || got.Device != "" {
		t.Errorf("space read back as %q on %q of %v, want %v", got.Kernel, got.Device, got.Params, rec.Params)
	}
	if math.Signbit(got.Params[1].Values[2].Float()) != true {
		t.Errorf("the float -0 of a parameter read back as %v", got.Params[1].Values[2])
	}
	want := slices.Clone(rec.Evaluations)
	want[0].VerifyMS, want[2].Objective = 0, 0
	for _, id := range []int64{imported, tuned} {
		es, err := st.Evaluations(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		sameEvaluations(t, es, want)
		for k, e := range es {
			if e.Time.Location() != time.UTC {
				t.Errorf("run %d, evaluation %d: time in %v, want UTC", id, k, e.Time.Location())
			}
		}
		if math.Signbit(es[0].VerifyMS) || !math.Signbit(es[1].Samples[0]) || math.Signbit(es[2].Objective) || !math.Signbit(es[2].Config[1].Float()) {
			t.Errorf("run %d: -0 read back as verify %v, sample %v, objective %v, value %v; want 0, -0, 0, -0", id, es[0].VerifyMS, es[1].Samples[0], es[2].Objective, es[2].Config[1])
		}
		for k, e := range rec.Evaluations {
			if found, ok, err := st.Lookup(ctx, id, e.Config); err != nil || !ok || !sameFloat(found.Objective, e.Objective) {
				t.Errorf("run %d: Lookup of evaluation %d = %v, %v, %v", id, k, found.Objective, ok, err)
			}
		}
		tally, err := st.Tally(ctx, id)
		if err != nil || tally.Evaluations != 3 || tally.Succeeded != 3 || !tally.HasBest || !math.IsInf(tally.Best.Objective, -1) {
			t.Errorf("run %d: Tally = %+v, %v; want 3 successes, the best of objective -Inf", id, tally, err)
		}
	}
	rec.Maximize = true
	maxed, err := st.ImportRecording(ctx, rec)
	if err != nil {
		t.Fatal(err)
	}
	if tally, err := st.Tally(ctx, maxed); err != nil || !tally.HasBest || !math.IsInf(tally.Best.Objective, 1) {
		t.Errorf("maximised: Tally = %+v, %v; want the best of objective +Inf", tally, err)
	}
	first, err := st.Run(ctx, imported)
	if err != nil {
		t.Fatal(err)
	}
	for _, seed := range []uint64{0, math.MaxUint64, 1 << 63} {
		id, err := st.CreateRun(ctx, store.RunInfo{SpaceID: first.SpaceID, DeviceID: first.DeviceID, Kind: store.KindTuning, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		if run, err := st.Run(ctx, id); err != nil || run.Seed != seed || run.Strategy != "" || run.ProblemSize != "" {
			t.Errorf("a run of seed %d read back as seed %d, %v", seed, run.Seed, err)
		}
	}
}

// sameFloat reports whether a and b are the same float64, NaN equal to NaN.
func sameFloat(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }

// runPeaksReadBackWithTheirSources stores the peaks a tune used in a run's settings, as
// 'ktune tune' does (efficiency.SettingsKey), and reads them back from another store of
// the database figure by figure, exactly: values that no shorter decimal gives, a peaks
// file's path and a derivation in other scripts than ASCII; a resumed run's new peaks
// replace them.
func runPeaksReadBackWithTheirSources(t *testing.T, loc string) {
	writer, reader := open(t, loc), open(t, loc)
	ctx := context.Background()
	derived := &device.Peak{}
	derived.Derive("float32", 0.1+0.2, "60 CUs × 64 lanes × 2 (FMA) × 1.8 GHz, «boost»")
	derived.Lack(device.MemoryFigure, "OpenCL reports no memory bandwidth")
	file := efficiency.Source{From: efficiency.FromFile, File: "/data/pëaks \"lab\".yaml", Device: "opencl:1"}
	tuned := efficiency.Resolve(derived, "float32", efficiency.Given{GBs: 19500.000000000004, GBsSource: file})
	settings := func(p efficiency.Peaks) []byte {
		b, err := json.Marshal(map[string]any{"budget": 4, "device_index": 1, "essential_ops": efficiency.Ops{Bytes: 12, Flops: 2, Precision: "float32"},
			efficiency.SettingsKey: p.ToStore()})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	id := NewRun(t, writer, Recording())
	if err := writer.SetRunSettings(ctx, id, settings(tuned)); err != nil {
		t.Fatal(err)
	}
	want := &efficiency.Stored{Precision: "float32",
		GFLOPS: &efficiency.Figure{Value: 0.1 + 0.2, Unit: "GFLOP/s", Source: efficiency.Source{From: efficiency.FromDerived, How: "60 CUs × 64 lanes × 2 (FMA) × 1.8 GHz, «boost»"}},
		GBs:    &efficiency.Figure{Value: 19500.000000000004, Unit: "GB/s", Source: file}}
	check := func(what string, want *efficiency.Stored) {
		t.Helper()
		run, err := reader.Run(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		runs, err := reader.Runs(ctx, store.RunFilter{})
		if err != nil || len(runs) != 1 {
			t.Fatalf("Runs = %d runs, %v", len(runs), err)
		}
		for _, info := range []store.RunInfo{run, runs[0]} {
			got, err := efficiency.StoredOf(info)
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("%s: stored peaks read back as %s (%v) from settings %s; want %s", what, storedText(got), err, info.Settings, storedText(want))
			}
		}
		// a report of the run, given no peaks, is against them and says they were stored
		p := efficiency.Resolve(nil, "float32", efficiency.Given{}.Or(want.Given("float32", id)))
		if p.GBs != want.GBs.Value || p.GBsFrom != fmt.Sprintf("stored with run %d: ", id)+want.GBs.Source.String() {
			t.Errorf("%s: memory peak %v (%s)", what, p.GBs, p.GBsFrom)
		}
	}
	check("tuned", want)

	// resumed with --peak-gbs: the run's settings, peaks and all, are the resuming command's
	flag := efficiency.Source{From: efficiency.FromFlag, Flag: "--peak-gbs"}
	resumed := efficiency.Resolve(derived, "float32", efficiency.Given{GBs: 1.5e-3, GBsSource: flag})
	if err := writer.SetRunSettings(ctx, id, settings(resumed)); err != nil {
		t.Fatal(err)
	}
	want.GBs = &efficiency.Figure{Value: 1.5e-3, Unit: "GB/s", Source: flag}
	check("resumed", want)
}

func storedText(s *efficiency.Stored) string {
	b, _ := json.Marshal(s)
	return string(b)
}
