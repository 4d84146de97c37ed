package strategy

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/ktune/ktune/space"
)

// SMAC-style Bayesian optimisation with random forests (Hutter, Hoos and Leyton-Brown,
// "Sequential Model-Based Optimization for General Algorithm Configuration", LION 2011),
// adapted to kernel tuning, where most of a cartesian space may fail to compile (seed 000,
// Table II: 68% of convolution, 78% of GEMM). Failures are not given a made-up fitness,
// which would teach the regression model a cliff it then spends its budget exploring (the
// collapse of SMAC in seed 000); a second forest learns where configurations succeed, and
// the acquisition of a candidate is weighted by its chance of success.

// Defaults and fixed settings of the smac strategy.
const (
	smacTrees          = 10  // trees per forest, as SMAC
	smacMinLeaf        = 2   // fewest samples per regression leaf
	smacMaxDepth       = 20  // as SMAC
	smacFeatureFrac    = 0.8 // features tried per node
	smacRandomCands    = 300 // random configurations scored per proposal
	smacLocalStarts    = 5   // best evaluated configurations a local search starts from
	smacLocalRandom    = 5   // best random candidates a local search also starts from
	smacLocalSteps     = 10  // most steps of one local search
	smacInitialMin     = 5   // smallest initial design
	smacInitialMax     = 20  // largest initial design
	smacDefaultKappa   = 0.5 // LCB exploration weight
	smacDefaultXi      = 0.0 // EI margin
	smacDefaultLeave   = 0.1 // fraction of proposals taken at random
	smacRetrainPerEval = 100 // retrain every 1 + n/smacRetrainPerEval evaluations
)

var smacFactory = Factory{
	Doc: "Bayesian optimisation with a random-forest surrogate in the manner of SMAC: an " +
		"initial design of random valid configurations, then each configuration is the best " +
		"unevaluated candidate by an acquisition function (lower confidence bound by " +
		"default, as seed 000's Table III chose for SMAC) over a forest of 10 regression " +
		"trees (bootstrap samples, random feature subsets, mean and variance across trees " +
		"plus within-leaf variance), trained on the log of the successful fitnesses " +
		"(-log(-f) when all fitnesses are negative, as for a maximised objective; " +
		"log(f - min + margin) when signs are mixed). Failed configurations are modelled " +
		"apart: a forest of success probabilities weights the acquisition, so a space " +
		"where most configurations fail does not mislead the model. Candidates are random " +
		"valid configurations plus local searches (Hamming steps that raise the " +
		"acquisition) from the best evaluated and the best random candidates; a fraction of " +
		"the proposals is purely random, as SMAC interleaves. Features are the ranks of the " +
		"parameter values (numeric order, list order for strings). The forests are refitted " +
		"after every evaluation up to 100 evaluations and every 1 + n/100 evaluations " +
		"beyond, which keeps a run of 400 evaluations well under a second.",
	Options: []Option{
		{Name: "acquisition", Kind: ChoiceKind(smacAcquisitions...), Default: "lcb",
			Doc: "ei (expected improvement on the log-fitness model), lcb (lower confidence " +
				"bound mean - kappa*sd, its optimistic improvement on the best) or logei " +
				"(expected improvement of the fitness itself under the log-normal model)"},
		{Name: "xi", Kind: FloatKind(), Default: fmtFloat(smacDefaultXi),
			Doc: "ei and logei: improvement margin, in log-fitness units for ei (0.01 is 1%) and relative to the best fitness for logei; in [0, 1)"},
		{Name: "kappa", Kind: FloatKind(), Default: fmtFloat(smacDefaultKappa), Doc: "lcb: standard deviations subtracted from the mean, in [0, 100]"},
		{Name: "interleave", Kind: FloatKind(), Default: fmtFloat(smacDefaultLeave), Doc: "fraction of proposals (after the initial design) that are uniformly random valid configurations, in [0, 1]"},
		{Name: "initial", Kind: IntKind(), Default: "budget/10 within [5, 20] (20 without a budget)", Doc: "size of the initial random design (at least 1)"},
		{Name: "trees", Kind: IntKind(), Default: fmt.Sprint(smacTrees), Doc: "trees per forest, 1 to 1000"},
	},
	New: newSMAC,
}

type smac struct {
	acquisition string
	xi, kappa   float64
	interleave  float64
	initial     optional[int]
	trees       int
}

// smacAcquisitions are the values of smac's acquisition.
var smacAcquisitions = []string{"ei", "lcb", "logei"}

func newSMAC(opts Options) (Strategy, error) {
	s := &smac{}
	var err error
	if s.acquisition, err = opts.Choice("acquisition", "lcb", smacAcquisitions...); err != nil {
		return nil, err
	}
	if s.xi, err = opts.Float("xi", smacDefaultXi); err != nil {
		return nil, err
	}
	if !(s.xi >= 0 && s.xi < 1) {
		return nil, fmt.Errorf("option xi: %v is not in [0, 1)", s.xi)
	}
	if s.kappa, err = opts.Float("kappa", smacDefaultKappa); err != nil {
		return nil, err
	}
	if !(s.kappa >= 0 && s.kappa <= 100) {
		return nil, fmt.Errorf("option kappa: %v is not in [0, 100]", s.kappa)
	}
	if s.interleave, err = opts.Float("interleave", smacDefaultLeave); err != nil {
		return nil, err
	}
	if !(s.interleave >= 0 && s.interleave <= 1) {
		return nil, fmt.Errorf("option interleave: %v is not in [0, 1]", s.interleave)
	}
	if s.initial, err = optInt(opts, "initial", 1); err != nil {
		return nil, err
	}
	if s.trees, err = opts.Int("trees", smacTrees); err != nil {
		return nil, err
	}
	if s.trees < 1 || s.trees > 1000 {
		return nil, fmt.Errorf("option trees: %d is not in [1, 1000]", s.trees)
	}
	return s, nil
}

func (*smac) Name() string { return "smac" }

// smacInitial is the initial design's size for a budget: a tenth of it within
// [smacInitialMin, smacInitialMax], so small budgets keep most evaluations for the model and
// large ones do not waste many on random sampling.
func smacInitial(budget int) int {
	if budget <= 0 {
		return smacInitialMax
	}
	return min(max(budget/10, smacInitialMin), smacInitialMax)
}

func (s *smac) Run(ctx context.Context, p Problem) error {
	st := newSMACState(ctx, p, s)
	return stopped(st.run())
}

// smacState is one run of the smac strategy: the evaluated configurations with their
// features and fitnesses, and the two forests.
type smacState struct {
	ctx context.Context
	p   Problem
	sp  *space.Space
	o   *smac

	active []int     // parameters with more than one value: the features
	rank   [][]int32 // rank[p][v]: level of value v of parameter p
	levels []int     // levels per feature

	seen map[int]struct{} // space indices evaluated (or asked for) by this run
	xs   []int32          // features of the evaluated configurations, row-major
	fit  []float64        // their fitnesses
	cfgs []space.Config   // the configurations
	// order holds the indices of fit by fitness, best first, ties in evaluation order
	order []int

	// models, refitted every so often
	reg, cls   rfForest
	regOK      bool // reg is fitted (at least two successes)
	clsOK      bool // cls is fitted (at least one failure and one success)
	fitted     int  // data points at the last fit
	yReg       []float64
	xReg       []int32
	yCls       []float64
	bestY      float64 // transformed fitness of the best success
	transform  func(float64) float64
	candScores map[int]float64
	xbuf       []int32
	// hints: where the problem takes them, each proposal hints its runners-up (ups), the
	// likeliest next proposals while the forests stand; nil otherwise
	hinter Hinter
	ups    *runnersUp
}

func newSMACState(ctx context.Context, p Problem, o *smac) *smacState {
	sp := p.Space()
	st := &smacState{ctx: ctx, p: p, sp: sp, o: o,
		seen:       make(map[int]struct{}, min(max(p.Remaining(), 0), sp.Len(), maxPrealloc)),
		candScores: map[int]float64{}}
	params := sp.Params()
	st.rank = make([][]int32, len(params))
	for pi, par := range params {
		n := len(par.Values)
		st.rank[pi] = make([]int32, n)
		if n < 2 {
			continue
		}
		st.active = append(st.active, pi)
		st.levels = append(st.levels, n)
		order := make([]int, n)
		for v := range order {
			order[v] = v
		}
		numeric := true
		for _, v := range par.Values {
			numeric = numeric && v.IsNumeric()
		}
		if numeric {
			// a tree splits on order, so numeric values are ranked by size, whatever order
			// the user listed them in
			slices.SortStableFunc(order, func(a, b int) int {
				return cmp.Compare(par.Values[a].Float(), par.Values[b].Float())
			})
		}
		for lv, v := range order {
			st.rank[pi][v] = int32(lv)
		}
	}
	st.xbuf = make([]int32, len(st.active))
	if takesHints(p) {
		// the pick is among the runners-up kept, and is not hinted
		st.hinter, st.ups = p.(Hinter), &runnersUp{k: hintAhead + 1}
	}
	return st
}

// features writes the feature vector of c into dst.
func (st *smacState) features(c space.Config, dst []int32) []int32 {
	dst = dst[:0]
	for _, pi := range st.active {
		dst = append(dst, st.rank[pi][c[pi]])
	}
	return dst
}

func (st *smacState) run() error {
	r := st.p.Rand()
	n0 := st.o.initial.or(smacInitial(st.p.Budget()))
	n0 = min(n0, st.sp.Len(), max(st.p.Remaining(), 0))
	design := st.sp.SampleIndices(r, n0)
	ups := make([]space.Config, len(design))
	for i, idx := range design {
		ups[i] = st.sp.At(idx, nil)
	}
	hint(st.p, ups...)
	for _, c := range ups {
		if err := st.evaluate(c); err != nil {
			return err
		}
	}
	for st.p.Remaining() > 0 && len(st.seen) < st.sp.Len() {
		if err := st.ctx.Err(); err != nil {
			return err
		}
		if st.ups != nil {
			st.ups.reset()
		}
		var c space.Config
		if r.Float64() < st.o.interleave || !st.refit() {
			c = st.randomUnseen()
		} else {
			c = st.propose()
		}
		if st.hinter != nil {
			// always: an empty hint clears an old one
			st.hinter.Hint(st.ups.without(c)...)
		}
		if err := st.evaluate(c); err != nil {
			return err
		}
	}
	return nil
}

// evaluate evaluates c (valid, not evaluated by this run) and records it.
func (st *smacState) evaluate(c space.Config) error {
	idx, _ := st.sp.Index(c)
	st.seen[idx] = struct{}{}
	f, err := st.p.Evaluate(st.ctx, c)
	if err != nil {
		return err
	}
	st.cfgs = append(st.cfgs, c)
	st.fit = append(st.fit, f)
	st.xs = append(st.xs, st.features(c, st.xbuf)...)
	return nil
}

// smacFailed reports whether a fitness counts as a failure for the models: +Inf, and NaN
// or -Inf, which no model could fit.
func smacFailed(f float64) bool { return math.IsInf(f, 0) || math.IsNaN(f) }

// randomUnseen returns a uniformly random valid configuration this run has not evaluated.
// Once most of the space is evaluated, it draws from the list of the rest.
func (st *smacState) randomUnseen() space.Config {
	r := st.p.Rand()
	if 2*len(st.seen) < st.sp.Len() {
		for {
			idx := r.IntN(st.sp.Len())
			if _, dup := st.seen[idx]; !dup {
				return st.sp.At(idx, nil)
			}
		}
	}
	rest := make([]int, 0, st.sp.Len()-len(st.seen))
	for idx := range st.sp.Len() {
		if _, dup := st.seen[idx]; !dup {
			rest = append(rest, idx)
		}
	}
	return st.sp.At(rest[r.IntN(len(rest))], nil)
}

// refit refits the forests when enough new data came in since the last fit, and reports
// whether a regression model exists (two successes at least). Refitting after every
// evaluation costs O(n log n) per tree; past smacRetrainPerEval evaluations the models
// are refitted every 1 + n/smacRetrainPerEval evaluations, which changes the proposals
// little (the best unevaluated candidate of a slightly stale model) and keeps long runs
// cheap.
func (st *smacState) refit() bool {
	n := len(st.fit)
	if st.regOK && n-st.fitted < 1+n/smacRetrainPerEval {
		return true
	}
	d := len(st.active)
	succ := 0
	allPos, allNeg := true, true
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, f := range st.fit {
		if smacFailed(f) {
			continue
		}
		succ++
		allPos = allPos && f > 0
		allNeg = allNeg && f < 0
		lo, hi = min(lo, f), max(hi, f)
	}
	if succ < 2 {
		return false
	}
	// Log transforms make the model see ratios, which is how the fraction of the optimum
	// scores a run, and tame the long tail of slow configurations.
	switch {
	case allPos:
		st.transform = math.Log
	case allNeg:
		st.transform = func(f float64) float64 { return -math.Log(-f) }
	default:
		margin := (hi - lo) / 100
		if margin <= 0 {
			margin = 1
		}
		st.transform = func(f float64) float64 { return math.Log(f - lo + margin) }
	}
	st.xReg, st.yReg, st.yCls = st.xReg[:0], st.yReg[:0], st.yCls[:0]
	st.bestY = math.Inf(1)
	for i, f := range st.fit {
		ok := !smacFailed(f)
		st.yCls = append(st.yCls, smacB2F(ok))
		if !ok {
			continue
		}
		y := st.transform(f)
		st.bestY = min(st.bestY, y)
		st.yReg = append(st.yReg, y)
		st.xReg = append(st.xReg, st.xs[i*d:(i+1)*d]...)
	}
	r := st.p.Rand()
	cfg := rfConfig{trees: st.o.trees, featureFrac: smacFeatureFrac, minLeaf: smacMinLeaf,
		maxDepth: smacMaxDepth, bootstrap: true, maxSamples: rfMaxSamples}
	st.reg.fit(st.xReg, st.yReg, st.levels, cfg, r)
	st.regOK = true
	st.clsOK = succ < n
	if st.clsOK {
		st.cls.fit(st.xs, st.yCls, st.levels, rfSuccessConfig(st.o.trees), r)
	}
	st.fitted = n
	return true
}

func smacB2F(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// score is the acquisition of c, weighted by its predicted chance of success.
func (st *smacState) score(c space.Config) float64 {
	x := st.features(c, st.xbuf)
	mu, v := st.reg.predict(x)
	sd := math.Sqrt(v)
	ps := 1.0
	if st.clsOK {
		ps = st.cls.predictMean(x)
	}
	switch st.o.acquisition {
	case "lcb":
		// optimistic improvement on the best; a candidate that is unlikely to succeed is
		// pushed down when it improves and further down when it does not
		u := st.bestY - (mu - st.o.kappa*sd)
		if u > 0 {
			return ps * u
		}
		return u / max(ps, 0.01)
	case "logei":
		return ps * smacLogEI(st.bestY, mu, sd, st.o.xi)
	}
	return ps * expectedImprovement(mu, sd, st.bestY, st.o.xi)
}

// smacLogEI is the expected improvement of exp(Y) below exp(bestY)*(1-xi) when Y, the
// modelled log fitness, is N(mu, sd^2): the improvement of the fitness itself rather than
// of its logarithm (SMAC's EI for log-transformed costs).
func smacLogEI(bestY, mu, sd, xi float64) float64 {
	fmin := math.Exp(bestY) * (1 - xi)
	if sd <= 1e-12 {
		return max(fmin-math.Exp(mu), 0)
	}
	v := (math.Log(fmin) - mu) / sd
	return fmin*normCDF(v) - math.Exp(mu+sd*sd/2)*normCDF(v-sd)
}

// smacCand is a scored candidate.
type smacCand struct {
	idx   int
	c     space.Config
	score float64
}

// propose returns the unevaluated configuration with the highest acquisition among
// random valid configurations and the configurations met by local searches from the best
// evaluated configurations and the best random candidates.
func (st *smacState) propose() space.Config {
	r := st.p.Rand()
	clear(st.candScores)
	var best smacCand
	best.score = math.Inf(-1)
	consider := func(idx int, c space.Config, sc float64) {
		if _, dup := st.seen[idx]; dup {
			return
		}
		if best.c == nil || sc > best.score {
			best = smacCand{idx: idx, c: append(best.c[:0], c...), score: sc}
		}
		if st.ups != nil {
			st.ups.add(c, sc)
		}
	}
	// random candidates, distinct
	randCands := make([]smacCand, 0, smacRandomCands)
	for range smacRandomCands {
		idx := r.IntN(st.sp.Len())
		if _, dup := st.candScores[idx]; dup {
			continue
		}
		c := st.sp.At(idx, nil)
		sc := st.score(c)
		st.candScores[idx] = sc
		randCands = append(randCands, smacCand{idx, c, sc})
		consider(idx, c, sc)
	}
	// local searches
	var starts []smacCand
	// the evaluations by fitness, best first (ties in evaluation order), kept from
	// proposal to proposal: each new one is inserted after every one at least as good
	for len(st.order) < len(st.fit) {
		i := len(st.order)
		at := sort.Search(i, func(k int) bool { return cmp.Compare(st.fit[st.order[k]], st.fit[i]) > 0 })
		st.order = slices.Insert(st.order, at, i)
	}
	order := st.order
	for _, i := range order[:min(smacLocalStarts, len(order))] {
		if smacFailed(st.fit[i]) {
			break
		}
		c := st.cfgs[i]
		idx, _ := st.sp.Index(c)
		starts = append(starts, smacCand{idx, c, st.scoreCached(idx, c)})
	}
	starts = append(starts, smacTop(randCands, smacLocalRandom)...)
	for _, s := range starts {
		cur := s.c.Clone()
		curScore := s.score
		for range smacLocalSteps {
			var next space.Config
			nextScore := curScore
			st.sp.Neighbours(cur, space.Hamming, func(nb space.Config) {
				idx, ok := st.sp.Index(nb)
				if !ok {
					return
				}
				sc := st.scoreCached(idx, nb)
				consider(idx, nb, sc)
				if sc > nextScore {
					next, nextScore = append(next[:0], nb...), sc
				}
			})
			if next == nil {
				break
			}
			cur, curScore = next, nextScore
		}
	}
	if best.c == nil {
		return st.randomUnseen()
	}
	return best.c
}

// smacTop moves the k highest-scoring candidates (the first met of equals) to the front of
// cs, in order, and returns them: a partial selection, cheaper than sorting all of cs.
func smacTop(cs []smacCand, k int) []smacCand {
	k = min(k, len(cs))
	for i := range k {
		b := i
		for j := i + 1; j < len(cs); j++ {
			if cs[j].score > cs[b].score {
				b = j
			}
		}
		// rotate rather than swap, so the rest keeps its order and ties stay first-met
		c := cs[b]
		copy(cs[i+1:b+1], cs[i:b])
		cs[i] = c
	}
	return cs[:k]
}

func (st *smacState) scoreCached(idx int, c space.Config) float64 {
	if sc, ok := st.candScores[idx]; ok {
		return sc
	}
	sc := st.score(c)
	st.candScores[idx] = sc
	return sc
}
