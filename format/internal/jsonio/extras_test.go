package jsonio

import (
	"encoding/json"
	"testing"

	"github.com/ktune/ktune/result"
)

// ParseRunsPerSample and ParseLaunch take what a device could do, say what is wrong with
// anything else, and take no value (null, absent) as none, without complaint.
func TestParseExtrasSayWhatIsWrong(t *testing.T) {
	for _, c := range []struct {
		v    any
		n    int
		want string
	}{
		{nil, 0, ""},
		{json.Number("3"), 3, ""},
		{3.0, 3, ""},
		{json.Number("2147483647"), 2147483647, ""},
		{json.Number("2147483648"), 0, "is the number 2147483648, want a whole number from 1 to 2147483647"},
		{json.Number("0"), 0, "is the number 0, want a whole number from 1 to 2147483647"},
		{-1.0, 0, "is the number -1, want a whole number from 1 to 2147483647"},
		{json.Number("1.5"), 0, "is the number 1.5, want a whole number from 1 to 2147483647"},
		{"4", 0, `is the string "4", want a whole number from 1 to 2147483647`},
		{[]any{json.Number("4")}, 0, "is an array, want a whole number from 1 to 2147483647"},
	} {
		n, bad := ParseRunsPerSample(c.v)
		if n != c.n || bad != c.want {
			t.Errorf("runs per sample %#v: %d %q, want %d %q", c.v, n, bad, c.n, c.want)
		}
	}
	sizes := func(xs ...any) []any { return xs }
	one := json.Number("1")
	for _, c := range []struct {
		v    any
		l    *result.Launch
		want string
	}{
		{nil, nil, ""},
		{map[string]any{"grid": sizes(json.Number("4"), one, one), "block": sizes(32.0, 2.0, one)}, &result.Launch{Grid: [3]int{4, 1, 1}, Block: [3]int{32, 2, 1}}, ""},
		{map[string]any{"block": sizes(one, one, one)}, nil, "has no grid"},
		{map[string]any{"grid": sizes(one, one, one)}, nil, "has no block"},
		{map[string]any{"grid": sizes(one, one), "block": sizes(one, one, one)}, nil, "grid is an array of 2, want an array of 3 sizes [x, y, z]"},
		{map[string]any{"grid": nil, "block": sizes(one, one, one)}, nil, "grid is null, want an array of 3 sizes [x, y, z]"},
		{map[string]any{"grid": sizes(one, one, one), "block": sizes(one, json.Number("0.5"), one)}, nil, "block[1] is the number 0.5, want a whole number from 1 to 2147483647"},
		{map[string]any{"grid": sizes(one, one, "2"), "block": sizes(one, one, one)}, nil, `grid[2] is the string "2", want a whole number from 1 to 2147483647`},
		{sizes(one, one, one), nil, `is an array, want an object {"grid": [x, y, z], "block": [x, y, z]}`},
	} {
		l, bad := ParseLaunch(c.v)
		if !result.SameLaunch(l, c.l) || bad != c.want {
			t.Errorf("launch %v: %v %q, want %v %q", c.v, l, bad, c.l, c.want)
		}
	}
}
