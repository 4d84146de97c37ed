package report

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/ktune/ktune/benchmark"
)

// Bench is the output of 'ktune bench --json'.
type Bench struct {
	Mode    string            `json:"mode"`
	Fitness string            `json:"fitness"`
	Alpha   float64           `json:"alpha"`
	Cells   []benchmark.Cell  `json:"cells"`
	Scores  []benchmark.Score `json:"competition"`
}

// BenchPage reports a strategy benchmark: the competition (seed 000, Table IV and Fig. 1),
// the mean fraction of optimum per space, strategy and budget, and the curves (Fig. 2).
func BenchPage(b *Bench, source string) (*Page, error) {
	if len(b.Cells) == 0 {
		return nil, fmt.Errorf("%s: no benchmark cells", source)
	}
	if b.Alpha == 0 {
		b.Alpha = 0.05
	}
	if len(b.Scores) == 0 {
		b.Scores = benchmark.Compete(b.Cells, b.Alpha)
	}
	var spaces, strategies []string
	var budgets []int
	seen := map[string]bool{}
	seenB := map[int]bool{}
	for _, c := range b.Cells {
		if !seen["s:"+c.Space] {
			seen["s:"+c.Space] = true
			spaces = append(spaces, c.Space)
		}
		if !seen["t:"+c.Strategy] {
			seen["t:"+c.Strategy] = true
			strategies = append(strategies, c.Strategy)
		}
		if !seenB[c.Budget] {
			seenB[c.Budget] = true
			budgets = append(budgets, c.Budget)
		}
	}
	sort.Ints(budgets)
	runs := len(b.Cells[0].Fractions)
	p := &Page{Title: "Strategy benchmark",
		Subtitle: fmt.Sprintf("%d strategies x %d spaces x %d budgets, %d runs each; %s mode, %s fitness; from %s",
			len(strategies), len(spaces), len(budgets), runs, dash(b.Mode), dash(b.Fitness), source)}

	dir, err := os.MkdirTemp("", "ktune-report-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)

	comp := Section{Title: "Competition"}
	comp.Text = append(comp.Text, fmt.Sprintf("Two-sample t-tests (alpha %g) between every pair of strategies per space and budget: a significantly higher mean fraction of optimum is a win (seed 000, Section VI-B).", b.Alpha))
	t := Table{Head: []string{"strategy", "wins <= 200", "losses <= 200", "wins > 200", "losses > 200"}}
	for _, s := range b.Scores {
		t.Rows = append(t.Rows, []string{s.Strategy, strconv.Itoa(s.WinsLow), strconv.Itoa(s.LossesLow), strconv.Itoa(s.WinsHigh), strconv.Itoa(s.LossesHigh)})
	}
	comp.Tables = append(comp.Tables, t)
	for _, r := range []struct {
		name, label string
		lo, hi      int
	}{{"low", "budgets <= 200", 0, 200}, {"medium", "budgets > 200", 201, 1 << 30}} {
		files, err := benchmark.PlotCompetition(b.Cells, b.Alpha, r.lo, r.hi, r.name, r.label, dir)
		if err != nil {
			return nil, err
		}
		figs, err := svgFigures(files, "Wins of each strategy (row) over each other (column), "+r.label)
		if err != nil {
			return nil, err
		}
		comp.Figures = append(comp.Figures, figs...)
	}
	p.Sections = append(p.Sections, comp)

	curves, err := benchmark.PlotCurves(b.Cells, dir)
	if err != nil {
		return nil, err
	}
	for _, sp := range spaces {
		s := Section{Title: "Space " + sp}
		t := Table{Caption: "Mean fraction of optimum (standard deviation) and mean evaluations used", Head: []string{"strategy"}}
		for _, bu := range budgets {
			t.Head = append(t.Head, strconv.Itoa(bu))
		}
		for _, st := range strategies {
			row := []string{st}
			for _, bu := range budgets {
				cell := "-"
				for _, c := range b.Cells {
					if c.Space == sp && c.Strategy == st && c.Budget == bu {
						cell = fmt.Sprintf("%.3f (%.3f), %.0f", c.MeanFraction, c.StdFraction, c.MeanEvaluations)
					}
				}
				row = append(row, cell)
			}
			t.Rows = append(t.Rows, row)
		}
		s.Tables = append(s.Tables, t)
		var mine []string
		for _, f := range curves {
			if strings.TrimSuffix(filepath.Base(f), filepath.Ext(f)) == benchmark.CurvesFile(sp) {
				mine = append(mine, f)
			}
		}
		figs, err := svgFigures(mine, "Mean fraction of optimum against the budget, 95% interval shaded (seed 000, Fig. 2)")
		if err != nil {
			return nil, err
		}
		s.Figures = figs
		p.Sections = append(p.Sections, s)
	}
	return p, nil
}

func svgFigures(files []string, title string) ([]Figure, error) {
	var out []Figure
	for _, f := range files {
		if filepath.Ext(f) != ".svg" {
			continue
		}
		fig, err := FigureFile(f, title)
		if err != nil {
			return nil, err
		}
		out = append(out, fig)
	}
	return out, nil
}
