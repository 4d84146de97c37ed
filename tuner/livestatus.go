package tuner

import (
	"context"

	"github.com/ktune/ktune/store"
)

// LiveStatus returns st reading runs with the status they have now, as the ktune command
// reads them: a tuning run recorded as running that no process holds (its tuning was
// killed, or its machine went down) reads as interrupted (RunHeld). It writes nothing, so
// that a program that only reads can use it on a read-only database; the next Tune of the
// run records the interruption. db names st's database, as Options.DB does. Reports
// (report.RunPage) and listings read a killed run as running without it.
func LiveStatus(st store.Store, db string) store.Store {
	return liveStatus{Store: st, db: db}
}

// liveStatus is LiveStatus's store: st with Run and Runs reading the status of now.
type liveStatus struct {
	store.Store
	db string
}

func (s liveStatus) Run(ctx context.Context, id int64) (store.RunInfo, error) {
	r, err := s.Store.Run(ctx, id)
	if err == nil {
		r.Status = s.status(ctx, r)
	}
	return r, err
}

func (s liveStatus) Runs(ctx context.Context, f store.RunFilter) ([]store.RunInfo, error) {
	rs, err := s.Store.Runs(ctx, f)
	for i := range rs {
		rs[i].Status = s.status(ctx, rs[i])
	}
	return rs, err
}

func (s liveStatus) status(ctx context.Context, r store.RunInfo) store.RunStatus {
	if r.Status == store.StatusRunning && r.Kind == store.KindTuning && !s.held(ctx, r.ID) {
		return store.StatusInterrupted
	}
	return r.Status
}

// held reports whether a process holds run now; when it cannot tell, it says held.
func (s liveStatus) held(ctx context.Context, run int64) bool {
	if rl, ok := s.Store.(store.RunLocker); ok {
		held, err := rl.RunHeld(ctx, run)
		return held || err != nil
	}
	return RunHeld(s.db, run)
}
