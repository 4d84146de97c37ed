package outfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ktune/ktune/internal/testfs"
)

// big writes more than bufio's buffer and a 64 KiB disk hold; wrap, when set,
// wraps the error as a writer of a format may (fmt.Errorf with %w).
func big(wrap string) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := w.Write(make([]byte, 256<<10))
		if err != nil && wrap != "" {
			err = fmt.Errorf("%s: %w", wrap, err)
		}
		return err
	}
}

// An error writing the temporary file names the file the user gave, not the hidden
// temporary one (QA: "write small/.e.json.4224614679.tmp: no space left on device"), so
// that Cause finds it; and Write leaves no temporary file behind. The file's size limit
// (RLIMIT_FSIZE, with SIGXFSZ ignored) fails the writes as a full disk would, without
// privileges.
func TestAFailedWriteNamesTheTargetNotTheTemporaryFile(t *testing.T) {
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Skip(err)
	}
	signal.Ignore(syscall.SIGXFSZ)
	defer signal.Reset(syscall.SIGXFSZ)
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: 1024, Max: old.Max}); err != nil {
		t.Skip(err)
	}
	defer syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old)

	dir := t.TempDir()
	path := filepath.Join(dir, "e.json")
	cases := []struct {
		name, wrap string
		want       string // the error's message
		cause      string // Cause's
	}{
		{"write's error as it is", "", "write " + path + ": file too large", "file too large"},
		{"write's error wrapped", "encode", "encode: write " + path + ": file too large", "encode: write " + path + ": file too large"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Write(path, big(c.wrap))
			if err == nil || err.Error() != c.want || !errors.Is(err, syscall.EFBIG) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
			if got := Cause(err, path).Error(); got != c.cause {
				t.Errorf("Cause %q, want %q", got, c.cause)
			}
			if got := names(t, dir); len(got) != 0 {
				t.Errorf("files left: %v", got)
			}
		})
	}
}

// The same on a real full file system, where one can be mounted (root).
func TestWritingToAFullDiskNamesTheTarget(t *testing.T) {
	dir := testfs.Small(t, "64k")
	path := filepath.Join(dir, "e.json")
	err := Write(path, big(""))
	if err == nil || err.Error() != "write "+path+": no space left on device" || strings.Contains(err.Error(), ".tmp") {
		t.Fatalf("error %v, want write %s: no space left on device", err, path)
	}
	if got := names(t, dir); len(got) != 0 {
		t.Errorf("files left: %v", got)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s: %v, want nothing there", path, err)
	}
}
