package sqlite_test

import (
	"context"
	"testing"
	"time"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
)

// importSize is the number of configurations in the largest recorded space the
// simulator replays.
const importSize = 17956

// largeRecording builds a recorded space of n evaluations over six parameters, with
// samples and metrics as Kernel Tuner caches carry them.
func largeRecording(n int) *result.Recording {
	rec := &result.Recording{Format: "kerneltuner", Source: "bench.json", Device: "A100", Kernel: "gemm", Objective: "time"}
	for p, name := range []string{"MWG", "NWG", "KWG", "MDIMC", "NDIMC", "VWM"} {
		vals := make([]space.Value, 10)
		for v := range vals {
			vals[v] = i(int64(v+1) << (p % 3))
		}
		rec.Params = append(rec.Params, space.Param{Name: name, Values: vals})
	}
	for k := 0; k < n; k++ {
		config := make([]space.Value, len(rec.Params))
		for p, x := 0, k; p < len(config); p, x = p+1, x/10 {
			config[p] = rec.Params[p].Values[x%10]
		}
		e := result.Evaluation{Config: config, Status: result.OK, Objective: float64(k%997) / 10,
			Samples: []float64{1, 1.1, 0.9, 1.05, 0.95, 1, 1.02}, Metrics: map[string]float64{"GFLOP/s": 1234.5},
			CompileMS: 210, VerifyMS: 1.5, BenchmarkMS: 8.2, FrameworkMS: 0.3, Time: base.Add(time.Duration(k) * time.Second)}
		if k%7 == 0 {
			e = result.Evaluation{Config: config, Status: result.CompileError, Objective: nan, Message: "too many resources requested"}
		}
		rec.Evaluations = append(rec.Evaluations, e)
	}
	return rec
}

func TestImportLargeRecording(t *testing.T) {
	if testing.Short() {
		t.Skip("imports 17,956 evaluations")
	}
	st, _ := openStore(t)
	ctx := context.Background()
	rec := largeRecording(importSize)
	start := time.Now()
	id, err := st.ImportRecording(ctx, rec)
	if err != nil {
		t.Fatal(err)
	}
	imported := time.Since(start)
	start = time.Now()
	back, err := st.Recording(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	read := time.Since(start)
	sameRecording(t, back, rec)
	t.Logf("%d evaluations: import %v, read back %v", importSize, imported, read)
}

func BenchmarkImport(b *testing.B) {
	st, _ := openStore(b)
	ctx := context.Background()
	rec := largeRecording(importSize)
	b.ResetTimer()
	for b.Loop() {
		if _, err := st.ImportRecording(ctx, rec); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*importSize), "ns/evaluation")
}

func BenchmarkAddEvaluation(b *testing.B) {
	st, _ := openStore(b)
	ctx := context.Background()
	rec := largeRecording(1000)
	id := newRun(b, st, rec)
	k := 0
	for b.Loop() {
		if err := st.AddEvaluation(ctx, id, rec.Evaluations[k%len(rec.Evaluations)]); err != nil {
			b.Fatal(err)
		}
		k++
	}
}

func BenchmarkRecording(b *testing.B) {
	st, _ := openStore(b)
	ctx := context.Background()
	id, err := st.ImportRecording(ctx, largeRecording(importSize))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := st.Recording(ctx, id); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLookup(b *testing.B) {
	st, _ := openStore(b)
	ctx := context.Background()
	rec := largeRecording(importSize)
	id, err := st.ImportRecording(ctx, rec)
	if err != nil {
		b.Fatal(err)
	}
	k := 0
	for b.Loop() {
		if _, ok, err := st.Lookup(ctx, id, rec.Evaluations[k%importSize].Config); err != nil || !ok {
			b.Fatal(ok, err)
		}
		k += 7919
	}
}

// BenchmarkEvaluationsAfter reads the last ten evaluations of a run of 17,956, as a live
// view's poll does, against reading the whole run and slicing it.
func BenchmarkEvaluationsAfter(b *testing.B) {
	st, _ := openStore(b)
	ctx := context.Background()
	id, err := st.ImportRecording(ctx, largeRecording(importSize))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("after", func(b *testing.B) {
		for b.Loop() {
			if es, err := st.EvaluationsAfter(ctx, id, importSize-10); err != nil || len(es) != 10 {
				b.Fatal(len(es), err)
			}
		}
	})
	b.Run("all_sliced", func(b *testing.B) {
		for b.Loop() {
			if es, err := st.Evaluations(ctx, id); err != nil || len(es[importSize-10:]) != 10 {
				b.Fatal(len(es), err)
			}
		}
	})
}
