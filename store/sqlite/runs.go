package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/ktune/ktune/store"
	"github.com/ktune/ktune/store/internal/sqlstore"
)

// PutDevice records a device, or finds the one recorded under the same name and backend
// and returns its id. Non-empty properties replace the recorded ones, so a device's entry
// follows driver updates; empty properties leave them alone, so an import that knows only
// the name does not erase what a tuning run recorded.
func (s *Store) PutDevice(ctx context.Context, d store.Device) (int64, error) {
	var id int64
	err := s.write(ctx, "put device", func(w *sql.DB) (err error) {
		id, err = s.q.PutDevice(ctx, w, d)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: put device %q: %w", d.Name, s.damaged(err))
	}
	return id, nil
}

// PutSpace records a space, or finds the identical one, and returns its id.
func (s *Store) PutSpace(ctx context.Context, sp store.Space) (int64, error) {
	var id int64
	err := s.write(ctx, "put space", func(w *sql.DB) (err error) {
		id, err = s.q.PutSpace(ctx, w, sp)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: put space %q: %w", sp.Kernel, s.damaged(err))
	}
	return id, nil
}

// Device returns a recorded device.
func (s *Store) Device(ctx context.Context, id int64) (store.Device, error) {
	d, err := s.q.Device(ctx, s.r, id)
	if err != nil {
		return store.Device{}, fmt.Errorf("store: device %d: %w", id, s.damaged(err))
	}
	return d, nil
}

// Space returns a recorded space.
func (s *Store) Space(ctx context.Context, id int64) (store.Space, error) {
	sp, err := s.q.Space(ctx, s.r, id)
	if err != nil {
		return store.Space{}, fmt.Errorf("store: space %d: %w", id, s.damaged(err))
	}
	return sp, nil
}

// CreateRun starts a run and returns its id.
func (s *Store) CreateRun(ctx context.Context, run store.RunInfo) (int64, error) {
	var id int64
	err := s.write(ctx, "create run", func(w *sql.DB) (err error) {
		id, err = s.q.CreateRun(ctx, w, run)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: create run (kind %q): %w", run.Kind, s.damaged(err))
	}
	return id, nil
}

// FinishRun records how a run ended and stamps its finishing time. StatusRunning clears
// the finishing time, for a run that is being resumed.
func (s *Store) FinishRun(ctx context.Context, runID int64, status store.RunStatus) error {
	query, args, err := s.q.FinishRun(runID, status)
	if err == nil {
		err = s.updateRun(ctx, "finish run", query, args)
	}
	if err != nil {
		return fmt.Errorf("store: finish run %d: %w", runID, s.damaged(err))
	}
	return nil
}

// SetRunSettings replaces a run's settings, a JSON object.
func (s *Store) SetRunSettings(ctx context.Context, runID int64, settings json.RawMessage) error {
	query, args, err := s.q.SetRunSettings(runID, settings)
	if err == nil {
		err = s.updateRun(ctx, "set run settings", query, args)
	}
	if err != nil {
		return fmt.Errorf("store: set settings of run %d: %w", runID, s.damaged(err))
	}
	return nil
}

// updateRun runs an UPDATE of one run through the writer; store.ErrNotFound when no run
// has its id.
func (s *Store) updateRun(ctx context.Context, what, query string, args []any) error {
	var res sql.Result
	err := s.write(ctx, what, func(w *sql.DB) (err error) {
		res, err = w.ExecContext(ctx, query, args...)
		return err
	})
	if err != nil {
		return err
	}
	return sqlstore.UpdatedRun(res)
}

// runEvaluations is the number of evaluations of the run r: SQLite's runs keep no
// counter of them.
const runEvaluations = `(SELECT count(*) FROM evaluations e WHERE e.run_id = r.id)`

// Run returns one run.
func (s *Store) Run(ctx context.Context, runID int64) (store.RunInfo, error) {
	run, err := s.q.Run(ctx, s.r, runID)
	if err != nil {
		return store.RunInfo{}, fmt.Errorf("store: run %d: %w", runID, s.damaged(err))
	}
	return run, nil
}

// Runs returns the runs that match the filter, oldest first.
func (s *Store) Runs(ctx context.Context, f store.RunFilter) ([]store.RunInfo, error) {
	runs, err := s.q.Runs(ctx, s.r, f)
	if err != nil {
		return nil, fmt.Errorf("store: list runs: %w", s.damaged(err))
	}
	return runs, nil
}
