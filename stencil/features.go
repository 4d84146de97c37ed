package stencil

import (
	"fmt"
	"math"
)

// Features is the paper's candidate feature set of a stencil (Table 2), every feature of
// which the stencil alone defines. The stencil is the sparse tensor of Figure 6: a cube of
// side 2*order+1 around the centre, non-zero where a point is accessed. The centre is
// counted among the non-zeros (it is accessed, as in StencilMART's binary tensor), though
// it is neither an order-n nor a step-m neighbour for any n, m >= 1; so the ratios of a
// stencil with a centre add up to 1 - 1/nnz.
type Features struct {
	Order    int     `json:"order"`    // the largest extent of the non-zeros
	NNZ      int     `json:"nnz"`      // the non-zeros of the tensor
	Sparsity float64 `json:"sparsity"` // nnz / (2*order+1)^dim: the density of non-zeros
	// NNZOrder[n-1] counts the order-n neighbours (largest extent n), n = 1..order;
	// NNZOrderRatio[n-1] is that count over nnz
	NNZOrder      []int     `json:"nnz_order"`
	NNZOrderRatio []float64 `json:"nnz_order_ratio"`
	// NNZStep[m-1] counts the step-m neighbours (Manhattan distance m from the centre),
	// m = 1..M with M = order * dim; NNZStepRatio[m-1] is that count over nnz
	NNZStep      []int     `json:"nnz_step"`
	NNZStepRatio []float64 `json:"nnz_step_ratio"`
}

// Features computes the stencil's Table 2 features.
func (s *Stencil) Features() Features {
	f := Features{Order: s.Order, NNZ: len(s.Points)}
	f.Sparsity = float64(f.NNZ) / math.Pow(float64(2*s.Order+1), float64(s.Dim))
	f.NNZOrder = make([]int, s.Order)
	f.NNZStep = make([]int, s.Order*s.Dim)
	for _, p := range s.Points {
		if n := p.Chebyshev(); n > 0 {
			f.NNZOrder[n-1]++
		}
		if m := p.Manhattan(); m > 0 {
			f.NNZStep[m-1]++
		}
	}
	ratio := func(counts []int) []float64 {
		out := make([]float64, len(counts))
		for i, c := range counts {
			out[i] = float64(c) / float64(f.NNZ)
		}
		return out
	}
	f.NNZOrderRatio, f.NNZStepRatio = ratio(f.NNZOrder), ratio(f.NNZStep)
	return f
}

// Vector flattens the features into a vector of fixed length for stencils of dimension
// dim up to maxOrder, the per-order and per-step counts zero-padded, as a regression
// model's input wants; names gives each entry's name (nnz_order_2, nnzRatio_step_3...).
func (f Features) Vector(dim, maxOrder int) (names []string, values []float64) {
	add := func(name string, v float64) {
		names, values = append(names, name), append(values, v)
	}
	add("order", float64(f.Order))
	add("nnz", float64(f.NNZ))
	add("sparsity", f.Sparsity)
	at := func(xs []int, i int) float64 {
		if i < len(xs) {
			return float64(xs[i])
		}
		return 0
	}
	atf := func(xs []float64, i int) float64 {
		if i < len(xs) {
			return xs[i]
		}
		return 0
	}
	for n := range maxOrder {
		add(fmt.Sprintf("nnz_order_%d", n+1), at(f.NNZOrder, n))
	}
	for n := range maxOrder {
		add(fmt.Sprintf("nnzRatio_order_%d", n+1), atf(f.NNZOrderRatio, n))
	}
	for m := range maxOrder * dim {
		add(fmt.Sprintf("nnz_step_%d", m+1), at(f.NNZStep, m))
	}
	for m := range maxOrder * dim {
		add(fmt.Sprintf("nnzRatio_step_%d", m+1), atf(f.NNZStepRatio, m))
	}
	return names, values
}

// Tensor is Figure 6's representation: the cube of side 2*order+1 (z, y, x; one plane in
// 2D), each accessed point holding its Manhattan distance from the centre, the rest -1
// (the centre, accessed, holds 0).
func (s *Stencil) Tensor() [][][]int {
	side := 2*s.Order + 1
	planes := 1
	if s.Dim == 3 {
		planes = side
	}
	t := make([][][]int, planes)
	for z := range t {
		t[z] = make([][]int, side)
		for y := range t[z] {
			t[z][y] = make([]int, side)
			for x := range t[z][y] {
				t[z][y][x] = -1
			}
		}
	}
	for _, p := range s.Points {
		z := 0
		if s.Dim == 3 {
			z = p[2] + s.Order
		}
		t[z][p[1]+s.Order][p[0]+s.Order] = p.Manhattan()
	}
	return t
}
