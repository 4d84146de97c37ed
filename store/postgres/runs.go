package postgres

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ktune/ktune/store"
	"github.com/ktune/ktune/store/internal/codec"
	"github.com/ktune/ktune/store/internal/sqlrow"
)

// PutDevice records a device, or finds the one recorded under the same name and backend
// and returns its id. Non-empty properties replace the recorded ones, so a device's entry
// follows driver updates; empty properties leave them alone, so an import that knows only
// the name does not erase what a tuning run recorded.
func (s *Store) PutDevice(ctx context.Context, d store.Device) (int64, error) {
	err := s.writable(ctx)
	var id int64
	if err == nil {
		id, err = putDevice(ctx, s.db, d)
	}
	if err != nil {
		return 0, fmt.Errorf("store: put device %q: %w", d.Name, s.written(err))
	}
	return id, nil
}

func putDevice(ctx context.Context, q queryer, d store.Device) (int64, error) {
	props, err := sqlrow.JSONObject("properties", d.Properties)
	if err != nil {
		return 0, err
	}
	// ON CONFLICT settles two processes storing the same device at once in one statement.
	var id int64
	err = q.QueryRowContext(ctx, `
		INSERT INTO devices (name, backend, properties) VALUES ($1, $2, $3)
		ON CONFLICT (name, backend) DO UPDATE SET properties = coalesce(excluded.properties, devices.properties)
		RETURNING id`, d.Name, d.Backend, props).Scan(&id)
	return id, err
}

// PutSpace records a space, or finds the identical one, and returns its id.
func (s *Store) PutSpace(ctx context.Context, sp store.Space) (int64, error) {
	err := s.writable(ctx)
	var id int64
	if err == nil {
		id, err = putSpace(ctx, s.db, sp)
	}
	if err != nil {
		return 0, fmt.Errorf("store: put space %q: %w", sp.Kernel, s.written(err))
	}
	return id, nil
}

func putSpace(ctx context.Context, q queryer, sp store.Space) (int64, error) {
	args, err := sqlrow.SpaceArgs(sp)
	if err != nil {
		return 0, err
	}
	// The no-op update makes RETURNING report the existing row's id on a conflict, in one
	// statement, so two processes storing the same space cannot race.
	var id int64
	err = q.QueryRowContext(ctx, `
		INSERT INTO spaces (hash, kernel, params, restrictions) VALUES ($1, $2, $3, $4)
		ON CONFLICT (hash) DO UPDATE SET hash = excluded.hash
		RETURNING id`, args...).Scan(&id)
	return id, err
}

// Device returns a recorded device.
func (s *Store) Device(ctx context.Context, id int64) (store.Device, error) {
	d := store.Device{ID: id}
	var props sql.NullString
	err := s.readable(ctx)
	if err == nil {
		err = s.db.QueryRowContext(ctx, `SELECT name, backend, properties FROM devices WHERE id = $1`, id).
			Scan(&d.Name, &d.Backend, &props)
	}
	if errors.Is(err, sql.ErrNoRows) {
		err = store.ErrNotFound
	}
	if err != nil {
		return store.Device{}, fmt.Errorf("store: device %d: %w", id, err)
	}
	if props.Valid {
		d.Properties = json.RawMessage(props.String)
	}
	return d, nil
}

// Space returns a recorded space.
func (s *Store) Space(ctx context.Context, id int64) (store.Space, error) {
	err := s.readable(ctx)
	var sp store.Space
	if err == nil {
		sp, err = getSpace(ctx, s.db, id)
	}
	if err != nil {
		return store.Space{}, fmt.Errorf("store: space %d: %w", id, err)
	}
	return sp, nil
}

func getSpace(ctx context.Context, q queryer, id int64) (store.Space, error) {
	sp := store.Space{ID: id}
	var params string
	var restrictions sql.NullString
	err := q.QueryRowContext(ctx, `SELECT kernel, params, restrictions FROM spaces WHERE id = $1`, id).
		Scan(&sp.Kernel, &params, &restrictions)
	if errors.Is(err, sql.ErrNoRows) {
		return sp, store.ErrNotFound
	}
	if err != nil {
		return sp, err
	}
	if sp.Params, err = codec.ParseParams([]byte(params)); err != nil {
		return sp, err
	}
	sp.Restrictions, err = codec.ParseStrings([]byte(restrictions.String))
	return sp, err
}

// CreateRun starts a run and returns its id.
func (s *Store) CreateRun(ctx context.Context, run store.RunInfo) (int64, error) {
	err := s.writable(ctx)
	var id int64
	if err == nil {
		id, err = createRun(ctx, s.db, run)
	}
	if err != nil {
		return 0, fmt.Errorf("store: create run (kind %q): %w", run.Kind, s.written(err))
	}
	return id, nil
}

func createRun(ctx context.Context, q queryer, run store.RunInfo) (int64, error) {
	args, err := sqlrow.RunArgs(run)
	if err != nil {
		return 0, err
	}
	var id int64
	err = q.QueryRowContext(ctx, `
		INSERT INTO runs (space_id, device_id, kind, strategy, strategy_options, seed, objective,
			direction, problem_size, started, finished, status, source, format, settings, warnings)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
		RETURNING id`, args...).Scan(&id)
	if isForeignKey(err) {
		err = fmt.Errorf("space %d or device %d: %w", run.SpaceID, run.DeviceID, store.ErrNotFound)
	}
	return id, err
}

// FinishRun records how a run ended and stamps its finishing time. StatusRunning clears
// the finishing time, for a run that is being resumed.
func (s *Store) FinishRun(ctx context.Context, runID int64, status store.RunStatus) error {
	if !status.Valid() {
		return fmt.Errorf("store: finish run %d: unknown status %q", runID, status)
	}
	var finished any
	if status != store.StatusRunning {
		finished = time.Now().UnixNano()
	}
	if err := s.updateRun(ctx, `UPDATE runs SET status = $1, finished = $2 WHERE id = $3`, string(status), finished, runID); err != nil {
		return fmt.Errorf("store: finish run %d: %w", runID, err)
	}
	return nil
}

// updateRun runs an UPDATE of one run (its id the last argument); store.ErrNotFound when
// no run has that id.
func (s *Store) updateRun(ctx context.Context, query string, args ...any) error {
	if err := s.writable(ctx); err != nil {
		return err
	}
	res, err := s.db.ExecContext(ctx, query, args...)
	if err != nil {
		return s.written(err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return store.ErrNotFound
	}
	return nil
}

// SetRunSettings replaces a run's settings, a JSON object.
func (s *Store) SetRunSettings(ctx context.Context, runID int64, settings json.RawMessage) error {
	obj, err := sqlrow.JSONObject("settings", settings)
	if err == nil {
		err = s.updateRun(ctx, `UPDATE runs SET settings = $1 WHERE id = $2`, obj, runID)
	}
	if err != nil {
		return fmt.Errorf("store: set settings of run %d: %w", runID, err)
	}
	return nil
}

// selectRuns reads runs with their kernel, device and number of evaluations, which the
// run's counter holds (the number of the next).
const selectRuns = `
	SELECT r.id, r.space_id, r.device_id, r.kind, r.strategy, r.strategy_options, r.seed,
		r.objective, r.direction, r.problem_size, r.started, r.finished, r.status, r.source,
		r.format, r.settings, r.warnings, s.kernel, d.name, d.backend, r.next_seq
	FROM runs r JOIN spaces s ON s.id = r.space_id JOIN devices d ON d.id = r.device_id`

// Run returns one run.
func (s *Store) Run(ctx context.Context, runID int64) (store.RunInfo, error) {
	err := s.readable(ctx)
	var run store.RunInfo
	if err == nil {
		run, err = getRun(ctx, s.db, runID)
	}
	if err != nil {
		return store.RunInfo{}, fmt.Errorf("store: run %d: %w", runID, err)
	}
	return run, nil
}

func getRun(ctx context.Context, q queryer, runID int64) (store.RunInfo, error) {
	rows, err := q.QueryContext(ctx, selectRuns+` WHERE r.id = $1`, runID)
	if err != nil {
		return store.RunInfo{}, err
	}
	runs, err := sqlrow.ScanRuns(rows)
	if err != nil {
		return store.RunInfo{}, err
	}
	if len(runs) == 0 {
		return store.RunInfo{}, store.ErrNotFound
	}
	return runs[0], nil
}

// Runs returns the runs that match the filter, oldest first.
func (s *Store) Runs(ctx context.Context, f store.RunFilter) ([]store.RunInfo, error) {
	if none, err := s.empty(ctx); err != nil || none {
		if err != nil {
			return nil, fmt.Errorf("store: list runs: %w", err)
		}
		return nil, nil
	}
	where, args := sqlrow.RunFilterWhere(f, func(n int) string { return fmt.Sprintf("$%d", n) })
	query := selectRuns + where
	rows, err := s.db.QueryContext(ctx, query+" ORDER BY r.id", args...)
	if err != nil {
		return nil, fmt.Errorf("store: list runs: %w", err)
	}
	runs, err := sqlrow.ScanRuns(rows)
	if err != nil {
		return nil, fmt.Errorf("store: list runs: %w", err)
	}
	return runs, nil
}
