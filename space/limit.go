package space

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
)

// MemoryShare is the part of the memory available to the process that DefaultMaxBytes
// gives a construction's index. The index's arrays grow by copying (the old and the new
// array live side by side for a moment), the garbage collector lets a heap grow to twice
// what it holds before it collects, and the rest of the program (a tuner, its workers) and
// the machine's other work need memory too: measured, a construction refused at its limit
// peaked at about three times the limit in resident memory.
const MemoryShare = 8

// minMaxBytes is the least DefaultMaxBytes gives, however little memory is available: a
// space of a few million valid configurations per group is always allowed.
const minMaxBytes = 64 << 20

// unknownMaxBytes is DefaultMaxBytes where the available memory cannot be read.
const unknownMaxBytes = 2 << 30

// DefaultMaxBytes is the memory a construction's index may take when BuildOptions.MaxBytes
// is 0: 1/MemoryShare of the memory available to this process when it is called, the least
// of the system's available memory (MemAvailable), the memory its control group may still
// use, and the address space its limit (ulimit -v) leaves it; at least 64 MiB, and 2 GiB
// where none of these can be read.
func DefaultMaxBytes() int64 {
	avail := int64(-1)
	take := func(n int64) {
		if n >= 0 && (avail < 0 || n < avail) {
			avail = n
		}
	}
	take(memAvailable())
	take(cgroupAvailable())
	take(addressSpaceLeft())
	if avail < 0 {
		return unknownMaxBytes
	}
	return max(avail/MemoryShare, minMaxBytes)
}

// memAvailable is the system's available memory (Linux's estimate of what can be allocated
// without swapping), -1 when unknown.
func memAvailable() int64 {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemAvailable:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return -1
			}
			return kb << 10
		}
	}
	return -1
}

// cgroupAvailable is what the control group this process sees at /sys/fs/cgroup (a
// container's) may still use: its limit less its usage; -1 when it has none or it cannot
// be read (cgroup v2's memory.max and memory.current, or v1's memory.limit_in_bytes and
// memory.usage_in_bytes).
func cgroupAvailable() int64 {
	for _, f := range [][2]string{
		{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"},
		{"/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes"},
	} {
		limit, lok := readInt(f[0])
		used, uok := readInt(f[1])
		// v1 says "no limit" with a number near 2**63
		if lok && uok && limit < 1<<62 {
			return max(limit-used, 0)
		}
	}
	return -1
}

func readInt(path string) (int64, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	n, err := strconv.ParseInt(string(bytes.TrimSpace(data)), 10, 64)
	return n, err == nil
}

// addressSpaceLeft is the address space that the process's limit (RLIMIT_AS, ulimit -v)
// leaves it beyond what it maps already, -1 when it has no limit or it cannot be read.
func addressSpaceLeft() int64 {
	limit, ok := addressSpaceLimit()
	if !ok {
		return -1
	}
	data, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return limit
	}
	var pages int64
	if _, err := fmt.Sscan(string(data), &pages); err != nil {
		return limit
	}
	return max(limit-pages*int64(os.Getpagesize()), 0)
}

// FormatBytes writes a size in bytes with a binary unit: "512 B", "3.5 GiB".
func FormatBytes(n int64) string {
	units := []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	if n < 1<<10 {
		return fmt.Sprintf("%d B", n)
	}
	f, u := float64(n)/(1<<10), 0
	for f >= 1<<10 && u < len(units)-1 {
		f /= 1 << 10
		u++
	}
	return fmt.Sprintf("%.1f %s", f, units[u])
}

// ParseBytes reads a size in bytes: a number, optionally with a fraction, and a unit of B,
// K, M, G or T, alone or followed by B or iB, in either case; every unit is a power of
// 1024 ("4G", "4GB" and "4GiB" are 4 * 1024**3 bytes, "1.5 GiB" is 1536 MiB).
func ParseBytes(text string) (int64, error) {
	s := strings.TrimSpace(text)
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	num, unit := s[:i], strings.ToUpper(strings.TrimSpace(s[i:]))
	x, err := strconv.ParseFloat(num, 64)
	if err != nil || num == "" {
		return 0, fmt.Errorf("size %q: want a number of bytes with an optional unit (512MiB, 4GiB)", text)
	}
	unit = strings.TrimSuffix(strings.TrimSuffix(unit, "IB"), "B")
	shift := strings.Index("KMGT", unit) + 1
	if len(unit) > 1 || unit != "" && shift == 0 {
		return 0, fmt.Errorf("size %q: unknown unit %q (want B, KiB, MiB, GiB or TiB)", text, s[i:])
	}
	if unit == "" {
		shift = 0
	}
	x *= math.Exp2(float64(10 * shift))
	if x >= math.MaxInt64 {
		return 0, fmt.Errorf("size %q is too large", text)
	}
	return int64(x), nil
}
