package tuner

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/store"
)

// A tuning run recorded as running that no process holds, as a killed Tune leaves it,
// reads as interrupted through LiveStatus, and as running while a process holds it; where
// a program's report (report.RunPage) and listings read it as running, as only the ktune
// command could read it otherwise. Other runs read as they are stored.
func TestLiveStatusReadsAKilledRunAsInterrupted(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "k.db")
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	spaceID, err := st.PutSpace(ctx, store.Space{Kernel: "k", Params: []space.Param{{Name: "x", Values: []space.Value{space.IntValue(1)}}}})
	if err != nil {
		t.Fatal(err)
	}
	devID, err := st.PutDevice(ctx, store.Device{Name: "d", Backend: "c"})
	if err != nil {
		t.Fatal(err)
	}
	killed, err := st.CreateRun(ctx, store.RunInfo{SpaceID: spaceID, DeviceID: devID, Kind: store.KindTuning, Strategy: "random", Objective: "time"})
	if err != nil {
		t.Fatal(err)
	}
	finished, err := st.CreateRun(ctx, store.RunInfo{SpaceID: spaceID, DeviceID: devID, Kind: store.KindTuning, Strategy: "random", Objective: "time"})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.FinishRun(ctx, finished, store.StatusFinished); err != nil {
		t.Fatal(err)
	}
	live := LiveStatus(st, db)
	status := func() (killedStatus, finishedStatus store.RunStatus) {
		t.Helper()
		r, err := live.Run(ctx, killed)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := live.Runs(ctx, store.RunFilter{})
		if err != nil || len(rs) != 2 {
			t.Fatalf("Runs = %d runs, %v", len(rs), err)
		}
		if rs[0].Status != r.Status {
			t.Errorf("Runs reads the run as %s, Run as %s", rs[0].Status, r.Status)
		}
		return r.Status, rs[1].Status
	}
	if k, f := status(); k != store.StatusInterrupted || f != store.StatusFinished {
		t.Errorf("a run no process holds reads %s, a finished one %s; want interrupted and finished", k, f)
	}
	if r, _ := st.Run(ctx, killed); r.Status != store.StatusRunning {
		t.Errorf("the store holds %s; LiveStatus wrote to it", r.Status)
	}
	l, err := LockRun(db, killed)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	if k, _ := status(); k != store.StatusRunning {
		t.Errorf("a run a process holds reads %s, want running", k)
	}
}
