package tuner

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/spec"
	"github.com/ktune/ktune/store"
)

// A run stores constant sizes as an array of integers, and sizes over the parameters
// as their expressions.
func TestStoredProblemSize(t *testing.T) {
	consts := []spec.Constant{{Name: "M", Value: 128}, {Name: "N", Value: 400000}}
	tests := []struct {
		sizes []string
		want  string
	}{
		{[]string{"M", "M"}, "[128,128]"},
		{[]string{"N"}, "[400000]"},
		{[]string{"2*M", "M/2"}, "[256,64]"},
		{[]string{"M/3"}, "128/3"},
		{[]string{"M*tile", "M"}, "128*tile,128"},
	}
	for _, tt := range tests {
		if got := storedProblemSize(&spec.Spec{Constants: consts, ProblemSize: tt.sizes}); got != tt.want {
			t.Errorf("sizes %q: stored %q, want %q", tt.sizes, got, tt.want)
		}
	}
}

// An unfinished run is resumed only toward its own objective and direction: a run stored
// when its spec's GB/s (written without maximize) was minimised is not continued by a
// search that maximises it, though the spec file, and so its hash, is the same.
func TestARunIsNotResumedInTheOtherDirection(t *testing.T) {
	ctx := context.Background()
	db, st, spaceID, devID := storeWithVectorAdd(t, ctx)
	const hash = "0123456789abcdef"
	minimised := store.RunInfo{SpaceID: spaceID, DeviceID: devID, Kind: store.KindTuning, Strategy: "random", Seed: 1,
		Objective: "GB/s", Maximize: false, Settings: json.RawMessage(`{"spec_hash": "` + hash + `"}`), Status: store.StatusInterrupted}
	oldID, err := st.CreateRun(ctx, minimised)
	if err != nil {
		t.Fatal(err)
	}
	maximised := minimised
	maximised.Maximize, maximised.Status = true, ""
	found, err := findOrCreateRun(ctx, slog.Default(), st, db, maximised, hash, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	found.lock.Release()
	if found.info.ID == oldID {
		t.Errorf("run %d, stored minimising GB/s, was resumed to maximise it", oldID)
	}
	minimised.Status = ""
	found, err = findOrCreateRun(ctx, slog.Default(), st, db, minimised, hash, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	found.lock.Release()
	if found.info.ID != oldID {
		t.Errorf("run %d created; want run %d resumed in its own direction", found.info.ID, oldID)
	}
}

// An unfinished run is resumed by the same strategy options however either side spells
// them: a run stored under the user's spelling by an earlier ktune (neighbourhood
// "hamming", restart 1, perturbation_size "0.50"), or canonically as runs are stored now,
// is the run of those options written otherwise. Other values are another run.
func TestARunIsResumedByItsOptionsSpelledOtherwise(t *testing.T) {
	const hash = "0123456789abcdef"
	tests := []struct {
		name         string
		stored, want string
		resumed      bool
	}{
		{"as stored before", `{"neighbourhood": "hamming", "restart": 1, "perturbation_size": "0.50", "exit_after_no_improve": 1e3}`,
			`{"neighbourhood": "Hamming", "restart": true, "perturbation_size": 0.5, "exit_after_no_improve": 1000}`, true},
		{"canonical, spelled otherwise", `{"neighbourhood": "Hamming", "restart": true}`, `{"restart": "T", "neighbourhood": " HAMMING"}`, true},
		{"another neighbourhood", `{"neighbourhood": "hamming"}`, `{"neighbourhood": "adjacent"}`, false},
		{"another size", `{"exit_after_no_improve": 1e3}`, `{"exit_after_no_improve": 1001}`, false},
		{"one option fewer", `{"neighbourhood": "hamming", "restart": 1}`, `{"neighbourhood": "Hamming"}`, false},
		// options this ktune refuses are compared as stored
		{"a retired option", `{"old_option": 2}`, `{"old_option": 2.0}`, true},
		{"a retired option's other value", `{"old_option": 2}`, `{"old_option": 3}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			db, st, spaceID, devID := storeWithVectorAdd(t, ctx)
			run := store.RunInfo{SpaceID: spaceID, DeviceID: devID, Kind: store.KindTuning, Strategy: "firstils", Seed: 1,
				StrategyOptions: json.RawMessage(tt.stored), Objective: "time",
				Settings: json.RawMessage(`{"spec_hash": "` + hash + `"}`), Status: store.StatusInterrupted}
			oldID, err := st.CreateRun(ctx, run)
			if err != nil {
				t.Fatal(err)
			}
			run.StrategyOptions, run.Status = json.RawMessage(tt.want), ""
			found, err := findOrCreateRun(ctx, slog.Default(), st, db, run, hash, false, nil)
			if err != nil {
				t.Fatal(err)
			}
			found.lock.Release()
			if resumed := found.info.ID == oldID; resumed != tt.resumed {
				t.Errorf("stored %s, now %s: run %d resumed %v, want %v", tt.stored, tt.want, oldID, resumed, tt.resumed)
			}
			if tt.resumed && string(found.info.StrategyOptions) != tt.stored {
				t.Errorf("the resumed run's options are now %s, want them left as stored, %s", found.info.StrategyOptions, tt.stored)
			}
		})
	}
}

// An unfinished run whose stored settings or strategy options are damaged is not resumed,
// and not in silence: a warning names the run and what cannot be read.
func TestARunWhoseSettingsCannotBeReadIsReported(t *testing.T) {
	const hash = "0123456789abcdef"
	tests := []struct {
		name, column, value string
		warn                string // in the warning; "" for none
	}{
		{"readable", "settings", `{"spec_hash": "` + hash + `"}`, ""},
		{"truncated settings", "settings", `{"spec_hash": "0123`, "its stored settings cannot be read: unexpected end of JSON input (at byte 19 of 19)"},
		{"settings not an object", "settings", `["` + hash + `"]`, "its stored settings cannot be read: not a JSON object"},
		{"damaged strategy options", "strategy_options", `{"popsize": 2O}`, "its stored strategy options cannot be read: invalid character 'O'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			db, st, spaceID, devID := storeWithVectorAdd(t, ctx)
			want := store.RunInfo{SpaceID: spaceID, DeviceID: devID, Kind: store.KindTuning, Strategy: "genetic", Seed: 1,
				StrategyOptions: json.RawMessage(`{"popsize": 20}`), Objective: "time",
				Settings: json.RawMessage(`{"spec_hash": "` + hash + `"}`), Status: store.StatusInterrupted}
			oldID, err := st.CreateRun(ctx, want)
			if err != nil {
				t.Fatal(err)
			}
			// damaged outside ktune, which stores only JSON objects
			raw, err := sql.Open("sqlite", db)
			if err != nil {
				t.Fatal(err)
			}
			_, err = raw.Exec(`UPDATE runs SET `+tt.column+` = ? WHERE id = ?`, tt.value, oldID)
			raw.Close()
			if err != nil {
				t.Fatal(err)
			}
			var logged bytes.Buffer
			log := slog.New(slog.NewTextHandler(&logged, nil))
			want.Status = ""
			found, err := findOrCreateRun(ctx, log, st, db, want, hash, false, nil)
			if err != nil {
				t.Fatal(err)
			}
			found.lock.Release()
			if tt.warn == "" {
				if found.info.ID != oldID || logged.Len() > 0 {
					t.Errorf("run %d, log %q; want run %d resumed without a warning", found.info.ID, logged.String(), oldID)
				}
				return
			}
			if found.info.ID == oldID {
				t.Errorf("run %d, whose %s cannot be read, was resumed", oldID, tt.column)
			}
			if w := logged.String(); !strings.Contains(w, "level=WARN") || !strings.Contains(w, fmt.Sprintf("run %d,", oldID)) || !strings.Contains(w, tt.warn) {
				t.Errorf("log %q; want a warning naming run %d and %q", w, oldID, tt.warn)
			}
		})
	}
}

// runBudget is the budget stored in run's settings, which reports state.
func runBudget(t *testing.T, db string, run int64) int {
	t.Helper()
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	info, err := st.Run(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	var settings struct{ Budget int }
	if err := json.Unmarshal(info.Settings, &settings); err != nil {
		t.Fatal(err)
	}
	return settings.Budget
}

// A run resumed with a larger budget is stored with that budget, under which it
// finishes; a resumption whose budget is spent already measures nothing and leaves the
// run's budget as it was.
func TestAResumedRunTakesTheBudgetItWasResumedWith(t *testing.T) {
	needBackend(t, "c")
	db := filepath.Join(t.TempDir(), "k.db")
	o := Options{SpecPath: vectorAdd, Strategy: "random", Seed: 1, Budget: 4, DB: db, NoPrecompile: true}
	rep, err := Tune(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	// as a process killed right after its last evaluation leaves it
	err = st.FinishRun(context.Background(), rep.Run, store.StatusInterrupted)
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	o.Budget = 3
	if _, err := Tune(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if b := runBudget(t, db, rep.Run); b != 4 {
		t.Errorf("after a resumption whose budget was spent, the run's budget is %d, want 4", b)
	}
	o.Budget = 9
	again, err := Tune(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if again.Run != rep.Run || again.Evaluations != 9 {
		t.Fatalf("run %d with %d evaluations, want run %d resumed to 9", again.Run, again.Evaluations, rep.Run)
	}
	if b := runBudget(t, db, rep.Run); b != 9 {
		t.Errorf("run resumed with a budget of 9 and finished with 9 evaluations is stored with a budget of %d", b)
	}
}

// The summary's medians, of framework time as of the objective, take the mean of the two
// middle values of an even count: the framework's took the upper one.
func TestMedianOfAnEvenCountIsTheMeanOfTheMiddleTwo(t *testing.T) {
	for _, tt := range []struct {
		xs   []float64
		want float64
	}{{[]float64{1.546, 0.348}, 0.947}, {[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := median(slices.Clone(tt.xs)); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("median(%v) = %v, want %v", tt.xs, got, tt.want)
		}
	}
}

// storeWithVectorAdd opens a results database in a temporary folder, closed when the test
// ends, holding a vector_add space of one parameter and a host device: what a run row
// needs.
func storeWithVectorAdd(t *testing.T, ctx context.Context) (db string, st store.Store, spaceID, devID int64) {
	t.Helper()
	db = filepath.Join(t.TempDir(), "k.db")
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if spaceID, err = st.PutSpace(ctx, store.Space{Kernel: "vector_add", Params: []space.Param{{Name: "threads", Values: []space.Value{space.IntValue(1), space.IntValue(2)}}}}); err != nil {
		t.Fatal(err)
	}
	if devID, err = st.PutDevice(ctx, store.Device{Name: "host", Backend: "c"}); err != nil {
		t.Fatal(err)
	}
	return db, st, spaceID, devID
}

// A run that its process finishes, and lets go, between another process's listing of the
// runs and its locking of that run is left finished: neither resumed (whose spent budget
// then marked it interrupted) nor marked interrupted as a run left running by a killed
// process. The test finishes and releases the run from the listing's hook.
func TestARunFinishedWhileListedStaysFinished(t *testing.T) {
	const hash = "0123456789abcdef"
	for _, tt := range []struct {
		name     string
		strategy string // of the run that finishes; the run looked for is random's
	}{
		{"the run that would be resumed", "random"},
		{"another run left running", "firstils"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			db, st, spaceID, devID := storeWithVectorAdd(t, ctx)
			want := store.RunInfo{SpaceID: spaceID, DeviceID: devID, Kind: store.KindTuning, Strategy: "random", Seed: 1,
				Objective: "time", Settings: json.RawMessage(`{"spec_hash": "` + hash + `"}`)}
			other := want
			other.Strategy = tt.strategy
			id, err := st.CreateRun(ctx, other)
			if err != nil {
				t.Fatal(err)
			}
			held, err := LockRun(db, id) // the process tuning it
			if err != nil {
				t.Fatal(err)
			}
			defer held.Release()
			testHookListed = func() {
				if err := st.FinishRun(ctx, id, store.StatusFinished); err != nil {
					t.Error(err)
				}
				held.Release()
			}
			defer func() { testHookListed = nil }()
			found, err := findOrCreateRun(ctx, slog.Default(), st, db, want, hash, false, nil)
			if err != nil {
				t.Fatal(err)
			}
			found.lock.Release()
			if found.info.ID == id {
				t.Errorf("run %d, finished since it was listed, was resumed", id)
			}
			if r, err := st.Run(ctx, id); err != nil || r.Status != store.StatusFinished {
				t.Errorf("run %d, finished since it was listed: status %q (%v), want it left finished", id, r.Status, err)
			}
		})
	}
}

// A check that refuses the run findOrCreateRun would resume, or the one it would create,
// leaves the store as it was: the interrupted run is not set running, no run is created,
// and a run left running by a process that died is not marked interrupted either. The
// check is shown the run resumable (resumableRun finds the same one) or nil.
func TestARefusingCheckChangesNoRun(t *testing.T) {
	ctx := context.Background()
	db, st, spaceID, devID := storeWithVectorAdd(t, ctx)
	const hash = "0123456789abcdef"
	want := store.RunInfo{SpaceID: spaceID, DeviceID: devID, Kind: store.KindTuning, Strategy: "random", Seed: 1,
		Objective: "time", Settings: json.RawMessage(`{"spec_hash": "` + hash + `"}`)}
	dead := want
	dead.Seed = 2 // another run's, left running by a process that died
	deadID, err := st.CreateRun(ctx, dead)
	if err != nil {
		t.Fatal(err)
	}
	interrupted := want
	interrupted.Status = store.StatusInterrupted
	resumeID, err := st.CreateRun(ctx, interrupted)
	if err != nil {
		t.Fatal(err)
	}
	refuse := errors.New("refused")
	for _, fresh := range []bool{false, true} {
		peeked, err := resumableRun(ctx, st, want, hash, fresh)
		if err != nil {
			t.Fatal(err)
		}
		var shown *store.RunInfo
		_, err = findOrCreateRun(ctx, slog.Default(), st, db, want, hash, fresh, func(r *store.RunInfo) error {
			shown = r
			return refuse
		})
		if !errors.Is(err, refuse) {
			t.Fatalf("fresh %v: error %v, want the check's", fresh, err)
		}
		switch {
		case !fresh && (shown == nil || shown.ID != resumeID || peeked == nil || peeked.ID != resumeID):
			t.Errorf("the check was shown %+v, resumableRun found %+v; want run %d", shown, peeked, resumeID)
		case fresh && (shown != nil || peeked != nil):
			t.Errorf("fresh: the check was shown %+v, resumableRun found %+v; want none", shown, peeked)
		}
		runs, err := st.Runs(ctx, store.RunFilter{})
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) != 2 || runs[0].ID != deadID || runs[0].Status != store.StatusRunning || runs[1].ID != resumeID || runs[1].Status != store.StatusInterrupted {
			t.Errorf("fresh %v: runs after the refusal %+v; want run %d running, run %d interrupted, no other", fresh, runs, deadID, resumeID)
		}
	}
	// accepted, the same call resumes the run and marks the dead one interrupted
	found, err := findOrCreateRun(ctx, slog.Default(), st, db, want, hash, false, func(*store.RunInfo) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	found.lock.Release()
	if r, err := st.Run(ctx, deadID); found.info.ID != resumeID || err != nil || r.Status != store.StatusInterrupted {
		t.Errorf("accepted: run %d resumed, the dead run %s (%v); want run %d, and the dead one interrupted", found.info.ID, r.Status, err, resumeID)
	}
}
