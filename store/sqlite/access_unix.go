//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package sqlite

import "syscall"

// canWrite asks the system whether this process may write path.
func canWrite(path string) bool {
	const wOK = 2
	return syscall.Access(path, wOK) == nil
}
