package sqlite_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/ktune/ktune/format"
	_ "github.com/ktune/ktune/format/all" // the recordings' readers
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/store"
	"github.com/ktune/ktune/store/storetest"
)

// convolution is a Kernel Tuner cache of 6,768 configurations, 1,512 of them failed.
const convolution = "../../testdata/benchmark_hub/kerneltuner_convolution/RTX_2080_Ti.json.gz"

// EvaluationsAfter(n) is Evaluations sliced from n, for a recording of real
// measurements and for one of every status and value kind: at the start, inside, at the
// end, past the end.
func TestEvaluationsAfterIsTheFullReadSliced(t *testing.T) {
	st, _ := openStore(t)
	ctx := context.Background()
	real, err := format.Open(convolution)
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range []*result.Recording{real, storetest.Recording()} {
		id, err := st.ImportRecording(ctx, rec)
		if err != nil {
			t.Fatal(err)
		}
		all, err := st.Evaluations(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if len(all) != len(rec.Evaluations) {
			t.Fatalf("run %d: %d evaluations, the recording has %d", id, len(all), len(rec.Evaluations))
		}
		for _, n := range []int{-1, 0, 1, 3, len(all) / 2, len(all) - 1, len(all), len(all) + 5} {
			got, err := st.EvaluationsAfter(ctx, id, n)
			if err != nil {
				t.Fatal(err)
			}
			want := all[min(max(n, 0), len(all)):]
			if len(got) != len(want) {
				t.Fatalf("run %d after %d: %d evaluations, want %d", id, n, len(got), len(want))
			}
			for k := range want {
				storetest.SameEvaluation(t, max(n, 0)+k, got[k], want[k])
			}
		}
	}
	if _, err := st.EvaluationsAfter(ctx, 99, 0); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a run that does not exist: %v, want ErrNotFound", err)
	}
}

// A reader that follows a run as it grows, asking each time for the evaluations after
// those it has, ends with the run's evaluations, each once and in order, while a writer
// appends them one by one and in batches.
func TestEvaluationsAfterFollowsAGrowingRun(t *testing.T) {
	st, _ := openStore(t)
	ctx := context.Background()
	rec, err := format.Open(convolution)
	if err != nil {
		t.Fatal(err)
	}
	id := storetest.NewRun(t, st, rec)
	const n = 600
	source := rec.Evaluations[:n]
	written := make(chan struct{})
	errs := make(chan error, 4)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(written)
		for k := 0; k < n; {
			// one by one, as a tuning run stores them, and now and then a batch of 25
			if k%100 == 50 {
				if err := st.AddEvaluations(ctx, id, source[k:k+25]); err != nil {
					errs <- err
					return
				}
				k += 25
				continue
			}
			if err := st.AddEvaluation(ctx, id, source[k]); err != nil {
				errs <- err
				return
			}
			k++
		}
	}()
	var followed []result.Evaluation
	reads, grew := 0, 0
	for done := false; !done; {
		select {
		case <-written:
			done = true // one more read sees the end
		default:
		}
		next, err := st.EvaluationsAfter(ctx, id, len(followed))
		if err != nil {
			t.Fatal(err)
		}
		reads++
		if len(next) > 0 {
			grew++
		}
		followed = append(followed, next...)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if len(followed) != n {
		t.Fatalf("the reader followed %d evaluations, the writer stored %d", len(followed), n)
	}
	for k := range source {
		storetest.SameEvaluation(t, k, followed[k], source[k])
	}
	if grew < 2 {
		t.Errorf("the run grew in %d of %d reads: the reader did not follow it as it grew", grew, reads)
	}
	t.Logf("%d reads, %d of them with new evaluations", reads, grew)
}
