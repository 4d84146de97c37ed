package landscape

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"
)

// PageRankOptions configure PageRank; zero fields take networkx's defaults except MaxIter.
//
// networkx stops when the L1 change is below N·Tol, a bound that grows with the graph: on
// 82,944 nodes (GEMM in cartesian mode) Tol 1e-6 stops after 2 or 3 iterations, far from
// the fixed point (C_0.05 0.10 instead of 0.22). Use a smaller Tol (1e-10) where converged
// values matter more than agreeing with networkx.
type PageRankOptions struct {
	Damping float64 // probability of following an edge; 0 means 0.85
	Tol     float64 // per-node tolerance; 0 means 1e-6
	MaxIter int     // iteration limit; 0 means 1000
}

func (o PageRankOptions) withDefaults() PageRankOptions {
	if o.Damping == 0 {
		o.Damping = 0.85
	}
	if o.Tol == 0 {
		o.Tol = 1e-6
	}
	if o.MaxIter == 0 {
		o.MaxIter = 1000
	}
	return o
}

// PageRank computes the PageRank of every node of g as networkx.pagerank does: each
// node's out-edges weighted equally, the mass of dangling nodes (no out-edges) and the
// teleport spread uniformly over all nodes, power iteration from the uniform vector until
// the L1 change is below N·Tol. It returns the ranks (summing to 1), the iterations run,
// and an error when MaxIter iterations did not converge or ctx is done.
func PageRank(ctx context.Context, g *Graph, o PageRankOptions) (rank []float64, iterations int, err error) {
	o = o.withDefaults()
	if o.Damping < 0 || o.Damping >= 1 || o.Tol <= 0 || o.MaxIter < 0 {
		return nil, 0, fmt.Errorf("landscape: invalid PageRank options %+v", o)
	}
	n := g.N()
	if n <= 0 {
		return nil, 0, nil
	}
	in := g.transpose()
	inv := make([]float64, n) // 1/outdegree, 0 for dangling nodes
	var dangling []int32
	for i := range n {
		if d := g.Offsets[i+1] - g.Offsets[i]; d > 0 {
			inv[i] = 1 / float64(d)
		} else {
			dangling = append(dangling, int32(i))
		}
	}
	alpha := o.Damping
	x := make([]float64, n)
	for i := range x {
		x[i] = 1 / float64(n)
	}
	next := make([]float64, n)
	share := make([]float64, n)
	workers := min(runtime.GOMAXPROCS(0), max(1, n/8192))
	for it := 1; it <= o.MaxIter; it++ {
		if err := ctx.Err(); err != nil {
			return nil, it - 1, err
		}
		dmass := 0.0
		for _, i := range dangling {
			dmass += x[i]
		}
		for i := range x {
			share[i] = x[i] * inv[i]
		}
		base := alpha*dmass/float64(n) + (1-alpha)/float64(n)
		pull := func(lo, hi int) float64 {
			diff := 0.0
			for v := lo; v < hi; v++ {
				s := 0.0
				for _, u := range in.Targets[in.Offsets[v]:in.Offsets[v+1]] {
					s += share[u]
				}
				next[v] = alpha*s + base
				diff += math.Abs(next[v] - x[v])
			}
			return diff
		}
		var diff float64
		if workers == 1 {
			diff = pull(0, n)
		} else {
			diffs := make([]float64, workers)
			var wg sync.WaitGroup
			for w := range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					diffs[w] = pull(w*n/workers, (w+1)*n/workers)
				}()
			}
			wg.Wait()
			for _, d := range diffs {
				diff += d
			}
		}
		x, next = next, x
		if diff < float64(n)*o.Tol {
			return x, it, nil
		}
	}
	return nil, o.MaxIter, fmt.Errorf("landscape: PageRank did not converge in %d iterations", o.MaxIter)
}

// transpose returns the graph with every edge reversed, rows in ascending order.
func (g *Graph) transpose() *Graph {
	n := g.N()
	t := &Graph{Offsets: make([]int32, n+1), Targets: make([]int32, len(g.Targets))}
	for _, v := range g.Targets {
		t.Offsets[v+1]++
	}
	for i := range n {
		t.Offsets[i+1] += t.Offsets[i]
	}
	fill := append([]int32(nil), t.Offsets[:n]...)
	for u := range n {
		for _, v := range g.Targets[g.Offsets[u]:g.Offsets[u+1]] {
			t.Targets[fill[v]] = int32(u)
			fill[v]++
		}
	}
	return t
}
