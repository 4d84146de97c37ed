package postgres

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/store"
	"github.com/ktune/ktune/store/internal/codec"
	"github.com/ktune/ktune/store/postgres/pgtest"
)

// schemaV1Database makes a database of schema version 1, from before evaluations named
// the device that measured them, holding run 1, a finished tuning run of two evaluations
// (objectives 2 and 1) as version 1 stored it; it returns its location and a connection
// as its owner.
func schemaV1Database(t *testing.T) (string, *sql.DB) {
	t.Helper()
	ctx := context.Background()
	loc := pgtest.URL(t)
	db, err := sql.Open("pgx", loc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.ExecContext(ctx, migrations[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `UPDATE ktune_schema SET version = 1`); err != nil {
		t.Fatal(err)
	}
	// a tuning run as version 1 stored it: the columns of version 1 alone
	values := []space.Value{space.IntValue(1), space.IntValue(2)}
	params, _ := codec.Params([]space.Param{{Name: "p", Values: values}})
	one, _ := codec.Values(values[:1])
	two, _ := codec.Values(values[1:])
	for _, q := range []struct {
		query string
		args  []any
	}{
		{`INSERT INTO devices (id, name, backend) VALUES (1, 'pthread-cpu', 'opencl')`, nil},
		{`INSERT INTO spaces (id, hash, kernel, params) VALUES (1, 'h', 'k', $1)`, []any{string(params)}},
		{`INSERT INTO runs (id, space_id, device_id, kind, objective, direction, started, status, next_seq)
			VALUES (1, 1, 1, 'tuning', 'time', 'min', 1700000000000000000, 'finished', 2)`, nil},
		{`INSERT INTO evaluations (run_id, seq, config, config_key, status, objective, runs_per_sample)
			VALUES (1, 0, $1, '1', 'ok', 2, 1), (1, 1, $2, '2', 'ok', 1, 1)`, []any{string(one), string(two)}},
	} {
		if _, err := db.ExecContext(ctx, q.query, q.args...); err != nil {
			t.Fatal(err)
		}
	}
	return loc, db
}

// A database of schema version 1 is migrated on opening: its evaluations read back whole
// with no device, and one added after keeps its own.
func TestASchemaVersion1DatabaseReadsWithoutDevices(t *testing.T) {
	ctx := context.Background()
	loc, db := schemaV1Database(t)
	st, err := Open(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var version int
	if err := db.QueryRowContext(ctx, `SELECT version FROM ktune_schema`).Scan(&version); err != nil || version != SchemaVersion {
		t.Errorf("schema version %d (%v) after opening, want %d", version, err, SchemaVersion)
	}
	es, err := st.Evaluations(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 2 || es[0].Device != "" || es[1].Device != "" || es[1].Objective != 1 {
		t.Fatalf("old evaluations read back as %+v, want two without a device", es)
	}
	added := result.Evaluation{Config: []space.Value{space.IntValue(1)}, Status: result.OK, Objective: 0.5, Device: "opencl:1"}
	if err := st.AddEvaluation(ctx, 1, added); err != nil {
		t.Fatal(err)
	}
	tally, err := st.Tally(ctx, 1)
	if err != nil || tally.Evaluations != 3 || tally.Best.Device != "opencl:1" {
		t.Errorf("Tally: %+v, %v; want 3 evaluations, the best measured on opencl:1", tally, err)
	}
}

// A role that may only read a database of schema version 1 reads it as it is, without
// attempting the migration, which it may not: the schema stays at version 1, the old
// evaluations read back whole with no device through every read, and a write is refused
// with store.ErrReadOnly saying what to do. The owner's store, opened after, migrates it,
// and the reader's store, still open, reads on.
func TestARoleThatMayOnlyReadReadsAnOlderSchemaAsItIs(t *testing.T) {
	ctx := context.Background()
	loc, db := schemaV1Database(t)
	version := func() int {
		t.Helper()
		var v int
		if err := db.QueryRowContext(ctx, `SELECT version FROM ktune_schema`).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	reader, err := Open(ctx, pgtest.ReadOnlyRole(t, loc))
	if err != nil {
		t.Fatalf("open schema version 1 as a role that may only read: %v", err)
	}
	defer reader.Close()
	if v := version(); v != 1 {
		t.Fatalf("a reader's store changed the schema version to %d", v)
	}
	reads := func(when string) {
		t.Helper()
		runs, err := reader.Runs(ctx, store.RunFilter{})
		if err != nil || len(runs) != 1 || runs[0].Evaluations != 2 || runs[0].Kernel != "k" || runs[0].Device != "pthread-cpu" {
			t.Errorf("%s: Runs = %+v, %v; want run 1 of kernel k on pthread-cpu, 2 evaluations", when, runs, err)
		}
		es, err := reader.Evaluations(ctx, 1)
		if err != nil || len(es) != 2 || es[0].Objective != 2 || es[1].Objective != 1 || es[0].Device != "" || es[1].Device != "" {
			t.Errorf("%s: Evaluations = %+v, %v; want objectives 2 and 1, no device", when, es, err)
		}
		tally, err := reader.Tally(ctx, 1)
		if err != nil || tally.Evaluations != 2 || tally.Succeeded != 2 || !tally.HasBest || tally.Best.Objective != 1 || tally.Best.Device != "" {
			t.Errorf("%s: Tally = %+v, %v; want 2 successes, the best of objective 1", when, tally, err)
		}
		if e, ok, err := reader.Lookup(ctx, 1, []space.Value{space.IntValue(2)}); err != nil || !ok || e.Objective != 1 {
			t.Errorf("%s: Lookup(2) = %+v, %v, %v", when, e, ok, err)
		}
		if rec, err := reader.Recording(ctx, 1); err != nil || len(rec.Evaluations) != 2 || rec.Kernel != "k" {
			t.Errorf("%s: Recording = %+v, %v", when, rec, err)
		}
	}
	reads("schema version 1")
	err = reader.AddEvaluation(ctx, 1, result.Evaluation{Config: []space.Value{space.IntValue(1)}, Status: result.OK, Objective: 3})
	if !errors.Is(err, store.ErrReadOnly) || !strings.Contains(err.Error(), "schema version 1") || !strings.Contains(err.Error(), "owns ktune's tables") {
		t.Errorf("a reader's write to schema version 1: %v, want store.ErrReadOnly naming the version and what to do", err)
	}
	if v := version(); v != 1 {
		t.Fatalf("a reader's write changed the schema version to %d", v)
	}

	owner, err := Open(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	defer owner.Close()
	if v := version(); v != SchemaVersion {
		t.Errorf("the owner's store left schema version %d, want %d", v, SchemaVersion)
	}
	reads("after the owner migrated it")
}
