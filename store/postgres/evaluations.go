package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/store"
	"github.com/ktune/ktune/store/internal/sqlrow"
	"github.com/ktune/ktune/store/internal/sqlstore"
)

// evaluationColumns are an evaluation's columns.
const evaluationColumns = sqlrow.EvaluationColumns

// selectColumns are the evaluation columns as a query reads them from a database of
// schema version v: an older version's lacks what later ones added, which reads as
// unknown (NULL), as SQLite's store reads its older versions.
func selectColumns(v int) string {
	cols := evaluationColumns
	if v < 2 {
		cols = strings.Replace(cols, ", device", ", NULL AS device", 1)
	}
	return cols
}

// columnCount is the number of evaluationColumns.
const columnCount = 22

// placeholders returns n query parameters from $from on: "$3, $4, $5".
func placeholders(from, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "$%d", from+i)
	}
	return b.String()
}

// insertEvaluationNext numbers the evaluation ($1 its run, then its columns) by the run's
// counter, which the same statement advances: the update locks the run's row until the
// insert commits, so another writer to the run (another process, another machine) gets
// the next number only once this one is committed, and readers never see a gap.
var insertEvaluationNext = `WITH n AS (
		UPDATE runs SET next_seq = next_seq + 1 WHERE id = $1 RETURNING next_seq - 1 AS seq)
	INSERT INTO evaluations (run_id, seq, ` + evaluationColumns + `)
	VALUES ($1, (SELECT seq FROM n), ` + placeholders(2, columnCount) + `)`

// AddEvaluation appends one evaluation to a run. It is committed when AddEvaluation
// returns.
func (s *Store) AddEvaluation(ctx context.Context, runID int64, e result.Evaluation) error {
	err := s.writable(ctx)
	var width int
	if err == nil {
		width, err = s.q().Width(ctx, s.db, runID)
	}
	if err == nil {
		var args []any
		if args, err = sqlrow.EvaluationArgs(&e, width, sqlrow.StorableText); err == nil {
			_, err = s.db.ExecContext(ctx, insertEvaluationNext, append([]any{runID}, args...)...)
		}
	}
	if err != nil {
		return fmt.Errorf("store: add evaluation to run %d: %w", runID, s.written(err))
	}
	return nil
}

// AddEvaluations appends evaluations to a run in one transaction: all or nothing.
func (s *Store) AddEvaluations(ctx context.Context, runID int64, es []result.Evaluation) error {
	err := s.writable(ctx)
	var width int
	if err == nil {
		width, err = s.q().Width(ctx, s.db, runID)
	}
	if err == nil {
		err = inTx(ctx, s.db, nil, func(tx txn) error {
			return addEvaluations(ctx, tx, runID, width, es)
		})
	}
	if err != nil {
		return fmt.Errorf("store: add %d evaluations to run %d: %w", len(es), runID, s.written(err))
	}
	return nil
}

// addEvaluations stores es after the run's evaluations in tx: it advances the run's
// counter by len(es) first, which locks the run's row until tx ends.
func addEvaluations(ctx context.Context, tx txn, runID int64, width int, es []result.Evaluation) error {
	if len(es) == 0 {
		return nil
	}
	rows := make([][]any, len(es))
	for i := range es {
		row, err := sqlrow.EvaluationArgs(&es[i], width, sqlrow.StorableText)
		if err != nil {
			return fmt.Errorf("evaluation %d: %w", i, err)
		}
		rows[i] = row
	}
	var next int64
	err := tx.QueryRowContext(ctx, `UPDATE runs SET next_seq = next_seq + $1 WHERE id = $2 RETURNING next_seq - $1`,
		int64(len(es)), runID).Scan(&next)
	if errors.Is(err, sql.ErrNoRows) {
		return store.ErrNotFound
	}
	if err != nil {
		return err
	}
	if len(rows) < copyMin {
		return insertEvaluations(ctx, tx, runID, next, rows)
	}
	// COPY streams the rows to the server in its binary format, without statements of
	// 11,500 parameters each to send, bind and parse: an import of 17,956 evaluations
	// took about 40% less time than by multi-row INSERTs (BENCHMARKS.md, PostgreSQL
	// beside SQLite). It runs in tx, so the batch is still stored all at once or not at
	// all, and durable when tx commits.
	for i, row := range rows {
		rows[i] = append([]any{runID, next + int64(i)}, row...)
	}
	n, err := tx.copyFrom(ctx, "evaluations", copyColumns, pgx.CopyFromRows(rows))
	if err == nil && n != int64(len(rows)) {
		err = fmt.Errorf("the server stored %d of them", n)
	}
	if err != nil {
		return fmt.Errorf("copy %d evaluations: %w", len(rows), err)
	}
	return nil
}

// copyMin is the fewest evaluations that addEvaluations sends by COPY: it costs a round
// trip more than an INSERT (pgx asks the server for the columns' types first), which a
// few rows do not win back.
const copyMin = 16

// copyColumns are the columns that addEvaluations copies, as insertEvaluationsAt names
// them.
var copyColumns = append([]string{"run_id", "seq"}, strings.Split(strings.Join(strings.Fields(evaluationColumns), ""), ",")...)

// insertEvaluations stores rows, the columns of evaluations numbered from next on, with
// multi-row INSERTs: one round trip to the server each would make many rows take their
// round trips' time (74 µs an evaluation on one machine, 5 times more).
func insertEvaluations(ctx context.Context, tx txn, runID, next int64, rows [][]any) error {
	for start := 0; start < len(rows); start += rowsPerInsert {
		chunk := rows[start:min(start+rowsPerInsert, len(rows))]
		args := make([]any, 0, len(chunk)*(2+columnCount))
		for i, row := range chunk {
			args = append(append(args, runID, next+int64(start+i)), row...)
		}
		if _, err := tx.ExecContext(ctx, insertEvaluationsAt(len(chunk)), args...); err != nil {
			return fmt.Errorf("evaluations %d to %d: %w", start, start+len(chunk)-1, err)
		}
	}
	return nil
}

// rowsPerInsert is how many evaluations one statement of insertEvaluations inserts, well
// within PostgreSQL's 65,535 parameters of a statement.
const rowsPerInsert = 500

// insertEvaluationsAt stores n evaluations at seqs that the run's counter gave already:
// each as its run, its seq, then its columns, one after the other.
func insertEvaluationsAt(n int) string {
	var b strings.Builder
	b.WriteString(`INSERT INTO evaluations (run_id, seq, ` + evaluationColumns + `) VALUES `)
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(" + placeholders(1+i*(2+columnCount), 2+columnCount) + ")")
	}
	return b.String()
}

// Evaluations returns a run's evaluations in the order they were added.
func (s *Store) Evaluations(ctx context.Context, runID int64) ([]result.Evaluation, error) {
	es, err := s.evaluationsAfter(ctx, runID, 0)
	if err != nil {
		return nil, fmt.Errorf("store: evaluations of run %d: %w", runID, err)
	}
	return es, nil
}

// EvaluationsAfter implements store.Store. A run's evaluations are numbered by seq 0, 1,
// 2... without gaps, in commit order (insertEvaluationNext), so the first n are those of
// seq below n, and the rest a range of the index of UNIQUE (run_id, seq).
func (s *Store) EvaluationsAfter(ctx context.Context, runID int64, n int) ([]result.Evaluation, error) {
	es, err := s.evaluationsAfter(ctx, runID, max(n, 0))
	if err != nil {
		return nil, fmt.Errorf("store: evaluations of run %d after its first %d: %w", runID, n, err)
	}
	return es, nil
}

func (s *Store) evaluationsAfter(ctx context.Context, runID int64, n int) ([]result.Evaluation, error) {
	if err := s.readable(ctx); err != nil {
		return nil, err
	}
	var es []result.Evaluation
	err := readTx(ctx, s.db, func(tx *sql.Tx) (err error) {
		es, err = s.q().RunEvaluations(ctx, tx, runID, n)
		return err
	})
	return es, err
}

// tallyCountQuery counts a run's evaluations and its successes (an OK status, the second
// argument, with an objective), from the evaluations_best index.
const tallyCountQuery = `SELECT count(*), count(*) FILTER (WHERE status = $2 AND objective IS NOT NULL)
	FROM evaluations WHERE run_id = $1`

// tallyBestQuery reads a run's best success: the smallest or largest objective of its
// successes, the first or last entry of the evaluations_best index's range of them (an
// ascending index puts NULLs last, which a backward scan, DESC, reads first: NULLS FIRST
// matches it, and the condition skips them), then the first evaluation in the run's order
// with that objective (the first entry of the index's range of it). One ORDER BY
// objective DESC, seq would need an index of mixed direction for a maximised run; min()
// and max() are not used, since the planner, whose statistics lag behind an import,
// may read every success for them. A configuration found wrong anywhere in the run
// (sqlstore.NotFoundWrong) is passed over in both.
func tallyBestQuery(maximize bool) string { return tallyBest(evaluationColumns, maximize) }

// tallyBest is tallyBestQuery reading the columns cols (selectColumns).
func tallyBest(cols string, maximize bool) string {
	order := "ASC NULLS LAST"
	if maximize {
		order = "DESC NULLS FIRST"
	}
	return `SELECT ` + cols + ` FROM evaluations e
	WHERE run_id = $1 AND status = $2 AND ` + sqlstore.NotFoundWrong("e", "$1") + ` AND objective = (
		SELECT objective FROM evaluations b WHERE run_id = $1 AND status = $2 AND objective IS NOT NULL
			AND ` + sqlstore.NotFoundWrong("b", "$1") + `
		ORDER BY objective ` + order + ` LIMIT 1)
	ORDER BY seq LIMIT 1`
}

// Tally implements store.Store with two queries, as SQLite's does: a count, and the best
// successful row (an OK status with an objective; NaN is stored as NULL), the first of
// equals in the run's order, as a scan of Evaluations would find it.
func (s *Store) Tally(ctx context.Context, runID int64) (store.Tally, error) {
	var t store.Tally
	err := s.readable(ctx)
	if err == nil {
		err = readTx(ctx, s.db, func(tx *sql.Tx) (err error) {
			t, err = s.q().Tally(ctx, tx, runID)
			return err
		})
	}
	if err != nil {
		return store.Tally{}, fmt.Errorf("store: tally run %d: %w", runID, err)
	}
	return t, nil
}

// Lookup finds the first evaluation of config in a run. Configurations match by
// store.ConfigKey, the values' text, as Kernel Tuner's cache does: the int 2 and the float
// 2.0 are different configurations.
func (s *Store) Lookup(ctx context.Context, runID int64, config []space.Value) (result.Evaluation, bool, error) {
	e, ok, err := s.lookup(ctx, runID, config)
	if err != nil {
		return result.Evaluation{}, false, fmt.Errorf("store: look up %s in run %d: %w", store.ConfigKey(config), runID, err)
	}
	return e, ok, nil
}

func (s *Store) lookup(ctx context.Context, runID int64, config []space.Value) (result.Evaluation, bool, error) {
	if err := s.readable(ctx); err != nil {
		return result.Evaluation{}, false, err
	}
	return s.q().Lookup(ctx, s.db, runID, config)
}
