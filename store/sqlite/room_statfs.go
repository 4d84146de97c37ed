//go:build linux || darwin || freebsd

package sqlite

import "syscall"

// room is what the file system of folder dir has left for this process: bytes, and files
// (inodes; -1 where it does not count them). ok is false when the system cannot tell.
func room(dir string) (bytes, files int64, ok bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, 0, false
	}
	files = -1
	if st.Files > 0 {
		files = int64(st.Ffree)
	}
	return int64(st.Bavail) * int64(st.Bsize), files, true
}
