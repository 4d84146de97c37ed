// Package postgres is ktune's results store on a PostgreSQL server, shared by every ktune
// process, on any machine, that tunes into one database, written through
// github.com/jackc/pgx/v5 (its database/sql driver; pure Go, so ktune stays a static
// binary).
//
// Importing the package registers it with store.Open for the locations
// "postgres://user@host:port/database?options" and "postgresql://...", which are libpq
// connection URLs (password, sslmode, host=/socket/dir, search_path, and the PG*
// environment variables and ~/.pgpass as libpq reads them).
//
// Durability and concurrency: each AddEvaluation is one transaction, committed when it
// returns (durable as the server's synchronous_commit makes commits). Any number of
// processes may write at once: a run's evaluations are numbered by a counter in the run's
// row, which the insert updates, so that writers to one run take turns for the moment of
// their insert and the numbers stay dense and in commit order; writers to different runs
// do not wait for each other. Readers never wait for writers, and read one snapshot per
// call. Runs are held by the tuning process with PostgreSQL advisory locks (see LockRun),
// which the server releases when the process's connection ends.
//
// Reading writes nothing: a database without ktune's tables reads as an empty store (no
// runs; a run, space or device is store.ErrNotFound), and its first write (a device, a
// space, a run, an import) creates them, so that a command that only reads ('ktune runs',
// 'report', 'analyze', 'export --run', the dashboard) leaves a database as it found it
// and works for a role that may only read (CONNECT, and SELECT on the tables once they
// exist). Open brings an older schema up to date at once, as SQLite's store does, when
// the role may (it owns ktune's tables, on a server that takes writes); a role that may
// not reads an older schema as it is, what later versions added reading as unknown (an
// evaluation of schema 1 has no device), and its writes fail with store.ErrReadOnly.
//
// What differs from SQLite: there is no file, so nothing of the file checks (a file
// deleted while tuning, its -wal and -shm files, its -runlock file, a read-only file or
// folder) applies; a role that may not write the tables gets store.ErrReadOnly on writes,
// as a read-only SQLite file does, but a database whose tables are missing needs a role
// that may create tables once, and one of an older schema the tables' owner once, before
// it takes writes. The schema has versions of its own
// (SchemaVersion).
//
// Text: PostgreSQL's text cannot hold a NUL byte, nor bytes that are not UTF-8. Every
// store keeps text as UTF-8 (package sqlrow's text rules), so that a run reads back the
// same from either: U+FFFD in place of each NUL byte and each run of other bytes in a
// message, a name or settings, rather than losing a measurement or refusing a file in
// Latin-1; a parameter's string values keep their NUL bytes (escaped in JSON), and two
// distinct values that would become one are refused, not merged.
package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/ktune/ktune/store"
	"github.com/ktune/ktune/store/internal/sqlstore"
)

func init() {
	open := func(ctx context.Context, location string) (store.Store, error) {
		s, err := Open(ctx, location)
		if err != nil {
			return nil, err
		}
		return s, nil
	}
	store.Register("postgres", open)
	store.Register("postgresql", open)
}

// maxConns bounds the connections one store opens: a tuning process needs few, and a
// server accepts about a hundred by default, shared by every process tuning into it.
const maxConns = 4

// Advisory lock keys: PostgreSQL's two-key advisory locks, the first key ktune's
// (lockSpace, "ktun"), so that another program's advisory locks in the same database do
// not collide with ktune's. The second is a run's id (non-negative; a run id above 2^31
// changes the first key as well: lockKey), or one of these.
const (
	lockSpace    int32 = 0x6b74756e
	migrationKey int32 = -1 // held while a process migrates the schema
	importKey    int32 = -2 // held while ImportRecordingOnce looks for and stores a recording
)

// Store is a results database on a PostgreSQL server. See the package documentation for
// its durability and concurrency guarantees.
type Store struct {
	location string // as given, for lock connections
	name     string // the location without its password, for messages and sources
	db       *sql.DB

	// queries runs the statements that PostgreSQL's store shares with the other SQL
	// stores, in PostgreSQL's words for the schema version the store reads (q).
	queries atomic.Pointer[sqlstore.Queries]
	// old is the older schema version that this store reads as it is, for a role that may
	// not migrate it; 0 when the schema is current (or not there yet).
	old atomic.Int32

	locks runLocks

	// noTables is set while the database holds none of ktune's tables: they are left to
	// the first write (writable), and reads meanwhile find nothing (empty).
	noTables atomic.Bool
}

var _ store.Store = (*Store)(nil)

// Open connects to the PostgreSQL database at location (a postgres:// or postgresql://
// URL) and brings its schema up to date; a database without ktune's tables is left
// without them until the store's first write, so that opening it to read writes nothing.
// It fails with store.ErrNewerSchema on a database written by a newer ktune, and refuses
// a database whose tables of ktune's names belong to another program.
func Open(ctx context.Context, location string) (*Store, error) {
	name := Redact(location)
	cfg, err := pgx.ParseConfig(location)
	if err != nil {
		return nil, fmt.Errorf("store: open postgres %s: %w", name, err)
	}
	db := stdlib.OpenDB(*cfg)
	db.SetMaxOpenConns(maxConns)
	db.SetMaxIdleConns(maxConns)
	db.SetConnMaxIdleTime(5 * time.Minute)
	s := &Store{location: location, name: name, db: db}
	s.queries.Store(queries(name, SchemaVersion))
	s.locks.s = s
	version, current, err := readSchema(ctx, db)
	switch {
	case err == nil:
	case ctx.Err() == nil && sqlState(err) == "":
		err = fmt.Errorf("cannot reach the server: %w", err)
	case isReadOnly(err):
		err = fmt.Errorf("this role may not read ktune's tables (%w); let it: GRANT SELECT ON ALL TABLES IN SCHEMA %s TO %s",
			err, schemaName(ctx, db), cfg.User)
	}
	switch {
	case err != nil || current:
	case version == 0:
		s.noTables.Store(true)
	default:
		err = s.upgrade(ctx, version)
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("store: open postgres %s: %w", name, err)
	}
	return s, nil
}

// migrate brings the database's schema up to date, saying what to do when this role may
// not.
func (s *Store) migrate(ctx context.Context) error {
	err := migrate(ctx, s.db)
	if err != nil && isReadOnly(err) {
		return fmt.Errorf("%w: the database has no ktune schema of version %d yet, and this role may not create it (%w); write to it once as a role that may create tables (ktune import, ktune tune)",
			store.ErrReadOnly, SchemaVersion, err)
	}
	return err
}

// queries words the statements shared with the other SQL stores for a database of schema
// version v, named name.
func queries(name string, v int) *sqlstore.Queries {
	cols := selectColumns(v)
	return sqlstore.New(sqlstore.Backend{
		Numbered:       true,
		ParamsJSON:     "s.params::json",
		RunEvaluations: runEvaluations,
		Columns:        cols,
		TallyCount:     tallyCountQuery,
		TallyBest:      func(maximize bool) string { return tallyBest(cols, maximize) },
		IsForeignKey:   isForeignKey,
		Source:         name,
	})
}

// q returns the shared statements for the schema version that the store reads.
func (s *Store) q() *sqlstore.Queries { return s.queries.Load() }

// upgrade brings a database of the older schema version to the current one when this
// role may (mayMigrate); a role that may not reads it as it is, as SQLite's store reads a
// read-only file of an older schema: what later versions added reads as unknown, and
// writes fail with store.ErrReadOnly. The migration is not attempted then, which would
// fail, or wait for a lock, for nothing.
func (s *Store) upgrade(ctx context.Context, version int) error {
	may, err := mayMigrate(ctx, s.db)
	if err != nil {
		return err
	}
	if may {
		return s.migrate(ctx)
	}
	s.queries.Store(queries(s.name, version))
	s.old.Store(int32(version))
	return nil
}

// writable creates ktune's tables before the first write to a database that has none, and
// refuses writes to a database of an older schema that this role may not migrate.
func (s *Store) writable(ctx context.Context) error {
	if old := s.old.Load(); old != 0 {
		return fmt.Errorf("%w: the database has ktune schema version %d, which this ktune reads but writes version %d only, and this role may not upgrade it; open it once as the role that owns ktune's tables (ktune runs will do), then write",
			store.ErrReadOnly, old, SchemaVersion)
	}
	if !s.noTables.Load() {
		return nil
	}
	if err := s.migrate(ctx); err != nil {
		return fmt.Errorf("create ktune's tables: %w", err)
	}
	s.noTables.Store(false)
	return nil
}

// empty reports whether the database still holds none of ktune's tables, for a read to
// find nothing without a query that names them; once another process has created them,
// it reads them.
func (s *Store) empty(ctx context.Context) (bool, error) {
	if !s.noTables.Load() {
		return false, nil
	}
	version, current, err := readSchema(ctx, s.db)
	switch {
	case err != nil:
		return false, err
	case version == 0:
		return true, nil
	case !current: // an older ktune created them meanwhile: as Open would
		if err := s.upgrade(ctx, version); err != nil {
			return false, err
		}
	}
	s.noTables.Store(false)
	return false, nil
}

// schemaName is the schema that search_path selects, for messages ("public" when it
// cannot be read).
func schemaName(ctx context.Context, db *sql.DB) string {
	var name sql.NullString
	if err := db.QueryRowContext(ctx, `SELECT current_schema()`).Scan(&name); err != nil || !name.Valid {
		return "public"
	}
	return name.String
}

// readable is nil when the database holds ktune's tables, and store.ErrNotFound, for a
// read of one run, space or device, while it holds none.
func (s *Store) readable(ctx context.Context) error {
	none, err := s.empty(ctx)
	if err == nil && none {
		err = store.ErrNotFound
	}
	return err
}

// Redact returns location with its password, if any, replaced by "xxxxx", as it may
// appear in messages and in sources of exported recordings.
func Redact(location string) string {
	u, err := url.Parse(location)
	if err != nil {
		// not a URL that a password could be told apart in: only what follows the user
		if _, host, found := strings.Cut(location, "@"); found {
			return store.Scheme(location) + "://…@" + host
		}
		return location
	}
	if u.User == nil {
		return location
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	q := u.Query()
	if q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// Location returns the database's location without its password.
func (s *Store) Location() string { return s.name }

// Close releases the run locks this store holds and closes its connections; in-flight
// calls fail.
func (s *Store) Close() error {
	errs := []error{s.locks.close(), s.db.Close()}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("store: close postgres %s: %w", s.name, err)
	}
	return nil
}

// txn is a transaction on one connection of the pool, whose pgx connection copyFrom
// reaches for the COPY protocol, which database/sql does not offer.
type txn struct {
	*sql.Tx
	conn *sql.Conn
}

// inTx runs f in a transaction on a connection of db, committing if f succeeds.
func inTx(ctx context.Context, db *sql.DB, opts *sql.TxOptions, f func(tx txn) error) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close() // back to the pool
	tx, err := conn.BeginTx(ctx, opts)
	if err != nil {
		return err
	}
	if err := f(txn{Tx: tx, conn: conn}); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// copyFrom sends rows into table's columns with PostgreSQL's COPY protocol, inside the
// transaction (COPY FROM STDIN on its connection), and returns how many it stored.
func (tx txn) copyFrom(ctx context.Context, table string, columns []string, rows pgx.CopyFromSource) (int64, error) {
	var n int64
	err := tx.conn.Raw(func(driverConn any) error {
		c, ok := driverConn.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("copy into %s: the connection is a %T, not pgx's", table, driverConn)
		}
		var err error
		n, err = c.Conn().CopyFrom(ctx, pgx.Identifier{table}, columns, rows)
		return err
	})
	return n, err
}

// readTx runs f in a read-only transaction that sees one snapshot of the database even
// while writers commit (REPEATABLE READ: READ COMMITTED would take one per statement).
func readTx(ctx context.Context, db *sql.DB, f func(tx *sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	return f(tx)
}

// sqlState returns the SQLSTATE of a server's error, or "".
func sqlState(err error) string {
	var e *pgconn.PgError
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// isReadOnly reports whether err is the server refusing a write: this role may not write
// the table (insufficient_privilege), or the server or transaction is read-only (a hot
// standby, default_transaction_read_only).
func isReadOnly(err error) bool {
	c := sqlState(err)
	return c == "42501" || c == "25006"
}

// isForeignKey reports whether err is the server refusing a row that names a missing parent.
func isForeignKey(err error) bool { return sqlState(err) == "23503" }

// written turns the server's refusal of a write into store.ErrReadOnly, saying why.
func (s *Store) written(err error) error {
	if err != nil && isReadOnly(err) && !errors.Is(err, store.ErrReadOnly) {
		return fmt.Errorf("%w: %s refuses this write (%w)", store.ErrReadOnly, s.name, err)
	}
	return err
}
