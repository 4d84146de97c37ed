package sqlite

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

func TestSchemaVersionCountsMigrations(t *testing.T) {
	if len(migrations) != SchemaVersion {
		t.Errorf("%d migrations but SchemaVersion %d: add the step and bump the version together", len(migrations), SchemaVersion)
	}
}

// TestLookupUsesItsIndex guards against SQLite preferring the (run_id, seq) index for
// ORDER BY seq, which turns every Lookup into a scan of the whole run.
func TestLookupUsesItsIndex(t *testing.T) {
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "plan.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rows, err := s.r.Query("EXPLAIN QUERY PLAN "+lookupQuery, 1, "32,2")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	got := strings.Join(plan, "; ")
	if !strings.Contains(got, "evaluations_config (run_id=? AND config_key=?)") || strings.Contains(got, "TEMP B-TREE") {
		t.Errorf("Lookup's plan is %q, want a search of evaluations_config with no sort", got)
	}
}
