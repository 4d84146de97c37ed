//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package tuner

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// lockFiles are the lock files this process has open, by file identity, with the runs it
// holds in each. POSIX record locks belong to the process, and closing any descriptor of
// a file drops all of them: each lock file is opened once, and closed only once none of
// its runs is held. The mutex also orders this process's locking.
var lockFiles struct {
	sync.Mutex
	m map[fileKey]*lockFile
}

// fileKey identifies a file: its device and inode.
type fileKey struct{ dev, ino uint64 }

func keyOf(fi fs.FileInfo) (fileKey, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileKey{}, false
	}
	return fileKey{uint64(st.Dev), uint64(st.Ino)}, true
}

// lockFile is an open lock file.
type lockFile struct {
	key   fileKey
	f     *os.File
	extra []*os.File // more descriptors of the same file that a race opened; closed with f
	held  map[int64]bool
}

// lockRetries bounds how often locking starts again when the lock file at the path
// changes between opening and locking it.
const lockRetries = 10

// lockRunLocked takes run in the lock file at path; lockFiles is locked.
func lockRunLocked(path, db string, run int64) (*RunLock, error) {
	for range lockRetries {
		lf, err := openLockFile(path, db)
		if err != nil {
			return nil, err
		}
		if lf.held[run] {
			return nil, ErrRunHeld // by another holder in this process
		}
		err = lf.lock(unix.F_WRLCK, run)
		if errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EACCES) {
			lf.closeIfUnused()
			return nil, ErrRunHeld
		}
		if err != nil {
			lf.closeIfUnused()
			return nil, fmt.Errorf("run lock: lock run %d in %s: %w (the file system may not support POSIX record locks)", run, path, err)
		}
		lf.held[run] = true
		if lf.isAt(path) {
			return &RunLock{path: path, run: run, lf: lf}, nil
		}
		// the file was deleted or replaced after it was opened: another process opening
		// the path would not see this lock
		lf.unlock(run)
	}
	return nil, fmt.Errorf("run lock: the lock file %s keeps changing while it is locked", path)
}

// runHeldLocked reports whether run is held in the lock file at path, by this process or
// another; lockFiles is locked.
func runHeldLocked(path string, run int64) (bool, error) {
	if fi, err := os.Stat(path); err == nil {
		if k, ok := keyOf(fi); ok {
			if lf := lockFiles.m[k]; lf != nil {
				if lf.held[run] {
					return true, nil
				}
				return lf.test(run)
			}
		}
	}
	f, err := os.Open(path) // reading suffices to ask; it need not be writable
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil // nobody ever locked a run of this database, or not since a cleaner
	}
	if err != nil {
		return false, err
	}
	lf := &lockFile{f: f, held: map[int64]bool{}}
	fi, err := f.Stat()
	if err == nil {
		if k, ok := keyOf(fi); ok {
			if known := lockFiles.m[k]; known != nil {
				// the path was replaced by a file this process holds since the Stat above:
				// closing f would drop those locks
				known.extra = append(known.extra, f)
				if known.held[run] {
					return true, nil
				}
				return known.test(run)
			}
		}
	}
	defer f.Close() // this process holds nothing in it
	return lf.test(run)
}

// openLockFile opens the lock file at path for locking, creating it with the database's
// permissions and group, or returns the one this process has open; lockFiles is locked.
func openLockFile(path, db string) (*lockFile, error) {
	if fi, err := os.Stat(path); err == nil {
		if k, ok := keyOf(fi); ok && lockFiles.m[k] != nil {
			return lockFiles.m[k], nil
		}
	}
	dbFile := strings.TrimSuffix(path, "-runlock")
	mode, gid := fs.FileMode(0o666), -1
	if fi, err := os.Stat(dbFile); err == nil {
		mode = fi.Mode().Perm() & 0o666
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			gid = int(st.Gid)
		}
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, mode)
	switch {
	case err == nil:
		// the umask would narrow the mode: whoever may write the database must be able to
		// lock its runs; the group as the database's, where this user may set it
		f.Chmod(mode)
		if gid >= 0 {
			f.Chown(-1, gid)
		}
	case errors.Is(err, fs.ErrExist):
		f, err = os.OpenFile(path, os.O_RDWR, 0)
	}
	if err != nil {
		return nil, lockFileError(path, db, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("run lock: %w", err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("run lock: %s is not a regular file; ktune locks the runs of the database beside it in a file of that name", path)
	}
	k, ok := keyOf(fi)
	if !ok {
		f.Close()
		return nil, fmt.Errorf("run lock: %s: the system gives no file identity", path)
	}
	if known := lockFiles.m[k]; known != nil {
		known.extra = append(known.extra, f) // see runHeldLocked
		return known, nil
	}
	lf := &lockFile{key: k, f: f, held: map[int64]bool{}}
	if lockFiles.m == nil {
		lockFiles.m = map[fileKey]*lockFile{}
	}
	lockFiles.m[k] = lf
	return lf, nil
}

// lockFileError says why the lock file cannot be opened and what to do.
func lockFileError(path, db string, err error) error {
	name := "the database"
	if db != "" {
		name = db
	}
	fix := ""
	if errors.Is(err, fs.ErrPermission) {
		fix = "; whoever tunes into the database must be able to write it: give it the database file's permissions (chmod), or delete it while no ktune process tunes into the database"
		if fi, serr := os.Stat(path); serr == nil {
			fix = fmt.Sprintf(" (mode %s)", fi.Mode().Perm()) + fix
		} else {
			fix = "; ktune creates it in the database's folder, which must be writable, as SQLite needs it to be for its -wal and -shm files"
		}
	}
	return fmt.Errorf("run lock: cannot open %s, the lock file of the runs of %s: %w%s", path, name, err, fix)
}

// lock sets (F_WRLCK) or clears (F_UNLCK) this process's lock on run's byte, without
// waiting.
func (lf *lockFile) lock(typ int16, run int64) error {
	lk := unix.Flock_t{Type: typ, Whence: 0, Start: run, Len: 1}
	return unix.FcntlFlock(lf.f.Fd(), unix.F_SETLK, &lk)
}

// test asks whether another process holds run's byte.
func (lf *lockFile) test(run int64) (bool, error) {
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: 0, Start: run, Len: 1}
	if err := unix.FcntlFlock(lf.f.Fd(), unix.F_GETLK, &lk); err != nil {
		return false, err
	}
	return lk.Type != unix.F_UNLCK, nil
}

// isAt reports whether path names this open file.
func (lf *lockFile) isAt(path string) bool {
	fi, err := os.Stat(path)
	if err != nil {
		return false
	}
	k, ok := keyOf(fi)
	return ok && k == lf.key
}

// unlock lets run go, and closes the file once it holds nothing.
func (lf *lockFile) unlock(run int64) {
	if lf.held[run] {
		lf.lock(unix.F_UNLCK, run)
		delete(lf.held, run)
	}
	lf.closeIfUnused()
}

// closeIfUnused closes the file when this process holds no run in it.
func (lf *lockFile) closeIfUnused() {
	if len(lf.held) > 0 {
		return
	}
	if lockFiles.m[lf.key] == lf {
		delete(lockFiles.m, lf.key)
	}
	for _, f := range lf.extra {
		f.Close()
	}
	lf.f.Close()
	lf.extra = nil
}
