package tuner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"path/filepath"
	"strings"

	"github.com/ktune/ktune/expr"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/spec"
	"github.com/ktune/ktune/store"
	"github.com/ktune/ktune/strategy"
)

// A RunHeldError is Tune's error when the run it would resume is being tuned by another
// process (it holds the run's lock: LockRun). It unwraps to ErrRunHeld.
type RunHeldError struct {
	Run int64  // the held run
	DB  string // its database, as Options.DB gave it
}

// Error names the run and its database.
func (e *RunHeldError) Error() string {
	return fmt.Sprintf("run %d of this kernel, device and settings in %s is being tuned by another ktune process: wait for it to end (it resumes nothing then), or tune a fresh run beside it (Options.Fresh)", e.Run, e.DB)
}

// Unwrap returns ErrRunHeld.
func (e *RunHeldError) Unwrap() error { return ErrRunHeld }

// lockIn takes run of the database at db for this process; with no db (a Store given
// without its name) runs are not locked.
func lockIn(db string, run int64) (*RunLock, error) {
	if db == "" {
		return nil, nil
	}
	return LockRun(db, run)
}

// foundRun is the run that Tune tunes, resumed or created.
type foundRun struct {
	info   store.RunInfo
	stored []result.Evaluation // its evaluations, in the order they were measured
	lock   *RunLock
	// stale is set when the run was created beside an unfinished run of the same spec
	// file and settings whose inputs changed since
	stale *StaleRun
}

// StaleRun is an unfinished run that Tune did not resume although it has the same spec
// file, device, strategy, options, seed and objective: what decides its measurements
// changed since (see runInputs), and a run must not mix measurements of different inputs.
type StaleRun struct {
	ID int64
	// Changed names the inputs that changed: "spec FILE", "kernel source", "reference
	// kernel source", "header FILE", "data FILE", "device software". It is empty for a run
	// stored by a ktune that did not record its inputs.
	Changed []string
}

// findOrCreateRun resumes the newest unfinished run with the same space, device, strategy,
// options (however spelled: sameOptions), seed, spec hash and objective with its
// direction, or creates a new one. The direction is compared beside the hash because one
// spec file can change direction without changing: a metric without maximize was
// minimised before its name decided.
//
// A stored run whose settings or strategy options cannot be read (damaged JSON) is not
// resumed, since what it measured cannot be told; when it would be a candidate (unfinished,
// of the same strategy, seed and objective) log warns, naming it and what is wrong.
//
// check, when not nil, is shown the run to be resumed (nil: a run is to be created) once
// it is held, before anything in the store is changed: its error is findOrCreateRun's,
// with no run created, resumed or marked interrupted, so that a command refused for what
// the run it would resume lacks (the peaks of --stop-within-peak) leaves the store as it
// was.
//
// Processes find or create runs of one database one at a time (lockCreation): two that
// looked at once would each find nothing to resume and create a run, and the same command
// started twice would measure every configuration twice, or one would mark the other's
// new run interrupted before it was locked.
func findOrCreateRun(ctx context.Context, log *slog.Logger, st store.Store, db string, want store.RunInfo, hash string, fresh bool,
	check func(resume *store.RunInfo) error) (foundRun, error) {
	creating, err := lockCreation(ctx, log, st, db)
	if err != nil {
		return foundRun{}, err
	}
	defer creating.Release()
	runs, err := st.Runs(ctx, store.RunFilter{SpaceID: want.SpaceID, DeviceID: want.DeviceID, Kind: store.KindTuning})
	if err != nil {
		return foundRun{}, err
	}
	if testHookListed != nil {
		testHookListed()
	}
	c := chooseRun(log, db, runs, want, hash, fresh)
	resume := c.resume
	var lock *RunLock
	if resume != nil {
		lock, err = lockRunIn(ctx, st, db, resume.ID)
		if errors.Is(err, ErrRunHeld) {
			return foundRun{}, &RunHeldError{Run: resume.ID, DB: db}
		}
		if err != nil {
			return foundRun{}, err
		}
		// the process that held the run until it was listed may have finished it since:
		// a finished run is not resumed (a spent budget would mark it interrupted)
		now, err := st.Run(ctx, resume.ID)
		if err != nil {
			lock.Release()
			return foundRun{}, err
		}
		if now.Status == store.StatusFinished {
			lock.Release()
			resume = nil
		}
	}
	if check != nil {
		if err := check(resume); err != nil {
			lock.Release() // nil where none is resumed
			return foundRun{}, err
		}
	}
	for _, r := range c.dead {
		if !locksRuns(st, db) {
			break // who holds a run cannot be told
		}
		// A run left "running" by a process that died (SIGKILL, a crash) and that this one
		// does not resume is marked interrupted once no process holds it.
		if l, err := lockRunIn(ctx, st, db, r.ID); err == nil && l != nil { // nil: cannot tell
			// read again under the lock: the process that held it until now may have
			// finished the run since it was listed
			now, err := st.Run(ctx, r.ID)
			if err == nil && now.Status == store.StatusRunning {
				err = st.FinishRun(ctx, r.ID, store.StatusInterrupted)
			}
			l.Release()
			if err != nil {
				lock.Release()
				return foundRun{}, err
			}
		}
	}
	if resume != nil {
		r := *resume
		evals, err := st.Evaluations(ctx, r.ID)
		if err != nil {
			lock.Release()
			return foundRun{}, err
		}
		if err := st.FinishRun(ctx, r.ID, store.StatusRunning); err != nil {
			lock.Release()
			return foundRun{}, err
		}
		return foundRun{info: r, stored: evals, lock: lock}, nil
	}
	// A run is created only once its lock can be taken: a run created and then not held
	// would read as running, or interrupted, without ever having been tuned.
	if db != "" {
		if err := CanLockRuns(db); err != nil {
			return foundRun{}, err
		}
	}
	id, err := st.CreateRun(ctx, want)
	if err != nil {
		return foundRun{}, err
	}
	want.ID = id
	lock, err = lockRunIn(ctx, st, db, id)
	if err != nil {
		// A new run's id is this process's alone; another process holding it tunes a
		// database that was deleted and made again at this path, beside the same lock
		// file. The run, measured by nobody, is not left running.
		st.FinishRun(context.WithoutCancel(ctx), id, store.StatusInterrupted)
		if errors.Is(err, ErrRunHeld) {
			err = fmt.Errorf("run lock: run %d of %s, just created, is held by another ktune process (one tuning a database deleted since at this path?): %w", id, db, err)
		}
		return foundRun{}, err
	}
	found := foundRun{info: want, lock: lock}
	if stale := c.stale; stale != nil && !c.newer && !fresh {
		found.stale = &StaleRun{ID: stale.ID}
		var now, then struct {
			Inputs inputSet `json:"inputs"`
		}
		json.Unmarshal(want.Settings, &now)
		json.Unmarshal(stale.Settings, &then)
		if then.Inputs != nil {
			found.stale.Changed = now.Inputs.changed(then.Inputs, filepath.Dir(settingOf(want.Settings, "spec")))
		}
	}
	return found, nil
}

// runChoice is what findOrCreateRun finds among the runs of a space and device.
type runChoice struct {
	resume *store.RunInfo // the newest unfinished run of these settings
	stale  *store.RunInfo // the newest unfinished run of these settings but other inputs
	newer  bool           // a run of these inputs is newer than stale
	// dead are the runs listed as running that are not resumed: left so by a process
	// that died, unless one holds them still
	dead []*store.RunInfo
}

// chooseRun picks from runs, listed oldest first, what findOrCreateRun resumes, and what
// it looks at beside; it changes nothing. log warns of the unreadable runs it passes over.
func chooseRun(log *slog.Logger, db string, runs []store.RunInfo, want store.RunInfo, hash string, fresh bool) runChoice {
	var c runChoice
	for i := len(runs) - 1; i >= 0; i-- {
		r := &runs[i]
		same := r.Strategy == want.Strategy && r.Seed == want.Seed && r.Objective == want.Objective && r.Maximize == want.Maximize
		if err := unreadable(r); err != nil {
			if same && !fresh && r.Status != store.StatusFinished {
				log.Warn(fmt.Sprintf("run %d, unfinished, of this kernel, device, strategy, seed and objective, is not resumed: %v; a new run measures again what it measured", r.ID, err),
					"db", db)
			}
			same = false
		}
		same = same && sameOptions(want.Strategy, r.StrategyOptions, want.StrategyOptions)
		switch {
		case same && settingsHash(r.Settings) == hash:
			c.newer = c.newer || c.stale == nil
		case same && c.stale == nil && r.Status != store.StatusFinished && settingOf(r.Settings, "spec") == settingOf(want.Settings, "spec"):
			c.stale = r
		}
		if !fresh && c.resume == nil && r.Status != store.StatusFinished && same && settingsHash(r.Settings) == hash {
			c.resume = r
			continue
		}
		if r.Status == store.StatusRunning {
			c.dead = append(c.dead, r)
		}
	}
	return c
}

// resumableRun is the run that findOrCreateRun would resume now (nil: it would create
// one), found without waiting for other processes or changing anything: what a command
// refused for what that run lacks is told before anything is stored or started. The run
// findOrCreateRun resumes is shown to its check again, since another process may have
// finished or created one meanwhile.
func resumableRun(ctx context.Context, st store.Store, want store.RunInfo, hash string, fresh bool) (*store.RunInfo, error) {
	if fresh {
		return nil, nil
	}
	runs, err := st.Runs(ctx, store.RunFilter{SpaceID: want.SpaceID, DeviceID: want.DeviceID, Kind: store.KindTuning})
	if err != nil {
		return nil, err
	}
	// the unreadable runs it passes over are warned of once, by findOrCreateRun
	return chooseRun(slog.New(slog.DiscardHandler), "", runs, want, hash, fresh).resume, nil
}

// unreadable says what of a stored run's settings and strategy options, JSON objects or
// none, cannot be read; nil when both can.
func unreadable(r *store.RunInfo) error {
	var errs []string
	for _, f := range []struct {
		name string
		raw  json.RawMessage
	}{{"settings", r.Settings}, {"strategy options", r.StrategyOptions}} {
		if len(f.raw) == 0 {
			continue
		}
		var m map[string]any
		err := json.Unmarshal(f.raw, &m)
		var syntax *json.SyntaxError
		switch {
		case errors.As(err, &syntax):
			err = fmt.Errorf("%w (at byte %d of %d)", err, syntax.Offset, len(f.raw))
		case err != nil || m == nil:
			err = fmt.Errorf("not a JSON object: %.40s", f.raw)
		}
		if err != nil {
			errs = append(errs, fmt.Sprintf("its stored %s cannot be read: %v", f.name, err))
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return errors.New(strings.Join(errs, "; "))
}

// sameJSON reports whether a and b hold the same JSON value; unreadable JSON (which
// unreadable reports of a stored run) reads as null.
func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	json.Unmarshal(a, &x)
	json.Unmarshal(b, &y)
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return string(ja) == string(jb)
}

// sameOptions reports whether two runs' stored options of strategy name are one setting
// (strategy.SameOptions): a run stored by an earlier ktune under options as the user
// spelled them (neighbourhood "hamming", restart 1) is the run of the same options spelled
// otherwise, or canonically as runs are stored now. Both are readable (unreadable).
func sameOptions(name string, a, b json.RawMessage) bool {
	var x, y map[string]any
	json.Unmarshal(a, &x)
	json.Unmarshal(b, &y)
	return strategy.SameOptions(name, x, y)
}

func settingsHash(raw json.RawMessage) string { return settingOf(raw, "spec_hash") }

// settingOf is the text setting name of a run's settings; "" when there is none, or the
// settings cannot be read (unreadable).
func settingOf(raw json.RawMessage, name string) string {
	var m map[string]any
	json.Unmarshal(raw, &m)
	v, _ := m[name].(string)
	return v
}

// storedProblemSize is the problem size as a run stores it: a JSON array of integers
// ("[512,512]", the shape of Kernel Tuner's and T4's problem_size) when the spec's sizes
// are constant expressions (N, 2*N); otherwise, for sizes that depend on the parameters,
// the expressions with the constants they read replaced by their values, comma-separated.
func storedProblemSize(sp *spec.Spec) string {
	consts := map[string]float64{}
	for _, k := range sp.Constants {
		consts[k.Name] = k.Value
	}
	sizes := make([]string, len(sp.ProblemSize))
	ints := make([]int64, len(sp.ProblemSize))
	whole := true
	for i, e := range sp.ProblemSize {
		var err error
		if sizes[i], err = expr.BindConstants(e, consts); err != nil {
			sizes[i] = e
		}
		vs, err := expr.EvalValues(sizes[i])
		if err != nil || len(vs) != 1 || (vs[0].Kind() != space.Int && vs[0].Kind() != space.Float) ||
			vs[0].Float() != math.Trunc(vs[0].Float()) || math.Abs(vs[0].Float()) > 1<<53 {
			whole = false // a size over the parameters, or no whole number (N/3)
			continue
		}
		ints[i] = int64(vs[0].Float())
	}
	if !whole || len(ints) == 0 {
		return strings.Join(sizes, ",")
	}
	b, _ := json.Marshal(ints)
	return string(b)
}
