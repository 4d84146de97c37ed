package tuner

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/ktune/ktune/store"
	"github.com/ktune/ktune/store/sqlite"
)

// A tuning run is held by the ktune process that tunes it: an exclusive advisory lock on a
// file named for the database and the run, which the operating system releases when the
// process ends, however it ends (a crash or SIGKILL included). Another ktune tune of the
// same kernel, device and settings sees the run held and does not resume it: two processes
// measuring into one run would measure configurations twice and time each other's kernels.
// The lock files live in the temporary directory, so processes on one machine see each
// other; a database shared between machines is not covered.

// RunLock is a run held by this process.
type RunLock struct{ f *os.File }

// ErrRunHeld is LockRun's error when another process holds the run.
var ErrRunHeld = errors.New("held by another ktune process")

// LockRun takes run of the database at db for this process, or returns ErrRunHeld.
func LockRun(db string, run int64) (*RunLock, error) {
	if store.Scheme(db) == store.DefaultScheme {
		db = sqlite.PathOf(db) // sqlite:x.db and x.db are one database
	}
	abs, err := filepath.Abs(db)
	if err != nil {
		abs = db
	}
	sum := sha256.Sum256([]byte(abs))
	dir := filepath.Join(os.TempDir(), "ktune-runs")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, fmt.Errorf("run lock: %w", err)
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-run%d.lock", hex.EncodeToString(sum[:8]), run))
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return nil, fmt.Errorf("run lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrRunHeld
		}
		return nil, fmt.Errorf("run lock %s: %w", path, err)
	}
	return &RunLock{f}, nil
}

// RunHeld reports whether a ktune process is tuning run of the database at db now. It
// takes the run's lock for a moment to find out; when it cannot tell, it says held.
func RunHeld(db string, run int64) bool {
	l, err := LockRun(db, run)
	if err != nil {
		return true
	}
	l.Release()
	return false
}

// Release lets the run go (the process's end does too). A nil lock is a no-op.
func (l *RunLock) Release() {
	if l != nil {
		l.f.Close()
	}
}
