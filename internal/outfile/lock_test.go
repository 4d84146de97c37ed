//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package outfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// A file's lock excludes a second holder, in this process as in another, until it is
// released, which deletes the lock file; a lock file that a dead holder left is taken. A
// symbolic link to the file reaches the same lock; a device is not locked.
func TestALockExcludesASecondWriterUntilReleased(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ckpt.json")
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	l, err := Lock(path)
	if err != nil || l == nil {
		t.Fatalf("Lock: %v", err)
	}
	for _, p := range []string{path, link} {
		if l2, err := Lock(p); !errors.Is(err, ErrHeld) {
			l2.Release()
			t.Errorf("Lock(%s) while held: %v, want ErrHeld", p, err)
		}
	}
	l.Release()
	if _, err := os.Stat(path + ".lock"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the released lock left its file (%v)", err)
	}
	// what a killed holder leaves: the file, unlocked
	if err := os.WriteFile(path+".lock", []byte("12345\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err = Lock(link)
	if err != nil {
		t.Fatalf("Lock over a dead holder's file: %v", err)
	}
	l.Release()
	if _, err := os.Stat(path + ".lock"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the released lock left its file (%v)", err)
	}
	if l, err := Lock(os.DevNull); l != nil || err != nil {
		t.Errorf("Lock(%s): %v %v, want nothing locked", os.DevNull, l, err)
	}
}
