//go:build unix

package outfile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/ktune/ktune/internal/testfs"
)

// A FIFO is written into, not replaced: its reader gets the data.
func TestWriteFIFO(t *testing.T) {
	fifo, read := testfs.ReadFIFO(t)
	dir := filepath.Dir(fifo)
	// also through a link to it
	link := filepath.Join(dir, "link")
	if err := os.Symlink("pipe", link); err != nil {
		t.Fatal(err)
	}
	if err := Write(link, text("through the pipe")); err != nil {
		t.Fatal(err)
	}
	if s := read(); s != "through the pipe" {
		t.Errorf("reader got %q", s)
	}
	if got := names(t, dir); len(got) != 2 {
		t.Errorf("files: %v", got)
	}
}

// A device node (made here, a null device, where the test may make one) is written into,
// not replaced.
func TestWriteDevice(t *testing.T) {
	dir := t.TempDir()
	dev := filepath.Join(dir, "mynull")
	if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, 1<<8|3); err != nil { // Linux's 1:3
		if errors.Is(err, syscall.EPERM) {
			t.Skip("mknod needs privileges here")
		}
		t.Skip("mknod:", err)
	}
	if err := Write(dev, text("discarded")); err != nil {
		// a file system mounted nodev refuses to open it, which is no replacement either
		t.Logf("writing the device: %v", err)
	}
	fi, err := os.Lstat(dev)
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Errorf("the device node was replaced: %v %v", fi, err)
	}
	if got := names(t, dir); len(got) != 1 {
		t.Errorf("files: %v", got)
	}
}
