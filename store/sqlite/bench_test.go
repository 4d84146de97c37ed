package sqlite_test

import (
	"context"
	"testing"
	"time"

	"github.com/ktune/ktune/store/storetest"
)

func TestImportLargeRecording(t *testing.T) {
	if testing.Short() {
		t.Skip("imports 17,956 evaluations")
	}
	st, _ := openStore(t)
	ctx := context.Background()
	rec := storetest.LargeRecording(storetest.ImportSize)
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
	storetest.SameRecording(t, back, rec)
	t.Logf("%d evaluations: import %v, read back %v", storetest.ImportSize, imported, read)
}

func BenchmarkImport(b *testing.B) {
	st, _ := openStore(b)
	ctx := context.Background()
	rec := storetest.LargeRecording(storetest.ImportSize)
	b.ResetTimer()
	for b.Loop() {
		if _, err := st.ImportRecording(ctx, rec); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*storetest.ImportSize), "ns/evaluation")
}

func BenchmarkAddEvaluation(b *testing.B) {
	st, _ := openStore(b)
	ctx := context.Background()
	rec := storetest.LargeRecording(1000)
	id := storetest.NewRun(b, st, rec)
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
	id, err := st.ImportRecording(ctx, storetest.LargeRecording(storetest.ImportSize))
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
	rec := storetest.LargeRecording(storetest.ImportSize)
	id, err := st.ImportRecording(ctx, rec)
	if err != nil {
		b.Fatal(err)
	}
	k := 0
	for b.Loop() {
		if _, ok, err := st.Lookup(ctx, id, rec.Evaluations[k%storetest.ImportSize].Config); err != nil || !ok {
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
	id, err := st.ImportRecording(ctx, storetest.LargeRecording(storetest.ImportSize))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("after", func(b *testing.B) {
		for b.Loop() {
			if es, err := st.EvaluationsAfter(ctx, id, storetest.ImportSize-10); err != nil || len(es) != 10 {
				b.Fatal(len(es), err)
			}
		}
	})
	b.Run("all_sliced", func(b *testing.B) {
		for b.Loop() {
			if es, err := st.Evaluations(ctx, id); err != nil || len(es[storetest.ImportSize-10:]) != 10 {
				b.Fatal(len(es), err)
			}
		}
	})
}
