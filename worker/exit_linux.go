package worker

import (
	"errors"

	"golang.org/x/sys/unix"
)

// awaitExit blocks until process pid, a child of this process, has exited, and leaves it
// unreaped (a zombie), so that its pid still names its process group. It reports false
// where it cannot wait.
func awaitExit(pid int) bool {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			return err == nil
		}
	}
}
