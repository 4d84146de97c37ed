package sqlite

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
	if rec == nil {
		return 0, fmt.Errorf("store: import: nil recording")
	}
	if len(rec.Evaluations) == 0 {
		return 0, fmt.Errorf("store: import %s recording %q: no evaluations, nothing to import", rec.Format, rec.Source)
	}
	var runID int64
	err := s.write(ctx, "import", func(w *sql.DB) error {
		return inTx(ctx, w, func(tx *sql.Tx) error {
			deviceID, err := putDevice(ctx, tx, store.Device{Name: rec.Device})
			if err != nil {
				return fmt.Errorf("device: %w", err)
			}
			spaceID, err := putSpace(ctx, tx, store.Space{Kernel: rec.Kernel, Params: rec.Params, Restrictions: rec.Restrictions})
			if err != nil {
				return fmt.Errorf("space: %w", err)
			}
			now := time.Now()
			runID, err = createRun(ctx, tx, store.RunInfo{
				SpaceID: spaceID, DeviceID: deviceID, Kind: store.KindImport,
				Objective: rec.Objective, Maximize: rec.Maximize, ProblemSize: rec.ProblemSize,
				Started: now, Finished: now, Status: store.StatusFinished,
				Source: rec.Source, Format: rec.Format, Warnings: rec.Warnings,
			})
			if err != nil {
				return fmt.Errorf("run: %w", err)
			}
			return addEvaluations(ctx, tx, runID, len(rec.Params), rec.Evaluations)
		})
	})
	if err != nil {
		return 0, fmt.Errorf("store: import %s recording %q: %w", rec.Format, rec.Source, err)
	}
	return runID, nil
}

// Recording reads a run back as a recording, from one snapshot of the database. An
// imported recording reads back equal to what was imported, except that empty lists and
// maps come back nil and times come back in UTC. Runs without a format or source (ktune's
// own) read back with format "ktune" and this database as their source.
func (s *Store) Recording(ctx context.Context, runID int64) (*result.Recording, error) {
	var rec *result.Recording
	err := readTx(ctx, s.r, func(tx *sql.Tx) error {
		run, err := getRun(ctx, tx, runID)
		if err != nil {
			return err
		}
		sp, err := getSpace(ctx, tx, run.SpaceID)
		if err != nil {
			return fmt.Errorf("space %d: %w", run.SpaceID, err)
		}
		es, err := evaluations(ctx, tx, runID, s.version)
		if err != nil {
			return err
		}
		rec = &result.Recording{
			Format: run.Format, Source: run.Source, Device: run.Device, Kernel: sp.Kernel,
			ProblemSize: run.ProblemSize, Params: sp.Params, Restrictions: sp.Restrictions,
			Objective: run.Objective, Maximize: run.Maximize, Evaluations: es, Warnings: run.Warnings,
		}
		if rec.Format == "" {
			rec.Format = "ktune"
		}
		if rec.Source == "" {
			rec.Source = fmt.Sprintf("sqlite:%s#run=%d", s.path, runID)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: recording of run %d: %w", runID, err)
	}
	return rec, nil
}
