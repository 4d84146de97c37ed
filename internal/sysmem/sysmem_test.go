package sysmem

import (
	"os"
	"testing"
)

// Total reads the machine's memory where /proc/meminfo exists: some, and less than 1 PiB.
func TestTotal(t *testing.T) {
	if _, err := os.Stat("/proc/meminfo"); err != nil {
		t.Skip("no /proc/meminfo here")
	}
	if got := Total(); got < 64<<20 || got > 1<<50 {
		t.Errorf("Total() = %d bytes", got)
	}
}
