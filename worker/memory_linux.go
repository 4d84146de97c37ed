package worker

import (
	"bytes"
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/ktune/ktune/internal/sysmem"
)

// DefaultMemoryLimit is a bound for a worker's memory on a CPU device (Options.MemoryLimit):
// 1/MemoryShare of the machine's memory, or of its control group's limit (a container's)
// where that is lower; 0 where neither can be read. A configuration that needs more fails
// alone, and the tuner, the other workers and the machine's other work keep the rest.
func DefaultMemoryLimit() int64 {
	mem := sysmem.Total()
	if l := cgroupLimit(); l > 0 && (mem <= 0 || l < mem) {
		mem = l
	}
	if mem <= 0 {
		return 0
	}
	return mem / MemoryShare
}

// cgroupLimit is the memory limit of the control group this process sees at
// /sys/fs/cgroup (cgroup v2's memory.max, v1's memory.limit_in_bytes), 0 when it has none
// or it cannot be read.
func cgroupLimit() int64 {
	for _, f := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		n, err := strconv.ParseInt(string(bytes.TrimSpace(data)), 10, 64)
		// v2 says "max" for none, v1 a number near 2**63
		if err == nil && n > 0 && n < 1<<62 {
			return n
		}
	}
	return 0
}

// limitChild prepares a child before it opens its device. It makes the child the
// out-of-memory killer's first choice (oom_score_adj 1000, which any process may set for
// itself), so that a machine run short of memory loses a worker, whose configuration
// fails, rather than the tuner. And it sets the data limit that the supervisor passed
// (memoryLimitEnv; a lower limit the process has already stays): RLIMIT_DATA bounds the
// private writable memory a process maps (malloc's, the Go heap, buffers, thread
// stacks), not what it only reserves, so the virtual areas that runtimes reserve (PoCL's,
// over 2 GiB, break under RLIMIT_AS) do not count against it.
func limitChild() error {
	os.WriteFile("/proc/self/oom_score_adj", []byte("1000"), 0) // best effort
	v := os.Getenv(memoryLimitEnv)
	if v == "" {
		return nil
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil || n == 0 {
		return fmt.Errorf("worker: $%s=%q is not a size in bytes", memoryLimitEnv, v)
	}
	var rl unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_DATA, &rl); err != nil {
		return fmt.Errorf("worker: reading the data limit: %w", err)
	}
	rl.Cur = min(rl.Cur, rl.Max, n)
	if err := unix.Setrlimit(unix.RLIMIT_DATA, &rl); err != nil {
		return fmt.Errorf("worker: limiting its memory to %d bytes: %w", n, err)
	}
	return nil
}
