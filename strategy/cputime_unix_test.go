//go:build unix

package strategy_test

import (
	"syscall"
	"time"
)

// processCPU is the CPU time this process has used, user and system: unlike the wall
// clock, other processes that load the machine do not stretch it.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
