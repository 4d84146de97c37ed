package landscape

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/ktune/ktune/space"
)

// neighbours is the neighbour relation of a whole space in compressed sparse rows: the
// neighbours of index i are target[offset[i]:offset[i+1]], in ascending index order, and
// dim holds, for Hamming and adjacent neighbourhoods, the parameter each one changes.
type neighbours struct {
	offset []int32
	target []int32
	dim    []uint16
}

// chunk is how many configurations one worker lists at a time.
const chunk = 2048

// listNeighbours lists the neighbours of every configuration of l's space under nb, on
// GOMAXPROCS workers; it stops early when ctx is done.
func listNeighbours(ctx context.Context, l *Landscape, nb space.Neighbourhood) (*neighbours, error) {
	if err := check(l); err != nil {
		return nil, err
	}
	switch nb {
	case space.Hamming, space.Adjacent, space.StrictlyAdjacent:
	default:
		return nil, fmt.Errorf("landscape: %v is not a neighbourhood", nb)
	}
	sp := l.Space
	n := sp.Len()
	if int64(n) > 1<<31-1 {
		return nil, fmt.Errorf("landscape: %d configurations do not fit int32 node indices", n)
	}
	chunks := (n + chunk - 1) / chunk
	type part struct {
		count  []int32 // neighbours per configuration of the chunk
		target []int32
		dim    []uint16
	}
	parts := make([]part, chunks)
	var next atomic.Int64
	var wg sync.WaitGroup
	workers := min(runtime.GOMAXPROCS(0), chunks)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var c space.Config
			type nbr struct {
				idx int32
				dim uint16
			}
			var row []nbr
			for {
				k := int(next.Add(1) - 1)
				if k >= chunks || ctx.Err() != nil {
					return
				}
				lo, hi := k*chunk, min((k+1)*chunk, n)
				p := part{count: make([]int32, hi-lo)}
				for i := lo; i < hi; i++ {
					c = sp.At(i, c)
					row = row[:0]
					sp.Neighbours(c, nb, func(y space.Config) {
						j, _ := sp.Index(y)
						d := 0
						for d < len(c) && c[d] == y[d] {
							d++
						}
						row = append(row, nbr{int32(j), uint16(d)})
					})
					slices.SortFunc(row, func(a, b nbr) int { return int(a.idx - b.idx) })
					p.count[i-lo] = int32(len(row))
					for _, r := range row {
						p.target = append(p.target, r.idx)
						p.dim = append(p.dim, r.dim)
					}
				}
				parts[k] = p
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	total := 0
	for _, p := range parts {
		total += len(p.target)
	}
	if int64(total) > 1<<31-1 {
		return nil, fmt.Errorf("landscape: %d neighbour pairs do not fit int32 offsets", total)
	}
	out := &neighbours{offset: make([]int32, 0, n+1), target: make([]int32, 0, total), dim: make([]uint16, 0, total)}
	out.offset = append(out.offset, 0)
	for _, p := range parts {
		for _, c := range p.count {
			out.offset = append(out.offset, out.offset[len(out.offset)-1]+c)
		}
		out.target = append(out.target, p.target...)
		out.dim = append(out.dim, p.dim...)
	}
	return out, nil
}

// check rejects a landscape whose objective does not cover its space.
func check(l *Landscape) error {
	switch {
	case l == nil || l.Space == nil:
		return fmt.Errorf("landscape: no space")
	case len(l.Objective) != l.Space.Len():
		return fmt.Errorf("landscape: %d objective values for a space of %d configurations", len(l.Objective), l.Space.Len())
	}
	return nil
}
