package strategy_test

import (
	"context"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ktune/ktune/simulator"
	"github.com/ktune/ktune/strategy"
	"github.com/ktune/ktune/tuning"
)

// tableIIIColumns are the budgets of seed 000's Table III.
var tableIIIColumns = []int{25, 50, 100, 200, 400, 800, 1600}

// documentedDefault reads what an option's documented default says it is at budget (0:
// none), as the text `ktune help strategies` shows: a plain value ("0.1 (ktune's
// choice)"), a row of Table III ("by budget 1 up to 200, 0.7 at 400, 0.1 from 800 (and
// without a budget); interpolated between columns, linearly in log budget") or a share of
// the budget ("budget/4, between 5 and 10 (10 without a budget)"). ok is false for a
// default that is no value ("none", "all parameters").
func documentedDefault(t *testing.T, doc string, budget int) (v any, ok bool) {
	t.Helper()
	if rest, isRow := strings.CutPrefix(doc, "by budget "); isRow {
		return tableIIIDocValue(t, doc, rest, budget), true
	}
	for _, re := range []*regexp.Regexp{
		regexp.MustCompile(`^budget/(\d+), between (\d+) and (\d+) \((\d+) without a budget\)$`),
		regexp.MustCompile(`^budget/(\d+) within \[(\d+), (\d+)\] \((\d+) without a budget\)$`),
	} {
		if m := re.FindStringSubmatch(doc); m != nil {
			n := make([]int, 5)
			for i := 1; i < 5; i++ {
				n[i], _ = strconv.Atoi(m[i])
			}
			if budget <= 0 {
				return n[4], true
			}
			return min(max(budget/n[1], n[2]), n[3]), true
		}
	}
	word := doc
	if i := strings.IndexAny(word, " ,:("); i >= 0 {
		word = word[:i]
	}
	switch word {
	case "none", "all", "":
		return nil, false
	}
	return strategy.ParseValue(word), true
}

// tableIIIDocValue reads a row of Table III as tableIIIDoc writes it and gives its value at
// budget, interpolated between columns as the text says.
func tableIIIDocValue(t *testing.T, doc, rest string, budget int) any {
	t.Helper()
	spec, between, found := strings.Cut(rest, " (and without a budget); ")
	if !found {
		t.Fatalf("%q: no '(and without a budget);'", doc)
	}
	row := make([]string, len(tableIIIColumns))
	col := func(b string) int {
		n, err := strconv.Atoi(b)
		i := slices.Index(tableIIIColumns, n)
		if err != nil || i < 0 {
			t.Fatalf("%q: %q is not a column of Table III", doc, b)
		}
		return i
	}
	for _, part := range strings.Split(spec, ", ") {
		var lo, hi int
		v, b, isUpTo := strings.Cut(part, " up to ")
		if isUpTo {
			lo, hi = 0, col(b)
		} else {
			f := strings.Fields(part)
			if len(f) != 3 {
				t.Fatalf("%q: cannot read %q", doc, part)
			}
			v = f[0]
			switch f[1] {
			case "at":
				a, b, r := strings.Cut(f[2], "-")
				lo, hi = col(a), col(a)
				if r {
					hi = col(b)
				}
			case "from":
				lo, hi = col(f[2]), len(row)-1
			default:
				t.Fatalf("%q: cannot read %q", doc, part)
			}
		}
		for i := lo; i <= hi; i++ {
			row[i] = v
		}
	}
	for i, v := range row {
		if v == "" {
			t.Fatalf("%q: no value for column %d", doc, tableIIIColumns[i])
		}
	}
	if budget <= 0 || budget >= tableIIIColumns[len(row)-1] {
		return strategy.ParseValue(row[len(row)-1])
	}
	if budget <= tableIIIColumns[0] {
		return strategy.ParseValue(row[0])
	}
	i := 0
	for tableIIIColumns[i+1] <= budget {
		i++
	}
	lo, hi := float64(tableIIIColumns[i]), float64(tableIIIColumns[i+1])
	x := math.Log(float64(budget)/lo) / math.Log(hi/lo)
	switch {
	case strings.HasPrefix(between, "interpolated between columns, linearly in log budget"):
		a, _ := strconv.ParseFloat(row[i], 64)
		b, _ := strconv.ParseFloat(row[i+1], 64)
		return a + x*(b-a)
	case strings.HasPrefix(between, "interpolated between columns, geometrically"):
		a, _ := strconv.ParseFloat(row[i], 64)
		b, _ := strconv.ParseFloat(row[i+1], 64)
		return int(math.Round(a * math.Pow(b/a, x)))
	case strings.HasPrefix(between, "between columns the nearer one on a log scale"):
		if x >= 0.5 {
			return strategy.ParseValue(row[i+1])
		}
		return strategy.ParseValue(row[i])
	}
	t.Fatalf("%q: cannot read how budgets between columns get theirs", doc)
	return nil
}

// firstEvaluations runs name with opts on sim at budget (0: none) and returns the
// configurations of its first n evaluations: the run is cut there by a stop condition, so
// that the strategy still sees the budget whose defaults are checked.
func firstEvaluations(t *testing.T, sim *simulator.Simulator, name string, opts map[string]any, budget, n int, seed uint64) [][]int {
	t.Helper()
	st, err := strategy.New(name, opts)
	if err != nil {
		t.Fatalf("%s %v: %v", name, opts, err)
	}
	stop := func(s tuning.State) tuning.StopReason {
		if s.Evaluations >= n {
			return tuning.StopBudget
		}
		return ""
	}
	sess, err := tuning.New(sim.Space(), st, sim.WithSeed(seed), tuning.Options{Budget: budget, Seed: seed,
		Maximize: sim.Maximize(), Stop: []tuning.StopCondition{stop}})
	if err != nil {
		t.Fatalf("%s %v budget %d: %v", name, opts, budget, err)
	}
	sum, err := sess.Run(context.Background())
	if err != nil {
		t.Fatalf("%s %v budget %d: %v", name, opts, budget, err)
	}
	return history(sum)
}

// Each option's documented default is what a run uses: at every Table III budget, at
// budgets between columns and without a budget, a run with the option set to the value
// the documentation gives makes the same first evaluations as a run with the default.
func TestDocumentedDefaultsAreTheDefaults(t *testing.T) {
	sim := recordedSim(t, pnpolyPath, simulator.Cartesian)
	budgets := []int{0, 25, 35, 50, 70, 100, 150, 200, 300, 400, 600, 800, 1100, 1600, 3000}
	for _, name := range strategy.Names() {
		f, _ := strategy.Lookup(name)
		n := 150
		if name == "bayes" || name == "auto" || name == "smac" {
			n = 30
		}
		for _, budget := range budgets {
			if budget == 0 && name == "saltelli" {
				continue // saltelli needs a budget or n
			}
			var def [][]int
			for _, o := range f.Options {
				v, ok := documentedDefault(t, o.Default, budget)
				if !ok {
					continue
				}
				if def == nil {
					def = firstEvaluations(t, sim, name, nil, budget, n, 5)
				}
				got := firstEvaluations(t, sim, name, map[string]any{o.Name: v}, budget, n, 5)
				if !slices.EqualFunc(got, def, slices.Equal) {
					t.Errorf("%s at budget %d: %s=%v (the documented default %q) runs otherwise than the default",
						name, budget, o.Name, v, o.Default)
				}
			}
		}
	}
}
