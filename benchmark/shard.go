package benchmark

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Shard is part Index of Count of a benchmark's cells (Index from 1), so that one
// benchmark runs as Count processes, on one machine or on the nodes of a cluster (a Slurm
// array job), whose outputs are merged afterwards. A cell's result does not depend on the
// shard that runs it: run i of every cell uses seed Seed+i whatever else the benchmark
// runs. The zero Shard is the whole benchmark.
type Shard struct {
	Index int `json:"index"` // from 1
	Count int `json:"of"`
}

// ParseShard reads K/N, 1 <= K <= N.
func ParseShard(s string) (Shard, error) {
	k, n, ok := strings.Cut(strings.TrimSpace(s), "/")
	index, errK := strconv.Atoi(strings.TrimSpace(k))
	count, errN := strconv.Atoi(strings.TrimSpace(n))
	switch {
	case !ok || errK != nil || errN != nil:
		return Shard{}, fmt.Errorf("%q: want K/N, shard K of N (1/4 ... 4/4)", s)
	case count < 1:
		return Shard{}, fmt.Errorf("%q: the number of shards is 1 or more", s)
	case index < 1 || index > count:
		return Shard{}, fmt.Errorf("%q: the shard is 1 to %d", s, count)
	}
	return Shard{Index: index, Count: count}, nil
}

// String writes the shard as K/N.
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Whole reports whether s is every cell: the zero Shard, or 1/1.
func (s Shard) Whole() bool { return s.Count <= 1 }

// CellKey names a cell: a strategy (its display name) on a space at a budget.
type CellKey struct {
	Strategy, Space string
	Budget          int
}

// Key is the cell's name.
func (c Cell) Key() CellKey { return CellKey{c.Strategy, c.Space, c.Budget} }

// String writes the key as "STRATEGY on SPACE at budget B", as errors name cells.
func (k CellKey) String() string {
	return fmt.Sprintf("%s on %s at budget %d", k.Strategy, k.Space, k.Budget)
}

// Cells lists the keys of every cell of cfg, space by space, budget by budget and
// strategy by strategy, as Run runs them.
func (cfg Config) Cells() []CellKey {
	out := make([]CellKey, 0, len(cfg.Spaces)*len(cfg.Budgets)*len(cfg.Strategies))
	for _, sp := range cfg.Spaces {
		for _, b := range cfg.Budgets {
			for _, st := range cfg.Strategies {
				out = append(out, CellKey{st.DisplayName(), sp.Name, b})
			}
		}
	}
	return out
}

// costPerEvaluation is a strategy's real time per evaluation in simulation relative to
// random sampling's (about 0.7 µs), rounded from the strategy speed table of
// BENCHMARKS.md (the models' at budget 400); a strategy not listed counts 1. The models'
// cost grows with the evaluations, which CellCost adds.
var costPerEvaluation = map[string]float64{
	"genetic": 3, "diffevo": 3, "irace": 3, "mpga": 3, "pso": 4, "firefly": 5,
	"dualannealing": 5, "basinhopping": 13,
	"smac": 800, "bayes": 1500, "auto": 1500, // auto runs bayes
}

// modelled are the strategies that fit a surrogate model to every evaluation so far, so
// that an evaluation costs more the more there are.
var modelled = map[string]bool{"smac": true, "bayes": true, "auto": true}

// CellCost estimates the real time of a cell, in units of a random sampling evaluation:
// its repeats times the evaluations a run can use (Usable: the budget, or a smaller space
// under deterministic fitness) times the strategy's cost per evaluation; a strategy with a
// surrogate model costs in proportion to the evaluations so far too (its factor is at
// 400 evaluations, and scales with them, from 40 up). An estimate to balance shards with, not a measurement: the
// cost of a local search on another space, say, differs by a small factor.
func CellCost(st Strategy, sp Space, budget, repeats int) float64 {
	n := float64(Usable(sp, budget))
	f, ok := costPerEvaluation[st.Name]
	if !ok {
		f = 1
	}
	if modelled[st.Name] {
		f *= math.Max(n, 40) / 400 // the table's figure is of budget 400
	}
	return float64(max(repeats, 1)) * n * f
}

// Assign gives every cell of cfg (Cells) to one of n shards, 1 to n, balanced by their
// estimated cost (CellCost): the cells, the costliest first (equal costs in Cells' order),
// each go to the shard with the least cost so far (the lowest of equals). It depends on
// nothing but cfg's strategies, spaces (their names, sizes and fitness), budgets and
// repeats and on n, so every process of a sharded benchmark, given the same command,
// computes the same assignment, and the n shards partition the cells exactly; with more
// shards than cells, some shards have none.
func Assign(cfg Config, n int) map[CellKey]int {
	type job struct {
		key  CellKey
		cost float64
	}
	var jobs []job
	for _, sp := range cfg.Spaces {
		for _, b := range cfg.Budgets {
			for _, st := range cfg.Strategies {
				jobs = append(jobs, job{CellKey{st.DisplayName(), sp.Name, b}, CellCost(st, sp, b, cfg.Repeats)})
			}
		}
	}
	slices.SortStableFunc(jobs, func(a, b job) int { return cmp.Compare(b.cost, a.cost) })
	out := make(map[CellKey]int, len(jobs))
	if n < 1 {
		return out
	}
	load := make([]float64, n)
	for _, j := range jobs {
		least := 0
		for s := range load {
			if load[s] < load[least] {
				least = s
			}
		}
		load[least] += j.cost
		out[j.key] = least + 1
	}
	return out
}

// ShardCells returns the keys of the cells of shard s of cfg, in Cells' order; every cell
// for the whole benchmark.
func (cfg Config) ShardCells(s Shard) []CellKey {
	all := cfg.Cells()
	if s.Whole() {
		return all
	}
	of := Assign(cfg, s.Count)
	var out []CellKey
	for _, k := range all {
		if of[k] == s.Index {
			out = append(out, k)
		}
	}
	return out
}

// Part is a file of cells of one benchmark to merge with others: the output or
// checkpoint of a shard, or of any earlier run of the same benchmark.
type Part struct {
	Path  string // as errors name it
	Shard Shard  // the shard it says it is; zero when it says none
	Cells []Cell // its cells, under the names of the benchmark merged into (Reusable)
}

// OverlapError is a cell that two parts both hold with other results: one of them is not
// of this benchmark's computation (edited, or written by a version of ktune that computes
// otherwise), so neither is taken.
type OverlapError struct {
	Cell        CellKey
	First, Then string // the parts' paths
}

// Error names the cell and both parts.
func (e *OverlapError) Error() string {
	return fmt.Sprintf("%s and %s both hold %s, with other results: a cell of one benchmark is one computation, "+
		"so one of them is not of this benchmark (edited, or from another version of ktune); leave one out", e.First, e.Then, e.Cell)
}

// Merge joins the cells of parts: a cell that several hold is taken once, from the first,
// when its results are the same in all (the fractions, their mean and standard deviation,
// the evaluations: a checkpoint beside the output of the same shard, or two runs of one
// cell), and is an *OverlapError otherwise. The real time per evaluation, a measurement,
// may differ.
func Merge(parts []Part) ([]Cell, error) {
	type held struct {
		cell Cell
		path string
	}
	seen := map[CellKey]held{}
	var out []Cell
	for _, p := range parts {
		for _, c := range p.Cells {
			h, dup := seen[c.Key()]
			if !dup {
				seen[c.Key()] = held{c, p.Path}
				out = append(out, c)
				continue
			}
			if !sameResults(h.cell, c) {
				return nil, &OverlapError{Cell: c.Key(), First: h.path, Then: p.Path}
			}
		}
	}
	return out, nil
}

// sameResults reports whether two cells hold the same results, bit for bit, but for the
// real time they took.
func sameResults(a, b Cell) bool {
	return a.MeanFraction == b.MeanFraction && a.StdFraction == b.StdFraction &&
		a.MeanEvaluations == b.MeanEvaluations && slices.Equal(a.Fractions, b.Fractions)
}

// Missing returns the keys of the cells of cfg that cells lack, in Cells' order.
func (cfg Config) Missing(cells []Cell) []CellKey {
	have := make(map[CellKey]bool, len(cells))
	for _, c := range cells {
		have[c.Key()] = true
	}
	var out []CellKey
	for _, k := range cfg.Cells() {
		if !have[k] {
			out = append(out, k)
		}
	}
	return out
}

// SameBenchmark says how prev, the description of a part to merge, differs from cfg's
// benchmark beyond what Reusable checks (mode, fitness, seed, repeats): other spaces (by
// name, size and optimum, see sameSpaces), strategies (labels, names and options at each
// budget, however spelled) or budgets; nil when it describes the same. A part of another
// benchmark whose cells happen to be of this one is still refused by a merge, which is
// to give this benchmark's results and nothing else: a wrong file among many is a mistake
// to say.
func SameBenchmark(cfg Config, prev RunInfo) error {
	now := describeSpaces(cfg.Spaces)
	matched := sameSpaces(cfg.Spaces, prev.Spaces)
	var extra, lacking []string
	covered := map[string]bool{}
	for _, s := range prev.Spaces {
		if m, ok := matched[s.Name]; ok {
			covered[m] = true
		} else {
			extra = append(extra, s.Name)
		}
	}
	for _, s := range now {
		if !covered[s.Name] {
			lacking = append(lacking, s.Name)
		}
	}
	if len(extra) > 0 || len(lacking) > 0 {
		what := ""
		if len(extra) > 0 {
			what = "it has spaces this benchmark lacks or holds as other recordings (" + strings.Join(extra, ", ") + ")"
		}
		if len(lacking) > 0 {
			if what != "" {
				what += " and "
			}
			what += "it lacks spaces of this benchmark (" + strings.Join(lacking, ", ") + ")"
		}
		return fmt.Errorf("another list of spaces: %s", what)
	}
	if prev.Budgets != nil {
		a, b := slices.Sorted(slices.Values(prev.Budgets)), slices.Sorted(slices.Values(cfg.Budgets))
		if !slices.Equal(a, b) {
			return fmt.Errorf("other budgets: %s there, %s here", intList(prev.Budgets), intList(cfg.Budgets))
		}
	}
	labels := sameLabels(infoOf(cfg.Strategies), prev.Strategies)
	byLabel := map[string]Strategy{}
	for _, st := range cfg.Strategies {
		byLabel[st.DisplayName()] = st
	}
	found := map[string]bool{}
	for _, si := range prev.Strategies {
		st, ok := byLabel[labels[si.Label]]
		if !ok || st.Name != si.Name {
			return fmt.Errorf("another list of strategies: %s is not among this benchmark's", si.Label)
		}
		for _, b := range cfg.Budgets {
			if !sameOptions(st.Name, si.Options[strconv.Itoa(b)], st.OptionsFor(b)) {
				return fmt.Errorf("other options: %s at budget %d", si.Label, b)
			}
		}
		found[st.DisplayName()] = true
	}
	for _, st := range cfg.Strategies {
		if !found[st.DisplayName()] {
			return fmt.Errorf("another list of strategies: it lacks %s", st.DisplayName())
		}
	}
	return nil
}
