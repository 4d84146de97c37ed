package dynamic_test

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ktune/ktune/dynamic"
	"github.com/ktune/ktune/report"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/store"
	_ "github.com/ktune/ktune/store/sqlite" // the SQLite results store
)

// storeSink records a tuner's evaluations in a run of the results store, as an
// application that keeps its dynamic tuning does (tuning's ExampleSink).
type storeSink struct {
	st  store.Store
	run int64
}

func (s storeSink) Record(ctx context.Context, e result.Evaluation) error {
	return s.st.AddEvaluation(ctx, s.run, e)
}

// A configuration that a check after tuning finds wrong is recorded in the run that
// holds the tuning's evaluations, after them: an evaluation of 128 2 with status
// wrong_answer, whose message names the check, the call and the output, which the run's
// tally counts as one more evaluation that did not succeed and `ktune report` lists
// among its failures.
func TestACheckRecordsWhatItFindsInTheStore(t *testing.T) {
	s := countAxpy(t)
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "ktune.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sp, err := s.Space()
	if err != nil {
		t.Fatal(err)
	}
	spaceID, err := st.PutSpace(ctx, store.Space{Kernel: s.Kernel.Name, Params: sp.Params()})
	if err != nil {
		t.Fatal(err)
	}
	deviceID, err := st.PutDevice(ctx, store.Device{Name: "PoCL", Backend: "opencl"})
	if err != nil {
		t.Fatal(err)
	}
	run, err := st.CreateRun(ctx, store.RunInfo{SpaceID: spaceID, DeviceID: deviceID, Kind: store.KindTuning, Strategy: "auto", Seed: 1, Objective: "rank"})
	if err != nil {
		t.Fatal(err)
	}
	tu := newTuner(t, s, dynamic.Options{Budget: 6, Seed: 1, CheckOnChange: []string{"n"}, Sink: storeSink{st, run}})
	rng := rand.New(rand.NewPCG(11, 1))
	tuneCount(t, tu, rng)
	data, want := countData(rng, 3968)
	res, err := tu.Run(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	checkY(t, 6, res, want)
	if len(res.CheckErrors) != 1 {
		t.Fatalf("the call at 3968 found %d configurations wrong, want 1 (128 2)", len(res.CheckErrors))
	}
	if err := st.FinishRun(ctx, run, store.StatusFinished); err != nil {
		t.Fatal(err)
	}

	es, err := st.Evaluations(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 7 {
		t.Fatalf("the run holds %d evaluations, want 7: 6 of tuning and the check's finding", len(es))
	}
	last := es[6]
	if fmtValues(last.Config) != "128 2" || last.Status != result.WrongAnswer || !strings.HasPrefix(last.Message, dynamic.CheckedMessage+" on call 6, after tuning (against the known-good configuration block_size_x=32, tile_size_x=1): output y: ") {
		t.Errorf("the last evaluation is %v %s %q; want 128 2, wrong_answer, a message naming the check, call 6, the judge and output y", last.Config, last.Status, last.Message)
	}
	tl, err := st.Tally(ctx, run)
	if err != nil || tl.Evaluations != 7 || tl.Succeeded != 6 {
		t.Errorf("the run's tally: %+v, %v; want 7 evaluations, 6 succeeded", tl, err)
	}
	// 128 2 was the tuning's best; found wrong, it is the best no more: the tally's best
	// is the best of the other five, as the recording of the run finds it
	rec, err := st.Recording(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	tuned := *rec
	tuned.Evaluations = es[:6]
	if b, ok := tuned.Best(); !ok || fmtValues(b.Config) != "128 2" {
		t.Fatalf("the tuning's best was %v (%v), want 128 2, the configuration the check finds wrong", b.Config, ok)
	}
	b, ok := rec.Best()
	if !ok || !tl.HasBest || fmtValues(tl.Best.Config) == "128 2" || fmtValues(tl.Best.Config) != fmtValues(b.Config) || tl.Best.Objective != b.Objective {
		t.Errorf("the run's best is %v (%v) in the tally, %v (%v) in its recording; want one other than 128 2, the same in both",
			tl.Best.Config, tl.HasBest, b.Config, ok)
	}

	page, err := report.RunPage(ctx, st, run, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]string
	for _, sec := range page.Sections {
		if sec.Title == "Failures" {
			for _, tb := range sec.Tables {
				rows = append(rows, tb.Rows...)
			}
		}
	}
	if !slices.ContainsFunc(rows, func(r []string) bool {
		return r[0] == result.WrongAnswer.String() && strings.HasPrefix(r[len(r)-1], dynamic.CheckedMessage)
	}) {
		t.Errorf("the report's failures %q; want a wrong_answer row with the check's message", rows)
	}
}
