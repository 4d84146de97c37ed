package sqlite_test

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/store"
	"github.com/ktune/ktune/store/sqlite"
)

func openStore(t testing.TB) (*sqlite.Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ktune.db")
	s, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s, path
}

var (
	i = space.IntValue
	f = space.FloatValue
	b = space.BoolValue
	s = space.StringValue
)

var nan = math.NaN()

var base = time.Date(2024, 5, 17, 9, 30, 0, 123456789, time.UTC)

// everyKindRecording has a parameter of every value kind, including a string with a comma
// (which makes ConfigKey ambiguous) and one evaluation of every status.
func everyKindRecording() *result.Recording {
	return &result.Recording{
		Format:      "kerneltuner",
		Source:      "testdata/gemm_A100_cache.json",
		Device:      "NVIDIA A100-PCIE-40GB",
		Backend:     "cuda",
		Kernel:      "gemm",
		ProblemSize: "4096x4096x4096",
		Params: []space.Param{
			{Name: "block_size_x", Values: []space.Value{i(16), i(32), i(64)}},
			{Name: "ratio", Values: []space.Value{f(1), f(0.5), f(2.5e-5)}},
			{Name: "use_shared", Values: []space.Value{b(true), b(false)}},
			{Name: "layout", Values: []space.Value{s("row"), s("col,major"), s("q\"\x01ü")}},
		},
		Restrictions: []string{"block_size_x * ratio >= 16", "use_shared or layout == 'row'"},
		Objective:    "time",
		Evaluations: []result.Evaluation{
			{Config: []space.Value{i(16), f(1), b(true), s("row")}, Status: result.OK, Objective: 1.5,
				Samples: []float64{1.4, 1.5, 1.6}, Metrics: map[string]float64{"gflops": 91.6, "energy": math.NaN(), "peak": math.Inf(1)},
				CompileMS: 120.5, VerifyMS: 3.25, BenchmarkMS: 4.5, FrameworkMS: 0.75, StrategyMS: 0.0625, Time: base,
				Launch: &result.Launch{Grid: [3]int{256, 128, 1}, Block: [3]int{16, 1, 1}}, RunsPerSample: 40},
			{Config: []space.Value{i(32), f(0.5), b(false), s("col,major")}, Status: result.Restricted,
				Objective: math.NaN(), CompileMS: math.NaN(), VerifyMS: math.NaN(), BenchmarkMS: math.NaN(), FrameworkMS: math.NaN(),
				StrategyMS: math.NaN()},
			{Config: []space.Value{i(64), f(2.5e-5), b(true), s("q\"\x01ü")}, Status: result.CompileError,
				Objective: math.NaN(), CompileMS: 80, Message: "error: too many resources requested for launch\nline 2", Time: base.Add(time.Second)},
			{Config: []space.Value{i(16), f(0.5), b(true), s("row")}, Status: result.RuntimeError,
				Objective: math.NaN(), Message: "CUDA_ERROR_LAUNCH_FAILED", Time: base.Add(2 * time.Second)},
			{Config: []space.Value{i(32), f(1), b(true), s("row")}, Status: result.Timeout,
				Objective: math.NaN(), Samples: []float64{math.Inf(1)}, Time: base.Add(3 * time.Second)},
			{Config: []space.Value{i(64), f(1), b(false), s("row")}, Status: result.WrongAnswer,
				Objective: 0.9, Samples: []float64{0.9}, Metrics: map[string]float64{"max_abs_error": 1e-2}, Time: base.Add(4 * time.Second),
				Warnings: "gemm.cu(3): warning #177-D: variable \"t\" was declared but never referenced\n  int t;\n      ^"},
			{Config: []space.Value{i(64), f(0.5), b(true), s("col,major")}, Status: result.DeviceLimit,
				Objective: math.NaN(), Message: "work-group size 4096 > 1024", Time: base.Add(5 * time.Second),
				Launch: &result.Launch{Grid: [3]int{1 << 31, 65535, 65535}, Block: [3]int{64, 64, 1}}},
			{Config: []space.Value{i(16), f(2.5e-5), b(false), s("row")}, Status: result.OK, Objective: 0.25,
				Samples: []float64{0.25}, Time: base.Add(-72 * time.Hour)},
		},
		Warnings: []string{"line 7: unknown key \"foo\" ignored"},
	}
}

// sameRecording reports how got differs from want. It compares printed forms so that NaN
// equals NaN, which is what a round trip must preserve.
func sameRecording(t *testing.T, got, want *result.Recording) {
	t.Helper()
	g, w := *got, *want
	g.Evaluations, w.Evaluations = nil, nil
	if gs, ws := fmt.Sprintf("%+v", g), fmt.Sprintf("%+v", w); gs != ws {
		t.Errorf("recording differs:\n got %s\nwant %s", gs, ws)
	}
	if len(got.Evaluations) != len(want.Evaluations) {
		t.Fatalf("got %d evaluations, want %d", len(got.Evaluations), len(want.Evaluations))
	}
	for k := range want.Evaluations {
		sameEvaluation(t, k, got.Evaluations[k], want.Evaluations[k])
	}
}

func sameEvaluation(t *testing.T, k int, got, want result.Evaluation) {
	t.Helper()
	if !result.SameLaunch(got.Launch, want.Launch) {
		t.Errorf("evaluation %d: launch %v, want %v", k, got.Launch, want.Launch)
	}
	got.Launch, want.Launch = nil, nil // printed as addresses
	if gs, ws := fmt.Sprintf("%+v", got), fmt.Sprintf("%+v", want); gs != ws {
		t.Errorf("evaluation %d differs:\n got %s\nwant %s", k, gs, ws)
	}
	if !got.Time.Equal(want.Time) {
		t.Errorf("evaluation %d: time %v, want %v", k, got.Time, want.Time)
	}
}

// newRun stores the recording's device and space and starts a tuning run over them.
func newRun(t testing.TB, st store.Store, rec *result.Recording) int64 {
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
		Strategy: "random", Seed: 1<<63 + 42, StrategyOptions: []byte(`{"budget": 100}`)})
	if err != nil {
		t.Fatal(err)
	}
	return id
}
