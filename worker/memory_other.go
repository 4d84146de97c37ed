//go:build !linux

package worker

// DefaultMemoryLimit is 0, no limit, here: a worker's memory is bounded on Linux alone.
func DefaultMemoryLimit() int64 { return 0 }

// limitChild sets no limit here: RLIMIT_DATA does not bound what a process maps on every
// system (macOS), and the limit is applied on Linux alone.
func limitChild() error { return nil }
