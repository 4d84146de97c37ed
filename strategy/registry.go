package strategy

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/ktune/ktune/expr"
)

// builtin lists the strategies this package provides: one line per strategy file.
var builtin = []struct {
	name string
	f    Factory
}{
	{"bruteforce", bruteForceFactory},
	{"random", randomFactory},
	{"firstmls", firstMLSFactory},
	{"bestmls", bestMLSFactory},
	{"firstils", firstILSFactory},
	{"bestils", bestILSFactory},
	{"firsttabu", firstTabuFactory},
	{"besttabu", bestTabuFactory},
	{"annealing", annealingFactory},
	{"genetic", geneticFactory},
	{"mpga", mpgaFactory},
	{"pso", psoFactory},
	{"firefly", fireflyFactory},
	{"diffevo", diffevoFactory},
	{"basinhopping", basinHoppingFactory},
	{"dualannealing", dualAnnealingFactory},
	{"irace", iraceFactory},
	{"bayes", bayesFactory},
	{"auto", autoFactory},
	{"gls", glsFactory},
	{"greedymls", greedyMLSFactory},
	{"greedyils", greedyILSFactory},
	{"smac", smacFactory},
	{"saltelli", saltelliFactory},
	{"profile", profileFactory},
}

func init() {
	for _, b := range builtin {
		Register(b.name, b.f)
	}
}

// Factory builds a strategy from its options and documents them for `ktune help strategies`.
type Factory struct {
	// Doc describes the strategy in a few sentences: what it does and when to use it.
	Doc string
	// Options are the options New accepts; any other name is rejected, so a typo cannot
	// silently run a strategy with its defaults.
	Options []Option
	// New builds the strategy; opts holds only names listed in Options.
	New func(opts Options) (Strategy, error)
}

// Option documents one option of a strategy.
type Option struct {
	Name    string // as written in opts, e.g. "neighbourhood"
	Default string // the default as the user would write it, or how it follows from the budget
	Doc     string // one line: what it changes
	// Kind is how New reads the option's values (IntKind, ChoiceKind...), so that
	// Canonical writes every spelling of a value one way; the zero Kind keeps values as
	// given.
	Kind Kind
}

var (
	registryMu sync.RWMutex
	registry   = map[string]Factory{}
)

// Register makes a strategy available to New under name. It panics when the name is empty
// or taken or f has no New function, because those are programming errors that must show
// up at start-up.
func Register(name string, f Factory) {
	registryMu.Lock()
	defer registryMu.Unlock()
	switch {
	case name == "":
		panic("strategy: Register with an empty name")
	case f.New == nil:
		panic("strategy: Register " + name + " without a New function")
	}
	if _, dup := registry[name]; dup {
		panic("strategy: Register called twice for " + name)
	}
	registry[name] = f
}

// New builds the strategy registered under name with the given options (nil for the
// defaults).
func New(name string, opts map[string]any) (Strategy, error) {
	f, ok := Lookup(name)
	if !ok {
		return nil, UnknownStrategy(name)
	}
	known := make([]string, len(f.Options))
	for i, o := range f.Options {
		known[i] = o.Name
	}
	var unknown []string
	for k := range opts {
		if !slices.Contains(known, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		want := "it has no options"
		if len(known) > 0 {
			want = "want " + strings.Join(known, ", ")
		}
		if c := expr.Closest(unknown[0], known); c != "" {
			want += fmt.Sprintf("; did you mean %s?", c)
		}
		return nil, fmt.Errorf("strategy %s: unknown option %s (%s)", name, strings.Join(unknown, ", "), want)
	}
	s, err := f.New(Options(opts))
	if err != nil {
		return nil, fmt.Errorf("strategy %s: %w", name, err)
	}
	return s, nil
}

// kernelTunerNames maps the names of Kernel Tuner's strategies (its strategies/ modules, as
// its tune_kernel takes them) that ktune spells otherwise to ktune's strategy of the same
// algorithm, for users who bring their scripts' names along (basinhopping and pso are
// spelled alike).
var kernelTunerNames = map[string]string{
	"bayes_opt":           "bayes",
	"brute_force":         "bruteforce",
	"diff_evo":            "diffevo",
	"dual_annealing":      "dualannealing",
	"firefly_algorithm":   "firefly",
	"genetic_algorithm":   "genetic",
	"greedy_ils":          "greedyils",
	"greedy_mls":          "greedymls",
	"mls":                 "firstmls",
	"ordered_greedy_mls":  "greedymls",
	"random_sample":       "random",
	"simulated_annealing": "annealing",
}

// UnknownStrategy is the error for a name no strategy is registered under: it lists the
// names and suggests the likely one (names are lower case; a typo has a near name; a
// Kernel Tuner name has its ktune counterpart).
func UnknownStrategy(name string) error {
	names := Names()
	hint := ""
	if kt, ok := kernelTunerNames[strings.ToLower(name)]; ok && slices.Contains(names, kt) {
		hint = fmt.Sprintf("; Kernel Tuner's %s is ktune's %s", strings.ToLower(name), kt)
		if strings.EqualFold(name, "ordered_greedy_mls") {
			hint += " with its option order"
		}
	} else if i := slices.IndexFunc(names, func(n string) bool { return strings.EqualFold(n, name) }); i >= 0 {
		hint = fmt.Sprintf("; names are case-sensitive: did you mean %s?", names[i])
	} else if c := expr.Closest(name, names); c != "" {
		hint = fmt.Sprintf("; did you mean %s?", c)
	}
	return fmt.Errorf("unknown strategy %q (want one of %s%s)", name, strings.Join(names, ", "), hint)
}

// Lookup returns the factory registered under name, for help texts.
func Lookup(name string) (Factory, bool) {
	registryMu.RLock()
	defer registryMu.RUnlock()
	f, ok := registry[name]
	return f, ok
}

// Names returns the registered strategy names, sorted.
func Names() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	out := make([]string, 0, len(registry))
	for n := range registry {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
