package tuner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A database file deleted, or replaced by another file, while a run is tuned makes Tune
// fail with ErrDatabaseLost at the next evaluation, instead of storing the rest into a
// file that is gone and saying the run is in it.
func TestADatabaseDeletedOrReplacedWhileTuningIsAnError(t *testing.T) {
	needBackend(t, "c")
	for _, tc := range []struct {
		name string
		lose func(db string) error
	}{
		{"deleted", func(db string) error {
			return errors.Join(os.Remove(db), os.Remove(db+"-wal"), os.Remove(db+"-shm"))
		}},
		{"replaced", func(db string) error {
			other := filepath.Join(filepath.Dir(db), "other.db")
			if err := os.WriteFile(other, nil, 0o644); err != nil {
				return err
			}
			return os.Rename(other, db)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "k.db")
			lost := false
			rep, err := Tune(context.Background(), Options{SpecPath: vectorAdd, Strategy: "random", Seed: 1, Budget: 8, DB: db, NoPrecompile: true,
				Progress: func(p Progress) {
					if p.Evaluations == 3 && !lost {
						lost = true
						if err := tc.lose(db); err != nil {
							t.Error(err)
						}
					}
				}})
			if !errors.Is(err, ErrDatabaseLost) {
				t.Fatalf("Tune after the database was %s: %v, want ErrDatabaseLost", tc.name, err)
			}
			if rep == nil || rep.Evaluations > 4 {
				t.Errorf("report %+v: want the run stopped at the evaluation after the loss", rep)
			}
		})
	}
}
