package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"testing"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/store"
	"github.com/ktune/ktune/store/internal/codec"
)

// v4Row is an evaluation as ktune stored it with schema version 4, and the runs per
// sample it reads back with after (0: unknown).
type v4Row struct {
	status, message string
	want            int
}

// v4Tuned are a tuning run's evaluations: the runs per sample of one timed for min_time
// is its note's, whatever its statistic and whatever note comes before it; another
// successful one was timed a run per sample; a failure's are unknown.
var v4Tuned = []v4Row{
	{"ok", "timed over 1280 runs for min_time 10ms: each of its 32 samples is the mean of 40 consecutive runs", 40},
	{"ok", "metrics left out: GB/s: division by zero; timed over 9 runs for min_time 5ms: each of its 3 samples is the median of 3 consecutive runs", 3},
	{"ok", "timed over 70 runs for min_time 1s: each of its 7 samples is the min of 10 consecutive runs (min_time not reached within the cap of 10000 runs)", 10},
	{"ok", "", 1},
	{"ok", "timed over the spec's 5 iterations alone: min_time not reached: another 5 runs would have passed its timeout of 1s", 1},
	{"ok", "timed over 5 of the spec's 32 iterations: another run would have passed its timeout of 10s", 1},
	{"compile_error", "k.cl:1: error: expected ';'", 0},
}

// v4Imported are an imported file's evaluations: a ktune export's note still says its
// runs per sample; another tuner's file says nothing of them.
var v4Imported = []v4Row{
	{"ok", "timed over 300 runs for min_time 10ms: each of its 3 samples is the mean of 100 consecutive runs", 100},
	{"ok", "", 0},
	{"timeout", "", 0},
}

// v4Database writes a database as ktune wrote it with schema version 4: run 1 a tuning
// run with the evaluations v4Tuned, run 2 an import of v4Imported.
func v4Database(t *testing.T, path string) {
	var values []space.Value
	for i := range len(v4Tuned) {
		values = append(values, space.IntValue(int64(i)))
	}
	oldDatabase(t, path, 4, store.Device{Name: "pthread-cpu", Backend: "opencl"},
		store.Space{Kernel: "k", Params: []space.Param{{Name: "p", Values: values}}},
		[]store.RunInfo{{Kind: store.KindTuning, Strategy: "brute_force"}, {Kind: store.KindImport, Strategy: "brute_force"}},
		func(ctx context.Context, tx *sql.Tx, runs []int64) error {
			for i, rows := range [][]v4Row{v4Tuned, v4Imported} {
				for seq, row := range rows {
					config, _ := codec.Values(values[seq : seq+1])
					objective := any(float64(seq + 1))
					if row.status != "ok" {
						objective = nil
					}
					_, err := tx.ExecContext(ctx, `INSERT INTO evaluations (run_id, seq, config, config_key, status, objective,
						samples, metrics, compile_ms, verify_ms, benchmark_ms, framework_ms, message, time, strategy_ms,
						grid_x, grid_y, grid_z, block_x, block_y, block_z, warnings)
						VALUES (?, ?, ?, ?, ?, ?, NULL, NULL, 1, 2, 3, 4, ?, NULL, 0.5, NULL, NULL, NULL, NULL, NULL, NULL, NULL)`,
						runs[i], seq, string(config), values[seq].String(), row.status, objective, row.message)
					if err != nil {
						return err
					}
				}
			}
			return nil
		})
}

// A database of schema version 4, from before evaluations kept their runs per sample,
// keeps working: opened writable it is migrated, and opened read-only it cannot be, and
// reads the same: each evaluation's runs per sample as its min_time note says them, 1
// for a tuning run's other successful ones, unknown for the rest; Lookup and Tally read
// them too. An evaluation added after the migration keeps its own.
func TestASchemaVersion4DatabaseReadsItsRunsPerSample(t *testing.T) {
	ctx := context.Background()
	check := func(t *testing.T, s *Store, wantVersion int) {
		t.Helper()
		for run, rows := range map[int64][]v4Row{1: v4Tuned, 2: v4Imported} {
			es, err := s.Evaluations(ctx, run)
			if err != nil {
				t.Fatal(err)
			}
			if len(es) != len(rows) {
				t.Fatalf("run %d: %d evaluations, want %d", run, len(es), len(rows))
			}
			for i, e := range es {
				if e.RunsPerSample != rows[i].want || e.Message != rows[i].message {
					t.Errorf("run %d, evaluation %d (%s, %q): %d runs per sample, want %d", run, i, rows[i].status, rows[i].message, e.RunsPerSample, rows[i].want)
				}
			}
		}
		if e, ok, err := s.Lookup(ctx, 1, []space.Value{space.IntValue(1)}); err != nil || !ok || e.RunsPerSample != 3 {
			t.Errorf("Lookup: %v %v, %d runs per sample; want 3", ok, err, e.RunsPerSample)
		}
		if tally, err := s.Tally(ctx, 1); err != nil || !tally.HasBest || tally.Best.RunsPerSample != 40 {
			t.Errorf("Tally: %+v, %v; want the best with 40 runs per sample", tally, err)
		}
		var version int
		if err := s.r.QueryRow("PRAGMA user_version").Scan(&version); err != nil || version != wantVersion {
			t.Errorf("user_version %d (%v), want %d", version, err, wantVersion)
		}
	}
	added := []result.Evaluation{
		{Config: []space.Value{space.IntValue(0)}, Status: result.OK, Objective: 0.5, Samples: []float64{0.5, 0.5}, RunsPerSample: 25},
		{Config: []space.Value{space.IntValue(1)}, Status: result.OK, Objective: 0.5, Samples: []float64{0.5, 0.5}},
	}
	t.Run("writable", func(t *testing.T) {
		s := openOld(t, false, func(path string) { v4Database(t, path) })
		check(t, s, SchemaVersion)
		for _, e := range added {
			if err := s.AddEvaluation(ctx, 2, e); err != nil {
				t.Fatal(err)
			}
		}
		es, err := s.Evaluations(ctx, 2)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(v4Imported); len(es) != n+2 || es[n].RunsPerSample != 25 || es[n+1].RunsPerSample != 0 {
			t.Errorf("evaluations added after the migration read back with %d and %d runs per sample, want 25 and 0 (unknown)",
				es[len(es)-2].RunsPerSample, es[len(es)-1].RunsPerSample)
		}
	})
	t.Run("read-only", func(t *testing.T) {
		s := openOld(t, true, func(path string) { v4Database(t, path) })
		check(t, s, 4)
		if err := s.AddEvaluation(ctx, 1, added[0]); !errors.Is(err, store.ErrReadOnly) {
			t.Errorf("a write to it: %v", err)
		}
	})
}
