package tuner

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/ktune/ktune/store"
	"github.com/ktune/ktune/store/sqlite"
)

// A tuning run is held by the ktune process that tunes it, so that no other process
// resumes it beside it: two processes measuring into one run would measure every
// configuration twice and time each other's kernels.
//
// The lock follows the database file, not the text of its path: it is an advisory POSIX
// record lock (fcntl F_SETLK) on one byte, at the run's id as offset, of a lock file that
// lies beside the database, named for it with "-runlock" appended (ktune.db-runlock), in
// the folder the database's path leads to once its symbolic links are resolved. So
//
//   - every path that reaches the database (a symbolic link, a relative path, another
//     mount of its folder) reaches the same lock file, as SQLite's own -wal and -shm files
//     do, and no temporary folder takes part: TMPDIR may be anything, read-only included;
//   - whoever may write the database may lock its runs: the lock file is made with the
//     database file's permissions and group, and in the database's folder, which SQLite
//     needs to be writable anyway;
//   - the system releases the lock when the process ends, however it ends (a crash or
//     SIGKILL included), and a network file system that carries POSIX locks (NFS with
//     lockd or v4) carries them between machines as well;
//   - SQLite's locks are untouched: they are on the database, -wal and -shm files, and
//     ktune never opens those itself (a process that closes any descriptor of a file
//     loses all its POSIX locks on it, which is why the lock is not on the database).
//
// Record locks rather than flock, which locks whole files only (one file per run would
// litter the folder), and which NFS and macOS carry less reliably; rather than a lease
// written into the database, which would need a heartbeat that another process's long
// write (a large import) can hold up for minutes, and a guess at when a silent owner is
// dead. Because POSIX record locks belong to the process, this process keeps one open
// descriptor per lock file and a table of the runs it holds, so that two holders in one
// process exclude each other as two processes do.
//
// The lock file holds no data and stays beside the database; deleting it while no ktune
// process tunes into the database is harmless. A tuning process checks before it stores
// each evaluation that its lock file is still there (RunLock.Check) and locks its run
// again in a new one if it was deleted or replaced; if another process took the run in
// between, the tuning stops with an error, so that at most the one evaluation in flight
// was measured by both and none is stored twice. A hard link to the database in another folder
// reaches another lock file: SQLite does not support such links either (their -wal files
// differ).

// A database that holds the locks of its runs itself (store.RunLocker: PostgreSQL's
// advisory locks) has no lock file: its store holds them, and RunLock wraps its hold.

// RunLock is a run held by this process.
type RunLock struct {
	path string // the lock file
	run  int64
	lf   *lockFile
	held store.HeldRun // the store's hold instead, where the store locks runs
}

// ErrRunHeld is LockRun's error when another process holds the run.
var ErrRunHeld = store.ErrRunHeld

// lockRunIn takes run of the database at db, which st has open, for this process: in st
// where st locks runs itself (store.RunLocker), else as LockRun does.
func lockRunIn(ctx context.Context, st store.Store, db string, run int64) (*RunLock, error) {
	if rl, ok := st.(store.RunLocker); ok {
		held, err := rl.LockRun(ctx, run)
		if err != nil {
			return nil, err
		}
		return &RunLock{run: run, held: held}, nil
	}
	return lockIn(db, run)
}

// locksRuns reports whether runs of st's database (at db) can be locked: those of a file,
// or of a store that locks them itself.
func locksRuns(st store.Store, db string) bool {
	_, ok := st.(store.RunLocker)
	return ok || db != ""
}

// LockPath is the lock file of the runs of the database at db (a SQLite location, as
// store.Open takes it): beside the file that db leads to, its symbolic links resolved. It
// is "" for a database that is not a file.
func LockPath(db string) string {
	if db == "" || store.Scheme(db) != store.DefaultScheme {
		return ""
	}
	path := sqlite.PathOf(db) // sqlite:x.db and x.db are one database
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	} else if dir, err := filepath.EvalSymlinks(filepath.Dir(path)); err == nil {
		path = filepath.Join(dir, filepath.Base(path)) // a database not made yet
	}
	return path + "-runlock"
}

// LockRun takes run of the database at db for this process, or returns ErrRunHeld when
// another process, or another holder in this one, has it. A database that is not a file
// cannot be locked: its runs get a nil lock.
func LockRun(db string, run int64) (*RunLock, error) {
	path := LockPath(db)
	if path == "" {
		return nil, nil
	}
	lockFiles.Lock()
	defer lockFiles.Unlock()
	return lockRunLocked(path, db, run)
}

// RunHeld reports whether a ktune process (this one included) is tuning run of the
// database at db now. It takes no lock; when it cannot tell, it says held.
func RunHeld(db string, run int64) bool {
	path := LockPath(db)
	if path == "" {
		return true
	}
	lockFiles.Lock()
	defer lockFiles.Unlock()
	held, err := runHeldLocked(path, run)
	return held || err != nil
}

// CanLockRuns reports, as an error that says what to do, why runs of the database at db
// cannot be locked (its lock file cannot be created or written), before a run is created
// that could then not be held.
func CanLockRuns(db string) error {
	path := LockPath(db)
	if path == "" {
		return nil
	}
	lockFiles.Lock()
	defer lockFiles.Unlock()
	lf, err := openLockFile(path, db)
	if err != nil {
		return err
	}
	lf.closeIfUnused()
	return nil
}

// Check reports whether the run is still held as other processes see it: the lock file
// at its path must be the file locked. When the file was deleted or replaced (a cleaner
// of old files), the run is locked again in the file now there; it is an error when that
// fails, another process having taken the run meanwhile. A nil lock is always fine.
func (l *RunLock) Check() error {
	if l == nil {
		return nil
	}
	if l.held != nil {
		ctx, cancel := context.WithTimeout(context.Background(), checkWait)
		defer cancel()
		return l.held.Check(ctx)
	}
	lockFiles.Lock()
	defer lockFiles.Unlock()
	if l.lf == nil {
		return fmt.Errorf("run lock: run %d was released", l.run)
	}
	if l.lf.isAt(l.path) {
		return nil
	}
	again, err := lockRunLocked(l.path, "", l.run)
	if err != nil {
		return fmt.Errorf("run lock: the lock file %s was deleted or replaced while run %d was tuned, and locking the run again failed: %w", l.path, l.run, err)
	}
	l.lf.unlock(l.run)
	l.lf = again.lf
	return nil
}

// Release lets the run go (the process's end does too). A nil lock is a no-op.
func (l *RunLock) Release() {
	if l == nil {
		return
	}
	if l.held != nil {
		l.held.Release()
		return
	}
	lockFiles.Lock()
	defer lockFiles.Unlock()
	if l.lf != nil {
		l.lf.unlock(l.run)
		l.lf = nil
	}
}

// checkWait bounds how long Check waits for a store that locks runs itself (its server)
// to say that the run is still held.
const checkWait = time.Minute

// creationByte is the byte of the lock file that a process holds while it looks for a run
// to resume and creates one (findOrCreateRun); no run has the id 0.
const creationByte = 0

// How lockCreation waits for another process: finding or creating a run takes a few
// queries, but they may wait for a third process's write lock (a large import).
const (
	creationPoll   = 10 * time.Millisecond
	creationNotice = 3 * time.Second
)

// Tests' hooks: testHookListed is called once findOrCreateRun has listed the runs, and
// testHookCreationWait when lockCreation first finds another process finding or creating
// a run.
var testHookListed, testHookCreationWait func()

// lockCreation waits until no other process, and no other holder in this one, is finding
// or creating a run of the database at db, and holds that until Release; ctx ends the
// wait. A database that is not a file, and whose store does not lock runs, gets a nil
// lock.
func lockCreation(ctx context.Context, log *slog.Logger, st store.Store, db string) (*RunLock, error) {
	began, noticed := time.Now(), false
	for first := true; ; first = false {
		l, err := lockRunIn(ctx, st, db, creationByte)
		if !errors.Is(err, ErrRunHeld) {
			return l, err
		}
		if first && testHookCreationWait != nil {
			testHookCreationWait()
		}
		if !noticed && time.Since(began) >= creationNotice {
			log.Warn(fmt.Sprintf("waiting for another ktune process that is looking for a run to resume in %s, or creating one (it may be waiting for a third one's write, such as an import's)", db))
			noticed = true
		}
		t := time.NewTimer(creationPoll)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}
