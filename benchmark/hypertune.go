package benchmark

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ktune/ktune/strategy"
)

// Hyperparameter tuning of a strategy, seed 000 section VI-A: every combination of the
// given option values runs R times on every training space at every budget, and per budget
// one setting is selected that performs, statistically, close to the best on all spaces.

// GridParam is one option of a grid and the values to try.
type GridParam struct {
	Name   string   `json:"name"`
	Values []string `json:"values"`
}

// Grid is the set of option values a hyperparameter search combines.
type Grid []GridParam

// ParseGrid reads "OPT=V1,V2;OPT=V1,V2": options separated by semicolons, each with its
// comma-separated values, e.g. "neighbourhood=Hamming,adjacent;restart=true,false". A
// list value is written in brackets, whose commas separate nothing: "order=[0,1],[1,0]".
func ParseGrid(s string) (Grid, error) {
	var g Grid
	seen := map[string]bool{}
	parts, err := strategy.SplitList(s, ';')
	if err != nil {
		return nil, fmt.Errorf("grid %w", err)
	}
	for _, part := range parts {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, vals, ok := strings.Cut(part, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return nil, fmt.Errorf("grid %q: %q is not OPT=V1,V2,...", s, part)
		}
		if seen[name] {
			return nil, fmt.Errorf("grid %q: option %s given twice", s, name)
		}
		seen[name] = true
		p := GridParam{Name: name}
		values, err := strategy.SplitList(vals, ',')
		if err != nil {
			return nil, fmt.Errorf("grid %q: option %s: %w", s, name, err)
		}
		for _, v := range values {
			v = strings.TrimSpace(v)
			if v == "" {
				return nil, fmt.Errorf("grid %q: option %s has an empty value", s, name)
			}
			// the same value however it is spelled: 1 and 1.0, Hamming and hamming (choices
			// match in any case), false and 0 (booleans): a setting run twice costs its
			// runs twice and ties with itself, so no k could choose it alone
			if i := slices.IndexFunc(p.Values, func(w string) bool { return sameOptionValue(v, w) }); i >= 0 {
				if p.Values[i] == v {
					return nil, fmt.Errorf("grid %q: option %s lists %s twice", s, name, v)
				}
				return nil, fmt.Errorf("grid %q: option %s lists %s and %s, the same value", s, name, p.Values[i], v)
			}
			p.Values = append(p.Values, v)
		}
		g = append(g, p)
	}
	if len(g) == 0 {
		return nil, fmt.Errorf("grid %q names no option", s)
	}
	return g, nil
}

// sameOptionValue reports whether two option values as written are one value: equal
// numbers, equal booleans as a strategy reads them (strategy.Options.Bool:
// strconv.ParseBool, so false, 0, f and F are one value, and true, 1, t and T another), or
// equal text in any case. Two numbers are compared as numbers only: 0 and 1 differ.
func sameOptionValue(a, b string) bool {
	x, errA := strconv.ParseFloat(a, 64)
	y, errB := strconv.ParseFloat(b, 64)
	if errA == nil && errB == nil {
		return x == y
	}
	p, errA := strconv.ParseBool(a)
	q, errB := strconv.ParseBool(b)
	if errA == nil && errB == nil {
		return p == q
	}
	return strings.EqualFold(a, b)
}

// String writes the grid as ParseGrid reads it.
func (g Grid) String() string {
	parts := make([]string, len(g))
	for i, p := range g {
		parts[i] = p.Name + "=" + strings.Join(p.Values, ",")
	}
	return strings.Join(parts, ";")
}

// Settings returns every combination of the grid's values, the first option varying
// slowest. Values stay strings as written, which label the settings; the harness runs
// them read with strategy.ParseValue, as every command reads an option value.
func (g Grid) Settings() []map[string]any {
	out := []map[string]any{{}}
	for _, p := range g {
		var next []map[string]any
		for _, s := range out {
			for _, v := range p.Values {
				m := make(map[string]any, len(s)+1)
				for k, x := range s {
					m[k] = x
				}
				m[p.Name] = v
				next = append(next, m)
			}
		}
		out = next
	}
	return out
}

// settingLabel names a setting by its values in grid order: "OPT=V;OPT=V".
func (g Grid) settingLabel(s map[string]any) string {
	parts := make([]string, len(g))
	for i, p := range g {
		parts[i] = fmt.Sprintf("%s=%v", p.Name, s[p.Name])
	}
	return strings.Join(parts, ";")
}

// defaultGrids are the grids of `ktune hypertune` without --grid. For the strategies of
// seed 000's Table III they span the values the table chose across its budget columns
// (which is all it shows: not the values it chose between), some of them where it has
// many, a middle value where it has only the ends, and some values it does not show (the
// adjacent neighbourhood, Nelder-Mead, irace's firstTest 5); for the strategies and
// options it does not cover (bayes, firefly, the greedy ones, smac's interleave, irace's
// testType), the options that matter most, around ktune's defaults.
var defaultGrids = map[string]string{
	"basinhopping":  "method=powell,neldermead,cobyla;temperature=0.1,1.0",
	"dualannealing": "method=powell,neldermead,cobyla",
	"gls":           "popsize=2,4,16,80;crossover=2point,uniform;selection=RTS,tournament;hill_climber=first,best",
	"greedyils":     "neighbourhood=Hamming,adjacent;no_improvement=10,50;random_walk=0.1,0.3,0.5",
	"greedymls":     "neighbourhood=Hamming,adjacent;restart=true,false",
	"smac":          "acquisition=ei,lcb,logei;interleave=0,0.1,0.3",
	"bayes":         "acquisition=ei,lcb;local=0.4,0.6,0.8;min_success_local=0.3,0.5",
	"firstmls":      "neighbourhood=Hamming,adjacent;restart=true,false",
	"bestmls":       "neighbourhood=Hamming,adjacent",
	"firstils":      "perturbation_size=0.05,0.3,1.0;exit_after_no_improve=10,25;neighbourhood=Hamming,adjacent;restart=true,false",
	"bestils":       "perturbation_size=0.05,0.3,1.0;exit_after_no_improve=10,25;neighbourhood=Hamming,adjacent",
	"firsttabu":     "tabu_size=4,50,2000;neighbourhood=Hamming,adjacent",
	"besttabu":      "tabu_size=4,50,2000;neighbourhood=Hamming,adjacent",
	"annealing":     "explore=0.1,0.7,1.0;hill_climber=none,first;neighbourhood=Hamming,adjacent",
	"genetic":       "popsize=10,40,128;mutation=0.02,0.05;crossover=1point,2point,uniform;tournament=4,8",
	"pso":           "popsize=10,20,40,80,160",
	"diffevo":       "method=best1bin,best2bin,best1exp;popsize=1,4,16,32;CR=0.5,0.7",
	"firefly":       "popsize=10,20,40;alpha=0.1,0.2,0.5",
	"irace":         "firstTest=2,5;nbConfigurations=0,8,32;testType=F-test,t-test",
}

// DefaultGrid returns the built-in grid for a strategy, and false when it has none.
func DefaultGrid(name string) (Grid, bool) {
	s, ok := defaultGrids[name]
	if !ok {
		return nil, false
	}
	g, err := ParseGrid(s)
	if err != nil {
		panic("benchmark: default grid of " + name + ": " + err.Error())
	}
	return g, true
}

// DefaultGridNames lists the strategies with a built-in grid.
func DefaultGridNames() []string {
	var out []string
	for _, n := range strategy.Names() {
		if _, ok := defaultGrids[n]; ok {
			out = append(out, n)
		}
	}
	return out
}

// HypertuneConfig is what `ktune hypertune` runs.
type HypertuneConfig struct {
	Strategy string         // the strategy whose options are tuned
	Grid     Grid           // the settings tried: every combination of its option values
	Spaces   []Space        // training spaces
	Budgets  []int          // evaluations per run; a setting is chosen for each budget
	Repeats  int            // runs per setting, space and budget (seed 000: 20)
	Seed     uint64         // run i of every cell uses Seed+i: all settings face the same seeds
	Workers  int            // parallel runs; 0 for all cores
	Progress func(Progress) // as Config.Progress, each setting a strategy
	Done     []Cell         // cells of an earlier run to take instead of running them (ReusableTuning)
	// Finished, when set, is called after each cell that ran with the result so far
	// (settings, spaces and cells, no choices yet), for a checkpoint file; its cells are
	// never changed afterwards (Config.Finished), so it may be kept without copying.
	Finished func(partial *HypertuneResult)
}

// Setting is one combination of the grid's values.
type Setting struct {
	Label   string         `json:"label"`
	Options map[string]any `json:"options"`
}

// Choice is the setting selected for one budget.
type Choice struct {
	Budget  int            `json:"budget"`
	Setting int            `json:"setting"` // index into HypertuneResult.Settings
	Label   string         `json:"label"`
	Options map[string]any `json:"options"`
	// K is the k at which exactly this setting was left in the intersection; nil when no k
	// left exactly one and the choice fell back to the highest mean over the spaces.
	K *float64 `json:"k"`
	// Tied says no k separated it from others that tie exactly; the mean over spaces did.
	Tied bool `json:"tied,omitempty"`
	// EqualMeans says the mean over spaces did not separate it either: the first of the
	// settings with its mean was taken.
	EqualMeans bool `json:"equal_means,omitempty"`
	// MeanFraction is the chosen setting's mean fraction of optimum over the spaces.
	MeanFraction float64 `json:"mean_fraction_of_optimum"`
	// Needed is, per setting, the smallest k at which it is acceptable on every space:
	// max over spaces of (best mean - its mean) / std of the best; nil for never.
	Needed []*float64 `json:"k_needed"`
}

// HypertuneResult is the outcome of Hypertune: every cell and the choice per budget.
type HypertuneResult struct {
	Strategy string   `json:"strategy"`
	Grid     Grid     `json:"grid"`
	Spaces   []string `json:"spaces"`
	// SpaceInfo tells the recordings apart from others of the same names, for --resume.
	SpaceInfo []SpaceInfo `json:"space_info"`
	Repeats   int         `json:"repeats"`
	Seed      uint64      `json:"seed"`
	// Budgets are the budgets it runs, so that --resume can tell a cell of another budget
	// (an edit) from one of this run's; absent from files of earlier versions.
	Budgets  []int     `json:"budgets,omitempty"`
	Settings []Setting `json:"settings"`
	Cells    []Cell    `json:"cells"` // Cell.Strategy is the setting's label
	Choices  []Choice  `json:"choices"`
	// Unfinished lists the budgets an interrupted run did not finish: they have cells of
	// some spaces, or none, and no choice.
	Unfinished []int `json:"unfinished_budgets,omitempty"`
}

// settings returns the grid's settings as strategies labelled by their values.
func (cfg HypertuneConfig) settings() ([]Strategy, error) {
	var out []Strategy
	for _, text := range cfg.Grid.Settings() {
		label := cfg.Grid.settingLabel(text)
		opts := make(map[string]any, len(text))
		for k, v := range text {
			opts[k] = strategy.ParseValue(v.(string)) // as every command reads a value
		}
		if _, err := strategy.New(cfg.Strategy, opts); err != nil {
			return nil, fmt.Errorf("hypertune: setting %s: %w", label, err)
		}
		out = append(out, Strategy{Name: cfg.Strategy, Label: label, Options: opts})
	}
	return out, nil
}

// Check returns the first error of the grid's settings: options the strategy refuses, or
// that do not fit a space or budget (Config.Check), before any cell runs.
func (cfg HypertuneConfig) Check() error {
	if len(cfg.Grid) == 0 {
		return errors.New("hypertune: empty grid")
	}
	strategies, err := cfg.settings()
	if err != nil {
		return err
	}
	if err := (Config{Strategies: strategies, Spaces: cfg.Spaces, Budgets: cfg.Budgets}).Check(); err != nil {
		return fmt.Errorf("hypertune: setting %w", err)
	}
	return nil
}

// Hypertune runs every setting of the grid on every space at every budget, budget by
// budget, and selects one setting per budget with Select. When ctx ends first, it returns
// the choices of the budgets finished and the cells run, with ctx's error.
func Hypertune(ctx context.Context, cfg HypertuneConfig) (*HypertuneResult, error) {
	if len(cfg.Grid) == 0 {
		return nil, errors.New("hypertune: empty grid")
	}
	res := &HypertuneResult{Strategy: cfg.Strategy, Grid: cfg.Grid, Repeats: cfg.Repeats, Seed: cfg.Seed, Budgets: slices.Clone(cfg.Budgets)}
	strategies, err := cfg.settings()
	if err != nil {
		return nil, err
	}
	for _, st := range strategies {
		res.Settings = append(res.Settings, Setting{Label: st.Label, Options: st.Options})
	}
	for _, sp := range cfg.Spaces {
		res.Spaces = append(res.Spaces, sp.Name)
	}
	res.SpaceInfo = describeSpaces(cfg.Spaces)
	var finished func([]Cell)
	if cfg.Finished != nil {
		finished = func(cells []Cell) {
			partial := *res
			partial.Cells = cells
			cfg.Finished(&partial)
		}
	}
	cells, err := Run(ctx, Config{Strategies: strategies, Spaces: cfg.Spaces, Budgets: cfg.Budgets,
		Repeats: cfg.Repeats, Seed: cfg.Seed, Workers: cfg.Workers, Progress: cfg.Progress, ByBudget: true, Done: cfg.Done,
		Finished: finished})
	if err != nil && ctx.Err() == nil {
		return nil, err
	}
	// Interrupted, the budgets run to the end (Run goes budget by budget) still get their
	// choice; the result comes back with the error, before the first cell too (no
	// choice, every budget unfinished), so that a caller can say what was done.
	interrupted := err
	res.Cells = cells
	type key struct {
		setting, space string
		budget         int
	}
	byKey := make(map[key]Cell, len(cells))
	for _, c := range cells {
		byKey[key{c.Strategy, c.Space, c.Budget}] = c
	}
	for _, b := range cfg.Budgets {
		means := make([][]float64, len(res.Settings))
		stds := make([][]float64, len(res.Settings))
		whole := true
		for i, s := range res.Settings {
			for _, sp := range res.Spaces {
				c, ok := byKey[key{s.Label, sp, b}]
				whole = whole && ok
				means[i] = append(means[i], c.MeanFraction)
				stds[i] = append(stds[i], c.StdFraction)
			}
		}
		if !whole {
			res.Unfinished = append(res.Unfinished, b)
			continue
		}
		sel := Select(means, stds)
		ch := Choice{Budget: b, Setting: sel.Index, Label: res.Settings[sel.Index].Label,
			Options: res.Settings[sel.Index].Options, MeanFraction: meanOf(means[sel.Index]), Tied: sel.Tied, EqualMeans: sel.EqualMeans}
		if !math.IsInf(sel.K, 1) {
			k := sel.K
			ch.K = &k
		}
		for _, k := range NeededK(means, stds) {
			if math.IsInf(k, 1) {
				ch.Needed = append(ch.Needed, nil)
			} else {
				ch.Needed = append(ch.Needed, &k)
			}
		}
		res.Choices = append(res.Choices, ch)
	}
	return res, interrupted
}

// Defaults returns the choices as a defaults file, their options in the strategy's own
// spelling (strategy.Canonical: neighbourhood=hamming in the grid is written Hamming,
// candidates=1e3 is 1000), as runs store them; the grid is kept as it was given.
func (r *HypertuneResult) Defaults() *Defaults {
	d := &Defaults{Strategy: r.Strategy, Repeats: r.Repeats, TrainingSpaces: r.Spaces, Grid: r.Grid.String()}
	for _, c := range r.Choices {
		opts := c.Options
		if canon, err := strategy.Canonical(r.Strategy, opts); err == nil {
			opts = canon
		}
		d.Budgets = append(d.Budgets, BudgetDefaults{Budget: c.Budget, Options: opts})
	}
	return d
}

func meanOf(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// Selection is what Select chose.
type Selection struct {
	Index int     // the setting
	K     float64 // the k that left it alone in the intersection; +Inf when none did
	Tied  bool    // no k separated it from others: an exact tie broken by the mean over spaces
	// EqualMeans: a setting it tied with (or, without any k, another setting) has the
	// same mean over spaces too; the first of them was taken
	EqualMeans bool
}

// Acceptable returns the settings acceptable on every space at k (seed 000 VI-A steps 1
// and 2): on space s, the settings whose mean fraction of optimum (higher is better) is at
// least best_s - k * sigma_s, where best_s is the highest mean on s and sigma_s the standard
// deviation of that best setting; then the intersection over the spaces. means[i][s] and
// stds[i][s] are setting i's mean and standard deviation on space s.
func Acceptable(means, stds [][]float64, k float64) []int {
	if len(means) == 0 {
		return nil
	}
	best := bestPerSpace(means)
	var out []int
	for i, row := range means {
		ok := true
		for s, m := range row {
			b := best[s]
			if m < means[b][s]-k*stds[b][s] {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, i)
		}
	}
	return out
}

// bestPerSpace returns, per space, the setting with the highest mean (the first of equals).
func bestPerSpace(means [][]float64) []int {
	best := make([]int, len(means[0]))
	for i, row := range means {
		for s, m := range row {
			if m > means[best[s]][s] {
				best[s] = i
			}
		}
	}
	return best
}

// NeededK returns, per setting, the smallest k at which Acceptable includes it: the largest
// over spaces of (best mean - its mean) / std of the best (0 where it is the best, +Inf
// where it is worse than a best whose std is 0).
func NeededK(means, stds [][]float64) []float64 {
	if len(means) == 0 {
		return nil
	}
	best := bestPerSpace(means)
	out := make([]float64, len(means))
	for i, row := range means {
		for s, m := range row {
			gap := means[best[s]][s] - m
			sd := stds[best[s]][s]
			switch {
			case gap <= 0:
			case sd > 0:
				out[i] = max(out[i], gap/sd)
			default:
				out[i] = math.Inf(1)
			}
		}
	}
	return out
}

// Select is seed 000's selection (section VI-A, step 3): starting from k = 1, k is
// bisected (doubled while no upper bound is known), decreasing it when the intersection
// Acceptable(k) holds more than one setting and increasing it when it is empty, until
// exactly one setting remains. When no k separates the remaining settings (they tie
// exactly) the one with the highest mean fraction over all spaces is taken, the first of
// equals; when no k leaves any setting (a best with standard deviation 0 on one space,
// beaten elsewhere) the choice falls back to the highest mean over spaces among all.
func Select(means, stds [][]float64) Selection {
	const maxK = 1e9
	lo, hi, k := 0.0, math.Inf(1), 1.0
	for range 400 {
		acc := Acceptable(means, stds, k)
		switch {
		case len(acc) == 1:
			return Selection{Index: acc[0], K: k}
		case len(acc) > 1:
			hi = k
		default:
			lo = k
		}
		if math.IsInf(hi, 1) {
			if k >= maxK {
				break
			}
			k *= 2
			continue
		}
		if hi-lo <= 1e-12*max(hi, 1) {
			break
		}
		k = (lo + hi) / 2
	}
	candidates := Acceptable(means, stds, hi)
	sel := Selection{K: hi, Tied: true}
	if hi < 1e-9 {
		sel.K = 0 // the bisection's floor: the settings need no k at all
	}
	if math.IsInf(hi, 1) || len(candidates) == 0 {
		// no k leaves any setting: not a tie, a fallback over every setting
		candidates = make([]int, len(means))
		for i := range candidates {
			candidates[i] = i
		}
		sel.K, sel.Tied = math.Inf(1), false
	}
	sel.Index = candidates[0]
	for _, i := range candidates[1:] {
		if meanOf(means[i]) > meanOf(means[sel.Index]) {
			sel.Index = i
		}
	}
	for _, i := range candidates {
		if i != sel.Index && meanOf(means[i]) == meanOf(means[sel.Index]) {
			sel.EqualMeans = true
		}
	}
	return sel
}

// ReusableTuning returns the cells of an earlier hypertune (prev, run in prevMode with
// prevFitness) that cfg, run in mode with fitness, would compute again: of a setting (the
// same label, or options that mean the same however the grid spelled them: see
// sameSettings), space and budget cfg runs; they come back under cfg's names of their
// settings and spaces. It is an error for the two to differ in mode, fitness, strategy,
// seed or repeats; skipped counts the cells left out.
func ReusableTuning(cfg HypertuneConfig, mode, fitness string, prev *HypertuneResult, prevMode, prevFitness string) (reused []Cell, skipped int, err error) {
	switch {
	case prevMode != mode || prevFitness != fitness:
		return nil, 0, fmt.Errorf("it ran in %s mode with %s fitness, this run in %s mode with %s fitness", prevMode, prevFitness, mode, fitness)
	case prev.Strategy != cfg.Strategy:
		return nil, 0, fmt.Errorf("it tuned %s, this run %s", prev.Strategy, cfg.Strategy)
	case prev.Seed != cfg.Seed:
		return nil, 0, fmt.Errorf("it ran with seed %d, this run with seed %d", prev.Seed, cfg.Seed)
	case prev.Repeats != cfg.Repeats:
		return nil, 0, fmt.Errorf("it ran %d repeats, this run %d", prev.Repeats, cfg.Repeats)
	}
	labels := sameSettings(cfg, prev.Settings)
	spaces := sameSpaces(cfg.Spaces, prev.SpaceInfo)
	for _, c := range prev.Cells {
		label, known := labels[c.Strategy]
		space, same := spaces[c.Space]
		if !known || !same || !slices.Contains(cfg.Budgets, c.Budget) || len(c.Fractions) != cfg.Repeats {
			skipped++
			continue
		}
		c.Space, c.Strategy = space, label
		reused = append(reused, c)
	}
	return reused, skipped, nil
}

// sameSettings maps the labels of an earlier hypertune's settings (before) to those of
// cfg's grid that are the same setting: the same label, or options that mean the same to
// the strategy however they are spelled (strategy.Canonical: neighbourhood=hamming is
// neighbourhood=Hamming, random_walk=0.10 is 0.1, restart=1 is true), where exactly one
// setting of each side has them. A setting of before that matches none is left out.
func sameSettings(cfg HypertuneConfig, before []Setting) map[string]string {
	out := map[string]string{}
	for _, opts := range cfg.Grid.Settings() {
		l := cfg.Grid.settingLabel(opts)
		out[l] = l
	}
	key := func(label string, opts map[string]any) string {
		canon, err := strategy.Canonical(cfg.Strategy, opts)
		if err != nil {
			return "\x00" + label // a setting this strategy refuses means only its label
		}
		data, err := json.Marshal(canon)
		if err != nil {
			return "\x00" + label
		}
		return string(data)
	}
	byKey := map[string][]string{} // cfg's labels by what they mean
	if settings, err := cfg.settings(); err == nil {
		for _, st := range settings {
			k := key(st.Label, st.Options)
			byKey[k] = append(byKey[k], st.Label)
		}
	}
	earlier := map[string]int{}
	for _, s := range before {
		earlier[key(s.Label, s.Options)]++
	}
	for _, s := range before {
		if _, same := out[s.Label]; same {
			continue
		}
		k := key(s.Label, s.Options)
		if labels := byKey[k]; len(labels) == 1 && earlier[k] == 1 {
			out[s.Label] = labels[0]
		}
	}
	return out
}

// CheckTuning checks the cells of a file of 'ktune hypertune' (its --json output or
// --checkpoint file) against what the file says of its run, and that description itself,
// so that an edited or damaged file is refused rather than its cells of a setting, space or
// budget it does not describe counted as of another grid and run again in silence: the
// settings those of its grid, in its order; its spaces named, each once, and described
// (space_info) in the same order; its budgets of 1 or more, each once, with its choices
// and unfinished budgets among them; and every cell of a listed setting, space and budget
// (a *CellError). What the file does not have (files of earlier versions lack the budgets)
// is not checked.
func CheckTuning(r *HypertuneResult) error {
	labels := map[string]bool{} // every hypertune file lists its settings
	if len(r.Grid) > 0 {
		want := r.Grid.Settings()
		if len(r.Settings) != len(want) {
			return fmt.Errorf("settings: %d of them, but its grid %s makes %d", len(r.Settings), r.Grid, len(want))
		}
		for i, s := range want {
			if l := r.Grid.settingLabel(s); r.Settings[i].Label != l {
				return fmt.Errorf("settings: setting %d of %d is %s, but its grid %s makes %s there", i+1, len(r.Settings), r.Settings[i].Label, r.Grid, l)
			}
		}
	}
	for i, s := range r.Settings {
		if labels[s.Label] {
			return fmt.Errorf("settings: setting %d of %d, %s, is listed twice", i+1, len(r.Settings), s.Label)
		}
		labels[s.Label] = true
	}
	spaces := listed[string](r.Spaces != nil)
	for i, name := range r.Spaces {
		switch {
		case name == "":
			return fmt.Errorf("spaces: space %d of %d has no name", i+1, len(r.Spaces))
		case spaces[name]:
			return fmt.Errorf("spaces: %s is listed twice", name)
		case len(r.SpaceInfo) > 0 && (i >= len(r.SpaceInfo) || r.SpaceInfo[i].Name != name):
			other := "nothing"
			if i < len(r.SpaceInfo) {
				other = r.SpaceInfo[i].Name
			}
			return fmt.Errorf("space_info does not describe spaces: space %d of %d is %s in spaces, %s in space_info", i+1, len(r.Spaces), name, other)
		}
		spaces[name] = true
	}
	if len(r.SpaceInfo) > len(r.Spaces) {
		return fmt.Errorf("space_info describes %d spaces, spaces lists %d", len(r.SpaceInfo), len(r.Spaces))
	}
	budgets, err := listedBudgets(r.Budgets)
	if err != nil {
		return err
	}
	if budgets != nil {
		for _, c := range r.Choices {
			if !budgets[c.Budget] {
				return fmt.Errorf("choices: a choice at budget %d, which is not among the file's budgets (%s)", c.Budget, intList(r.Budgets))
			}
		}
		for _, b := range r.Unfinished {
			if !budgets[b] {
				return fmt.Errorf("unfinished_budgets: budget %d is not among the file's budgets (%s)", b, intList(r.Budgets))
			}
		}
	}
	return checkCellsListed(r.Cells, labels, spaces, budgets, "setting", "settings")
}
