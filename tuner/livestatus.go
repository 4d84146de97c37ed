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
		r.Status = s.status(r)
	}
	return r, err
}

func (s liveStatus) Runs(ctx context.Context, f store.RunFilter) ([]store.RunInfo, error) {
	rs, err := s.Store.Runs(ctx, f)
	for i := range rs {
		rs[i].Status = s.status(rs[i])
	}
	return rs, err
}

func (s liveStatus) status(r store.RunInfo) store.RunStatus {
	if r.Status == store.StatusRunning && r.Kind == store.KindTuning && !RunHeld(s.db, r.ID) {
		return store.StatusInterrupted
	}
	return r.Status
}
