//go:build linux

package sqlite_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ktune/ktune/internal/testfs"
	"github.com/ktune/ktune/store"
	"github.com/ktune/ktune/store/sqlite"
	"github.com/ktune/ktune/store/storetest"
)

// fill leaves no room on dir's file system but leave bytes.
func fill(t *testing.T, dir string, leave int64) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, "fill"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	block := make([]byte, 4096)
	for {
		if _, err := f.Write(block); err != nil {
			break
		}
	}
	fi, err := f.Stat()
	if err == nil {
		err = f.Truncate(max(fi.Size()-leave, 0))
	}
	if err != nil {
		t.Fatal(err)
	}
}

// A database that cannot be opened or written because its disk is full says so, whatever
// SQLite's code for it ("disk I/O error" of the -shm file it could not enlarge, or
// "database or disk is full").
func TestAFullDiskIsSaid(t *testing.T) {
	ctx := context.Background()
	dir := testfs.Small(t, "1m")
	path := filepath.Join(dir, "k.db")
	st, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	fill(t, dir, 0)
	if _, err := st.ImportRecording(ctx, storetest.Recording()); err == nil || !strings.Contains(err.Error(), "(the file system of folder "+dir+" has 0 KB free)") {
		t.Errorf("an import on a full disk: %v; want the free space said", err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	os.Remove(path + "-shm") // as a database no process has open
	fill(t, dir, 0)
	st, err = sqlite.Open(ctx, path)
	if err == nil {
		st.Close()
		t.Fatal("opened a database on a full disk, which needs room for its -shm file")
	}
	if !strings.Contains(err.Error(), "the disk is full (the file system of folder "+dir+" has 0 KB free)") {
		t.Errorf("open on a full disk: %v; want the disk said full", err)
	}
}

// A database that cannot be created for want of room is not left behind, empty, nor are
// its side files; the disk is said full once.
func TestAFailedCreationLeavesNoDatabase(t *testing.T) {
	for _, free := range []int64{0, 8 << 10, 32 << 10, 40 << 10} {
		t.Run(fmt.Sprintf("%d KB free", free>>10), func(t *testing.T) {
			dir := testfs.Small(t, "1m")
			fill(t, dir, free)
			path := filepath.Join(dir, "new.db")
			st, err := sqlite.Open(context.Background(), path)
			if err == nil {
				st.Close()
				t.Skip("the database was created")
			}
			if n := strings.Count(err.Error(), "(the file system of folder "+dir); n != 1 {
				t.Errorf("%v: the full disk said %d times, want once", err, n)
			}
			left, _ := filepath.Glob(path + "*")
			if len(left) > 0 {
				t.Errorf("%v: left %v", err, left)
			}
		})
	}
}

// A database on a file system mounted read-only reads, and its writes say where it is.
func TestADatabaseOnAReadOnlyMountIsSaidToBeThere(t *testing.T) {
	dir := testfs.Small(t, "1m")
	path, id := storedRun(t, dir)
	if err := syscall.Mount("", dir, "", syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
		t.Skipf("cannot remount read-only: %v", err)
	}
	ctx := context.Background()
	st, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Recording(ctx, id); err != nil {
		t.Errorf("read: %v", err)
	}
	if _, err := st.PutDevice(ctx, store.Device{Name: "gpu"}); !errors.Is(err, store.ErrReadOnly) || !strings.Contains(err.Error(), "the file "+path+" is on a read-only file system") {
		t.Errorf("write: %v; want store.ErrReadOnly saying the file is on a read-only file system", err)
	}
}
