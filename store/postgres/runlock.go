package postgres

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ktune/ktune/store"
)

// Runs are held with PostgreSQL's session-level advisory locks, keyed (lockSpace, run id),
// on one connection of the store's own that does nothing else: the server lets a run go
// when that connection ends, however the process ends (a crash or SIGKILL, or its machine
// going down once the server notices the dead connection: tcp_keepalives_* settings bound
// that), as the system lets a lock file's record lock go; and every process tuning into
// the database, wherever it runs, sees the locks. A session may take an advisory lock it
// holds again, so the store keeps a table of the runs it holds, and two holders in one
// process exclude each other as two processes do.
//
// When the connection breaks (a restarted server, a network cut), the locks it held are
// gone: HeldRun.Check, which the tuning calls before it stores each evaluation, connects
// again and takes the run again, and fails if another process took it meanwhile.
var (
	_ store.RunLocker = (*Store)(nil)
	_ store.HeldRun   = (*heldRun)(nil)
)

// runLocks is a store's lock connection and the runs it holds.
type runLocks struct {
	s    *Store
	mu   sync.Mutex
	conn *pgx.Conn
	gen  int // counts the connections made, so a hold knows whether its own is gone
	held map[int64]bool
}

// heldRun is a run held on the lock connection of generation gen.
type heldRun struct {
	l   *runLocks
	run int64
	gen int
}

// lockKey is run's second advisory lock key.
func lockKey(run int64) (int32, error) {
	if run < 0 || run > math.MaxInt32 {
		return 0, fmt.Errorf("run lock: run id %d is beyond the advisory lock keys", run)
	}
	return int32(run), nil
}

// LockRun implements store.RunLocker.
func (s *Store) LockRun(ctx context.Context, run int64) (store.HeldRun, error) {
	l := &s.locks
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.held[run] {
		return nil, store.ErrRunHeld // by another holder in this process
	}
	if err := l.connect(ctx); err != nil {
		return nil, err
	}
	if err := l.take(ctx, run); err != nil {
		return nil, err
	}
	return &heldRun{l: l, run: run, gen: l.gen}, nil
}

// RunHeld implements store.RunLocker: the server's table of locks says whether a session
// holds run's lock.
func (s *Store) RunHeld(ctx context.Context, run int64) (bool, error) {
	s.locks.mu.Lock()
	mine := s.locks.held[run]
	s.locks.mu.Unlock()
	if mine {
		return true, nil
	}
	key, err := lockKey(run)
	if err != nil {
		return true, err
	}
	var held bool
	err = s.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_locks
		WHERE locktype = 'advisory' AND granted AND objsubid = 2
			AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
			AND classid::bigint = $1 AND objid::bigint = $2)`, int64(lockSpace), int64(key)).Scan(&held)
	if err != nil {
		return true, fmt.Errorf("run lock: is run %d held: %w", run, err)
	}
	return held, nil
}

// connect opens the lock connection if there is none or it broke; l.mu is locked.
func (l *runLocks) connect(ctx context.Context) error {
	if l.conn != nil && !l.conn.IsClosed() {
		if err := l.conn.Ping(ctx); err == nil {
			return nil
		}
		l.conn.Close(context.WithoutCancel(ctx))
	}
	conn, err := pgx.Connect(ctx, l.s.location)
	if err != nil {
		l.conn = nil
		return fmt.Errorf("run lock: connect to %s: %w", l.s.name, err)
	}
	l.conn, l.held = conn, map[int64]bool{}
	l.gen++
	return nil
}

// take locks run on the lock connection; l.mu is locked.
func (l *runLocks) take(ctx context.Context, run int64) error {
	key, err := lockKey(run)
	if err != nil {
		return err
	}
	var got bool
	if err := l.conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1, $2)`, lockSpace, key).Scan(&got); err != nil {
		return fmt.Errorf("run lock: lock run %d in %s: %w", run, l.s.name, err)
	}
	if !got {
		return store.ErrRunHeld
	}
	l.held[run] = true
	return nil
}

// close ends the lock connection, which lets every run it holds go.
func (l *runLocks) close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.held = nil
	if l.conn == nil {
		return nil
	}
	// Ending the session lets its locks go too, but the server ends it a moment after
	// the connection closes: unlocking first lets them go by the time Close returns.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// (a connection that broke held nothing any more)
	_, _ = l.conn.Exec(ctx, `SELECT pg_advisory_unlock_all()`)
	err := l.conn.Close(ctx)
	l.conn = nil
	return err
}

// Check implements store.HeldRun.
func (h *heldRun) Check(ctx context.Context) error {
	l := h.l
	l.mu.Lock()
	defer l.mu.Unlock()
	if h.gen == 0 {
		return fmt.Errorf("run lock: run %d was released", h.run)
	}
	if err := l.connect(ctx); err != nil {
		return err
	}
	if h.gen == l.gen {
		return nil
	}
	// the connection that held the run broke: the server let the run go
	if err := l.take(ctx, h.run); err != nil {
		if errors.Is(err, store.ErrRunHeld) {
			return fmt.Errorf("run lock: the connection to %s that held run %d broke, and another process took the run meanwhile: %w", l.s.name, h.run, err)
		}
		return err
	}
	h.gen = l.gen
	return nil
}

// Release implements store.HeldRun.
func (h *heldRun) Release() {
	l := h.l
	l.mu.Lock()
	defer l.mu.Unlock()
	if h.gen == 0 {
		return
	}
	gen := h.gen
	h.gen = 0
	if gen != l.gen || l.conn == nil || !l.held[h.run] {
		return // its connection is gone, and the run with it
	}
	delete(l.held, h.run)
	key, _ := lockKey(h.run)
	if _, err := l.conn.Exec(context.Background(), `SELECT pg_advisory_unlock($1, $2)`, lockSpace, key); err != nil {
		// the run stays locked while the connection lasts: end it, which lets it go
		l.conn.Close(context.Background())
		l.conn = nil
	}
}
