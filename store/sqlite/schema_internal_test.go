package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/store"
	"github.com/ktune/ktune/store/internal/codec"
	"github.com/ktune/ktune/store/internal/sqlrow"
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
	got := queryPlan(t, s.r, s.q.LookupQuery(), 1, "32,2")
	if !strings.Contains(got, "evaluations_config (run_id=? AND config_key=?)") || strings.Contains(got, "TEMP B-TREE") {
		t.Errorf("Lookup's plan is %q, want a search of evaluations_config with no sort", got)
	}
}

// TestEvaluationsAfterSearchesTheSeqIndex checks that EvaluationsAfter reads a range of
// the (run_id, seq) index, in its order, rather than the run's rows before n too, for
// every schema version it reads.
func TestEvaluationsAfterSearchesTheSeqIndex(t *testing.T) {
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "plan.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for v := 1; v <= SchemaVersion; v++ {
		got := queryPlan(t, s.r, queries(s.path, v).EvaluationsFromQuery(), 1, 17946)
		if !strings.Contains(got, "SEARCH evaluations USING INDEX sqlite_autoindex_evaluations_1 (run_id=? AND seq>?)") ||
			strings.Contains(got, "TEMP B-TREE") {
			t.Errorf("schema version %d: EvaluationsAfter's plan is %q, want a search of the (run_id, seq) index with no sort", v, got)
		}
	}
}

// queryPlan is SQLite's plan for query with args, its steps joined by "; ".
func queryPlan(t *testing.T, db *sql.DB, query string, args ...any) string {
	t.Helper()
	rows, err := db.Query("EXPLAIN QUERY PLAN "+query, args...)
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
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(plan, "; ")
}

// v1Database writes a database as ktune wrote it with schema version 1: an imported run
// whose first two evaluations keep a file's strategy time among their metrics, and a
// third without one, as a tuning run's.
func v1Database(t *testing.T, path string) {
	params := []space.Param{{Name: "a", Values: []space.Value{space.IntValue(1), space.IntValue(2), space.IntValue(3)}}}
	oldDatabase(t, path, 1, store.Device{Name: "dev"}, store.Space{Kernel: "k", Params: params},
		[]store.RunInfo{{Kind: store.KindImport, Format: "kerneltuner"}},
		func(ctx context.Context, tx *sql.Tx, runs []int64) error {
			for seq, metrics := range []string{`{"GFLOP/s":3,"strategy_time":0.5}`, `{"strategy_time":0.25}`, ""} {
				config, _ := codec.Values(params[0].Values[seq : seq+1])
				_, err := tx.ExecContext(ctx, `INSERT INTO evaluations (run_id, seq, config, config_key, status, objective,
					samples, metrics, compile_ms, verify_ms, benchmark_ms, framework_ms, message, time)
					VALUES (?, ?, ?, ?, 'ok', ?, NULL, ?, 1, 2, 3, 4, '', NULL)`,
					runs[0], seq, string(config), fmt.Sprint(seq+1), float64(seq+1), sqlrow.NullText([]byte(metrics)))
				if err != nil {
					return err
				}
			}
			return nil
		})
}

// A database of schema version 1 keeps working: opened writable it is migrated, a file's
// strategy time moving from the metrics to the strategy_ms column; opened read-only it
// cannot be, and reads the same. Evaluations without one have an unknown (NaN) strategy
// time, which exports write as 0 named in ktune_unrecorded.
func TestASchemaVersion1DatabaseKeepsWorking(t *testing.T) {
	check := func(t *testing.T, s *Store, wantVersion int) {
		t.Helper()
		es, err := s.Evaluations(context.Background(), 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(es) != 3 {
			t.Fatalf("%d evaluations", len(es))
		}
		want := []struct {
			strategy float64
			metrics  string
		}{{0.5, "map[GFLOP/s:3]"}, {0.25, "map[]"}, {math.NaN(), "map[]"}}
		for i, e := range es {
			if got := fmt.Sprint(e.Metrics); got != want[i].metrics || !(e.StrategyMS == want[i].strategy ||
				math.IsNaN(e.StrategyMS) && math.IsNaN(want[i].strategy)) || e.Objective != float64(i+1) || e.FrameworkMS != 4 {
				t.Errorf("evaluation %d: strategy %v, metrics %v, objective %v; want %v, %s", i, e.StrategyMS, got, e.Objective, want[i].strategy, want[i].metrics)
			}
		}
		if e, ok, err := s.Lookup(context.Background(), 1, []space.Value{space.IntValue(1)}); err != nil || !ok || e.StrategyMS != 0.5 {
			t.Errorf("Lookup: %v %v, strategy %v", ok, err, e.StrategyMS)
		}
		var version int
		if err := s.r.QueryRow("PRAGMA user_version").Scan(&version); err != nil || version != wantVersion {
			t.Errorf("user_version %d (%v), want %d", version, err, wantVersion)
		}
	}
	t.Run("writable", func(t *testing.T) {
		s := openOld(t, false, func(path string) { v1Database(t, path) })
		check(t, s, SchemaVersion)
	})
	t.Run("read-only", func(t *testing.T) {
		s := openOld(t, true, func(path string) { v1Database(t, path) })
		check(t, s, 1)
		if err := s.AddEvaluation(context.Background(), 1, result.Evaluation{Config: []space.Value{space.IntValue(2)}}); !errors.Is(err, store.ErrReadOnly) {
			t.Errorf("a write to it: %v", err)
		}
	})
}

// v2Database writes a database as ktune wrote it with schema version 2: a tuning run on
// an OpenCL device with two evaluations, which have no launch.
func v2Database(t *testing.T, path string) {
	params := []space.Param{{Name: "block_size_x", Values: []space.Value{space.IntValue(32), space.IntValue(64)}}}
	oldDatabase(t, path, 2, store.Device{Name: "pthread-cpu", Backend: "opencl"}, store.Space{Kernel: "vector_add", Params: params},
		[]store.RunInfo{{Kind: store.KindTuning, Strategy: "brute_force"}},
		func(ctx context.Context, tx *sql.Tx, runs []int64) error {
			for seq := range 2 {
				config, _ := codec.Values(params[0].Values[seq : seq+1])
				_, err := tx.ExecContext(ctx, `INSERT INTO evaluations (run_id, seq, config, config_key, status, objective,
					samples, metrics, compile_ms, verify_ms, benchmark_ms, framework_ms, message, time, strategy_ms)
					VALUES (?, ?, ?, ?, 'ok', ?, NULL, NULL, 1, 2, 3, 4, '', NULL, 0.5)`,
					runs[0], seq, string(config), params[0].Values[seq].String(), float64(seq+1))
				if err != nil {
					return err
				}
			}
			return nil
		})
}

// A database of schema version 2, from before evaluations kept their launch and their
// compiler's warnings, keeps working: opened writable it is migrated, its evaluations read
// back without a launch or warnings and new ones keep theirs; opened read-only it cannot be, and reads the same. Its run reads
// back as a recording of its device's backend.
func TestASchemaVersion2DatabaseKeepsWorking(t *testing.T) {
	ctx := context.Background()
	check := func(t *testing.T, s *Store, wantVersion int) {
		t.Helper()
		rec, err := s.Recording(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(rec.Evaluations) != 2 || rec.Backend != "opencl" {
			t.Fatalf("%d evaluations, backend %q; want 2, opencl", len(rec.Evaluations), rec.Backend)
		}
		for i, e := range rec.Evaluations {
			if e.Launch != nil || e.Warnings != "" || e.Objective != float64(i+1) || e.StrategyMS != 0.5 || e.FrameworkMS != 4 || e.RunsPerSample != 1 {
				t.Errorf("evaluation %d: launch %v, objective %v, strategy %v, %d runs per sample; want none, %d, 0.5, 1 (a tuning run's)",
					i, e.Launch, e.Objective, e.StrategyMS, e.RunsPerSample, i+1)
			}
		}
		if e, ok, err := s.Lookup(ctx, 1, []space.Value{space.IntValue(64)}); err != nil || !ok || e.Objective != 2 || e.Launch != nil {
			t.Errorf("Lookup: %v %v, objective %v, launch %v", ok, err, e.Objective, e.Launch)
		}
		if tally, err := s.Tally(ctx, 1); err != nil || !tally.HasBest || tally.Best.Objective != 1 {
			t.Errorf("Tally: %+v, %v", tally, err)
		}
		var version int
		if err := s.r.QueryRow("PRAGMA user_version").Scan(&version); err != nil || version != wantVersion {
			t.Errorf("user_version %d (%v), want %d", version, err, wantVersion)
		}
	}
	launched := result.Evaluation{Config: []space.Value{space.IntValue(32)}, Status: result.OK, Objective: 0.75,
		Launch: &result.Launch{Grid: [3]int{31250, 1, 1}, Block: [3]int{32, 1, 1}}, Warnings: "k.cl:1:1: warning: w"}
	t.Run("writable", func(t *testing.T) {
		s := openOld(t, false, func(path string) { v2Database(t, path) })
		check(t, s, SchemaVersion)
		if err := s.AddEvaluation(ctx, 1, launched); err != nil {
			t.Fatal(err)
		}
		es, err := s.Evaluations(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(es) != 3 || !result.SameLaunch(es[2].Launch, launched.Launch) || es[2].Warnings != launched.Warnings {
			t.Errorf("an evaluation added after the migration reads back with launch %v, warnings %q; want %v, %q",
				es[len(es)-1].Launch, es[len(es)-1].Warnings, launched.Launch, launched.Warnings)
		}
	})
	t.Run("read-only", func(t *testing.T) {
		s := openOld(t, true, func(path string) { v2Database(t, path) })
		check(t, s, 2)
		if err := s.AddEvaluation(ctx, 1, launched); !errors.Is(err, store.ErrReadOnly) {
			t.Errorf("a write to it: %v", err)
		}
	})
}
