//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package sqlite

import (
	"io/fs"
	"os"
	"os/user"
	"strconv"
	"syscall"
)

// canWrite asks the system whether this process may write path: nil, or its refusal
// (syscall.EROFS on a read-only file system, syscall.EACCES for a file of another user).
// A variable so that tests can answer for the system.
var canWrite = func(path string) error {
	const wOK = 2
	return syscall.Access(path, wOK)
}

// owner names the file's owner where that is another user than this process's:
// ", owned by NAME"; "" otherwise.
func owner(fi fs.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || int(st.Uid) == os.Geteuid() {
		return ""
	}
	name := strconv.Itoa(int(st.Uid))
	if u, err := user.LookupId(name); err == nil {
		name = u.Username
	}
	return ", owned by " + name
}
