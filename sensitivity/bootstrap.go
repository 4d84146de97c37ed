package sensitivity

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
)

// bootstrap runs B replicates of an estimate over n resampled rows and returns their
// results (B slices of size values). Each replicate resamples the rows with replacement as
// multinomial weights (how often each row was drawn), from its own generator seeded by
// seed and the replicate's number, so the result does not depend on how the replicates are
// spread over goroutines. estimate writes into out; each goroutine gets its own scratch.
// The workers stop between replicates once ctx is done, and bootstrap then returns ctx's
// error: thousands of resamples of a large table take minutes.
func bootstrap[S any](ctx context.Context, B int, seed uint64, n, size int, estimate func(w []float64, sc S, out []float64), newScratch func() S) ([][]float64, error) {
	reps := make([][]float64, B)
	for b := range reps {
		reps[b] = make([]float64, size)
	}
	workers := max(1, min(runtime.GOMAXPROCS(0), B))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			sc := newScratch()
			weights := make([]float64, n)
			for b := w; b < B && ctx.Err() == nil; b += workers {
				r := rand.New(rand.NewPCG(seed, 0x5851f42d4c957f2d^uint64(b)))
				clear(weights)
				for range n {
					weights[r.IntN(n)]++
				}
				estimate(weights, sc, reps[b])
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return reps, nil
}

// percentiles returns the 2.5%, 50% and 97.5% percentiles of column i of reps, ignoring
// NaN replicates (a resample with no variance); NaN when none is left.
func percentiles(reps [][]float64, i int) (lo, mid, hi float64) {
	col := make([]float64, 0, len(reps))
	for _, r := range reps {
		if !math.IsNaN(r[i]) {
			col = append(col, r[i])
		}
	}
	if len(col) == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	slices.Sort(col)
	return quantile(col, 0.025), quantile(col, 0.5), quantile(col, 0.975)
}

// quantile interpolates linearly between the order statistics of sorted (type 7).
func quantile(sorted []float64, q float64) float64 {
	h := q * float64(len(sorted)-1)
	lo := math.Floor(h)
	i := int(lo)
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (h-lo)*(sorted[i+1]-sorted[i])
}

// fill sets s's values from point and its intervals from the replicates (none when reps is
// nil). Both are laid out as firsts, totals, then seconds in s.Second's order.
//
// With recentre, each interval is moved so that the replicates' median falls on the
// estimate, keeping the percentiles' spread and asymmetry. The table estimators need it:
// a resample drops about a third of the rows, which splits the small groups that
// total-order (and second-order) indices are computed from and biases every replicate
// downward, so that the plain percentile interval can miss the estimate itself. That shift
// is an artefact of resampling a table that is the whole population, not an uncertainty.
// The re-centred intervals of first- and total-order indices are then clamped to [0, 1]:
// a table's indices are variance shares, and so is every replicate, so a bound beyond
// them is an artefact of the shift.
//
// Without recentre (Saltelli's Monte Carlo estimators) nothing is clamped, as SALib does
// not: an estimate and its interval may leave [0, 1] by sampling noise, and clamping the
// interval alone would leave it without its estimate.
func fill(s *Sobol, point []float64, reps [][]float64, recentre bool) {
	k := len(s.First)
	set := func(iv *Interval, at int) {
		iv.Value, iv.Low, iv.High = point[at], math.NaN(), math.NaN()
		if reps != nil {
			lo, mid, hi := percentiles(reps, at)
			if recentre {
				lo, hi = lo+point[at]-mid, hi+point[at]-mid
				if at < 2*k {
					// First and total indices of a table are variance shares: in [0, 1].
					lo, hi = max(lo, 0), min(hi, 1)
				}
			}
			iv.Low, iv.High = lo, hi
		}
	}
	for i := range k {
		set(&s.First[i], i)
		set(&s.Total[i], k+i)
	}
	for p := range s.Second {
		set(&s.Second[p].Index, 2*k+p)
	}
}
