package sqlite

import "time"

// SetWaits shortens how long writes wait for another process's write lock, for a test;
// it returns a function that restores the defaults.
func SetWaits(busy, wait time.Duration) (restore func()) {
	b, w := busyTimeout, writeWait
	busyTimeout, writeWait = busy, wait
	return func() { busyTimeout, writeWait = b, w }
}
