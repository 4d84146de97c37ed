package benchmark

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/ktune/ktune/format"
	"github.com/ktune/ktune/internal/outfile"
	"github.com/ktune/ktune/simulator"
	"github.com/ktune/ktune/strategy"
)

// Defaults are a strategy's hyperparameters chosen per budget, as `ktune hypertune` writes
// them and `ktune tune`, `simulate` and `bench` read them with --defaults: seed 000's Table
// III for one strategy, tuned on the user's own recorded spaces.
type Defaults struct {
	Strategy string           `json:"strategy"`
	Budgets  []BudgetDefaults `json:"budgets"` // ascending budgets
	// How they were chosen, for the record; reading checks the mode and fitness (one a
	// run has, where given) and uses none of them.
	Mode           string   `json:"mode,omitempty"`
	Fitness        string   `json:"fitness,omitempty"`
	Repeats        int      `json:"repeats,omitempty"`
	TrainingSpaces []string `json:"training_spaces,omitempty"`
	Grid           string   `json:"grid,omitempty"`
	// Path is the file it was read from (LoadDefaults), for errors.
	Path string `json:"-"`
}

// Unlike says how a simulated run in mode and fitness differs from the runs the defaults
// were chosen from, where the file records them ("" when it does not differ, or the file
// does not say): the choices are still used, but they were best for other runs (cartesian
// mode's failures cost budget, recorded mode's restrictions are known; a stochastic
// fitness misleads a strategy as a deterministic one does not).
func (d *Defaults) Unlike(mode simulator.Mode, fitness simulator.Fitness) string {
	var theirs, ours []string
	if m, err := simulator.ParseMode(d.Mode); d.Mode != "" && err == nil && m != mode {
		theirs, ours = append(theirs, m.String()+" mode"), append(ours, mode.String()+" mode")
	}
	if f, err := simulator.ParseFitness(d.Fitness); d.Fitness != "" && err == nil && f != fitness {
		theirs, ours = append(theirs, f.String()+" fitness"), append(ours, fitness.String()+" fitness")
	}
	if len(theirs) == 0 {
		return ""
	}
	return fmt.Sprintf("defaults file %s was chosen for %s; this run has %s: its choices are used, but they were the best for other runs (give --mode and --fitness as hypertune had them to compare like with like)",
		d.Path, strings.Join(theirs, " and "), strings.Join(ours, " and "))
}

// BudgetDefaults is one budget column: the options chosen for runs of that budget.
type BudgetDefaults struct {
	Budget  int            `json:"budget"`
	Options map[string]any `json:"options"`
}

// DefaultsFileError is an error in a defaults file itself (it cannot be read, is not a
// defaults file, or holds what no run can use), as against in the command line that names
// it: a command says it without its usage.
type DefaultsFileError struct{ Err error }

// Error is the file's problem, as the wrapped error says it.
func (e *DefaultsFileError) Error() string { return e.Err.Error() }

// Unwrap returns the problem in the file.
func (e *DefaultsFileError) Unwrap() error { return e.Err }

// LoadDefaults reads a defaults file and checks it: a registered strategy, positive
// distinct budgets (sorted on reading), options the strategy accepts at each (an object,
// {} for none), and a mode and fitness, where it names them, that a run has. Its errors
// are *DefaultsFileError.
func LoadDefaults(path string) (*Defaults, error) {
	fail := func(format string, a ...any) error { return &DefaultsFileError{fmt.Errorf(format, a...)} }
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &DefaultsFileError{err}
	}
	if why := format.NotJSONObject(data); why != "" {
		return nil, fail("%s: not a defaults file: %s; %s", path, why, whatDefaultsAre)
	}
	var d Defaults
	if err := json.Unmarshal(data, &d); err != nil {
		if what := otherFile(data); what != "" {
			return nil, fail("%s: not a defaults file, but %s; %s", path, what, whatDefaultsAre)
		}
		return nil, fail("defaults file %s: %s", path, format.JSONError(data, err))
	}
	if err := d.check(); err != nil {
		if what := otherFile(data); what != "" {
			return nil, fail("%s: not a defaults file, but %s; %s", path, what, whatDefaultsAre)
		}
		return nil, fail("defaults file %s: %w", path, err)
	}
	d.Path = path
	return &d, nil
}

// whatDefaultsAre says what a defaults file is, for errors of files that are not one.
const whatDefaultsAre = "a defaults file is what 'ktune hypertune' writes to --out (NAME.defaults.json by default): a strategy and its options per budget"

// otherFile names the ktune output data holds when it is one that is not a defaults file
// (a benchmark's or a hypertune's JSON or checkpoint), and "" when it is none of them.
func otherFile(data []byte) string {
	var f struct {
		Cells       json.RawMessage `json:"cells"`
		Competition json.RawMessage `json:"competition"`
		Settings    json.RawMessage `json:"settings"`
		Written     string          `json:"defaults_file"`
	}
	if json.Unmarshal(data, &f) != nil {
		return ""
	}
	switch {
	case f.Settings != nil && f.Written != "":
		return fmt.Sprintf("the --json output of 'ktune hypertune', whose defaults file is %s", f.Written)
	case f.Settings != nil:
		return "the --json output or a --checkpoint file of 'ktune hypertune', whose defaults file is its --out"
	case f.Cells != nil && f.Competition != nil:
		return "the --json output of 'ktune bench' (a benchmark's cells)"
	case f.Cells != nil:
		return "a --checkpoint file of 'ktune bench' (a benchmark's cells)"
	}
	return ""
}

func (d *Defaults) check() error {
	if d.Strategy == "" && len(d.Budgets) == 0 {
		return errors.New("not a defaults file: it names no strategy and no budgets (write one with 'ktune hypertune')")
	}
	if _, ok := strategy.Lookup(d.Strategy); !ok {
		return fmt.Errorf("unknown strategy %q", d.Strategy)
	}
	if len(d.Budgets) == 0 {
		return errors.New("no budgets")
	}
	sort.SliceStable(d.Budgets, func(i, j int) bool { return d.Budgets[i].Budget < d.Budgets[j].Budget })
	for i, b := range d.Budgets {
		switch {
		case b.Budget <= 0:
			return fmt.Errorf("budget %d is not positive", b.Budget)
		case i > 0 && b.Budget == d.Budgets[i-1].Budget:
			return fmt.Errorf("budget %d is given twice", b.Budget)
		case b.Options == nil:
			// hypertune writes {} for none; null is an edit, which would run the
			// strategy's built-in options under the file's name
			return fmt.Errorf("budget %d: options is null or missing: want an object of the options chosen for that budget ({} for none)", b.Budget)
		}
		for _, name := range slices.Sorted(maps.Keys(b.Options)) {
			// hypertune writes none; a strategy would take some as not set, others not
			if b.Options[name] == nil {
				return fmt.Errorf("budget %d: option %s is null: give its value, or leave it out for the strategy's default", b.Budget, name)
			}
		}
		if _, err := strategy.New(d.Strategy, b.Options); err != nil {
			return fmt.Errorf("budget %d: %w", b.Budget, err)
		}
	}
	// for the record, but a record no run has is an edit or damage
	if _, err := simulator.ParseMode(d.Mode); d.Mode != "" && err != nil {
		return fmt.Errorf("mode: %w", err)
	}
	if _, err := simulator.ParseFitness(d.Fitness); d.Fitness != "" && err != nil {
		return fmt.Errorf("fitness: %w", err)
	}
	return nil
}

// Save writes d as indented JSON, whole or not at all (outfile.Write).
func (d *Defaults) Save(path string) error {
	data, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return err
	}
	return outfile.Write(path, func(w io.Writer) error {
		_, err := w.Write(append(data, '\n'))
		return err
	})
}

// For returns the options for a run of the given budget: those of the largest budget
// column not above it; a budget below every column takes the smallest, and no budget (0,
// a run ended by time) the largest, as Table III's defaults do. The map is a copy.
func (d *Defaults) For(budget int) map[string]any {
	if len(d.Budgets) == 0 {
		return map[string]any{}
	}
	out := maps.Clone(d.column(budget).Options)
	if out == nil {
		out = map[string]any{}
	}
	return out
}

// column is the budget column For takes for a run of the given budget; len(d.Budgets) > 0.
func (d *Defaults) column(budget int) BudgetDefaults {
	col := d.Budgets[0]
	if budget <= 0 {
		col = d.Budgets[len(d.Budgets)-1]
	}
	for _, b := range d.Budgets {
		if budget > 0 && b.Budget <= budget {
			col = b
		}
	}
	return col
}

// Source says where the options Merge(budget, explicit) come from, for an error of
// options that do not fit a run's space or budget, which would otherwise name an option
// the command line does not have: "defaults file F, its column for budget C", and "with
// the options given on top" when explicit has any.
func (d *Defaults) Source(budget int, explicit map[string]any) string {
	if len(d.Budgets) == 0 {
		return ""
	}
	name := d.Path
	if name == "" {
		name = "of " + d.Strategy
	}
	src := fmt.Sprintf("the options are defaults file %s's for budget %d", name, d.column(budget).Budget)
	if len(explicit) > 0 {
		src += ", with those given on top"
	}
	return src
}

// Merge returns the options of For(budget) with explicit set on top: an option the user
// set is never overridden by the file.
func (d *Defaults) Merge(budget int, explicit map[string]any) map[string]any {
	out := d.For(budget)
	maps.Copy(out, explicit)
	return out
}

// AttachDefaults reads spec, "[LABEL=]FILE" as `ktune bench --defaults` takes it, and
// attaches the defaults file to the strategy entry with that label, or without a label to
// every entry of the file's strategy. It is an error when no entry takes the file or the
// labelled entry runs another strategy.
func AttachDefaults(strategies []Strategy, spec string) error {
	path, label := spec, ""
	if l, p, ok := strings.Cut(spec, "="); ok {
		for _, st := range strategies {
			if st.DisplayName() == l {
				path, label = p, l
			}
		}
		if _, err := os.Stat(spec); label == "" && err != nil {
			// LABEL=FILE, but no entry has that label (and no file has that name)
			var names []string
			for _, st := range strategies {
				names = append(names, st.DisplayName())
			}
			return fmt.Errorf("%s: no strategy entry is labelled %q (the entries are %s)", spec, l, strings.Join(names, ", "))
		}
	}
	d, err := LoadDefaults(path)
	if err != nil {
		return err
	}
	used := false
	for i := range strategies {
		st := &strategies[i]
		switch {
		case label != "" && st.DisplayName() != label:
		case st.Name == d.Strategy:
			// A file for a labelled entry is more specific than one for every entry of the
			// strategy, whichever comes first; two of a kind for one entry are an error.
			if st.Defaults != nil && st.labelledDefaults == (label != "") {
				return fmt.Errorf("%s: entry %s already takes its options from another defaults file; give each entry one (label the entries, 'a=%s,b=%s', and give --defaults a=FILE)",
					path, st.DisplayName(), st.Name, st.Name)
			}
			used = true
			if st.Defaults != nil && st.labelledDefaults {
				continue
			}
			st.Defaults, st.labelledDefaults = d, label != ""
		case label != "":
			return fmt.Errorf("%s holds options for %s, but %s runs %s", path, d.Strategy, label, st.Name)
		}
	}
	if !used {
		return fmt.Errorf("%s holds options for %s, which no strategy entry runs", path, d.Strategy)
	}
	return nil
}
