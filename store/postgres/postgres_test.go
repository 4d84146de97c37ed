package postgres_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver, to reach behind the store

	"github.com/ktune/ktune/store"
	"github.com/ktune/ktune/store/postgres"
	"github.com/ktune/ktune/store/postgres/pgtest"
	"github.com/ktune/ktune/store/storetest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

func TestConformance(t *testing.T) {
	storetest.Run(t, pgtest.URL)
}

func BenchmarkStore(b *testing.B) {
	storetest.Bench(b, pgtest.URL)
}

// raw connects to the database at loc directly, as another program would.
func raw(t *testing.T, loc string) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", loc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func openStore(t *testing.T, loc string) *postgres.Store {
	t.Helper()
	st, err := postgres.Open(context.Background(), loc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := st.Close(); err != nil {
			t.Error(err)
		}
	})
	return st
}

func TestBothSchemesOpenTheStore(t *testing.T) {
	loc := pgtest.URL(t)
	for _, l := range []string{loc, "postgresql" + strings.TrimPrefix(loc, "postgres")} {
		st, err := store.Open(context.Background(), l)
		if err != nil {
			t.Fatalf("open %s: %v", l, err)
		}
		if _, ok := st.(*postgres.Store); !ok {
			t.Errorf("open %s gave a %T", l, st)
		}
		st.Close()
	}
}

// written makes ktune's tables in the database at loc, as a store's first write does.
func written(t *testing.T, loc string) {
	t.Helper()
	if _, err := openStore(t, loc).PutDevice(context.Background(), store.Device{Name: "gpu"}); err != nil {
		t.Fatal(err)
	}
}

func TestANewerSchemaIsRefused(t *testing.T) {
	loc := pgtest.URL(t)
	written(t, loc)
	if _, err := raw(t, loc).Exec(`UPDATE ktune_schema SET version = $1`, postgres.SchemaVersion+1); err != nil {
		t.Fatal(err)
	}
	_, err := postgres.Open(context.Background(), loc)
	if !errors.Is(err, store.ErrNewerSchema) {
		t.Errorf("open a database of a newer schema: %v, want store.ErrNewerSchema", err)
	}
}

func TestSchemaVersionCountsMigrations(t *testing.T) {
	loc := pgtest.URL(t)
	written(t, loc)
	var v int
	if err := raw(t, loc).QueryRow(`SELECT version FROM ktune_schema`).Scan(&v); err != nil || v != postgres.SchemaVersion {
		t.Errorf("schema version %d, %v; want %d", v, err, postgres.SchemaVersion)
	}
}

func TestAnotherProgramsTablesAreLeftAlone(t *testing.T) {
	loc := pgtest.URL(t)
	if _, err := raw(t, loc).Exec(`CREATE TABLE runs (id int)`); err != nil {
		t.Fatal(err)
	}
	_, err := postgres.Open(context.Background(), loc)
	if err == nil || !strings.Contains(err.Error(), "not a ktune database") || !strings.Contains(err.Error(), "runs") {
		t.Errorf("open a database with another program's table runs: %v", err)
	}
}

func TestProcessesWritingToANewDatabaseAtOnceCreateItsTablesOnce(t *testing.T) {
	loc := pgtest.URL(t)
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			st, err := postgres.Open(context.Background(), loc)
			if err == nil {
				_, err = st.PutDevice(context.Background(), store.Device{Name: "gpu"})
				err = errors.Join(err, st.Close())
			}
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

func TestARoleThatMayNotWriteGetsErrReadOnly(t *testing.T) {
	loc := pgtest.URL(t)
	st := openStore(t, loc)
	ctx := context.Background()
	rec := storetest.Recording()
	id, err := st.ImportRecording(ctx, rec)
	if err != nil {
		t.Fatal(err)
	}
	db := raw(t, loc)
	for _, q := range []string{
		`DROP ROLE IF EXISTS ktune_reader`,
		`CREATE ROLE ktune_reader LOGIN`,
		`GRANT SELECT ON ALL TABLES IN SCHEMA public TO ktune_reader`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		db.Exec(`DROP OWNED BY ktune_reader`)
		db.Exec(`DROP ROLE ktune_reader`)
	})
	reader := openStore(t, strings.Replace(loc, "://ktune@", "://ktune_reader@", 1))
	if got, err := reader.Recording(ctx, id); err != nil || len(got.Evaluations) != len(rec.Evaluations) {
		t.Errorf("a reader read %v, %v", got, err)
	}
	if _, err := reader.ImportRecording(ctx, rec); !errors.Is(err, store.ErrReadOnly) {
		t.Errorf("a reader's import: %v, want store.ErrReadOnly", err)
	}
	if err := reader.FinishRun(ctx, id, store.StatusInterrupted); !errors.Is(err, store.ErrReadOnly) {
		t.Errorf("a reader's FinishRun: %v, want store.ErrReadOnly", err)
	}
}

func TestRedactHidesThePassword(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://ktune:secret@db.example/results":             "postgres://ktune:xxxxx@db.example/results",
		"postgres://ktune@db.example/results?password=secret":    "postgres://ktune@db.example/results?password=xxxxx",
		"postgresql://db.example/results?sslmode=disable":        "postgresql://db.example/results?sslmode=disable",
		"postgres://ktune@/results?host=%2Ftmp%2Fsock&port=5433": "postgres://ktune@/results?host=%2Ftmp%2Fsock&port=5433",
	} {
		if got := postgres.Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAnUnreachableServerIsSaid(t *testing.T) {
	_, err := postgres.Open(context.Background(), "postgres://ktune:secret@/none?host=/nonexistent&connect_timeout=2")
	if err == nil || !strings.Contains(err.Error(), "cannot reach the server") || strings.Contains(err.Error(), "secret") {
		t.Errorf("open an unreachable server: %v", err)
	}
}

// A compiler message with a NUL byte or bytes that are not UTF-8, which PostgreSQL's text
// cannot hold, is stored with U+FFFD in their place rather than losing the measurement,
// and so is a name.
func TestMessagesPostgreSQLCannotHoldAreStoredReplaced(t *testing.T) {
	st := openStore(t, pgtest.URL(t))
	ctx := context.Background()
	rec := storetest.Recording()
	rec.Evaluations = rec.Evaluations[2:3]
	rec.Evaluations[0].Message = "bad\x00byte \xff here"
	rec.Evaluations[0].Warnings = "w\xfe"
	id, err := st.ImportRecording(ctx, rec)
	if err != nil {
		t.Fatal(err)
	}
	es, err := st.Evaluations(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if es[0].Message != "bad\uFFFDbyte \uFFFD here" || es[0].Warnings != "w\uFFFD" {
		t.Errorf("stored %q and %q", es[0].Message, es[0].Warnings)
	}
	// so are names, which the server would refuse as they are (NamesAndValuesAreStoredAsUTF8
	// of the conformance suite holds the rest)
	for _, name := range []string{"gpu\x00", "gpu\xff"} {
		id, err := st.PutDevice(ctx, store.Device{Name: name})
		if err != nil {
			t.Fatalf("a device named %q: %v", name, err)
		}
		if d, err := st.Device(ctx, id); err != nil || d.Name != "gpu\uFFFD" {
			t.Errorf("a device named %q read back as %q, %v", name, d.Name, err)
		}
	}
}
