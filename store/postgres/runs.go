package postgres

import (
	"context"
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
	err := s.writable(ctx)
	var id int64
	if err == nil {
		id, err = s.q().PutDevice(ctx, s.db, d)
	}
	if err != nil {
		return 0, fmt.Errorf("store: put device %q: %w", d.Name, s.written(err))
	}
	return id, nil
}

// PutSpace records a space, or finds the identical one, and returns its id.
func (s *Store) PutSpace(ctx context.Context, sp store.Space) (int64, error) {
	err := s.writable(ctx)
	var id int64
	if err == nil {
		id, err = s.q().PutSpace(ctx, s.db, sp)
	}
	if err != nil {
		return 0, fmt.Errorf("store: put space %q: %w", sp.Kernel, s.written(err))
	}
	return id, nil
}

// Device returns a recorded device.
func (s *Store) Device(ctx context.Context, id int64) (store.Device, error) {
	err := s.readable(ctx)
	var d store.Device
	if err == nil {
		d, err = s.q().Device(ctx, s.db, id)
	}
	if err != nil {
		return store.Device{}, fmt.Errorf("store: device %d: %w", id, err)
	}
	return d, nil
}

// Space returns a recorded space.
func (s *Store) Space(ctx context.Context, id int64) (store.Space, error) {
	err := s.readable(ctx)
	var sp store.Space
	if err == nil {
		sp, err = s.q().Space(ctx, s.db, id)
	}
	if err != nil {
		return store.Space{}, fmt.Errorf("store: space %d: %w", id, err)
	}
	return sp, nil
}

// CreateRun starts a run and returns its id.
func (s *Store) CreateRun(ctx context.Context, run store.RunInfo) (int64, error) {
	err := s.writable(ctx)
	var id int64
	if err == nil {
		id, err = s.q().CreateRun(ctx, s.db, run)
	}
	if err != nil {
		return 0, fmt.Errorf("store: create run (kind %q): %w", run.Kind, s.written(err))
	}
	return id, nil
}

// FinishRun records how a run ended and stamps its finishing time. StatusRunning clears
// the finishing time, for a run that is being resumed.
func (s *Store) FinishRun(ctx context.Context, runID int64, status store.RunStatus) error {
	query, args, err := s.q().FinishRun(runID, status)
	if err == nil {
		err = s.updateRun(ctx, query, args)
	}
	if err != nil {
		return fmt.Errorf("store: finish run %d: %w", runID, err)
	}
	return nil
}

// SetRunSettings replaces a run's settings, a JSON object.
func (s *Store) SetRunSettings(ctx context.Context, runID int64, settings json.RawMessage) error {
	query, args, err := s.q().SetRunSettings(runID, settings)
	if err == nil {
		err = s.updateRun(ctx, query, args)
	}
	if err != nil {
		return fmt.Errorf("store: set settings of run %d: %w", runID, err)
	}
	return nil
}

// updateRun runs an UPDATE of one run; store.ErrNotFound when no run has its id.
func (s *Store) updateRun(ctx context.Context, query string, args []any) error {
	if err := s.writable(ctx); err != nil {
		return err
	}
	res, err := s.db.ExecContext(ctx, query, args...)
	if err != nil {
		return s.written(err)
	}
	return sqlstore.UpdatedRun(res)
}

// runEvaluations is the number of evaluations of the run r, which the run's counter holds
// (the number of the next).
const runEvaluations = `r.next_seq`

// Run returns one run.
func (s *Store) Run(ctx context.Context, runID int64) (store.RunInfo, error) {
	err := s.readable(ctx)
	var run store.RunInfo
	if err == nil {
		run, err = s.q().Run(ctx, s.db, runID)
	}
	if err != nil {
		return store.RunInfo{}, fmt.Errorf("store: run %d: %w", runID, err)
	}
	return run, nil
}

// Runs returns the runs that match the filter, oldest first.
func (s *Store) Runs(ctx context.Context, f store.RunFilter) ([]store.RunInfo, error) {
	if none, err := s.empty(ctx); err != nil || none {
		if err != nil {
			return nil, fmt.Errorf("store: list runs: %w", err)
		}
		return nil, nil
	}
	runs, err := s.q().Runs(ctx, s.db, f)
	if err != nil {
		return nil, fmt.Errorf("store: list runs: %w", err)
	}
	return runs, nil
}
