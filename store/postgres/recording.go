package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/store"
)

// ImportRecording stores a recording (another tuner's results, or a replayed space) as a
// finished run of kind store.KindImport, in one transaction: an interrupted import leaves
// nothing behind. Importing the same recording twice makes two runs over one space.
func (s *Store) ImportRecording(ctx context.Context, rec *result.Recording) (int64, error) {
	if err := importable(rec); err != nil {
		return 0, err
	}
	var runID int64
	err := inTx(ctx, s.db, nil, func(tx *sql.Tx) (err error) {
		runID, err = importRecording(ctx, tx, rec)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: import %s: %w", recordingName(rec), s.written(err))
	}
	return runID, nil
}

// ImportRecordingOnce stores a recording as ImportRecording does, unless an import run
// holds the same recording already (result.Recording.SameAs): then it stores nothing and
// returns that run, with imported false. The check and the import are one transaction
// that holds an advisory lock of the database's imports, so that two processes importing
// one file at once store it once.
func (s *Store) ImportRecordingOnce(ctx context.Context, rec *result.Recording) (run store.RunInfo, imported bool, err error) {
	if err := importable(rec); err != nil {
		return store.RunInfo{}, false, err
	}
	// A file imported before, the most that an import run again meets, is found without
	// the lock, and by a role that may not write too.
	err = readTx(ctx, s.db, func(tx *sql.Tx) (err error) {
		run, err = s.heldImport(ctx, tx, rec)
		return err
	})
	if err == nil && run.ID == 0 {
		// another process may have imported it since: looked for again under the lock
		err = inTx(ctx, s.db, nil, func(tx *sql.Tx) error {
			if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1, $2)`, lockSpace, importKey); err != nil {
				return err
			}
			held, err := s.heldImport(ctx, tx, rec)
			if err != nil || held.ID != 0 {
				run, imported = held, false
				return err
			}
			id, err := importRecording(ctx, tx, rec)
			if err != nil {
				return err
			}
			run, err = getRun(ctx, tx, id)
			imported = err == nil
			return err
		})
	}
	if err != nil {
		return store.RunInfo{}, false, fmt.Errorf("store: import %s: %w", recordingName(rec), s.written(err))
	}
	return run, imported, nil
}

// recordingName names rec in errors: "kerneltuner recording "gemm.json"", or as much of
// that as rec says (a recording a program built has neither format nor source).
func recordingName(rec *result.Recording) string {
	name := "recording"
	if rec.Format != "" {
		name = rec.Format + " " + name
	}
	if rec.Source != "" {
		name += fmt.Sprintf(" %q", rec.Source)
	}
	return name
}

// importable refuses a recording that ImportRecording must not store.
func importable(rec *result.Recording) error {
	if rec == nil {
		return fmt.Errorf("store: import: nil recording")
	}
	if len(rec.Evaluations) == 0 {
		return fmt.Errorf("store: import %s: no evaluations, nothing to import", recordingName(rec))
	}
	return nil
}

// importRecording stores rec as a finished import run in tx and returns its id.
func importRecording(ctx context.Context, tx *sql.Tx, rec *result.Recording) (int64, error) {
	deviceID, err := putDevice(ctx, tx, store.Device{Name: rec.Device, Backend: rec.Backend})
	if err != nil {
		return 0, fmt.Errorf("device: %w", err)
	}
	spaceID, err := putSpace(ctx, tx, store.Space{Kernel: rec.Kernel, Params: rec.Params, Restrictions: rec.Restrictions})
	if err != nil {
		return 0, fmt.Errorf("space: %w", err)
	}
	now := time.Now()
	runID, err := createRun(ctx, tx, store.RunInfo{
		SpaceID: spaceID, DeviceID: deviceID, Kind: store.KindImport,
		Objective: rec.Objective, Maximize: rec.Maximize, ProblemSize: rec.ProblemSize,
		Started: now, Finished: now, Status: store.StatusFinished,
		Source: rec.Source, Format: rec.Format, Warnings: rec.Warnings,
	})
	if err != nil {
		return 0, fmt.Errorf("run: %w", err)
	}
	return runID, addEvaluations(ctx, tx, runID, len(rec.Params), rec.Evaluations)
}

// heldImport returns the first import run that holds the same recording as rec, or a zero
// RunInfo. As in SQLite's store, only the runs of rec's format, kernel, device and number
// of evaluations whose first evaluation has rec's first one's status, objective and times
// are read back to compare; IS NOT DISTINCT FROM compares NULL (NaN) equal to NULL, as
// SameAs compares NaN.
func (s *Store) heldImport(ctx context.Context, q queryer, rec *result.Recording) (store.RunInfo, error) {
	first := &rec.Evaluations[0]
	rows, err := q.QueryContext(ctx, selectRuns+` WHERE r.kind = $1 AND r.format = $2 AND s.kernel = $3 AND d.name = $4 AND d.backend = $5
		AND r.next_seq = $6
		AND EXISTS (SELECT 1 FROM evaluations e WHERE e.run_id = r.id AND e.seq = 0 AND e.status = $7
			AND e.objective IS NOT DISTINCT FROM $8 AND e.compile_ms IS NOT DISTINCT FROM $9
			AND e.verify_ms IS NOT DISTINCT FROM $10 AND e.benchmark_ms IS NOT DISTINCT FROM $11
			AND e.framework_ms IS NOT DISTINCT FROM $12 AND e.time IS NOT DISTINCT FROM $13)
		ORDER BY r.id`,
		string(store.KindImport), rec.Format, rec.Kernel, rec.Device, rec.Backend, int64(len(rec.Evaluations)),
		first.Status.String(), realOrNull(first.Objective), realOrNull(first.CompileMS), realOrNull(first.VerifyMS),
		realOrNull(first.BenchmarkMS), realOrNull(first.FrameworkMS), unixNano(first.Time))
	if err != nil {
		return store.RunInfo{}, err
	}
	runs, err := scanRuns(rows)
	if err != nil {
		return store.RunInfo{}, err
	}
	for _, r := range runs {
		s.readBack.Add(1)
		stored, err := s.recording(ctx, q, r.ID)
		if err != nil {
			return store.RunInfo{}, fmt.Errorf("run %d, read back to compare: %w", r.ID, err)
		}
		if stored.SameAs(rec) {
			return r, nil
		}
	}
	return store.RunInfo{}, nil
}

// Recording reads a run back as a recording, from one snapshot of the database. An
// imported recording reads back equal to what was imported, except that empty lists and
// maps come back nil and times come back in UTC. Runs without a format or source (ktune's
// own) read back with format "ktune" and this database (its password left out) as their
// source.
func (s *Store) Recording(ctx context.Context, runID int64) (*result.Recording, error) {
	var rec *result.Recording
	err := readTx(ctx, s.db, func(tx *sql.Tx) (err error) {
		rec, err = s.recording(ctx, tx, runID)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: recording of run %d: %w", runID, err)
	}
	return rec, nil
}

// recording reads a run back as a recording, for Recording.
func (s *Store) recording(ctx context.Context, q queryer, runID int64) (*result.Recording, error) {
	run, err := getRun(ctx, q, runID)
	if err != nil {
		return nil, err
	}
	sp, err := getSpace(ctx, q, run.SpaceID)
	if err != nil {
		return nil, fmt.Errorf("space %d: %w", run.SpaceID, err)
	}
	es, err := evaluationsFrom(ctx, q, runID, 0)
	if err != nil {
		return nil, err
	}
	rec := &result.Recording{
		Format: run.Format, Source: run.Source, Device: run.Device, Backend: run.Backend, Kernel: sp.Kernel,
		ProblemSize: run.ProblemSize, Params: sp.Params, Restrictions: sp.Restrictions,
		Objective: run.Objective, Maximize: run.Maximize, Evaluations: es, Warnings: run.Warnings,
	}
	if rec.Format == "" {
		rec.Format = "ktune"
	}
	if rec.Source == "" {
		rec.Source = fmt.Sprintf("%s#run=%d", s.name, runID)
	}
	return rec, nil
}
