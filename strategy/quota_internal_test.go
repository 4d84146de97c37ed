package strategy

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Algorithm 2's rules on a constructed case: five OCs of 500, 300, 150, 50 and 0 settings
// (1,000 in all), the model predicting OC 2's settings best. Every iteration keeps the
// ratios adding up to TR; the best OC gets the rest of TR (first iteration: exactly TR
// less the others lowered by AR); no other non-empty OC is lowered below LR, and one that
// starts below LR is never lowered; an empty OC has ratio 0 and draws nothing; the sample
// is distinct settings of the OCs, at least n of them, and it favours the best OC far
// beyond its 15% of the space.
func TestQuotaSampleFollowsAlgorithm2(t *testing.T) {
	sizes := []int{500, 300, 150, 50, 0}
	var ocs [][]int
	ocOf := map[int]int{}
	next := 0
	for k, n := range sizes {
		oc := []int{}
		for range n {
			ocOf[next] = k
			oc = append(oc, next)
			next++
		}
		ocs = append(ocs, oc)
	}
	q := quotaParams{ratio: 0.4, tr: 0.05, ar: 0.005, lr: 0.005}
	noise := rand.New(rand.NewPCG(9, 9))
	predict := func(idx int) float64 {
		if ocOf[idx] == 2 {
			return 1 + noise.Float64()
		}
		return 10 + noise.Float64()
	}
	initial := []float64{0.025, 0.015, 0.0075, 0.0025, 0}
	var iters []quotaIteration
	got := quotaSample(rand.New(rand.NewPCG(1, 2)), ocs, 400, q, predict, func(it quotaIteration) { iters = append(iters, it) })

	if len(got) < 400 || len(got) > 400+int(q.tr*1000)+len(sizes) {
		t.Errorf("drew %d settings, want at least 400 and at most one iteration more", len(got))
	}
	sorted := slices.Clone(got)
	slices.Sort(sorted)
	if len(slices.Compact(sorted)) != len(got) {
		t.Error("a setting was drawn twice")
	}
	const eps = 1e-12
	first := iters[0]
	if first.best != 2 {
		t.Fatalf("first iteration's best OC %d, want 2 (the model's favourite)", first.best)
	}
	want := []float64{0.02, 0.01, 0, 0.0025, 0}
	want[2] = q.tr - (want[0] + want[1] + want[3])
	for k := range want {
		if math.Abs(first.sr[k]-want[k]) > eps {
			t.Errorf("after the first iteration SR = %v, want %v", first.sr, want)
			break
		}
	}
	prev := initial
	for i, it := range iters {
		sum := 0.0
		for _, r := range it.sr {
			sum += r
		}
		if math.Abs(sum-q.tr) > eps {
			t.Errorf("iteration %d: the ratios add up to %v, want TR %v", i, sum, q.tr)
		}
		for _, idx := range it.drawn {
			if ocOf[idx] == 4 {
				t.Fatalf("iteration %d drew from the empty OC", i)
			}
		}
		if it.sr[4] != 0 {
			t.Errorf("iteration %d: the empty OC's ratio is %v, want 0", i, it.sr[4])
		}
		for k, r := range it.sr {
			switch {
			case k == it.best:
				if r < prev[k]-eps {
					t.Errorf("iteration %d: the best OC %d went from %v to %v, want it rewarded", i, k, prev[k], r)
				}
			case r == 0:
			case prev[k] < q.lr && r != prev[k]:
				t.Errorf("iteration %d: OC %d started below LR at %v and became %v", i, k, prev[k], r)
			case prev[k] >= q.lr && r < q.lr-eps:
				t.Errorf("iteration %d: OC %d lowered to %v, below LR %v", i, k, r, q.lr)
			}
		}
		prev = it.sr
	}
	// OC 2 has 150 settings: the reward drains it, after which it draws nothing and its
	// ratio is 0
	from2 := 0
	for _, idx := range got {
		if ocOf[idx] == 2 {
			from2++
		}
	}
	if from2 != 150 {
		t.Errorf("drew %d of the best OC's 150 settings, want all (it holds most of TR)", from2)
	}
	last := iters[len(iters)-1]
	if last.sr[2] != 0 && last.best != 2 {
		t.Errorf("the best OC, drained, ends with ratio %v, want 0", last.sr[2])
	}
}

// The sample is the seed's: the same seed draws the same settings, another seed others.
func TestQuotaSampleIsReproducible(t *testing.T) {
	ocs := [][]int{{0, 1, 2, 3, 4, 5, 6, 7}, {8, 9, 10, 11}, {12, 13}}
	q := quotaParams{ratio: 0.5, tr: 0.1, ar: 0.01, lr: 0.01}
	pred := func(idx int) float64 { return float64(idx % 5) }
	a := quotaSample(rand.New(rand.NewPCG(3, 3)), ocs, 7, q, pred, nil)
	b := quotaSample(rand.New(rand.NewPCG(3, 3)), ocs, 7, q, pred, nil)
	if !slices.Equal(a, b) {
		t.Errorf("same seed: %v and %v", a, b)
	}
	differ := false
	for s := uint64(4); s < 10 && !differ; s++ {
		differ = !slices.Equal(a, quotaSample(rand.New(rand.NewPCG(s, 3)), ocs, 7, q, pred, nil))
	}
	if !differ {
		t.Error("seeds 3 to 9 drew the same sample")
	}
	if len(a) < 7 {
		t.Errorf("drew %d, want at least 7", len(a))
	}
}
