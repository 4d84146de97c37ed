package expr_test

import (
	"slices"
	"testing"

	"github.com/ktune/ktune/expr"
	"github.com/ktune/ktune/space"
)

// A comparison of a parameter with a value it never takes (a misspelled string, a number
// no longer in its list) is named, with the parameter's values and the nearest one; a
// comparison with a value it takes, with a constant, an expression or a loop variable is
// not.
func TestUnmatchedNamesComparisonsWithValuesAParameterNeverTakes(t *testing.T) {
	params := []space.Param{
		{Name: "ACC", Values: []space.Value{space.StringValue("single"), space.StringValue("double")}},
		{Name: "bx", Values: []space.Value{space.IntValue(32), space.IntValue(64)}},
		{Name: "f", Values: []space.Value{space.FloatValue(0.5), space.FloatValue(2)}},
		{Name: "on", Values: []space.Value{space.BoolValue(false), space.BoolValue(true)}},
	}
	cases := []struct {
		src  string
		want []string
	}{
		{"ACC == 'dubble'", []string{"ACC == 'dubble' is never true: 'dubble' is none of ACC's values ('single', 'double'); did you mean 'double'?"}},
		{"'dubble' != ACC or bx > 32", []string{"ACC != 'dubble' is always true: 'dubble' is none of ACC's values ('single', 'double'); did you mean 'double'?"}},
		{"ACC in ['single', 'quad']", []string{"ACC in [...] lists 'quad': 'quad' is none of ACC's values ('single', 'double')"}},
		{"bx == 48", []string{"bx == 48 is never true: 48 is none of bx's values (32, 64)"}},
		{"bx != -32", []string{"bx != -32 is always true: -32 is none of bx's values (32, 64)"}},
		{"ACC == 1", []string{"ACC == 1 is never true: 1 is none of ACC's values ('single', 'double')"}},
		// values Python finds equal
		{"ACC == 'double' and bx == 64.0 and f == 2 and on == 1 and on == False and f in [0.5, 2.0]", nil},
		{"bx not in [32, 64]", nil},
		// not a parameter against a literal
		{"bx * 2 == 48 or N == 3 or bx == f", nil},
		{"any(bx == 3 for bx in [1, 2])", nil},
		{"[bx for bx in [3]] == [3]", nil},
		{"'x' in ACC", nil},
		{"bx ==", nil}, // does not parse: the compiler says why
	}
	for _, tc := range cases {
		if got := expr.Unmatched(params, tc.src); !slices.Equal(got, tc.want) {
			t.Errorf("Unmatched(%q) = %q, want %q", tc.src, got, tc.want)
		}
	}
}
