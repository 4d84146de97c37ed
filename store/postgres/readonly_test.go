package postgres_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ktune/ktune/store"
	"github.com/ktune/ktune/store/postgres"
	"github.com/ktune/ktune/store/postgres/pgtest"
	"github.com/ktune/ktune/store/storetest"
)

// relations counts the tables, indexes and sequences in the database's schema public.
func relations(t *testing.T, loc string) int {
	t.Helper()
	var n int
	err := raw(t, loc).QueryRow(`SELECT count(*) FROM pg_class
		WHERE relnamespace = 'public'::regnamespace`).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Opening a database without ktune's tables and reading it, as 'ktune runs' and the other
// commands that only read do, leaves it as it was; the first write makes the tables.
func TestReadingADatabaseWithoutTablesWritesNothing(t *testing.T) {
	loc := pgtest.URL(t)
	ctx := context.Background()
	st := openStore(t, loc)
	if runs, err := st.Runs(ctx, store.RunFilter{}); err != nil || len(runs) != 0 {
		t.Errorf("Runs = %v, %v; want none", runs, err)
	}
	if _, err := st.Run(ctx, 1); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Run(1): %v, want store.ErrNotFound", err)
	}
	if _, err := st.Recording(ctx, 1); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Recording(1): %v, want store.ErrNotFound", err)
	}
	if held, err := st.RunHeld(ctx, 1); err != nil || held {
		t.Errorf("RunHeld(1) = %v, %v", held, err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if n := relations(t, loc); n != 0 {
		t.Fatalf("reading a database without ktune's tables left %d relations in it", n)
	}
	if _, err := openStore(t, loc).ImportRecording(ctx, storetest.Recording()); err != nil {
		t.Fatal(err)
	}
	if n := relations(t, loc); n == 0 {
		t.Error("an import made no tables")
	}
}

// A role that may only connect and SELECT reads a database without ktune's tables as an
// empty store, is refused its writes with a message that says what to do, and reads runs
// and evaluations once a role that may write has stored them (as the same store, and
// as one opened afresh).
func TestARoleThatMayOnlyReadReadsADatabaseWithOrWithoutTables(t *testing.T) {
	loc := pgtest.URL(t)
	readerLoc := pgtest.ReadOnlyRole(t, loc)
	ctx := context.Background()
	reader := openStore(t, readerLoc)
	if runs, err := reader.Runs(ctx, store.RunFilter{}); err != nil || len(runs) != 0 {
		t.Errorf("a reader's Runs of a database without tables = %v, %v; want none", runs, err)
	}
	if _, err := reader.Tally(ctx, 1); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a reader's Tally(1) of a database without tables: %v, want store.ErrNotFound", err)
	}
	_, err := reader.PutDevice(ctx, store.Device{Name: "gpu"})
	if !errors.Is(err, store.ErrReadOnly) || !strings.Contains(err.Error(), "as a role that may create tables") {
		t.Errorf("a reader's first write: %v, want store.ErrReadOnly saying what to do", err)
	}
	if n := relations(t, loc); n != 0 {
		t.Fatalf("a reader's store left %d relations in the database", n)
	}

	rec := storetest.Recording()
	id, err := openStore(t, loc).ImportRecording(ctx, rec)
	if err != nil {
		t.Fatal(err)
	}
	for what, st := range map[string]*postgres.Store{"the reader's store": reader, "a new reader's store": openStore(t, readerLoc)} {
		runs, err := st.Runs(ctx, store.RunFilter{})
		if err != nil || len(runs) != 1 || runs[0].ID != id || runs[0].Evaluations != len(rec.Evaluations) {
			t.Errorf("%s: Runs = %+v, %v; want run %d of %d evaluations", what, runs, err, id, len(rec.Evaluations))
		}
		es, err := st.Evaluations(ctx, id)
		if err != nil || len(es) != len(rec.Evaluations) {
			t.Errorf("%s: %d evaluations, %v; want %d", what, len(es), err, len(rec.Evaluations))
		}
		if tally, err := st.Tally(ctx, id); err != nil || tally.Evaluations != len(rec.Evaluations) || !tally.HasBest {
			t.Errorf("%s: Tally = %+v, %v", what, tally, err)
		}
		if _, err := st.ImportRecording(ctx, rec); !errors.Is(err, store.ErrReadOnly) {
			t.Errorf("%s: import: %v, want store.ErrReadOnly", what, err)
		}
		if run, imported, err := st.ImportRecordingOnce(ctx, rec); err != nil || imported || run.ID != id {
			t.Errorf("%s: ImportRecordingOnce of a stored recording = run %d, %v, %v; want run %d found", what, run.ID, imported, err, id)
		}
	}
}

// A role that may not even read ktune's tables is told how to let it.
func TestARoleThatMayNotReadTheTablesIsToldWhatToGrant(t *testing.T) {
	loc := pgtest.URL(t)
	written(t, loc)
	readerLoc := pgtest.ReadOnlyRole(t, loc)
	reader := strings.SplitN(strings.TrimPrefix(readerLoc, "postgres://"), "@", 2)[0]
	if _, err := raw(t, loc).Exec(`REVOKE SELECT ON ALL TABLES IN SCHEMA public FROM ` + reader); err != nil {
		t.Fatal(err)
	}
	_, err := postgres.Open(context.Background(), readerLoc)
	if err == nil || !strings.Contains(err.Error(), "GRANT SELECT ON ALL TABLES IN SCHEMA public TO "+reader) {
		t.Errorf("open as a role that may not read the tables: %v", err)
	}
}
