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

// v6Database writes a database as ktune wrote it with schema version 6: run 1, a tuning
// run of three evaluations (objectives 3, 1, 2), from before evaluations named the device
// that measured them.
func v6Database(t *testing.T, path string) {
	values := []space.Value{space.IntValue(0), space.IntValue(1), space.IntValue(2)}
	oldDatabase(t, path, 6, store.Device{Name: "pthread-cpu", Backend: "opencl"},
		store.Space{Kernel: "k", Params: []space.Param{{Name: "p", Values: values}}},
		[]store.RunInfo{{Kind: store.KindTuning, Strategy: "brute_force"}},
		func(ctx context.Context, tx *sql.Tx, runs []int64) error {
			for seq, objective := range []float64{3, 1, 2} {
				config, _ := codec.Values(values[seq : seq+1])
				_, err := tx.ExecContext(ctx, `INSERT INTO evaluations (run_id, seq, config, config_key, status, objective,
					samples, metrics, compile_ms, verify_ms, benchmark_ms, framework_ms, message, time, strategy_ms,
					grid_x, grid_y, grid_z, block_x, block_y, block_z, warnings, runs_per_sample)
					VALUES (?, ?, ?, ?, 'ok', ?, NULL, NULL, 1, 2, 3, 4, '', NULL, 0.5, 8, 1, 1, 16, 1, 1, NULL, 1)`,
					runs[0], seq, string(config), values[seq].String(), objective)
				if err != nil {
					return err
				}
			}
			return nil
		})
}

// A database of schema version 6, from before evaluations named their device, keeps
// working: opened writable it is migrated to version 7, opened read-only it cannot be and
// is read as it is; either way its evaluations read back whole, with no device, through
// Evaluations, Lookup and Tally. An evaluation added after the migration keeps its device.
func TestASchemaVersion6DatabaseReadsWithoutDevices(t *testing.T) {
	ctx := context.Background()
	check := func(t *testing.T, s *Store, wantVersion int) {
		t.Helper()
		es, err := s.Evaluations(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(es) != 3 {
			t.Fatalf("%d evaluations, want 3", len(es))
		}
		for i, e := range es {
			if e.Device != "" || e.Status != result.OK || e.RunsPerSample != 1 || e.Launch == nil || e.Launch.Block[0] != 16 {
				t.Errorf("evaluation %d: device %q, %v, %d runs per sample, launch %v; want no device, ok, 1, block 16",
					i, e.Device, e.Status, e.RunsPerSample, e.Launch)
			}
		}
		if e, ok, err := s.Lookup(ctx, 1, []space.Value{space.IntValue(2)}); err != nil || !ok || e.Objective != 2 || e.Device != "" {
			t.Errorf("Lookup: %v %v, objective %v, device %q; want 2 and no device", ok, err, e.Objective, e.Device)
		}
		if tally, err := s.Tally(ctx, 1); err != nil || !tally.HasBest || tally.Best.Objective != 1 || tally.Evaluations != 3 {
			t.Errorf("Tally: %+v, %v; want 3 evaluations, the best 1", tally, err)
		}
		var version int
		if err := s.r.QueryRow("PRAGMA user_version").Scan(&version); err != nil || version != wantVersion {
			t.Errorf("user_version %d (%v), want %d", version, err, wantVersion)
		}
	}
	added := result.Evaluation{Config: []space.Value{space.IntValue(1)}, Status: result.OK, Objective: 0.5,
		Samples: []float64{0.5}, Device: "opencl:1"}
	t.Run("writable", func(t *testing.T) {
		s := openOld(t, false, func(path string) { v6Database(t, path) })
		check(t, s, SchemaVersion)
		var nulls int
		if err := s.r.QueryRow("SELECT count(*) FROM evaluations WHERE device IS NULL").Scan(&nulls); err != nil || nulls != 3 {
			t.Errorf("%d old rows with a NULL device (%v), want 3", nulls, err)
		}
		if err := s.AddEvaluation(ctx, 1, added); err != nil {
			t.Fatal(err)
		}
		es, err := s.Evaluations(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(es) != 4 || es[3].Device != "opencl:1" {
			t.Errorf("%d evaluations, the one added after the migration on %q; want 4, opencl:1", len(es), es[len(es)-1].Device)
		}
		if tally, err := s.Tally(ctx, 1); err != nil || tally.Best.Device != "opencl:1" {
			t.Errorf("Tally's best on %q (%v), want the added one's opencl:1", tally.Best.Device, err)
		}
	})
	t.Run("read-only", func(t *testing.T) {
		s := openOld(t, true, func(path string) { v6Database(t, path) })
		check(t, s, 6)
		if err := s.AddEvaluation(ctx, 1, added); !errors.Is(err, store.ErrReadOnly) {
			t.Errorf("a write to it: %v", err)
		}
	})
}
