// Package stencil generates symmetric stencils as GSTuner does (seed 002: Sun et al.,
// "Adaptive Auto-tuning Framework for Global Exploration of Stencil Optimization on GPUs"),
// computes the paper's feature vector of a stencil (its Table 2), and emits, for a
// stencil, a tunable ktune spec: an OpenCL kernel whose parameters are the paper's
// optimisations (streaming, block and cyclic merging, retiming, prefetching) under its
// Table 1 constraints, with a plain C reference computing the same stencil on the host.
package stencil

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
)

// Point is a neighbour's offset from the centre: dx, dy, dz (dz is 0 in 2D).
type Point [3]int

// Chebyshev is the point's order: its largest extent along any dimension.
func (p Point) Chebyshev() int { return max(abs(p[0]), abs(p[1]), abs(p[2])) }

// Manhattan is the point's step: the sum of its extents (Table 2's step-m).
func (p Point) Manhattan() int { return abs(p[0]) + abs(p[1]) + abs(p[2]) }

// orbit is the point's class under reflections along each axis: the points that share a
// coefficient in a symmetric stencil.
func (p Point) orbit() Point { return Point{abs(p[0]), abs(p[1]), abs(p[2])} }

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Shape is how a stencil's points are chosen.
type Shape string

// The shapes: star (the axes out to the order), box (the whole cube of the order), and
// random, the paper's Algorithm 1.
const (
	Star   Shape = "star"
	Box    Shape = "box"
	Random Shape = "random"
)

// Shapes lists the shapes Generate accepts.
var Shapes = []Shape{Star, Box, Random}

// Stencil is a symmetric stencil: the centre and its neighbours, each with a coefficient;
// points mirrored along any axis share their coefficient.
type Stencil struct {
	Name   string
	Dim    int       // 2 or 3
	Order  int       // the largest extent of any point (the paper's stencil order, radius)
	Points []Point   // in (dz, dy, dx) order, the centre among them
	Coefs  []float64 // Coefs[i] multiplies the input at Points[i]
}

// Options selects a stencil to generate.
type Options struct {
	Dim   int   // 2 or 3
	Order int   // 1 or more
	Shape Shape // star, box or random
	Seed  uint64
}

// MaxOrder is the largest order Generate accepts: the kernels hold a window of 2*order+1
// planes in registers, and the paper's stencils go up to order 4.
const MaxOrder = 6

// Generate makes a stencil, the same one for the same options: the points of the shape
// and one coefficient per mirror class, each a multiple of 1/64 in [-1, 1] other than 0,
// exact in binary floating point (so that the generated code and the reference read the
// same number, whatever precision they print it in).
func Generate(o Options) (*Stencil, error) {
	if o.Dim != 2 && o.Dim != 3 {
		return nil, fmt.Errorf("dimension %d: want 2 or 3", o.Dim)
	}
	if o.Order < 1 || o.Order > MaxOrder {
		return nil, fmt.Errorf("order %d: want 1 to %d", o.Order, MaxOrder)
	}
	r := rand.New(rand.NewPCG(o.Seed, 0x7374656e63696c)) // "stencil"
	var pts []Point
	switch o.Shape {
	case Star:
		pts = star(o.Dim, o.Order)
	case Box:
		pts = box(o.Dim, o.Order)
	case Random:
		pts = symmetric(r, o.Dim, o.Order)
	default:
		return nil, fmt.Errorf("shape %q: want star, box or random", o.Shape)
	}
	s := &Stencil{Dim: o.Dim, Order: o.Order}
	s.Name = fmt.Sprintf("%s%dd%dr", o.Shape, o.Dim, o.Order)
	if o.Shape == Random {
		s.Name += fmt.Sprintf("_s%d", o.Seed)
	}
	sortPoints(pts)
	coef := map[Point]float64{}
	for _, p := range pts { // in a fixed order, so the draws are the seed's
		k := p.orbit()
		if _, ok := coef[k]; !ok {
			c := float64(1+r.IntN(64)) / 64
			if r.IntN(2) == 0 {
				c = -c
			}
			coef[k] = c
		}
	}
	s.Points = pts
	for _, p := range pts {
		s.Coefs = append(s.Coefs, coef[p.orbit()])
	}
	return s, nil
}

// sortPoints orders points by dz, then dy, then dx: the order every generated kernel and
// reference adds the products in.
func sortPoints(pts []Point) {
	slices.SortFunc(pts, func(a, b Point) int {
		return cmp.Or(cmp.Compare(a[2], b[2]), cmp.Compare(a[1], b[1]), cmp.Compare(a[0], b[0]))
	})
}

// cube calls f for every point within Chebyshev distance r of the centre in dim
// dimensions, from low to high in (dz, dy, dx) order.
func cube(dim, lo, hi int, f func(Point)) {
	zlo, zhi := 0, 0
	if dim == 3 {
		zlo, zhi = lo, hi
	}
	for z := zlo; z <= zhi; z++ {
		for y := lo; y <= hi; y++ {
			for x := lo; x <= hi; x++ {
				f(Point{x, y, z})
			}
		}
	}
}

func star(dim, order int) []Point {
	var pts []Point
	cube(dim, -order, order, func(p Point) {
		if p.Chebyshev() == p.Manhattan() { // on an axis
			pts = append(pts, p)
		}
	})
	return pts
}

func box(dim, order int) []Point {
	var pts []Point
	cube(dim, -order, order, func(p Point) { pts = append(pts, p) })
	return pts
}

// symmetric is Algorithm 1 of the paper: in one local region, the orthant of non-negative
// offsets, the order-1 points are a random choice among the centre's neighbours; the
// order-k points a random choice among the neighbours of the order-(k-1) points chosen,
// less those of lower orders; the points are then mirrored into the other 2^dim regions.
// Each candidate is taken with probability 1/2, and one of them when none was, so that
// every order has a point and the stencil's order is the one asked for.
func symmetric(r *rand.Rand, dim, order int) []Point {
	prev := []Point{{}}
	chosen := map[Point]bool{{}: true}
	for k := 1; k <= order; k++ {
		var cand []Point
		cube(dim, 0, k, func(q Point) {
			if q.Chebyshev() != k {
				return // a lower order's point, deleted (Lines 11-15)
			}
			for _, p := range prev {
				if (Point{q[0] - p[0], q[1] - p[1], q[2] - p[2]}).Chebyshev() == 1 {
					cand = append(cand, q)
					return
				}
			}
		})
		var sel []Point
		for _, q := range cand {
			if r.IntN(2) == 0 {
				sel = append(sel, q)
			}
		}
		if len(sel) == 0 {
			sel = append(sel, cand[r.IntN(len(cand))])
		}
		for _, q := range sel {
			chosen[q] = true
		}
		prev = sel
	}
	set := map[Point]bool{}
	for q := range chosen {
		for mask := range 1 << dim { // the symmetric images in every region (Lines 18-21)
			p := q
			for d := range dim {
				if mask&(1<<d) != 0 {
					p[d] = -p[d]
				}
			}
			set[p] = true
		}
	}
	pts := make([]Point, 0, len(set))
	for p := range set {
		pts = append(pts, p)
	}
	return pts
}

// Validate checks what the emitted kernels rely on: the dimension, distinct points, and
// an order that the points reach. It does not require symmetry: a kernel of any stencil
// is correct.
func (s *Stencil) Validate() error {
	if s.Dim != 2 && s.Dim != 3 {
		return fmt.Errorf("stencil %s: dimension %d, want 2 or 3", s.Name, s.Dim)
	}
	if len(s.Points) == 0 || len(s.Points) != len(s.Coefs) {
		return fmt.Errorf("stencil %s: %d points and %d coefficients", s.Name, len(s.Points), len(s.Coefs))
	}
	seen := map[Point]float64{}
	order := 0
	for i, p := range s.Points {
		if s.Dim == 2 && p[2] != 0 {
			return fmt.Errorf("stencil %s: point %v has a z offset in 2D", s.Name, p)
		}
		if _, dup := seen[p]; dup {
			return fmt.Errorf("stencil %s: point %v twice", s.Name, p)
		}
		seen[p] = s.Coefs[i]
		order = max(order, p.Chebyshev())
	}
	if order != s.Order || order < 1 || order > MaxOrder {
		return fmt.Errorf("stencil %s: order %d, but its points reach %d (want 1 to %d)", s.Name, s.Order, order, MaxOrder)
	}
	return nil
}
