package sqlite

import "time"

// SetWaits shortens how long writes wait for another process's write lock, for a test:
// each try (and a reader) waits busy inside SQLite, a write says that it waits after
// notice and gives up after wait. It returns a function that restores the defaults.
func SetWaits(busy, notice, wait time.Duration) (restore func()) {
	r, a, n, w := readBusy, writeAttempt, writeNotice, writeWait
	readBusy, writeAttempt, writeNotice, writeWait = busy, busy, notice, wait
	return func() { readBusy, writeAttempt, writeNotice, writeWait = r, a, n, w }
}

// SetCanWrite makes the store take canWrite's answer, instead of the system's, to whether
// this process may write a path, for a test. It returns a function that restores the
// system's.
func SetCanWrite(f func(path string) error) (restore func()) {
	old := canWrite
	canWrite = f
	return func() { canWrite = old }
}

// SetFoldEvery sets how often at most a store copies its write-ahead log into the
// database file as it adds evaluations, for a test. It returns a function that restores
// the default.
func SetFoldEvery(d time.Duration) (restore func()) {
	old := foldEvery
	foldEvery = d
	return func() { foldEvery = old }
}
