package worker

import (
	"unsafe"

	"github.com/ebitengine/purego"
)

// ioLineBuffered is C's _IOLBF (glibc and musl).
const ioLineBuffered = 1

// lineBufferStdout makes the C library's stdout in this process line buffered, as it is on
// a terminal. The child's standard output is a pipe, for which C buffers whole blocks: a
// kernel's printf would reach the parent only when the block fills or the process exits
// cleanly, so a kernel that prints and then crashes would lose its lines (and the crash
// message would not say what it printed), and lines of one configuration could surface in
// another's output. It must run before anything writes to stdout; it does nothing where
// the process has no C library loaded.
func lineBufferStdout() {
	stdout, err := purego.Dlsym(purego.RTLD_DEFAULT, "stdout")
	if err != nil {
		return
	}
	setvbuf, err := purego.Dlsym(purego.RTLD_DEFAULT, "setvbuf")
	if err != nil {
		return
	}
	// stdout is a variable holding the FILE pointer: read it through the symbol's address
	// (the address is C memory, not Go's).
	file := **(**uintptr)(unsafe.Pointer(&stdout))
	if file == 0 {
		return
	}
	purego.SyscallN(setvbuf, file, 0, ioLineBuffered, 0)
}
