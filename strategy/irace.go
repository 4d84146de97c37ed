package strategy

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ktune/ktune/space"
)

// Iterated racing (irace; López-Ibáñez, Dubois-Lacoste, Pérez Cáceres, Birattari and
// Stützle, 2016), the tuner for stochastic problems that seed 000 benchmarks in its
// stochastic experiment (section V, Table III). Each iteration samples candidate
// configurations from per-parameter discrete distributions attached to the elite
// configurations, races them (every surviving candidate is evaluated once more per
// "instance", here a repeated measurement of the same configuration, and a statistical test
// drops the ones that are significantly worse), and keeps the best survivors as the elites
// of the next iteration, whose distributions are sharpened towards their own values.
//
// The irace package itself is not used or translated: the algorithm follows the paper's
// description (numbers of iterations, configurations and survivors, the probability update,
// the Friedman test with its post-hoc comparison, elitist racing), written for ktune's
// discrete spaces and its budget of evaluations.

var iraceFactory = Factory{
	Doc: "Iterated racing (irace, López-Ibáñez et al. 2016) for stochastic fitness, seed " +
		"000's tuner for its stochastic experiment. Iterations sample candidate configurations " +
		"from per-parameter discrete distributions, uniform at first and afterwards drawn from " +
		"an elite (chosen with weight by rank) whose distributions move towards its own values " +
		"by (j-1)/N_iter in iteration j, so the search converges over the iterations. The " +
		"candidates of an iteration are raced: each survivor is measured once more per round " +
		"(an 'instance' is a repeated evaluation, which returns a new timing sample when the " +
		"session runs with stochastic fitness, repeats costing budget), and after firstTest " +
		"rounds, then every eachTest rounds, a statistical test (testType) eliminates the " +
		"candidates significantly worse than the best. A race ends when N_min = floor(2 + " +
		"log2(parameters)) candidates remain or the iteration's budget (the remaining budget " +
		"over the iterations left of N_iter = N_min) is spent; its best survivors are the next " +
		"elites. A configuration that fails is dropped at once (failures do not come and go " +
		"with timing noise). In a deterministic session (repeats answered from the cache, " +
		"detected by the budget not moving on a repeat) every configuration is measured once " +
		"and the race ranks that single sample. Candidates are configurations not evaluated " +
		"before where possible, so the whole budget is used. Defaults follow seed 000's Table " +
		"III (firstTest 2, nbConfigurations automatic) and irace's own defaults.",
	Options: []Option{
		{Name: "firstTest", Kind: IntKind(), Default: "2 (seed 000 Table III at budget 1600, NA below; irace's own default 5 would leave small budgets almost no candidates)",
			Doc: "rounds (measurements of each candidate) before the first elimination test: at least 2 and a multiple of eachTest"},
		{Name: "eachTest", Kind: IntKind(), Default: "1 (irace)",
			Doc: "rounds between two elimination tests after the first (at least 1)"},
		{Name: "nbConfigurations", Kind: IntKind(), Default: "0 (seed 000 Table III: automatic)",
			Doc: "candidates per iteration (at most 100,000), elites included (at least one new); 0 takes irace's " +
				"floor(B_j / (firstTest + eachTest * min(5, j))) for iteration j with budget B_j"},
		{Name: "testType", Kind: ChoiceKind(iraceTests...), Default: "F-test (irace)",
			Doc: "elimination test: F-test (Friedman test over the rounds as blocks, then " +
				"Conover's comparison of rank sums against the best ranked), t-test (paired " +
				"t-tests of each candidate against the best mean, two-sided), t-test-bonferroni " +
				"or t-test-holm (the same with p-values corrected for the number of comparisons)"},
		{Name: "confidence", Kind: FloatKind(), Default: "0.95 (irace)",
			Doc: "confidence level of the tests, in (0.5, 1): a candidate is eliminated when p < 1 - confidence"},
		{Name: "elitist", Kind: BoolKind(), Default: "true (irace)",
			Doc: "elites keep the samples of earlier races and are not eliminated before the race " +
				"has measured the new candidates as often; such a race also ends after 2 tests " +
				"in a row that eliminate nothing (irace's elitistLimit); false measures elites " +
				"anew in every race"},
	},
	New: newIrace,
}

// iraceTests are the allowed testType values, in irace's spelling.
var iraceTests = []string{"F-test", "t-test", "t-test-bonferroni", "t-test-holm"}

type iraceParams struct {
	firstTest, eachTest, nbConfigurations int
	test                                  string
	confidence                            float64
	elitist                               bool
}

type irace struct{ o iraceParams }

func newIrace(opts Options) (Strategy, error) {
	var o iraceParams
	var err error
	if o.firstTest, err = opts.Int("firstTest", 2); err != nil {
		return nil, err
	}
	if o.eachTest, err = opts.Int("eachTest", 1); err != nil {
		return nil, err
	}
	if o.nbConfigurations, err = opts.Int("nbConfigurations", 0); err != nil {
		return nil, err
	}
	if o.test, err = opts.Choice("testType", "F-test", iraceTests...); err != nil {
		return nil, err
	}
	if o.confidence, err = opts.Float("confidence", 0.95); err != nil {
		return nil, err
	}
	if o.elitist, err = opts.Bool("elitist", true); err != nil {
		return nil, err
	}
	switch {
	case o.eachTest < 1:
		return nil, fmt.Errorf("option eachTest: %d, want at least 1", o.eachTest)
	case o.firstTest < 2:
		return nil, fmt.Errorf("option firstTest: %d, want at least 2 (a test needs two samples of each candidate)", o.firstTest)
	case o.firstTest%o.eachTest != 0:
		return nil, fmt.Errorf("option firstTest: %d is not a multiple of eachTest %d", o.firstTest, o.eachTest)
	case o.nbConfigurations < 0 || o.nbConfigurations > maxPopulation:
		return nil, fmt.Errorf("option nbConfigurations: %d, want 0 (automatic) to %d", o.nbConfigurations, maxPopulation)
	case !(o.confidence > 0.5 && o.confidence < 1):
		return nil, fmt.Errorf("option confidence: %v is not in (0.5, 1)", o.confidence)
	}
	return &irace{o: o}, nil
}

func (*irace) Name() string { return "irace" }

const (
	// iraceElitistLimit is irace's elitistLimit: an elitist race ends after this many tests
	// in a row that eliminated nothing, once no elite is protected any more.
	iraceElitistLimit = 2
	// iraceNominalBudget plans the iterations of a stochastic run without an evaluation
	// budget (a time limit ends it): each iteration is planned as if this much were left.
	iraceNominalBudget = 1000
	// iraceDraws is how many draws a candidate gets from an elite's distributions before
	// a configuration not evaluated yet is taken uniformly instead.
	iraceDraws = 16
	// iraceSoften is the weight of the uniform distribution mixed into an elite's
	// distributions when its draws keep repeating configurations (irace's soft restart).
	iraceSoften = 0.3
)

// iraceMode is what repeating an evaluation means in the session.
type iraceMode uint8

const (
	iraceUnknown       iraceMode = iota
	iraceStochastic              // a repeat is a new measurement and costs budget
	iraceDeterministic           // a repeat comes from the session's cache: one sample per configuration
)

// iraceCand is a candidate configuration with its sampling model and its measurements.
type iraceCand struct {
	c       space.Config
	idx     int         // index in the space
	probs   [][]float64 // per parameter, the probability of each value index
	samples []float64   // fitness per round (instance), in order
	old     int         // samples brought from earlier races: an elitist race protects it until then
	alive   bool
}

// iraceRun is one run of the strategy.
type iraceRun struct {
	ctx   context.Context
	p     Problem
	sp    *space.Space
	r     *rand.Rand
	o     iraceParams
	sizes []int
	nMin  int // survivors that end a race, and the number of elites
	mode  iraceMode
	seen  map[int]struct{} // configurations evaluated by this run
}

func (s *irace) Run(ctx context.Context, p Problem) error {
	sp := p.Space()
	ru := &iraceRun{ctx: ctx, p: p, sp: sp, r: p.Rand(), o: s.o, sizes: popSizes(sp),
		seen: make(map[int]struct{}, min(max(p.Remaining(), 0), sp.Len(), maxPrealloc))}
	free := 0
	for _, n := range ru.sizes {
		if n > 1 {
			free++
		}
	}
	// irace's N_iter and N_min: floor(2 + log2(number of parameters)); parameters with a
	// single value are not tuned and do not count.
	nIter := int(2 + math.Log2(float64(max(free, 1))))
	ru.nMin = nIter
	var elites []*iraceCand
	for j := 1; ; j++ {
		rem := ru.p.Remaining()
		if rem <= 0 {
			return nil
		}
		if rem == math.MaxInt {
			rem = iraceNominalBudget
		}
		// The iteration's budget: what is left shared over the iterations still planned;
		// past N_iter every iteration plans with all of it, and races that end early leave
		// the rest to the next iteration.
		bj := rem / max(1, nIter-j+1)
		nj := s.o.nbConfigurations
		if nj == 0 {
			nj = bj / (s.o.firstTest + s.o.eachTest*min(5, j))
		}
		if j > 1 {
			ru.sharpen(elites, float64(j-1)/float64(max(nIter, j)))
		}
		cands := ru.candidates(elites, max(nj-len(elites), 1))
		var err error
		if elites, err = ru.race(cands, bj); err != nil {
			return stopped(err)
		}
	}
}

// sharpen moves each elite's distributions towards its own values: every probability is
// scaled by 1-f and f is added to the elite's value (irace's update, f = (j-1)/N_iter).
func (ru *iraceRun) sharpen(elites []*iraceCand, f float64) {
	for _, e := range elites {
		for i, pr := range e.probs {
			for v := range pr {
				pr[v] *= 1 - f
			}
			pr[e.c[i]] += f
		}
	}
}

// candidates returns the iteration's race: the elites, then nNew new configurations drawn
// from their distributions (uniformly when there are no elites).
func (ru *iraceRun) candidates(elites []*iraceCand, nNew int) []*iraceCand {
	cands := make([]*iraceCand, 0, len(elites)+nNew)
	inRace := make(map[int]bool, len(elites)+nNew)
	for _, e := range elites {
		if !ru.o.elitist && ru.mode != iraceDeterministic {
			e.samples = e.samples[:0]
		}
		e.old, e.alive = len(e.samples), true
		cands = append(cands, e)
		inRace[e.idx] = true
	}
	for range nNew {
		c := ru.sample(elites, inRace)
		inRace[c.idx] = true
		cands = append(cands, c)
	}
	return cands
}

// isNew reports whether a configuration is neither in the race nor evaluated before.
func (ru *iraceRun) isNew(idx int, inRace map[int]bool) bool {
	if inRace[idx] {
		return false
	}
	_, seen := ru.seen[idx]
	return !seen
}

// sample draws one new candidate. The parent is an elite chosen with weight N_elite - rank
// (the best weighs most); each parameter's value is drawn from the parent's distribution,
// the whole draw repeated a few times when the restrictions forbid it and then repaired to
// the nearest valid configuration. A draw that repeats a configuration is drawn again, and
// every fourth repeat flattens the parent's distributions a little; when nothing new comes
// out, a configuration not evaluated yet is taken uniformly.
func (ru *iraceRun) sample(elites []*iraceCand, inRace map[int]bool) *iraceCand {
	c := make(space.Config, len(ru.sizes))
	if len(elites) > 0 {
		total := len(elites) * (len(elites) + 1) / 2
		for try := range iraceDraws {
			t, parent := ru.r.IntN(total), elites[0]
			for rank, e := range elites {
				if t -= len(elites) - rank; t < 0 {
					parent = e
					break
				}
			}
			ru.draw(parent, c)
			if idx, _ := ru.sp.Index(c); ru.isNew(idx, inRace) {
				return &iraceCand{c: c, idx: idx, probs: iraceCloneProbs(parent.probs), alive: true}
			}
			if try%4 == 3 {
				ru.soften(parent)
			}
		}
	}
	idx := ru.uniform(c, inRace)
	return &iraceCand{c: c, idx: idx, probs: iraceUniformProbs(ru.sizes), alive: true}
}

// draw writes into c a configuration drawn from parent's distributions, valid.
func (ru *iraceRun) draw(parent *iraceCand, c space.Config) {
	for range 8 {
		for i, pr := range parent.probs {
			c[i] = iracePick(ru.r, pr)
		}
		if ru.sp.Contains(c) {
			return
		}
	}
	popRepair(ru.sp, ru.sizes, c, ru.r)
}

// uniform writes into c a uniformly random valid configuration that is new (neither in the
// race nor evaluated), scanning the space from a random place when random draws keep
// missing; when every configuration was evaluated (stochastic sessions may go on) it
// settles for one not in the race, and in a space smaller than the race for any.
func (ru *iraceRun) uniform(c space.Config, inRace map[int]bool) int {
	for range 32 {
		ru.sp.Sample(ru.r, c)
		if idx, _ := ru.sp.Index(c); ru.isNew(idx, inRace) {
			return idx
		}
	}
	n := ru.sp.Len()
	start := ru.r.IntN(n)
	for _, ok := range []func(int) bool{
		func(idx int) bool { return ru.isNew(idx, inRace) },
		func(idx int) bool { return !inRace[idx] },
	} {
		for off := range n {
			if idx := (start + off) % n; ok(idx) {
				ru.sp.At(idx, c)
				return idx
			}
		}
	}
	ru.sp.At(start, c)
	return start
}

// soften mixes the uniform distribution into e's distributions, so that an elite whose
// distributions have converged onto configurations already evaluated explores again.
func (ru *iraceRun) soften(e *iraceCand) {
	for _, pr := range e.probs {
		for v := range pr {
			pr[v] = (1-iraceSoften)*pr[v] + iraceSoften/float64(len(pr))
		}
	}
}

func iraceUniformProbs(sizes []int) [][]float64 {
	out := make([][]float64, len(sizes))
	for i, n := range sizes {
		out[i] = make([]float64, n)
		for v := range out[i] {
			out[i][v] = 1 / float64(n)
		}
	}
	return out
}

func iraceCloneProbs(probs [][]float64) [][]float64 {
	out := make([][]float64, len(probs))
	for i, pr := range probs {
		out[i] = slices.Clone(pr)
	}
	return out
}

// iracePick draws an index with the given probabilities (which sum to 1 up to rounding).
func iracePick(r *rand.Rand, pr []float64) int {
	if len(pr) == 1 {
		return 0
	}
	u := r.Float64()
	last := 0
	for v, q := range pr {
		if q <= 0 {
			continue
		}
		last = v
		if u -= q; u < 0 {
			return v
		}
	}
	return last // rounding left u a hair above the sum
}

// eval measures a candidate once. The first time it repeats a configuration it learns what
// a repeat is: a new measurement when it cost budget (or nothing bounds the run), a cached
// answer when the remaining budget did not move.
func (ru *iraceRun) eval(c *iraceCand) (float64, error) {
	_, seen := ru.seen[c.idx]
	probe := seen && ru.mode == iraceUnknown
	before := 0
	if probe {
		before = ru.p.Remaining()
	}
	f, err := ru.p.Evaluate(ru.ctx, c.c)
	if err != nil {
		return f, err
	}
	ru.seen[c.idx] = struct{}{}
	if probe {
		if before != math.MaxInt && ru.p.Remaining() == before {
			ru.mode = iraceDeterministic
		} else {
			ru.mode = iraceStochastic
		}
	}
	return f, nil
}

// hint tells a compiling evaluator about the candidates not measured before.
func (ru *iraceRun) hint(cands []*iraceCand) {
	if !takesHints(ru.p) {
		return
	}
	var up []space.Config
	for _, c := range cands {
		if _, seen := ru.seen[c.idx]; !seen {
			up = append(up, c.c)
		}
	}
	hint(ru.p, up...)
}

// race runs one iteration's race within budget bj and returns the elites: the best
// survivors, at most N_min, best first.
func (ru *iraceRun) race(cands []*iraceCand, bj int) ([]*iraceCand, error) {
	k, spent, quiet := 0, 0, 0 // rounds done; evaluations made; tests in a row without elimination
rounds:
	for {
		var todo []*iraceCand
		for _, c := range cands {
			if c.alive && len(c.samples) <= k {
				todo = append(todo, c)
			}
		}
		if k > 0 && spent+len(todo) > bj {
			break
		}
		if k == 0 {
			ru.hint(todo)
		}
		for _, c := range todo {
			f, err := ru.eval(c)
			if err != nil {
				return nil, err
			}
			if ru.mode == iraceDeterministic && len(c.samples) > 0 {
				break rounds // a cached repeat: race on the single sample
			}
			c.samples = append(c.samples, f)
			spent++
			if !(f < math.Inf(1)) {
				c.alive = false // failed
			}
		}
		k++
		if ru.mode == iraceDeterministic {
			break
		}
		alive := 0
		for _, c := range cands {
			if c.alive {
				alive++
			}
		}
		if alive <= ru.nMin {
			break
		}
		if k >= ru.o.firstTest && (k-ru.o.firstTest)%ru.o.eachTest == 0 {
			out := ru.eliminate(cands, k)
			if ru.o.elitist && !slices.ContainsFunc(cands, func(c *iraceCand) bool { return c.alive && c.old > k }) {
				if out == 0 {
					quiet++
				} else {
					quiet = 0
				}
				if quiet >= iraceElitistLimit {
					break
				}
			}
		}
	}
	if ru.mode == iraceDeterministic {
		k = 1
	}
	var alive []*iraceCand
	for _, c := range cands {
		if c.alive && len(c.samples) >= k && k > 0 {
			alive = append(alive, c)
		}
	}
	ru.rank(alive, k)
	return alive[:min(len(alive), ru.nMin)], nil
}

// iraceSamples returns the first k samples of each candidate, as the tests read them.
func iraceSamples(cands []*iraceCand, k int) [][]float64 {
	x := make([][]float64, len(cands))
	for i, c := range cands {
		x[i] = c.samples[:k]
	}
	return x
}

// eliminate runs the test on the alive candidates' first k samples and marks the ones
// significantly worse than the best as dead, except elites an elitist race still protects.
// It returns how many it eliminated.
func (ru *iraceRun) eliminate(cands []*iraceCand, k int) int {
	var alive []*iraceCand
	for _, c := range cands {
		if c.alive {
			alive = append(alive, c)
		}
	}
	alpha := 1 - ru.o.confidence
	var worse []bool
	if ru.o.test == "F-test" {
		worse = iraceFriedmanWorse(iraceSamples(alive, k), alpha)
	} else {
		worse = iracePairedTWorse(iraceSamples(alive, k), alpha, ru.o.test)
	}
	out := 0
	for i, c := range alive {
		if worse[i] && !(ru.o.elitist && c.old > k) {
			c.alive = false
			out++
		}
	}
	return out
}

// rank sorts the candidates best first on their first k samples: by rank sum for the
// F-test (as the race compared them), by mean for the t-tests; ties keep the order, which
// puts elites before new candidates.
func (ru *iraceRun) rank(cands []*iraceCand, k int) {
	if len(cands) < 2 {
		return
	}
	x := iraceSamples(cands, k)
	score := make([]float64, len(cands))
	if ru.o.test == "F-test" {
		score, _ = iraceRankSums(x)
	} else {
		for i, s := range x {
			score[i] = iraceMean(s)
		}
	}
	order := make([]int, len(cands))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return score[order[a]] < score[order[b]] })
	sorted := make([]*iraceCand, len(cands))
	for i, o := range order {
		sorted[i] = cands[o]
	}
	copy(cands, sorted)
}

func iraceMean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// iraceRankSums ranks the candidates within each block (round) b, x[i][b] lowest first with
// ties sharing their average rank, and returns each candidate's sum of ranks and the sum
// of all squared ranks.
func iraceRankSums(x [][]float64) (sums []float64, sumSq float64) {
	m := len(x)
	sums = make([]float64, m)
	if m == 0 {
		return sums, 0
	}
	idx := make([]int, m)
	for b := range x[0] {
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(i, j int) bool { return x[idx[i]][b] < x[idx[j]][b] })
		for lo := 0; lo < m; {
			hi := lo + 1
			for hi < m && x[idx[hi]][b] == x[idx[lo]][b] {
				hi++
			}
			r := float64(lo+hi+1) / 2 // average of ranks lo+1 .. hi
			for _, i := range idx[lo:hi] {
				sums[i] += r
				sumSq += r * r
			}
			lo = hi
		}
	}
	return sums, sumSq
}

// iraceFriedman returns the Friedman statistic of x[i][b] (candidate i measured in block b,
// lower is better), corrected for ties, and its p-value from the chi-squared distribution
// with m-1 degrees of freedom, as Conover (Practical Nonparametric Statistics) gives it:
// T = (m-1) * sum_i (R_i - n(m+1)/2)^2 / (A - n m (m+1)^2 / 4), with R_i the rank sums and
// A the sum of all squared ranks. When every block ties everything, T is 0 and p is 1.
func iraceFriedman(x [][]float64) (stat, p float64) {
	m := len(x)
	if m < 2 || len(x[0]) == 0 {
		return 0, 1
	}
	n := float64(len(x[0]))
	sums, a := iraceRankSums(x)
	c := n * float64(m) * float64((m+1)*(m+1)) / 4
	if a-c <= 1e-12*a {
		return 0, 1
	}
	ss := 0.0
	for _, r := range sums {
		d := r - n*float64(m+1)/2
		ss += d * d
	}
	stat = float64(m-1) * ss / (a - c)
	return stat, distuv.ChiSquared{K: float64(m - 1)}.Survival(stat)
}

// iraceFriedmanWorse is the F-test of irace's races: when the Friedman test on x (candidates
// by blocks, lower is better) rejects equality at level alpha, every candidate whose rank
// sum exceeds the best (lowest) rank sum by more than Conover's critical difference
// t(1-alpha/2, (n-1)(m-1)) * sqrt(2 (n A - sum_i R_i^2) / ((n-1)(m-1))) is worse. It needs
// two blocks at least; with fewer it finds nothing.
func iraceFriedmanWorse(x [][]float64, alpha float64) []bool {
	m := len(x)
	worse := make([]bool, m)
	if m < 2 || len(x[0]) < 2 {
		return worse
	}
	if _, p := iraceFriedman(x); !(p < alpha) {
		return worse
	}
	n := float64(len(x[0]))
	sums, a := iraceRankSums(x)
	best, ss := 0, 0.0
	for i, r := range sums {
		ss += r * r
		if r < sums[best] {
			best = i
		}
	}
	df := (n - 1) * float64(m-1)
	crit := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(1-alpha/2) * math.Sqrt(max(2*(n*a-ss)/df, 0))
	for i, r := range sums {
		worse[i] = r-sums[best] > crit
	}
	return worse
}

// iracePairedT is the paired t-test of a against b: t of the mean difference a-b and its
// two-sided p-value with len(a)-1 degrees of freedom. Identical differences give t = ±Inf
// and p = 0, or t = 0 and p = 1 when they are all zero.
func iracePairedT(a, b []float64) (t, p float64) {
	n := len(a)
	if n < 2 {
		return 0, 1
	}
	d := make([]float64, n)
	for i := range a {
		d[i] = a[i] - b[i]
	}
	md := iraceMean(d)
	v := 0.0
	for _, x := range d {
		v += (x - md) * (x - md)
	}
	se := math.Sqrt(v / float64(n-1) / float64(n))
	if se == 0 {
		if md == 0 {
			return 0, 1
		}
		return math.Copysign(math.Inf(1), md), 0
	}
	t = md / se
	return t, 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Survival(math.Abs(t))
}

// iracePairedTWorse compares every candidate of x (candidates by blocks, lower is better) with
// the one of lowest mean by a paired t-test; a candidate with a higher mean is worse when
// its p-value, adjusted by correction ("t-test": none, "t-test-bonferroni": times the
// number of comparisons, "t-test-holm": Holm's step-down), is below alpha.
func iracePairedTWorse(x [][]float64, alpha float64, correction string) []bool {
	m := len(x)
	worse := make([]bool, m)
	if m < 2 || len(x[0]) < 2 {
		return worse
	}
	means := make([]float64, m)
	best := 0
	for i, s := range x {
		if means[i] = iraceMean(s); means[i] < means[best] {
			best = i
		}
	}
	type cmp struct {
		i int
		p float64
	}
	var cs []cmp
	for i := range x {
		if i != best {
			_, p := iracePairedT(x[i], x[best])
			cs = append(cs, cmp{i, p})
		}
	}
	k := float64(len(cs))
	switch correction {
	case "t-test-bonferroni":
		for j := range cs {
			cs[j].p = min(1, cs[j].p*k)
		}
	case "t-test-holm":
		sort.SliceStable(cs, func(a, b int) bool { return cs[a].p < cs[b].p })
		run := 0.0
		for j := range cs {
			run = max(run, min(1, cs[j].p*(k-float64(j))))
			cs[j].p = run
		}
	}
	for _, c := range cs {
		worse[c.i] = c.p < alpha && means[c.i] > means[best]
	}
	return worse
}
