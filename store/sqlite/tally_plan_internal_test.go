package sqlite

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ktune/ktune/result"
)

// TestTallyReadsTheBestIndex checks that a run's tally (on every poll of the dashboard's
// live view, and per run in 'ktune runs') reads the evaluations_best index rather than
// every row of the run: the count and successes from the index alone, the best as the
// first entry of its range (for a maximised objective read backwards, with only the
// first objective's ties put in the run's order).
func TestTallyReadsTheBestIndex(t *testing.T) {
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "plan.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := queryPlan(t, s.r, tallyCountQuery, 1, result.OK.String()); got != "SEARCH evaluations USING COVERING INDEX evaluations_best (run_id=?)" {
		t.Errorf("the count's plan is %q, want a search of the covering index evaluations_best", got)
	}
	for _, maximize := range []bool{false, true} {
		got := queryPlan(t, s.r, tallyBestQuery(selectColumns(s.version), maximize), 1, result.OK.String())
		// the check that the configuration was found wrong nowhere in the run searches an
		// index too, never scanning the table
		ok := strings.HasPrefix(got, "SEARCH evaluations USING INDEX evaluations_best (run_id=? AND status=? AND objective>?)") &&
			strings.Contains(got, "SEARCH w USING ") && !strings.Contains(got, "SCAN") &&
			!strings.Contains(got, "TEMP B-TREE FOR ORDER BY") && (maximize || !strings.Contains(got, "TEMP B-TREE"))
		if !ok {
			t.Errorf("maximize %v: the best's plan is %q, want a search of evaluations_best in objective order", maximize, got)
		}
	}
}
