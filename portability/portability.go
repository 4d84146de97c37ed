// Package portability says how well a kernel's tuning carries over from one space to
// another, and how soon tuning at run time pays for itself: seed 003's performance
// portability (Section 4.4, Tables 6, 8 and 9) and its amortization estimate of dynamic
// tuning (Section 5.4, equations 3 to 5, Table 11).
//
// A space is one exhaustively measured tuning space of a kernel: a device, or an input
// size, its configurations and the objective measured for each. The portability matrix
// runs the best configuration of every space (a row) on every other space (a column) and
// gives its performance as a percentage of the column's own best; the amortization gives,
// per space, the share of well-performing configurations, the random-search steps that
// find one and the kernel invocations that hide the slower kernels run while tuning.
//
// The functions are pure: they take spaces (FromRecording builds one from a recording or
// a stored run) and return figures; the command line prints them.
package portability

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ktune/ktune/analysis"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/stats"
)

// Space is one measured tuning space of a kernel: its configurations and the objective's
// value of each.
type Space struct {
	Name        string             // names it in tables and errors, e.g. "kerneltuner_gemm/RTX_3090"
	Device      string             // the device it was measured on, as recorded
	Kernel      string             // the kernel's name, as recorded
	ProblemSize string             // the input size, as recorded
	Objective   analysis.Objective // the objective Values hold and its direction
	Params      []string           // the parameters' names, in the recording's order
	Configs     [][]space.Value    // one per evaluation, values in Params' order
	Values      []float64          // the objective per configuration; NaN where it failed or has no value
	Failures    []string           // why a value is NaN: the status (compile_error...) or "no value"; "" for a value
	// (a success of a configuration found wrong elsewhere in the recording, Recording.FoundWrong, is wrong_answer)
	// Efficiency is each configuration's efficiency against the device's peak in percent
	// (seed 003, eq. 2; efficiency.Percents), NaN where it has none; nil when unknown.
	// Amortize reads it where Settings.WithinPeak defines well-performing by the peak.
	Efficiency []float64
}

// FromRecording takes a space out of a recording (a file read, or a run of the store):
// the objective want ("" for the recording's own, or a metric its evaluations carry), in
// the direction the recording gives or its name suggests unless maximize says it.
func FromRecording(name string, rec *result.Recording, want string, maximize *bool) (Space, error) {
	if rec == nil {
		return Space{}, errors.New("portability: no recording")
	}
	obj, value, err := analysis.ResolveObjective(rec, want, maximize)
	if err != nil {
		return Space{}, fmt.Errorf("%s: %w", name, err)
	}
	sp := Space{Name: name, Device: rec.Device, Kernel: rec.Kernel, ProblemSize: rec.ProblemSize, Objective: obj,
		Configs:  make([][]space.Value, len(rec.Evaluations)),
		Values:   make([]float64, len(rec.Evaluations)),
		Failures: make([]string, len(rec.Evaluations)),
	}
	for _, p := range rec.Params {
		sp.Params = append(sp.Params, p.Name)
	}
	wrong := rec.FoundWrong()
	for i := range rec.Evaluations {
		e := &rec.Evaluations[i]
		sp.Configs[i] = e.Config
		sp.Values[i] = value(e)
		switch {
		case e.Status != result.OK:
			sp.Failures[i] = e.Status.String()
		case wrong(e):
			// found wrong elsewhere in the run: neither the best nor well-performing
			sp.Values[i] = math.NaN()
			sp.Failures[i] = result.WrongAnswer.String()
		case math.IsNaN(sp.Values[i]) || math.IsInf(sp.Values[i], 0):
			sp.Values[i] = math.NaN()
			sp.Failures[i] = "no value"
		}
	}
	return sp, nil
}

// valid reports whether v is a measured value of the objective.
func valid(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// best returns the index of the space's best configuration: the first of the best value
// in the recording's order, so ties are broken the same way every time; -1 when none
// has a value.
func (s *Space) best() int {
	b := -1
	for i, v := range s.Values {
		if !valid(v) {
			continue
		}
		if b < 0 || s.Objective.Maximize && v > s.Values[b] || !s.Objective.Maximize && v < s.Values[b] {
			b = i
		}
	}
	return b
}

// Percent is seed 003's performance portability of one pair (Section 4.4):
// 100·perf(tuned elsewhere)/perf(tuned here), where perf is the objective when larger is
// better and its inverse (a rate from a time) when smaller is: tunedElsewhere is the
// value, on this space, of the configuration tuned on another, own that of this space's
// best. NaN where either is not a positive number.
func Percent(tunedElsewhere, own float64, maximize bool) float64 {
	if !(tunedElsewhere > 0 && own > 0) || math.IsInf(tunedElsewhere, 0) || math.IsInf(own, 0) {
		return math.NaN()
	}
	if maximize {
		return 100 * tunedElsewhere / own
	}
	return 100 * own / tunedElsewhere
}

// Tuned is one space of a matrix, tuned: its best configuration and value.
type Tuned struct {
	Name           string      `json:"name"`
	Device         string      `json:"device"`
	ProblemSize    string      `json:"problem_size,omitempty"`
	Configurations int         `json:"configurations"` // evaluations recorded
	Valid          int         `json:"valid"`          // with a value of the objective
	Best           float64     `json:"best"`
	BestConfig     space.Named `json:"best_configuration"`
}

// Cell is one configuration tuned on a row's space and run on a column's.
type Cell struct {
	// Percent is the row's best configuration's performance on the column's space as a
	// percentage of the column's own best (100 on the diagonal); null where it fails.
	Percent stats.Float `json:"percent"`
	// Value is the objective the row's best configuration reached on the column's space;
	// null where it fails.
	Value stats.Float `json:"value"`
	// Fails says why the configuration has no value on the column's space: "absent" (the
	// space does not hold it: a restriction or device limit left it out), its status
	// there (compile_error, runtime_error, device_limit, ...) or "no value"; "" where it ran.
	Fails string `json:"fails,omitempty"`
}

// Summary condenses a matrix's cells off the diagonal as seed 003's Table 6 does: the
// mean, standard deviation and worst of the percentages of the pairs that ran, and how
// many pairs failed.
type Summary struct {
	Pairs  int         `json:"pairs"`  // ordered pairs of different spaces
	Failed int         `json:"failed"` // of those, where the row's best configuration fails on the column's space
	Mean   stats.Float `json:"mean"`   // of the percentages of the others; null when all failed
	Stdev  stats.Float `json:"stdev"`  // population standard deviation of the same
	Worst  stats.Float `json:"worst"`  // the smallest of the same
	// WorstRow and WorstColumn name the pair of Worst: tuned on the row, run on the column.
	WorstRow    string `json:"worst_row,omitempty"`
	WorstColumn string `json:"worst_column,omitempty"`
}

// Matrix is the performance portability across spaces of one kernel: Cells[i][j] is the
// best configuration of Spaces[i] run on Spaces[j] (seed 003's Tables 8 and 9: rows are
// the space tuned for, columns the space run on).
type Matrix struct {
	Objective string   `json:"objective"`
	Maximize  bool     `json:"maximize"`
	Params    []string `json:"parameters"` // the first space's order
	Spaces    []Tuned  `json:"spaces"`     // the rows and the columns, in the order given
	Cells     [][]Cell `json:"cells"`
	Summary   Summary  `json:"summary"`
	Warnings  []string `json:"warnings,omitempty"`
}

// ErrTooFewSpaces is returned by Compute for fewer than two spaces.
var ErrTooFewSpaces = errors.New("portability compares two or more spaces of one kernel")

// Compute builds the portability matrix of spaces, which must be two or more spaces of
// one kernel: the same parameter names (in any order), the same objective and direction,
// and every space with a value for at least one configuration. Configurations are matched
// by their parameters' values (numbers by value: 32 and 32.0 are one); a configuration
// recorded twice in a space counts with its last value, as result.Recording.KeepLast
// keeps it. A best configuration that the other space lacks or that failed there is a
// failing cell, not a number. The objective's values must be positive, as a percentage
// of performance is a ratio.
func Compute(spaces []Space) (*Matrix, error) {
	if len(spaces) < 2 {
		if len(spaces) == 1 {
			return nil, fmt.Errorf("%w: only %s was given", ErrTooFewSpaces, spaces[0].Name)
		}
		return nil, ErrTooFewSpaces
	}
	first := &spaces[0]
	m := &Matrix{Objective: first.Objective.Name, Maximize: first.Objective.Maximize, Params: slices.Clone(first.Params)}
	names := map[string]bool{}
	for i := range spaces {
		s := &spaces[i]
		if names[s.Name] {
			return nil, fmt.Errorf("%s is given twice", s.Name)
		}
		names[s.Name] = true
		if err := sameKernel(first, s); err != nil {
			return nil, err
		}
		if err := checkValues(s); err != nil {
			return nil, err
		}
	}
	m.Warnings = append(m.Warnings, inputWarnings(spaces)...)

	// each space's values by configuration, the parameters in the first space's order
	type entry struct {
		value float64
		fail  string
	}
	tables := make([]map[string]entry, len(spaces))
	bests := make([]int, len(spaces))
	for i := range spaces {
		s := &spaces[i]
		order, _ := paramOrder(first.Params, s.Params)
		tables[i] = make(map[string]entry, len(s.Configs))
		for k, c := range s.Configs {
			tables[i][configKey(c, order)] = entry{s.Values[k], s.Failures[k]}
		}
		bests[i] = s.best()
		if bests[i] < 0 {
			return nil, fmt.Errorf("%s: none of its %d configurations has a value of %s: nothing is tuned on it", s.Name, len(s.Configs), s.Objective.Name)
		}
		t := Tuned{Name: s.Name, Device: s.Device, ProblemSize: s.ProblemSize, Configurations: len(tables[i]),
			Best: s.Values[bests[i]], BestConfig: named(s.Params, s.Configs[bests[i]])}
		for _, e := range tables[i] {
			if valid(e.value) {
				t.Valid++
			}
		}
		m.Spaces = append(m.Spaces, t)
	}

	m.Cells = make([][]Cell, len(spaces))
	var ran []float64
	for i := range spaces {
		order, _ := paramOrder(first.Params, spaces[i].Params)
		key := configKey(spaces[i].Configs[bests[i]], order)
		m.Cells[i] = make([]Cell, len(spaces))
		for j := range spaces {
			e, ok := tables[j][key]
			c := &m.Cells[i][j]
			switch {
			case !ok:
				c.Fails = "absent"
			case !valid(e.value):
				c.Fails = e.fail
				if c.Fails == "" {
					c.Fails = "no value"
				}
			}
			if c.Fails != "" {
				c.Percent, c.Value = stats.Float(math.NaN()), stats.Float(math.NaN())
			} else {
				c.Value = stats.Float(e.value)
				c.Percent = stats.Float(Percent(e.value, m.Spaces[j].Best, m.Maximize))
			}
			if i == j {
				continue
			}
			m.Summary.Pairs++
			if c.Fails != "" {
				m.Summary.Failed++
				continue
			}
			p := float64(c.Percent)
			if len(ran) == 0 || p < float64(m.Summary.Worst) {
				m.Summary.Worst, m.Summary.WorstRow, m.Summary.WorstColumn = c.Percent, spaces[i].Name, spaces[j].Name
			}
			ran = append(ran, p)
		}
	}
	m.Summary.Mean, m.Summary.Stdev = stats.Float(math.NaN()), stats.Float(math.NaN())
	if len(ran) == 0 {
		m.Summary.Worst = stats.Float(math.NaN())
	} else {
		mean, sd := meanStdev(ran)
		m.Summary.Mean, m.Summary.Stdev = stats.Float(mean), stats.Float(sd)
	}
	return m, nil
}

// sameKernel refuses a space s that cannot be compared with first: other parameters or
// another objective or direction.
func sameKernel(first, s *Space) error {
	if _, err := paramOrder(first.Params, s.Params); err != nil {
		return fmt.Errorf("%s and %s are not spaces of one kernel: %w", first.Name, s.Name, err)
	}
	if s.Objective.Name != first.Objective.Name {
		return fmt.Errorf("%s's objective is %s and %s's is %s: give one both have with --objective", first.Name, first.Objective.Name, s.Name, s.Objective.Name)
	}
	if s.Objective.Maximize != first.Objective.Maximize {
		return fmt.Errorf("%s is better %s in %s and %s in %s: say which with --maximize or --minimize",
			first.Objective.Name, higherLower(first.Objective.Maximize), first.Name, higherLower(s.Objective.Maximize), s.Name)
	}
	return nil
}

// checkValues refuses a space with a value that is not positive: its percentages of
// performance would be no ratios.
func checkValues(s *Space) error {
	if len(s.Configs) != len(s.Values) || len(s.Failures) != len(s.Values) {
		return fmt.Errorf("%s: %d configurations, %d values and %d failures", s.Name, len(s.Configs), len(s.Values), len(s.Failures))
	}
	for k, v := range s.Values {
		if valid(v) && v <= 0 {
			return fmt.Errorf("%s: %s is %g at %s: a percentage of performance needs positive values", s.Name, s.Objective.Name, v, named(s.Params, s.Configs[k]))
		}
	}
	return nil
}

// inputWarnings says what makes a matrix mix more than devices: other kernels' names,
// other problem sizes, where the spaces record them.
func inputWarnings(spaces []Space) []string {
	var ws []string
	var kernels, sizes []string
	for i := range spaces {
		// one that does not say is no other
		if k := spaces[i].Kernel; k != "" && !slices.Contains(kernels, k) {
			kernels = append(kernels, k)
		}
		if p := spaces[i].ProblemSize; p != "" && !slices.Contains(sizes, p) {
			sizes = append(sizes, p)
		}
	}
	if len(kernels) > 1 {
		ws = append(ws, fmt.Sprintf("the spaces name different kernels (%s): they are compared as one, since their parameters are the same", strings.Join(kernels, ", ")))
	}
	if len(sizes) > 1 {
		ws = append(ws, fmt.Sprintf("the spaces were measured on different problem sizes (%s): each column is relative to its own best, but a row's best may differ by input as well as by device (seed 003's Table 9)", strings.Join(sizes, ", ")))
	}
	return ws
}

// paramOrder gives, for each of want's names, its position in have: an error when the
// two are not the same set of names.
func paramOrder(want, have []string) ([]int, error) {
	pos := make(map[string]int, len(have))
	for i, n := range have {
		pos[n] = i
	}
	var missing, extra []string
	order := make([]int, len(want))
	for i, n := range want {
		j, ok := pos[n]
		if !ok {
			missing = append(missing, n)
			continue
		}
		order[i] = j
		delete(pos, n)
	}
	for _, n := range have {
		if _, ok := pos[n]; ok {
			extra = append(extra, n)
		}
	}
	if len(missing) > 0 || len(extra) > 0 {
		var parts []string
		if len(missing) > 0 {
			parts = append(parts, "the second lacks "+strings.Join(missing, ", "))
		}
		if len(extra) > 0 {
			parts = append(parts, "the second has "+strings.Join(extra, ", ")+" besides")
		}
		return nil, fmt.Errorf("different parameters (%s)", strings.Join(parts, "; "))
	}
	return order, nil
}

// configKey writes a configuration's values in the order given, numbers by value so that
// an integer and the same float are one key.
func configKey(c []space.Value, order []int) string {
	var b strings.Builder
	for i, j := range order {
		if i > 0 {
			b.WriteByte(',')
		}
		if j >= len(c) {
			b.WriteString("?")
			continue
		}
		v := c[j]
		if v.IsNumeric() {
			b.WriteString(strconv.FormatFloat(v.Float(), 'g', -1, 64))
		} else {
			b.WriteString(strconv.Quote(v.Str()))
		}
	}
	return b.String()
}

func named(params []string, c []space.Value) space.Named {
	return space.Named{Names: slices.Clone(params), Values: slices.Clone(c)}
}

func meanStdev(xs []float64) (mean, sd float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		sd += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sd / float64(len(xs)))
}

func higherLower(maximize bool) string {
	if maximize {
		return "higher"
	}
	return "lower"
}
