package worker

import "time"

// A supervisor waiting on a child looks at the clock every stopTick; a gap of more than
// stopGap between two looks means this process was stopped (SIGSTOP and SIGCONT, as a
// batch scheduler suspends and resumes a job's processes, or Ctrl-Z and fg), since a
// runnable process is never kept off a core for that long. The clock runs on while a
// process is stopped, so without this a suspension as long as a kernel's time limit
// failed a healthy configuration as a timeout, for good.
const (
	stopTick = 100 * time.Millisecond
	stopGap  = time.Second
)

// limit is a time limit on a child's work that does not count the time this process was
// stopped: it expires at its deadline, which every stop it notices moves on by the stop's
// length. It notices a stop at its next look at the clock: the owner calls observe on
// whatever wakes it, and expired on each tick of C.
type limit struct {
	tick     *time.Ticker
	deadline time.Time     // zero: no limit
	seen     time.Time     // when this process was last seen running
	stopped  time.Duration // the stops noticed since the limit was made
}

// newLimit returns a limit of d from now; d <= 0 means none.
func newLimit(d time.Duration) *limit {
	l := &limit{tick: time.NewTicker(stopTick), seen: time.Now()}
	l.reset(d)
	return l
}

// C delivers the ticks on which the owner calls expired.
func (l *limit) C() <-chan time.Time { return l.tick.C }

// reset sets the limit to d from now; d <= 0 means none.
func (l *limit) reset(d time.Duration) {
	l.observe()
	l.deadline = time.Time{}
	if d > 0 {
		l.deadline = time.Now().Add(d)
	}
}

// extend moves the deadline on by d: time the child was stopped on purpose.
func (l *limit) extend(d time.Duration) {
	if !l.deadline.IsZero() {
		l.deadline = l.deadline.Add(d)
	}
}

// observe notes that this process runs now, and returns how long it was stopped since it
// was last seen running (0 when it was not), which no longer counts against the limit.
func (l *limit) observe() time.Duration {
	now := time.Now()
	gap := now.Sub(l.seen)
	l.seen = now
	if gap <= stopGap {
		return 0
	}
	stop := gap - stopTick // it ran for about a tick of the gap
	l.stopped += stop
	l.extend(stop)
	return stop
}

// expired reports whether the limit has passed, the stops noticed until now left out.
func (l *limit) expired() bool {
	l.observe()
	return !l.deadline.IsZero() && !time.Now().Before(l.deadline)
}

// stop releases the limit's ticker.
func (l *limit) stop() { l.tick.Stop() }
