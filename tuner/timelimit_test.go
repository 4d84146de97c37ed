package tuner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/store"
)

// napSpec writes a host C spec whose kernel sleeps delay seconds per launch (delay is its
// parameter: 0 or 90), with the given reference and default configurations' delays.
func napSpec(t *testing.T, refDelay, defaultDelay int) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"nap.c": "#include <unistd.h>\nvoid nap(float *c, const float *a, int n) { if (delay) sleep(delay); for (int i = 0; i < n; i++) c[i] = a[i]; }\n",
		"nap.yaml": `kernel: {name: nap, source: nap.c}
constants: {N: 64}
parameters:
  - {name: delay, values: [0, 90]}
problem_size: [N]
arguments:
  - {name: c, type: float32, length: N, output: true}
  - {name: a, type: float32, length: N, fill: random}
  - {name: n, type: int32, value: N}
verification:
  reference: {config: {delay: ` + strconv.Itoa(refDelay) + `}}
iterations: 1
timeout: 2m
default_config: {delay: ` + strconv.Itoa(defaultDelay) + `}
`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "nap.yaml")
}

// The time limit counts from Tune's call and covers every step, the reference and the
// default configuration included: whichever step it passes in, the work in progress is
// killed and Tune returns soon after the limit. What was cut short was not measured and
// is stored neither as a timeout nor as a failure. Where steps must finish before the
// one cut short (the worker's start, compilations, a quick reference and default), the
// limit is 10 s, twice the 5 s it was, for a machine loaded by other tests; Tune must
// return within 40 s of the limit, which leaves room for a slow worker's end and is
// still well short of the 90 s the work in progress would take.
func TestTheTimeLimitCoversEveryStepAndCutsTheWorkInProgress(t *testing.T) {
	needBackend(t, "c")
	for _, tc := range []struct {
		name          string
		ref, def      int // the delays of the reference and default configurations
		limit         time.Duration
		wantErr       error // nil: a report without error
		stored        int   // evaluations stored
		wantEvaluated int
	}{
		{"while the reference is computed", 90, 0, time.Second, ErrTimeUp, -1, 0},
		{"while the default configuration runs", 0, 90, 10 * time.Second, ErrNothingSucceeded, 0, 0},
		{"while the search runs a configuration", 0, 0, 10 * time.Second, nil, 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "k.db")
			start := time.Now()
			rep, err := Tune(context.Background(), Options{SpecPath: napSpec(t, tc.ref, tc.def), Device: "c", Strategy: "bruteforce",
				TimeLimit: tc.limit, DB: db})
			took := time.Since(start)
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
				t.Fatalf("error %v, want %v", err, tc.wantErr)
			}
			if took > tc.limit+40*time.Second { // well short of the 90 s the work in progress would take
				t.Errorf("Tune took %v with a time limit of %v", took, tc.limit)
			}
			if tc.stored < 0 {
				if rep != nil {
					t.Errorf("a report of run %d, want none: the run never began", rep.Run)
				}
				st, err := store.Open(context.Background(), db)
				if err != nil {
					t.Fatal(err)
				}
				defer st.Close()
				if runs, err := st.Runs(context.Background(), store.RunFilter{}); err != nil || len(runs) != 0 {
					t.Errorf("stored runs %v (%v), want none", runs, err)
				}
				return
			}
			if rep.Stop != "time limit" || rep.Evaluations != tc.wantEvaluated || rep.WallSeconds < tc.limit.Seconds() || rep.WallSeconds > took.Seconds() {
				t.Errorf("stopped %q after %d evaluations in %.2f s (Tune took %v); want the time limit after %d, the wall time from Tune's call",
					rep.Stop, rep.Evaluations, rep.WallSeconds, took, tc.wantEvaluated)
			}
			evals := storedEvaluations(t, db, rep.Run)
			if len(evals) != tc.stored {
				t.Errorf("stored %d evaluations %v, want %d", len(evals), keys(evals), tc.stored)
			}
			for _, e := range evals {
				if e.Config[0].String() != "0" {
					t.Errorf("the configuration cut short is stored: %v %s %q", keys([]result.Evaluation{e}), e.Status, e.Message)
				}
			}
		})
	}
}
