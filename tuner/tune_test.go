package tuner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ktune/ktune/device"
	_ "github.com/ktune/ktune/device/all" // every backend, in the worker processes too
	"github.com/ktune/ktune/efficiency"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/store"
	"github.com/ktune/ktune/worker"
)

// TestMain lets the test binary serve as the worker processes Tune starts: they run the
// program's own executable with WorkerArg, which WorkerMain serves, as a program's main
// would.
func TestMain(m *testing.M) {
	WorkerMain()
	os.Exit(m.Run())
}

const vectorAdd = "../examples/vector_add/vector_add_c.yaml" // 15 configurations, host C

func needBackend(t *testing.T, name string) {
	t.Helper()
	b, ok := device.Lookup(name)
	if !ok {
		t.Skipf("backend %s is not built in", name)
	}
	if _, err := b.Devices(); err != nil {
		t.Skipf("backend %s unavailable: %v", name, err)
	}
}

// storedEvaluations reads run's evaluations back from the database at db.
func storedEvaluations(t *testing.T, db string, run int64) []result.Evaluation {
	t.Helper()
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	evals, err := st.Evaluations(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	return evals
}

func keys(evals []result.Evaluation) []string {
	var ks []string
	for _, e := range evals {
		ks = append(ks, store.ConfigKey(e.Config))
	}
	return ks
}

func TestTuneMeasuresTheBudgetAndStoresEveryEvaluation(t *testing.T) {
	needBackend(t, "c")
	db := filepath.Join(t.TempDir(), "k.db")
	var starts []RunStart
	var seen []int
	rep, err := Tune(context.Background(), Options{SpecPath: vectorAdd, Strategy: "random", Seed: 1, Budget: 3, DB: db,
		Started:  func(r RunStart) { starts = append(starts, r) },
		Progress: func(p Progress) { seen = append(seen, p.Evaluations) }})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Evaluations != 3 || rep.Measured != 3 || rep.Resumed != 0 || rep.Stop != "budget" || rep.BestObjective == nil ||
		rep.DefaultObjective == nil || !rep.Verified || rep.Objective != "GB/s" || !rep.Maximize {
		t.Errorf("report: %d evaluations, %d measured, %d resumed, stopped %q, best %v, default %v, verified %v, objective %s (maximize %v)",
			rep.Evaluations, rep.Measured, rep.Resumed, rep.Stop, rep.BestObjective, rep.DefaultObjective, rep.Verified, rep.Objective, rep.Maximize)
	}
	if len(starts) != 1 || starts[0].ID != rep.Run || starts[0].Resumed != 0 || starts[0].Spent {
		t.Errorf("Started got %+v, want run %d once, fresh", starts, rep.Run)
	}
	// the default configuration is measured before the search: the search reports the rest
	if !slices.Equal(seen, []int{2, 3}) {
		t.Errorf("progress counts %v, want [2 3]", seen)
	}
	evals := storedEvaluations(t, db, rep.Run)
	if len(evals) != 3 || keys(evals)[0] != "1,1" {
		t.Errorf("stored %v, want 3 evaluations, the default configuration (1,1) first", keys(evals))
	}
	for _, e := range evals {
		if e.Device != "c:0" { // one device names itself too: every run's provenance is whole
			t.Errorf("%v measured on %q, want c:0", e.Config, e.Device)
		}
	}
	best := rep.Best.String()
	if *rep.BestObjective != slices.MaxFunc(evals, func(a, b result.Evaluation) int {
		return cmpFloat(a.Objective, b.Objective)
	}).Objective || best == "" {
		t.Errorf("best %v at %q is not the stored best", *rep.BestObjective, best)
	}
}

// An empty WorkerCommand names no program: it is the default, the program's own
// executable, as nil is, not a command whose program is the worker's first flag.
func TestTuneTakesAnEmptyWorkerCommandForTheDefault(t *testing.T) {
	needBackend(t, "c")
	db := filepath.Join(t.TempDir(), "k.db")
	rep, err := Tune(context.Background(), Options{SpecPath: vectorAdd, Strategy: "random", Seed: 1, Budget: 2, DB: db,
		WorkerCommand: []string{}, NoPrecompile: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Evaluations != 2 || rep.Statuses["ok"] != 2 {
		t.Errorf("%d evaluations, statuses %v; want 2 measured ok", rep.Evaluations, rep.Statuses)
	}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// A run cancelled halfway keeps what it measured and is left interrupted; tuned again with
// the same options it is resumed, measuring only what it lacks, and ends with the
// evaluations a run never cancelled makes. While another process holds it, it is not
// resumed.
func TestTuneResumesACancelledRunWithoutLosingOrRepeatingWork(t *testing.T) {
	needBackend(t, "c")
	dir := t.TempDir()
	db := filepath.Join(dir, "k.db")
	o := Options{SpecPath: vectorAdd, Strategy: "random", Seed: 7, Budget: 8, DB: db, NoPrecompile: true}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cut := o
	cut.Progress = func(p Progress) {
		if p.Evaluations >= 4 {
			cancel()
		}
	}
	rep, err := Tune(ctx, cut)
	if !errors.Is(err, context.Canceled) || rep == nil {
		t.Fatalf("cancelled: report %v, error %v; want a report and context.Canceled", rep != nil, err)
	}
	before := storedEvaluations(t, db, rep.Run)
	if len(before) < 4 || len(before) >= 8 || rep.Evaluations != len(before) {
		t.Fatalf("cancelled after %d stored evaluations, reported %d; want 4 to 7 of both", len(before), rep.Evaluations)
	}
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Run(context.Background(), rep.Run)
	st.Close()
	if err != nil || info.Status != store.StatusInterrupted {
		t.Fatalf("the cancelled run is %s (%v), want interrupted", info.Status, err)
	}

	lock, err := LockRun(db, rep.Run)
	if err != nil {
		t.Fatal(err)
	}
	var held *RunHeldError
	if _, err := Tune(context.Background(), o); !errors.As(err, &held) || held.Run != rep.Run || !errors.Is(err, ErrRunHeld) {
		t.Errorf("tuning a run another process holds: %v, want a RunHeldError for run %d", err, rep.Run)
	}
	lock.Release()

	var start RunStart
	o.Started = func(r RunStart) { start = r }
	again, err := Tune(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	after := storedEvaluations(t, db, again.Run)
	if again.Run != rep.Run || start.ID != rep.Run || start.Resumed != len(before) {
		t.Errorf("run %d started as %+v, want run %d resumed from %d evaluations", again.Run, start, rep.Run, len(before))
	}
	if again.Evaluations != 8 || again.Resumed != len(before) || again.Measured != 8-len(before) || len(after) != 8 {
		t.Errorf("resumed: %d evaluations (%d stored), %d resumed, %d measured; want 8, %d, %d",
			again.Evaluations, len(after), again.Resumed, again.Measured, len(before), 8-len(before))
	}
	for i, e := range before {
		if store.ConfigKey(after[i].Config) != store.ConfigKey(e.Config) || !slices.Equal(after[i].Samples, e.Samples) {
			t.Errorf("evaluation %d measured before the cancellation was changed or lost", i)
		}
	}
	got := keys(after)
	if slices.Sort(got); len(slices.Compact(slices.Clone(got))) != len(got) {
		t.Errorf("a configuration was measured twice: %v", got)
	}

	// the same seed never cancelled measures the same configurations
	whole, err := Tune(context.Background(), Options{SpecPath: vectorAdd, Strategy: "random", Seed: 7, Budget: 8,
		DB: filepath.Join(dir, "whole.db"), NoPrecompile: true})
	if err != nil {
		t.Fatal(err)
	}
	want := keys(storedEvaluations(t, filepath.Join(dir, "whole.db"), whole.Run))
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("the resumed run measured %v, one never cancelled %v", got, want)
	}
}

// Options that do not fit are refused with their own error types before the database is
// created.
func TestTuneRefusesOptionsThatDoNotFitBeforeStoringAnything(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.yaml")
	kernel, err := filepath.Abs("../examples/vector_add/vector_add.c")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(vectorAdd)
	if err != nil {
		t.Fatal(err)
	}
	spec := string(src)
	spec = replaceOnce(t, spec, "source: vector_add.c", "source: "+kernel)
	spec = replaceOnce(t, spec, "  - {name: threads, values: [1, 2, 4]}\n",
		"  - {name: threads, values: [1, 2, 4]}\n  - {name: pad, values: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99]}\n  - {name: pad2, values: [0, 1, 2, 3, 4, 5, 6, 7]}\n")
	spec = strings.ReplaceAll(spec, "threads: 1}", "threads: 1, pad: 0, pad2: 0}")
	if err := os.WriteFile(big, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "k.db")
	for _, tc := range []struct {
		name  string
		o     Options
		check func(error) bool
	}{
		{"no spec", Options{Budget: 3},
			func(err error) bool {
				var e *OptionsError
				return errors.As(err, &e) && strings.Contains(err.Error(), "SpecPath")
			}},
		{"no database", Options{SpecPath: vectorAdd, Budget: 3},
			func(err error) bool {
				var e *OptionsError
				return errors.As(err, &e) && strings.Contains(err.Error(), "(DB)")
			}},
		{"an unknown strategy option", Options{SpecPath: vectorAdd, Strategy: "greedymls", StrategyOptions: map[string]any{"foo": 1}, Budget: 3},
			func(err error) bool { var e *OptionsError; return errors.As(err, &e) }},
		{"a device index that is no index", Options{SpecPath: vectorAdd, Device: "c:x", Budget: 3},
			func(err error) bool {
				var e *DeviceError
				return errors.As(err, &e) && e.Device == "c:x" &&
					e.Named("--device") == `--device "c:x": the index must be a whole number, 0 or more (see 'ktune devices')`
			}},
		{"a device its backend does not have", Options{SpecPath: vectorAdd, Device: "c:9", Budget: 3},
			func(err error) bool {
				var e *DeviceError
				return errors.As(err, &e) && e.Device == "c:9" &&
					e.Named("--device") == `--device "c:9": c has 1 device, no index 9 (see 'ktune devices')`
			}},
		{"an unknown backend", Options{SpecPath: vectorAdd, Device: "nope", Budget: 3},
			func(err error) bool { var e *DeviceError; return errors.As(err, &e) }},
		{"no limit on a large space", Options{SpecPath: big},
			func(err error) bool { var e *UnlimitedError; return errors.As(err, &e) && e.SpaceSize == 15*100*8 }},
		{"a negative budget", Options{SpecPath: vectorAdd, Budget: -5},
			func(err error) bool {
				var e *OptionsError
				return errors.As(err, &e) && strings.Contains(err.Error(), "budget -5")
			}},
		{"a negative time limit", Options{SpecPath: vectorAdd, TimeLimit: -time.Second},
			func(err error) bool {
				var e *OptionsError
				return errors.As(err, &e) && strings.Contains(err.Error(), "time limit -1s")
			}},
		{"a negative count of pre-compilers", Options{SpecPath: vectorAdd, Budget: 3, Precompilers: -1},
			func(err error) bool { var e *OptionsError; return errors.As(err, &e) }},
		{"a target that is no number", Options{SpecPath: vectorAdd, Budget: 3, Target: ptr(math.NaN())},
			func(err error) bool {
				var e *OptionsError
				return errors.As(err, &e) && strings.Contains(err.Error(), "target NaN: want a finite objective value")
			}},
		{"a stop within more than the peak", Options{SpecPath: vectorAdd, Budget: 3, WithinPeak: 1.5},
			func(err error) bool {
				var e *OptionsError
				return errors.As(err, &e) && strings.Contains(err.Error(), "stop within 1.5 of the peak: want a fraction above 0 and at most 1")
			}},
		{"a stop within the peak for a spec without essential_ops", Options{SpecPath: vectorAdd, Budget: 3, WithinPeak: 0.75, Peaks: efficiency.Given{GBs: 40}},
			func(err error) bool {
				var e *OptionsError
				return errors.As(err, &e) && strings.Contains(err.Error(), "stop within 75% of the device's peak (--stop-within-peak 0.75): the spec declares no essential_ops")
			}},
	} {
		if tc.name != "no database" {
			tc.o.DB = db
		}
		if _, err := Tune(context.Background(), tc.o); !tc.check(err) {
			t.Errorf("%s: %T %v", tc.name, err, err)
		}
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Errorf("refused options created the database (%v)", err)
	}
}

func replaceOnce(t *testing.T, s, old, new string) string {
	t.Helper()
	if !strings.Contains(s, old) {
		t.Fatalf("%q is not in the spec", old)
	}
	return strings.Replace(s, old, new, 1)
}

// A program that forgot WorkerMain runs as itself in the worker processes Tune starts; its
// Tune there refuses (ErrNoWorkerMain) instead of starting workers of its own without end,
// so the tuning stops with an error. The test binary stands in for such a program: its
// workers run TestHelperForgotWorkerMain, which calls Tune as the program's main would.
func TestAProgramThatForgotWorkerMainStopsInsteadOfMultiplying(t *testing.T) {
	needBackend(t, "c")
	done := make(chan error, 1)
	go func() {
		_, err := Tune(context.Background(), Options{SpecPath: vectorAdd, Budget: 3, DB: filepath.Join(t.TempDir(), "k.db"),
			WorkerCommand: []string{os.Args[0], "-test.run=^TestHelperForgotWorkerMain$", "--"}})
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "did not call tuner.WorkerMain") {
			t.Errorf("Tune = %v, want the workers' ErrNoWorkerMain", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("Tune did not stop")
	}
}

// A program whose main parses its flags before WorkerMain can see WorkerArg (a test binary
// without a TestMain that calls it) refuses the command line its workers are started with;
// Tune says what to do, where it said only that the flag was not defined, and that the
// memory limit might be too low. The test binary, its WorkerMain skipped by an argument
// before WorkerArg, stands in for such a program.
func TestAProgramThatParsesFlagsBeforeWorkerMainIsToldToCallIt(t *testing.T) {
	needBackend(t, "c")
	_, err := Tune(context.Background(), Options{SpecPath: vectorAdd, Budget: 3, DB: filepath.Join(t.TempDir(), "k.db"),
		WorkerCommand: []string{os.Args[0], "-test.run=^$", WorkerArg}})
	if !errors.Is(err, worker.ErrWorkerStart) {
		t.Fatalf("Tune = %v, want ErrWorkerStart", err)
	}
	for _, want := range []string{"flag provided but not defined: -ktune-worker", "call tuner.WorkerMain first thing in main (in a test, in TestMain before m.Run)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Tune = %v, want it to say %q", err, want)
		}
	}
}

// TestHelperForgotWorkerMain is the main of a program without WorkerMain, run as a worker
// process by the test above; it does nothing in a normal test run.
func TestHelperForgotWorkerMain(t *testing.T) {
	if os.Getenv(workerEnv) == "" {
		t.Skip("run as a worker process by TestAProgramThatForgotWorkerMainStopsInsteadOfMultiplying")
	}
	// Not t.TempDir: os.Exit skips its cleanup, and each run would leave a folder behind.
	dir, err := os.MkdirTemp("", "ktune-forgot-worker-main-")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Tune(context.Background(), Options{SpecPath: vectorAdd, Budget: 3, DB: filepath.Join(dir, "k.db")})
	fmt.Fprintln(os.Stderr, err)
	os.RemoveAll(dir)
	os.Exit(1)
}

// A resumed run whose first configurations all failed one way, and whose draws from the
// rest of the space then showed the spec sound, does not draw again when its strategy,
// starting over, meets those failures again: it measures what the run never cancelled
// measures (QA: the resumed run spent 5 of its budget on new draws).
func TestTuneResumedAfterItsFailureDrawsDoesNotDrawAgain(t *testing.T) {
	needBackend(t, "c")
	dir := t.TempDir()
	src := `void k(float *out, int n) {
#if P1 == 1
#error P1 == 1 is not supported
#endif
    for (int i = 0; i < n; i++) out[i] = i;
}
`
	// brute force tries P1 == 1 first: 16 configurations that fail alike
	spec := `kernel: {name: k, source: k.c}
parameters:
  - {name: P1, values: [1, 2, 3, 4]}
  - {name: P2, values: [1, 2, 3, 4]}
  - {name: P3, values: [1, 2, 3, 4]}
problem_size: [64]
arguments:
  - {name: out, type: float32, length: 64, output: true}
  - {name: n, type: int32, value: 64}
iterations: 1
`
	if err := os.WriteFile(filepath.Join(dir, "k.c"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	specPath := filepath.Join(dir, "k.yaml")
	if err := os.WriteFile(specPath, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "k.db")
	o := Options{SpecPath: specPath, Strategy: "bruteforce", Seed: 3, Budget: 24, DB: db, NoPrecompile: true}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cut := o
	cut.Progress = func(p Progress) {
		if p.Evaluations >= sameFailures+sameFailureProbes+2 {
			cancel()
		}
	}
	rep, err := Tune(ctx, cut)
	if !errors.Is(err, context.Canceled) || rep == nil {
		t.Fatalf("cancelled: report %v, error %v; want a report and context.Canceled", rep != nil, err)
	}
	if n := len(storedEvaluations(t, db, rep.Run)); n < sameFailures+sameFailureProbes+2 || n >= o.Budget {
		t.Fatalf("cancelled after %d stored evaluations, want %d to %d", n, sameFailures+sameFailureProbes+2, o.Budget-1)
	}
	again, err := Tune(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	got := keys(storedEvaluations(t, db, again.Run))
	if again.Run != rep.Run || len(got) != o.Budget {
		t.Fatalf("resumed as run %d with %d evaluations, want run %d with %d", again.Run, len(got), rep.Run, o.Budget)
	}

	whole, err := Tune(context.Background(), Options{SpecPath: specPath, Strategy: "bruteforce", Seed: 3, Budget: 24,
		DB: filepath.Join(dir, "whole.db"), NoPrecompile: true})
	if err != nil {
		t.Fatal(err)
	}
	want := keys(storedEvaluations(t, filepath.Join(dir, "whole.db"), whole.Run))
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("the resumed run measured\n%v\none never cancelled\n%v", got, want)
	}
}

func ptr[T any](v T) *T { return &v }
