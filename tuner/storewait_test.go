package tuner

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/store"
)

// lockedBuffer is a log destination that the tuner and a test read at once.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// An interrupt while another process holds the database's write lock (a large import)
// ends tuning within storeGrace, not when the lock is released; the evaluation that could
// not be stored is named in a warning, and the error is the interruption's. The interrupt
// comes 5 s after the lock was taken, time for the next evaluation to be measured and
// wait to be stored on a loaded machine (at 500 ms, under a load of 21 on 2 cores, none
// had been measured yet, and no warning named one); Tune may take 10 s past storeGrace to
// return (2 s before), for a loaded machine to stop its worker: waiting for the lock would
// take the 25 s it is held after the interrupt.
func TestAnInterruptEndsTheWaitForAnotherProcesssWriteLock(t *testing.T) {
	needBackend(t, "c")
	defer func(g time.Duration) { storeGrace = g }(storeGrace)
	storeGrace = 500 * time.Millisecond
	db := filepath.Join(t.TempDir(), "k.db")
	var logs lockedBuffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	var (
		importer *sql.DB
		tx       *sql.Tx
		release  sync.Once
		cancelAt time.Time
	)
	commit := func() {
		release.Do(func() {
			if tx != nil {
				tx.Commit()
				importer.Close()
			}
		})
	}
	defer commit()
	o := Options{SpecPath: vectorAdd, Strategy: "random", Seed: 1, Budget: 10, DB: db, NoPrecompile: true,
		Logger: slog.New(slog.NewTextHandler(&logs, nil)),
		Progress: func(p Progress) {
			if p.Evaluations != 2 || tx != nil {
				return
			}
			// another process takes the write lock and keeps it for long
			var err error
			if importer, err = sql.Open("sqlite", "file:"+db+"?_txlock=immediate"); err != nil {
				t.Error(err)
				return
			}
			if tx, err = importer.Begin(); err != nil {
				t.Error(err)
				return
			}
			if _, err := tx.Exec(`INSERT INTO devices (name, backend) VALUES ('importer', '')`); err != nil {
				t.Error(err)
			}
			time.AfterFunc(30*time.Second, commit) // a test without the fix ends
			time.AfterFunc(5*time.Second, func() { cancelAt = time.Now(); cancel() })
		}}
	_, err := Tune(ctx, o)
	returned := time.Now()
	commit()
	if tx == nil {
		t.Fatal("the run ended before the write lock was taken")
	}
	if d := returned.Sub(cancelAt); d > storeGrace+10*time.Second { // the lock is held 25 s more
		t.Errorf("Tune returned %v after the interrupt, while another process held the write lock", d.Round(time.Millisecond))
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Tune: %v, want the interruption", err)
	}
	if !strings.Contains(logs.String(), "measured but not stored") {
		t.Errorf("no warning names the evaluation that was not stored; log:\n%s", logs.String())
	}
	if RunHeld(db, 1) {
		t.Errorf("run 1 is still held after Tune returned")
	}
}

// failingStore is a database that fails to add evaluations from the nth on, and to record
// how a run ended, as a full disk does.
type failingStore struct {
	store.Store
	n     int
	added int
}

var (
	errAddFull    = errors.New("add: database or disk is full")
	errFinishFull = errors.New("finish: database or disk is full")
)

func (s *failingStore) AddEvaluation(ctx context.Context, run int64, e result.Evaluation) error {
	if s.added++; s.added >= s.n {
		return errAddFull
	}
	return s.Store.AddEvaluation(ctx, run, e)
}

func (s *failingStore) FinishRun(ctx context.Context, run int64, status store.RunStatus) error {
	if status != store.StatusRunning {
		return errFinishFull
	}
	return s.Store.FinishRun(ctx, run, status)
}

// When the database fails the run (an evaluation cannot be stored) and then recording how
// it ended fails too, Tune returns both errors, the run's first, and the report of what
// was stored.
func TestAFailedFinishKeepsTheRunsErrorAndReport(t *testing.T) {
	needBackend(t, "c")
	db := filepath.Join(t.TempDir(), "k.db")
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	o := Options{SpecPath: vectorAdd, Strategy: "random", Seed: 1, Budget: 8, DB: db, NoPrecompile: true,
		Store: &failingStore{Store: st, n: 4}, Logger: slog.New(slog.DiscardHandler)}
	rep, err := Tune(context.Background(), o)
	if !errors.Is(err, errAddFull) || !errors.Is(err, errFinishFull) || strings.Index(err.Error(), errAddFull.Error()) > strings.Index(err.Error(), errFinishFull.Error()) {
		t.Errorf("Tune: %v; want the evaluation's error, then the finishing's", err)
	}
	if rep == nil || rep.Run != 1 || rep.BestObjective == nil {
		t.Errorf("report %+v; want run 1's, with its best", rep)
	}
}
