package store

import (
	"context"
	"errors"
)

// ErrRunHeld reports a run that another ktune process, or another holder in this one,
// holds: it is being tuned.
var ErrRunHeld = errors.New("held by another ktune process")

// RunLocker is implemented by a Store whose database holds the locks of its runs itself:
// a server database, which the processes tuning into it reach from several machines and
// beside which no lock file can lie (SQLite's runs are locked in a file beside the
// database: package tuner). A tuning process holds its run so that no other process
// resumes it beside it.
type RunLocker interface {
	// LockRun holds run for this process until the lock is released, the store is closed
	// or the process ends, however it ends; it fails with ErrRunHeld when another process,
	// or another holder in this one, has it. Run 0, which no run has, stands for the
	// database's creation of runs.
	LockRun(ctx context.Context, run int64) (HeldRun, error)
	// RunHeld reports whether a process (this one included) holds run now. It takes no
	// lock.
	RunHeld(ctx context.Context, run int64) (bool, error)
}

// HeldRun is a run that a RunLocker holds for this process.
type HeldRun interface {
	// Check reports whether the run is still held as other processes see it, and takes
	// it again where the hold was lost (a connection to the server that broke); it fails
	// when another process took it meanwhile.
	Check(ctx context.Context) error
	// Release lets the run go; releasing twice is a no-op.
	Release()
}
