package sqlite_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ktune/ktune/store"
	"github.com/ktune/ktune/store/sqlite"
	"github.com/ktune/ktune/store/storetest"
)

// storedRun makes a database with one imported run at dir/t.db and closes it.
func storedRun(t *testing.T, dir string) (path string, id int64) {
	t.Helper()
	path = filepath.Join(dir, "t.db")
	st, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	id, err = st.ImportRecording(context.Background(), storetest.Recording())
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	return path, id
}

// TestReadOnlyDatabasesCanBeRead reads a database whose file, or whose folder, may not be
// written, and refuses writes with the reason.
func TestReadOnlyDatabasesCanBeRead(t *testing.T) {
	for _, tc := range []struct {
		name     string
		fileMode os.FileMode
		dirMode  os.FileMode
		want     string
	}{
		{"read-only file", 0o444, 0o755, "is read-only (mode -r--r--r--)"},
		{"read-only folder", 0o644, 0o555, "is not writable (mode -r-xr-xr-x)"},
		{"both", 0o444, 0o555, "is read-only (mode -r--r--r--)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "ro")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			path, id := storedRun(t, dir)
			if err := os.Chmod(path, tc.fileMode); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dir, tc.dirMode); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chmod(dir, 0o755) })

			ctx := context.Background()
			st, err := sqlite.Open(ctx, path)
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			defer st.Close()
			rec, err := st.Recording(ctx, id)
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			if want := len(storetest.Recording().Evaluations); len(rec.Evaluations) != want {
				t.Errorf("read %d evaluations, want %d", len(rec.Evaluations), want)
			}
			_, err = st.PutDevice(ctx, store.Device{Name: "gpu"})
			if !errors.Is(err, store.ErrReadOnly) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("write: %v, want store.ErrReadOnly saying %q", err, tc.want)
			}
			if err := st.FinishRun(ctx, id, store.StatusInterrupted); !errors.Is(err, store.ErrReadOnly) {
				t.Errorf("finish run: %v, want store.ErrReadOnly", err)
			}
		})
	}
}

// TestOpenSaysWhatIsWrongWithThePath names the problem with a path that cannot hold a
// database, instead of SQLite's "unable to open database file".
func TestOpenSaysWhatIsWrongWithThePath(t *testing.T) {
	tmp := t.TempDir()
	file := filepath.Join(tmp, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	locked := filepath.Join(tmp, "locked")
	if err := os.Mkdir(locked, 0o555); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{tmp, tmp + " is a directory"},
		{filepath.Join(tmp, "no", "sub", "x.db"), "folder " + filepath.Join(tmp, "no", "sub") + " does not exist"},
		{filepath.Join(file, "x.db"), file + " is a file, not a folder"},
		{filepath.Join(locked, "x.db"), "cannot create the database: folder " + locked + " is not writable"},
	} {
		_, err := sqlite.Open(context.Background(), tc.path)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Open(%s) = %v, want an error saying %q", tc.path, err, tc.want)
		}
	}
}

// TestReadOnlyEmptyFileIsExplained opens an empty read-only file, which has no ktune
// tables and cannot be given them.
func TestReadOnlyEmptyFileIsExplained(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty.db")
	if err := os.WriteFile(path, nil, 0o444); err != nil {
		t.Fatal(err)
	}
	_, err := sqlite.Open(context.Background(), path)
	if err == nil || !strings.Contains(err.Error(), "empty") || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("Open of an empty read-only file: %v", err)
	}
}

// A database on a read-only file system is said to be there, not blamed on its mode or
// its user: opened read-only, its writes say so, and a new one cannot be created.
func TestAReadOnlyFileSystemIsSaid(t *testing.T) {
	dir := t.TempDir()
	path, _ := storedRun(t, dir)
	defer sqlite.SetCanWrite(func(string) error { return syscall.EROFS })()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.PutDevice(ctx, store.Device{Name: "gpu"}); !errors.Is(err, store.ErrReadOnly) || !strings.Contains(err.Error(), "the file "+path+" is on a read-only file system") {
		t.Errorf("write: %v; want store.ErrReadOnly saying the file is on a read-only file system", err)
	}
	if _, err := sqlite.Open(ctx, filepath.Join(dir, "new.db")); err == nil || !strings.Contains(err.Error(), "cannot create the database: folder "+dir+" is on a read-only file system") {
		t.Errorf("create: %v; want the folder said to be on a read-only file system", err)
	}
}

// A -wal or -shm file that this process may not write (left with mode -r--r--r-- by
// another user's reader of a read-only database) opens the database read-only, naming
// the file, although the database and its folder are writable; reads work.
func TestASideFileNotWritableIsNamed(t *testing.T) {
	for _, side := range []struct{ suffix, what string }{{"-shm", "shared-memory file"}, {"-wal", "write-ahead log"}} {
		t.Run(side.suffix, func(t *testing.T) {
			path, id := storedRun(t, t.TempDir())
			ctx := context.Background()
			other, err := sqlite.Open(ctx, path) // keeps the side files
			if err != nil {
				t.Fatal(err)
			}
			defer other.Close()
			defer sqlite.SetCanWrite(func(p string) error {
				if p == path+side.suffix {
					return syscall.EACCES
				}
				return nil
			})()
			st, err := sqlite.Open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if _, err := st.Recording(ctx, id); err != nil {
				t.Errorf("read: %v", err)
			}
			want := "its " + side.what + " " + path + side.suffix + " is not writable by this user (mode "
			if _, err := st.PutDevice(ctx, store.Device{Name: "gpu"}); !errors.Is(err, store.ErrReadOnly) || !strings.Contains(err.Error(), want) {
				t.Errorf("write: %v; want store.ErrReadOnly saying %q", err, want)
			}
		})
	}
}
