package worker

import (
	"bytes"
	"os"
	"strconv"
	"time"
)

// awaitStopped waits, for at most limit, until every thread of process pid is stopped
// (SIGSTOP takes effect as each thread next enters the kernel, not when kill returns),
// or the process is gone. It reports whether they all were stopped in time.
func awaitStopped(pid int, limit time.Duration) bool {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	deadline := time.Now().Add(limit)
	for {
		if allStopped(dir) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Microsecond)
	}
}

// allStopped reports whether each thread listed under dir (/proc/PID/task) is stopped
// or dead, or the process is gone.
func allStopped(dir string) bool {
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return true // gone
	}
	for _, t := range tasks {
		stat, err := os.ReadFile(dir + "/" + t.Name() + "/stat")
		if err != nil {
			continue // the thread ended
		}
		// "tid (comm) S ...": comm may hold spaces and parentheses, the state follows
		// the last ')'.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 || i+2 >= len(stat) {
			return false
		}
		switch stat[i+2] {
		case 'T', 't', 'Z', 'X', 'x':
		default:
			return false
		}
	}
	return true
}
