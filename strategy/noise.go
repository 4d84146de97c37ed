package strategy

import (
	"context"
	"math"

	"github.com/ktune/ktune/space"
)

// Noisy fitness. A session that answers a repeated configuration from its cache (every
// real tuning session, and the simulator's deterministic fitness) gives a strategy one
// fitness per configuration. Under seed 000's stochastic fitness a repeat is a new
// measurement that costs budget, and one measurement can be far from the configuration's
// mean: on the recorded point-in-polygon spaces of the RTX 2080 Ti and TITAN RTX a
// configuration's samples range over a factor of three, and the fastest sample of some 700
// configurations beats the optimum's mean. The best single measurement of a run is then
// the luckiest, not the best configuration. The session judges a configuration measured
// several times by its mean and the noise the repeats show (tuning, measured.go), so a
// lucky measurement stops winning once it is measured again.
//
// noiseWatch finds out which kind of session it is in, without costing anything where
// repeats are free: at the strategy's first successful evaluation it asks for the same
// configuration again. A cached answer costs no budget and leaves the run as it would have
// been; a new measurement costs one evaluation and shows the fitness is noisy. From then on
// the watch keeps the last reserve evaluations of the budget from the strategy, and keeps
// the sum of the measurements of every configuration, so that confirm can spend the
// reserve measuring the best candidates again. Where repeats are cached it keeps nothing.
type noiseWatch struct {
	Problem
	share   float64 // of the budget kept for confirm when noisy
	probed  bool
	noisy   bool
	reserve int
	sums    map[int]*measured
	index   []int // space indices in the order first measured (from the probe), for deterministic ties
}

// measured is the measurements of one configuration: their sum and number.
type measured struct {
	c   space.Config
	sum float64
	n   int
}

func (m *measured) mean() float64 { return m.sum / float64(m.n) }

func newNoiseWatch(p Problem, share float64) *noiseWatch {
	return &noiseWatch{Problem: p, share: share}
}

func (w *noiseWatch) Remaining() int {
	r := w.Problem.Remaining()
	if w.noisy {
		r = max(0, r-w.reserve)
	}
	return r
}

func (w *noiseWatch) Hint(upcoming ...space.Config) { forwardHint(w.Problem, upcoming) }

func (w *noiseWatch) Evaluate(ctx context.Context, c space.Config) (float64, error) {
	if w.noisy && w.Problem.Remaining() <= w.reserve {
		return math.Inf(1), ErrStop
	}
	f, err := w.Problem.Evaluate(ctx, c)
	if err != nil {
		return f, err
	}
	switch {
	case w.noisy:
		// every evaluation is a new measurement: keep it for confirm (before the probe
		// every evaluation failed, and nothing needs keeping where repeats are cached)
		w.add(c, f)
	case !w.probed && w.share > 0 && !math.IsInf(f, 1):
		w.probed = true
		w.probe(ctx, c, f)
	}
	return f, nil
}

// probe asks for c, just measured at first, again: a new measurement (the remaining
// budget goes down) means repeats are measured anew.
func (w *noiseWatch) probe(ctx context.Context, c space.Config, first float64) {
	before := w.Problem.Remaining()
	if before <= 0 || w.Problem.Budget() <= 0 {
		return // no budget: no end to keep a reserve for
	}
	f, err := w.Problem.Evaluate(ctx, c)
	if err != nil || w.Problem.Remaining() >= before {
		return
	}
	w.add(c, first)
	w.add(c, f)
	w.noisy = true
	// The reserve grows with the noise the two measurements show, up to share: where they
	// differ by a few thousandths (the recorded convolutions) the search needs the budget
	// more than the confirmation does.
	share := min(w.share, noiseReserve*math.Abs(f-first)/max(math.Abs(f), math.Abs(first)))
	w.reserve = min(int(math.Round(share*float64(w.Problem.Budget()))), w.Problem.Remaining())
}

// noiseReserve is the share of the budget confirm keeps per unit of relative difference
// between the probe's two measurements, up to auto's confirm option.
const noiseReserve = 5

func (w *noiseWatch) add(c space.Config, f float64) {
	idx, ok := w.Space().Index(c)
	if !ok {
		return
	}
	if w.sums == nil {
		w.sums = make(map[int]*measured)
	}
	m := w.sums[idx]
	if m == nil {
		m = &measured{c: c.Clone()}
		w.sums[idx] = m
		w.index = append(w.index, idx)
	}
	m.sum += f
	m.n++
}

// confirm spends what the budget has left, when the fitness is noisy, on measuring the
// best candidates again, as a race would: each step measures the configuration with the
// lowest mean of those measured fewer than confirmations times, and once every candidate
// has that many, confirmations grows by one. A lucky measurement is measured again until
// its mean shows what it is worth, and the session, which judges a configuration by its
// mean and the noise its repeats show (tuning, measured.go), reports one that held up.
func (w *noiseWatch) confirm(ctx context.Context) error {
	if !w.noisy {
		return nil
	}
	w.noisy = false // the reserve is the run's now
	need := confirmations
	for w.Problem.Remaining() > 0 {
		next := -1
		for _, idx := range w.index {
			m := w.sums[idx]
			if mf := m.mean(); m.n < need && !math.IsInf(mf, 1) && (next < 0 || mf < w.sums[next].mean()) {
				next = idx
			}
		}
		if next < 0 {
			if len(w.index) == 0 || need > w.Problem.Budget() {
				return nil // nothing succeeded: nothing to confirm
			}
			need++
			continue
		}
		c := w.sums[next].c
		f, err := w.Problem.Evaluate(ctx, c)
		if err != nil {
			return stopped(err)
		}
		w.add(c, f)
	}
	return nil
}

// confirmations is how many measurements confirm first gives each of the best candidates.
const confirmations = 3
