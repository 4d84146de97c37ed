package profile

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
)

// Model predicts the counters Required may ask to change (Reacted) from a configuration's
// tuning parameters: the paper's least-squares non-linear model (Section 3.4.1). The
// space is split into subspaces by the parameters that take two values (binary ones) or
// are not numbers; within each, every counter is a polynomial of the other parameters
// with main effects, their interactions (every order up to maxFullOrder parameters,
// pairs beyond) and quadratic terms, fitted by least squares. Two things the paper leaves
// open are fixed here: parameters whose values are all above 0 enter by their logarithm
// (tuning parameters are mostly powers of two, and counters scale with their ratios),
// and counters are fitted on log(1+value), so the fit weighs relative errors and
// predictions stay at 0 or above.
type Model struct {
	Source  string // the recording it was trained on
	Trained int    // configurations it was trained on

	params []string // the training recording's parameters, by name
	split  []bool   // the parameter splits the space into subspaces
	skip   []bool   // the parameter takes one value: it plays no part
	logx   []bool   // the parameter enters by its logarithm
	feats  []int    // parameters that enter the polynomial, indices into params
	terms  [][]int  // each term a product of positions in feats; a position twice is a square
	fits   map[string]*fit
}

// fit is the model of one subspace.
type fit struct {
	mean, sd []float64   // of each term over the subspace's training points
	coef     [][]float64 // per Reacted counter: the intercept, then one per term; nil: not predicted
}

// maxFullOrder is the most features whose interactions of every order are modelled (2^k-1
// products); with more, pairs only, so the number of terms stays below the points a
// sample of each subspace has.
const maxFullOrder = 5

// TrainOptions say which evaluations of a recording a model learns from.
type TrainOptions struct {
	// Sample trains on the paper's deliberate sample instead of the whole recording: in
	// each subspace, the configurations whose other parameters each take one of three of
	// their values there (the smallest, the median and the largest).
	Sample bool
}

// ridge keeps the normal equations solvable when a subspace's sample leaves terms
// collinear (a parameter with two values there makes its square a copy of its main
// effect): a penalty this small on standardised terms changes a well-posed fit by nothing
// measurable.
const ridge = 1e-6

// Train builds a model from rec's successful evaluations that carry counters. It fails
// when none does (wrapping ErrNoCounters).
func Train(rec *result.Recording, o TrainOptions) (*Model, error) {
	m := newModel(rec)
	keys, groups, err := m.trainingSet(rec, o.Sample)
	if err != nil {
		return nil, err
	}
	for _, key := range keys {
		pts := groups[key]
		X := make([][]float64, len(pts))
		Y := make([]Counters, len(pts))
		for i, p := range pts {
			X[i], Y[i] = m.termValues(p.x, nil), p.y
		}
		m.fits[key] = fitSubspace(X, Y)
		m.Trained += len(pts)
	}
	return m, nil
}

// newModel reads rec's parameters: which split the space into subspaces, which play no
// part, which enter the polynomial and how.
func newModel(rec *result.Recording) *Model {
	m := &Model{Source: rec.Source, fits: map[string]*fit{}}
	np := len(rec.Params)
	m.split, m.skip, m.logx = make([]bool, np), make([]bool, np), make([]bool, np)
	for i, p := range rec.Params {
		m.params = append(m.params, p.Name)
		numeric, positive := true, true
		for _, v := range p.Values {
			numeric = numeric && v.IsNumeric()
			positive = positive && v.Float() > 0
		}
		switch {
		case len(p.Values) <= 1:
			m.skip[i] = true
		case len(p.Values) == 2 || !numeric || enumeration(p.Values):
			m.split[i] = true
		default:
			m.logx[i] = positive
			m.feats = append(m.feats, i)
		}
	}
	m.terms = polynomialTerms(len(m.feats))
	return m
}

// trainingPoint is one evaluation a model learns from.
type trainingPoint struct {
	config []space.Value // the evaluation's values, one per parameter of the recording
	x      []float64     // the polynomial's features, transformed
	y      Counters
}

// trainingSet returns rec's successful evaluations with counters, grouped by subspace (the
// keys in the order the recording first reaches them), each group cut to the deliberate
// sample when sample is set. It fails when there is none (wrapping ErrNoCounters).
func (m *Model) trainingSet(rec *result.Recording, sample bool) ([]string, map[string][]trainingPoint, error) {
	groups := map[string][]trainingPoint{}
	var keys []string
	var firstErr error
	for k := range rec.Evaluations {
		e := &rec.Evaluations[k]
		if e.Failed() {
			continue
		}
		c, err := Read(e)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		vals := e.Config
		key := m.key(func(i int) space.Value { return vals[i] })
		x := make([]float64, len(m.feats))
		for j, i := range m.feats {
			x[j] = m.transform(i, vals[i])
		}
		if _, ok := groups[key]; !ok {
			keys = append(keys, key)
		}
		groups[key] = append(groups[key], trainingPoint{vals, x, c})
	}
	if len(keys) == 0 {
		if firstErr == nil {
			firstErr = ErrNoCounters
		}
		return nil, nil, fmt.Errorf("train on %s: no successful evaluation with counters: %w", rec.Source, firstErr)
	}
	if sample {
		for _, key := range keys {
			groups[key] = deliberate(groups[key], len(m.feats), func(p trainingPoint) []float64 { return p.x })
		}
	}
	return keys, groups, nil
}

// enumeration reports whether values are 0, 1, ..., k-1 for a k of at most maxChoices: a
// choice among code variants (pnpoly's BETWEEN_METHOD, USE_METHOD), which has no
// ordering a polynomial could follow, so it splits the space as a binary parameter does.
func enumeration(values []space.Value) bool {
	if len(values) > maxChoices {
		return false
	}
	for i, v := range values {
		if !v.IsNumeric() || v.Float() != float64(i) {
			return false
		}
	}
	return true
}

// maxChoices is the most values a parameter read as a choice among variants has.
const maxChoices = 4

// deliberate keeps the points whose every feature takes the smallest, median or largest
// of the values it takes among pts.
func deliberate[P any](pts []P, nf int, x func(P) []float64) []P {
	keep := make([][]float64, nf)
	for j := range nf {
		var vs []float64
		for _, p := range pts {
			vs = append(vs, x(p)[j])
		}
		slices.Sort(vs)
		vs = slices.Compact(vs)
		keep[j] = []float64{vs[0], vs[len(vs)/2], vs[len(vs)-1]}
	}
	var out []P
	for _, p := range pts {
		ok := true
		for j, v := range x(p) {
			ok = ok && slices.Contains(keep[j], v)
		}
		if ok {
			out = append(out, p)
		}
	}
	return out
}

// polynomialTerms lists the products of n features: every subset of up to maxFullOrder
// features (all pairs beyond), then each feature squared.
func polynomialTerms(n int) [][]int {
	var terms [][]int
	order := n
	if n > maxFullOrder {
		order = 2
	}
	for mask := 1; mask < 1<<n; mask++ {
		var t []int
		for j := range n {
			if mask&(1<<j) != 0 {
				t = append(t, j)
			}
		}
		if len(t) <= order {
			terms = append(terms, t)
		}
	}
	slices.SortStableFunc(terms, func(a, b []int) int { return len(a) - len(b) })
	for j := range n {
		terms = append(terms, []int{j, j})
	}
	return terms
}

func (m *Model) transform(i int, v space.Value) float64 {
	f := v.Float()
	if m.logx[i] {
		return math.Log2(f)
	}
	return f
}

// key names the subspace of a configuration whose i-th parameter value is at(i).
func (m *Model) key(at func(i int) space.Value) string {
	var b strings.Builder
	for i, s := range m.split {
		if s {
			b.WriteString(at(i).String())
			b.WriteByte(0)
		}
	}
	return b.String()
}

func (m *Model) termValues(x, dst []float64) []float64 {
	dst = dst[:0]
	for _, t := range m.terms {
		p := 1.0
		for _, j := range t {
			p *= x[j]
		}
		dst = append(dst, p)
	}
	return dst
}

// fitSubspace fits every reacted counter by ridge-stabilised least squares on standardised
// terms.
func fitSubspace(X [][]float64, Y []Counters) *fit {
	n, nt := len(X), 0
	if n > 0 {
		nt = len(X[0])
	}
	f := &fit{mean: make([]float64, nt), sd: make([]float64, nt), coef: make([][]float64, len(Reacted))}
	for j := range nt {
		for i := range n {
			f.mean[j] += X[i][j]
		}
		f.mean[j] /= float64(n)
		for i := range n {
			d := X[i][j] - f.mean[j]
			f.sd[j] += d * d
		}
		f.sd[j] = math.Sqrt(f.sd[j] / float64(n))
	}
	A := mat.NewDense(n, nt+1, nil)
	for i := range n {
		A.Set(i, 0, 1)
		for j := range nt {
			if f.sd[j] > 0 {
				A.Set(i, j+1, (X[i][j]-f.mean[j])/f.sd[j])
			}
		}
	}
	var ata mat.SymDense
	ata.SymOuterK(1, A.T())
	for j := 1; j <= nt; j++ {
		ata.SetSym(j, j, ata.At(j, j)+ridge*float64(n))
	}
	var chol mat.Cholesky
	if !chol.Factorize(&ata) {
		// every term constant and one point: the mean alone
		for j := 1; j <= nt; j++ {
			ata.SetSym(j, j, ata.At(j, j)+1)
		}
		chol.Factorize(&ata)
	}
	y := mat.NewVecDense(n, nil)
	var aty, beta mat.VecDense
	for ci, c := range Reacted {
		usable := true
		for i := range n {
			v := Y[i][c]
			if math.IsNaN(v) {
				usable = false
				break
			}
			y.SetVec(i, math.Log1p(max(0, v)))
		}
		if !usable {
			continue
		}
		aty.MulVec(A.T(), y)
		if err := chol.SolveVecTo(&beta, &aty); err != nil && !errors.As(err, new(mat.Condition)) {
			continue
		}
		f.coef[ci] = slices.Clone(beta.RawVector().Data)
	}
	return f
}

// maxLog bounds a prediction's logarithm, so that a polynomial extrapolated far past its
// training points gives a huge counter, not +Inf, which would make scores NaN.
const maxLog = 200

// Predictor is a model from a configuration's tuning parameters to the counters of Reacted,
// trained on a recording: the least-squares Model (Section 3.4.1) or the regression Tree
// (Section 3.4.2). The searcher scores configurations by either alike.
type Predictor interface {
	// Bind checks that a space has the model's parameters and returns the model bound to it.
	Bind(sp *space.Space) (*Bound, error)
	// PredictValues predicts the counters of a configuration given by its values, one per
	// parameter of the training recording, in its order.
	PredictValues(vals []space.Value, dst []float64) []float64
}

// predictor is what a Bound asks of its model.
type predictor interface {
	// predict writes the counters of the configuration whose i-th parameter (of the
	// training recording) has value(i) into dst, as Predict does.
	predict(value func(i int) space.Value, dst []float64) []float64
}

// Bound is a model bound to a space: it predicts the counters of the space's configurations.
type Bound struct {
	m   predictor
	sp  *space.Space
	pos []int // model parameter i is the space's parameter pos[i]
}

// Bind checks that sp has the model's parameters, by name (their order may differ), and no
// others that vary, and returns the model bound to it.
func (m *Model) Bind(sp *space.Space) (*Bound, error) { return bind(m, m.params, m.Source, sp) }

// bind binds m, trained on source's parameters params, to sp.
func bind(m predictor, params []string, source string, sp *space.Space) (*Bound, error) {
	b := &Bound{m: m, sp: sp, pos: make([]int, len(params))}
	byName := map[string]int{}
	for i, p := range sp.Params() {
		byName[p.Name] = i
	}
	var missing []string
	for i, name := range params {
		j, ok := byName[name]
		if !ok {
			missing = append(missing, name)
			continue
		}
		b.pos[i] = j
		delete(byName, name)
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("the model (trained on %s) has parameters the space lacks: %s", source, strings.Join(missing, ", "))
	}
	for name, j := range byName {
		if len(sp.Params()[j].Values) > 1 {
			return nil, fmt.Errorf("the space's parameter %s is unknown to the model (trained on %s)", name, source)
		}
	}
	return b, nil
}

// Predict writes into dst (len(Reacted), allocated when short) the predicted counters of c,
// in the order of Reacted; a counter below 0.5 is predicted as 0, and so is every counter
// the model cannot predict there (the least-squares model: in a subspace the training
// data did not reach).
func (b *Bound) Predict(c space.Config, dst []float64) []float64 {
	params := b.sp.Params()
	return b.m.predict(func(i int) space.Value { j := b.pos[i]; return params[j].Values[c[j]] }, dst)
}

// PredictValues is Predict for a configuration given by its values, one per parameter of
// the training recording, in its order.
func (m *Model) PredictValues(vals []space.Value, dst []float64) []float64 {
	return m.predict(func(i int) space.Value { return vals[i] }, dst)
}

func (m *Model) predict(value func(i int) space.Value, dst []float64) []float64 {
	if cap(dst) < len(Reacted) {
		dst = make([]float64, len(Reacted))
	}
	dst = dst[:len(Reacted)]
	clear(dst)
	f := m.fits[m.key(value)]
	if f == nil {
		return dst
	}
	var xb [16]float64
	x := xb[:0]
	for _, i := range m.feats {
		x = append(x, m.transform(i, value(i)))
	}
	var tb [64]float64
	t := m.termValues(x, tb[:0])
	for j := range t {
		if f.sd[j] > 0 {
			t[j] = (t[j] - f.mean[j]) / f.sd[j]
		} else {
			t[j] = 0
		}
	}
	for ci, coef := range f.coef {
		if coef == nil {
			continue
		}
		s := coef[0]
		for j, v := range t {
			s += coef[j+1] * v
		}
		if p := math.Expm1(min(s, maxLog)); p >= 0.5 {
			dst[ci] = p
		}
	}
	return dst
}
