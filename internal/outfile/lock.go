package outfile

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ErrHeld is Lock's error when another process holds the lock of the file: it is writing
// the file, and a second writer would write over its content.
var ErrHeld = errors.New("another ktune process is writing it")

// A FileLock is held on an output file that a process rewrites as it goes (a checkpoint),
// so that no second process writes the same file beside it: two would each write their
// own content over the other's, and both lose. The file itself cannot carry the lock: it
// is replaced at every write (Write renames a new file over it). The lock is a whole-file
// lock (flock) on a lock file beside it, named for it with ".lock" appended, holding the
// holder's process id for the message of a refusal. The system lets the lock go when the
// process ends, however it ends (a kill, a crash), so a lock file a killed process left
// behind blocks nobody; Release deletes it, so that a run that ends leaves none.
type FileLock struct {
	path string // the lock file
	f    *os.File
}

// lockRetries bounds how often Lock starts again when the lock file it locked was deleted
// by its last holder meanwhile.
const lockRetries = 10

// Lock takes the lock of the output file at path (where its symbolic links lead), without
// waiting: an error wrapping ErrHeld, naming the holder, when another process (or another
// lock in this one) holds it. It returns nil and no error where nothing is to lock: path
// is "", or an existing file that is not a regular one (a device, a FIFO), which Write
// writes in place. (Where the system has no whole-file locks, nothing is refused.) Any other error says why the
// lock file cannot be made or locked (a folder that cannot be written); a caller may go on
// without the lock, since writing the file will fail there too, and say so.
func Lock(path string) (*FileLock, error) {
	if path == "" {
		return nil, nil
	}
	target, fi, err := Target(path)
	if err != nil {
		return nil, err
	}
	if fi != nil && !fi.Mode().IsRegular() {
		return nil, nil
	}
	lockPath := target + ".lock"
	for range lockRetries {
		f, err := os.OpenFile(lockPath, os.O_RDWR|os.O_CREATE, 0o666)
		if err != nil {
			return nil, fmt.Errorf("cannot make the lock file %s: %w", lockPath, unwrapPath(err))
		}
		held, err := tryLock(f)
		if err != nil || held {
			f.Close()
		}
		switch {
		case held:
			holder := ""
			if data, err := os.ReadFile(lockPath); err == nil {
				if pid, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil && pid > 0 {
					holder = fmt.Sprintf(" (process %d)", pid)
				}
			}
			return nil, fmt.Errorf("%w%s, holding %s", ErrHeld, holder, lockPath)
		case err != nil:
			return nil, fmt.Errorf("cannot lock %s: %w", lockPath, err)
		}
		if sameFile(f, lockPath) {
			f.Truncate(0)
			f.WriteString(strconv.Itoa(os.Getpid()) + "\n")
			return &FileLock{path: lockPath, f: f}, nil
		}
		// Its holder deleted it between our opening and our locking it, as it let it go:
		// a process opening the path now makes a new one, which this lock does not hold.
		f.Close()
	}
	return nil, fmt.Errorf("cannot lock %s: it keeps being deleted and made again", lockPath)
}

// sameFile reports whether path names the open file f.
func sameFile(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}

// Release deletes the lock file and lets the lock go; nil does nothing. The file is
// deleted while it is still locked, so that no process locks it in between and believes
// it holds a lock that the next one, making the file anew, would not see.
func (l *FileLock) Release() {
	if l == nil {
		return
	}
	if sameFile(l.f, l.path) {
		os.Remove(l.path)
	}
	l.f.Close()
}
