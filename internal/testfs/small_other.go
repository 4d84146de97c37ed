//go:build !linux

package testfs

import "testing"

// Small skips the test: a small file system is mounted on Linux only.
func Small(t testing.TB, size string) string {
	t.Helper()
	t.Skip("a small file system (tmpfs) is mounted on Linux only")
	return ""
}
