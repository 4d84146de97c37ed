//go:build !(linux || darwin || freebsd || netbsd)

package dl

import (
	"errors"
	"runtime"
)

// Supported reports whether this system can load libraries at run time.
const Supported = false

// errNoLoader is why nothing loads here.
var errNoLoader = errors.New("loading libraries at run time is not supported on " + runtime.GOOS)

// Open fails: libraries cannot be loaded at run time here.
func Open(string) (uintptr, error) { return 0, errNoLoader }

// Lookup fails: libraries cannot be loaded at run time here.
func Lookup(uintptr, string) (uintptr, error) { return 0, errNoLoader }

// Bind fails: libraries cannot be loaded at run time here.
func Bind(any, uintptr, string) error { return errNoLoader }
