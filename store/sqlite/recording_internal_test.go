package sqlite

import (
	"context"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
)

// repeatedTuning is the k-th of many recordings of one kernel on one device with the same
// number of evaluations (a tuning repeated with other seeds): first sets the first
// evaluation's objective, NaN for a failure; the others differ by k.
func repeatedTuning(k int, first float64) *result.Recording {
	rec := &result.Recording{Format: "kerneltuner", Source: "run.json", Device: "A100", Kernel: "gemm", Objective: "time",
		Params: []space.Param{{Name: "x", Values: []space.Value{space.IntValue(1), space.IntValue(2), space.IntValue(4)}}}}
	when := time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)
	for n, x := range []int64{1, 2, 4} {
		e := result.Evaluation{Config: []space.Value{space.IntValue(x)}, Status: result.OK, Objective: float64(k) + float64(n)/10,
			CompileMS: 12.5, VerifyMS: math.NaN(), BenchmarkMS: 3, FrameworkMS: 0.25, StrategyMS: math.NaN(), Time: when}
		if n == 0 {
			e.Objective = first
			if math.IsNaN(first) {
				e.Status, e.Message = result.CompileError, "too many resources requested"
			}
		}
		rec.Evaluations = append(rec.Evaluations, e)
	}
	return rec
}

// TestImportOnceReadsBackOnlyLikelyCopies guards the cost of importing many recordings of
// one kernel on one device: a run is read back whole to compare only when its first
// evaluation is the new recording's, so importing n recordings that differ there reads
// none back (it read n²/2), and one whose first evaluation is shared, a failure's NaN
// objective included, is still found or told apart.
func TestImportOnceReadsBackOnlyLikelyCopies(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "many.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const n = 30
	ids := make([]int64, n)
	for k := range n {
		run, imported, err := s.ImportRecordingOnce(ctx, repeatedTuning(k, float64(k)))
		if err != nil || !imported {
			t.Fatalf("recording %d: imported %v, %v", k, imported, err)
		}
		ids[k] = run.ID
	}
	if got := s.q.ReadBack.Load(); got != 0 {
		t.Errorf("importing %d recordings whose first evaluations differ read %d runs back, want 0", n, got)
	}
	for _, c := range []struct {
		name     string
		rec      *result.Recording
		imported bool
		run      int64 // the run found when not imported
		readBack int64 // runs read back whole: twice for one imported, looked for again under the lock
	}{
		{"a copy of recording 17", repeatedTuning(17, 17), false, ids[17], 1},
		{"the same first evaluation, a later one different", repeatedTuning(n+1, 17), true, 0, 2},
		{"a failed first evaluation, new", repeatedTuning(n+2, math.NaN()), true, 0, 0},
		{"a failed first evaluation, others different", repeatedTuning(n+3, math.NaN()), true, 0, 2},
		{"a copy of the last", repeatedTuning(n+3, math.NaN()), false, -1, 2},
	} {
		before := s.q.ReadBack.Load()
		run, imported, err := s.ImportRecordingOnce(ctx, c.rec)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if c.run == -1 {
			c.run = ids[len(ids)-1]
		}
		if imported != c.imported || !imported && run.ID != c.run {
			t.Errorf("%s: imported %v as run %d, want imported %v (held by run %d)", c.name, imported, run.ID, c.imported, c.run)
		}
		if got := s.q.ReadBack.Load() - before; got != c.readBack {
			t.Errorf("%s: read %d runs back, want %d", c.name, got, c.readBack)
		}
		if imported {
			ids = append(ids, run.ID)
		}
	}
}
