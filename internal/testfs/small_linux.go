//go:build linux

package testfs

import (
	"syscall"
	"testing"
)

// Small mounts a tmpfs of size ("64k", "1m") in a temporary folder, unmounted when the
// test ends, and returns the folder; it skips the test where mounting is not allowed.
func Small(t testing.TB, size string) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		t.Skipf("cannot mount a small file system (tmpfs): %v", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}
