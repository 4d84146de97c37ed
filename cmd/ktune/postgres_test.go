package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/ktune/ktune/store"
	"github.com/ktune/ktune/store/postgres/pgtest"
)

// A tuning run goes into a PostgreSQL database as into an SQLite file: runs lists it,
// export reads it back, and the same command resumes it; a run held by another process
// (an advisory lock in the database) is not resumed beside it, and reads as running while
// held, interrupted once no process holds it.
func TestTuneIntoPostgreSQLAndReadItBack(t *testing.T) {
	needBackend(t, "c")
	db := pgtest.URL(t)
	spec := "../../examples/vector_add/vector_add_c.yaml"
	tune := func(budget string) (string, string, int) {
		return ktune(t, "tune", spec, "--budget", budget, "--db", db, "--json")
	}
	if _, errOut, code := tune("3"); code != 0 {
		t.Fatalf("tune: exit %d: %s", code, errOut)
	}
	type listed struct {
		ID          int64  `json:"id"`
		Status      string `json:"status"`
		Evaluations int    `json:"evaluations"`
	}
	runs := func() []listed {
		t.Helper()
		out, errOut, code := ktune(t, "runs", "--db", db, "--json")
		if code != 0 {
			t.Fatalf("runs: exit %d: %s", code, errOut)
		}
		var got []listed
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		return got
	}
	if got := runs(); len(got) != 1 || got[0].Evaluations != 3 || got[0].Status != "finished" {
		t.Fatalf("runs = %+v, want one finished run of 3 evaluations", got)
	}
	out := filepath.Join(t.TempDir(), "run1.json")
	if _, errOut, code := ktune(t, "export", "--run", "1", "--format", "kerneltuner", "--db", db, "-o", out); code != 0 {
		t.Fatalf("export: exit %d: %s", code, errOut)
	}
	exported, err := os.ReadFile(out)
	if err != nil || !strings.Contains(string(exported), `"unroll_factor"`) {
		t.Fatalf("export wrote %.200s, %v", exported, err)
	}
	// an import is run 2, which report and analyze read
	if _, errOut, code := ktune(t, "import", pnpoly, "--db", db); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errOut)
	}
	if _, errOut, code := ktune(t, "import", pnpoly, "--db", db); code != 0 { // found, not stored again
		t.Fatalf("import again: exit %d: %s", code, errOut)
	}
	if got := runs(); len(got) != 2 {
		t.Fatalf("runs after importing one file twice = %+v, want 2 runs", got)
	}
	page := filepath.Join(t.TempDir(), "run2.html")
	if _, errOut, code := ktune(t, "report", "--run", "2", "--db", db, "-o", page); code != 0 {
		t.Fatalf("report: exit %d: %s", code, errOut)
	}
	if fi, err := os.Stat(page); err != nil || fi.Size() == 0 {
		t.Errorf("report wrote no page: %v", err)
	}
	if outJSON, errOut, code := ktune(t, "analyze", "--run", "2", "--db", db, "--json"); code != 0 || !strings.HasPrefix(strings.TrimSpace(outJSON), "{") && !strings.HasPrefix(strings.TrimSpace(outJSON), "[") {
		t.Fatalf("analyze: exit %d: %s %.200s", code, errOut, outJSON)
	}

	// A run left running: another process holds it, then none does.
	ctx := context.Background()
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.FinishRun(ctx, 1, store.StatusRunning); err != nil {
		t.Fatal(err)
	}
	if got := runs(); got[0].Status != "interrupted" {
		t.Errorf("a run left running that nobody holds reads %q, want interrupted", got[0].Status)
	}
	held, err := st.(store.RunLocker).LockRun(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := runs(); got[0].Status != "running" {
		t.Errorf("a held run reads %q, want running", got[0].Status)
	}
	if _, errOut, code := tune("5"); code == 0 || !strings.Contains(errOut, "is being tuned by another ktune process") {
		t.Errorf("tune beside a held run: exit %d: %s", code, errOut)
	}
	held.Release()
	if _, errOut, code := tune("5"); code != 0 {
		t.Fatalf("tune again: exit %d: %s", code, errOut)
	}
	if got := runs(); len(got) != 2 || got[0].Evaluations != 5 || got[0].Status != "finished" {
		t.Errorf("runs after resuming = %+v, want run 1 finished with 5 evaluations", got)
	}
}

// The commands that only read write nothing to a PostgreSQL database without ktune's
// tables, and read it as an empty store, for the database's owner and for a role that
// may only connect and read; once an import has stored a run, the reader reads it.
func TestReadingCommandsLeaveAPostgreSQLDatabaseWithoutTablesAlone(t *testing.T) {
	db := pgtest.URL(t)
	reader := pgtest.ReadOnlyRole(t, db)
	tables := func() int {
		t.Helper()
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		var n int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_class WHERE relnamespace = 'public'::regnamespace`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	dir := t.TempDir()
	for _, loc := range []string{db, reader} {
		if out, errOut, code := ktune(t, "runs", "--db", loc); code != 0 || !strings.Contains(out, "no runs in") {
			t.Errorf("runs --db %s: exit %d: %s%s", loc, code, out, errOut)
		}
		if out, errOut, code := ktune(t, "runs", "--db", loc, "--json"); code != 0 || strings.TrimSpace(out) != "[]" {
			t.Errorf("runs --db %s --json: exit %d: %s%s", loc, code, out, errOut)
		}
		for _, args := range [][]string{
			{"report", "--run", "1", "-o", filepath.Join(dir, "r.html")},
			{"analyze", "--run", "1", "--json"},
			{"export", "--run", "1", "--format", "kerneltuner", "-o", filepath.Join(dir, "r.json")},
		} {
			_, errOut, code := ktune(t, append(args, "--db", loc)...)
			if code == 0 || !strings.Contains(errOut, "holds no run 1: it holds no runs yet") {
				t.Errorf("%s --db %s: exit %d: %s", strings.Join(args, " "), loc, code, errOut)
			}
		}
		if n := tables(); n != 0 {
			t.Fatalf("reading %s left %d relations in the database", loc, n)
		}
	}
	if _, errOut, code := ktune(t, "import", pnpoly, "--db", reader); code == 0 || !strings.Contains(errOut, "read-only") {
		t.Errorf("import as a role that may only read: exit %d: %s", code, errOut)
	}
	if _, errOut, code := ktune(t, "import", pnpoly, "--db", db); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errOut)
	}
	out, errOut, code := ktune(t, "runs", "--db", reader, "--json")
	var runs []struct {
		ID          int64 `json:"id"`
		Evaluations int   `json:"evaluations"`
	}
	if err := json.Unmarshal([]byte(out), &runs); code != 0 || err != nil || len(runs) != 1 || runs[0].Evaluations == 0 {
		t.Fatalf("runs as the reader after an import: exit %d, %v: %s%s", code, err, out, errOut)
	}
	exported := filepath.Join(dir, "run1.json")
	if _, errOut, code := ktune(t, "export", "--run", "1", "--format", "kerneltuner", "--db", reader, "-o", exported); code != 0 {
		t.Errorf("export as the reader: exit %d: %s", code, errOut)
	}
	if fi, err := os.Stat(exported); err != nil || fi.Size() == 0 {
		t.Errorf("export as the reader wrote nothing: %v", err)
	}
}

// A run whose id is above 2^31 (a database that has made that many runs, or whose ids
// were moved there) is tuned, held, listed and resumed as any other.
func TestTuneARunOfAnIDAboveTwoToThe31IntoPostgreSQL(t *testing.T) {
	needBackend(t, "c")
	db := pgtest.URL(t)
	ctx := context.Background()
	if _, errOut, code := ktune(t, "import", pnpoly, "--db", db); code != 0 { // makes the tables
		t.Fatalf("import: exit %d: %s", code, errOut)
	}
	conn, err := pgx.Connect(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	const big = 1<<32 + 1
	if _, err := conn.Exec(ctx, `ALTER TABLE runs ALTER COLUMN id RESTART WITH 4294967297`); err != nil {
		t.Fatal(err)
	}
	spec := "../../examples/vector_add/vector_add_c.yaml"
	tune := func(budget string) (string, int) {
		_, errOut, code := ktune(t, "tune", spec, "--budget", budget, "--db", db, "--json")
		return errOut, code
	}
	if errOut, code := tune("2"); code != 0 {
		t.Fatalf("tune: exit %d: %s", code, errOut)
	}
	tuned := func() (status string, evaluations int) {
		t.Helper()
		out, errOut, code := ktune(t, "runs", "--db", db, "--kind", "tuning", "--json")
		var runs []struct {
			ID          int64  `json:"id"`
			Status      string `json:"status"`
			Evaluations int    `json:"evaluations"`
		}
		if err := json.Unmarshal([]byte(out), &runs); code != 0 || err != nil || len(runs) != 1 || runs[0].ID != big {
			t.Fatalf("runs: exit %d, %v: %s%s; want run %d alone", code, err, out, errOut, int64(big))
		}
		return runs[0].Status, runs[0].Evaluations
	}
	if status, n := tuned(); status != "finished" || n != 2 {
		t.Fatalf("run %d: %s with %d evaluations, want finished with 2", int64(big), status, n)
	}
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.FinishRun(ctx, big, store.StatusRunning); err != nil {
		t.Fatal(err)
	}
	held, err := st.(store.RunLocker).LockRun(ctx, big)
	if err != nil {
		t.Fatal(err)
	}
	if status, _ := tuned(); status != "running" {
		t.Errorf("a held run reads %q, want running", status)
	}
	if errOut, code := tune("4"); code == 0 || !strings.Contains(errOut, "is being tuned by another ktune process") {
		t.Errorf("tune beside a held run: exit %d: %s", code, errOut)
	}
	held.Release()
	if status, _ := tuned(); status != "interrupted" {
		t.Errorf("a run left running that nobody holds reads %q, want interrupted", status)
	}
	if errOut, code := tune("4"); code != 0 {
		t.Fatalf("tune again: exit %d: %s", code, errOut)
	}
	if status, n := tuned(); status != "finished" || n != 4 {
		t.Errorf("run %d after resuming: %s with %d evaluations, want finished with 4", int64(big), status, n)
	}
}

// A role that may only read a PostgreSQL database of an older ktune schema (version 1,
// from before evaluations named their device) lists and reports its runs as they are,
// leaving the schema as it found it; the owner's first command migrates it.
func TestReadingCommandsReadAnOlderPostgreSQLSchemaAsARoleThatMayOnlyRead(t *testing.T) {
	db := pgtest.URL(t)
	reader := pgtest.ReadOnlyRole(t, db)
	if _, errOut, code := ktune(t, "import", pnpoly, "--db", db); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errOut)
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	// schema 2 differs from 1 by the evaluations' device column alone
	for _, q := range []string{`ALTER TABLE evaluations DROP COLUMN device`, `UPDATE ktune_schema SET version = 1`} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	version := func() int {
		t.Helper()
		var v int
		if err := conn.QueryRow(ctx, `SELECT version FROM ktune_schema`).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	out, errOut, code := ktune(t, "runs", "--db", reader, "--json")
	var runs []struct {
		ID          int64  `json:"id"`
		Kernel      string `json:"kernel"`
		Evaluations int    `json:"evaluations"`
	}
	if err := json.Unmarshal([]byte(out), &runs); code != 0 || err != nil || len(runs) != 1 || runs[0].ID != 1 || runs[0].Evaluations == 0 {
		t.Fatalf("runs as the reader of schema version 1: exit %d, %v: %s%s", code, err, out, errOut)
	}
	report := filepath.Join(t.TempDir(), "r.html")
	if _, errOut, code := ktune(t, "report", "--run", "1", "--db", reader, "-o", report); code != 0 {
		t.Fatalf("report as the reader of schema version 1: exit %d: %s", code, errOut)
	}
	if html, err := os.ReadFile(report); err != nil || !strings.Contains(string(html), runs[0].Kernel) {
		t.Errorf("the report names no kernel %q: %v", runs[0].Kernel, err)
	}
	if v := version(); v != 1 {
		t.Fatalf("reading as the reader changed the schema version to %d", v)
	}
	if _, errOut, code := ktune(t, "import", "../../testdata/kernel_tuner/vector_add_A4000.json", "--db", reader); code == 0 || !strings.Contains(errOut, "schema version 1") {
		t.Errorf("import of a new file as the reader of schema version 1: exit %d: %s", code, errOut)
	}
	if _, errOut, code := ktune(t, "runs", "--db", db); code != 0 {
		t.Fatalf("runs as the owner: exit %d: %s", code, errOut)
	}
	if v := version(); v != 2 {
		t.Errorf("the owner's command left schema version %d, want 2", v)
	}
}
