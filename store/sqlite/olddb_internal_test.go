package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ktune/ktune/store"
)

// oldDatabase writes at path a database as ktune wrote it with schema version v: its
// first v migration steps; device dev and space sp; the finished runs runs over them (ids
// 1, 2... in order); the evaluations that insert adds to them in the columns of version
// v; and ktune's application id and the version.
func oldDatabase(t *testing.T, path string, v int, dev store.Device, sp store.Space, runs []store.RunInfo,
	insert func(ctx context.Context, tx *sql.Tx, runIDs []int64) error) {
	t.Helper()
	ctx := context.Background()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q := queries(path, v)
	err = inTx(ctx, db, func(tx *sql.Tx) error {
		for _, step := range migrations[:v] {
			if err := step(ctx, tx); err != nil {
				return err
			}
		}
		devID, err := q.PutDevice(ctx, tx, dev)
		if err != nil {
			return err
		}
		spID, err := q.PutSpace(ctx, tx, sp)
		if err != nil {
			return err
		}
		var runIDs []int64
		for _, run := range runs {
			run.SpaceID, run.DeviceID, run.Objective, run.Status = spID, devID, "time", store.StatusFinished
			run.Started, run.Finished = time.Unix(1700000000, 0), time.Unix(1700000000, 0)
			id, err := q.CreateRun(ctx, tx, run)
			if err != nil {
				return err
			}
			runIDs = append(runIDs, id)
		}
		if err := insert(ctx, tx, runIDs); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d", applicationID)); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", v))
		return err
	})
	if err != nil {
		t.Fatalf("write a database of schema version %d: %v", v, err)
	}
}

// openOld opens the database that write writes at the path it is given: writable, or, when
// readOnly, the file made read-only (mode 0444) in a folder of its own, so that the store
// opens it read-only and cannot migrate it. The store is closed when t ends.
func openOld(t *testing.T, readOnly bool, write func(path string)) *Store {
	t.Helper()
	dir := t.TempDir()
	if readOnly {
		dir = filepath.Join(dir, "ro")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "old.db")
	write(path)
	if readOnly {
		if err := os.Chmod(path, 0o444); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
