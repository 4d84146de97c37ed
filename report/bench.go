package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ktune/ktune/benchmark"
	"github.com/ktune/ktune/format"
)

// Bench is the output of 'ktune bench --json', or its --checkpoint file.
type Bench struct {
	Interrupted string            `json:"interrupted"` // why the benchmark stopped early; empty when it finished
	Mode        string            `json:"mode"`
	Fitness     string            `json:"fitness"`
	Alpha       float64           `json:"alpha"`
	Split       int               `json:"split"` // 0: benchmark.DefaultSplit (files from before the flag)
	Cells       []benchmark.Cell  `json:"cells"`
	Scores      []benchmark.Score `json:"competition"`
	// Strategies says what each entry ran (its strategy and options per budget), where
	// the benchmark recorded it
	Strategies []benchmark.StrategyInfo `json:"strategies"`
	Spaces     []benchmark.SpaceInfo    `json:"spaces"`
	Repeats    int                      `json:"repeats"`
	Budgets    []int                    `json:"budgets"` // absent from files of earlier versions
	// Checkpoint marks a --checkpoint file: the cells finished when it was last written,
	// without the competition (the page computes it).
	Checkpoint bool `json:"-"`
}

// ErrNotBench is data that is not the JSON of 'ktune bench' (--json or --checkpoint).
var ErrNotBench = errors.New("not the JSON of 'ktune bench'")

// OtherFileError is JSON that 'ktune hypertune' writes, given where a benchmark's is
// read: it says what the file is and which command reads it.
type OtherFileError struct{ What string }

// Error says what the file is and which command reads it.
func (e *OtherFileError) Error() string { return e.What }

// BenchFileError is a file of 'ktune bench' that cannot be taken as it is: a value of
// the wrong type, or a cell no benchmark writes (benchmark.CheckCells), from an edit or
// damage. It says which of the files it is and what is wrong, where.
type BenchFileError struct {
	What string // "the --json output of 'ktune bench'" or "a --checkpoint file of 'ktune bench'"
	Err  error
}

// Error says what the file is and how it is damaged.
func (e *BenchFileError) Error() string { return e.What + ", edited or damaged: " + e.Err.Error() }

// Unwrap returns the problem found in the file.
func (e *BenchFileError) Unwrap() error { return e.Err }

// ReadBench recognises the JSON 'ktune bench' writes: its --json output (cells and the
// competition) or its --checkpoint file (cells and how they were run, no competition). The
// JSON 'ktune hypertune' writes (--json, --checkpoint, its defaults file) is recognised and
// refused, saying what it is and where it is read (an *OtherFileError); anything else is
// ErrNotBench. A file of 'ktune bench' whose values are of the wrong type, or whose cells
// no benchmark can have written (benchmark.CheckCells) or that its description of the run
// does not list (benchmark.CheckDescribed), is refused as a *BenchFileError
// that names the cell and what is wrong with it, rather than taken as it is: a budget of
// 0 drew no log scale, a fraction of 7.5 won the competition.
func ReadBench(data []byte) (*Bench, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '{' {
		return nil, ErrNotBench
	}
	// The keys tell the files apart, before any value is decoded: a hypertune file's
	// spaces (names) and a defaults file's budgets (objects) are not a benchmark's.
	var keys struct {
		Cells    json.RawMessage `json:"cells"`
		Scores   json.RawMessage `json:"competition"`
		Repeats  json.RawMessage `json:"repeats"`
		Budgets  json.RawMessage `json:"budgets"`
		Strategy json.RawMessage `json:"strategy"`
		Settings json.RawMessage `json:"settings"`
		Choices  json.RawMessage `json:"choices"`
		Training json.RawMessage `json:"training_spaces"`
	}
	if json.Unmarshal(data, &keys) != nil {
		return nil, ErrNotBench // not JSON: the recorded formats say where it breaks
	}
	var strategy string
	json.Unmarshal(keys.Strategy, &strategy)
	budgetsErr := json.Unmarshal(keys.Budgets, new([]int))
	isNull := func(raw json.RawMessage) bool { return raw == nil || bytes.Equal(raw, []byte("null")) }
	switch {
	case keys.Settings != nil || keys.Choices != nil:
		return nil, &OtherFileError{fmt.Sprintf("the --json output or --checkpoint file of 'ktune hypertune' (strategy %s), whose choices "+
			"'ktune hypertune --resume FILE' with the same spaces, strategy and grid prints again", dash(strategy))}
	case strategy != "" && (keys.Training != nil || keys.Budgets != nil && budgetsErr != nil):
		return nil, &OtherFileError{fmt.Sprintf("a defaults file of 'ktune hypertune' (strategy %s), which 'ktune tune', 'simulate' and 'bench' read with --defaults FILE", strategy)}
	case isNull(keys.Cells):
		return nil, ErrNotBench
	case isNull(keys.Scores) && (isNull(keys.Repeats) || bytes.Equal(keys.Repeats, []byte("0"))):
		// cells without the competition are a checkpoint only with how they were run
		return nil, ErrNotBench
	}
	what := (&Bench{Checkpoint: isNull(keys.Scores)}).Kind()
	var f struct {
		Bench
		Cells json.RawMessage `json:"cells"` // read cell by cell, so that an error names the cell
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, &BenchFileError{what, errors.New(format.JSONError(data, err))}
	}
	cells, err := benchmark.DecodeCells(f.Cells, f.Repeats)
	if err == nil {
		// cells of a strategy, space or budget the file does not describe
		err = benchmark.CheckDescribed(benchmark.RunInfo{Strategies: f.Strategies, Spaces: f.Spaces, Budgets: f.Budgets}, cells)
	}
	if err != nil {
		return nil, &BenchFileError{what, err}
	}
	b := f.Bench
	b.Cells = cells
	b.Checkpoint = isNull(keys.Scores)
	return &b, nil
}

// BenchPage reports a strategy benchmark: the competition (as in refBenchmarking, Table IV
// and Fig. 1, over all spaces and per kernel), the mean fraction of optimum per kernel over
// its spaces and per space, strategy and budget, and the curves (that paper's Fig. 2).
func BenchPage(b *Bench, source string) (*Page, error) {
	p, err := benchPage(b, source)
	if err != nil {
		return nil, err
	}
	p.cite()
	return p, nil
}

func benchPage(b *Bench, source string) (*Page, error) {
	if len(b.Cells) == 0 {
		if b.Interrupted != "" {
			return nil, fmt.Errorf("%s: the benchmark finished no cell (%s): nothing to report", source, b.Interrupted)
		}
		return nil, fmt.Errorf("%s: a benchmark without cells: nothing to report", source)
	}
	if b.Alpha == 0 {
		b.Alpha = 0.05
	}
	if b.Split == 0 {
		b.Split = benchmark.DefaultSplit
	}
	if len(b.Scores) == 0 {
		b.Scores = benchmark.Compete(b.Cells, b.Alpha, b.Split)
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
		Subtitle: fmt.Sprintf("%s x %s x %s, %d runs each; %s mode, %s fitness; from %s",
			plural(len(strategies), "strategy", "strategies"), plural(len(spaces), "space", "spaces"), plural(len(budgets), "budget", "budgets"),
			runs, dash(b.Mode), dash(b.Fitness), source)}
	if b.Interrupted != "" {
		p.Subtitle += "; " + b.Interrupted
	}
	if b.Checkpoint {
		p.Subtitle += "; " + b.checkpointNote()
	}

	dir, err := os.MkdirTemp("", "ktune-report-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)

	if len(b.Strategies) > 0 {
		// what each entry ran: a label ("tuned") says nothing of it by itself
		t := Table{Caption: "The strategies compared", Head: []string{"entry", "strategy", "options (per budget)"}}
		for _, st := range b.Strategies {
			var opts []string
			budgets := slices.Collect(maps.Keys(st.Options))
			slices.SortFunc(budgets, func(x, y string) int {
				a, _ := strconv.Atoi(x)
				b, _ := strconv.Atoi(y)
				return a - b
			})
			for _, budget := range budgets {
				o := st.Options[budget]
				var kv []string
				for _, k := range slices.Sorted(maps.Keys(o)) {
					kv = append(kv, fmt.Sprintf("%s=%v", k, o[k]))
				}
				opts = append(opts, budget+": "+strings.Join(kv, ", "))
			}
			if len(opts) == 0 {
				opts = []string{"defaults"}
			}
			t.Rows = append(t.Rows, []string{st.Label, st.Name, strings.Join(opts, "; ")})
			t.Wrap = []int{2}
		}
		p.Sections = append(p.Sections, Section{Title: "Strategies", Tables: []Table{t}})
	}

	comp := Section{Title: "Competition"}
	if len(strategies) < 2 {
		// no pair to test: no wins, losses or heat maps to show
		comp.Text = append(comp.Text, fmt.Sprintf("None: the benchmark ran one strategy, %s, and the competition of %s (Section VI-B) is between pairs of strategies.", strategies[0], refBenchmarking))
	} else if comp, err = b.competition(budgets, dir); err != nil {
		return nil, err
	}
	p.Sections = append(p.Sections, comp)

	table := func(cells []benchmark.Cell, space string) Table {
		t := Table{Caption: "Mean fraction of optimum (standard deviation) and mean evaluations used", Head: []string{"strategy"}}
		for _, bu := range budgets {
			t.Head = append(t.Head, strconv.Itoa(bu))
		}
		for _, st := range strategies {
			row := []string{st}
			for _, bu := range budgets {
				cell := "-"
				for _, c := range cells {
					if c.Space == space && c.Strategy == st && c.Budget == bu {
						cell = fmt.Sprintf("%.3f (%.3f), %.0f", c.MeanFraction, c.StdFraction, c.MeanEvaluations)
					}
				}
				row = append(row, cell)
			}
			t.Rows = append(t.Rows, row)
		}
		return t
	}
	// a kernel is over all the spaces the benchmark ran (an interrupted one, or its
	// checkpoint, has cells of fewer), and its cells and curves pool every one of them,
	// as bench's own tables and JSON do; files of earlier versions name no spaces
	var allSpaces []string
	for _, s := range b.Spaces {
		allSpaces = append(allSpaces, s.Name)
	}
	if allSpaces == nil {
		allSpaces = spaces
	}
	spaceFiles, kernelFiles := benchmark.CurveNames(b.Cells)
	kernelCurves, err := benchmark.PlotKernelCurves(b.Cells, allSpaces, dir)
	if err != nil {
		return nil, err
	}
	kernelCells := benchmark.CompleteKernelCells(b.Cells, allSpaces)
	allKernels, spacesOf := benchmark.KernelSpaces(allSpaces)
	for _, k := range allKernels {
		if spacesOf[k] < 2 {
			continue
		}
		s := Section{Title: "Kernel " + k}
		s.Text = append(s.Text, fmt.Sprintf("Over its %d spaces: every run on any of them counts once, as %s reports a kernel over its GPUs.", spacesOf[k], refBenchmarking))
		s.Tables = append(s.Tables, table(kernelCells, k))
		figs, err := svgFigures(filesNamed(kernelCurves, kernelFiles[k]), "Mean fraction of optimum against the budget over the kernel's spaces, with its 95% interval")
		if err != nil {
			return nil, err
		}
		s.Figures = figs
		p.Sections = append(p.Sections, s)
	}

	curves, err := benchmark.PlotCurves(b.Cells, dir)
	if err != nil {
		return nil, err
	}
	for _, sp := range spaces {
		s := Section{Title: "Space " + sp}
		s.Tables = append(s.Tables, table(b.Cells, sp))
		figs, err := svgFigures(filesNamed(curves, spaceFiles[sp]), "Mean fraction of optimum against the budget, with its 95% interval")
		if err != nil {
			return nil, err
		}
		s.Figures = figs
		p.Sections = append(p.Sections, s)
	}
	return p, nil
}

// competition is the section of the competition between b's strategies (two or more): the
// wins and losses per budget range that has some of budgets, and the heat maps, drawn into
// dir.
func (b *Bench) competition(budgets []int, dir string) (Section, error) {
	ranges := benchmark.CompetitionRanges(b.Split)
	comp := Section{Title: "Competition"}
	comp.Text = append(comp.Text, fmt.Sprintf("Two-sample t-tests (alpha %g) between every pair of strategies per space and budget: a significantly higher mean fraction of optimum is a win, "+
		"as in %s (Section VI-B). In the heat maps (as in that paper's Fig. 1) the cell in row r and column c counts the wins of the column's strategy over the row's; "+
		"all the maps share one colour scale, light for no wins to dark for the most of any map, shown by the bar beside each, and the hatched diagonal is a strategy against itself.", b.Alpha, refBenchmarking))
	// a range without budgets has no wins or losses to show: its columns are left out
	var shown []benchmark.CompetitionRange
	for _, r := range ranges {
		if slices.ContainsFunc(budgets, func(bu int) bool { return bu >= r.Lo && bu <= r.Hi }) {
			shown = append(shown, r)
		}
	}
	t := Table{Head: []string{"strategy"}}
	for _, r := range shown {
		t.Head = append(t.Head, "wins "+r.Label, "losses "+r.Label)
	}
	for _, s := range b.Scores {
		row := []string{s.Strategy}
		for _, r := range shown {
			if r.Name == ranges[0].Name {
				row = append(row, strconv.Itoa(s.WinsLow), strconv.Itoa(s.LossesLow))
			} else {
				row = append(row, strconv.Itoa(s.WinsHigh), strconv.Itoa(s.LossesHigh))
			}
		}
		t.Rows = append(t.Rows, row)
	}
	if len(shown) < len(ranges) {
		for _, r := range ranges {
			if !slices.Contains(shown, r) {
				t.Caption = fmt.Sprintf("Wins and losses (the benchmark has no %s)", r.Label)
			}
		}
	}
	comp.Tables = append(comp.Tables, t)
	kernels, _ := benchmark.Kernels(b.Cells)
	// one colour scale for every heat map, so that a colour is the same count in each
	scale := benchmark.CompetitionScale(b.Cells, b.Alpha, b.Split)
	heat := func(cells []benchmark.Cell, name, scope string) error {
		for _, r := range ranges {
			files, err := benchmark.PlotCompetition(cells, b.Alpha, r.Lo, r.Hi, scale, name+r.Name, scope+", "+r.Label, dir)
			if err != nil {
				return err
			}
			figs, err := svgFigures(files, "Wins of each strategy (column) over each other (row): "+scope+", "+r.Label)
			if err != nil {
				return err
			}
			comp.Figures = append(comp.Figures, figs...)
		}
		return nil
	}
	if err := heat(b.Cells, "", "all spaces"); err != nil {
		return comp, err
	}
	if len(kernels) > 1 {
		for _, k := range kernels {
			var mine []benchmark.Cell
			for _, c := range b.Cells {
				if benchmark.Kernel(c.Space) == k {
					mine = append(mine, c)
				}
			}
			if err := heat(mine, k+"-", k); err != nil {
				return comp, err
			}
		}
	}
	return comp, nil
}

// Kind says which file of 'ktune bench' b is: "the --json output of 'ktune bench'" or "a
// --checkpoint file of 'ktune bench'".
func (b *Bench) Kind() string {
	if b.Checkpoint {
		return "a --checkpoint file of 'ktune bench'"
	}
	return "the --json output of 'ktune bench'"
}

// checkpointNote says what a --checkpoint file holds: all the benchmark's cells, or how
// many of them (it is written as cells finish, so a crashed or running benchmark's lacks some).
func (b *Bench) checkpointNote() string {
	total := len(b.Strategies) * len(b.Spaces) * len(b.Budgets)
	switch {
	case total == 0: // a file of an earlier version does not list its budgets
		return fmt.Sprintf("a --checkpoint file: the %d cells finished when it was last written", len(b.Cells))
	case len(b.Cells) < total:
		return fmt.Sprintf("a --checkpoint file with %d of the benchmark's %d cells (it was stopped, or is still running)", len(b.Cells), total)
	default:
		return fmt.Sprintf("a --checkpoint file with all the benchmark's %d cells", total)
	}
}

// filesNamed returns the files among files whose base name without extension is name.
func filesNamed(files []string, name string) []string {
	var out []string
	for _, f := range files {
		if strings.TrimSuffix(filepath.Base(f), filepath.Ext(f)) == name {
			out = append(out, f)
		}
	}
	return out
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

// plural is n with the singular or the plural noun.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
