package analysis

import (
	"sort"

	"github.com/ktune/ktune/benchmark"
	"github.com/ktune/ktune/stats"
)

// Difficulty is the rank correlation, across spaces, between the proportion of centrality
// C_p of their fitness flow graphs and the mean fraction of optimum a strategy reached on
// them at one budget: seed 000's claim is that C_p predicts how hard a space is for
// first-improvement local search, so the correlation should be positive and strong for it.
type Difficulty struct {
	Strategy string        `json:"strategy"`
	Budget   int           `json:"budget"`
	Spaces   int           `json:"spaces"`   // spaces in both the analysis and the benchmark
	Ps       []float64     `json:"p"`        // the p of C_p, as fractions (0.05 for 5 %), in the analysis' order
	Rho      []stats.Float `json:"spearman"` // per p; NaN (null) when undefined
}

// CorrelateDifficulty matches results and benchmark cells by space name and returns, per
// strategy and budget with at least three spaces in common, Spearman's rho between C_p and
// the mean fraction of optimum for every p the landscapes were analysed at.
func CorrelateDifficulty(results []*Result, cells []benchmark.Cell) []Difficulty {
	byName := map[string]*Result{}
	for _, r := range results {
		if r.Landscape != nil {
			byName[r.Name] = r
		}
	}
	type key struct {
		strategy string
		budget   int
	}
	groups := map[key][]benchmark.Cell{}
	var keys []key
	for _, c := range cells {
		if byName[c.Space] == nil {
			continue
		}
		k := key{c.Strategy, c.Budget}
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], c)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].strategy != keys[j].strategy {
			return keys[i].strategy < keys[j].strategy
		}
		return keys[i].budget < keys[j].budget
	})
	var out []Difficulty
	for _, k := range keys {
		cs := groups[k]
		if len(cs) < 3 {
			continue
		}
		props := byName[cs[0].Space].Landscape.Proportions
		d := Difficulty{Strategy: k.strategy, Budget: k.budget, Spaces: len(cs)}
		for pi, pr := range props {
			cp := make([]float64, len(cs))
			perf := make([]float64, len(cs))
			for i, c := range cs {
				r := byName[c.Space]
				if pi >= len(r.Landscape.Proportions) {
					continue
				}
				cp[i] = r.Landscape.Proportions[pi].C
				perf[i] = c.MeanFraction
			}
			d.Ps = append(d.Ps, pr.P)
			d.Rho = append(d.Rho, stats.Float(stats.Spearman(cp, perf)))
		}
		out = append(out, d)
	}
	return out
}
