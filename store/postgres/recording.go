package postgres

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/store"
	"github.com/ktune/ktune/store/internal/recording"
	"github.com/ktune/ktune/store/internal/sqlstore"
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
			runID, err = s.q().Import(ctx, tx, adder(tx), rec)
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
			run, err = s.q().HeldImport(ctx, tx, rec)
			return err
		})
	}
	if err == nil && run.ID == 0 {
		err = s.writable(ctx)
	}
	if err == nil && run.ID == 0 {
		// another process may have imported it since: looked for again under the lock
		err = inTx(ctx, s.db, nil, func(tx txn) (err error) {
			if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1, $2)`, lockSpace, importKey); err != nil {
				return err
			}
			run, imported, err = s.q().ImportOnce(ctx, tx, adder(tx), rec)
			return err
		})
	}
	if err != nil {
		return store.RunInfo{}, false, fmt.Errorf("store: import %s: %w", recording.Name(rec), s.written(err))
	}
	return run, imported, nil
}

// adder writes an import's evaluations in its transaction tx.
func adder(tx txn) sqlstore.AddFunc {
	return func(ctx context.Context, runID int64, width int, es []result.Evaluation) error {
		return addEvaluations(ctx, tx, runID, width, es)
	}
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
			rec, err = s.q().Recording(ctx, tx, runID)
			return err
		})
	}
	if err != nil {
		return nil, fmt.Errorf("store: recording of run %d: %w", runID, err)
	}
	return rec, nil
}
