package profile

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
)

// Tree predicts the counters of Reacted from a configuration's tuning parameters with one
// regression tree per counter: the paper's decision-tree model (Section 3.4.2), the
// alternative to the least-squares Model. A tree is grown top-down and greedily, as ID3
// adapted to regression is: each node splits its configurations in two by the parameter
// and threshold that reduce the squared error of log(1+counter) the most (the paper's
// MSE criterion), until a node is pure or no split leaves at least MinLeaf configurations
// on each side. Every parameter that varies takes part, binary ones too (the least-squares
// model splits the space by those instead), compared by value; values that are not
// numbers by their place in the recording's list of values.
//
// Like the paper, it chooses among candidate trees by their error on configurations they
// did not learn from: the training configurations are shuffled (seed 1) and halved, a
// tree is grown on one half for every candidate shape (a depth limit and a smallest leaf,
// the grid of treeDepths and treeLeaves), and the shape with the lowest mean absolute
// error of log(1+counter) on the other half wins, ties going to the lower root mean
// square error and then to the simpler shape. The paper then predicts with the tree
// grown on the half; here the winning shape is grown again on all the training
// configurations, so that none of them is wasted (a sample has 60-96 of them). With fewer
// than minSelect configurations, or with a shape given in TreeOptions, there is no
// choice.
type Tree struct {
	Source  string      // the recording it was trained on
	Trained int         // configurations it was trained on
	Shapes  []TreeShape // per counter of Reacted, the shape of its tree

	params []string         // the training recording's parameters, by name
	feats  []int            // parameters that vary, indices into params: feature j is params[feats[j]]
	logx   []bool           // per feature: it enters by its logarithm (all its values above 0)
	names  []map[string]int // per feature whose values are not all numbers: each value's place
	trees  []*regTree       // per counter of Reacted; nil: not predicted (no training value)
}

// TreeShape is how far a tree grows.
type TreeShape struct {
	MaxDepth int // deepest a leaf may lie (the root is at depth 0)
	MinLeaf  int // fewest training configurations in a leaf
	Leaves   int // the leaves it has (set by training; ignored in TreeOptions)
}

// TreeOptions say which evaluations of a recording a Tree learns from, and how far its
// trees grow.
type TreeOptions struct {
	// Sample trains on the paper's deliberate sample, the same configurations the
	// least-squares model's TrainOptions.Sample picks.
	Sample bool
	// Shape, when its MaxDepth and MinLeaf are above 0, fixes every tree's shape instead
	// of choosing it by held-out error.
	Shape TreeShape
}

// The candidate shapes: every depth limit with every smallest leaf. A depth of 32 lets a
// tree of leaves of one configuration tell apart every configuration of the recordings
// (convolution's 5,280 need more than 16: a split on a parameter's level is often
// lopsided); the larger leaves average away noise of the counters.
var (
	treeDepths = []int{1, 2, 3, 4, 6, 8, 12, 16, 24, 32}
	treeLeaves = []int{16, 8, 4, 2, 1}
)

// minSelect is the fewest training configurations whose halves choose a shape; below it,
// every tree is grown with fallbackShape.
const minSelect = 8

// fallbackShape is grown where there is no choice: as deep as the data allow, to a single
// configuration per leaf, which fits the few configurations there are exactly.
var fallbackShape = TreeShape{MaxDepth: 32, MinLeaf: 1}

// TrainTree builds a Tree from rec's successful evaluations that carry counters. It fails
// when none does (wrapping ErrNoCounters).
func TrainTree(rec *result.Recording, o TreeOptions) (*Tree, error) {
	lsq := newModel(rec)
	keys, groups, err := lsq.trainingSet(rec, o.Sample)
	if err != nil {
		return nil, err
	}
	t := &Tree{Source: rec.Source, params: lsq.params}
	for i, p := range rec.Params {
		if len(p.Values) <= 1 {
			continue
		}
		numeric, positive := true, true
		for _, v := range p.Values {
			numeric = numeric && v.IsNumeric()
			positive = positive && v.Float() > 0
		}
		var names map[string]int
		if !numeric {
			names = map[string]int{}
			for k, v := range p.Values {
				names[v.String()] = k
			}
		}
		t.feats = append(t.feats, i)
		t.logx = append(t.logx, numeric && positive)
		t.names = append(t.names, names)
	}
	var X [][]float64
	var Y []Counters
	for _, key := range keys {
		for _, p := range groups[key] {
			X = append(X, t.features(func(i int) space.Value { return p.config[i] }, nil))
			Y = append(Y, p.y)
		}
	}
	t.Trained = len(X)
	data := newTreeData(X)
	// one halving for every counter, fixed, so that the model is the same in every run
	perm := rand.New(rand.NewPCG(1, 0)).Perm(len(X))
	half, rest := perm[:len(X)/2], perm[len(X)/2:]
	t.trees = make([]*regTree, len(Reacted))
	t.Shapes = make([]TreeShape, len(Reacted))
	for ci, c := range Reacted {
		var idx []int32
		y := make([]float64, len(X))
		for i := range X {
			if v := Y[i][c]; !math.IsNaN(v) {
				y[i] = math.Log1p(max(0, v))
				idx = append(idx, int32(i))
			}
		}
		if len(idx) == 0 {
			continue
		}
		shape := o.Shape
		if shape.MaxDepth <= 0 || shape.MinLeaf <= 0 {
			shape = fallbackShape
			if len(idx) >= minSelect {
				shape = data.choose(y, usable(half, Y, c), usable(rest, Y, c))
			}
		}
		tr := data.grow(idx, y, shape)
		t.trees[ci] = tr
		shape.Leaves = tr.leaves()
		t.Shapes[ci] = shape
	}
	return t, nil
}

// usable keeps the configurations of idx whose counter c was measured.
func usable(idx []int, Y []Counters, c Counter) []int32 {
	var out []int32
	for _, i := range idx {
		if !math.IsNaN(Y[i][c]) {
			out = append(out, int32(i))
		}
	}
	slices.Sort(out)
	return out
}

// features writes the tree's features of the configuration whose i-th parameter has
// value(i) into dst.
func (t *Tree) features(value func(i int) space.Value, dst []float64) []float64 {
	dst = dst[:0]
	for j, i := range t.feats {
		v := value(i)
		var f float64
		switch {
		case t.names[j] != nil:
			k, ok := t.names[j][v.String()]
			if !ok {
				k = -1 // a value the recording lacks: below all of its values
			}
			f = float64(k)
		case t.logx[j]:
			f = math.Log2(v.Float())
		default:
			f = v.Float()
		}
		dst = append(dst, f)
	}
	return dst
}

// Bind checks that sp has the tree's parameters, by name (their order may differ), and no
// others that vary, and returns the tree bound to it.
func (t *Tree) Bind(sp *space.Space) (*Bound, error) { return bind(t, t.params, t.Source, sp) }

// PredictValues is Bound.Predict for a configuration given by its values, one per
// parameter of the training recording, in its order.
func (t *Tree) PredictValues(vals []space.Value, dst []float64) []float64 {
	return t.predict(func(i int) space.Value { return vals[i] }, dst)
}

func (t *Tree) predict(value func(i int) space.Value, dst []float64) []float64 {
	if cap(dst) < len(Reacted) {
		dst = make([]float64, len(Reacted))
	}
	dst = dst[:len(Reacted)]
	clear(dst)
	var xb [16]float64
	x := t.features(value, xb[:0])
	for ci, tr := range t.trees {
		if tr == nil {
			continue
		}
		if p := math.Expm1(tr.predict(x)); p >= 0.5 {
			dst[ci] = p
		}
	}
	return dst
}

// treeData is the training configurations' features, as levels: feature j of
// configuration i is level lv[i][j], its place among the distinct values vals[j] that
// feature takes in the training data. A node then finds its best split by summing per
// level instead of sorting.
type treeData struct {
	lv   [][]int32
	vals [][]float64
}

func newTreeData(X [][]float64) *treeData {
	d := &treeData{lv: make([][]int32, len(X))}
	nf := 0
	if len(X) > 0 {
		nf = len(X[0])
	}
	d.vals = make([][]float64, nf)
	for j := range nf {
		var vs []float64
		for _, x := range X {
			vs = append(vs, x[j])
		}
		slices.Sort(vs)
		d.vals[j] = slices.Compact(vs)
	}
	for i, x := range X {
		d.lv[i] = make([]int32, nf)
		for j, v := range x {
			k, _ := slices.BinarySearch(d.vals[j], v)
			d.lv[i][j] = int32(k)
		}
	}
	return d
}

// regTree is one counter's tree, its nodes in the order grown (the root first). Every node
// keeps the mean of its configurations, so that cutting the tree at a depth (as choose
// does) needs no regrowing.
type regTree struct {
	nodes    []treeNode
	maxDepth int
}

type treeNode struct {
	mean        float64 // of log(1+counter) over the node's training configurations
	feat        int32   // the feature split on; -1: a leaf
	level       int32   // configurations whose feature's level is up to this go left
	thr         float64 // the same as a value: halfway between the levels on either side
	left, right int32
}

// grow grows a tree on the configurations idx with targets y, to the given shape.
func (d *treeData) grow(idx []int32, y []float64, shape TreeShape) *regTree {
	tr := &regTree{maxDepth: shape.MaxDepth}
	d.node(tr, slices.Clone(idx), y, shape, 0)
	return tr
}

// node grows the subtree of the configurations idx at depth and returns its index.
func (d *treeData) node(tr *regTree, idx []int32, y []float64, shape TreeShape, depth int) int32 {
	mean := 0.0
	for _, i := range idx {
		mean += y[i]
	}
	mean /= float64(len(idx))
	k := int32(len(tr.nodes))
	tr.nodes = append(tr.nodes, treeNode{mean: mean, feat: -1})
	if depth >= shape.MaxDepth || len(idx) < 2*shape.MinLeaf {
		return k
	}
	feat, level, ok := d.bestSplit(idx, y, mean, shape.MinLeaf)
	if !ok {
		return k
	}
	// each side keeps the order of idx
	var left, right []int32
	for _, i := range idx {
		if d.lv[i][feat] <= level {
			left = append(left, i)
		} else {
			right = append(right, i)
		}
	}
	vs := d.vals[feat]
	hi := int32(len(vs))
	for _, i := range right {
		hi = min(hi, d.lv[i][feat])
	}
	tr.nodes[k].feat, tr.nodes[k].level = int32(feat), level
	tr.nodes[k].thr = (vs[level] + vs[hi]) / 2
	l := d.node(tr, left, y, shape, depth+1)
	r := d.node(tr, right, y, shape, depth+1)
	tr.nodes[k].left, tr.nodes[k].right = l, r
	return k
}

// bestSplit finds the feature and level whose split of idx (levels up to it left, above
// right) reduces the squared error of y the most, both sides keeping at least minLeaf
// configurations; ok is false when no split reduces it. Targets are centred on the node's
// mean first, so that a node whose targets are all equal sees no reduction at all rather
// than one of rounding. Ties go to the first feature, then the lowest level.
func (d *treeData) bestSplit(idx []int32, y []float64, mean float64, minLeaf int) (feat int, level int32, ok bool) {
	n := len(idx)
	total := 0.0
	for _, i := range idx {
		total += y[i] - mean
	}
	base := total * total / float64(n)
	best := 0.0
	var cnt []int
	var sum []float64
	for j := range d.vals {
		nl := len(d.vals[j])
		if nl < 2 {
			continue
		}
		cnt = slices.Grow(cnt[:0], nl)[:nl]
		sum = slices.Grow(sum[:0], nl)[:nl]
		clear(cnt)
		clear(sum)
		for _, i := range idx {
			l := d.lv[i][j]
			cnt[l]++
			sum[l] += y[i] - mean
		}
		cl, sl := 0, 0.0
		for l := range nl - 1 {
			if cnt[l] == 0 {
				continue
			}
			cl += cnt[l]
			sl += sum[l]
			cr := n - cl
			if cr == 0 {
				break
			}
			if cl < minLeaf || cr < minLeaf {
				continue
			}
			sr := total - sl
			gain := sl*sl/float64(cl) + sr*sr/float64(cr) - base
			if gain > best {
				best, feat, level, ok = gain, j, int32(l), true
			}
		}
	}
	return feat, level, ok
}

// choose grows a tree on the configurations train for each smallest leaf of treeLeaves,
// cuts it at each depth of treeDepths, and returns the shape whose cut predicts the
// configurations test best: the lowest mean absolute error, then the lowest root mean
// square error, then the simpler (shallower, then larger leaves).
func (d *treeData) choose(y []float64, train, test []int32) TreeShape {
	if len(train) == 0 || len(test) == 0 {
		return fallbackShape
	}
	best := fallbackShape
	bestMAE, bestRMSE := math.Inf(1), math.Inf(1)
	deepest := treeDepths[len(treeDepths)-1]
	trees := make([]*regTree, len(treeLeaves))
	for k, leaf := range treeLeaves {
		trees[k] = d.grow(train, y, TreeShape{MaxDepth: deepest, MinLeaf: leaf})
	}
	for _, depth := range treeDepths {
		for k, leaf := range treeLeaves {
			mae, sse := 0.0, 0.0
			for _, i := range test {
				e := math.Abs(trees[k].predictLevels(d.lv[i], depth) - y[i])
				mae += e
				sse += e * e
			}
			mae /= float64(len(test))
			rmse := math.Sqrt(sse / float64(len(test)))
			// a tolerance, so that differences of rounding leave the simpler shape
			const tol = 1e-12
			if mae < bestMAE-tol || (mae <= bestMAE+tol && rmse < bestRMSE-tol) {
				best, bestMAE, bestRMSE = TreeShape{MaxDepth: depth, MinLeaf: leaf}, mae, rmse
			}
		}
	}
	return best
}

// predictLevels is the mean of the node a training configuration of levels lv reaches,
// going no deeper than depth.
func (tr *regTree) predictLevels(lv []int32, depth int) float64 {
	k := int32(0)
	for d := 0; d < depth; d++ {
		n := &tr.nodes[k]
		if n.feat < 0 {
			break
		}
		if lv[n.feat] <= n.level {
			k = n.left
		} else {
			k = n.right
		}
	}
	return tr.nodes[k].mean
}

// predict is the mean of the leaf features x reach.
func (tr *regTree) predict(x []float64) float64 {
	k := int32(0)
	for d := 0; d < tr.maxDepth; d++ {
		n := &tr.nodes[k]
		if n.feat < 0 {
			break
		}
		if x[n.feat] <= n.thr {
			k = n.left
		} else {
			k = n.right
		}
	}
	return tr.nodes[k].mean
}

// leaves counts the tree's leaves.
func (tr *regTree) leaves() int {
	n := 0
	for _, nd := range tr.nodes {
		if nd.feat < 0 {
			n++
		}
	}
	return n
}
