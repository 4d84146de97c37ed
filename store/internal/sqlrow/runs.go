package sqlrow

import (
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/ktune/ktune/store"
	"github.com/ktune/ktune/store/internal/codec"
)

// ScanRuns reads and closes rows of runs whose columns are, in order: id, space_id,
// device_id, kind, strategy, strategy_options, seed, objective, direction, problem_size,
// started, finished, status, source, format, settings, warnings, the space's kernel, the
// device's name and backend, and the run's number of evaluations.
func ScanRuns(rows *sql.Rows) ([]store.RunInfo, error) {
	defer rows.Close()
	var runs []store.RunInfo
	for rows.Next() {
		var (
			r                           store.RunInfo
			kind, dir, status           string
			seed, started, evaluations  int64
			finished                    sql.NullInt64
			options, settings, warnings sql.NullString
		)
		err := rows.Scan(&r.ID, &r.SpaceID, &r.DeviceID, &kind, &r.Strategy, &options, &seed,
			&r.Objective, &dir, &r.ProblemSize, &started, &finished, &status, &r.Source,
			&r.Format, &settings, &warnings, &r.Kernel, &r.Device, &r.Backend, &evaluations)
		if err != nil {
			return nil, err
		}
		r.Kind, r.Status, r.Seed, r.Maximize = store.RunKind(kind), store.RunStatus(status), uint64(seed), dir == "max"
		r.Started, r.Finished = FromUnixNano(sql.NullInt64{Int64: started, Valid: true}), FromUnixNano(finished)
		r.Evaluations = int(evaluations)
		if options.Valid {
			r.StrategyOptions = json.RawMessage(options.String)
		}
		if settings.Valid {
			r.Settings = json.RawMessage(settings.String)
		}
		if r.Warnings, err = codec.ParseStrings([]byte(warnings.String)); err != nil {
			return nil, fmt.Errorf("run %d: %w", r.ID, err)
		}
		runs = append(runs, r)
	}
	return runs, rows.Err()
}
