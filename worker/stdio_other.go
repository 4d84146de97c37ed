//go:build !linux

package worker

// lineBufferStdout does nothing here: kernels that print run on Linux (see stdio_linux.go).
func lineBufferStdout() {}
