package tuning

import "math"

// With NoCache (seed 000's stochastic fitness) a configuration measured again is measured
// anew, and its measurements differ: on the recorded point-in-polygon spaces of the RTX
// 2080 Ti and TITAN RTX one configuration's samples range over a factor of three, and the
// fastest sample of some 700 configurations beats the optimum's mean. The luckiest single
// measurement of a session is then not its best configuration. So under NoCache the best
// is the configuration whose mean fitness is lowest once one standard error is added to
// it: a configuration measured once is judged by its measurement and the noise the
// session has seen in configurations measured more than once (their pooled relative
// standard deviation), one measured n times by its mean and that noise over sqrt(n). A
// strategy that measures its best candidates again (irace's racing, auto under noise) has
// the session report the one that held up; where no configuration was measured twice, or
// the repeats agree, the best is the lowest mean, as without NoCache.

// bestSE is how many standard errors are added to a mean to rank configurations.
const bestSE = 1

// measurements are the measurements of a session under NoCache, per space index.
type measurements struct {
	by      map[int]*measured
	ss, dof float64 // pooled relative squared deviations and their degrees of freedom
	best    int     // space index of the best configuration; -1 while none succeeded
}

// measured is what the measurements of one configuration add up to: Welford's running mean
// and squared deviations of the fitness, and the sum of the objectives.
type measured struct {
	n         int
	mean, m2  float64
	objective float64
	failed    bool
	entry     int // first entry in history
}

func newMeasurements() *measurements {
	return &measurements{by: map[int]*measured{}, best: -1}
}

// relVar is the configuration's contribution to the pooled relative variance.
func (m *measured) relVar() float64 {
	if m.failed || m.n < 2 || m.mean == 0 {
		return 0
	}
	return m.m2 / (m.mean * m.mean)
}

// score is the mean fitness plus bestSE standard errors; +Inf for a configuration that
// failed.
func (ms *measurements) score(m *measured) float64 {
	if m.failed {
		return math.Inf(1)
	}
	if ms.dof == 0 {
		return m.mean
	}
	sd := math.Sqrt(ms.ss/ms.dof) * math.Abs(m.mean)
	return m.mean + bestSE*sd/math.Sqrt(float64(m.n))
}

// add records a new measurement f (objective obj) of space index idx, history entry h,
// and returns the best configuration's first entry in history (-1: none succeeded).
func (ms *measurements) add(idx, h int, f, obj float64) int {
	m := ms.by[idx]
	if m == nil {
		m = &measured{entry: h}
		ms.by[idx] = m
	}
	ms.ss -= m.relVar()
	if m.n >= 1 && !m.failed {
		ms.dof--
	}
	m.n++
	m.objective += obj
	if math.IsInf(f, 1) || m.failed {
		m.failed = true
	} else {
		d := f - m.mean
		m.mean += d / float64(m.n)
		m.m2 += d * (f - m.mean)
	}
	ms.ss += m.relVar()
	if m.n >= 2 && !m.failed {
		ms.dof += float64(m.n - 1)
	}
	if m.n == 1 && ms.best >= 0 {
		// a new configuration leaves the noise as it was: compare it with the best
		if ms.score(m) < ms.score(ms.by[ms.best]) {
			ms.best = idx
		}
		return ms.by[ms.best].entry
	}
	// a repeat changes the noise, and so every configuration's score; ties go to the
	// configuration measured first
	ms.best = -1
	bestScore := math.Inf(1)
	for i, c := range ms.by {
		if sc := ms.score(c); sc < bestScore || (sc == bestScore && ms.best >= 0 && c.entry < ms.by[ms.best].entry) {
			ms.best, bestScore = i, sc
		}
	}
	if ms.best < 0 {
		return -1
	}
	return ms.by[ms.best].entry
}

// bestObjective is the mean objective of the best configuration's measurements.
func (ms *measurements) bestObjective() float64 {
	if ms.best < 0 {
		return math.NaN()
	}
	m := ms.by[ms.best]
	return m.objective / float64(m.n)
}
