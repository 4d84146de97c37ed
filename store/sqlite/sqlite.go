// Package sqlite is ktune's default results store: one SQLite file, written through the
// pure-Go driver modernc.org/sqlite so that ktune stays a static binary (CGO_ENABLED=0).
//
// Importing the package registers it with store.Open for "sqlite:path" and bare paths.
//
// Durability and concurrency: the database runs in WAL mode with synchronous=NORMAL, so
// every committed evaluation survives a killed process (not necessarily a power cut), and
// readers never wait for the writer. A store adding evaluations copies the log into the
// database file every few seconds, so that the file alone holds all but the latest. A Store keeps one connection for writes, which
// serialises writing goroutines, and a pool of read-only connections for readers, so one
// tuning session can write while analyses and reports read. Other processes may
// open the same file; SQLite's locking arbitrates between them: a write waits for another
// process's write lock (a large import holds it for minutes) instead of failing, logs
// that it waits once it has waited a few seconds, and stops waiting promptly when its
// context ends. A file or folder this process may not write opens read-only.
package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	driver "modernc.org/sqlite" // registers the "sqlite" database/sql driver
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/ktune/ktune/store"
	"github.com/ktune/ktune/store/internal/sqlstore"
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

// How writes wait for another process's write lock. A large import holds it for its whole
// transaction (minutes for a million entries), and a tuning run must not lose a
// measurement to it, so a write keeps trying for writeWait, saying in the log once it has
// waited writeNotice. Each try waits writeAttempt inside SQLite, whose wait no context
// interrupts; between tries the write observes its context, so that a cancelled write
// (Ctrl-C) stops waiting within writeAttempt. Readers never wait for writers in WAL mode,
// only for the rare moments of recovery: readBusy. Variables so that tests can shorten
// them.
var (
	readBusy     = 5 * time.Second
	writeAttempt = 250 * time.Millisecond
	writeNotice  = 3 * time.Second
	writeWait    = 30 * time.Minute
)

// foldEvery is how often at most a store that adds evaluations copies the write-ahead log
// into the database file (fold). SQLite does so by itself only once the log holds 1000
// pages, a few hundred evaluations, hours of tuning for slow kernels; until then they are
// in the -wal file alone, and a database copied, moved or backed up without it after a
// killed run, or whose -wal and -shm were deleted as leftovers, loses them all. Folding
// every few seconds bounds that to the last few seconds' evaluations. A variable so that
// tests can fold at every write.
var foldEvery = 2 * time.Second

// Store is a results database in one SQLite file. See the package documentation for its
// durability and concurrency guarantees.
type Store struct {
	path string
	w    *sql.DB // exactly one connection: every write goes through it; nil when read-only
	r    *sql.DB // read-only connections

	add *sql.Stmt // AddEvaluation's insert, prepared once for the hot path

	// readOnly says why the database was opened read-only ("" when writable).
	readOnly string
	// version is the schema version the database has: SchemaVersion, or an older one
	// opened read-only, which cannot be upgraded and is read as it is.
	version int

	// q runs the statements that SQLite's store shares with the other SQL stores, in
	// SQLite's words for a database of the schema version.
	q *sqlstore.Queries

	mu     sync.Mutex
	folded time.Time // when fold last copied the write-ahead log into the file
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
//
// Opening a database whose schema is current takes no write lock, so it never waits for
// another process's writing. A database that this process may not write (the file or its
// folder is read-only) opens read-only: reads work, and writes fail with
// store.ErrReadOnly and the reason.
func Open(ctx context.Context, path string) (*Store, error) {
	if path == "" || path == ":memory:" || strings.HasPrefix(path, "file:") {
		// Writer and readers use separate connections, which an in-memory database would
		// not share; a URI would bypass the settings below.
		return nil, fmt.Errorf("store: open sqlite %q: need a plain file path", path)
	}
	_, err := os.Lstat(path)
	created := errors.Is(err, fs.ErrNotExist) // a file that this call makes, if any
	if err := lostLog(path); err != nil {
		return nil, fmt.Errorf("store: open sqlite %q: %w", path, err)
	}
	readOnly, err := inspect(path)
	if err != nil {
		return nil, fmt.Errorf("store: open sqlite %q: %w", path, err)
	}
	s := &Store{path: path, readOnly: readOnly, version: SchemaVersion}
	if readOnly != "" {
		if s.r, s.version, err = openReader(ctx, path); err != nil {
			return nil, fmt.Errorf("store: open sqlite %q read-only (%s): %w", path, readOnly, whyDamaged(whyFull(err, path), path))
		}
		s.q = queries(path, s.version)
		return s, nil
	}
	s.q = queries(path, s.version)
	// BEGIN IMMEDIATE takes the write lock up front; a deferred BEGIN that upgrades later
	// can fail with SQLITE_BUSY without waiting when another process is writing.
	w, err := sql.Open("sqlite", uriOf(path)+"?"+sharedParams(writeAttempt)+"&_synchronous=NORMAL&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("store: open sqlite %q: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	w.SetConnMaxIdleTime(0)
	s.w = w
	// The schema version is read first, without a lock that waits for writers; only a
	// database that needs a migration takes the write lock.
	current, err := schemaCurrent(ctx, w)
	if err == nil {
		// Only now, on ktune's own database or a new one: the journal mode is kept in the
		// file, and switching another program's SQLite file, which schemaCurrent refuses,
		// would change it.
		err = s.write(ctx, "switch to write-ahead logging", func(w *sql.DB) error { return useWAL(ctx, w) })
	}
	if err == nil && !current {
		err = s.write(ctx, "migrate the schema", func(w *sql.DB) error { return migrate(ctx, w) })
	}
	if err != nil {
		err = whyDamaged(whyFull(err, path), path) // before what was created is removed
		w.Close()
		if created {
			removeEmpty(path)
		}
		return nil, fmt.Errorf("store: open sqlite %q: %w", path, err)
	}
	// Readers open only after migrate has switched the file to WAL.
	r, err := sql.Open("sqlite", uriOf(path)+"?"+sharedParams(readBusy)+"&_query_only=1")
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("store: open sqlite %q: %w", path, err)
	}
	s.r = r
	if s.add, err = w.PrepareContext(ctx, insertEvaluationNext); err != nil {
		s.Close()
		return nil, fmt.Errorf("store: open sqlite %q: prepare: %w", path, whyDamaged(whyFull(err, path), path))
	}
	return s, nil
}

// useWAL puts the database in write-ahead-log mode, in which readers never wait for the
// writer; a database in that mode already is left as it is, without a lock.
func useWAL(ctx context.Context, w *sql.DB) error {
	var mode string
	if err := w.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return err
	}
	if strings.EqualFold(mode, "wal") {
		return nil
	}
	_, err := w.ExecContext(ctx, "PRAGMA journal_mode = WAL")
	return err
}

// removeEmpty removes the database file at path, which creating failed (a full disk), and
// its side files, while it holds nothing: no table (the file is empty, or its one page
// holds no schema) and no -wal holds commits. A failed creation leaves no empty database
// behind, which the next command would take for one.
func removeEmpty(path string) {
	if !holdsNothing(path) {
		return
	}
	if wal, err := os.Lstat(path + "-wal"); err == nil && wal.Size() > 0 {
		return
	}
	for _, f := range []string{path, path + "-wal", path + "-shm", path + "-journal"} {
		if err := os.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			slog.Debug("store: removing what a failed creation left", "file", f, "error", err)
		}
	}
}

// lostLog says that the database's write-ahead log (path-wal) was deleted, or moved away,
// while it held commits not yet copied into the file, such as the last evaluations of a
// killed run: its index (path-shm), which SQLite leaves beside it when a process is killed,
// is there and says so, and the log is not. SQLite would open the database without them
// and rebuild the index, after which a log put back is no longer read; so the database is
// not opened, and the error says how to keep them or go on without them. While any process
// has the database open its log exists, and a process that closes it cleanly copies every
// commit into the file before it deletes the log: neither reads as lost.
func lostLog(path string) error {
	if _, err := os.Lstat(path + "-wal"); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	f, err := os.Open(path + "-shm")
	if err != nil {
		return nil
	}
	defer f.Close()
	// SQLite's wal-index header, twice (48 bytes each, in the machine's byte order), then
	// how far the log has been copied into the database (nBackfill): wal.c's WalIndexHdr
	// and WalCkptInfo.
	var h [100]byte
	if _, err := io.ReadFull(f, h[:]); err != nil {
		return nil
	}
	initialised := h[12] == 1
	frames := binary.NativeEndian.Uint32(h[16:20])
	copied := binary.NativeEndian.Uint32(h[96:100])
	if !initialised || !bytes.Equal(h[:48], h[48:96]) || frames <= copied {
		return nil // nothing waited in the log, or the index cannot be read: SQLite decides
	}
	return fmt.Errorf("its write-ahead log %s-wal is missing, but %s-shm says that the log held %d pages of commits not yet in the database file "+
		"(the last writes of a process that was killed, such as the latest evaluations of a run): to keep them, put the -wal file back beside the database, "+
		"as it was (a database and its -wal are copied and moved together); to open the database without them, delete %s-shm", path, path, frames-copied, path)
}

// holdsNothing reports whether the regular file at path is empty or an SQLite database of
// one page, which holds no table: each table has a page of its own.
func holdsNothing(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	if fi.Size() == 0 {
		return true
	}
	var h [100]byte // the database header
	if _, err := io.ReadFull(f, h[:]); err != nil || string(h[:16]) != "SQLite format 3\x00" {
		return false
	}
	pageSize := int64(binary.BigEndian.Uint16(h[16:18]))
	if pageSize == 1 {
		pageSize = 65536
	}
	return fi.Size() <= pageSize && binary.BigEndian.Uint32(h[28:32]) <= 1
}

// uriOf is a file: URI with an escaped path, so that '?' and '#' in a file name stay in
// the name.
func uriOf(path string) string {
	return "file:" + (&url.URL{Path: path}).EscapedPath()
}

func sharedParams(busy time.Duration) string {
	return fmt.Sprintf("_busy_timeout=%d&_foreign_keys=1", busy.Milliseconds())
}

// openReader opens a database that this process may not write. SQLite reads a WAL
// database read-only (mode=ro) as long as its -shm file exists or can be created; in a
// read-only folder without one, nobody can be writing the file (a writer would have made
// it), so it is read as immutable, unless a -wal file holds commits that immutable reading
// would skip. It returns the database's schema version.
func openReader(ctx context.Context, path string) (*sql.DB, int, error) {
	base := uriOf(path) + "?mode=ro&" + sharedParams(readBusy) + "&_query_only=1"
	r, err := sql.Open("sqlite", base)
	var version int
	if err == nil {
		if version, err = checkReadable(ctx, r); err == nil {
			return r, version, nil
		}
		r.Close()
	}
	if isNotADatabase(err) {
		return nil, 0, err // no way of reading it makes it one
	}
	if fi, werr := os.Stat(path + "-wal"); werr == nil && fi.Size() > 0 {
		return nil, 0, fmt.Errorf("%w (its write-ahead log %s-wal holds commits, and SQLite cannot create %s-shm to read them: make the folder writable)", err, path, path)
	}
	if _, serr := os.Stat(path + "-shm"); serr == nil {
		return nil, 0, err
	}
	slog.Debug("store: reading the database as immutable: its folder is read-only and it has no -shm file", "db", path)
	r, ierr := sql.Open("sqlite", base+"&immutable=1")
	if ierr == nil {
		if version, ierr = checkReadable(ctx, r); ierr == nil {
			return r, version, nil
		}
		r.Close()
	}
	return nil, 0, fmt.Errorf("%w; read as immutable: %w", err, ierr)
}

// checkReadable reads the schema version of a read-only database, which cannot be
// migrated: the current version, or an older one, which is read as it is (what a later
// version added reads as unknown).
func checkReadable(ctx context.Context, r *sql.DB) (int, error) {
	version, _, err := readSchema(ctx, r)
	if err != nil {
		return 0, err
	}
	if version == 0 {
		return 0, fmt.Errorf("the database is empty (no ktune tables yet), and ktune cannot create them in a read-only database")
	}
	return version, nil
}

// inspect says why the database at path must be opened read-only ("" when it can be
// written), or what keeps it from being opened at all, in words a user can act on.
func inspect(path string) (readOnly string, err error) {
	dir := filepath.Dir(path)
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return "", fmt.Errorf("%s is a directory, not a database file", path)
	case err == nil:
		if err := unwritable(path, fi); err != nil {
			switch {
			case errors.Is(err, syscall.EROFS):
				return fmt.Sprintf("the file %s is on a read-only file system", path), nil
			case fi.Mode().Perm()&0o222 == 0:
				return fmt.Sprintf("the file %s is read-only (mode %s)", path, fi.Mode().Perm()), nil
			}
			return fmt.Sprintf("the file %s is not writable by this user (mode %s)", path, fi.Mode().Perm()), nil
		}
		if sides := unwritableSideFiles(path); sides != "" {
			return sides, nil
		}
		dfi, err := os.Stat(dir)
		if err == nil && !sideFilesWritable(path) {
			switch err := unwritable(dir, dfi); {
			case errors.Is(err, syscall.EROFS):
				return fmt.Sprintf("its folder %s is on a read-only file system, and SQLite needs to create its -wal and -shm files there", dir), nil
			case err != nil:
				return fmt.Sprintf("its folder %s is not writable (mode %s), and SQLite needs to create its -wal and -shm files there", dir, dfi.Mode().Perm()), nil
			}
		}
		return "", nil
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		dfi, err := os.Stat(dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return "", fmt.Errorf("folder %s does not exist", dir)
		case errors.Is(err, syscall.ENOTDIR):
			return "", fmt.Errorf("folder %s does not exist (a part of it is a file)", dir)
		case err != nil:
			return "", err
		case !dfi.IsDir():
			return "", fmt.Errorf("%s is a file, not a folder", dir)
		}
		switch err := unwritable(dir, dfi); {
		case errors.Is(err, syscall.EROFS):
			return "", fmt.Errorf("cannot create the database: folder %s is on a read-only file system", dir)
		case err != nil:
			return "", fmt.Errorf("cannot create the database: folder %s is not writable (mode %s)", dir, dfi.Mode().Perm())
		}
		return "", nil // a new database in a writable folder
	default:
		return "", err
	}
}

// errNoWrite is unwritable's answer for a mode that allows writing nobody.
var errNoWrite = errors.New("its mode allows writing nobody")

// unwritable says why this process may not write the file or folder at path: the
// system's refusal (syscall.EROFS on a read-only file system, whatever the mode), or its
// mode, which root too honours where it allows writing nobody; nil when it may.
func unwritable(path string, fi fs.FileInfo) error {
	err := canWrite(path)
	if errors.Is(err, syscall.EROFS) {
		return err
	}
	if fi.Mode().Perm()&0o222 == 0 {
		return errNoWrite
	}
	return err
}

// sideFilesWritable reports whether the database's -wal and -shm files both exist and can
// be written, which lets a writer work in a read-only folder.
func sideFilesWritable(path string) bool {
	for _, side := range []string{path + "-wal", path + "-shm"} {
		fi, err := os.Stat(side)
		if err != nil || unwritable(side, fi) != nil {
			return false
		}
	}
	return true
}

// unwritableSideFiles names the database's -wal and -shm files that exist and that this
// process may not write ("" when none), which keep SQLite from writing the database
// although the file and folder are writable: a reader of another user on a read-only
// database leaves them with its mode (-r--r--r--). It asks the system alone: root writes
// such a file whatever its mode, as SQLite does.
func unwritableSideFiles(path string) string {
	var named []string
	for _, side := range []struct{ what, path string }{
		{"write-ahead log", path + "-wal"},
		{"shared-memory file", path + "-shm"},
	} {
		fi, err := os.Stat(side.path)
		if err != nil {
			continue // none yet: SQLite creates it
		}
		switch err := canWrite(side.path); {
		case errors.Is(err, syscall.EROFS):
			named = append(named, fmt.Sprintf("its %s %s is on a read-only file system", side.what, side.path))
		case err != nil:
			named = append(named, fmt.Sprintf("its %s %s is not writable by this user (mode %s%s)", side.what, side.path, fi.Mode().Perm(), owner(fi)))
		}
	}
	return strings.Join(named, ", and ")
}

// write runs f, one write or one transaction on the write connection, again while
// another process holds the database's write lock, for up to writeWait, logging a warning
// once it has waited writeNotice; what names the write in the log. It stops waiting when
// ctx ends, with an error that wraps ctx's and says how long it waited.
func (s *Store) write(ctx context.Context, what string, f func(w *sql.DB) error) error {
	if s.w == nil {
		return fmt.Errorf("%w: %s", store.ErrReadOnly, s.readOnly)
	}
	start := time.Now()
	busy, warned := false, false
	for {
		err := f(s.w)
		waited := time.Since(start).Round(time.Millisecond)
		busy = busy || isBusy(err)
		switch {
		case err == nil:
			if warned {
				slog.Info("store: got the database's write lock", "db", s.path, "write", what, "waited", waited.Round(time.Second))
			}
			return nil
		case ctx.Err() != nil && (busy || errors.Is(err, ctx.Err()) && waited >= writeAttempt):
			// a wait for the lock that the cancellation ended, in SQLite or between tries
			return fmt.Errorf("%w: stopped waiting for another process to release the write lock of %s after %s", ctx.Err(), s.path, waited)
		case isBusy(err) && waited < writeWait:
			if !warned && waited >= writeNotice {
				slog.Warn("store: another process holds the database's write lock (an import?); waiting for it",
					"db", s.path, "write", what, "waited", waited.Round(time.Second), "gives up after", writeWait)
				warned = true
			}
			// SQLite waited writeAttempt already, except for the few kinds of busy that
			// it reports at once; a short pause keeps those from spinning.
			select {
			case <-ctx.Done():
			case <-time.After(20 * time.Millisecond):
			}
			continue
		case isBusy(err):
			return fmt.Errorf("%w (waited %s for another process to release the write lock of %s)", err, waited.Round(time.Second), s.path)
		case isReadOnly(err):
			return fmt.Errorf("%w (ktune needs to write the file %s and create files in its folder %s)", err, s.path, filepath.Dir(s.path))
		}
		return whyDamaged(whyFull(err, s.path), s.path)
	}
}

// fold copies the write-ahead log's commits into the database file, at most every
// foldEvery (see there), with a passive checkpoint: it waits for nobody, copies what no
// reader of an older snapshot still needs, and a failure only leaves the commits in the
// log, durable there as before.
func (s *Store) fold(ctx context.Context) {
	s.mu.Lock()
	due := time.Since(s.folded) >= foldEvery
	if due {
		s.folded = time.Now()
	}
	s.mu.Unlock()
	if !due || s.w == nil {
		return
	}
	if _, err := s.w.ExecContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)"); err != nil {
		slog.Debug("store: copying the write-ahead log into the database file", "db", s.path, "error", err)
	}
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
	if s.w != nil {
		errs = append(errs, s.w.Close())
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("store: close sqlite %q: %w", s.path, err)
	}
	return nil
}

// queries words the statements shared with the other SQL stores for a database of schema
// version v at path.
func queries(path string, v int) *sqlstore.Queries {
	return sqlstore.New(sqlstore.Backend{
		ParamsJSON:     "s.params",
		RunEvaluations: runEvaluations,
		Columns:        selectColumns(v),
		TallyCount:     tallyCountQuery,
		TallyBest:      func(maximize bool) string { return tallyBestQuery(selectColumns(v), maximize) },
		IsForeignKey:   isForeignKey,
		Source:         "sqlite:" + path,
	})
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

// isBusy reports whether err is SQLite giving up on a lock that another connection holds.
func isBusy(err error) bool {
	var e *driver.Error
	return errors.As(err, &e) && (e.Code()&0xff == sqlite3.SQLITE_BUSY || e.Code()&0xff == sqlite3.SQLITE_LOCKED)
}

// isReadOnly reports whether err is SQLite refusing to write a read-only file or folder.
func isReadOnly(err error) bool {
	var e *driver.Error
	return errors.As(err, &e) && e.Code()&0xff == sqlite3.SQLITE_READONLY
}

// isNotADatabase reports whether err is SQLite finding no database in the file.
func isNotADatabase(err error) bool {
	var e *driver.Error
	return errors.As(err, &e) && e.Code()&0xff == sqlite3.SQLITE_NOTADB
}

// isForeignKey reports whether err is SQLite refusing a row that names a missing parent.
func isForeignKey(err error) bool {
	var e *driver.Error
	return errors.As(err, &e) && e.Code() == sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY
}

// lowRoom is the free space under which a file system counts as full: a write that failed
// there failed for want of room.
const lowRoom = 1 << 20

// whyFull adds to SQLite's error about the database at path that the file system of its
// folder is full, where an I/O error (SQLite's "disk I/O error" of a -shm file it could
// not enlarge) or a "database or disk is full" has that cause; other errors it returns as
// they are.
func whyFull(err error, path string) error {
	var e *driver.Error
	if !errors.As(err, &e) || e.Code()&0xff != sqlite3.SQLITE_IOERR && e.Code()&0xff != sqlite3.SQLITE_FULL ||
		errors.As(err, new(*fullError)) {
		return err
	}
	dir := filepath.Dir(path)
	full := ": the disk is full"
	if e.Code()&0xff == sqlite3.SQLITE_FULL {
		full = "" // SQLite said so
	}
	bytes, files, ok := room(dir)
	switch {
	case ok && bytes < lowRoom:
		return &fullError{err, fmt.Sprintf("%s (the file system of folder %s has %s free)", full, dir, kib(bytes))}
	case ok && files == 0:
		return &fullError{err, fmt.Sprintf("%s (the file system of folder %s has no free inodes for another file)", full, dir)}
	case e.Code() == sqlite3.SQLITE_IOERR_SHMSIZE:
		return &fullError{err, fmt.Sprintf(" (SQLite could not enlarge %s-shm: is a disk quota full?)", path)}
	}
	return err
}

// whyDamaged adds to SQLite's error about the database at path, where it found the file
// damaged (cut short, or pages overwritten), what the file is and what to do; other errors
// it returns as they are. SQLite's "database disk image is malformed" names neither.
func whyDamaged(err error, path string) error {
	var e *driver.Error
	if !errors.As(err, &e) || e.Code()&0xff != sqlite3.SQLITE_CORRUPT || errors.As(err, new(*damagedError)) {
		return err
	}
	return &damagedError{err, fmt.Sprintf(": the database file %s is damaged (cut short or overwritten: a copy made while ktune wrote it, a disk fault) and ktune cannot read what it holds there; "+
		"keep it aside and restore a copy of it made with its -wal file, or give a new database for new runs (sqlite3's .recover command may save part of it)", path)}
}

// damagedError is SQLite's error with what whyDamaged says of it.
type damagedError struct {
	err error
	why string
}

func (e *damagedError) Error() string { return e.err.Error() + e.why }
func (e *damagedError) Unwrap() error { return e.err }

// damaged is whyDamaged for this store's file.
func (s *Store) damaged(err error) error { return whyDamaged(err, s.path) }

// fullError is SQLite's error with what whyFull found of its cause.
type fullError struct {
	err error
	why string
}

func (e *fullError) Error() string { return e.err.Error() + e.why }
func (e *fullError) Unwrap() error { return e.err }

// kib says a size in bytes in KB, or MB from 10 MB.
func kib(n int64) string {
	if n >= 10<<20 {
		return fmt.Sprintf("%d MB", n>>20)
	}
	return fmt.Sprintf("%d KB", n>>10)
}
