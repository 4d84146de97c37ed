package postgres_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/ktune/ktune/store"
	"github.com/ktune/ktune/store/postgres/pgtest"
	"github.com/ktune/ktune/store/storetest"
)

// Two stores stand for two processes: a run held by one is held for the other, and for
// another holder in the same one; released, or its store closed, it is free.
func TestARunIsHeldByOneHolderAtATime(t *testing.T) {
	loc := pgtest.URL(t)
	a, b := openStore(t, loc), openStore(t, loc)
	ctx := context.Background()
	h, err := a.LockRun(ctx, 7)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.LockRun(ctx, 7); !errors.Is(err, store.ErrRunHeld) {
		t.Errorf("another process locked a held run: %v", err)
	}
	if _, err := a.LockRun(ctx, 7); !errors.Is(err, store.ErrRunHeld) {
		t.Errorf("another holder in the same process locked a held run: %v", err)
	}
	for _, st := range []interface {
		RunHeld(context.Context, int64) (bool, error)
	}{a, b} {
		if held, err := st.RunHeld(ctx, 7); err != nil || !held {
			t.Errorf("RunHeld of a held run = %v, %v", held, err)
		}
		if held, err := st.RunHeld(ctx, 8); err != nil || held {
			t.Errorf("RunHeld of a free run = %v, %v", held, err)
		}
	}
	other, err := b.LockRun(ctx, 8)
	if err != nil {
		t.Fatalf("a run beside a held one: %v", err)
	}
	if err := h.Check(ctx); err != nil {
		t.Error(err)
	}
	h.Release()
	h.Release()
	again, err := b.LockRun(ctx, 7)
	if err != nil {
		t.Fatalf("a released run: %v", err)
	}
	// closing the store, as a process's end does, lets its runs go
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	_ = again
	_ = other
	for _, run := range []int64{7, 8} {
		if held, err := a.RunHeld(ctx, run); err != nil || held {
			t.Errorf("run %d of a closed store is still held: %v, %v", run, held, err)
		}
	}
}

// The connection that holds a run ends (a restarted server, a network cut): Check takes
// the run again, or says that another process took it meanwhile.
func TestCheckTakesARunAgainAfterItsConnectionEnded(t *testing.T) {
	loc := pgtest.URL(t)
	a, b := openStore(t, loc), openStore(t, loc)
	ctx := context.Background()
	h7, err := a.LockRun(ctx, 7)
	if err != nil {
		t.Fatal(err)
	}
	h8, err := a.LockRun(ctx, 8)
	if err != nil {
		t.Fatal(err)
	}
	kill := func() {
		t.Helper()
		res, err := raw(t, loc).Exec(`SELECT pg_terminate_backend(pid) FROM pg_locks
			WHERE locktype = 'advisory' AND objid = 7 AND granted`)
		if n, _ := res.RowsAffected(); err != nil || n != 1 {
			t.Fatalf("end the lock connection: %d, %v", n, err)
		}
	}
	kill()
	if err := h7.Check(ctx); err != nil {
		t.Fatalf("Check after the connection ended: %v", err)
	}
	if held, _ := b.RunHeld(ctx, 7); !held {
		t.Error("Check did not take run 7 again")
	}
	kill()
	taken, err := b.LockRun(ctx, 8) // another process takes run 8 while it is free
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Release()
	if err := h8.Check(ctx); !errors.Is(err, store.ErrRunHeld) {
		t.Errorf("Check of a run another process took meanwhile: %v", err)
	}
}

// Run ids are bigints: a run above 2^31 is locked like any other, by a key of its own that
// neither a run of the same low bits nor ktune's database-wide locks share, and
// pg_locks shows it under the key that lockKey documents.
func TestRunsAboveTwoToThe31AreLocked(t *testing.T) {
	loc := pgtest.URL(t)
	a, b := openStore(t, loc), openStore(t, loc)
	ctx := context.Background()
	if _, err := a.ImportRecording(ctx, storetest.Recording()); err != nil { // makes the tables
		t.Fatal(err)
	}
	const big = 1<<32 + 7
	if _, err := raw(t, loc).Exec(`ALTER TABLE runs ALTER COLUMN id RESTART WITH 4294967303`); err != nil {
		t.Fatal(err)
	}
	id, err := a.ImportRecording(ctx, storetest.Recording())
	if err != nil || id != big {
		t.Fatalf("import after restarting the run ids at 2^32+7: run %d, %v", id, err)
	}
	ids := []int64{7, 1<<31 - 1, 1 << 31, 1<<31 + 7, big, 1<<62 + 7, math.MaxInt64}
	holds := map[int64]store.HeldRun{}
	for _, run := range ids {
		if holds[run], err = a.LockRun(ctx, run); err != nil {
			t.Fatalf("lock run %d: %v", run, err)
		}
	}
	for _, run := range ids {
		if _, err := b.LockRun(ctx, run); !errors.Is(err, store.ErrRunHeld) {
			t.Errorf("another process locked held run %d: %v", run, err)
		}
		if held, err := b.RunHeld(ctx, run); err != nil || !held {
			t.Errorf("RunHeld(%d) of a held run = %v, %v", run, held, err)
		}
	}
	for _, free := range []int64{8, 1<<32 + 8, 1<<33 + 7, 0} {
		if held, err := b.RunHeld(ctx, free); err != nil || held {
			t.Errorf("RunHeld(%d) of a free run = %v, %v", free, held, err)
		}
	}
	if _, err := a.LockRun(ctx, -1); err == nil {
		t.Error("a negative run id was locked")
	}

	// run 2^32+7: first key lockSpace ^ 2, second key 7, as two int4 keys (objsubid 2)
	var pid int32
	err = raw(t, loc).QueryRow(`SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted
		AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
		AND classid = $1::bigint::oid AND objid = 7 AND objsubid = 2`, int64(0x6b74756e^2)).Scan(&pid)
	if err != nil {
		t.Fatalf("the lock of run %d in pg_locks: %v", big, err)
	}
	// its connection ends: Check takes it again, under the same key
	if _, err := raw(t, loc).Exec(`SELECT pg_terminate_backend($1)`, pid); err != nil {
		t.Fatal(err)
	}
	if err := holds[big].Check(ctx); err != nil {
		t.Fatalf("Check of run %d after its lock connection ended: %v", big, err)
	}
	if _, err := b.LockRun(ctx, big); !errors.Is(err, store.ErrRunHeld) {
		t.Errorf("another process locked run %d, taken again: %v", big, err)
	}
	holds[big].Release()
	h, err := b.LockRun(ctx, big)
	if err != nil {
		t.Fatalf("lock released run %d: %v", big, err)
	}
	h.Release()
}
