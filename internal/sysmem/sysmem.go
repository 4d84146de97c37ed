// Package sysmem reads how much memory the machine has, for the bounds ktune puts on
// what a configuration may use.
package sysmem

import (
	"os"
	"strconv"
	"strings"
)

// Total is the machine's memory in bytes (MemTotal of /proc/meminfo), 0 where it cannot
// be read.
func Total() int64 {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(data)) {
		rest, ok := strings.CutPrefix(line, "MemTotal:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 || (len(f) > 1 && f[1] != "kB") {
			return 0
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || kb <= 0 {
			return 0
		}
		return kb << 10
	}
	return 0
}
