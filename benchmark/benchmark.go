// Package benchmark is the strategy benchmark harness of seed 000: strategies x recorded
// spaces x budgets x repeats, each run simulated and scored by the fraction of the optimum it
// reached, then the competition of Section VI-B: two-sample independent t-tests between every
// pair of strategies per space and budget, summed into wins and losses for low and medium
// budgets (up to and above a split that Compete takes: DefaultSplit, 200, as in seed 000's
// Table IV), and the figures of its Fig. 1 and Fig. 2.
package benchmark

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ktune/ktune/simulator"
	"github.com/ktune/ktune/strategy"
)

// Strategy names a strategy with its options, as the harness runs it.
type Strategy struct {
	Name    string         // registered name
	Label   string         // how tables show it; Name when empty
	Options map[string]any // its options, set explicitly: they win over Defaults
	// Defaults, when set, gives the options for each budget (from `ktune hypertune`).
	Defaults *Defaults
	// labelledDefaults: Defaults came from a file given for this entry's label
	labelledDefaults bool
}

// DisplayName is how tables and cells name the strategy: its label, else its name.
func (s Strategy) DisplayName() string {
	if s.Label != "" {
		return s.Label
	}
	return s.Name
}

// OptionsFor returns the options a run at budget uses: the defaults file's for that budget,
// overridden by the options set explicitly.
func (s Strategy) OptionsFor(budget int) map[string]any {
	if s.Defaults == nil {
		return s.Options
	}
	return s.Defaults.Merge(budget, s.Options)
}

// ParseStrategies reads the strategy list of `ktune bench --strategies`: comma-separated
// entries, each
//
//	NAME                          a registered strategy with its defaults
//	NAME:OPT=VALUE;OPT=VALUE...   with options (labelled by the entry as written)
//	LABEL=NAME[:OPT=VALUE;...]    under a label of its own
//
// so one strategy can run under several settings, e.g.
// "random,adj=firstmls:neighbourhood=adjacent,irace:testType=t-test;firstTest=4". A list
// option is written in brackets, whose commas separate no entries:
// "greedymls:order=[tile_size,use_method]". Every name must be registered and its options
// accepted; labels must be unique, and so must entries labelled by their text however
// their options are spelled (firstmls:neighbourhood=hamming is
// firstmls:neighbourhood=Hamming).
func ParseStrategies(list string) ([]Strategy, error) {
	var out []Strategy
	seen := map[string]bool{}
	entries, err := strategy.SplitList(list, ',')
	if err != nil {
		return nil, fmt.Errorf("strategies %w", err)
	}
	for i, entry := range entries {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			return nil, fmt.Errorf("strategies %q: empty entry", list)
		}
		head, opts, hasOpts := strings.Cut(entry, ":")
		st := Strategy{Name: head}
		if label, name, ok := strings.Cut(head, "="); ok {
			st.Label, st.Name = strings.TrimSpace(label), strings.TrimSpace(name)
			if st.Label == "" {
				return nil, fmt.Errorf("strategy entry %q: empty label", entry)
			}
		} else if hasOpts {
			st.Label = entry
		}
		if _, ok := strategy.Lookup(st.Name); !ok {
			if i > 0 && !hasOpts && strings.Contains(entries[i-1], ":") {
				// most likely the rest of a list option of the entry before
				return nil, fmt.Errorf("strategy entry %q: %w; if it continues a list option of the entry before, write the list in brackets: OPT=[a,b]",
					entry, strategy.UnknownStrategy(st.Name))
			}
			return nil, fmt.Errorf("strategy entry %q: %w", entry, strategy.UnknownStrategy(st.Name))
		}
		if hasOpts {
			if st.Options, err = entryOptions(opts); err != nil {
				return nil, fmt.Errorf("strategy entry %q: %w", entry, err)
			}
		}
		if _, err := strategy.New(st.Name, st.Options); err != nil {
			return nil, fmt.Errorf("strategy entry %q: %w", entry, err)
		}
		if seen[st.DisplayName()] {
			return nil, fmt.Errorf("strategy %q is listed twice; give one a label (LABEL=NAME:...)", st.DisplayName())
		}
		seen[st.DisplayName()] = true
		// an entry labelled by its text is the same entry spelled otherwise
		// (firstmls:neighbourhood=hamming and firstmls:neighbourhood=Hamming)
		for _, o := range out {
			if o.DisplayName() != st.DisplayName() && entryKey(o.Name, o.DisplayName()) == entryKey(st.Name, st.DisplayName()) {
				return nil, fmt.Errorf("strategy %q is listed twice, also as %q (the same options); give one a label (LABEL=NAME:...)", st.DisplayName(), o.DisplayName())
			}
		}
		out = append(out, st)
	}
	return out, nil
}

// entryOptions reads the options of a strategy entry, OPT=VALUE;OPT=VALUE (a list value
// in brackets), each value with strategy.ParseValue.
func entryOptions(list string) (map[string]any, error) {
	opts := map[string]any{}
	kvs, err := strategy.SplitList(list, ';')
	if err != nil {
		return nil, err
	}
	for _, kv := range kvs {
		k, v, err := strategy.ParseOption(kv)
		if err != nil {
			return nil, err
		}
		if _, dup := opts[k]; dup {
			return nil, fmt.Errorf("option %s given twice", k)
		}
		opts[k] = v
	}
	return opts, nil
}

// entryKey is what a label of strategy name means: for a label that is its entry's own
// text, NAME:OPT=VALUE;... (as ParseStrategies labels an entry with options and no label
// of its own), the name and the options written canonically (strategy.Canonical), one key
// however the options are spelled or ordered; any other label is its own key.
func entryKey(name, label string) string {
	head, list, ok := strings.Cut(label, ":")
	if !ok || strings.TrimSpace(head) != name {
		return label
	}
	opts, err := entryOptions(list)
	if err != nil {
		return label
	}
	canon, err := strategy.Canonical(name, opts)
	if err != nil {
		return label
	}
	data, err := json.Marshal(canon)
	if err != nil {
		return label
	}
	return "\x00" + name + ":" + string(data) // no label's text: a label has no NUL
}

// Space is a recorded space to simulate.
type Space struct {
	Name string               // how cells, tables and figures name it
	Sim  *simulator.Simulator // the recording replayed, in the benchmark's mode and fitness
}

// Config is what to run.
type Config struct {
	Strategies []Strategy // the strategies compared, each with its options
	Spaces     []Space    // the recorded spaces they run on
	Budgets    []int      // evaluations per run, one cell per budget
	Repeats    int        // runs per strategy, space and budget (seed 000: 50)
	Seed       uint64     // run i of every cell uses Seed+i, so strategies face the same seeds
	Workers    int        // parallel runs; 0 for all cores
	// Progress, when set, is called as runs finish (their evaluations counted) and after
	// each cell, one call at a time, from Run's goroutine or its workers'; it must not
	// block for long.
	Progress func(Progress)
	// ByBudget runs budget by budget (every space and strategy at the first budget, then
	// at the next) instead of space by space, so that an interrupted run holds whole
	// budgets, which is what hypertune selects by. The cells are the same either way.
	ByBudget bool
	// Finished, when set, is called with the cells so far after each cell that ran, so
	// that a caller can keep them somewhere safe (a checkpoint file) as the run goes. The
	// run only appends to them and never changes one: a caller may keep the slice, and
	// read it from another goroutine, without copying it.
	Finished func(cells []Cell)
	// Shard, when not the whole benchmark, runs only the cells of that shard (Assign); the
	// others are neither run nor returned, not even from Done.
	Shard Shard
	// Done holds cells finished before, by an earlier run of the same strategies, seed and
	// repeats (see Reusable): they are not run again, and come back in their place.
	Done []Cell
}

// Progress is how far Run is, reported after every run: the cells finished, and the
// evaluations budgeted by the runs finished (each run counts its budget, or under
// deterministic fitness the space's size where that is smaller), which tracks the work
// better than cells do, budgets ranging from 25 to 1,600.
type Progress struct {
	Cells, TotalCells int // cells finished (those taken from Done included), of all (of a shard: its own)
	// Evaluations done and to do in all: each run counted at its budget, or at the
	// space's size where that is smaller.
	Evaluations, TotalEvaluations int
	// Leader is the strategy with the highest mean fraction of optimum so far (LeaderMean),
	// over the spaces and budgets every strategy has finished, so that all are compared on
	// the same cells; "" before the first such space and budget.
	Leader     string
	LeaderMean float64
	// Pairs is how many spaces and budgets that mean is over.
	Pairs int
}

// Cell is the result of one strategy on one space at one budget.
type Cell struct {
	Strategy        string  `json:"strategy"`                 // the strategy's display name (its label, or its name)
	Space           string  `json:"space"`                    // the space's name
	Budget          int     `json:"budget"`                   // evaluations per run
	MeanFraction    float64 `json:"mean_fraction_of_optimum"` // mean over the runs of optimum / best found
	StdFraction     float64 `json:"std_fraction_of_optimum"`  // their sample standard deviation (n-1); 0 for one run
	MeanEvaluations float64 `json:"mean_evaluations"`         // evaluations the runs used, on average
	// MicrosPerEvaluation is the real time of a run divided by its evaluations: what the
	// strategy and the simulated session cost per evaluation.
	MicrosPerEvaluation float64   `json:"us_per_evaluation"`
	Fractions           []float64 `json:"fractions"` // per run, in seed order
}

// Check returns the first error of a strategy's options against a space or budget
// (strategy.Check: a parameter the space lacks, a design too large), so that it is
// reported before any cell runs rather than when the run that meets it starts.
func (cfg Config) Check() error {
	for i, sp := range cfg.Spaces {
		if sp.Sim == nil {
			return fmt.Errorf("benchmark: space %d (%q) has no simulator", i, sp.Name)
		}
	}
	for _, st := range cfg.Strategies {
		for _, sp := range cfg.Spaces {
			for _, b := range cfg.Budgets {
				if err := strategy.Validate(st.Name, st.OptionsFor(b), sp.Sim.Space(), b); err != nil {
					if st.Defaults != nil {
						// options the entry does not show: say where they come from
						return fmt.Errorf("%s on %s at budget %d: %w (%s)", st.DisplayName(), sp.Name, b, err, st.Defaults.Source(b, st.Options))
					}
					return fmt.Errorf("%s on %s at budget %d: %w", st.DisplayName(), sp.Name, b, err)
				}
			}
		}
	}
	return nil
}

// Run runs every cell. The result is deterministic for a seed, whatever the workers. When
// a run fails or ctx ends, it returns the cells finished before, with the error.
func Run(ctx context.Context, cfg Config) ([]Cell, error) {
	if len(cfg.Strategies) == 0 || len(cfg.Spaces) == 0 || len(cfg.Budgets) == 0 {
		return nil, errors.New("benchmark: give at least one strategy, space and budget")
	}
	if cfg.Repeats < 2 {
		return nil, errors.New("benchmark: at least 2 repeats are needed for the statistics")
	}
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	if !cfg.Shard.Whole() && (cfg.Shard.Index < 1 || cfg.Shard.Index > cfg.Shard.Count) {
		return nil, fmt.Errorf("benchmark: shard %s: the shard is 1 to %d", cfg.Shard, cfg.Shard.Count)
	}
	// in says whether a cell is of the shard run; every cell for the whole benchmark
	in := func(CellKey) bool { return true }
	if !cfg.Shard.Whole() {
		of := Assign(cfg, cfg.Shard.Count)
		in = func(k CellKey) bool { return of[k] == cfg.Shard.Index }
	}
	at := Progress{}
	for _, b := range cfg.Budgets {
		for _, sp := range cfg.Spaces {
			for _, st := range cfg.Strategies {
				if in(CellKey{st.DisplayName(), sp.Name, b}) {
					at.TotalCells++
					at.TotalEvaluations += cfg.Repeats * runWork(sp, b)
				}
			}
		}
	}
	type job struct {
		sp Space
		b  int
	}
	var jobs []job
	if cfg.ByBudget {
		for _, b := range cfg.Budgets {
			for _, sp := range cfg.Spaces {
				jobs = append(jobs, job{sp, b})
			}
		}
	} else {
		for _, sp := range cfg.Spaces {
			for _, b := range cfg.Budgets {
				jobs = append(jobs, job{sp, b})
			}
		}
	}
	type key struct {
		space, strategy string
		budget          int
	}
	done := make(map[key]Cell, len(cfg.Done))
	for _, c := range cfg.Done {
		done[key{c.Space, c.Strategy, c.Budget}] = c
	}
	base := 0 // evaluations budgeted by the cells finished
	var cells []Cell
	sums := make([]float64, len(cfg.Strategies)) // mean fractions summed over the jobs finished
	for _, j := range jobs {
		sp, b := j.sp, j.b
		first := len(cells) // this job's cells, one per strategy in order
		// lead updates the leader once every strategy finished this space and budget
		lead := func() {
			if len(cells)-first < len(cfg.Strategies) {
				return
			}
			for k := range cfg.Strategies {
				sums[k] += cells[first+k].MeanFraction
			}
			at.Pairs++
			best := 0
			for k := range sums {
				if sums[k] > sums[best] {
					best = k
				}
			}
			at.Leader, at.LeaderMean = cfg.Strategies[best].DisplayName(), sums[best]/float64(at.Pairs)
		}
		for _, st := range cfg.Strategies {
			if !in(CellKey{st.DisplayName(), sp.Name, b}) {
				continue // another shard's: the job's leader is then never said
			}
			if c, ok := done[key{sp.Name, st.DisplayName(), b}]; ok {
				cells = append(cells, c)
				base += cfg.Repeats * runWork(sp, b)
				at.Cells, at.Evaluations = len(cells), base
				lead()
				continue
			}
			opts := simulator.RepeatOptions{
				Strategy: st.Name, StrategyOptions: st.OptionsFor(b), Budget: b,
				Repeats: cfg.Repeats, Seed: cfg.Seed, Workers: cfg.Workers,
			}
			if cfg.Progress != nil {
				opts.Progress = func(done, _ int, _ float64) {
					if done == cfg.Repeats {
						return // the cell's end says it, with the cell counted
					}
					at.Evaluations = base + done*runWork(sp, b)
					cfg.Progress(at)
				}
			}
			sum, err := simulator.Repeat(ctx, sp.Sim, opts)
			if err != nil {
				return cells, fmt.Errorf("%s on %s at budget %d: %w", st.DisplayName(), sp.Name, b, err)
			}
			c := Cell{Strategy: st.DisplayName(), Space: sp.Name, Budget: b, MeanFraction: sum.MeanFraction,
				StdFraction: sum.StdFraction, MeanEvaluations: sum.MeanEvaluations}
			if sum.MeanEvaluations > 0 {
				c.MicrosPerEvaluation = sum.MeanWallMS * 1e3 / sum.MeanEvaluations
			}
			for _, r := range sum.Runs {
				c.Fractions = append(c.Fractions, r.Fraction)
			}
			cells = append(cells, c)
			base += cfg.Repeats * runWork(sp, b)
			at.Cells, at.Evaluations = len(cells), base
			lead()
			if cfg.Progress != nil {
				cfg.Progress(at)
			}
			if cfg.Finished != nil {
				cfg.Finished(cells)
			}
		}
	}
	return cells, nil
}

// runWork is the evaluations a run at budget b counts for in Progress: no more than it can
// use (Usable); and never past 2^32, so that the sums stay in an int whatever the budget.
func runWork(sp Space, b int) int {
	return min(Usable(sp, b), 1<<32)
}

// Usable is the most evaluations a run at budget b can use on sp: the budget, or under
// deterministic fitness the space's size where that is smaller, as a repeated
// configuration comes from the cache for free and the run ends once every one is
// evaluated. Under stochastic fitness a repeat is a new measurement that costs budget, so
// a space smaller than the budget caps nothing.
func Usable(sp Space, b int) int {
	if sp.Sim.Options().Fitness == simulator.Deterministic {
		return min(b, sp.Sim.Space().Len())
	}
	return b
}

// BudgetUse sorts the cells whose runs used less than their budget: capped, those whose
// every run evaluated the whole space where it is smaller than the budget and evaluations
// cannot be more (Usable); short, the others, where a strategy stopped early (it finished,
// or ran out of configurations it would try). A cell of a space not in spaces is short if
// its runs used less than the budget.
func BudgetUse(cells []Cell, spaces []Space) (short, capped []Cell) {
	byName := make(map[string]Space, len(spaces))
	for _, sp := range spaces {
		byName[sp.Name] = sp
	}
	for _, c := range cells {
		if c.MeanEvaluations >= float64(c.Budget) {
			continue
		}
		if sp, ok := byName[c.Space]; ok && sp.Sim != nil {
			if n := Usable(sp, c.Budget); n < c.Budget && c.MeanEvaluations == float64(n) {
				capped = append(capped, c)
				continue
			}
		}
		short = append(short, c)
	}
	return short, capped
}

// TTest is Student's two-sample independent t-test with pooled variance (scipy's
// ttest_ind default, which seed 000 uses); it returns t and the two-sided p-value. With
// no spread in either sample it gives p = 1 for equal means and p = 0 otherwise (t
// infinite, as scipy does); with fewer than three values in all (no degree of freedom)
// there is no test, and t and p are NaN, which no p < alpha takes for significant.
func TTest(a, b []float64) (t, p float64) {
	na, nb := float64(len(a)), float64(len(b))
	df := na + nb - 2
	if len(a) == 0 || len(b) == 0 || df < 1 {
		return math.NaN(), math.NaN()
	}
	ma, va := meanVar(a)
	mb, vb := meanVar(b)
	pooled := ((na-1)*va + (nb-1)*vb) / df
	se := math.Sqrt(pooled * (1/na + 1/nb))
	if se == 0 {
		if ma == mb {
			return 0, 1
		}
		return math.Copysign(math.Inf(1), ma-mb), 0
	}
	t = (ma - mb) / se
	dist := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}
	p = 2 * dist.Survival(math.Abs(t))
	return t, p
}

// meanVar is the mean of x and its sample variance (n-1; 0 for one value, which adds no
// spread to a pooled variance). Values that are all equal have a variance of exactly 0
// and their value as the mean: summed, a fraction such as 0.1 comes back a rounding off,
// which the t-test would take for a spread of 1e-17 and a difference of means many times it.
func meanVar(x []float64) (m, v float64) {
	if !slices.ContainsFunc(x, func(y float64) bool { return y != x[0] }) {
		return x[0], 0
	}
	for _, y := range x {
		m += y
	}
	m /= float64(len(x))
	for _, y := range x {
		v += (y - m) * (y - m)
	}
	return m, v / float64(len(x)-1)
}

// Score is one strategy's wins and losses in the competition.
type Score struct {
	Strategy   string `json:"strategy"`
	WinsLow    int    `json:"wins_low"`    // budgets <= the split
	LossesLow  int    `json:"losses_low"`  //
	WinsHigh   int    `json:"wins_medium"` // budgets > the split
	LossesHigh int    `json:"losses_medium"`
}

// DefaultSplit is the budget that divides low from medium budgets in seed 000's
// competition (Table IV and Fig. 1); its appendix splits at 100 and 400 as well.
const DefaultSplit = 200

// Compete runs the pairwise t-tests per space and budget: a significantly higher mean
// fraction of optimum (p < alpha) is a win for one strategy and a loss for the other,
// counted as low for budgets up to split and medium above. Scores are sorted by net wins,
// low budgets first.
func Compete(cells []Cell, alpha float64, split int) []Score {
	type key struct {
		space  string
		budget int
	}
	groups := map[key][]Cell{}
	scores := map[string]*Score{}
	for _, c := range cells {
		k := key{c.Space, c.Budget}
		groups[k] = append(groups[k], c)
		if scores[c.Strategy] == nil {
			scores[c.Strategy] = &Score{Strategy: c.Strategy}
		}
	}
	for k, g := range groups {
		for i := range g {
			for j := i + 1; j < len(g); j++ {
				// NaN (no test) is no significance, as in the heat maps
				_, p := TTest(g[i].Fractions, g[j].Fractions)
				if !(p < alpha) || g[i].MeanFraction == g[j].MeanFraction {
					continue
				}
				win, lose := scores[g[i].Strategy], scores[g[j].Strategy]
				if g[j].MeanFraction > g[i].MeanFraction {
					win, lose = lose, win
				}
				if k.budget <= split {
					win.WinsLow++
					lose.LossesLow++
				} else {
					win.WinsHigh++
					lose.LossesHigh++
				}
			}
		}
	}
	out := make([]Score, 0, len(scores))
	for _, s := range scores {
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool {
		ni, nj := out[i].WinsLow-out[i].LossesLow, out[j].WinsLow-out[j].LossesLow
		if ni != nj {
			return ni > nj
		}
		hi, hj := out[i].WinsHigh-out[i].LossesHigh, out[j].WinsHigh-out[j].LossesHigh
		if hi != hj {
			return hi > hj
		}
		return out[i].Strategy < out[j].Strategy
	})
	return out
}
