package postgres_test

import (
	"context"
	"errors"
	"testing"

	"github.com/ktune/ktune/store"
	"github.com/ktune/ktune/store/postgres/pgtest"
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
