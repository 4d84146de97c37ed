package landscape

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// graphOf builds a CSR graph from adjacency lists.
func graphOf(adj [][]int32) *Graph {
	g := &Graph{Offsets: make([]int32, 1, len(adj)+1)}
	for _, row := range adj {
		g.Targets = append(g.Targets, row...)
		g.Offsets = append(g.Offsets, int32(len(g.Targets)))
	}
	return g
}

// denseRank solves PageRank exactly: x = alpha·M·x + (1-alpha)/N·1, where column u of M
// spreads u's mass over its successors, or over all nodes when u has none.
func denseRank(t *testing.T, adj [][]int32, alpha float64) []float64 {
	t.Helper()
	n := len(adj)
	a := mat.NewDense(n, n, nil)
	for u, row := range adj {
		for v := range n {
			if len(row) == 0 {
				a.Set(v, u, a.At(v, u)-alpha/float64(n))
			}
		}
		for _, v := range row {
			a.Set(int(v), u, a.At(int(v), u)-alpha/float64(len(row)))
		}
	}
	for i := range n {
		a.Set(i, i, a.At(i, i)+1)
	}
	b := mat.NewVecDense(n, nil)
	for i := range n {
		b.SetVec(i, (1-alpha)/float64(n))
	}
	var x mat.VecDense
	if err := x.SolveVec(a, b); err != nil {
		t.Fatal(err)
	}
	return x.RawVector().Data
}

// randomGraph has n nodes, each with up to 4 distinct successors, a fifth of them dangling.
func randomGraph(n int, seed uint64) [][]int32 {
	r := rand.New(rand.NewPCG(seed, 1))
	adj := make([][]int32, n)
	for u := range adj {
		if r.IntN(5) == 0 {
			continue
		}
		seen := map[int32]bool{}
		for range 1 + r.IntN(4) {
			v := int32(r.IntN(n))
			if v != int32(u) && !seen[v] {
				seen[v] = true
			}
		}
		for v := range int32(n) {
			if seen[v] {
				adj[u] = append(adj[u], v)
			}
		}
	}
	return adj
}

func TestPageRankTwoNodesExact(t *testing.T) {
	// 0 -> 1, 1 dangling: x0 = 0.075 + 0.425·x1 and x0 + x1 = 1 give x0 = 20/57.
	x, _, err := PageRank(context.Background(), graphOf([][]int32{{1}, {}}), PageRankOptions{Tol: 1e-13})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(x[0]-20.0/57) > 1e-12 || math.Abs(x[1]-37.0/57) > 1e-12 {
		t.Errorf("ranks %v, want [20/57 37/57]", x)
	}
}

func TestPageRankMatchesTheLinearSystem(t *testing.T) {
	for _, tc := range []struct {
		name  string
		adj   [][]int32
		alpha float64
	}{
		{"random 60", randomGraph(60, 7), 0.85},
		{"random 200 alpha 0.5", randomGraph(200, 8), 0.5},
		{"cycle with a sink", [][]int32{{1}, {2}, {0, 3}, {}}, 0.85},
		{"all dangling", [][]int32{{}, {}, {}}, 0.85},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := denseRank(t, tc.adj, tc.alpha)
			g := graphOf(tc.adj)
			// At networkx's tolerance the last step moved less than N·1e-6 in L1, and the
			// error of a contraction by alpha is at most alpha/(1-alpha) times that.
			x, it, err := PageRank(context.Background(), g, PageRankOptions{Damping: tc.alpha})
			if err != nil {
				t.Fatal(err)
			}
			l1 := 0.0
			for i := range x {
				l1 += math.Abs(x[i] - want[i])
			}
			if bound := tc.alpha / (1 - tc.alpha) * float64(len(x)) * 1e-6; l1 > bound {
				t.Errorf("default tolerance: L1 error %g after %d iterations, bound %g", l1, it, bound)
			}
			// Tighter tolerances agree entry by entry.
			for _, c := range []struct{ tol, limit float64 }{{1e-9, 1e-6}, {1e-13, 1e-10}} {
				x, it, err := PageRank(context.Background(), g, PageRankOptions{Damping: tc.alpha, Tol: c.tol})
				if err != nil {
					t.Fatal(err)
				}
				sum := 0.0
				for i := range x {
					sum += x[i]
					if math.Abs(x[i]-want[i]) > c.limit {
						t.Errorf("tol %g: node %d rank %v, want %v (%d iterations)", c.tol, i, x[i], want[i], it)
					}
				}
				if math.Abs(sum-1) > 1e-12 {
					t.Errorf("ranks sum to %v", sum)
				}
			}
		})
	}
}

// powerIterations counts networkx's power iterations with a dense, push-style loop.
func powerIterations(adj [][]int32, alpha, tol float64) int {
	n := len(adj)
	x := make([]float64, n)
	for i := range x {
		x[i] = 1 / float64(n)
	}
	for it := 1; ; it++ {
		next := make([]float64, n)
		for u, row := range adj {
			if len(row) == 0 {
				for v := range next {
					next[v] += alpha * x[u] / float64(n)
				}
			}
			for _, v := range row {
				next[v] += alpha * x[u] / float64(len(row))
			}
		}
		err := 0.0
		for v := range next {
			next[v] += (1 - alpha) / float64(n)
			err += math.Abs(next[v] - x[v])
		}
		x = next
		if err < float64(n)*tol {
			return it
		}
	}
}

func TestPageRankIterationCountAndLimit(t *testing.T) {
	adj := randomGraph(100, 3)
	g := graphOf(adj)
	_, it, err := PageRank(context.Background(), g, PageRankOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := powerIterations(adj, 0.85, 1e-6); it != want {
		t.Errorf("%d iterations, want %d", it, want)
	}
	if _, _, err := PageRank(context.Background(), g, PageRankOptions{MaxIter: it - 1}); err == nil {
		t.Errorf("no error when %d iterations are allowed and %d needed", it-1, it)
	}
}

func TestTransposeReversesEveryEdge(t *testing.T) {
	g := graphOf(randomGraph(50, 4))
	tr := g.transpose()
	want := map[[2]int32]bool{}
	for _, e := range edges(g) {
		want[[2]int32{e[1], e[0]}] = true
	}
	got := edges(tr)
	if len(got) != len(want) {
		t.Fatalf("%d edges, want %d", len(got), len(want))
	}
	for _, e := range got {
		if !want[e] {
			t.Errorf("edge %v not reversed from g", e)
		}
	}
}
