package benchmark

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/ktune/ktune/strategy"
)

// RunInfo describes a benchmark as `ktune bench --json` records it beside its cells, so that a
// later benchmark can tell which of its cells an earlier one already has: a cell is the
// same computation when its strategy, the options at its budget, the seed and the number of
// repeats are (every run's seed is Seed+i, whatever else the benchmark holds).
type RunInfo struct {
	Mode       string         `json:"mode"`
	Fitness    string         `json:"fitness"`
	Seed       uint64         `json:"seed"`
	Repeats    int            `json:"repeats"`
	Strategies []StrategyInfo `json:"strategies"`
	Spaces     []SpaceInfo    `json:"spaces"`
	// Budgets are the budgets it runs, so that a file of some of its cells (a checkpoint)
	// tells how many it lacks; absent from files of earlier versions.
	Budgets []int `json:"budgets,omitempty"`
	// Shard says which part of the benchmark's cells a file holds, when it is the output
	// or checkpoint of one shard of it (Config.Shard); absent for the whole benchmark.
	Shard *Shard `json:"shard,omitempty"`
}

// SpaceInfo tells a space's recording apart from another of the same name: a cell is
// taken again only for a space of the same size and optimum.
type SpaceInfo struct {
	Name           string  `json:"name"`
	Configurations int     `json:"configurations"`
	Optimum        float64 `json:"optimum"`
}

// describeSpaces records the spaces a benchmark ran on.
func describeSpaces(spaces []Space) []SpaceInfo {
	out := make([]SpaceInfo, len(spaces))
	for i, sp := range spaces {
		opt, _ := sp.Sim.Optimum()
		out[i] = SpaceInfo{Name: sp.Name, Configurations: sp.Sim.Space().Len(), Optimum: opt}
	}
	return out
}

// sameSpaces maps the names of the spaces before describes to those of now that are the
// same recording. A space matches by name when its size and optimum agree; a space whose
// name matches none of now's (an earlier version named a file by the path as typed, so
// "RTX_3090" inside kerneltuner_pnpoly and "kerneltuner_pnpoly/RTX_3090" above it; or the
// folder was renamed) matches the one space of now of the same file name (the part after
// the last '/'), size and optimum that no other space matched, when there is exactly one
// such and it is the only such before.
func sameSpaces(now []Space, before []SpaceInfo) map[string]string {
	out := map[string]string{}
	taken := map[string]bool{}
	cur := describeSpaces(now)
	byName := map[string]SpaceInfo{}
	for _, s := range cur {
		byName[s.Name] = s
	}
	var unmatched []SpaceInfo
	for _, w := range before {
		if s, ok := byName[w.Name]; ok {
			if s == w {
				out[w.Name] = s.Name
				taken[s.Name] = true
			}
			continue
		}
		unmatched = append(unmatched, w)
	}
	alike := func(a, b SpaceInfo) bool {
		return fileOf(a.Name) == fileOf(b.Name) && a.Configurations == b.Configurations && a.Optimum == b.Optimum
	}
	for _, w := range unmatched {
		var match []string
		for _, s := range cur {
			if !taken[s.Name] && alike(s, w) {
				match = append(match, s.Name)
			}
		}
		twins := 0
		for _, o := range unmatched {
			if alike(o, w) {
				twins++
			}
		}
		if len(match) == 1 && twins == 1 {
			out[w.Name] = match[0]
		}
	}
	return out
}

// OtherRecordings describes the spaces of before that have the name of a space of now but
// another recording (its size or optimum differ), as "NAME: N configurations, optimum O
// there; M configurations, optimum P here": a file whose cells none of a run takes is
// most often another run's on a changed file.
func OtherRecordings(now []Space, before []SpaceInfo) []string {
	cur := map[string]SpaceInfo{}
	for _, s := range describeSpaces(now) {
		cur[s.Name] = s
	}
	var out []string
	for _, w := range before {
		if s, ok := cur[w.Name]; ok && s != w {
			out = append(out, fmt.Sprintf("%s: %d configurations, optimum %g there; %d configurations, optimum %g here",
				w.Name, w.Configurations, w.Optimum, s.Configurations, s.Optimum))
		}
	}
	return out
}

// fileOf is the file part of a space name: what follows its kernel.
func fileOf(space string) string {
	if i := strings.LastIndex(space, "/"); i >= 0 {
		return space[i+1:]
	}
	return space
}

// sameLabels maps the labels of before's strategies to those of now's that name the same
// entry: the same label, or, for an entry labelled by its own text (NAME:OPT=VALUE;...),
// the same strategy with options that mean the same however spelled (entryKey:
// firstmls:neighbourhood=hamming is firstmls:neighbourhood=Hamming), where exactly one
// label of each side has that meaning. A label of before that matches none is left out.
func sameLabels(now, before []StrategyInfo) map[string]string {
	out := map[string]string{}
	current := map[string]bool{}
	byKey := map[string][]string{} // now's labels by what they mean
	for _, si := range now {
		current[si.Label] = true
		k := entryKey(si.Name, si.Label)
		byKey[k] = append(byKey[k], si.Label)
	}
	earlier := map[string]int{} // before's labels of each meaning
	for _, si := range before {
		earlier[entryKey(si.Name, si.Label)]++
	}
	for _, si := range before {
		if current[si.Label] {
			out[si.Label] = si.Label
			continue
		}
		k := entryKey(si.Name, si.Label)
		if labels := byKey[k]; len(labels) == 1 && earlier[k] == 1 {
			out[si.Label] = labels[0]
		}
	}
	return out
}

// infoOf describes the strategies by label and name, as sameLabels compares them.
func infoOf(strategies []Strategy) []StrategyInfo {
	out := make([]StrategyInfo, len(strategies))
	for i, st := range strategies {
		out[i] = StrategyInfo{Label: st.DisplayName(), Name: st.Name}
	}
	return out
}

// StrategyInfo is a strategy as it ran: its label and name, and its options at each
// budget (by the budget in decimal), defaults files applied.
type StrategyInfo struct {
	Label   string                    `json:"label"`
	Name    string                    `json:"name"`
	Options map[string]map[string]any `json:"options,omitempty"`
}

// Describe records cfg's run.
func Describe(cfg Config, mode, fitness string) RunInfo {
	info := RunInfo{Mode: mode, Fitness: fitness, Seed: cfg.Seed, Repeats: cfg.Repeats, Spaces: describeSpaces(cfg.Spaces),
		Budgets: slices.Clone(cfg.Budgets)}
	if !cfg.Shard.Whole() {
		shard := cfg.Shard
		info.Shard = &shard
	}
	for _, st := range cfg.Strategies {
		si := StrategyInfo{Label: st.DisplayName(), Name: st.Name}
		for _, b := range cfg.Budgets {
			if o := st.OptionsFor(b); len(o) > 0 {
				if si.Options == nil {
					si.Options = map[string]map[string]any{}
				}
				si.Options[strconv.Itoa(b)] = o
			}
		}
		info.Strategies = append(info.Strategies, si)
	}
	return info
}

// Reusable returns the cells of an earlier benchmark (prev, which ran cells) that cfg
// would compute again: of a space (the same recording: size and optimum; see sameSpaces),
// strategy (the same label, or an entry spelled otherwise: see sameLabels) and budget cfg
// runs, with the same strategy name and options at that budget (however spelled: see
// sameOptions); they come back under the names cfg gives their spaces and strategies. It is an error for the two to differ in mode, fitness,
// seed or repeats, which change every cell. skipped counts the cells left out.
func Reusable(cfg Config, mode, fitness string, prev RunInfo, cells []Cell) (reused []Cell, skipped int, err error) {
	switch {
	case prev.Mode != mode || prev.Fitness != fitness:
		return nil, 0, fmt.Errorf("it ran in %s mode with %s fitness, this benchmark in %s mode with %s fitness", prev.Mode, prev.Fitness, mode, fitness)
	case prev.Seed != cfg.Seed:
		return nil, 0, fmt.Errorf("it ran with seed %d, this benchmark with seed %d", prev.Seed, cfg.Seed)
	case prev.Repeats != cfg.Repeats:
		return nil, 0, fmt.Errorf("it ran %d repeats, this benchmark %d", prev.Repeats, cfg.Repeats)
	}
	before := map[string]StrategyInfo{}
	for _, si := range prev.Strategies {
		before[si.Label] = si
	}
	now := map[string]Strategy{}
	for _, st := range cfg.Strategies {
		now[st.DisplayName()] = st
	}
	spaces := sameSpaces(cfg.Spaces, prev.Spaces)
	labels := sameLabels(infoOf(cfg.Strategies), prev.Strategies)
	for _, c := range cells {
		label, named := labels[c.Strategy]
		st, inNow := now[label]
		si, inBefore := before[c.Strategy]
		space, same := spaces[c.Space]
		if !named || !inNow || !inBefore || !same || !slices.Contains(cfg.Budgets, c.Budget) ||
			si.Name != st.Name || !sameOptions(st.Name, si.Options[strconv.Itoa(c.Budget)], st.OptionsFor(c.Budget)) ||
			len(c.Fractions) != cfg.Repeats {
			skipped++
			continue
		}
		c.Space, c.Strategy = space, label
		reused = append(reused, c)
	}
	return reused, skipped, nil
}

// sameOptions compares options of strategy name by what they mean to it, written
// canonically (strategy.Canonical: neighbourhood hamming is Hamming, candidates 1e3 is
// 1000, restart 1 is true), and as JSON holds them (a number read back is a float64),
// each value as strategy.ParseValue reads its text, so that a file written when bench
// kept values as text ("10", "true") matches the same options read as values (10, true),
// and options the strategy refuses compare as they are.
func sameOptions(name string, a, b map[string]any) bool {
	if ca, err := strategy.Canonical(name, a); err == nil {
		if cb, err := strategy.Canonical(name, b); err == nil {
			a, b = ca, cb
		}
	}
	if len(a) != len(b) {
		return false
	}
	for k, x := range a {
		y, ok := b[k]
		if !ok || optionValue(x) != optionValue(y) {
			return false
		}
	}
	return true
}

// optionValue is an option value as ParseValue reads its text; a list, as JSON writes it.
func optionValue(v any) any {
	switch x := v.(type) {
	case string:
		return strategy.ParseValue(x)
	case int, int64, float64, bool, json.Number:
		return strategy.ParseValue(fmt.Sprint(x))
	}
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%#v", v)
	}
	return "json:" + string(data)
}

// Kept is what a benchmark's checkpoint keeps of the file it resumed from besides the
// cells it takes (see Keep).
type Kept struct {
	// Info describes the run and the kept cells together: the run's strategies, spaces and
	// budgets, with those of the kept cells added.
	Info RunInfo
	// Cells are the earlier file's cells that the run neither takes nor runs, valid beside
	// its own: of the same mode, fitness, seed and repeats, under names that mean the same
	// strategy and recording in both.
	Cells []Cell
	// Replaced counts the earlier cells that the run computes again under other options
	// of the same label: its own cell replaces each.
	Replaced int
	// Lost says, for each earlier cell that cannot be kept beside the run's, why (a
	// label that runs another strategy here, another recording under a space's name).
	Lost []string
}

// Keep returns the cells of an earlier benchmark (prev, with its cells) that a run of cfg,
// described by info, neither takes with Reusable nor runs (a shard's run: the cells of its
// shard only), so that the run's checkpoint keeps them beside its own and a later run of
// the earlier benchmark takes them again: resuming a large benchmark's checkpoint with a
// smaller command and the same --checkpoint file must not drop the cells the smaller one
// does not run. The caller has
// checked with Reusable that prev is of the same mode, fitness, seed and repeats.
func Keep(cfg Config, info RunInfo, prev RunInfo, cells []Cell) Kept {
	k := Kept{Info: info}
	k.Info.Strategies = slices.Clone(info.Strategies)
	k.Info.Spaces = slices.Clone(info.Spaces)
	k.Info.Budgets = slices.Clone(info.Budgets)
	now := map[string]int{} // label -> index in k.Info.Strategies
	for i, si := range k.Info.Strategies {
		now[si.Label] = i
	}
	runs := map[string]bool{} // the labels cfg runs (not those added for kept cells)
	for _, st := range cfg.Strategies {
		runs[st.DisplayName()] = true
	}
	current := map[string]bool{} // this run's spaces
	for _, s := range info.Spaces {
		current[s.Name] = true
	}
	listed := maps.Clone(current) // and those added for kept cells
	before := map[string]StrategyInfo{}
	for _, si := range prev.Strategies {
		before[si.Label] = si
	}
	prevSpace := map[string]SpaceInfo{}
	for _, s := range prev.Spaces {
		prevSpace[s.Name] = s
	}
	renamed := sameSpaces(cfg.Spaces, prev.Spaces)
	relabelled := sameLabels(info.Strategies, prev.Strategies)
	fixed := map[string]bool{} // LABEL@BUDGET whose options a kept cell has settled
	// a shard runs only its cells: those of the other shards are kept
	inShard := func(CellKey) bool { return true }
	if !cfg.Shard.Whole() {
		of := Assign(cfg, cfg.Shard.Count)
		inShard = func(k CellKey) bool { return of[k] == cfg.Shard.Index }
	}
	for _, c := range cells {
		si, known := before[c.Strategy]
		if label, ok := relabelled[c.Strategy]; ok {
			c.Strategy = label // an entry spelled otherwise here: this run's label
		}
		space, same := renamed[c.Space]
		switch {
		case !known || len(c.Fractions) != prev.Repeats:
			k.Lost = append(k.Lost, fmt.Sprintf("%s on %s at budget %d is not described by the file", c.Strategy, c.Space, c.Budget))
			continue
		case !same && current[c.Space]:
			k.Lost = append(k.Lost, fmt.Sprintf("%s on %s at budget %d: %s here is another recording (its size or optimum differ)", c.Strategy, c.Space, c.Budget, c.Space))
			continue
		case !same:
			if _, ok := prevSpace[c.Space]; !ok {
				k.Lost = append(k.Lost, fmt.Sprintf("%s on %s at budget %d: the file does not describe space %s", c.Strategy, c.Space, c.Budget, c.Space))
				continue
			}
			space = c.Space
		}
		budget := strconv.Itoa(c.Budget)
		i, labelled := now[c.Strategy]
		if labelled && k.Info.Strategies[i].Name != si.Name {
			k.Lost = append(k.Lost, fmt.Sprintf("%s on %s at budget %d: %s runs %s here, %s there", c.Strategy, c.Space, c.Budget, c.Strategy, k.Info.Strategies[i].Name, si.Name))
			continue
		}
		if same && runs[c.Strategy] && slices.Contains(cfg.Budgets, c.Budget) && inShard(CellKey{c.Strategy, space, c.Budget}) {
			// the run takes it (Reusable) or computes it again, under other options
			if !sameOptions(si.Name, si.Options[budget], k.Info.Strategies[i].Options[budget]) {
				k.Replaced++
			}
			continue
		}
		fix := c.Strategy + "@" + budget
		if labelled {
			st := &k.Info.Strategies[i]
			if fixed[fix] || (runs[c.Strategy] && slices.Contains(cfg.Budgets, c.Budget)) {
				if !sameOptions(si.Name, st.Options[budget], si.Options[budget]) {
					// the label runs at that budget under other options, here or in a cell kept before
					k.Lost = append(k.Lost, fmt.Sprintf("%s on %s at budget %d: %s has other options at budget %d here", c.Strategy, c.Space, c.Budget, c.Strategy, c.Budget))
					continue
				}
			} else if len(si.Options[budget]) > 0 {
				st.Options = maps.Clone(st.Options)
				if st.Options == nil {
					st.Options = map[string]map[string]any{}
				}
				st.Options[budget] = si.Options[budget]
			}
		} else {
			now[c.Strategy] = len(k.Info.Strategies)
			k.Info.Strategies = append(k.Info.Strategies, si)
		}
		fixed[fix] = true
		if !slices.Contains(k.Info.Budgets, c.Budget) {
			k.Info.Budgets = append(k.Info.Budgets, c.Budget)
		}
		if !listed[space] {
			listed[space] = true
			k.Info.Spaces = append(k.Info.Spaces, prevSpace[space])
		}
		c.Space = space
		k.Cells = append(k.Cells, c)
	}
	return k
}
