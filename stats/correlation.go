// Package stats holds the small statistics that several analyses share: correlation
// coefficients and ranks.
package stats

import (
	"math"
	"sort"
)

// Pearson returns the Pearson product-moment correlation of x and y, which must have the
// same length: their covariance over the product of their standard deviations. It is NaN
// when there are fewer than two pairs or either variable is constant, because the
// coefficient is then undefined, not zero.
func Pearson(x, y []float64) float64 {
	n := len(x)
	if n != len(y) || n < 2 {
		return math.NaN()
	}
	var mx, my float64
	for i := range n {
		mx += x[i]
		my += y[i]
	}
	mx /= float64(n)
	my /= float64(n)
	var sxy, sxx, syy float64
	for i := range n {
		dx, dy := x[i]-mx, y[i]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	if sxx == 0 || syy == 0 {
		return math.NaN()
	}
	r := sxy / math.Sqrt(sxx*syy)
	return max(-1, min(1, r))
}

// Spearman returns Spearman's rank correlation of x and y: the Pearson correlation of
// their ranks, ties given the mean of the ranks they span. NaN as for Pearson.
func Spearman(x, y []float64) float64 {
	if len(x) != len(y) {
		return math.NaN()
	}
	return Pearson(Ranks(x), Ranks(y))
}

// Ranks returns the 1-based ranks of x in ascending order; tied values all get the mean of
// the ranks they occupy ("fractional" ranking), as Spearman's coefficient needs.
func Ranks(x []float64) []float64 {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return x[idx[a]] < x[idx[b]] })
	r := make([]float64, len(x))
	for i := 0; i < len(idx); {
		j := i + 1
		for j < len(idx) && x[idx[j]] == x[idx[i]] {
			j++
		}
		mean := float64(i+j+1) / 2 // ranks i+1..j
		for k := i; k < j; k++ {
			r[idx[k]] = mean
		}
		i = j
	}
	return r
}
