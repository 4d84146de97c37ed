package postgres

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ktune/ktune/store"
)

// Runs are held with PostgreSQL's session-level advisory locks, keyed by run id (lockKey),
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
	// ended are the server processes of this store's lock connections that broke: the
	// server ends such a session a moment after (or, across a network cut, once it
	// notices), and until then it still holds the runs it had.
	ended []uint32
}

// heldRun is a run held on the lock connection of generation gen.
type heldRun struct {
	l   *runLocks
	run int64
	gen int
}

// Run lock keys. PostgreSQL's advisory locks take one bigint key or two int4 keys, and
// the server keeps either as two 32-bit halves beside a flag saying which form took it
// (pg_locks: classid, objid, objsubid 1 or 2), so that a program's single-key locks never
// meet another's two-key ones. ktune uses the two-key form only, with its first key
// ktune's own (lockSpace, "ktun") and its second a run id, so that it meets another
// program's locks only where that program picked the same first key. A run id is a
// bigint, though: the second key holds its low 31 bits, and the first key carries its
// high 32 bits, XORed into lockSpace:
//
//	key1 = lockSpace ^ int32(run >> 31), key2 = int32(run & (1<<31 - 1))
//
// This is one-to-one on run ids 0 to 2^63-1; it gives every run below 2^31 (the ids of
// all but enormous databases) the key (lockSpace, run) that ktune always used, so that
// processes of an older ktune and of this one exclude each other; a run id above it moves
// the first key away from lockSpace in its low bits only (run 2^31 is (lockSpace^1, 0)),
// to a first key as unlikely to be another program's as lockSpace itself. The second key
// of a run is never negative, which keeps the database-wide keys (migrationKey,
// importKey, under lockSpace) apart from every run's.
type lockKeys struct{ space, run int32 }

// lockKey returns run's advisory lock keys.
func lockKey(run int64) (lockKeys, error) {
	if run < 0 {
		return lockKeys{}, fmt.Errorf("run lock: run id %d is negative, which no run has", run)
	}
	return lockKeys{space: lockSpace ^ int32(uint32(run>>31)), run: int32(run & math.MaxInt32)}, nil
}

// oids returns the keys as pg_locks shows them (classid and objid, of type oid: the
// keys' bits read unsigned).
func (k lockKeys) oids() (classid, objid int64) {
	return int64(uint32(k.space)), int64(uint32(k.run))
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
	classid, objid := key.oids()
	var held bool
	err = s.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_locks
		WHERE locktype = 'advisory' AND granted AND objsubid = 2
			AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
			AND classid::bigint = $1 AND objid::bigint = $2)`, classid, objid).Scan(&held)
	if err != nil {
		return true, fmt.Errorf("run lock: is run %d held: %w", run, err)
	}
	return held, nil
}

// connect opens the lock connection if there is none or it broke; l.mu is locked.
func (l *runLocks) connect(ctx context.Context) error {
	if l.conn != nil {
		if !l.conn.IsClosed() {
			if err := l.conn.Ping(ctx); err == nil {
				return nil
			}
			l.conn.Close(context.WithoutCancel(ctx))
		}
		l.ended = append(l.ended, l.conn.PgConn().PID())
		l.conn = nil
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
	if err := l.conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1, $2)`, key.space, key.run).Scan(&got); err != nil {
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
	// The connection that held the run broke: the server lets the run go when it ends
	// that session, which may take a moment (pg_terminate_backend returns before the
	// session has ended), so while the run's holder is one of this store's ended sessions
	// it is waited for, up to endingWait.
	deadline := time.Now().Add(endingWait)
	for {
		err := l.take(ctx, h.run)
		if err == nil {
			h.gen = l.gen
			return nil
		}
		if !errors.Is(err, store.ErrRunHeld) {
			return err
		}
		pid, held, herr := l.holder(ctx, h.run)
		if herr != nil {
			return herr
		}
		switch {
		case !held:
			continue // let go between the two queries: take it now
		case !slices.Contains(l.ended, pid):
			return fmt.Errorf("run lock: the connection to %s that held run %d broke, and another process took the run meanwhile: %w", l.s.name, h.run, err)
		case time.Now().After(deadline):
			return fmt.Errorf("run lock: the connection to %s that held run %d broke, and the server has not ended that session (process %d), which still holds the run, after %v: %w",
				l.s.name, h.run, pid, endingWait, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// endingWait bounds how long Check waits for the server to end a broken lock
// connection's session, which still holds the run.
const endingWait = 10 * time.Second

// holder is the server process that holds run's lock, if one does; l.mu is locked.
func (l *runLocks) holder(ctx context.Context, run int64) (pid uint32, held bool, err error) {
	key, err := lockKey(run)
	if err != nil {
		return 0, false, err
	}
	classid, objid := key.oids()
	var p int32
	err = l.conn.QueryRow(ctx, `SELECT pid FROM pg_locks WHERE locktype = 'advisory'
		AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
		AND classid::bigint = $1 AND objid::bigint = $2 AND objsubid = 2 AND granted`, classid, objid).Scan(&p)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("run lock: who holds run %d in %s: %w", run, l.s.name, err)
	}
	return uint32(p), true, nil
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
	if _, err := l.conn.Exec(context.Background(), `SELECT pg_advisory_unlock($1, $2)`, key.space, key.run); err != nil {
		// the run stays locked while the connection lasts: end it, which lets it go
		l.conn.Close(context.Background())
		l.conn = nil
	}
}
