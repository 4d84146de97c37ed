package strategy

import (
	"math"
	"math/rand/v2"
	"testing"
)

// rfGrid returns the points of a levels[0] x levels[1] grid as features, row-major.
func rfGrid(levels []int) [][]int32 {
	var out [][]int32
	for a := range levels[0] {
		for b := range levels[1] {
			out = append(out, []int32{int32(a), int32(b)})
		}
	}
	return out
}

func rfDefaultConfig() rfConfig {
	return rfConfig{trees: 10, featureFrac: smacFeatureFrac, minLeaf: smacMinLeaf, maxDepth: smacMaxDepth, bootstrap: true}
}

// A forest trained on half of a 20x20 grid predicts the other half of a smooth function
// of both features with a small error.
func TestForestFitsAKnownFunction(t *testing.T) {
	levels := []int{20, 20}
	fn := func(x []int32) float64 {
		a, b := float64(x[0]), float64(x[1])
		return (a-8)*(a-8)/10 + 3*math.Sin(b/4)
	}
	r := rand.New(rand.NewPCG(1, 2))
	pts := rfGrid(levels)
	r.Shuffle(len(pts), func(i, j int) { pts[i], pts[j] = pts[j], pts[i] })
	train, test := pts[:200], pts[200:]
	var xs []int32
	var ys []float64
	for _, p := range train {
		xs = append(xs, p...)
		ys = append(ys, fn(p))
	}
	var f rfForest
	f.fit(xs, ys, levels, rfDefaultConfig(), r)
	mean := 0.0
	for _, p := range test {
		mean += fn(p)
	}
	mean /= float64(len(test))
	sse, sst := 0.0, 0.0
	for _, p := range test {
		m, v := f.predict(p)
		if v < 0 || math.IsNaN(v) {
			t.Fatalf("variance %v at %v", v, p)
		}
		sse += (m - fn(p)) * (m - fn(p))
		sst += (fn(p) - mean) * (fn(p) - mean)
	}
	r2 := 1 - sse/sst
	t.Logf("R^2 on %d unseen grid points: %.3f", len(test), r2)
	if r2 < 0.9 {
		t.Errorf("R^2 %.3f on unseen points, want at least 0.9", r2)
	}
}

// Between two clusters of samples the trees disagree on where to split, so the predicted
// variance in the gap is far larger than among the samples; the mean there lies between
// the clusters' values.
func TestForestVarianceIsLargerAwayFromTheData(t *testing.T) {
	levels := []int{40}
	var xs []int32
	var ys []float64
	for _, lv := range []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39} {
		for range 2 {
			xs = append(xs, int32(lv))
			ys = append(ys, float64(lv))
		}
	}
	var f rfForest
	f.fit(xs, ys, levels, rfDefaultConfig(), rand.New(rand.NewPCG(3, 4)))
	near := 0.0
	for _, lv := range []int32{3, 5, 33, 35} {
		_, v := f.predict([]int32{lv})
		near = max(near, v)
	}
	mGap, vGap := f.predict([]int32{20})
	t.Logf("largest variance at sampled levels %.3f, at the gap's middle %.3f (mean %.2f)", near, vGap, mGap)
	if vGap < 10*near || vGap < 1 {
		t.Errorf("variance in the gap %.3f is not well above %.3f among the samples", vGap, near)
	}
	if mGap < 9 || mGap > 30 {
		t.Errorf("mean %.2f in the gap is outside the clusters' range [9, 30]", mGap)
	}
}

// Trained on a success indicator, the forest gives a success probability: high where
// configurations succeeded, low where they failed, and never certain.
func TestForestClassifiesSuccess(t *testing.T) {
	levels := []int{16, 8}
	var xs []int32
	var ys []float64
	r := rand.New(rand.NewPCG(5, 6))
	for range 120 {
		a, b := int32(r.IntN(16)), int32(r.IntN(8))
		xs = append(xs, a, b)
		ys = append(ys, smacB2F(a*b < 24)) // fails above a product, as block sizes do
	}
	cfg := rfDefaultConfig()
	cfg.minLeaf, cfg.priorWeight = 1, 1
	var f rfForest
	f.fit(xs, ys, levels, cfg, r)
	for _, c := range []struct {
		x      []int32
		lo, hi float64
	}{
		{[]int32{1, 1}, 0.8, 0.999},
		{[]int32{2, 6}, 0.7, 0.999},
		{[]int32{15, 7}, 0.001, 0.2},
		{[]int32{12, 4}, 0.001, 0.3},
	} {
		if p := f.predictMean(c.x); p < c.lo || p > c.hi {
			t.Errorf("success probability at %v is %.3f, want it in [%v, %v]", c.x, p, c.lo, c.hi)
		}
	}
}

// The same generator state gives the same forest.
func TestForestIsDeterministic(t *testing.T) {
	levels := []int{10, 10}
	pts := rfGrid(levels)
	var xs []int32
	var ys []float64
	for i, p := range pts[:60] {
		xs = append(xs, p...)
		ys = append(ys, float64(i%7))
	}
	var a, b rfForest
	a.fit(xs, ys, levels, rfDefaultConfig(), rand.New(rand.NewPCG(7, 8)))
	b.fit(xs, ys, levels, rfDefaultConfig(), rand.New(rand.NewPCG(7, 8)))
	for _, p := range pts {
		ma, va := a.predict(p)
		mb, vb := b.predict(p)
		if ma != mb || va != vb {
			t.Fatalf("at %v: (%v, %v) vs (%v, %v)", p, ma, va, mb, vb)
		}
	}
	// refitting reuses memory and gives a forest of the new data only
	a.fit(xs[:2], []float64{4}, levels, rfDefaultConfig(), rand.New(rand.NewPCG(7, 8)))
	if m, v := a.predict(pts[50]); m != 4 || v != 0 {
		t.Errorf("forest of one sample predicts (%v, %v), want (4, 0)", m, v)
	}
}

// The acquisition functions against closed forms and a Monte Carlo estimate.
func TestSMACAcquisitionFunctions(t *testing.T) {
	if got := expectedImprovement(3, 0, 1, 0); got != 0 {
		t.Errorf("EI without uncertainty above the best = %v, want 0", got)
	}
	if got := expectedImprovement(1, 0, 3, 0); got != 2 {
		t.Errorf("EI without uncertainty 2 below the best = %v, want 2", got)
	}
	// at mu == eta, EI = sd * phi(0)
	if got, want := expectedImprovement(0, 2, 0, 0), 2/math.Sqrt(2*math.Pi); math.Abs(got-want) > 1e-12 {
		t.Errorf("EI at the best = %v, want %v", got, want)
	}
	if expectedImprovement(1, 2, 0, 0) <= expectedImprovement(1, 1, 0, 0) {
		t.Error("EI does not grow with the uncertainty")
	}
	// log-EI: E[max(exp(bestY) - exp(Y), 0)], Y ~ N(mu, sd^2), by Monte Carlo
	r := rand.New(rand.NewPCG(9, 10))
	bestY, mu, sd := 0.2, 0.5, 0.6
	sum := 0.0
	const n = 400000
	for range n {
		y := mu + sd*r.NormFloat64()
		sum += max(math.Exp(bestY)-math.Exp(y), 0)
	}
	if got, want := smacLogEI(bestY, mu, sd, 0), sum/n; math.Abs(got-want) > 0.005 {
		t.Errorf("log-EI = %v, Monte Carlo %v", got, want)
	}
}

func TestSMACTopSelectsTheBestInOrder(t *testing.T) {
	cs := []smacCand{{idx: 0, score: 1}, {idx: 1, score: 5}, {idx: 2, score: 3}, {idx: 3, score: 5}, {idx: 4, score: 4}}
	top := smacTop(cs, 3)
	want := []int{1, 3, 4}
	for i, c := range top {
		if c.idx != want[i] {
			t.Fatalf("top 3 = %v, want indices %v", top, want)
		}
	}
	if len(smacTop(cs[:2], 5)) != 2 {
		t.Error("top 5 of 2 is not both")
	}
}

// With maxSamples a tree is grown on that many bootstrap samples however many there are
// (so it has at most 2*maxSamples-1 nodes), and the forest still fits the function; with
// maxSamples at or above the samples the forest is the uncapped one, draw for draw.
func TestForestMaxSamplesCapsEachTree(t *testing.T) {
	levels := []int{20, 20}
	fn := func(x []int32) float64 {
		a, b := float64(x[0]), float64(x[1])
		return (a-8)*(a-8)/10 + 3*math.Sin(b/4)
	}
	var xs []int32
	var ys []float64
	pts := rfGrid(levels)
	for _, p := range pts {
		xs = append(xs, p...)
		ys = append(ys, fn(p))
	}
	uncapped := rfDefaultConfig()
	capped := uncapped
	capped.maxSamples = 50
	var fu, fc rfForest
	fu.fit(xs, ys, levels, uncapped, rand.New(rand.NewPCG(5, 6)))
	fc.fit(xs, ys, levels, capped, rand.New(rand.NewPCG(5, 6)))
	bigger := 0
	for i := range fc.trees {
		if n := len(fc.trees[i].nodes); n > 2*capped.maxSamples-1 {
			t.Errorf("capped tree %d has %d nodes, want at most %d", i, n, 2*capped.maxSamples-1)
		}
		if len(fu.trees[i].nodes) > 2*capped.maxSamples-1 {
			bigger++
		}
	}
	if bigger == 0 {
		t.Errorf("no uncapped tree is larger than a capped one can be: the test shows nothing")
	}
	sse, sst, mean := 0.0, 0.0, 0.0
	for _, y := range ys {
		mean += y
	}
	mean /= float64(len(ys))
	for i, p := range pts {
		m, _ := fc.predict(p)
		sse += (m - ys[i]) * (m - ys[i])
		sst += (ys[i] - mean) * (ys[i] - mean)
	}
	if r2 := 1 - sse/sst; r2 < 0.8 {
		t.Errorf("capped forest R^2 %.3f, want at least 0.8", r2)
	}

	same := uncapped
	same.maxSamples = len(ys)
	var fs rfForest
	fs.fit(xs, ys, levels, same, rand.New(rand.NewPCG(5, 6)))
	for _, p := range pts {
		a, va := fu.predict(p)
		b, vb := fs.predict(p)
		if a != b || va != vb {
			t.Fatalf("maxSamples = samples changed the prediction at %v: %v,%v against %v,%v", p, b, vb, a, va)
		}
	}
}
