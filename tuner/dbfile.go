package tuner

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ktune/ktune/store"
	"github.com/ktune/ktune/store/sqlite"
)

// ErrDatabaseLost is Tune's error, beside its report, when the database file was deleted
// or replaced by another file while the run was tuned. SQLite goes on writing into the
// file it opened, deleted or not, and what it stored there is lost with it when the
// process ends: the run's later evaluations are in no database a command can open.
var ErrDatabaseLost = errors.New("the database file was deleted or replaced while tuning")

// dbFile is the database file a run is stored in, as it was when tuning began.
type dbFile struct {
	path string // its symbolic links resolved
	fi   fs.FileInfo
}

// watchDB notes which file the database at db is now; nil when db names no file.
func watchDB(db string) *dbFile {
	if db == "" || store.Scheme(db) != store.DefaultScheme {
		return nil
	}
	path, err := filepath.EvalSymlinks(sqlite.PathOf(db))
	if err != nil {
		return nil
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil
	}
	return &dbFile{path: path, fi: fi}
}

// check returns ErrDatabaseLost when the file at the database's path is gone or is
// another file than the one tuning began with. A file it cannot look at passes.
func (d *dbFile) check() error {
	if d == nil {
		return nil
	}
	fi, err := os.Stat(d.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w: %s no longer exists; the evaluations stored since it was deleted are lost with it", ErrDatabaseLost, d.path)
	case err == nil && !os.SameFile(fi, d.fi):
		return fmt.Errorf("%w: %s is another file now; the evaluations stored since it was replaced are in the file it replaced, which is lost", ErrDatabaseLost, d.path)
	}
	return nil
}
