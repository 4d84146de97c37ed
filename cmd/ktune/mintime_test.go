package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/store/sqlite"
)

// A host C kernel that does almost nothing, tuned with iterations 4 and min_time 100ms,
// runs on past its 4 runs in every configuration (to the cap of runs, most likely): the summary says the best's samples
// are means of batches of runs (the spec's statistic) and how many configurations ran on, the --json summary
// counts the runs, and the exported Kernel Tuner cache keeps 4 times per configuration,
// each a batch's mean, with the note that says so. The store keeps each evaluation's
// runs per sample, and a run resumed from it counts them without the notes.
func TestTuneWithMinTimeSaysTheSamplesAreBatchMeans(t *testing.T) {
	needBackend(t, "c")
	dir := t.TempDir()
	specPath := filepath.Join(dir, "tiny.yaml")
	if err := os.WriteFile(specPath, []byte(`
kernel: {name: tiny, language: c, code: "void tiny(float *x, int n) { for (int i = 0; i < n; i++) x[i] += (float)p; }"}
parameters: [{name: p, values: [1, 2]}]
problem_size: [1]
arguments:
  - {name: x, type: float32, length: 4, output: true}
  - {name: n, type: int32, value: 4}
iterations: 4
min_time: 100ms
`), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "k.db")
	out, errOut, code := ktune(t, "tune", specPath, "--db", db)
	if code != 0 || !strings.Contains(out, "  spread of its 4 samples, each of a batch of ") ||
		!strings.Contains(out, "  2 successful configurations ran on past the spec's 4 iterations for its min_time of 100ms: each sample the statistic of a batch of runs") ||
		!strings.Contains(out, "  timed over ") {
		t.Fatalf("exit %d, want the batches in the summary:\n%s%s", code, out, errOut)
	}
	// each evaluation stored keeps its runs per sample, which its note says too
	ctx := context.Background()
	st, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	es, err := st.Evaluations(ctx, 1)
	st.Close()
	if err != nil || len(es) != 2 {
		t.Fatalf("%d evaluations, %v; want 2", len(es), err)
	}
	for i, e := range es {
		if noted := (&result.Evaluation{Message: e.Message}).SampleRuns(); e.RunsPerSample < 2 || e.RunsPerSample != noted {
			t.Errorf("evaluation %d: %d runs per sample stored, its note %q says %d; want at least 2, the same", i, e.RunsPerSample, e.Message, noted)
		}
	}
	out, errOut, code = ktune(t, "tune", specPath, "--db", db, "--new", "--json")
	var rep tuneReport
	if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil {
		t.Fatalf("exit %d, %v: %s%s", code, err, out, errOut)
	}
	if rep.BestRunsPerSample < 2 || rep.BestRuns != 4*rep.BestRunsPerSample || rep.MinTimeBatched != 2 || rep.ShortTimed != 0 {
		t.Errorf("best runs %d, %d per sample, %d batched, %d short; want 4 samples of at least 2 runs, 2 batched, none short",
			rep.BestRuns, rep.BestRunsPerSample, rep.MinTimeBatched, rep.ShortTimed)
	}
	// A run resumed from the store reads its runs per sample from the field: with the
	// notes gone from its messages, the --json summary still counts them.
	raw, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	_, err = raw.Exec(`UPDATE evaluations SET message = '' WHERE run_id = 1;
		UPDATE runs SET status = 'interrupted', finished = NULL WHERE id = 1`)
	raw.Close()
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, code = ktune(t, "tune", specPath, "--db", db, "--json")
	var resumed tuneReport
	if err := json.Unmarshal([]byte(out), &resumed); code != 0 || err != nil {
		t.Fatalf("exit %d, %v: %s%s", code, err, out, errOut)
	}
	best := slices.IndexFunc(es, func(e result.Evaluation) bool { return e.Objective == *resumed.BestObjective })
	if resumed.Run != 1 || resumed.Resumed != 2 || best < 0 || resumed.BestRunsPerSample != es[best].RunsPerSample ||
		resumed.BestRuns != 4*es[best].RunsPerSample || resumed.MinTimeBatched != 2 {
		t.Errorf("resumed run %d (%d from the store): best runs %d, %d per sample, %d batched; want run 1 (2), the best's stored runs per sample",
			resumed.Run, resumed.Resumed, resumed.BestRuns, resumed.BestRunsPerSample, resumed.MinTimeBatched)
	}
	out, errOut, code = ktune(t, "export", "--run", "2", "--db", db, "--format", "kerneltuner")
	var cache struct {
		Cache map[string]struct {
			Times   []float64 `json:"times"`
			Message string    `json:"ktune_message"`
		} `json:"cache"`
	}
	if err := json.Unmarshal([]byte(out), &cache); code != 0 || err != nil || len(cache.Cache) != 2 {
		t.Fatalf("exit %d, %v, %d configurations: %s%s", code, err, len(cache.Cache), out, errOut)
	}
	for k, c := range cache.Cache {
		if len(c.Times) != 4 || !strings.Contains(c.Message, "for min_time 100ms: each of its 4 samples is the mean of ") {
			t.Errorf("%s: %d times, message %q; want 4, each a batch's mean", k, len(c.Times), c.Message)
		}
	}
}

// Noisy timings are met with what steadies them: min_time is suggested where the spec
// has none, not where it has one already; a best timed over batches of runs has its
// spread called its samples'.
func TestNoisyTimingsSuggestMinTimeWhereItIsOff(t *testing.T) {
	cv, median := 0.3, 0.4
	for _, c := range []struct {
		rep      tuneReport
		want     []string
		wantNone []string
	}{
		{tuneReport{BestRuns: 32, BestTimeCV: &cv, MedianTimeCV: &median},
			[]string{"  spread of its 32 timed runs: 30.0%", "and for a kernel of microseconds min_time (a least time for each configuration's runs: 'ktune help spec') make the ranking steadier"}, nil},
		{tuneReport{BestRuns: 3200, BestRunsPerSample: 100, BestTimeCV: &cv, MedianTimeCV: &median, MinTime: 10 * time.Millisecond},
			[]string{"  spread of its 32 samples, each of a batch of 100 runs: 30.0%", "or min (the steadiest from run to run on a busy machine) make the ranking steadier"}, []string{"min_time ("}},
	} {
		var b strings.Builder
		writeSpread(&b, &c.rep)
		for _, w := range c.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("min_time %v: the summary lacks %q:\n%s", c.rep.MinTime, w, b.String())
			}
		}
		for _, w := range c.wantNone {
			if strings.Contains(b.String(), w) {
				t.Errorf("min_time %v: the summary has %q:\n%s", c.rep.MinTime, w, b.String())
			}
		}
	}
}
