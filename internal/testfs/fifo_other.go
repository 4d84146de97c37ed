//go:build !unix

package testfs

import "testing"

// ReadFIFO skips the test: FIFOs are made on Unix only.
func ReadFIFO(t testing.TB) (string, func() string) {
	t.Helper()
	t.Skip("FIFOs are made on Unix only")
	return "", nil
}
