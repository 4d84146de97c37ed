//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package space

// addressSpaceLimit reports no limit where the system has no RLIMIT_AS.
func addressSpaceLimit() (int64, bool) { return 0, false }
