package postgres

import (
	"context"
	"strings"
	"testing"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/store/postgres/pgtest"
	"github.com/ktune/ktune/store/storetest"
)

// Tally reads a run's best from the evaluations_best index, one entry whichever the
// direction, right after an import (before the server's statistics know the rows), and
// its counts from that index too.
func TestTallyReadsTheBestIndex(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rec := storetest.LargeRecording(2000)
	id, err := st.ImportRecording(ctx, rec)
	if err != nil {
		t.Fatal(err)
	}
	plan := func(query string) string {
		rows, err := st.db.QueryContext(ctx, "EXPLAIN (ANALYZE, COSTS OFF) "+query, id, result.OK.String())
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var lines []string
		for rows.Next() {
			var l string
			if err := rows.Scan(&l); err != nil {
				t.Fatal(err)
			}
			lines = append(lines, l)
		}
		return strings.Join(lines, "\n")
	}
	for maximize, want := range map[bool]string{
		false: "Index Scan using evaluations_best on evaluations b",
		true:  "Index Scan Backward using evaluations_best on evaluations b",
	} {
		// b reads the best's objective, one entry, then its configuration is checked
		// against the run's wrong answers (none here) through the index too
		p := plan(tallyBestQuery(maximize))
		if !strings.Contains(p, want+" (actual time=") || !strings.Contains(p, "rows=1 loops=1)\n") || strings.Contains(p, "Sort") || strings.Contains(p, "Seq Scan") {
			t.Errorf("maximize %v: the best is not one entry of the index (%s):\n%s", maximize, want, p)
		}
	}
	if p := plan(tallyCountQuery); !strings.Contains(p, "evaluations_best") {
		t.Errorf("the count does not read the index:\n%s", p)
	}
}
