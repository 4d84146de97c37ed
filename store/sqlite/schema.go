package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/ktune/ktune/store"
	"github.com/ktune/ktune/store/internal/sqlstore"
)

// applicationID marks a database file as ktune's ("ktun"), so ktune refuses to write its
// tables into some other program's SQLite file.
const applicationID = 0x6b74756e

// migrations[v] turns a schema of version v into version v+1; len(migrations) is the
// version this ktune writes. Append to evolve the schema; never edit a released step.
var migrations = []func(ctx context.Context, tx *sql.Tx) error{
	execStep(schemaV1),
	execStep(schemaV2),
	execStep(schemaV3),
	execStep(schemaV4),
	execStep(schemaV5),
	execStep(schemaV6),
	execStep(schemaV7),
}

// SchemaVersion is the schema version this ktune writes (PRAGMA user_version); it equals
// len(migrations).
const SchemaVersion = 7

func execStep(script string) func(ctx context.Context, tx *sql.Tx) error {
	return func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, script)
		return err
	}
}

// schemaV1 is the first schema. Conventions: times are INTEGER Unix nanoseconds (NULL when
// unknown), REAL NULL stands for NaN (SQLite cannot store NaN), JSON lives in TEXT.
const schemaV1 = `
CREATE TABLE devices (
	id         INTEGER PRIMARY KEY,
	name       TEXT NOT NULL,
	backend    TEXT NOT NULL DEFAULT '',
	properties TEXT,                      -- JSON object
	UNIQUE (name, backend)
);

CREATE TABLE spaces (
	id           INTEGER PRIMARY KEY,
	hash         TEXT NOT NULL UNIQUE,    -- store.Space.Hash: the same space is stored once
	kernel       TEXT NOT NULL,
	params       TEXT NOT NULL,           -- JSON [{"name": ..., "values": [typed values]}]
	restrictions TEXT                     -- JSON array of expressions
);

CREATE TABLE runs (
	id               INTEGER PRIMARY KEY,
	space_id         INTEGER NOT NULL REFERENCES spaces (id),
	device_id        INTEGER NOT NULL REFERENCES devices (id),
	kind             TEXT NOT NULL,       -- tuning, simulation, import
	strategy         TEXT NOT NULL DEFAULT '',
	strategy_options TEXT,                -- JSON object
	seed             INTEGER NOT NULL DEFAULT 0, -- uint64 bits
	objective        TEXT NOT NULL,
	direction        TEXT NOT NULL,       -- min or max
	problem_size     TEXT NOT NULL DEFAULT '',
	started          INTEGER NOT NULL,
	finished         INTEGER,
	status           TEXT NOT NULL,       -- running, finished, interrupted
	source           TEXT NOT NULL DEFAULT '',
	format           TEXT NOT NULL DEFAULT '',
	settings         TEXT,                -- JSON object
	warnings         TEXT                 -- JSON array of strings
);
CREATE INDEX runs_space ON runs (space_id);
CREATE INDEX runs_device ON runs (device_id);

CREATE TABLE evaluations (
	id           INTEGER PRIMARY KEY,
	run_id       INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	seq          INTEGER NOT NULL,        -- 0, 1, 2... in the order the run added them
	config       TEXT NOT NULL,           -- JSON array of typed values, one per parameter
	config_key   TEXT NOT NULL,           -- store.ConfigKey: values' str() joined by ","
	status       TEXT NOT NULL,           -- result.Status names
	objective    REAL,
	samples      BLOB,                    -- little-endian float64s
	metrics      TEXT,                    -- JSON object; "NaN", "Infinity" for non-finite
	compile_ms   REAL,
	verify_ms    REAL,
	benchmark_ms REAL,
	framework_ms REAL,
	message      TEXT NOT NULL DEFAULT '',
	time         INTEGER,
	UNIQUE (run_id, seq)
);
CREATE INDEX evaluations_config ON evaluations (run_id, config_key, seq); -- seq: Lookup's ORDER BY uses it too
`

// schemaV2 gives every evaluation the time the search strategy spent choosing it
// (Kernel Tuner's strategy_time), which tuning runs record from now on. Evaluations of
// runs stored before have none (NULL). Imports kept a file's strategy time among the
// metrics; it moves to the column, as imports store it from now on (a non-finite value,
// meaningless as a time, is dropped).
const schemaV2 = `
ALTER TABLE evaluations ADD COLUMN strategy_ms REAL;
UPDATE evaluations SET
	strategy_ms = CASE WHEN json_type(metrics, '$.strategy_time') IN ('integer', 'real')
		THEN json_extract(metrics, '$.strategy_time') END,
	metrics = nullif(json_remove(metrics, '$.strategy_time'), '{}')
WHERE json_valid(metrics) AND json_type(metrics, '$.strategy_time') IS NOT NULL;
`

// schemaV3 gives every evaluation its launch (result.Launch): the grid and block, in CUDA
// terms, that tuning runs record from now on and imports take from a KTT file's
// GlobalSize and LocalSize. Evaluations stored before have none (NULL, all six).
const schemaV3 = `
ALTER TABLE evaluations ADD COLUMN grid_x INTEGER;
ALTER TABLE evaluations ADD COLUMN grid_y INTEGER;
ALTER TABLE evaluations ADD COLUMN grid_z INTEGER;
ALTER TABLE evaluations ADD COLUMN block_x INTEGER;
ALTER TABLE evaluations ADD COLUMN block_y INTEGER;
ALTER TABLE evaluations ADD COLUMN block_z INTEGER;
`

// schemaV4 gives every evaluation the warnings its compiler printed for a build that
// succeeded (result.Evaluation.Warnings), which tuning runs record from now on.
// Evaluations stored before have none (NULL).
const schemaV4 = `
ALTER TABLE evaluations ADD COLUMN warnings TEXT;
`

// schemaV5 gives every evaluation how many consecutive timed runs each of its samples
// is the statistic of (result.Evaluation.RunsPerSample; NULL when unknown), which
// tuning runs record from now on. Evaluations stored before get it as they said it:
// the number in the note of one whose runs went on for the spec's min_time ("each of
// its 32 samples is the mean of 40 consecutive runs"), else 1 for a successful
// evaluation of a tuning run, which ktune timed a run per sample; else, an imported or
// simulated evaluation or a failure, NULL.
const schemaV5 = `
ALTER TABLE evaluations ADD COLUMN runs_per_sample INTEGER;
UPDATE evaluations SET runs_per_sample = ` + oldRunsPerSample + `
WHERE status = 'ok' OR instr(message, 'for min_time ') > 0;
`

// schemaV6 indexes a run's evaluations by status and objective, so that a run's tally
// (its count, successes and best: Store.Tally, read by 'ktune runs' and on every poll of
// the dashboard's live view) reads the index alone, not every row of the run: the count
// and successes from the index, the best as its first entry in objective order (seq
// breaks ties as the run's order does). Nothing else changes.
const schemaV6 = `
CREATE INDEX evaluations_best ON evaluations (run_id, status, objective, seq);
`

// schemaV7 gives every evaluation the device that measured it (result.Evaluation.Device,
// "opencl:1"), which tuning runs record from now on, so that a run on several devices
// tells which measured what. Evaluations stored before have none (NULL): a run's device
// (runs.device_id) is the first of its devices, not necessarily the one that measured.
const schemaV7 = `
ALTER TABLE evaluations ADD COLUMN device TEXT;
`

// oldRunsPerSample is the runs per sample schemaV5 gives an evaluation stored before, as
// result.Evaluation.SampleRuns reads a min_time note: the integer after " of " that
// follows " samples is the " (CAST reads the number that starts a text).
const oldRunsPerSample = `CASE
	WHEN instr(message, 'for min_time ') > 0 AND instr(message, ' samples is the ') > 0
		AND ` + notedRuns + ` >= 1 THEN ` + notedRuns + `
	WHEN status = 'ok' AND (SELECT kind FROM runs WHERE runs.id = evaluations.run_id) = 'tuning' THEN 1
END`

const (
	afterStatistic = `substr(message, instr(message, ' samples is the ') + 16)`
	notedRuns      = `CAST(substr(` + afterStatistic + `, instr(` + afterStatistic + `, ' of ') + 4) AS INTEGER)`
)

// otherDatabase says what to do about a file that is no ktune database.
const otherDatabase = "give the path of a ktune results database, or a new path to create one"

// schemaCurrent reports whether the database has this ktune's schema, reading it outside
// any transaction, so that it takes no lock a writer holds; it fails on another program's
// database and on a newer schema.
func schemaCurrent(ctx context.Context, q sqlstore.Queryer) (bool, error) {
	_, current, err := readSchema(ctx, q)
	return current, err
}

// readSchema reads the schema version, and whether it is current; it fails on another
// program's database and on a newer schema.
func readSchema(ctx context.Context, q sqlstore.Queryer) (version int, current bool, err error) {
	var appID, objects int
	if err := q.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		if isNotADatabase(err) { // a recording or any other file given for the database
			return 0, false, fmt.Errorf("not a ktune database: the file is not an SQLite database (%w); %s", err, otherDatabase)
		}
		return 0, false, err
	}
	if err := q.QueryRowContext(ctx, "PRAGMA application_id").Scan(&appID); err != nil {
		return 0, false, err
	}
	if err := q.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema").Scan(&objects); err != nil {
		return 0, false, err
	}
	switch {
	case appID != applicationID && (appID != 0 || version != 0 || objects != 0):
		return 0, false, fmt.Errorf("not a ktune database (application_id %#x, schema version %d, %d schema objects), and ktune leaves it alone; %s",
			appID, version, objects, otherDatabase)
	case version > SchemaVersion:
		return 0, false, fmt.Errorf("%w: the database has schema version %d, this ktune writes version %d; use a newer ktune",
			store.ErrNewerSchema, version, SchemaVersion)
	}
	return version, version == SchemaVersion, nil
}

// migrate brings the database to SchemaVersion in one transaction, so a crash mid-way
// leaves the old version intact.
func migrate(ctx context.Context, db *sql.DB) (err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	version, current, err := readSchema(ctx, tx)
	if err != nil {
		return err
	}
	if current { // another process migrated it meanwhile
		return tx.Rollback()
	}
	for v := version; v < SchemaVersion; v++ {
		if err := migrations[v](ctx, tx); err != nil {
			return fmt.Errorf("migrate schema from version %d to %d: %w", v, v+1, err)
		}
	}
	// PRAGMA takes no bound parameters; both values are integers this file controls.
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", SchemaVersion)); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d", applicationID)); err != nil {
		return err
	}
	return tx.Commit()
}
