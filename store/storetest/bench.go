package storetest

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/store"
)

// ImportSize is the number of configurations in the largest recorded space the simulator
// replays, which the import benchmark stores at once.
const ImportSize = 17956

// LargeRecording builds a recorded space of n evaluations over six parameters, with
// samples and metrics as Kernel Tuner caches carry them, one in seven a compile error.
func LargeRecording(n int) *result.Recording {
	rec := &result.Recording{Format: "kerneltuner", Source: "bench.json", Device: "A100", Kernel: "gemm", Objective: "time"}
	for p, name := range []string{"MWG", "NWG", "KWG", "MDIMC", "NDIMC", "VWM"} {
		vals := make([]space.Value, 10)
		for v := range vals {
			vals[v] = iv(int64(v+1) << (p % 3))
		}
		rec.Params = append(rec.Params, space.Param{Name: name, Values: vals})
	}
	for k := range n {
		config := make([]space.Value, len(rec.Params))
		for p, x := 0, k; p < len(config); p, x = p+1, x/10 {
			config[p] = rec.Params[p].Values[x%10]
		}
		e := result.Evaluation{Config: config, Status: result.OK, Objective: float64(k%997) / 10,
			Samples: []float64{1, 1.1, 0.9, 1.05, 0.95, 1, 1.02}, Metrics: map[string]float64{"GFLOP/s": 1234.5},
			CompileMS: 210, VerifyMS: 1.5, BenchmarkMS: 8.2, FrameworkMS: 0.3, Time: base.Add(time.Duration(k) * time.Second)}
		if k%7 == 0 {
			e = result.Evaluation{Config: config, Status: result.CompileError, Objective: math.NaN(), Message: "too many resources requested"}
		}
		rec.Evaluations = append(rec.Evaluations, e)
	}
	return rec
}

// Bench runs the benchmarks that compare backends on the hot paths: AddEvaluation (a
// tuning run storing each measurement, durable on return), ImportRecording of ImportSize
// evaluations, and Tally of a run of ImportSize evaluations (what 'ktune runs' and every
// poll of the dashboard's live view read), each on a database of its own.
func Bench(b *testing.B, newLocation NewLocation) {
	ctx := context.Background()
	openB := func(b *testing.B) store.Store {
		st, err := store.Open(ctx, newLocation(b))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { st.Close() })
		return st
	}
	b.Run("AddEvaluation", func(b *testing.B) {
		st := openB(b)
		rec := LargeRecording(1000)
		id, err := st.ImportRecording(ctx, &result.Recording{Kernel: rec.Kernel, Params: rec.Params, Evaluations: rec.Evaluations[:1]})
		if err != nil {
			b.Fatal(err)
		}
		k := 0
		for b.Loop() {
			if err := st.AddEvaluation(ctx, id, rec.Evaluations[k%len(rec.Evaluations)]); err != nil {
				b.Fatal(err)
			}
			k++
		}
	})
	b.Run(fmt.Sprintf("Import%d", ImportSize), func(b *testing.B) {
		st := openB(b)
		rec := LargeRecording(ImportSize)
		for b.Loop() {
			if _, err := st.ImportRecording(ctx, rec); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*ImportSize), "ns/evaluation")
	})
	for _, maximize := range []bool{false, true} {
		b.Run(fmt.Sprintf("Tally%d/maximize=%v", ImportSize, maximize), func(b *testing.B) {
			st := openB(b)
			rec := LargeRecording(ImportSize)
			rec.Maximize = maximize
			id, err := st.ImportRecording(ctx, rec)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				t, err := st.Tally(ctx, id)
				if err != nil || !t.HasBest {
					b.Fatal(t, err)
				}
			}
		})
	}
	// the same run after checks found its FoundWrong best configurations wrong: the tally
	// passes over each of them, checking it against the run's wrong answers
	for _, maximize := range []bool{false, true} {
		b.Run(fmt.Sprintf("Tally%dFoundWrong%d/maximize=%v", ImportSize, FoundWrong, maximize), func(b *testing.B) {
			st := openB(b)
			rec := LargeRecording(ImportSize)
			rec.Maximize = maximize
			best := slices.Clone(rec.Evaluations)
			best = slices.DeleteFunc(best, func(e result.Evaluation) bool { return e.Failed() })
			slices.SortStableFunc(best, func(x, y result.Evaluation) int {
				if maximize {
					return cmp.Compare(y.Objective, x.Objective)
				}
				return cmp.Compare(x.Objective, y.Objective)
			})
			for _, e := range best[:FoundWrong] {
				rec.Evaluations = append(rec.Evaluations, result.Evaluation{Config: e.Config, Status: result.WrongAnswer,
					Objective: math.NaN(), Message: "found wrong by a check"})
			}
			want, _ := rec.Best()
			id, err := st.ImportRecording(ctx, rec)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				t, err := st.Tally(ctx, id)
				if err != nil || !t.HasBest || t.Best.Objective != want.Objective {
					b.Fatal(t, err)
				}
			}
		})
	}
}

// FoundWrong is the number of a run's best configurations that the tally benchmark's
// checks found wrong.
const FoundWrong = 100
