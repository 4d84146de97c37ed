package postgres

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/store"
	"github.com/ktune/ktune/store/internal/recording"
	"github.com/ktune/ktune/store/internal/sqlrow"
)

// ImportRecording stores a recording (another tuner's results, or a replayed space) as a
// finished run of kind store.KindImport, in one transaction: an interrupted import leaves
// nothing behind. Importing the same recording twice makes two runs over one space.
func (s *Store) ImportRecording(ctx context.Context, rec *result.Recording) (int64, error) {
	if err := recording.Importable(rec); err != nil {
		return 0, err
	}
	var runID int64
	err := s.writable(ctx)
	if err == nil {
		err = inTx(ctx, s.db, nil, func(tx txn) (err error) {
			runID, err = recording.Import(ctx, txWriter{tx}, rec)
			return err
		})
	}
	if err != nil {
		return 0, fmt.Errorf("store: import %s: %w", recording.Name(rec), s.written(err))
	}
	return runID, nil
}

// ImportRecordingOnce stores a recording as ImportRecording does, unless an import run
// holds the same recording already (result.Recording.SameAs): then it stores nothing and
// returns that run, with imported false. The check and the import are one transaction
// that holds an advisory lock of the database's imports, so that two processes importing
// one file at once store it once.
func (s *Store) ImportRecordingOnce(ctx context.Context, rec *result.Recording) (run store.RunInfo, imported bool, err error) {
	if err := recording.Importable(rec); err != nil {
		return store.RunInfo{}, false, err
	}
	// A file imported before, the most that an import run again meets, is found without
	// the lock, and by a role that may not write too.
	none, err := s.empty(ctx)
	if err == nil && !none {
		err = readTx(ctx, s.db, func(tx *sql.Tx) (err error) {
			run, err = s.heldImport(ctx, tx, rec)
			return err
		})
	}
	if err == nil && run.ID == 0 {
		err = s.writable(ctx)
	}
	if err == nil && run.ID == 0 {
		// another process may have imported it since: looked for again under the lock
		err = inTx(ctx, s.db, nil, func(tx txn) error {
			if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1, $2)`, lockSpace, importKey); err != nil {
				return err
			}
			held, err := s.heldImport(ctx, tx, rec)
			if err != nil || held.ID != 0 {
				run, imported = held, false
				return err
			}
			id, err := recording.Import(ctx, txWriter{tx}, rec)
			if err != nil {
				return err
			}
			run, err = getRun(ctx, tx, id)
			imported = err == nil
			return err
		})
	}
	if err != nil {
		return store.RunInfo{}, false, fmt.Errorf("store: import %s: %w", recording.Name(rec), s.written(err))
	}
	return run, imported, nil
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
		first.Status.String(), sqlrow.RealOrNull(first.Objective), sqlrow.RealOrNull(first.CompileMS), sqlrow.RealOrNull(first.VerifyMS),
		sqlrow.RealOrNull(first.BenchmarkMS), sqlrow.RealOrNull(first.FrameworkMS), sqlrow.UnixNano(first.Time))
	if err != nil {
		return store.RunInfo{}, err
	}
	runs, err := sqlrow.ScanRuns(rows)
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
	err := s.readable(ctx)
	if err == nil {
		err = readTx(ctx, s.db, func(tx *sql.Tx) (err error) {
			rec, err = s.recording(ctx, tx, runID)
			return err
		})
	}
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
	return recording.Of(run, sp, es, fmt.Sprintf("%s#run=%d", s.name, runID)), nil
}

// txWriter stores an import's parts in its transaction, for recording.Import.
type txWriter struct{ tx txn }

func (w txWriter) PutDevice(ctx context.Context, d store.Device) (int64, error) {
	return putDevice(ctx, w.tx, d)
}

func (w txWriter) PutSpace(ctx context.Context, sp store.Space) (int64, error) {
	return putSpace(ctx, w.tx, sp)
}

func (w txWriter) CreateRun(ctx context.Context, run store.RunInfo) (int64, error) {
	return createRun(ctx, w.tx, run)
}

func (w txWriter) AddEvaluations(ctx context.Context, runID int64, width int, es []result.Evaluation) error {
	return addEvaluations(ctx, w.tx, runID, width, es)
}
