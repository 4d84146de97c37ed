package benchmark

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// CellError is a cell read from a file of 'ktune bench' or 'ktune hypertune' (its --json
// output or --checkpoint file) that no run produced: a value of the wrong type, or
// contents no run can have (an edited or damaged file). It names the cell by its place in
// the file and by its strategy, space and budget, as far as they were read.
type CellError struct {
	Index, Of int  // its place in the file's list, from 0, and the cells in the list
	Cell      Cell // what was read of it
	What      string
}

// Error names the cell by its position, strategy, space and budget, and what is wrong with it.
func (e *CellError) Error() string {
	name := func(s, none string) string {
		if s == "" {
			return none
		}
		return s
	}
	return fmt.Sprintf("cell %d of %d (%s on %s at budget %d): %s", e.Index+1, e.Of,
		name(e.Cell.Strategy, "no strategy"), name(e.Cell.Space, "no space"), e.Cell.Budget, e.What)
}

// DecodeCells reads the "cells" list of a file of 'ktune bench' or 'ktune hypertune' one
// cell at a time, so that an error names the cell (a *CellError), and checks them with
// CheckCells against the file's repeats (0 when the file does not say). A null where a
// number belongs is an error, not a 0 as encoding/json takes it; a number the file lacks
// (us_per_evaluation in files of earlier versions) is 0.
func DecodeCells(raw json.RawMessage, repeats int) ([]Cell, error) {
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("cells is %s, want a list of cells", jsonKindOf(raw))
	}
	cells := make([]Cell, len(list))
	for i, r := range list {
		var what string
		if cells[i], what = decodeCell(r); what != "" {
			return nil, &CellError{Index: i, Of: len(list), Cell: cells[i], What: what}
		}
	}
	if err := CheckCells(cells, repeats); err != nil {
		return nil, err
	}
	return cells, nil
}

// decodeCell reads one cell, field by field; what says the first thing wrong, "" for none.
func decodeCell(raw json.RawMessage) (c Cell, what string) {
	var f struct {
		Strategy  json.RawMessage `json:"strategy"`
		Space     json.RawMessage `json:"space"`
		Budget    json.RawMessage `json:"budget"`
		Mean      json.RawMessage `json:"mean_fraction_of_optimum"`
		Std       json.RawMessage `json:"std_fraction_of_optimum"`
		Evals     json.RawMessage `json:"mean_evaluations"`
		Micros    json.RawMessage `json:"us_per_evaluation"`
		Fractions json.RawMessage `json:"fractions"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		return c, "not an object but " + jsonKindOf(raw)
	}
	// the names first, so that an error further on names the cell
	fields := []struct {
		name string
		raw  json.RawMessage
		to   any
	}{
		{"strategy", f.Strategy, &c.Strategy}, {"space", f.Space, &c.Space}, {"budget", f.Budget, &c.Budget},
		{"mean_fraction_of_optimum", f.Mean, &c.MeanFraction}, {"std_fraction_of_optimum", f.Std, &c.StdFraction},
		{"mean_evaluations", f.Evals, &c.MeanEvaluations}, {"us_per_evaluation", f.Micros, &c.MicrosPerEvaluation},
	}
	for _, fd := range fields {
		if what := decodeValue(fd.name, fd.raw, fd.to); what != "" {
			return c, what
		}
	}
	if f.Fractions == nil {
		return c, "it has no fractions"
	}
	var fractions []json.RawMessage
	if err := json.Unmarshal(f.Fractions, &fractions); err != nil {
		return c, "fractions is " + jsonKindOf(f.Fractions) + ", want a list of numbers"
	}
	c.Fractions = make([]float64, len(fractions))
	for i, r := range fractions {
		if what := decodeValue(fmt.Sprintf("fraction %d of %d", i+1, len(fractions)), r, &c.Fractions[i]); what != "" {
			return c, what
		}
	}
	return c, ""
}

// decodeValue decodes one value of a cell into to, saying what is wrong with it: null,
// another kind of JSON, a fraction where a whole number belongs, or a number out of range.
// A value that is absent (nil) leaves to as it is.
func decodeValue(name string, raw json.RawMessage, to any) string {
	if raw == nil {
		return ""
	}
	if bytes.Equal(raw, []byte("null")) {
		return name + " is null"
	}
	if err := json.Unmarshal(raw, to); err != nil {
		_, wantString := to.(*string)
		if text := string(raw); !wantString && (text[0] == '-' || text[0] >= '0' && text[0] <= '9') {
			if _, err := strconv.ParseFloat(text, 64); err != nil {
				return fmt.Sprintf("%s is %s, beyond the range of numbers", name, text)
			}
			return fmt.Sprintf("%s is %s, want a whole number", name, text)
		}
		want := "a number"
		if wantString {
			want = "a string"
		}
		return fmt.Sprintf("%s is %s, want %s", name, jsonKindOf(raw), want)
	}
	return ""
}

// jsonKindOf names the kind of a JSON value, for errors: "a JSON string", "a JSON list".
func jsonKindOf(raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return "nothing"
	}
	switch t[0] {
	case '{':
		return "a JSON object"
	case '[':
		return "a JSON list"
	case '"':
		return "a JSON string"
	case 't', 'f':
		return "true or false"
	case 'n':
		return "null"
	}
	return "a JSON number"
}

// tolerance is how far a cell's mean and standard deviation may be from those of its
// fractions: far more than the rounding of a sum of a few thousand fractions, far less
// than any difference a table shows.
const tolerance = 1e-9

// CheckCells checks cells read from a file of 'ktune bench' or 'ktune hypertune' against
// what every run writes, so that an edited or damaged file is refused, naming the cell
// (a *CellError), rather than taken as it is or dropped in silence: strategy and space
// named, budget of 1 or more, as many fractions as the file's repeats (or, where the
// file does not say, as the first cell) and at least 2, each finite and in [0, 1] (1 the optimum, 0 a
// run that found nothing), the mean and standard deviation those of the fractions,
// mean evaluations in [0, budget], cost not negative, and no two cells of one strategy
// (a label, which names its options), space and budget.
func CheckCells(cells []Cell, repeats int) error {
	type key struct {
		strategy, space string
		budget          int
	}
	seen := make(map[key]int, len(cells))
	for i, c := range cells {
		fail := func(format string, a ...any) error {
			return &CellError{Index: i, Of: len(cells), Cell: c, What: fmt.Sprintf(format, a...)}
		}
		switch {
		case c.Strategy == "":
			return fail("it names no strategy")
		case c.Space == "":
			return fail("it names no space")
		case c.Budget < 1:
			return fail("a budget is 1 evaluation or more")
		case repeats > 0 && len(c.Fractions) != repeats:
			return fail("it has %s, one per run, but the file has %d repeats", fractions(len(c.Fractions)), repeats)
		case repeats == 0 && i == 0 && len(c.Fractions) == 0:
			return fail("it has no fractions")
		case repeats == 0 && len(c.Fractions) != len(cells[0].Fractions):
			return fail("it has %s, one per run, but cell 1 has %d", fractions(len(c.Fractions)), len(cells[0].Fractions))
		case len(c.Fractions) < 2:
			// 'ktune bench' and 'hypertune' refuse fewer repeats: no t-test, no interval
			return fail("it has %s: a benchmark runs every cell 2 or more times, as its t-tests need", fractions(len(c.Fractions)))
		}
		for j, f := range c.Fractions {
			if !(f >= 0 && f <= 1) {
				return fail("fraction %d of %d is %g, outside [0, 1] (1 is the optimum, 0 a run that found nothing)", j+1, len(c.Fractions), f)
			}
		}
		mean, std := meanStd(c.Fractions)
		switch {
		case !(math.Abs(c.MeanFraction-mean) <= tolerance):
			return fail("mean_fraction_of_optimum %g is not the mean of its fractions, %g", c.MeanFraction, mean)
		case !(math.Abs(c.StdFraction-std) <= tolerance):
			return fail("std_fraction_of_optimum %g is not the standard deviation of its fractions, %g", c.StdFraction, std)
		case !(c.MeanEvaluations >= 0 && c.MeanEvaluations <= float64(c.Budget)):
			return fail("mean_evaluations %g is outside [0, %d], its budget", c.MeanEvaluations, c.Budget)
		case !(c.MicrosPerEvaluation >= 0):
			return fail("us_per_evaluation %g is negative", c.MicrosPerEvaluation)
		}
		k := key{c.Strategy, c.Space, c.Budget}
		if first, dup := seen[k]; dup {
			return fail("cell %d has the same strategy, space and budget: a cell is in a file once", first+1)
		}
		seen[k] = i
	}
	return nil
}

// fractions is "1 fraction", "n fractions".
func fractions(n int) string {
	if n == 1 {
		return "1 fraction"
	}
	return fmt.Sprintf("%d fractions", n)
}

// meanStd is the mean of x and its sample standard deviation (n-1; 0 for one value), as
// a cell holds them.
func meanStd(x []float64) (mean, std float64) {
	if len(x) == 0 {
		return 0, 0
	}
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	if len(x) < 2 {
		return mean, 0
	}
	for _, v := range x {
		std += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(std / float64(len(x)-1))
}

// CheckDescribed checks the cells of a file of 'ktune bench' against what the file says
// of its run (its strategies, spaces and budgets; info's others are not read), and that
// description itself, so that an edited or damaged file is refused rather than its
// cells of a strategy, space or budget it does not describe counted as of another
// benchmark and run again in silence: entries labelled, each once, naming a strategy,
// with options only at budgets the file lists; spaces named, each once, of 1
// configuration or more and a finite optimum; budgets of 1 or more, each once; and every
// cell of a listed strategy, space and budget (a *CellError). A list the file does not
// have (nil: files of earlier versions lack the budgets) is not checked; an empty one
// lists nothing.
func CheckDescribed(info RunInfo, cells []Cell) error {
	budgets, err := listedBudgets(info.Budgets)
	if err != nil {
		return err
	}
	labels := listed[string](info.Strategies != nil)
	for i, st := range info.Strategies {
		entry := fmt.Sprintf("strategies: entry %d of %d (%s)", i+1, len(info.Strategies), st.Label)
		switch {
		case st.Label == "":
			return fmt.Errorf("strategies: entry %d of %d has no label", i+1, len(info.Strategies))
		case labels[st.Label]:
			return fmt.Errorf("%s: another entry has that label: a label is in the file once", entry)
		case st.Name == "":
			return fmt.Errorf("%s names no strategy", entry)
		}
		labels[st.Label] = true
		for b := range st.Options {
			n, err := strconv.Atoi(b)
			switch {
			case err != nil || n < 1:
				return fmt.Errorf("%s: options at %q, which is no budget", entry, b)
			case budgets != nil && !budgets[n]:
				return fmt.Errorf("%s: options at budget %d, which is not among the file's budgets (%s)", entry, n, intList(info.Budgets))
			}
		}
	}
	spaces := listed[string](info.Spaces != nil)
	for i, sp := range info.Spaces {
		switch {
		case sp.Name == "":
			return fmt.Errorf("spaces: space %d of %d has no name", i+1, len(info.Spaces))
		case spaces[sp.Name]:
			return fmt.Errorf("spaces: %s is listed twice", sp.Name)
		case sp.Configurations < 1:
			return fmt.Errorf("spaces: %s has %d configurations, want 1 or more", sp.Name, sp.Configurations)
		case math.IsNaN(sp.Optimum) || math.IsInf(sp.Optimum, 0):
			return fmt.Errorf("spaces: %s has optimum %g, want a finite number", sp.Name, sp.Optimum)
		}
		spaces[sp.Name] = true
	}
	return checkCellsListed(cells, labels, spaces, budgets, "strategy", "strategies")
}

// checkCellsListed refuses, as a *CellError, the first cell whose strategy (a setting's
// label in a hypertune's files: kind, kinds), space or budget is not among those its file
// lists; a nil set (a list the file does not have) is not checked, an empty one lists
// nothing.
func checkCellsListed(cells []Cell, labels, spaces map[string]bool, budgets map[int]bool, kind, kinds string) error {
	for i, c := range cells {
		what := ""
		switch {
		case labels != nil && !labels[c.Strategy]:
			what = fmt.Sprintf("its %s %s is not among the file's %s", kind, c.Strategy, kinds)
		case spaces != nil && !spaces[c.Space]:
			what = fmt.Sprintf("its space %s is not among the file's spaces", c.Space)
		case budgets != nil && !budgets[c.Budget]:
			what = fmt.Sprintf("its budget %d is not among the file's budgets", c.Budget)
		}
		if what != "" {
			return &CellError{Index: i, Of: len(cells), Cell: c, What: what}
		}
	}
	return nil
}

// listed returns the set of a list a file has (empty, to be filled), or nil for a list it
// does not have, which is not checked.
func listed[K comparable](has bool) map[K]bool {
	if !has {
		return nil
	}
	return map[K]bool{}
}

// listedBudgets is the set of a file's budgets (nil for a file without the list), each
// checked: 1 evaluation or more, and listed once.
func listedBudgets(list []int) (map[int]bool, error) {
	budgets := listed[int](list != nil)
	for i, b := range list {
		switch {
		case b < 1:
			return nil, fmt.Errorf("budgets: budget %d of %d is %d: a budget is 1 evaluation or more", i+1, len(list), b)
		case budgets[b]:
			return nil, fmt.Errorf("budgets: budget %d is listed twice", b)
		}
		budgets[b] = true
	}
	return budgets, nil
}

// intList writes budgets as "25, 50, 100".
func intList(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}
