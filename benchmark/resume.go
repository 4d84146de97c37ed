package benchmark

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
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

// sameSpaces returns the names of the spaces of now that before describes alike.
func sameSpaces(now []Space, before []SpaceInfo) map[string]bool {
	was := map[string]SpaceInfo{}
	for _, s := range before {
		was[s.Name] = s
	}
	out := map[string]bool{}
	for _, s := range describeSpaces(now) {
		if w, ok := was[s.Name]; ok && w == s {
			out[s.Name] = true
		}
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
// would compute again: of a space (the same recording: size and optimum), strategy and
// budget cfg runs, with the same strategy name and options at that budget. It is an error for the two to differ in mode, fitness,
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
	for _, c := range cells {
		st, inNow := now[c.Strategy]
		si, inBefore := before[c.Strategy]
		if !inNow || !inBefore || !spaces[c.Space] || !slices.Contains(cfg.Budgets, c.Budget) ||
			si.Name != st.Name || !sameOptions(si.Options[strconv.Itoa(c.Budget)], st.OptionsFor(c.Budget)) ||
			len(c.Fractions) != cfg.Repeats {
			skipped++
			continue
		}
		reused = append(reused, c)
	}
	return reused, skipped, nil
}

// sameOptions compares options as JSON holds them (a number read back is a float64).
func sameOptions(a, b map[string]any) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(ja) == string(jb)
}
