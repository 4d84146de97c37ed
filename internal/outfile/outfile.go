// Package outfile writes the files a user names for output (ktune export -o, report -o,
// bench and hypertune --csv, --out and --checkpoint, the figures of --plot): whole or not
// at all where the path is a regular file, and without replacing what a shell's > would
// write into instead (a device such as /dev/null, a FIFO, a symbolic link).
package outfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// maxLinks is the most symbolic links Target follows, as Linux's ELOOP limit.
const maxLinks = 40

// Target returns what writing path writes: path itself, or where its chain of symbolic
// links ends, with that file's information (nil when there is no file there yet).
func Target(path string) (string, fs.FileInfo, error) {
	for hops := 0; ; hops++ {
		fi, err := os.Lstat(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return path, nil, nil
		case err != nil:
			return "", nil, err
		case fi.Mode()&fs.ModeSymlink == 0:
			return path, fi, nil
		case hops == maxLinks:
			return "", nil, &fs.PathError{Op: "open", Path: path, Err: errors.New("too many levels of symbolic links")}
		}
		link, err := os.Readlink(path)
		if err != nil {
			return "", nil, err
		}
		if !filepath.IsAbs(link) {
			// not filepath.Join, which would clean away a ".." that the system reads
			// after following a linked folder
			link = filepath.Dir(path) + string(filepath.Separator) + link
		}
		path = link
	}
}

// Write writes the file at path with write:
//
//   - something there that is neither a regular file nor a folder (a device such as
//     /dev/null, a FIFO, a socket) is opened for writing and written in place, as a
//     shell's > would, never replaced;
//   - a symbolic link is followed, and what it leads to written as said here, so that
//     the link stays a link;
//   - a regular file, or nothing yet, is written into a new file of a unique name in the
//     same folder, synced, and renamed over the path only once write has succeeded, so
//     that readers, and a crash, see the old content or the new, never a part, and a
//     failure leaves no temporary file behind. An existing file keeps its permission
//     bits; a new one gets 0666 less the umask, as os.Create gives.
//
// A folder at path is an error. write's own errors are returned as they are, except that
// one about the temporary file (the disk is full) names path instead.
func Write(path string, write func(io.Writer) error) error {
	target, fi, err := Target(path)
	if err != nil {
		return err
	}
	switch {
	case fi == nil:
		return replace(target, 0o666, false, write)
	case fi.IsDir():
		return &fs.PathError{Op: "write", Path: path, Err: errors.New("is a folder, want a file")}
	case fi.Mode().IsRegular():
		return replace(target, fi.Mode().Perm(), true, write)
	}
	return inPlace(target, write)
}

// inPlace writes into an existing file that is not a regular one.
func inPlace(path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	b := bufio.NewWriter(f)
	if err := write(b); err != nil {
		f.Close()
		return err
	}
	if err := b.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// replace writes path through a temporary file beside it. exact says that perm is an
// existing file's, to be given as it is rather than less the umask. An error about the
// temporary file (the disk is full) is told as about path: its name means nothing to
// the user, who named path.
func replace(path string, perm fs.FileMode, exact bool, write func(io.Writer) error) (err error) {
	f, err := createTemp(path, perm)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
			err = named(err, f.Name(), path)
		}
	}()
	if exact {
		if err := f.Chmod(perm); err != nil {
			return err
		}
	}
	b := bufio.NewWriter(f)
	if err := write(b); err != nil {
		return err
	}
	if err := b.Flush(); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// createTemp creates a new file of a unique name ".NAME.RANDOM.tmp" beside path. It is
// os.CreateTemp but for the mode, which os.CreateTemp fixes at 0600 while a new output
// file should get perm less the umask, as os.Create gives it.
func createTemp(path string, perm fs.FileMode) (*os.File, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	for range 10000 {
		name := filepath.Join(dir, "."+base+"."+strconv.FormatUint(uint64(rand.Uint32()), 10)+".tmp")
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "write", Path: path, Err: fmt.Errorf("cannot create a file in %s: %w", dir, unwrapPath(err))}
		}
		return f, nil
	}
	return nil, &fs.PathError{Op: "write", Path: path, Err: fmt.Errorf("no unused temporary name in %s", dir)}
}

// named returns err, which may be about the temporary file tmp, as about path: an error
// of the file (writing it, closing it, renaming it over path) becomes one of path, and an
// error of write's that wraps one reads path where it read tmp. Other errors are left as
// they are.
func named(err error, tmp, path string) error {
	var le *os.LinkError
	if errors.As(err, &le) && le.Old == tmp {
		return &fs.PathError{Op: "write", Path: path, Err: le.Err}
	}
	var pe *fs.PathError
	switch {
	case !errors.As(err, &pe) || pe.Path != tmp:
		return err
	case err == error(pe):
		return &fs.PathError{Op: pe.Op, Path: path, Err: pe.Err}
	}
	return &renamed{err: err, tmp: tmp, path: path}
}

// renamed is an error that wraps one about the temporary file tmp, told as about path.
type renamed struct {
	err       error
	tmp, path string
}

func (e *renamed) Error() string { return strings.ReplaceAll(e.err.Error(), e.tmp, e.path) }
func (e *renamed) Unwrap() error { return e.err }

// Cause returns what to say of an error of Write for path after the name of the output:
// the cause alone where the error is about path itself, else the whole error (about a
// file a link leads to, or one of write's own).
func Cause(err error, path string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == path {
		return pe.Err
	}
	return err
}

// unwrapPath returns a *fs.PathError's cause, so that the temporary name is not shown.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Named is a file a command reads or writes, with what names it in errors: its flag
// ("--csv") or what it is ("the recording").
type Named struct{ What, Path string }

// Distinct returns an error naming the first output that is the same file as an input,
// which writing it would destroy (a recording, an earlier run's cells), or as an earlier
// output, which one of the two would overwrite. Two paths are one file when both exist
// and are (os.SameFile, through symbolic links) or when their absolute paths are equal.
// Empty paths and outputs that are not regular files (a device, a FIFO: written in place,
// as a shell's > writes them) are not checked.
func Distinct(inputs, outputs []Named) error {
	same := func(a, b string) bool {
		fa, errA := os.Stat(a)
		fb, errB := os.Stat(b)
		if errA == nil && errB == nil {
			return os.SameFile(fa, fb)
		}
		absA, errA := filepath.Abs(a)
		absB, errB := filepath.Abs(b)
		return errA == nil && errB == nil && absA == absB
	}
	for i, o := range outputs {
		if o.Path == "" {
			continue
		}
		if _, fi, err := Target(o.Path); err == nil && fi != nil && !fi.Mode().IsRegular() {
			continue
		}
		for _, in := range inputs {
			if in.Path != "" && same(o.Path, in.Path) {
				return fmt.Errorf("%s %s is %s %s, which writing it would destroy: give %s another file", o.What, o.Path, in.What, in.Path, o.What)
			}
		}
		for _, other := range outputs[:i] {
			if other.Path != "" && same(o.Path, other.Path) {
				return fmt.Errorf("%s %s is also %s: one would overwrite the other; give each its own file", o.What, o.Path, other.What)
			}
		}
	}
	return nil
}
