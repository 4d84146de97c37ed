package landscape

import (
	"context"

	"github.com/ktune/ktune/space"
)

// Graph is a directed graph over the configurations of a space in compressed sparse rows:
// the successors of node i are Targets[Offsets[i]:Offsets[i+1]], in ascending order.
type Graph struct {
	Offsets []int32 // len N()+1
	Targets []int32 // len Edges()
}

// N returns the number of nodes.
func (g *Graph) N() int { return len(g.Offsets) - 1 }

// Edges returns the number of directed edges.
func (g *Graph) Edges() int { return len(g.Targets) }

// Successors returns the targets of node i's out-edges; the slice shares g's memory.
func (g *Graph) Successors(i int) []int32 { return g.Targets[g.Offsets[i]:g.Offsets[i+1]] }

// FlowGraph builds the fitness flow graph of l under nb: a node per configuration and an
// edge x -> y for each neighbour y of x whose fitness is no worse than x's (f(y) <= f(x),
// as seed 000's published code has it). Ties therefore give edges both ways, failed
// configurations point to each other and to every successful neighbour, and a strict
// local minimum has no out-edges. A random walk on it mimics randomised first-improvement
// local search.
func FlowGraph(ctx context.Context, l *Landscape, nb space.Neighbourhood) (*Graph, error) {
	ns, err := listNeighbours(ctx, l, nb)
	if err != nil {
		return nil, err
	}
	return flowGraph(l.fitness(), ns), nil
}

func flowGraph(f []float64, ns *neighbours) *Graph {
	n := len(f)
	count := 0
	for x := range n {
		for _, y := range ns.target[ns.offset[x]:ns.offset[x+1]] {
			if f[y] <= f[x] {
				count++
			}
		}
	}
	g := &Graph{Offsets: make([]int32, n+1), Targets: make([]int32, 0, count)}
	for x := range n {
		for _, y := range ns.target[ns.offset[x]:ns.offset[x+1]] {
			if f[y] <= f[x] {
				g.Targets = append(g.Targets, y)
			}
		}
		g.Offsets[x+1] = int32(len(g.Targets))
	}
	return g
}
