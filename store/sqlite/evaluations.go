package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/store"
	"github.com/ktune/ktune/store/internal/sqlrow"
	"github.com/ktune/ktune/store/internal/sqlstore"
)

// evaluationColumns are an evaluation's columns, as the current schema has them.
const evaluationColumns = sqlrow.EvaluationColumns

// launchColumns hold an evaluation's launch (schema version 3), all NULL when unknown.
const launchColumns = sqlrow.LaunchColumns

// selectColumns are evaluationColumns as a query reads them from a database of schema
// version v. A read-only database of an older version cannot be migrated, and is read as
// its migrations would leave it: before version 7, no evaluation names its device (NULL);
// before version 5, an evaluation's runs per sample are
// what its note says, or 1 for a tuning run's successful one (schemaV5);
// before version 4, no evaluation has warnings (NULL);
// before version 3, none has a launch (NULL);
// before version 2, strategy_ms is an imported file's strategy time, which the metrics
// held, and NULL (unknown) otherwise.
func selectColumns(v int) string {
	cols := evaluationColumns
	if v < 7 {
		cols = strings.Replace(cols, ", device", ", NULL AS device", 1)
	}
	if v < 5 {
		cols = strings.Replace(cols, ", runs_per_sample", ", "+oldRunsPerSample+" AS runs_per_sample", 1)
	}
	if v < 4 {
		cols = strings.Replace(cols, ", warnings", ", NULL AS warnings", 1)
	}
	if v < 3 {
		cols = strings.Replace(cols, launchColumns, `NULL AS grid_x, NULL AS grid_y, NULL AS grid_z,
		NULL AS block_x, NULL AS block_y, NULL AS block_z`, 1)
	}
	if v < 2 {
		const hasStrategy = `json_valid(metrics) AND json_type(metrics, '$.strategy_time')`
		cols = strings.Replace(cols, "metrics,", `CASE WHEN `+hasStrategy+` IS NOT NULL
		THEN nullif(json_remove(metrics, '$.strategy_time'), '{}') ELSE metrics END AS metrics,`, 1)
		cols = strings.Replace(cols, "strategy_ms", `CASE WHEN `+hasStrategy+` IN ('integer', 'real')
		THEN json_extract(metrics, '$.strategy_time') END AS strategy_ms`, 1)
	}
	return cols
}

// insertEvaluationNext numbers the evaluation inside the statement, so that the number is
// right even when another process appends to the same run.
const insertEvaluationNext = `INSERT INTO evaluations (run_id, seq, ` + evaluationColumns + `)
	VALUES (?, (SELECT coalesce(max(seq), -1) + 1 FROM evaluations WHERE run_id = ?),
		?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

const insertEvaluationAt = `INSERT INTO evaluations (run_id, seq, ` + evaluationColumns + `)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

// AddEvaluation appends one evaluation to a run. It is committed, and survives the
// process being killed, when AddEvaluation returns.
func (s *Store) AddEvaluation(ctx context.Context, runID int64, e result.Evaluation) error {
	width, err := s.q.Width(ctx, s.r, runID)
	if err == nil {
		var args []any
		if args, err = sqlrow.EvaluationArgs(&e, width, sqlrow.StorableText); err == nil {
			args = append([]any{runID, runID}, args...)
			err = s.write(ctx, "add evaluation", func(*sql.DB) error {
				_, err := s.add.ExecContext(ctx, args...)
				return err
			})
		}
	}
	if err != nil {
		return fmt.Errorf("store: add evaluation to run %d: %w", runID, s.damaged(err))
	}
	s.fold(ctx)
	return nil
}

// AddEvaluations appends evaluations to a run in one transaction: all or nothing, and
// hundreds of times faster than adding them one by one.
func (s *Store) AddEvaluations(ctx context.Context, runID int64, es []result.Evaluation) error {
	width, err := s.q.Width(ctx, s.r, runID)
	if err == nil {
		err = s.write(ctx, "add evaluations", func(w *sql.DB) error {
			return inTx(ctx, w, func(tx *sql.Tx) error {
				return addEvaluations(ctx, tx, runID, width, es)
			})
		})
	}
	if err != nil {
		return fmt.Errorf("store: add %d evaluations to run %d: %w", len(es), runID, s.damaged(err))
	}
	s.fold(ctx)
	return nil
}

func addEvaluations(ctx context.Context, tx *sql.Tx, runID int64, width int, es []result.Evaluation) error {
	if len(es) == 0 {
		return nil
	}
	var next int64
	err := tx.QueryRowContext(ctx, `SELECT coalesce(max(seq), -1) + 1 FROM evaluations WHERE run_id = ?`,
		runID).Scan(&next)
	if err != nil {
		return err
	}
	stmt, err := tx.PrepareContext(ctx, insertEvaluationAt)
	if err != nil {
		return err
	}
	defer stmt.Close()
	args := make([]any, 0, 24)
	for i := range es {
		row, err := sqlrow.EvaluationArgs(&es[i], width, sqlrow.StorableText)
		if err != nil {
			return fmt.Errorf("evaluation %d: %w", i, err)
		}
		args = append(append(args[:0], runID, next+int64(i)), row...)
		if _, err := stmt.ExecContext(ctx, args...); err != nil {
			return fmt.Errorf("evaluation %d: %w", i, err)
		}
	}
	return nil
}

// Evaluations returns a run's evaluations in the order they were added.
func (s *Store) Evaluations(ctx context.Context, runID int64) ([]result.Evaluation, error) {
	var es []result.Evaluation
	err := readTx(ctx, s.r, func(tx *sql.Tx) (err error) {
		es, err = s.q.RunEvaluations(ctx, tx, runID, 0)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: evaluations of run %d: %w", runID, s.damaged(err))
	}
	return es, nil
}

// EvaluationsAfter implements store.Store. A run's evaluations are numbered by seq 0, 1,
// 2... without gaps (each is added as the run's largest seq plus one, and none is ever
// deleted alone), so the first n are those of seq below n, and the run's evaluations
// after them a range of the index of UNIQUE (run_id, seq): the query reads no row before
// (EXPLAIN QUERY PLAN says SEARCH evaluations USING INDEX sqlite_autoindex_evaluations_1
// (run_id=? AND seq>?)).
func (s *Store) EvaluationsAfter(ctx context.Context, runID int64, n int) ([]result.Evaluation, error) {
	var es []result.Evaluation
	err := readTx(ctx, s.r, func(tx *sql.Tx) (err error) {
		es, err = s.q.RunEvaluations(ctx, tx, runID, max(n, 0))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: evaluations of run %d after its first %d: %w", runID, n, s.damaged(err))
	}
	return es, nil
}

// tallyCountQuery counts a run's evaluations and its successes (an OK status, given as
// the second argument, with an objective); from schema 6 it reads the evaluations_best
// index alone.
const tallyCountQuery = `SELECT COUNT(*), SUM(status = ?2 AND objective IS NOT NULL)
	FROM evaluations WHERE run_id = ?1`

// tallyBestQuery selects columns of a run's best success (run and OK status the
// arguments), the first of equals in the run's order, of a configuration found wrong
// nowhere in the run (sqlstore.NotFoundWrong); from schema 6 the first entry of the
// evaluations_best index's range, read forwards or backwards, that passes the check. The
// table keeps its name, which the columns of an old schema (oldRunsPerSample) name.
func tallyBestQuery(columns string, maximize bool) string {
	order := "ASC"
	if maximize {
		order = "DESC"
	}
	return `SELECT ` + columns + `
	FROM evaluations WHERE run_id = ?1 AND status = ?2 AND objective IS NOT NULL AND ` + sqlstore.NotFoundWrong("evaluations", "?1") + `
	ORDER BY objective ` + order + `, seq LIMIT 1`
}

// Tally implements store.Store with two queries: a count, and the best successful row
// (an OK status with an objective; NaN is stored as NULL), the first of equals in the run's
// order, as a scan of Evaluations would find it.
func (s *Store) Tally(ctx context.Context, runID int64) (store.Tally, error) {
	var t store.Tally
	err := readTx(ctx, s.r, func(tx *sql.Tx) (err error) {
		t, err = s.q.Tally(ctx, tx, runID)
		return err
	})
	if err != nil {
		return store.Tally{}, fmt.Errorf("store: tally run %d: %w", runID, s.damaged(err))
	}
	return t, nil
}

// Lookup finds the first evaluation of config in a run. Configurations match by
// store.ConfigKey, the values' text, as Kernel Tuner's cache does: the int 2 and the float
// 2.0 are different configurations.
func (s *Store) Lookup(ctx context.Context, runID int64, config []space.Value) (result.Evaluation, bool, error) {
	e, ok, err := s.q.Lookup(ctx, s.r, runID, config)
	if err != nil {
		return result.Evaluation{}, false, fmt.Errorf("store: look up %s in run %d: %w", store.ConfigKey(config), runID, s.damaged(err))
	}
	return e, ok, nil
}

// readTx runs f in a read transaction so that it sees one snapshot of the database even
// while a writer commits.
func readTx(ctx context.Context, db *sql.DB, f func(tx *sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	return f(tx)
}
