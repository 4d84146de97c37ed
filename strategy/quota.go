package strategy

import (
	"bytes"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"slices"

	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/stencil"
)

// Seed 002's search space sampling (Section 4.5, Algorithm 2): before its genetic
// algorithm, GSTuner narrows the space to a sample of its settings drawn from the
// optimisation combinations (OCs) in proportions that a regression model steers. Each
// iteration draws a share SR of the whole space from every OC (all SRs adding up to TR),
// asks the model which OC holds the best predicted setting of the iteration, lowers every
// other OC's share by AR but not below LR, and gives the rest of TR to the best; an OC
// with nothing left to draw gets 0. The paper samples 10% of the space with TR 1%, AR 0.1%
// and LR 0.1% (Section 5.1.3).

// quotaParams are Algorithm 2's inputs, as shares of the whole space.
type quotaParams struct {
	ratio, tr, ar, lr float64
}

// quotaIteration is what one iteration of Algorithm 2 did: the settings it drew, the OC
// of the best predicted one (-1 when it drew none) and the sampling ratios after the
// reward.
type quotaIteration struct {
	drawn []int
	best  int
	sr    []float64
}

// quotaSample is Algorithm 2: it draws at least n of the settings in ocs (each OC a list
// of indices, total settings in all) and returns them in the order drawn, calling trace,
// when not nil, after each iteration. predict returns a setting's predicted cost (lower is
// better). An OC's share of an iteration is SR * total settings, a fraction in general;
// it draws the whole part and one more with the chance of the fraction, so that the
// shares are kept on average even where an iteration draws a setting or two (the paper's
// spaces are larger). The last iteration may draw past n, as the paper's does.
func quotaSample(r *rand.Rand, ocs [][]int, n int, q quotaParams, predict func(idx int) float64, trace func(quotaIteration)) []int {
	total := 0
	left := make([][]int, len(ocs)) // what each OC has not drawn yet
	for i, oc := range ocs {
		total += len(oc)
		left[i] = append([]int(nil), oc...)
	}
	n = min(n, total)
	sr := make([]float64, len(ocs))
	for i, oc := range ocs { // Lines 3-4: the OCs' shares of the space, scaled to TR
		sr[i] = q.tr * float64(len(oc)) / float64(total)
	}
	var out []int
	for len(out) < n {
		it := quotaIteration{best: -1}
		bestPred := math.Inf(1)
		for i := range ocs { // Lines 6-12
			want := sr[i] * float64(total)
			k := int(want)
			if r.Float64() < want-float64(k) {
				k++
			}
			for ; k > 0 && len(left[i]) > 0; k-- {
				j := r.IntN(len(left[i]))
				idx := left[i][j]
				left[i][j] = left[i][len(left[i])-1]
				left[i] = left[i][:len(left[i])-1]
				it.drawn = append(it.drawn, idx)
				if p := predict(idx); p < bestPred || it.best < 0 {
					bestPred, it.best = p, i
				}
			}
			if len(left[i]) == 0 {
				sr[i] = 0
			}
		}
		if it.best >= 0 { // Lines 15-24: the reward
			others := 0.0
			for i := range sr {
				if i == it.best || sr[i] == 0 {
					continue
				}
				if sr[i]-q.ar >= q.lr {
					sr[i] -= q.ar
				}
				others += sr[i]
			}
			sr[it.best] = q.tr - others
		}
		out = append(out, it.drawn...)
		if trace != nil {
			it.sr = append([]float64(nil), sr...)
			trace(it)
		}
		live := false // an OC that has settings left and a share to draw them
		for i := range sr {
			live = live || len(left[i]) > 0 && sr[i] > 0
		}
		if !live {
			break
		}
	}
	return out
}

// stencilNameKind is an option that names a generated stencil (random2d3r_s14): a
// non-empty string, kept as given.
func stencilNameKind() Kind {
	return Kind{func(o Options, name string) (any, error) { return o.stencilName(name) }}
}

func (o Options) stencilName(name string) (string, error) {
	v := o[name]
	s, ok := v.(string)
	if !ok || s == "" {
		return "", fmt.Errorf("option %s: %s is not a stencil's name (random2d3r_s14, star3d2r)", name, valueText(v))
	}
	return s, nil
}

// stencilSampler narrows the space of a stencil spec emitted by 'ktune stencil generate'
// with Algorithm 2, its OCs those of stencil.Combination and its predictions a stencil
// model's.
type stencilSampler struct {
	q       quotaParams
	model   *stencil.Model
	stencil *stencil.Stencil
}

// newStencilSampler reads the model file and makes the stencil that name names.
func newStencilSampler(q quotaParams, modelPath, name string) (*stencilSampler, error) {
	if modelPath == "" {
		return nil, fmt.Errorf("option sample=quota needs model=FILE, a model written by 'ktune stencil train'")
	}
	if name == "" {
		return nil, fmt.Errorf("option sample=quota needs stencil=NAME, the stencil's kernel name as 'ktune stencil generate' writes it (random2d3r_s14, star3d2r)")
	}
	data, err := os.ReadFile(modelPath)
	if err != nil {
		return nil, fmt.Errorf("option model: %w", err)
	}
	m, err := stencil.LoadModel(bytes.NewReader(data), modelPath)
	if err != nil {
		return nil, fmt.Errorf("option model: %w", err)
	}
	st, err := stencil.FromName(name)
	if err != nil {
		return nil, fmt.Errorf("option stencil: %w", err)
	}
	return &stencilSampler{q: q, model: m, stencil: st}, nil
}

// stencilSampleMax bounds the spaces sampled: every setting is visited to find its OC.
const stencilSampleMax = 1 << 24

// sample returns the indices of the settings Algorithm 2 draws from sp: ratio of the
// space, at least one.
func (s *stencilSampler) sample(sp *space.Space, r *rand.Rand, trace func(quotaIteration)) ([]int, error) {
	names := make([]string, len(sp.Params()))
	for i, p := range sp.Params() {
		names[i] = p.Name
	}
	if err := stencil.CheckSetting(names); err != nil {
		return nil, fmt.Errorf("sample=quota: %w", err)
	}
	if per := s.q.tr * float64(sp.Len()); per < 0.01 {
		// an iteration draws per settings on average: the sampling would take over
		// n/per iterations
		return nil, fmt.Errorf("sample=quota: option tr %v draws %.3g of the space's %d settings per iteration; raise tr to at least %.3g", s.q.tr, per, sp.Len(), 0.01/float64(sp.Len()))
	}
	if sp.Len() > stencilSampleMax {
		return nil, fmt.Errorf("sample=quota: the space has %d settings, more than the %d whose combinations it classifies", sp.Len(), stencilSampleMax)
	}
	setting := func(c space.Config) map[string]float64 {
		m := make(map[string]float64, len(c))
		for j, v := range sp.Values(c) {
			m[names[j]] = v.Float()
		}
		return m
	}
	byName := map[string]int{}
	var ocs [][]int
	c := make(space.Config, len(names))
	for i := range sp.Len() {
		sp.At(i, c)
		oc := stencil.Combination(setting(c))
		k, ok := byName[oc]
		if !ok {
			k = len(ocs)
			byName[oc] = k
			ocs = append(ocs, nil)
		}
		ocs[k] = append(ocs[k], i)
	}
	n := max(1, int(math.Ceil(s.q.ratio*float64(sp.Len()))))
	predict := func(idx int) float64 {
		return s.model.Predict(s.stencil, setting(sp.At(idx, c)))
	}
	return quotaSample(r, ocs, n, s.q, predict, trace), nil
}

// sampledSet is the sampled settings the genetic algorithm searches, reindexed as seed
// 002 does (Section 4.6): in ascending order of their values, parameter by parameter, so
// that a setting is its position, a gene with the values 0 to len-1.
type sampledSet struct {
	sp      *space.Space
	configs []space.Config // in ascending order
	pos     map[int]int    // a member's space index: its position in configs
	width   int            // bits of a position
}

func newSampledSet(sp *space.Space, idx []int) *sampledSet {
	s := &sampledSet{sp: sp, pos: make(map[int]int, len(idx))}
	type member struct {
		i      int
		values []space.Value
	}
	var ms []member
	for _, i := range idx {
		if _, ok := s.pos[i]; !ok {
			s.pos[i] = -1
			ms = append(ms, member{i, sp.Values(sp.At(i, nil))})
		}
	}
	slices.SortStableFunc(ms, func(a, b member) int {
		for j, v := range a.values {
			switch w := b.values[j]; {
			case v.Less(w):
				return -1
			case w.Less(v):
				return 1
			}
		}
		return 0
	})
	for k, m := range ms {
		s.pos[m.i] = k
		s.configs = append(s.configs, sp.At(m.i, nil))
	}
	s.width = bits.Len(uint(len(s.configs) - 1))
	return s
}

// rank returns the position of member c.
func (s *sampledSet) rank(c space.Config) int {
	i, _ := s.sp.Index(c)
	return s.pos[i]
}

// breed writes into dst the member bred from the members at positions a and b (b < 0:
// a alone) as seed 002 breeds binary genes: each bit of the position from either parent
// (uniform crossover), then each bit flipped with chance mutation. A position past the
// last member wraps around, as mpgaMutate's value indices do.
func (s *sampledSet) breed(a, b int, mutation float64, r *rand.Rand, dst space.Config) {
	g := a
	if b >= 0 {
		g = 0
		for bit := range s.width {
			from := a
			if r.IntN(2) == 1 {
				from = b
			}
			g |= from & (1 << bit)
		}
	}
	gene := space.Config{g}
	mpgaMutate(gene, []int{len(s.configs)}, []int{s.width}, mutation, r)
	copy(dst, s.configs[gene[0]%len(s.configs)])
}

// draw copies a random member into c.
func (s *sampledSet) draw(r *rand.Rand, c space.Config) {
	copy(c, s.configs[r.IntN(len(s.configs))])
}

// snap replaces c, when it is not a member, by the nearest member: the fewest value
// index steps away, summed over the parameters, ties broken at random.
func (s *sampledSet) snap(c space.Config, r *rand.Rand) {
	if idx, ok := s.sp.Index(c); ok {
		if _, member := s.pos[idx]; member {
			return
		}
	}
	best, ties := math.MaxInt, 0
	var pick space.Config
	for _, m := range s.configs {
		d := 0
		for j := range c {
			d += max(c[j]-m[j], m[j]-c[j])
		}
		switch {
		case d < best:
			best, ties, pick = d, 1, m
		case d == best:
			ties++
			if r.IntN(ties) == 0 {
				pick = m
			}
		}
	}
	copy(c, pick)
}

// exhausted reports whether every member was asked for.
func (s *sampledSet) exhausted(seen map[int]struct{}) bool {
	for i := range s.pos {
		if _, ok := seen[i]; !ok {
			return false
		}
	}
	return true
}
