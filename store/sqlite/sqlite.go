// Package sqlite is ktune's default results store: one SQLite file, written through the
// pure-Go driver modernc.org/sqlite so that ktune stays a static binary (CGO_ENABLED=0).
//
// Importing the package registers it with store.Open for "sqlite:path" and bare paths.
//
// Durability and concurrency: the database runs in WAL mode with synchronous=NORMAL, so
// every committed evaluation survives a killed process (not necessarily a power cut), and
// readers never wait for the writer. A Store keeps one connection for writes, which
// serialises writing goroutines, and a pool of read-only connections for readers, so one
// tuning session can write while the dashboard and analysis read. Other processes may
// open the same file; SQLite's locking and the busy timeout arbitrate between them.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"

	driver "modernc.org/sqlite" // registers the "sqlite" database/sql driver
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/ktune/ktune/store"
)

func init() {
	store.Register("sqlite", func(ctx context.Context, location string) (store.Store, error) {
		s, err := Open(ctx, PathOf(location))
		if err != nil {
			return nil, err
		}
		return s, nil
	})
}

// busyTimeoutMS is how long a statement waits for another process's write lock before
// failing: long enough for a concurrent import of a large recording to finish.
const busyTimeoutMS = 10000

// Store is a results database in one SQLite file. See the package documentation for its
// durability and concurrency guarantees.
type Store struct {
	path string
	w    *sql.DB // exactly one connection: every write goes through it
	r    *sql.DB // read-only connections

	add *sql.Stmt // AddEvaluation's insert, prepared once for the hot path

	mu     sync.Mutex
	widths map[int64]int // parameters per run, to reject configurations of the wrong length
}

var _ store.Store = (*Store)(nil)

// PathOf turns a store location ("sqlite:results.db", "sqlite:///abs/results.db" or a bare
// path) into a file path.
func PathOf(location string) string {
	if rest, ok := strings.CutPrefix(location, "sqlite:"); ok {
		if strings.HasPrefix(rest, "//") {
			rest = rest[2:]
		}
		return rest
	}
	return location
}

// Open opens or creates the database file at path and brings its schema up to date.
// It fails with store.ErrNewerSchema on a database written by a newer ktune.
func Open(ctx context.Context, path string) (*Store, error) {
	if path == "" || path == ":memory:" || strings.HasPrefix(path, "file:") {
		// Writer and readers use separate connections, which an in-memory database would
		// not share; a URI would bypass the settings below.
		return nil, fmt.Errorf("store: open sqlite %q: need a plain file path", path)
	}
	// A file: URI with an escaped path, so that '?' and '#' in a file name stay in the name.
	uri := "file:" + (&url.URL{Path: path}).EscapedPath()
	shared := fmt.Sprintf("_busy_timeout=%d&_foreign_keys=1", busyTimeoutMS)
	// BEGIN IMMEDIATE takes the write lock up front; a deferred BEGIN that upgrades later
	// can fail with SQLITE_BUSY without waiting when another process is writing.
	w, err := sql.Open("sqlite", uri+"?"+shared+"&_journal_mode=WAL&_synchronous=NORMAL&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("store: open sqlite %q: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	w.SetConnMaxIdleTime(0)
	s := &Store{path: path, w: w, widths: map[int64]int{}}
	if err := migrate(ctx, w); err != nil {
		w.Close()
		return nil, fmt.Errorf("store: open sqlite %q: %w", path, err)
	}
	// Readers open only after migrate has switched the file to WAL.
	r, err := sql.Open("sqlite", uri+"?"+shared+"&_query_only=1")
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("store: open sqlite %q: %w", path, err)
	}
	s.r = r
	if s.add, err = w.PrepareContext(ctx, insertEvaluationNext); err != nil {
		s.Close()
		return nil, fmt.Errorf("store: open sqlite %q: prepare: %w", path, err)
	}
	return s, nil
}

// Path returns the database file's path.
func (s *Store) Path() string { return s.path }

// Close closes the database; in-flight calls fail.
func (s *Store) Close() error {
	var errs []error
	if s.add != nil {
		errs = append(errs, s.add.Close())
	}
	if s.r != nil {
		errs = append(errs, s.r.Close())
	}
	// Closing the last connection checkpoints the WAL into the main file.
	errs = append(errs, s.w.Close())
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("store: close sqlite %q: %w", s.path, err)
	}
	return nil
}

// queryer is what both *sql.DB and *sql.Tx offer, so a step can run alone or inside an
// import's transaction.
type queryer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
}

// inTx runs f in a transaction on db, committing if f succeeds.
func inTx(ctx context.Context, db *sql.DB, f func(tx *sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := f(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// isForeignKey reports whether err is SQLite refusing a row that names a missing parent.
func isForeignKey(err error) bool {
	var e *driver.Error
	return errors.As(err, &e) && e.Code() == sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY
}
