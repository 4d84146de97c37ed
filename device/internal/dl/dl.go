//go:build linux || darwin || freebsd || netbsd

// Package dl loads shared libraries at run time without cgo, for the backends that bind a
// vendor's API (OpenCL, CUDA): open a library, find a symbol, point a Go function at it.
package dl

import (
	"runtime"

	"github.com/ebitengine/purego"
)

// Supported reports whether this system can load libraries at run time.
const Supported = true

// Open loads the shared library at path (a name the dynamic loader finds, or a path).
//
// The goroutine stays on one thread from dlopen to the dlerror that says why it failed:
// dlerror's message is the calling thread's, and read from another thread it was empty
// now and then ("... set KTUNE_CUDA_LIBRARY ()").
func Open(path string) (uintptr, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_LOCAL)
}

// Lookup finds the address of the C function name in the library h.
func Lookup(h uintptr, name string) (uintptr, error) {
	runtime.LockOSThread() // for dlerror, as in Open
	defer runtime.UnlockOSThread()
	return purego.Dlsym(h, name)
}

// Bind points the Go function *fptr at the C function name in the library h.
func Bind(fptr any, h uintptr, name string) error {
	sym, err := Lookup(h, name)
	if err != nil {
		return err
	}
	purego.RegisterFunc(fptr, sym)
	return nil
}
