// Package sqlstore runs the parts of the store that every SQL backend runs the same way:
// storing and reading devices, spaces and runs, listing runs, a run's width, reading a
// run's evaluations, its tally and a configuration's lookup, and importing a recording and
// reading a run back as one. Each statement is written here once, with ? parameters; a
// backend gives what its SQL dialect words differently (Backend) and keeps what is its
// own: its connections, transactions and locking, how it writes evaluations, and which of
// its database's errors it turns into which of the store's.
package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/store"
	"github.com/ktune/ktune/store/internal/codec"
	"github.com/ktune/ktune/store/internal/recording"
	"github.com/ktune/ktune/store/internal/sqlrow"
)

// Queryer is what both *sql.DB and *sql.Tx offer, so a step can run alone or inside a
// transaction.
type Queryer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Backend is what one backend's database says differently from another's, and its name.
type Backend struct {
	// Numbered is true for a database whose query parameters are numbered ($1, $2...),
	// false for one that takes ?.
	Numbered bool
	// ParamsJSON is the column s.params (a space's parameters, a JSON array) as the
	// database's json_array_length takes it.
	ParamsJSON string
	// RunEvaluations is the number of evaluations of the run r, an SQL expression.
	RunEvaluations string
	// Columns are the evaluation columns as the database's queries read them, in the order
	// of sqlrow.ScanEvaluation.
	Columns string
	// TallyCount counts the evaluations of a run and its successes (an OK status with an
	// objective), in the backend's own SQL: the run is its first parameter, the OK status
	// its second.
	TallyCount string
	// TallyBest returns the backend's query of the Columns of a run's best success, the
	// first of equals in the run's order, with the parameters of TallyCount, passing over
	// configurations found wrong in the run (NotFoundWrong).
	TallyBest func(maximize bool) string
	// IsForeignKey reports whether err is the database refusing a row that names a
	// missing parent.
	IsForeignKey func(err error) bool
	// Source names the database in the source of a run read back as a recording, which is
	// Source#run=ID.
	Source string
}

// Queries runs the shared statements in one backend's dialect for one store, and keeps
// what that store remembers between them. Its methods are safe for concurrent use.
type Queries struct {
	b Backend

	putDevice, putSpace, createRun, finishRun, setRunSettings, device, space     string
	selectRuns, run, width, evaluationsFrom, lookup, runExists, importCandidates string
	wrongKeys, configOutcomes                                                    string

	mu     sync.Mutex
	widths map[int64]int // parameters per run, to reject configurations of the wrong length

	// ReadBack counts the runs that ImportOnce and HeldImport read back whole to compare
	// with a recording, which tests bound.
	ReadBack atomic.Int64
}

// New words the shared statements for b.
func New(b Backend) *Queries {
	q := &Queries{b: b, widths: map[int64]int{}}
	bind := func(query string) string {
		if b.Numbered {
			return numbered(query)
		}
		return query
	}
	q.putDevice = bind(`
		INSERT INTO devices (name, backend, properties) VALUES (?, ?, ?)
		ON CONFLICT (name, backend) DO UPDATE SET properties = coalesce(excluded.properties, devices.properties)
		RETURNING id`)
	// The no-op update makes RETURNING report the existing row's id on a conflict, in one
	// statement, so two processes storing the same space cannot race.
	q.putSpace = bind(`
		INSERT INTO spaces (hash, kernel, params, restrictions) VALUES (?, ?, ?, ?)
		ON CONFLICT (hash) DO UPDATE SET hash = excluded.hash
		RETURNING id`)
	q.createRun = bind(`
		INSERT INTO runs (space_id, device_id, kind, strategy, strategy_options, seed, objective,
			direction, problem_size, started, finished, status, source, format, settings, warnings)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		RETURNING id`)
	q.finishRun = bind(`UPDATE runs SET status = ?, finished = ? WHERE id = ?`)
	q.setRunSettings = bind(`UPDATE runs SET settings = ? WHERE id = ?`)
	q.device = bind(`SELECT name, backend, properties FROM devices WHERE id = ?`)
	q.space = bind(`SELECT kernel, params, restrictions FROM spaces WHERE id = ?`)
	// runs with their kernel, device and number of evaluations, as sqlrow.ScanRuns reads them
	q.selectRuns = `
	SELECT r.id, r.space_id, r.device_id, r.kind, r.strategy, r.strategy_options, r.seed,
		r.objective, r.direction, r.problem_size, r.started, r.finished, r.status, r.source,
		r.format, r.settings, r.warnings, s.kernel, d.name, d.backend, ` + b.RunEvaluations + `
	FROM runs r JOIN spaces s ON s.id = r.space_id JOIN devices d ON d.id = r.device_id`
	q.run = bind(q.selectRuns + ` WHERE r.id = ?`)
	q.width = bind(`
		SELECT json_array_length(` + b.ParamsJSON + `) FROM runs r JOIN spaces s ON s.id = r.space_id
		WHERE r.id = ?`)
	q.evaluationsFrom = bind(`SELECT ` + b.Columns + `
		FROM evaluations WHERE run_id = ? AND seq >= ? ORDER BY seq`)
	q.lookup = bind(`SELECT ` + b.Columns + `
		FROM evaluations WHERE run_id = ? AND config_key = ? ORDER BY seq`)
	q.runExists = bind(`SELECT 1 FROM runs WHERE id = ?`)
	// the configurations found wrong in a run (the evaluations_best index's range of its
	// wrong answers: few, or none), and the outcomes of one (the evaluations_config
	// index's range of it), by which Tally counts their successes without reading the
	// run's others: a count of the successes whose key is among the wrong answers' reads
	// every success's row where the planner lacks statistics
	q.wrongKeys = bind(`SELECT config_key FROM evaluations WHERE run_id = ? AND status = ?`)
	q.configOutcomes = bind(`SELECT status, objective FROM evaluations WHERE run_id = ? AND config_key = ? ORDER BY seq`)
	// IS NOT DISTINCT FROM compares the REAL columns as numbers, NULL (NaN) equal to NULL,
	// as result.Recording.SameAs compares them.
	q.importCandidates = bind(q.selectRuns + ` WHERE r.kind = ? AND r.format = ? AND s.kernel = ? AND d.name = ? AND d.backend = ?
		AND EXISTS (SELECT 1 FROM evaluations e WHERE e.run_id = r.id AND e.seq = 0 AND e.status = ?
			AND e.objective IS NOT DISTINCT FROM ? AND e.compile_ms IS NOT DISTINCT FROM ?
			AND e.verify_ms IS NOT DISTINCT FROM ? AND e.benchmark_ms IS NOT DISTINCT FROM ?
			AND e.framework_ms IS NOT DISTINCT FROM ? AND e.time IS NOT DISTINCT FROM ?)
		ORDER BY r.id`)
	return q
}

// numbered turns each ? of query into a numbered parameter, $1, $2...; the statements of
// this package hold no ? but their parameters.
func numbered(query string) string {
	var b strings.Builder
	n := 0
	for {
		i := strings.IndexByte(query, '?')
		if i < 0 {
			b.WriteString(query)
			return b.String()
		}
		n++
		b.WriteString(query[:i])
		b.WriteString("$" + strconv.Itoa(n))
		query = query[i+1:]
	}
}

// param returns the n-th query parameter (from 1) in the backend's dialect.
func (q *Queries) param(n int) string {
	if q.b.Numbered {
		return "$" + strconv.Itoa(n)
	}
	return "?"
}

// LookupQuery is the statement of Lookup, its parameters a run and a configuration key,
// for a backend's tests of its query plan.
func (q *Queries) LookupQuery() string { return q.lookup }

// EvaluationsFromQuery is the statement of EvaluationsFrom, its parameters a run and a
// seq, for a backend's tests of its query plan.
func (q *Queries) EvaluationsFromQuery() string { return q.evaluationsFrom }

// PutDevice records a device, or finds the one recorded under the same name and backend
// and returns its id. Non-empty properties replace the recorded ones; empty ones leave
// them alone. ON CONFLICT settles two processes storing the same device at once in one
// statement.
func (q *Queries) PutDevice(ctx context.Context, db Queryer, d store.Device) (int64, error) {
	props, err := sqlrow.JSONObject("properties", d.Properties)
	if err != nil {
		return 0, err
	}
	var id int64
	err = db.QueryRowContext(ctx, q.putDevice, sqlrow.Storable("device name", d.Name), sqlrow.Storable("device backend", d.Backend), props).Scan(&id)
	return id, err
}

// PutSpace records a space, or finds the identical one, and returns its id.
func (q *Queries) PutSpace(ctx context.Context, db Queryer, sp store.Space) (int64, error) {
	args, err := sqlrow.SpaceArgs(sp)
	if err != nil {
		return 0, err
	}
	var id int64
	err = db.QueryRowContext(ctx, q.putSpace, args...).Scan(&id)
	return id, err
}

// CreateRun starts a run and returns its id; store.ErrNotFound when its space or device is
// not recorded.
func (q *Queries) CreateRun(ctx context.Context, db Queryer, run store.RunInfo) (int64, error) {
	args, err := sqlrow.RunArgs(run)
	if err != nil {
		return 0, err
	}
	var id int64
	err = db.QueryRowContext(ctx, q.createRun, args...).Scan(&id)
	if err != nil && q.b.IsForeignKey(err) {
		err = fmt.Errorf("space %d or device %d: %w", run.SpaceID, run.DeviceID, store.ErrNotFound)
	}
	return id, err
}

// FinishRun returns the statement, with its arguments, that records how a run ended and
// stamps its finishing time, for UpdatedRun. StatusRunning clears the finishing time, for a
// run that is being resumed.
func (q *Queries) FinishRun(runID int64, status store.RunStatus) (string, []any, error) {
	if !status.Valid() {
		return "", nil, fmt.Errorf("unknown status %q", status)
	}
	var finished any
	if status != store.StatusRunning {
		finished = time.Now().UnixNano()
	}
	return q.finishRun, []any{string(status), finished, runID}, nil
}

// SetRunSettings returns the statement, with its arguments, that replaces a run's
// settings, a JSON object, for UpdatedRun.
func (q *Queries) SetRunSettings(runID int64, settings json.RawMessage) (string, []any, error) {
	obj, err := sqlrow.JSONObject("settings", settings)
	if err != nil {
		return "", nil, err
	}
	return q.setRunSettings, []any{obj, runID}, nil
}

// UpdatedRun is the outcome of an UPDATE of one run, res: store.ErrNotFound when it
// changed no row, no run having the id.
func UpdatedRun(res sql.Result) error {
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return store.ErrNotFound
	}
	return nil
}

// Device returns a recorded device; store.ErrNotFound when none has the id.
func (q *Queries) Device(ctx context.Context, db Queryer, id int64) (store.Device, error) {
	d := store.Device{ID: id}
	var props sql.NullString
	err := db.QueryRowContext(ctx, q.device, id).Scan(&d.Name, &d.Backend, &props)
	if errors.Is(err, sql.ErrNoRows) {
		return store.Device{}, store.ErrNotFound
	}
	if err != nil {
		return store.Device{}, err
	}
	if props.Valid {
		d.Properties = json.RawMessage(props.String)
	}
	return d, nil
}

// Space returns a recorded space; store.ErrNotFound when none has the id.
func (q *Queries) Space(ctx context.Context, db Queryer, id int64) (store.Space, error) {
	sp := store.Space{ID: id}
	var params string
	var restrictions sql.NullString
	err := db.QueryRowContext(ctx, q.space, id).Scan(&sp.Kernel, &params, &restrictions)
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

// Run returns one run; store.ErrNotFound when none has the id.
func (q *Queries) Run(ctx context.Context, db Queryer, runID int64) (store.RunInfo, error) {
	rows, err := db.QueryContext(ctx, q.run, runID)
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
func (q *Queries) Runs(ctx context.Context, db Queryer, f store.RunFilter) ([]store.RunInfo, error) {
	where, args := sqlrow.RunFilterWhere(f, q.param)
	rows, err := db.QueryContext(ctx, q.selectRuns+where+" ORDER BY r.id", args...)
	if err != nil {
		return nil, err
	}
	return sqlrow.ScanRuns(rows)
}

// Width returns the number of parameters of a run's space, which every configuration
// added to the run must match; store.ErrNotFound when no run has the id. A run's width
// never changes, so it is read once.
func (q *Queries) Width(ctx context.Context, db Queryer, runID int64) (int, error) {
	q.mu.Lock()
	n, ok := q.widths[runID]
	q.mu.Unlock()
	if ok {
		return n, nil
	}
	err := db.QueryRowContext(ctx, q.width, runID).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, store.ErrNotFound
	}
	if err != nil {
		return 0, err
	}
	q.mu.Lock()
	q.widths[runID] = n
	q.mu.Unlock()
	return n, nil
}

// EvaluationsFrom reads a run's evaluations from the one of seq from on, without asking
// whether the run exists.
func (q *Queries) EvaluationsFrom(ctx context.Context, db Queryer, runID int64, from int) ([]result.Evaluation, error) {
	rows, err := db.QueryContext(ctx, q.evaluationsFrom, runID, int64(from))
	if err != nil {
		return nil, err
	}
	return sqlrow.ScanEvaluations(rows, from)
}

// RunEvaluations reads a run's evaluations from the one of seq from on; store.ErrNotFound
// when no run has the id. tx is a read transaction, so that both reads see one snapshot.
func (q *Queries) RunEvaluations(ctx context.Context, tx Queryer, runID int64, from int) ([]result.Evaluation, error) {
	if _, err := q.Run(ctx, tx, runID); err != nil {
		return nil, err
	}
	return q.EvaluationsFrom(ctx, tx, runID, from)
}

// Tally counts a run's evaluations and successes, and of those the successes of
// configurations found wrong in the run, and finds its best success (an OK status
// with an objective; NaN is stored as NULL) of a configuration found wrong nowhere in the
// run (NotFoundWrong), the first of equals in the run's order, as a
// scan of its evaluations would find it: the backend's TallyCount, the run's wrong
// answers and the outcomes of their configurations (foundWrong), and TallyBest, each read
// from an index. tx is a read transaction, so that they see one snapshot.
func (q *Queries) Tally(ctx context.Context, tx Queryer, runID int64) (store.Tally, error) {
	var t store.Tally
	run, err := q.Run(ctx, tx, runID)
	if err != nil {
		return t, err
	}
	var n int64
	var ok sql.NullInt64 // a sum of no rows is NULL
	if err := tx.QueryRowContext(ctx, q.b.TallyCount, runID, result.OK.String()).Scan(&n, &ok); err != nil {
		return t, err
	}
	t.Evaluations, t.Succeeded = int(n), int(ok.Int64)
	if t.Succeeded == 0 {
		return t, nil
	}
	if t.FoundWrong, err = q.foundWrong(ctx, tx, runID); err != nil {
		return t, err
	}
	rows, err := tx.QueryContext(ctx, q.b.TallyBest(run.Maximize), runID, result.OK.String())
	if err != nil {
		return t, err
	}
	defer rows.Close()
	if rows.Next() {
		if t.Best, err = sqlrow.ScanEvaluation(rows); err != nil {
			return t, err
		}
		t.HasBest = true
	}
	return t, rows.Err()
}

// foundWrong counts a run's successes (an OK status with an objective) of configurations
// found wrong in it, a wrong_answer evaluation of the same config_key.
func (q *Queries) foundWrong(ctx context.Context, tx Queryer, runID int64) (int, error) {
	rows, err := tx.QueryContext(ctx, q.wrongKeys, runID, result.WrongAnswer.String())
	if err != nil {
		return 0, err
	}
	var keys []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			rows.Close()
			return 0, err
		}
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	if err := rows.Close(); err != nil {
		return 0, err
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	n := 0
	for _, k := range keys {
		rows, err := tx.QueryContext(ctx, q.configOutcomes, runID, k)
		if err != nil {
			return 0, err
		}
		for rows.Next() {
			var status string
			var objective sql.NullFloat64
			if err := rows.Scan(&status, &objective); err != nil {
				rows.Close()
				return 0, err
			}
			if status == result.OK.String() && objective.Valid {
				n++
			}
		}
		if err := rows.Close(); err != nil {
			return 0, err
		}
		if err := rows.Err(); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// NotFoundWrong is the SQL condition that the configuration of the evaluation alias (a
// row of evaluations) has no wrong_answer evaluation in the run run (an SQL expression,
// the query's parameter): a configuration that a verification, or a check after dynamic
// tuning on later data, found wrong is never a run's best, however fast its other
// evaluations ran (result.Recording.FoundWrong). It matches configurations by config_key,
// as FoundWrong does. Both backends' planners read it from the evaluations_best index's
// range of the run's wrong answers, once for each candidate the best's query reads, which
// is one unless the fastest configurations were found wrong.
func NotFoundWrong(alias, run string) string {
	return `NOT EXISTS (SELECT 1 FROM evaluations w WHERE w.run_id = ` + run + ` AND w.config_key = ` + alias +
		`.config_key AND w.status = '` + result.WrongAnswer.String() + `')`
}

// Lookup finds the first evaluation of config in a run, by store.ConfigKey and then by
// its values, as the store keeps them (sqlrow.ValidValues); store.ErrNotFound when no run
// has the id.
func (q *Queries) Lookup(ctx context.Context, db Queryer, runID int64, config []space.Value) (result.Evaluation, bool, error) {
	config, _ = sqlrow.ValidValues(config)
	rows, err := db.QueryContext(ctx, q.lookup, runID, sqlrow.StorableText(store.ConfigKey(config)))
	if err != nil {
		return result.Evaluation{}, false, err
	}
	if e, ok, err := sqlrow.FindConfig(rows, config); err != nil || ok {
		return e, ok, err
	}
	// A miss on a run that does not exist is a caller's mistake, not a configuration to measure.
	var one int
	err = db.QueryRowContext(ctx, q.runExists, runID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		err = store.ErrNotFound
	}
	return result.Evaluation{}, false, err
}

// Recording reads a run back as a recording. Runs without a format or source (ktune's
// own) read back with format "ktune" and the backend's Source as their source. tx is a
// read transaction, so that the run reads back from one snapshot.
func (q *Queries) Recording(ctx context.Context, tx Queryer, runID int64) (*result.Recording, error) {
	run, err := q.Run(ctx, tx, runID)
	if err != nil {
		return nil, err
	}
	sp, err := q.Space(ctx, tx, run.SpaceID)
	if err != nil {
		return nil, fmt.Errorf("space %d: %w", run.SpaceID, err)
	}
	es, err := q.EvaluationsFrom(ctx, tx, runID, 0)
	if err != nil {
		return nil, err
	}
	return recording.Of(run, sp, es, fmt.Sprintf("%s#run=%d", q.b.Source, runID)), nil
}

// HeldImport returns the first import run that holds the same recording as rec
// (result.Recording.SameAs), or a zero RunInfo. Only the runs of rec's format, kernel,
// device (name and backend) and number of evaluations whose first evaluation has rec's
// first one's status, objective and times are read back to compare: the runs of other
// recordings of one kernel on one device (repeated tunings of the same size) are told
// apart by one row each, where reading each of them back made importing n such files cost
// n²/2 recordings read (250 files of 1,000 evaluations took 520 s in SQLite's store). The
// filter is no stricter than SameAs. rec is compared as the store keeps it
// (recording.Storable).
func (q *Queries) HeldImport(ctx context.Context, tx Queryer, rec *result.Recording) (store.RunInfo, error) {
	rec, err := recording.Storable(rec)
	if err != nil {
		return store.RunInfo{}, err
	}
	return q.heldImport(ctx, tx, rec)
}

// heldImport is HeldImport of a recording that is as the store keeps it.
func (q *Queries) heldImport(ctx context.Context, tx Queryer, rec *result.Recording) (store.RunInfo, error) {
	first := &rec.Evaluations[0]
	rows, err := tx.QueryContext(ctx, q.importCandidates,
		string(store.KindImport), rec.Format, rec.Kernel, rec.Device, rec.Backend,
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
		if r.Evaluations != len(rec.Evaluations) {
			continue
		}
		q.ReadBack.Add(1)
		stored, err := q.Recording(ctx, tx, r.ID)
		if err != nil {
			return store.RunInfo{}, fmt.Errorf("run %d, read back to compare: %w", r.ID, err)
		}
		if stored.SameAs(rec) {
			return r, nil
		}
	}
	return store.RunInfo{}, nil
}

// AddFunc appends evaluations es to a run, whose space has width parameters, inside an
// import's transaction: a backend's own way of writing evaluations.
type AddFunc func(ctx context.Context, runID int64, width int, es []result.Evaluation) error

// Import stores rec as a finished import run inside the transaction tx, its evaluations
// through add, and returns its id; its text as the store keeps it (recording.Storable),
// with a warning of the run for each field that this changed.
func (q *Queries) Import(ctx context.Context, tx Queryer, add AddFunc, rec *result.Recording) (int64, error) {
	rec, err := recording.Storable(rec)
	if err != nil {
		return 0, err
	}
	return q.importStorable(ctx, tx, add, rec)
}

// importStorable is Import of a recording that is as the store keeps it.
func (q *Queries) importStorable(ctx context.Context, tx Queryer, add AddFunc, rec *result.Recording) (int64, error) {
	return recording.Import(ctx, writer{q: q, tx: tx, add: add}, rec)
}

// ImportOnce stores rec as Import does unless an import run holds the same recording
// already (HeldImport), and returns the run that holds it, and whether this call stored
// it. tx is a transaction that holds the backend's lock of imports, so that two processes
// importing one file at once store it once.
func (q *Queries) ImportOnce(ctx context.Context, tx Queryer, add AddFunc, rec *result.Recording) (store.RunInfo, bool, error) {
	rec, err := recording.Storable(rec)
	if err != nil {
		return store.RunInfo{}, false, err
	}
	held, err := q.heldImport(ctx, tx, rec)
	if err != nil || held.ID != 0 {
		return held, false, err
	}
	id, err := q.importStorable(ctx, tx, add, rec)
	if err != nil {
		return store.RunInfo{}, false, err
	}
	run, err := q.Run(ctx, tx, id)
	return run, err == nil, err
}

// writer stores an import's parts in its transaction, for recording.Import.
type writer struct {
	q   *Queries
	tx  Queryer
	add AddFunc
}

func (w writer) PutDevice(ctx context.Context, d store.Device) (int64, error) {
	return w.q.PutDevice(ctx, w.tx, d)
}

func (w writer) PutSpace(ctx context.Context, sp store.Space) (int64, error) {
	return w.q.PutSpace(ctx, w.tx, sp)
}

func (w writer) CreateRun(ctx context.Context, run store.RunInfo) (int64, error) {
	return w.q.CreateRun(ctx, w.tx, run)
}

func (w writer) AddEvaluations(ctx context.Context, runID int64, width int, es []result.Evaluation) error {
	return w.add(ctx, runID, width, es)
}
