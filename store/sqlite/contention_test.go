package sqlite_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ktune/ktune/store"
	"github.com/ktune/ktune/store/sqlite"
	"github.com/ktune/ktune/store/storetest"
)

// holdWriteLock opens a second connection to the database at path, as another process
// (a large ktune import) would, and holds its write lock with an uncommitted insert
// until the returned function commits it.
func holdWriteLock(t *testing.T, path string) (commit func()) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`INSERT INTO devices (name, backend) VALUES ('importer', '')`); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	commit = func() {
		once.Do(func() {
			if err := tx.Commit(); err != nil {
				t.Error(err)
			}
			db.Close()
		})
	}
	t.Cleanup(commit)
	return commit
}

// captureLog sends slog's default logger to a buffer for the test.
func captureLog(t *testing.T) *syncBuffer {
	t.Helper()
	var buf syncBuffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	t.Cleanup(func() { slog.SetDefault(old) })
	return &buf
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestOpenAndReadWhileAnotherProcessWrites opens a database and reads it while another
// connection holds the write lock: neither waits for it. SQLite's busy timeout is a
// minute, so that a wait for the lock is told apart from a loaded machine's slow open
// and read (under 30 s; with a 2 s busy timeout the bound was 1 s).
func TestOpenAndReadWhileAnotherProcessWrites(t *testing.T) {
	defer sqlite.SetWaits(time.Minute, time.Second, time.Minute)()
	st, path := openStore(t)
	ctx := context.Background()
	rec := storetest.Recording()
	id := storetest.NewRun(t, st, rec)
	if err := st.AddEvaluations(ctx, id, rec.Evaluations); err != nil {
		t.Fatal(err)
	}
	holdWriteLock(t, path)

	start := time.Now()
	other, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatalf("open while another connection writes: %v", err)
	}
	defer other.Close()
	es, err := other.Evaluations(ctx, id)
	if err != nil {
		t.Fatalf("read while another connection writes: %v", err)
	}
	if len(es) != len(rec.Evaluations) {
		t.Errorf("read %d evaluations, want %d", len(es), len(rec.Evaluations))
	}
	if _, err := other.Run(ctx, id); err != nil {
		t.Fatal(err)
	}
	// SQLite would wait the whole busy timeout for a lock it cannot get.
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("opening and reading took %v while another connection held the write lock", d)
	}
}

// TestWriteWaitsForAnotherProcesssWriteLock adds an evaluation while another connection
// holds the write lock for longer than SQLite's busy timeout: the write waits, logs that
// it waits, and is stored once the lock is released. The lock is held until the warning
// is logged (after 200 ms), up to 30 s for a loaded machine; the write must not have
// returned by then.
func TestWriteWaitsForAnotherProcesssWriteLock(t *testing.T) {
	defer sqlite.SetWaits(200*time.Millisecond, 200*time.Millisecond, time.Minute)()
	logs := captureLog(t)
	st, path := openStore(t)
	ctx := context.Background()
	rec := storetest.Recording()
	id := storetest.NewRun(t, st, rec)
	commit := holdWriteLock(t, path)

	done := make(chan error, 1)
	go func() { done <- st.AddEvaluation(ctx, id, rec.Evaluations[0]) }()
	warned := func() bool {
		return strings.Contains(logs.String(), "level=WARN") && strings.Contains(logs.String(), "write lock")
	}
	// at least five busy timeouts, then until the warning, up to 30 s
	for wait, deadline := time.After(time.Second), time.Now().Add(30*time.Second); wait != nil || !warned() && time.Now().Before(deadline); {
		select {
		case err := <-done:
			t.Fatalf("AddEvaluation returned %v while another connection held the write lock", err)
		case <-wait:
			wait = nil
		case <-time.After(10 * time.Millisecond):
		}
	}
	if !warned() {
		t.Errorf("no warning that the write waits; log:\n%s", logs)
	}
	commit()
	if err := <-done; err != nil {
		t.Fatalf("AddEvaluation after the lock was released: %v", err)
	}
	es, err := st.Evaluations(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 1 {
		t.Errorf("stored %d evaluations, want 1", len(es))
	}
}

// TestWriteGivesUpAfterItsWait fails a write whose lock stays held past the write wait,
// with an error that says how long it waited.
func TestWriteGivesUpAfterItsWait(t *testing.T) {
	defer sqlite.SetWaits(100*time.Millisecond, 100*time.Millisecond, 400*time.Millisecond)()
	captureLog(t)
	st, path := openStore(t)
	holdWriteLock(t, path)
	_, err := st.PutDevice(context.Background(), store.Device{Name: "gpu"})
	if err == nil || !strings.Contains(err.Error(), "waited") || !strings.Contains(err.Error(), "write lock") {
		t.Fatalf("PutDevice under a held lock: %v, want a busy error that says how long it waited", err)
	}
	var busy interface{ Code() int }
	if !errors.As(err, &busy) {
		t.Errorf("error %v does not wrap SQLite's", err)
	}
}

// TestACancelledWriteStopsWaitingForTheLock cancels a write, with the default waits, while
// another connection holds the write lock: it returns promptly (within 10 s on a loaded
// machine, where a try waits 250 ms; not the half hour a write waits in all) with the
// context's error, and the log does not claim that it got the lock.
func TestACancelledWriteStopsWaitingForTheLock(t *testing.T) {
	logs := captureLog(t)
	st, path := openStore(t)
	rec := storetest.Recording()
	id := storetest.NewRun(t, st, rec)
	holdWriteLock(t, path)

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	err := st.AddEvaluation(ctx, id, rec.Evaluations[0])
	if d := time.Since(start); d > 300*time.Millisecond+10*time.Second {
		t.Errorf("the cancelled write returned %v after its cancellation", d-300*time.Millisecond)
	}
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "write lock") {
		t.Errorf("cancelled write: %v, want context.Canceled and why it waited", err)
	}
	if strings.Contains(logs.String(), "got the database's write lock") {
		t.Errorf("the log says the cancelled write got the lock:\n%s", logs)
	}
}
