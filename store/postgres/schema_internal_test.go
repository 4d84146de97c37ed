package postgres

import (
	"context"
	"database/sql"
	"testing"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/store/internal/codec"
	"github.com/ktune/ktune/store/postgres/pgtest"
)

// A database of schema version 1, from before evaluations named the device that measured
// them, is migrated on opening: its evaluations read back whole with no device, and one
// added after keeps its own.
func TestASchemaVersion1DatabaseReadsWithoutDevices(t *testing.T) {
	ctx := context.Background()
	loc := pgtest.URL(t)
	db, err := sql.Open("pgx", loc)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
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
