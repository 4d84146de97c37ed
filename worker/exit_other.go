//go:build !linux

package worker

// awaitExit cannot wait for a process without reaping it here: the caller reaps it first.
func awaitExit(pid int) bool { return false }
