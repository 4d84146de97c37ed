package strategy_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/ktune/ktune/strategy"
)

// A list option reads alike in every form it comes in: comma-separated or in brackets from
// the command line (with spaces, or quoted as Python and JSON write it), or a list from Go
// or JSON.
func TestListOptionForms(t *testing.T) {
	for _, v := range []any{
		"tile_size,use_method", " tile_size , use_method ", "[tile_size,use_method]", "[tile_size, use_method]",
		"['tile_size', 'use_method']", `["tile_size","use_method"]`,
		[]string{"tile_size", "use_method"}, []any{"tile_size", "use_method"},
	} {
		got, set, err := strategy.Options{"order": v}.List("order")
		if err != nil || !set || !slices.Equal(got, []string{"tile_size", "use_method"}) {
			t.Errorf("%#v: %q, %v, %v", v, got, set, err)
		}
	}
	for _, v := range []any{"1,2", "[1,2]", "[1, 2]", []int{1, 2}, []any{1.0, 2.0}} {
		got, _, err := strategy.Options{"order": v}.List("order")
		if err != nil || !slices.Equal(got, []string{"1", "2"}) {
			t.Errorf("%#v: %q, %v", v, got, err)
		}
	}
	if got, set, err := (strategy.Options{}).List("order"); got != nil || set || err != nil {
		t.Errorf("unset: %q, %v, %v", got, set, err)
	}
	for _, v := range []any{"", "[]", "[ ]", "a,,b", "[a,]", "a,a", "[a,[b]]", "[a", "a]", true, map[string]int{"a": 1}, []any{true}} {
		if _, _, err := (strategy.Options{"order": v}).List("order"); err == nil || !strings.Contains(err.Error(), "option order") {
			t.Errorf("%#v: error %v, want one naming the option", v, err)
		}
	}
}

// SplitList keeps a bracketed list whole where commas or semicolons separate entries.
func TestSplitListKeepsBracketsWhole(t *testing.T) {
	for _, tc := range []struct {
		s    string
		sep  byte
		want []string
	}{
		{"random,greedymls:order=[tile_size,use_method],firstils", ',', []string{"random", "greedymls:order=[tile_size,use_method]", "firstils"}},
		{"order=[1, 2];restart=false", ';', []string{"order=[1, 2]", "restart=false"}},
		{"[0,1],[1,0]", ',', []string{"[0,1]", "[1,0]"}},
		{"a,,b", ',', []string{"a", "", "b"}},
		{"", ',', []string{""}},
	} {
		got, err := strategy.SplitList(tc.s, tc.sep)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("SplitList(%q) = %q, %v; want %q", tc.s, got, err, tc.want)
		}
	}
	for _, bad := range []string{"greedymls:order=[a,b", "order=a]", "[a]]"} {
		if _, err := strategy.SplitList(bad, ','); err == nil {
			t.Errorf("SplitList(%q) accepted unbalanced brackets", bad)
		}
	}
}

// greedymls on pnpoly climbs the same way whether its order comes as a bracketed list of
// indices, of names, or comma-separated: the runs are identical.
func TestGreedyMLSOrderAsABracketedList(t *testing.T) {
	sim := cartesian(t, pnpolyPath)
	if names := []string{sim.Space().Params()[2].Name, sim.Space().Params()[3].Name}; !slices.Equal(names, []string{"tile_size", "use_method"}) {
		t.Fatalf("pnpoly's parameters 2 and 3 are %q", names)
	}
	want := history(runSession(t, sim, "greedymls", map[string]any{"order": "tile_size,use_method"}, 60, 4))
	for _, order := range []string{"[2,3]", "[2, 3]", "[tile_size, use_method]", "['tile_size','use_method']"} {
		if got := history(runSession(t, sim, "greedymls", map[string]any{"order": order}, 60, 4)); !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("order=%s climbs otherwise than order=tile_size,use_method", order)
		}
	}
}

// Every command reads an option value written as text with ParseValue, and a boolean
// option takes 1 and 0 in every form a value comes in (text, ParseValue's int, a JSON
// number), as hypertune's grid counts false and 0 one value (QA: simulate refused
// restart=0, which bench and hypertune took).
func TestBooleanOptionTakesOneAndZeroInEveryForm(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want bool
	}{
		{"0", false}, {"1", true}, {0, false}, {1, true}, {0.0, false}, {1.0, true},
		{strategy.ParseValue("0"), false}, {strategy.ParseValue(" 1 "), true},
		{strategy.ParseValue("False"), false}, {strategy.ParseValue("TRUE"), true}, {"t", true}, {"F", false},
		{json.Number("0"), false},
	} {
		got, err := strategy.Options{"restart": tc.v}.Bool("restart", !tc.want)
		if err != nil || got != tc.want {
			t.Errorf("restart=%#v: %v, %v; want %v", tc.v, got, err, tc.want)
		}
	}
	for _, v := range []any{2, 0.5, "yes", strategy.ParseValue("2")} {
		if _, err := (strategy.Options{"restart": v}).Bool("restart", false); err == nil || !strings.Contains(err.Error(), "not a boolean") {
			t.Errorf("restart=%#v: error %v, want not a boolean", v, err)
		}
	}
	for _, tc := range []struct {
		text string
		want any
	}{
		{"10", 10}, {" 0.05 ", 0.05}, {"1e3", 1000.0}, {"true", true}, {"FALSE", false}, {"adjacent", "adjacent"},
		{"[1, 2]", "[1, 2]"}, {"inf", "inf"}, {"NaN", "NaN"}, {"t", "t"},
	} {
		if got := strategy.ParseValue(tc.text); got != tc.want {
			t.Errorf("ParseValue(%q) = %#v, want %#v", tc.text, got, tc.want)
		}
	}
	// a list of one written as a number is a list of one in any form
	for _, v := range []any{strategy.ParseValue("2"), "2", 2.0} {
		if got, _, err := (strategy.Options{"order": v}).List("order"); err != nil || !slices.Equal(got, []string{"2"}) {
			t.Errorf("order=%#v: %q, %v", v, got, err)
		}
	}
}

// A value of the wrong kind, as a JSON file (a defaults file) holds it, is said in JSON's
// words, not Go's (QA: "<nil> (<nil>) is not a boolean", "[1 2] ([]interface {}) is not
// an integer", "map[a:1] is not one of ...").
func TestOptionValuesOfTheWrongKindAreSaidAsJSONWritesThem(t *testing.T) {
	var decoded map[string]any
	if err := json.Unmarshal([]byte(`{"null": null, "list": [1, 2], "object": {"a": 1}, "yes": true}`), &decoded); err != nil {
		t.Fatal(err)
	}
	o := strategy.Options(decoded)
	for _, tc := range []struct {
		get  func() error
		want string
	}{
		{func() error { _, err := o.Int("null", 0); return err }, "option null: null is not an integer"},
		{func() error { _, err := o.Int("list", 0); return err }, "option list: [1,2] (a list) is not an integer"},
		{func() error { _, err := o.Float("object", 0); return err }, `option object: {"a":1} (an object) is not a number`},
		{func() error { _, err := o.Bool("list", false); return err }, "option list: [1,2] (a list) is not a boolean (true or false, 1 or 0)"},
		{func() error { _, err := o.Choice("object", "a", "a", "b"); return err }, `option object: {"a":1} (an object) is not one of a, b`},
		{func() error { _, err := o.Choice("yes", "a", "a", "b"); return err }, "option yes: true is not one of a, b"},
		{func() error { _, _, err := o.List("yes"); return err }, "option yes: true is not a list"},
		{func() error { _, _, err := o.List("object"); return err }, `option object: {"a":1} (an object) is not a list`},
	} {
		if err := tc.get(); err == nil || err.Error() != tc.want {
			t.Errorf("%v, want %q", err, tc.want)
		}
	}
}

// A choice given as an empty or blank string is shown quoted, as the numeric getters show
// it: unquoted it was nothing between the name and the list ("option hill_climber:  is
// not one of none, first, best").
func TestAChoiceOfAnEmptyStringIsShownQuoted(t *testing.T) {
	for v, want := range map[string]string{
		"":      `option method: "" is not one of powell, cobyla`,
		"  ":    `option method: "  " is not one of powell, cobyla`,
		"slsqp": `option method: "slsqp" is not one of powell, cobyla`,
	} {
		_, err := strategy.Options{"method": v}.Choice("method", "powell", "powell", "cobyla")
		if err == nil || err.Error() != want {
			t.Errorf("Choice(%q): %v, want %q", v, err, want)
		}
	}
}

// The cube strategies read method themselves (SciPy's spellings): a bad value is said as
// Choice says it, not as Go prints it ("option method:  is not one of", "<nil> is not
// one of").
func TestABadMinimiserIsShownAsChoiceShowsIt(t *testing.T) {
	for v, want := range map[any]string{
		"":      `option method: "" is not one of powell, neldermead, cobyla`,
		"bfgs2": `option method: "bfgs2" is not one of powell, neldermead, cobyla`,
		true:    `option method: true is not one of powell, neldermead, cobyla`,
	} {
		for _, name := range []string{"basinhopping", "dualannealing"} {
			_, err := strategy.New(name, map[string]any{"method": v})
			if err == nil || !strings.HasSuffix(err.Error(), want) {
				t.Errorf("%s method=%#v: %v, want %q", name, v, err, want)
			}
		}
	}
	_, err := strategy.New("basinhopping", map[string]any{"method": nil})
	if want := "option method: null is not one of"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("method=null: %v, want %q", err, want)
	}
}

// An integer option reads a whole number written as a float alike in every form: from the
// command line ParseValue makes "1e3" the float64 1000, and the text "1e3" or a JSON
// number 1e3 from Go code means the same (QA: they were refused as "1e3 is out of range
// (at most 2147483647 in size)").
func TestIntegerOptionTakesAWholeNumberWrittenAsAFloatInEveryForm(t *testing.T) {
	for _, v := range []any{strategy.ParseValue("1e3"), "1e3", " 1000.0 ", json.Number("1e3"), 1000.0, 1000} {
		got, err := strategy.Options{"popsize": v}.Int("popsize", 1)
		if err != nil || got != 1000 {
			t.Errorf("popsize=%#v: %v, %v; want 1000", v, got, err)
		}
	}
	for _, tc := range []struct {
		v    any
		want string
	}{
		{"1e10", "out of range"}, {json.Number("1e10"), "out of range"}, {"99999999999999999999", "out of range"},
		{"2.5", "not an integer"}, {json.Number("2.5"), "not an integer"}, {"1e999", "not an integer"},
	} {
		if _, err := (strategy.Options{"popsize": tc.v}).Int("popsize", 1); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("popsize=%#v: error %v, want %q", tc.v, err, tc.want)
		}
	}
}
