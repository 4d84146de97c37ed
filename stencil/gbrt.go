package stencil

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// The regressor behind Model: gradient-boosted regression trees under squared loss
// (Friedman, "Greedy function approximation: a gradient boosting machine", 2001). Seed
// 002 uses an MLP (ZPNet, TensorFlow) on hundreds of thousands of measurements; ktune's
// training sets are a few thousand measurements taken on the machine at hand, where
// boosted trees learn well without the tuning of layers, learning rate and epochs a small
// network needs, train in well under a second, and need no dependency. The input is the
// same: the stencil's features and the zero-padded setting.
//
// Each feature is cut into at most gbBins bins at quantiles of the training values (most
// features take a handful of values: log2 block sizes, counts of neighbours), so a node
// finds its best split by summing per bin rather than sorting.

// gbParams is how a boosted model is grown.
type gbParams struct {
	Trees     int     `json:"trees"`     // boosting rounds
	Depth     int     `json:"depth"`     // deepest a leaf lies
	MinLeaf   int     `json:"min_leaf"`  // fewest samples in a leaf
	Shrinkage float64 `json:"shrinkage"` // learning rate: each tree's contribution is scaled by it
	Subsample float64 `json:"subsample"` // share of the samples each tree is fitted on, drawn afresh
}

// defaultGBParams are ktune's choices, checked on the recorded stencils (BENCHMARKS.md).
var defaultGBParams = gbParams{Trees: 150, Depth: 3, MinLeaf: 4, Shrinkage: 0.05, Subsample: 0.8}

const gbBins = 64

// gbNode is a node of a tree: inner when Feat >= 0 (x[Feat] <= Thr goes left), else a
// leaf with Value.
type gbNode struct {
	Feat        int     `json:"f"`
	Thr         float64 `json:"t,omitempty"`
	Left, Right int     `json:"-"`
	Value       float64 `json:"v,omitempty"`
}

// gbTree is a tree in preorder: an inner node's left child follows it, its right child
// follows the left subtree (so the file need not store child indices).
type gbTree []gbNode

// gbModel is the boosted ensemble: Base plus the sum of the trees' leaves.
type gbModel struct {
	Base  float64  `json:"base"`
	Trees []gbTree `json:"trees"`
}

func (m *gbModel) predict(x []float64) float64 {
	y := m.Base
	for _, t := range m.Trees {
		i := 0
		for t[i].Feat >= 0 {
			if x[t[i].Feat] <= t[i].Thr {
				i = t[i].Left
			} else {
				i = t[i].Right
			}
		}
		y += t[i].Value
	}
	return y
}

// link fills in the child indices of a tree read back in preorder, checking its shape.
func (t gbTree) link() error {
	var walk func(i int) (int, error)
	walk = func(i int) (next int, err error) {
		if i >= len(t) {
			return 0, fmt.Errorf("a tree ends inside a branch")
		}
		if t[i].Feat < 0 {
			return i + 1, nil
		}
		t[i].Left = i + 1
		r, err := walk(i + 1)
		if err != nil {
			return 0, err
		}
		t[i].Right = r
		return walk(r)
	}
	end, err := walk(0)
	if err == nil && end != len(t) {
		err = fmt.Errorf("a tree has %d nodes after its last leaf", len(t)-end)
	}
	return err
}

// gbFit grows a model of y from the rows x (all of one length), drawing subsamples from r.
func gbFit(x [][]float64, y []float64, p gbParams, r *rand.Rand) *gbModel {
	n, nf := len(x), len(x[0])
	// bin edges per feature: the upper value of each bin
	edges := make([][]float64, nf)
	bin := make([][]uint8, nf) // bin[f][i]: sample i's bin of feature f
	col := make([]float64, n)
	for f := range nf {
		for i := range n {
			col[i] = x[i][f]
		}
		vals := slices.Clone(col)
		slices.Sort(vals)
		vals = slices.Compact(vals)
		if len(vals) > gbBins {
			q := make([]float64, 0, gbBins)
			sorted := slices.Clone(col)
			slices.Sort(sorted)
			for b := 1; b <= gbBins; b++ {
				q = append(q, sorted[min(n-1, b*n/gbBins)])
			}
			vals = slices.Compact(q)
		}
		edges[f] = vals
		bin[f] = make([]uint8, n)
		for i, v := range col {
			k, _ := slices.BinarySearch(vals, v)
			bin[f][i] = uint8(min(k, len(vals)-1))
		}
	}
	m := &gbModel{}
	for _, v := range y {
		m.Base += v
	}
	m.Base /= float64(n)
	pred := make([]float64, n)
	for i := range pred {
		pred[i] = m.Base
	}
	resid := make([]float64, n)
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	g := &gbGrower{p: p, bin: bin, edges: edges, resid: resid}
	for range p.Trees {
		for i := range n {
			resid[i] = y[i] - pred[i]
		}
		idx := all
		if p.Subsample < 1 {
			k := max(1, int(p.Subsample*float64(n)))
			perm := r.Perm(n)[:k]
			slices.Sort(perm)
			idx = perm
		}
		var t gbTree
		g.grow(&t, slices.Clone(idx), 0)
		for i := range t {
			t[i].Value *= p.Shrinkage
		}
		for i := range n {
			pred[i] += treeValue(t, x[i])
		}
		m.Trees = append(m.Trees, t)
	}
	return m
}

func treeValue(t gbTree, x []float64) float64 {
	i := 0
	for t[i].Feat >= 0 {
		if x[t[i].Feat] <= t[i].Thr {
			i = t[i].Left
		} else {
			i = t[i].Right
		}
	}
	return t[i].Value
}

type gbGrower struct {
	p     gbParams
	bin   [][]uint8
	edges [][]float64
	resid []float64
}

// grow appends to t the subtree fitted to the residuals of the samples idx, in preorder,
// and returns its root's index.
func (g *gbGrower) grow(t *gbTree, idx []int, depth int) int {
	at := len(*t)
	sum := 0.0
	for _, i := range idx {
		sum += g.resid[i]
	}
	*t = append(*t, gbNode{Feat: -1, Value: sum / float64(len(idx))})
	if depth >= g.p.Depth || len(idx) < 2*g.p.MinLeaf {
		return at
	}
	feat, cut, ok := g.split(idx, sum)
	if !ok {
		return at
	}
	var left, right []int
	for _, i := range idx {
		if int(g.bin[feat][i]) <= cut {
			left = append(left, i)
		} else {
			right = append(right, i)
		}
	}
	(*t)[at] = gbNode{Feat: feat, Thr: g.edges[feat][cut]}
	l := g.grow(t, left, depth+1)
	r := g.grow(t, right, depth+1)
	(*t)[at].Left, (*t)[at].Right = l, r
	return at
}

// split finds the feature and bin whose split of idx most reduces the squared error,
// each side keeping at least MinLeaf samples.
func (g *gbGrower) split(idx []int, sum float64) (feat, cut int, ok bool) {
	n := float64(len(idx))
	best := sum * sum / n // the score of no split; a split scores sL^2/nL + sR^2/nR
	var s [gbBins]float64
	var c [gbBins]int
	for f, bins := range g.bin {
		nb := len(g.edges[f])
		if nb < 2 {
			continue
		}
		clear(s[:nb])
		clear(c[:nb])
		for _, i := range idx {
			b := bins[i]
			s[b] += g.resid[i]
			c[b]++
		}
		sl, cl := 0.0, 0
		for b := range nb - 1 {
			sl += s[b]
			cl += c[b]
			if cl < g.p.MinLeaf {
				continue
			}
			cr := len(idx) - cl
			if cr < g.p.MinLeaf {
				break
			}
			sr := sum - sl
			score := sl*sl/float64(cl) + sr*sr/float64(cr)
			if score > best+1e-12*math.Abs(best) {
				best, feat, cut, ok = score, f, b, true
			}
		}
	}
	return feat, cut, ok
}
