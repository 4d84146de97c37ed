package strategy

import (
	"math"
	"math/rand/v2"
)

// The random forest behind the smac strategy (bayesrf.go): regression trees grown on
// bootstrap samples with a random subset of the features tried at each node, as SMAC's
// forest is (Hutter et al., "Sequential Model-Based Optimization for General Algorithm
// Configuration", 2011). Its prediction is the mean over the trees, and its variance the
// law of total variance over the trees' leaves (variance of the leaf means plus the mean
// within-leaf variance), so that both disagreement between trees and spread inside a leaf
// count as uncertainty.
//
// Features are integer levels: feature j takes the values 0 ... levels[j]-1, in an order
// that means something (the rank of a parameter's value). A tree only compares levels, so
// any monotone scaling of them (the unit interval, the numeric values) would give the same
// trees; integer levels let a node find its best split by counting per level instead of
// sorting. The split threshold between two neighbouring levels seen in a node is drawn
// uniformly among the unseen levels between them, so the trees disagree, and the variance
// grows, on levels that no sample has.

// rfConfig is how a forest is grown.
type rfConfig struct {
	trees       int     // number of trees
	featureFrac float64 // fraction of the features tried at each node (at least one)
	minLeaf     int     // fewest samples in a leaf
	maxDepth    int     // deepest a leaf may lie
	bootstrap   bool    // grow each tree on a bootstrap sample, else on all samples
	// maxSamples, when above 0, caps a tree's bootstrap sample: past that many samples a
	// tree sees a random maxSamples of them (drawn with replacement), so the cost of a fit
	// stops growing with the samples while the forest as a whole still sees all of them
	maxSamples int
	// priorWeight pulls each leaf's mean towards the mean of all samples, as that many
	// samples of it would: 0 for regression, about 1 for a success probability, which
	// then never reaches 0 or 1 on the strength of a single sample.
	priorWeight float64
}

// rfMaxSamples is the largest bootstrap sample of a tree in the model-based strategies'
// forests (bayes's failure model, smac's two forests), which are refitted as evaluations
// come in; without a cap a fit's cost grows with the evaluations (at 1,600 evaluations on
// the cartesian GEMM space the failure forest, then refitted every step, took 43% of
// bayes's time). Up to this many samples the cap changes nothing.
const rfMaxSamples = 400

// rfSuccessConfig is how a forest of success probabilities (1 for a configuration that
// ran, 0 for one that failed) is grown, for the model-based strategies' failure models.
func rfSuccessConfig(trees int) rfConfig {
	return rfConfig{trees: trees, featureFrac: 0.8, minLeaf: 1, maxDepth: 20, bootstrap: true, priorWeight: 1,
		maxSamples: rfMaxSamples}
}

// rfNode is a node of a tree: an inner node when feat >= 0, a leaf otherwise.
type rfNode struct {
	feat        int32   // feature tested, -1 for a leaf
	thr         int32   // samples with level <= thr go left
	left, right int32   // children, inner nodes only
	mean, vari  float64 // leaf only: mean and (population) variance of its targets
}

// rfTree is one regression tree, nodes[0] its root.
type rfTree struct{ nodes []rfNode }

// rfForest is a fitted random forest.
type rfForest struct {
	trees []rfTree
	d     int // features per sample

	// scratch for fitting, kept between fits
	levels   []int
	x        []int32
	y        []float64
	cfg      rfConfig
	r        *rand.Rand
	prior    float64
	idx      []int32
	feats    []int
	cnt      []int
	sum, sq  []float64
	nonEmpty []int32
}

// fit grows the forest on n = len(y) samples whose features are x[i*d : (i+1)*d], feature
// j having levels[j] levels. It reuses the forest's memory from an earlier fit.
func (f *rfForest) fit(x []int32, y []float64, levels []int, cfg rfConfig, r *rand.Rand) {
	n, d := len(y), len(levels)
	f.d, f.levels, f.x, f.y, f.cfg, f.r = d, levels, x, y, cfg, r
	f.prior = 0
	for _, v := range y {
		f.prior += v
	}
	if n > 0 {
		f.prior /= float64(n)
	}
	maxL := 1
	for _, l := range levels {
		maxL = max(maxL, l)
	}
	if cap(f.cnt) < maxL {
		f.cnt, f.sum, f.sq = make([]int, maxL), make([]float64, maxL), make([]float64, maxL)
		f.nonEmpty = make([]int32, 0, maxL)
	}
	f.cnt, f.sum, f.sq = f.cnt[:maxL], f.sum[:maxL], f.sq[:maxL]
	if cap(f.feats) < d {
		f.feats = make([]int, d)
	}
	f.feats = f.feats[:d]
	ns := n
	if cfg.bootstrap && cfg.maxSamples > 0 {
		ns = min(n, cfg.maxSamples)
	}
	if cap(f.idx) < ns {
		f.idx = make([]int32, ns)
	}
	f.idx = f.idx[:ns]
	if cap(f.trees) < cfg.trees {
		f.trees = append(f.trees[:cap(f.trees)], make([]rfTree, cfg.trees-cap(f.trees))...)
	}
	f.trees = f.trees[:cfg.trees]
	for t := range f.trees {
		for i := range f.idx {
			if cfg.bootstrap {
				f.idx[i] = int32(r.IntN(n))
			} else {
				f.idx[i] = int32(i)
			}
		}
		tr := &f.trees[t]
		tr.nodes = tr.nodes[:0]
		if n > 0 {
			f.grow(tr, f.idx, 0)
		}
	}
	// drop the references to the caller's data; the trees hold all a prediction needs
	f.x, f.y, f.r = nil, nil, nil
}

// grow adds the subtree for the samples idx (reordered in place) to tr and returns its
// node's position.
func (f *rfForest) grow(tr *rfTree, idx []int32, depth int) int32 {
	n := len(idx)
	s, sq := 0.0, 0.0
	for _, i := range idx {
		v := f.y[i]
		s += v
		sq += v * v
	}
	me := int32(len(tr.nodes))
	tr.nodes = append(tr.nodes, rfNode{feat: -1})
	mean := s / float64(n)
	vari := max(sq/float64(n)-mean*mean, 0)
	leaf := func() int32 {
		w := f.cfg.priorWeight
		tr.nodes[me].mean = (s + w*f.prior) / (float64(n) + w)
		tr.nodes[me].vari = vari
		return me
	}
	// a node whose targets are (numerically) equal gains nothing from a split
	if n < 2*f.cfg.minLeaf || depth >= f.cfg.maxDepth || vari <= 1e-12*max(1, mean*mean) {
		return leaf()
	}
	feat, lo, hi, ok := f.bestSplit(idx, s, n)
	if !ok {
		return leaf()
	}
	thr := lo + int32(f.r.IntN(int(hi-lo)))
	// partition: levels <= thr first
	k := 0
	for i, id := range idx {
		if f.x[int(id)*f.d+feat] <= thr {
			idx[i], idx[k] = idx[k], idx[i]
			k++
		}
	}
	l := f.grow(tr, idx[:k], depth+1)
	r := f.grow(tr, idx[k:], depth+1)
	tr.nodes[me] = rfNode{feat: int32(feat), thr: thr, left: l, right: r}
	return me
}

// bestSplit finds the split of the samples idx (targets summing to s) that most reduces
// the sum of squared deviations, trying a random subset of the features, and more when
// none of those can split. It returns the feature and the two neighbouring levels present
// in the node between which the split lies.
func (f *rfForest) bestSplit(idx []int32, s float64, n int) (feat int, lo, hi int32, ok bool) {
	for i := range f.feats {
		f.feats[i] = i
	}
	k := max(1, int(math.Ceil(f.cfg.featureFrac*float64(f.d))))
	minLeaf := max(f.cfg.minLeaf, 1)
	base := s * s / float64(n)
	bestGain := 0.0
	for tried := 0; tried < f.d; tried++ {
		if tried >= k && ok {
			break
		}
		// draw the next feature without replacement
		j := tried + f.r.IntN(f.d-tried)
		f.feats[tried], f.feats[j] = f.feats[j], f.feats[tried]
		fj := f.feats[tried]
		L := f.levels[fj]
		if L < 2 {
			continue
		}
		cnt, sum := f.cnt[:L], f.sum[:L]
		clear(cnt)
		clear(sum)
		for _, id := range idx {
			lv := f.x[int(id)*f.d+fj]
			cnt[lv]++
			sum[lv] += f.y[id]
		}
		ne := f.nonEmpty[:0]
		for lv := range L {
			if cnt[lv] > 0 {
				ne = append(ne, int32(lv))
			}
		}
		nl, sl := 0, 0.0
		for e := 0; e+1 < len(ne); e++ {
			nl += cnt[ne[e]]
			sl += sum[ne[e]]
			nr := n - nl
			if nl < minLeaf {
				continue
			}
			if nr < minLeaf {
				break
			}
			sr := s - sl
			gain := sl*sl/float64(nl) + sr*sr/float64(nr) - base
			if gain > bestGain+1e-12*math.Abs(base) {
				bestGain, feat, lo, hi, ok = gain, fj, ne[e], ne[e+1], true
			}
		}
	}
	return feat, lo, hi, ok
}

// leafOf returns the leaf of tr that sample x falls in.
func (tr *rfTree) leafOf(x []int32) *rfNode {
	nd := &tr.nodes[0]
	for nd.feat >= 0 {
		if x[nd.feat] <= nd.thr {
			nd = &tr.nodes[nd.left]
		} else {
			nd = &tr.nodes[nd.right]
		}
	}
	return nd
}

// predict returns the forest's mean and variance at x: the mean of the trees' leaf means,
// and by the law of total variance the variance of those means plus the mean of the
// leaves' own variances.
func (f *rfForest) predict(x []int32) (mean, variance float64) {
	if len(f.trees) == 0 || len(f.trees[0].nodes) == 0 {
		return 0, 0
	}
	s, sq := 0.0, 0.0
	for t := range f.trees {
		nd := f.trees[t].leafOf(x)
		s += nd.mean
		sq += nd.mean*nd.mean + nd.vari
	}
	n := float64(len(f.trees))
	mean = s / n
	return mean, max(sq/n-mean*mean, 0)
}

// predictMean returns the mean of the trees' leaf means at x, for a forest of success
// probabilities.
func (f *rfForest) predictMean(x []int32) float64 {
	if len(f.trees) == 0 || len(f.trees[0].nodes) == 0 {
		return 0
	}
	s := 0.0
	for t := range f.trees {
		s += f.trees[t].leafOf(x).mean
	}
	return s / float64(len(f.trees))
}
