//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package sqlite

import "io/fs"

// canWrite leaves the answer to the mode bits and SQLite where the system has no access(2).
// A variable so that tests can answer for the system.
var canWrite = func(path string) error { return nil }

// owner cannot tell a file's owner here.
func owner(fi fs.FileInfo) string { return "" }
