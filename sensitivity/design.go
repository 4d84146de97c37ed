package sensitivity

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ktune/ktune/space"
)

// Design is a Saltelli sampling design for estimating Sobol indices from live measurements:
// two base matrices A and B of N rows each, drawn uniformly from the valid space, and for
// every parameter i of the subset the matrix AB_i (A with column i taken from B) and, when
// second-order indices are asked for, BA_i (B with column i taken from A).
//
// Points are laid out row by row: for base row j, A_j, B_j, then AB_j for each subset
// parameter, then BA_j for each; DesignRows points per row. Measuring a prefix of the
// points therefore yields whole rows, and the first n rows of a design with the same seed
// and more rows are the design with n rows.
type Design struct {
	// Points are the configurations to measure, in the order above.
	Points []space.Config
	// Valid says which points are valid configurations of the space; AB and BA points of
	// a restricted space may not be, and are not measured.
	Valid []bool
	// N is the number of base rows.
	N int
	// Params are the names of all parameters of the space.
	Params []string
	// Subset are the indices (among all parameters) of the parameters analysed.
	Subset []int
	// SecondOrder says whether the BA points were added for second-order indices.
	SecondOrder bool
	// Seed is the seed the design was drawn from; the bootstrap of Estimate uses it too.
	Seed uint64
	// Bootstrap is the number of resamples behind Estimate's intervals (0: none).
	Bootstrap int
}

// DesignRows returns the number of points per base row of a design over params
// parameters with subsetLen of them analysed (0: all): k+2, or 2k+2 with second-order
// indices (k the analysed count; second order needs k >= 2).
func DesignRows(params, subsetLen int, secondOrder bool) int {
	k := subsetLen
	if k <= 0 {
		k = params
	}
	if secondOrder && k >= 2 {
		return 2*k + 2
	}
	return k + 2
}

// MaxDesignPoints is the most points a design may have: far more than any tuning run
// measures, and few enough to hold in memory (about 150 MB for 14 parameters).
const MaxDesignPoints = 1_000_000

// NewDesign draws a Saltelli design of n base rows from sp, seeded by o.Seed. o.Subset
// picks the parameters whose indices the design serves, o.SecondOrder adds the BA points,
// and o.Bootstrap sets the resamples of Estimate.
func NewDesign(sp *space.Space, n int, o Options) (*Design, error) {
	if n < 1 {
		return nil, fmt.Errorf("sensitivity: a design needs at least one base row, got %d", n)
	}
	params := sp.Params()
	subset, err := o.subset(params)
	if err != nil {
		return nil, fmt.Errorf("sensitivity: %w", err)
	}
	d := &Design{N: n, Subset: subset, SecondOrder: o.SecondOrder && len(subset) >= 2, Seed: o.Seed, Bootstrap: o.Resamples()}
	for _, p := range params {
		d.Params = append(d.Params, p.Name)
	}
	per := d.rows()
	if n > MaxDesignPoints/per {
		return nil, fmt.Errorf("sensitivity: %d base rows of %d points each are more than the %d points a design may have; ask for at most %d base rows", n, per, MaxDesignPoints, MaxDesignPoints/per)
	}
	d.Points = make([]space.Config, 0, n*per)
	d.Valid = make([]bool, 0, n*per)
	r := rand.New(rand.NewPCG(o.Seed, o.Seed^0xda942042e4dd58b5))
	add := func(c space.Config, valid bool) {
		d.Points = append(d.Points, c)
		d.Valid = append(d.Valid, valid)
	}
	for range n {
		a := sp.Sample(r, nil)
		b := sp.Sample(r, nil)
		add(a, true)
		add(b, true)
		for _, p := range subset {
			ab := a.Clone()
			ab[p] = b[p]
			add(ab, sp.Contains(ab))
		}
		if d.SecondOrder {
			for _, p := range subset {
				ba := b.Clone()
				ba[p] = a[p]
				add(ba, sp.Contains(ba))
			}
		}
	}
	return d, nil
}

// rows returns the points per base row.
func (d *Design) rows() int { return DesignRows(len(d.Params), len(d.Subset), d.SecondOrder) }

// Estimate computes Sobol indices from the objective values y of d.Points (parallel to
// them; NaN for a point that failed or was not measured, and invalid points are ignored
// whatever y holds):
//
//   - Var(Y) from the A and B outputs together;
//   - first order (Saltelli 2010): mean of f(B)(f(AB_i) - f(A)), over Var(Y);
//   - total order (Jansen 1999): mean of (f(A) - f(AB_i))^2 / 2, over Var(Y);
//   - second order (Saltelli 2002): mean of f(BA_i)f(AB_j) - f(A)f(B), over Var(Y),
//     minus both first-order indices.
//
// Each estimator uses the rows whose points it needs were all measured, and reports how
// many in Interval.N. The intervals are 95% percentile intervals over d.Bootstrap
// resamples of the rows; the bootstrap stops when ctx is done, and Estimate then returns
// ctx's error.
func (d *Design) Estimate(ctx context.Context, y []float64) (*Sobol, error) {
	if len(y) != len(d.Points) {
		return nil, fmt.Errorf("sensitivity: %d objective values for a design of %d points", len(y), len(d.Points))
	}
	e := d.outputs(y)
	if e.samples < 2 {
		measured := "no design row has"
		if e.samples == 1 {
			measured = "only 1 design row has"
		}
		return nil, fmt.Errorf("sensitivity: %s both base points (A and B) measured, and the estimates need at least 2", measured)
	}
	if e.variance(nil) == 0 {
		return nil, fmt.Errorf("sensitivity: the objective is constant over the design: %w", ErrConstant)
	}
	params := make([]space.Param, len(d.Params))
	for i, name := range d.Params {
		params[i].Name = name
	}
	s := newSobol(Saltelli, params, d.Subset, d.SecondOrder)
	s.Samples = e.samples
	s.Note = "saltelli: Monte Carlo estimates from a sampling design of the valid space " +
		"(first order Saltelli 2010, total order Jansen 1999, second order Saltelli 2002); " +
		"they carry sampling noise, so small or slightly negative values mean no effect, and an estimate " +
		"or bound slightly outside [0, 1] is noise too (neither is clamped)"
	point, counts := e.indices(nil)
	var reps [][]float64
	if d.Bootstrap > 0 {
		var err error
		if reps, err = bootstrap(ctx, d.Bootstrap, d.Seed, d.N, len(point), func(w []float64, _ struct{}, out []float64) {
			v, _ := e.indices(w)
			copy(out, v)
		}, func() struct{} { return struct{}{} }); err != nil {
			return nil, err
		}
		s.Bootstrap = d.Bootstrap
	}
	fill(s, point, reps, false)
	k := len(s.First)
	for i := range k {
		s.First[i].N, s.Total[i].N = counts[i], counts[k+i]
	}
	for p := range s.Second {
		s.Second[p].Index.N = counts[2*k+p]
	}
	return s, nil
}

// outputs are a design's measurements by base row, centred on the mean of the base
// points (which leaves the estimators' expectations unchanged and reduces their noise);
// NaN where a point is invalid or failed.
type outputs struct {
	a, b    []float64
	ab, ba  [][]float64 // per subset position, per row
	samples int         // rows with both base points measured
}

func (d *Design) outputs(y []float64) *outputs {
	k, per := len(d.Subset), d.rows()
	e := &outputs{a: make([]float64, d.N), b: make([]float64, d.N), ab: make([][]float64, k)}
	if d.SecondOrder {
		e.ba = make([][]float64, k)
	}
	for i := range k {
		e.ab[i] = make([]float64, d.N)
		if d.SecondOrder {
			e.ba[i] = make([]float64, d.N)
		}
	}
	at := func(idx int) float64 {
		if !d.Valid[idx] || math.IsInf(y[idx], 0) {
			return math.NaN()
		}
		return y[idx]
	}
	var sum float64
	var count int
	for j := range d.N {
		base := j * per
		e.a[j], e.b[j] = at(base), at(base+1)
		for i := range k {
			e.ab[i][j] = at(base + 2 + i)
			if d.SecondOrder {
				e.ba[i][j] = at(base + 2 + k + i)
			}
		}
		if !math.IsNaN(e.a[j]) && !math.IsNaN(e.b[j]) {
			e.samples++
			sum += e.a[j] + e.b[j]
			count += 2
		}
	}
	if count > 0 {
		c := sum / float64(count)
		shift := func(v []float64) {
			for j := range v {
				v[j] -= c
			}
		}
		shift(e.a)
		shift(e.b)
		for i := range k {
			shift(e.ab[i])
			if e.ba != nil {
				shift(e.ba[i])
			}
		}
	}
	return e
}

// variance returns the weighted variance of the A and B outputs of the rows where both
// were measured.
func (e *outputs) variance(w []float64) float64 {
	var sw, s, ss float64
	for j := range e.a {
		if math.IsNaN(e.a[j]) || math.IsNaN(e.b[j]) {
			continue
		}
		wj := weight(w, j)
		sw += 2 * wj
		s += wj * (e.a[j] + e.b[j])
		ss += wj * (e.a[j]*e.a[j] + e.b[j]*e.b[j])
	}
	if sw == 0 {
		return math.NaN()
	}
	m := s / sw
	return max(0, ss/sw-m*m)
}

// indices returns the firsts, totals and seconds under row weights w (nil: all 1), laid out
// as fill reads them, and the number of rows (with nonzero weight) behind each.
func (e *outputs) indices(w []float64) ([]float64, []int) {
	k := len(e.ab)
	V := e.variance(w)
	var out []float64
	var counts []int
	// mean averages term over the rows where it is defined (not NaN).
	mean := func(term func(j int) float64) float64 {
		var sw, s float64
		n := 0
		for j := range e.a {
			wj := weight(w, j)
			if wj == 0 {
				continue
			}
			if t := term(j); !math.IsNaN(t) {
				sw += wj
				s += wj * t
				n++
			}
		}
		counts = append(counts, n)
		if sw == 0 {
			return math.NaN()
		}
		return s / sw
	}
	first := make([]float64, k)
	for i := range k {
		ab := e.ab[i]
		first[i] = mean(func(j int) float64 { return e.b[j] * (ab[j] - e.a[j]) }) / V
		out = append(out, first[i])
	}
	for i := range k {
		ab := e.ab[i]
		out = append(out, mean(func(j int) float64 { d := e.a[j] - ab[j]; return d * d / 2 })/V)
	}
	if e.ba != nil {
		for i := range k {
			for l := i + 1; l < k; l++ {
				ba, ab := e.ba[i], e.ab[l]
				closed := mean(func(j int) float64 { return ba[j]*ab[j] - e.a[j]*e.b[j] }) / V
				out = append(out, closed-first[i]-first[l])
			}
		}
	}
	return out, counts
}
