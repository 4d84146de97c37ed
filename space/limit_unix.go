//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package space

import (
	"math"
	"syscall"
)

// addressSpaceLimit is the process's limit on its address space (ulimit -v), and false
// when it has none (RLIM_INFINITY, all ones).
func addressSpaceLimit() (int64, bool) {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &rl); err != nil || uint64(rl.Cur) >= math.MaxInt64 {
		return 0, false
	}
	return int64(rl.Cur), true
}
