package strategy_test

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/ktune/ktune/strategy"
)

// Canonical writes every spelling of an option's value the one way its strategy reads
// it: a choice as the strategy lists it, a number as the int or float64 it is, a boolean
// as true or false, a list in brackets. A run is known by these, so that a command
// spelled otherwise resumes it.
func TestCanonicalWritesEverySpellingOfAValueOneWay(t *testing.T) {
	tests := []struct {
		strategy, option string
		spellings        []any
		want             any
	}{
		// choices, in any case and with blanks around
		{"firstmls", "neighbourhood", []any{"hamming", "Hamming", " HAMMING ", "hAmMiNg"}, "Hamming"},
		{"greedyils", "neighbourhood", []any{"Strictly-Adjacent", "strictly-adjacent"}, "strictly-adjacent"},
		{"irace", "testType", []any{"f-test", "F-TEST", "F-test"}, "F-test"},
		{"irace", "testType", []any{"T-Test-Holm"}, "t-test-holm"},
		{"genetic", "crossover", []any{"Uniform", "UNIFORM"}, "uniform"},
		{"gls", "selection", []any{"rts", "Rts"}, "RTS"},
		{"bayes", "start", []any{"Centre"}, "centre"},
		// the cube strategies' minimiser ignores case, '-' and '_', as SciPy spells them
		{"dualannealing", "method", []any{"Nelder-Mead", "NELDER_MEAD", "neldermead"}, "neldermead"},
		{"basinhopping", "method", []any{"COBYLA", "cobyla"}, "cobyla"},
		// integers, from the command line (text), Go, and JSON (float64, json.Number)
		{"bayes", "candidates", []any{"1e3", "1000", " 1000 ", "1000.0", "1E3", 1000, int64(1000), 1000.0, 1e3, json.Number("1000"), json.Number("1e3")}, 1000},
		{"genetic", "popsize", []any{"2e1", "20", 20.0, "20.00"}, 20},
		{"firsttabu", "tabu_size", []any{0, "0", "0.0", 0.0, "-0"}, 0},
		// numbers: a float64 however it was written, an integer among them
		{"bayes", "xi", []any{"0.50", "0.5", ".5", "5e-1", "5E-01", 0.5, json.Number("0.50")}, 0.5},
		{"bayes", "kappa", []any{2, "2", "2.0", 2.0, "2e0", json.Number("2")}, 2.0},
		{"annealing", "temperature", []any{"1e-2", "0.010", 0.01}, 0.01},
		{"dualannealing", "accept", []any{"-5", -5, "-5.0", "-5e0"}, -5.0},
		// booleans: what strconv.ParseBool takes, and the numbers 1 and 0
		{"firstmls", "restart", []any{true, "true", "True", "TRUE", "t", "T", "1", 1, 1.0, json.Number("1")}, true},
		{"irace", "elitist", []any{false, "false", "False", "f", "F", "0", 0, 0.0}, false},
		// lists: their items in brackets, in order
		{"greedymls", "order", []any{"x,y", " x , y ", "[x,y]", "[x, y]", "['x', 'y']", `["x","y"]`, []string{"x", "y"}, []any{"x", "y"}}, "[x,y]"},
		{"greedymls", "order", []any{2, "2", "[2]", 2.0, []any{2.0}}, "[2]"},
		{"saltelli", "params", []any{"b,a", "[b, a]"}, "[b,a]"},
	}
	for _, tt := range tests {
		for _, v := range tt.spellings {
			got, err := strategy.Canonical(tt.strategy, map[string]any{tt.option: v})
			if err != nil {
				t.Errorf("%s %s=%#v: %v", tt.strategy, tt.option, v, err)
				continue
			}
			if !reflect.DeepEqual(got, map[string]any{tt.option: tt.want}) {
				t.Errorf("%s %s=%#v: canonical %#v, want %#v", tt.strategy, tt.option, v, got[tt.option], tt.want)
			}
		}
	}
	// every option at once, and nothing added: an option not set stays unset, its
	// default depending on the budget
	got, err := strategy.Canonical("firstils", map[string]any{"neighbourhood": "adjacent ", "restart": "0",
		"perturbation_size": "0.50", "exit_after_no_improve": "1e2"})
	want := map[string]any{"neighbourhood": "adjacent", "restart": false, "perturbation_size": 0.5, "exit_after_no_improve": 100}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("firstils: %#v, %v; want %#v", got, err, want)
	}
	if got, err := strategy.Canonical("random", nil); err != nil || len(got) != 0 {
		t.Errorf("no options: %#v, %v", got, err)
	}
}

// What New refuses, Canonical refuses with New's error: an unknown option (with its
// suggestion), a value out of range or of the wrong kind.
func TestCanonicalRefusesWhatNewRefuses(t *testing.T) {
	for _, tc := range []struct {
		strategy string
		opts     map[string]any
	}{
		{"firstmls", map[string]any{"neighborhood": "Hamming"}},
		{"firstmls", map[string]any{"neighbourhood": "hamming-ish"}},
		{"bayes", map[string]any{"candidates": "1.5e3x"}},
		{"bayes", map[string]any{"candidates": 2.5}},
		{"bayes", map[string]any{"xi": "NaN"}},
		{"firstmls", map[string]any{"restart": "maybe"}},
		{"greedymls", map[string]any{"order": "a,a"}},
		{"nosuch", map[string]any{}},
	} {
		_, want := strategy.New(tc.strategy, tc.opts)
		_, err := strategy.Canonical(tc.strategy, tc.opts)
		if want == nil || err == nil || err.Error() != want.Error() {
			t.Errorf("%s %v: Canonical's error %v, New's %v", tc.strategy, tc.opts, err, want)
		}
	}
}

// SameOptions tells equal settings by what they mean, not how they are spelled; other
// values differ, and options the strategy refuses (a run stored by a ktune that took
// others) compare as given.
func TestSameOptionsComparesWhatTheOptionsMean(t *testing.T) {
	for _, tc := range []struct {
		strategy string
		a, b     map[string]any
		same     bool
	}{
		{"firstmls", map[string]any{"neighbourhood": "hamming"}, map[string]any{"neighbourhood": "Hamming"}, true},
		{"firstmls", map[string]any{"neighbourhood": "hamming", "restart": 1.0}, map[string]any{"restart": true, "neighbourhood": "Hamming"}, true},
		{"bayes", map[string]any{"candidates": "1e3"}, map[string]any{"candidates": 1000}, true},
		{"bayes", map[string]any{"xi": "0.50"}, map[string]any{"xi": 0.5}, true},
		{"random", nil, map[string]any{}, true},
		{"firstmls", map[string]any{"neighbourhood": "hamming"}, map[string]any{"neighbourhood": "adjacent"}, false},
		{"bayes", map[string]any{"candidates": 1000}, map[string]any{"candidates": 1001}, false},
		{"firstmls", map[string]any{"restart": true}, map[string]any{"restart": false}, false},
		{"firstmls", map[string]any{"restart": true}, map[string]any{}, false},
		{"greedymls", map[string]any{"order": "x,y"}, map[string]any{"order": "y,x"}, false},
		// refused by this ktune: compared as given
		{"firstmls", map[string]any{"old": 1}, map[string]any{"old": 1.0}, true},
		{"firstmls", map[string]any{"old": "a"}, map[string]any{"old": "A"}, false},
	} {
		if got := strategy.SameOptions(tc.strategy, tc.a, tc.b); got != tc.same {
			t.Errorf("%s %v and %v: same %v, want %v", tc.strategy, tc.a, tc.b, got, tc.same)
		}
	}
}

// spellings returns other ways to write v that mean the same to any option that takes v:
// a number in other forms, a boolean as ParseBool and the numbers 1 and 0 spell it, a
// name in other cases and with blanks (a list keeps its case: it names parameters).
func spellings(v any) []any {
	switch x := v.(type) {
	case bool:
		if x {
			return []any{"true", "True", "t", "1", 1}
		}
		return []any{"false", "FALSE", "f", "0", 0}
	case int:
		f := float64(x)
		return []any{strconv.Itoa(x), f, strconv.FormatFloat(f, 'e', -1, 64), strconv.Itoa(x) + ".0", json.Number(strconv.Itoa(x))}
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return nil
		}
		out := []any{strconv.FormatFloat(x, 'g', -1, 64), strconv.FormatFloat(x, 'E', -1, 64), json.Number(strconv.FormatFloat(x, 'f', -1, 64))}
		if x == math.Trunc(x) && math.Abs(x) < 1e9 {
			out = append(out, int(x))
		}
		if f := strconv.FormatFloat(x, 'f', -1, 64); strings.Contains(f, ".") {
			out = append(out, f+"0")
		} else {
			out = append(out, f+".0")
		}
		return out
	case string:
		if strings.ContainsAny(x, ",[") {
			items := strings.Split(strings.Trim(x, "[]"), ",")
			return []any{"[" + strings.Join(items, ", ") + "]", "['" + strings.Join(items, "', '") + "']", items}
		}
		return []any{strings.ToUpper(x), strings.ToLower(x), " " + x + " "}
	}
	return nil
}

// Canonical options build the same strategy as the options they come from: for every
// value inside every option's documented range (the edge table) and its other spellings,
// the canonical form is one (the same for every spelling, and its own canonical form),
// and the runs it gives on a few spaces are the runs of the value as given. Resuming a
// run under its canonical options must not change what it searches.
func TestCanonicalOptionsRunAsGiven(t *testing.T) {
	scenarios := edgeScenarios(t)
	picked := []edgeScenario{}
	for _, sc := range scenarios {
		switch sc.name {
		case "restricted grid, recorded, budget 30", "restricted grid, cartesian, stochastic, budget 20", "Kernel Tuner cache, cartesian, budget 40":
			picked = append(picked, sc)
		}
	}
	if len(picked) != 3 {
		t.Fatalf("picked %d scenarios", len(picked))
	}
	// the list options' good values depend on the space: the restricted grid's x, y, z, k
	lists := map[string][]any{"greedymls": {together{"order": "x,y"}, together{"order": 1}},
		"saltelli": {together{"params": "z,x"}}}
	for _, name := range strategy.Names() {
		var variants []map[string]any
		for _, o := range edgeOptions[name] {
			for _, v := range o.good {
				if m, ok := v.(together); ok {
					variants = append(variants, map[string]any(m))
					continue
				}
				variants = append(variants, map[string]any{o.name: v})
			}
		}
		for _, v := range lists[name] {
			variants = append(variants, map[string]any(v.(together)))
		}
		t.Run(name, func(t *testing.T) {
			for _, opts := range variants {
				canon, err := strategy.Canonical(name, opts)
				if err != nil {
					t.Errorf("%v: %v", opts, err)
					continue
				}
				if again, err := strategy.Canonical(name, canon); err != nil || !reflect.DeepEqual(again, canon) {
					t.Errorf("%v: canonical %#v, whose canonical form is %#v, %v", opts, canon, again, err)
				}
				for k, v := range opts {
					if _, isText := v.(string); !isText && (k == "order" || k == "params") {
						continue // a list reads "1.0" as a name, 1.0 as the index 1
					}
					for _, s := range spellings(v) {
						other := map[string]any{}
						for k2, v2 := range opts {
							other[k2] = v2
						}
						other[k] = s
						if _, err := strategy.New(name, other); err != nil {
							continue // a spelling this option does not take
						}
						if got, err := strategy.Canonical(name, other); err != nil || !reflect.DeepEqual(got, canon) {
							t.Errorf("%v spelled %s=%#v: canonical %#v, %v; want %#v", opts, k, s, got, err, canon)
						}
					}
				}
				for _, sc := range picked {
					if edgeCostly(name, opts) {
						break
					}
					what := fmt.Sprintf("%s %v on %s", name, opts, sc.name)
					given := runEdge(t, name, opts, sc, 7, false)
					canonical := runEdge(t, name, canon, sc, 7, false)
					switch {
					case given.refused != canonical.refused || (given.err == nil) != (canonical.err == nil):
						t.Errorf("%s: as given refused %v, error %v; canonically (%v) refused %v, error %v",
							what, given.refused, given.err, canon, canonical.refused, canonical.err)
					case !sameHistory(given.sum, canonical.sum):
						t.Errorf("%s: canonically (%v) another run", what, canon)
					}
				}
			}
		})
	}
}
