//go:build linux

package hostc

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"

	"github.com/ktune/ktune/device"
)

// A build can fail for the machine's sake, not the source's: a full or read-only disk
// under the cache folder or the compiler's temporary folder, a cache folder this user
// cannot write. Such a failure is a *device.EnvironmentError,
// which callers do not record as the configuration's result.

// fullErrnos are what a file system answers when it cannot take a write, whatever the
// file: the disk is full, over its quota, or mounted read-only.
var fullErrnos = []syscall.Errno{syscall.ENOSPC, syscall.EDQUOT, syscall.EROFS}

// deniedErrnos are what it answers a user who may not write there: they are the
// machine's fault only for ktune's own files (a cache folder another user made), not for
// a header the source includes.
var deniedErrnos = []syscall.Errno{syscall.EACCES, syscall.EPERM}

// cachePlace names the cache folder dir for messages: as the user set it through
// $KTUNE_CACHE, or as the default that $KTUNE_CACHE moves.
func cachePlace(dir string) string {
	if d := os.Getenv("KTUNE_CACHE"); d != "" && filepath.Join(d, "hostc") == dir {
		return fmt.Sprintf("$KTUNE_CACHE (%s)", dir)
	}
	return fmt.Sprintf("the compile cache %s ($KTUNE_CACHE moves it)", dir)
}

// tempPlace names the folder where the compiler writes its intermediate files (gcc's
// assembler output), for messages.
func tempPlace() string {
	if d := os.Getenv("TMPDIR"); d != "" {
		return fmt.Sprintf("$TMPDIR (%s), where the compiler writes its intermediate files,", d)
	}
	return fmt.Sprintf("the temporary folder %s, where the compiler writes its intermediate files ($TMPDIR moves it),", os.TempDir())
}

// cacheFault returns err as an environment failure of the cache folder dir when it is a
// file system's refusal (err comes from writing the cache: a build folder, a lock, the
// source, the manifest), and err itself otherwise.
func cacheFault(dir string, err error) error {
	var env *device.EnvironmentError
	if err == nil || errors.As(err, &env) {
		return err
	}
	for _, e := range append(fullErrnos, deniedErrnos...) {
		if errors.Is(err, e) {
			return &device.EnvironmentError{Place: cachePlace(dir), Err: err}
		}
	}
	return err
}

// compilerSaid is an environment failure as the compiler reported it: the line, and the
// errno it names (none for a compiler killed by a signal).
type compilerSaid struct {
	errno syscall.Errno
	line  string
}

func (e *compilerSaid) Error() string {
	if e.errno == 0 {
		return e.line
	}
	return fmt.Sprintf("%v (the compiler said: %s)", e.errno, e.line)
}

func (e *compilerSaid) Unwrap() error {
	if e.errno == 0 {
		return nil
	}
	return e.errno
}

// located matches a diagnostic with a place in a source ("k.c:3:2: error: ...", "{standard
// input}:12: Error: ..."): of the user's code, as a rule. gcc also puts its own input and
// output failures at the translation unit's first line ("k.c:1:1: fatal error: closing
// dependency file ...: No space left on device").
var located = regexp.MustCompile(`^.*?:[0-9]+:([0-9]+:)? `)

// killedLines are what compiler drivers print when the out-of-memory killer (or anyone)
// killed the program they ran: gcc ("gcc: fatal error: Killed signal terminated program
// cc1"), clang ("clang: error: unable to execute command: Killed").
var killedLines = []string{"Killed signal terminated program", "unable to execute command: Killed"}

// environmentFault returns why a compiler that failed with exit and printed log failed for
// the machine's sake, or nil when the source is to blame (or nothing says otherwise).
//
// Only the compiler's own reports count: lines of the driver, the linker, the assembler
// and the back end ("/usr/bin/ld: final link failed: No space left on device", "fatal
// error: error in backend: IO failure on output stream: No space left on device"), and
// gcc's fatal errors about the files it writes in the cache or the temporary folder. A
// diagnostic of the source (an #error, a static assertion) never does, whatever its words,
// nor do the source lines the compiler quotes (indented).
func (d *hostDevice) environmentFault(log string, exit *exec.ExitError) error {
	cacheDir, tempDir := d.cache.dir, os.TempDir()
	for line := range strings.Lines(log) {
		line = strings.TrimRight(line, " \t\r\n")
		if line == "" || line[0] == ' ' || line[0] == '\t' {
			continue
		}
		mentions := func(dir string) bool {
			return dir != "" && strings.Contains(line, strings.TrimSuffix(dir, "/")+"/")
		}
		isLocated := located.MatchString(line)
		if isLocated && !strings.Contains(strings.ToLower(line), "fatal error:") {
			continue
		}
		errno, ok := endsWithErrno(line)
		if !ok {
			continue
		}
		full := slices.Contains(fullErrnos, errno)
		switch {
		case full && isLocated && !mentions(cacheDir) && !mentions(tempDir):
			continue // gcc's own files are in one of them
		case !full && !mentions(cacheDir) && (isLocated || !mentions(tempDir)):
			continue // not ktune's or the compiler's own file: a header, a library
		}
		place := cachePlace(cacheDir)
		if !mentions(cacheDir) && (mentions(tempDir) || fuller(tempDir, cacheDir)) {
			place = tempPlace()
		}
		return &device.EnvironmentError{Place: place, Err: &compilerSaid{errno: errno, line: line}}
	}
	return nil
}

// killedNote says, for a compiler that was killed (by a signal, or its driver says a
// program it ran was: the out-of-memory killer's work as a rule), what to make of it, or ""
// when it was not. The configuration is a compile error: one that alone exhausts the
// memory stays one, and a machine short of memory fails every configuration alike, which
// stops the tuning (the same-failure rule).
func killedNote(log string, exit *exec.ExitError) string {
	ws, ok := exit.Sys().(syscall.WaitStatus)
	signaled := ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
	if !signaled {
		for line := range strings.Lines(log) {
			for _, k := range killedLines {
				if strings.Contains(line, k) && !located.MatchString(line) {
					signaled = true
				}
			}
		}
	}
	if !signaled {
		return ""
	}
	return "note: the compiler was killed, as the out-of-memory killer does: if this configuration alone exhausts the memory, exclude it with a restriction; if every one does, free memory\n"
}

// endsWithErrno reports which errno of fullErrnos or deniedErrnos a compiler's line ends
// with, in strerror's words ("...: No space left on device", clang's "...: 'No space left
// on device'").
func endsWithErrno(line string) (syscall.Errno, bool) {
	l := strings.ToLower(strings.TrimRight(line, "'\"."))
	for _, e := range append(fullErrnos, deniedErrnos...) {
		text := strings.ToLower(e.Error())
		if strings.HasSuffix(l, ": "+text) || strings.HasSuffix(l, ": '"+text) || strings.HasSuffix(l, ": \""+text) {
			return e, true
		}
	}
	return 0, false
}

// fuller reports whether folder a's file system has less room than b's, when they are
// two file systems: a message that names no file is put down to the fuller one.
func fuller(a, b string) bool {
	var sa, sb syscall.Statfs_t
	if syscall.Statfs(a, &sa) != nil || syscall.Statfs(b, &sb) != nil || sa.Fsid == sb.Fsid {
		return false
	}
	return uint64(sa.Bavail)*uint64(sa.Bsize) < uint64(sb.Bavail)*uint64(sb.Bsize)
}
