package landscape

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
)

// point is a node position in the layout.
type point struct{ x, y float64 }

// layout places the nodes of g in the plane with a Fruchterman-Reingold force-directed
// layout: edges (taken undirected, each pair once) pull their ends together with force
// d²/k, nodes closer than 2k push each other apart with force k²/d, and a weak pull to the
// centre keeps separate components in view. Repulsion only between nodes in neighbouring
// cells of a grid of side 2k (Fruchterman and Reingold's own grid variant) keeps an
// iteration near linear in the nodes and edges. Moves are capped by a temperature that
// cools linearly; the start is uniform at random from seed, so the layout is deterministic.
func layout(ctx context.Context, g *Graph, iterations int, seed uint64) ([]point, error) {
	n := g.N()
	pos := make([]point, n)
	if n == 0 {
		return pos, nil
	}
	r := rand.New(rand.NewPCG(seed, 0x6c61796f7574))
	for i := range pos {
		pos[i] = point{r.Float64(), r.Float64()}
	}
	// Undirected edges, each pair once.
	var us, vs []int32
	for u := range n {
		for _, v := range g.Successors(u) {
			if int(v) > u || !g.hasEdge(int(v), int32(u)) {
				us, vs = append(us, int32(u)), append(vs, v)
			}
		}
	}
	k := math.Sqrt(1 / float64(n))
	cell := 2 * k
	disp := make([]point, n)
	next := make([]int32, n) // bucket chains
	var head []int32
	t0 := 0.1
	workers := min(runtime.GOMAXPROCS(0), max(1, n/256))
	for it := range iterations {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		clear(disp)
		// Bucket the nodes on a grid of side cell over their bounding box.
		minX, minY, maxX, maxY := pos[0].x, pos[0].y, pos[0].x, pos[0].y
		for _, p := range pos {
			minX, maxX = math.Min(minX, p.x), math.Max(maxX, p.x)
			minY, maxY = math.Min(minY, p.y), math.Max(maxY, p.y)
		}
		side := cell
		for (maxX-minX)/side*(maxY-minY)/side > 4*float64(n)+16 {
			side *= 2 // nodes far apart: coarser cells, still bounded memory
		}
		cols := int((maxX-minX)/side) + 1
		rows := int((maxY-minY)/side) + 1
		if cap(head) < cols*rows {
			head = make([]int32, cols*rows)
		}
		head = head[:cols*rows]
		for i := range head {
			head[i] = -1
		}
		cellOf := func(p point) (int, int) { return int((p.x - minX) / side), int((p.y - minY) / side) }
		for i, p := range pos {
			cx, cy := cellOf(p)
			next[i] = head[cy*cols+cx]
			head[cy*cols+cx] = int32(i)
		}
		k2 := k * k
		repel := func(lo, hi int) {
			for i := lo; i < hi; i++ {
				p := pos[i]
				cx, cy := cellOf(p)
				for y := max(cy-1, 0); y <= min(cy+1, rows-1); y++ {
					for x := max(cx-1, 0); x <= min(cx+1, cols-1); x++ {
						for j := head[y*cols+x]; j >= 0; j = next[j] {
							if int(j) == i {
								continue
							}
							ddx, ddy := p.x-pos[j].x, p.y-pos[j].y
							d2 := ddx*ddx + ddy*ddy
							if d2 > cell*cell {
								continue
							}
							if d2 < 1e-12 {
								// Coincident nodes: push apart in a direction fixed by their indices.
								a := float64(i*7919+int(j)) * 0.618
								ddx, ddy, d2 = math.Cos(a)*1e-6, math.Sin(a)*1e-6, 1e-12
							}
							f := k2 / d2 // k²/d along the unit vector (ddx, ddy)/d
							disp[i].x += ddx * f
							disp[i].y += ddy * f
						}
					}
				}
			}
		}
		// Each worker writes only its own nodes' displacements: the result does not depend
		// on the number of workers.
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				repel(w*n/workers, (w+1)*n/workers)
			}()
		}
		wg.Wait()
		for e := range us {
			u, v := us[e], vs[e]
			ddx, ddy := pos[u].x-pos[v].x, pos[u].y-pos[v].y
			d := math.Hypot(ddx, ddy)
			f := d / k // d²/k along the unit vector
			disp[u].x -= ddx * f
			disp[u].y -= ddy * f
			disp[v].x += ddx * f
			disp[v].y += ddy * f
		}
		temp := t0 * (1 - float64(it)/float64(iterations))
		for i := range pos {
			// Gravity towards (0.5, 0.5), proportional to distance.
			disp[i].x -= (pos[i].x - 0.5) * 0.1
			disp[i].y -= (pos[i].y - 0.5) * 0.1
			d := math.Hypot(disp[i].x, disp[i].y)
			if d > temp {
				disp[i].x *= temp / d
				disp[i].y *= temp / d
			}
			pos[i].x += disp[i].x
			pos[i].y += disp[i].y
		}
	}
	return pos, nil
}

// hasEdge reports whether u -> v is an edge; rows are sorted, so it bisects.
func (g *Graph) hasEdge(u int, v int32) bool {
	row := g.Successors(u)
	lo, hi := 0, len(row)
	for lo < hi {
		m := (lo + hi) / 2
		if row[m] < v {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo < len(row) && row[lo] == v
}
