//go:build !linux

package worker

import "time"

// awaitStopped cannot see whether a process's threads are stopped here: it trusts the
// signal.
func awaitStopped(pid int, limit time.Duration) bool { return true }
