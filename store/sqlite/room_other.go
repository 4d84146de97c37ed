//go:build !(linux || darwin || freebsd)

package sqlite

// room cannot tell a file system's free space on this system.
func room(dir string) (bytes, files int64, ok bool) { return 0, 0, false }
