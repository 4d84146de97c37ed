package postgres_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ktune/ktune/store"
	"github.com/ktune/ktune/store/postgres/pgtest"
	"github.com/ktune/ktune/store/storetest"
)

// A large batch of evaluations goes to the server by COPY, a small one by INSERT, and
// either is stored all at once or not at all: a trigger that refuses one row of a batch
// (and names the statement that sent it) leaves the run as it was, and its numbering
// goes on without a gap.
func TestLargeBatchesAreCopiedAllOrNothing(t *testing.T) {
	loc := pgtest.URL(t)
	st := openStore(t, loc)
	ctx := context.Background()
	rec := storetest.LargeRecording(3000)
	id, err := st.ImportRecording(ctx, rec)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := st.Recording(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if !stored.SameAs(rec) {
		t.Fatal("an import of 3000 evaluations read back differs from the recording")
	}

	db := raw(t, loc)
	if _, err := db.Exec(`CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			IF NEW.seq IN (3000 + 1500, 3000 + 2000 + 3) THEN
				RAISE EXCEPTION 'refused seq % sent by: %', NEW.seq, current_query();
			END IF;
			RETURN NEW;
		END $$;
		CREATE TRIGGER refuse BEFORE INSERT ON evaluations FOR EACH ROW EXECUTE FUNCTION refuse()`); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		n      int
		by     string // in the statement that sent the refused row
		before int    // the run's evaluations before the batch
	}{
		{2000, "from stdin", 3000},
		{5, "insert into evaluations", 5000},
	} {
		err := st.AddEvaluations(ctx, id, rec.Evaluations[:tc.n])
		if err == nil || !strings.Contains(strings.ToLower(err.Error()), tc.by) {
			t.Errorf("a batch of %d with a refused row: %v, want the server's refusal of a statement %q", tc.n, err, tc.by)
		}
		if tally, err := st.Tally(ctx, id); err != nil || tally.Evaluations != tc.before {
			t.Errorf("after a refused batch of %d the run has %d evaluations, %v; want %d", tc.n, tally.Evaluations, err, tc.before)
		}
		// the small batch would be refused at seq 3000+2000+3 only once the large one is in
		if tc.n == 2000 {
			if _, err := db.Exec(`DROP TRIGGER refuse ON evaluations`); err != nil {
				t.Fatal(err)
			}
			if err := st.AddEvaluations(ctx, id, rec.Evaluations[:tc.n]); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(`CREATE TRIGGER refuse BEFORE INSERT ON evaluations FOR EACH ROW EXECUTE FUNCTION refuse()`); err != nil {
				t.Fatal(err)
			}
		}
	}
	after, err := st.EvaluationsAfter(ctx, id, 3000)
	if err != nil || len(after) != 2000 {
		t.Fatalf("after the batches: %d evaluations beyond the import, %v; want 2000", len(after), err)
	}
	if run, err := st.Run(ctx, id); err != nil || run.Evaluations != 5000 {
		t.Errorf("the run counts %d evaluations, %v; want 5000", run.Evaluations, err)
	}
	var n, maxSeq int
	if err := db.QueryRow(`SELECT count(*), max(seq) FROM evaluations WHERE run_id = $1`, id).Scan(&n, &maxSeq); err != nil || n != 5000 || maxSeq != 4999 {
		t.Errorf("evaluations: %d rows up to seq %d, %v; want 5000 up to 4999", n, maxSeq, err)
	}
	if err := st.AddEvaluations(ctx, 987654, rec.Evaluations[:100]); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a batch to a missing run: %v, want store.ErrNotFound", err)
	}
}
