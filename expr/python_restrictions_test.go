package expr_test

import (
	"strings"
	"testing"

	"github.com/ktune/ktune/expr"
	"github.com/ktune/ktune/space"
)

// pyParams are the parameters the restrictions of TestRestrictionsFollowPython read, with
// the values Python's table was computed for (m mixes ints and a float, w ints and floats
// one of which is whole).
func pyParams() []space.Param {
	ints := func(lo, hi int64) []space.Value {
		var out []space.Value
		for v := lo; v <= hi; v++ {
			out = append(out, space.IntValue(v))
		}
		return out
	}
	floats := func(vs ...float64) []space.Value {
		var out []space.Value
		for _, v := range vs {
			out = append(out, space.FloatValue(v))
		}
		return out
	}
	return []space.Param{
		{Name: "a", Values: ints(-3, 3)},
		{Name: "b", Values: ints(-3, 3)},
		{Name: "x", Values: ints(1, 16)},
		{Name: "f", Values: floats(-1.5, 0.0, 0.5, 2.0, 2.5, 1e200)},
		{Name: "m", Values: []space.Value{space.IntValue(1), space.FloatValue(2.5), space.IntValue(4)}},
		{Name: "w", Values: []space.Value{space.IntValue(1), space.FloatValue(2), space.FloatValue(2.5), space.IntValue(4)}},
	}
}

// Each restriction holds exactly where Python 3 evaluates it to a true value without
// raising: want has one character per configuration of the names it reads (the product
// of their values, the last name fastest), as this program printed them:
//
//	for vals in itertools.product(*(P[n] for n in names)):
//	    try: ok = bool(eval(src, {}, dict(zip(names, vals))))
//	    except (ArithmeticError, TypeError, ValueError): ok = False
//
// E marks a configuration where Python computes an integer of 2**53 or more, which ktune
// does not compute (Bindings.Inexact) and space construction reports.
func TestRestrictionsFollowPython(t *testing.T) {
	tests := []pyCase{
		{"a ** b > 0.5", "a b", "0001010000101001010100001000111111100011110001111"},
		// a constant part that raises does so only where Python reaches it
		{"a == 1 or 1 // 0 == 0", "a", "0000100"},
		{"1 // 0 if a == 2 else a == 1", "a", "0000100"},
		{"a == 1 or 2.0 ** 2000 > 0", "a", "0000100"},
		{"a > 2 or (1.5 & 1) == 1", "a", "0000001"},
		{"a < 0 and 0 ** -1 > 1", "a", "0000000"},
		{"a == 0 or 1 << -1", "a", "0001000"},
		// an int to a negative int power is a float, which & refuses
		{"b ** -1 & 1", "b", "0000000"},
		{"a ** -1 != 1 and a ** -1 & 0 == 0", "a", "0000000"},
		{"a ** -2 == 0.25", "a", "0100010"},
		{"a ** b == 1", "a b", "0001000000100001010100001000111111100010000001000"},
		{"2.0 ** (a*200) > 1", "a", "0000111"},
		{"2 ** (a*200.0) > 1", "a", "0000111"},
		{"f ** 2 < 5", "f", "111100"},
		{"f ** 2000 > 1", "f", "000000"},
		{"f ** -1 < 1", "f", "100111"},
		{"f ** 0.5 > 0", "f", "001111"},
		{"f ** b > 0", "b f", "001110101110001111111111001111101110001110"},
		{"f * 1e308 > 0", "f", "001111"},
		{"f * 1e308 - f * 1e308 == 0", "f", "111000"},
		{"f / 1e-200 > 1", "f", "001111"},
		{"(x & (x-1)) == 0", "x", "1101000100000001"},
		{"x & x - 1 == 0", "x", "1101000100000001"},
		{"x | 1 == x", "x", "1010101010101010"},
		{"x ^ 3 > 4", "x", "0001110111111111"},
		{"~x < -5", "x", "0000111111111111"},
		{"x << a > 3", "a x", "0000000000000000000000000000000000000000000000000001111111111111011111111111111111111111111111111111111111111111"},
		{"x >> a == 0", "a x", "0000000000000000000000000000000000000000000000000000000000000000100000000000000011100000000000001111111000000000"},
		{"(x & 1) == (a & 1)", "a x", "1010101010101010010101010101010110101010101010100101010101010101101010101010101001010101010101011010101010101010"},
		{"-a >> 1 == a", "a", "0001000"},
		{"(a > 0) ^ (b > 0)", "a b", "0000111000011100001110000111111100011110001111000"},
		{"(a > 0) & (b > 0) == False", "a b", "1111111111111111111111111111111100011110001111000"},
		{"a | b < 0", "a b", "1111111111111111111111110000111000011100001110000"},
		{"~a & b == b", "a b", "0001010000110000010001111111010101010011000001000"},
		{"x & f == 0", "x f", "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"},
		{"~f < 0", "f", "000000"},
		{"1 + a << 2 > b", "a b", "0000000000000011100001111111111111111111111111111"},
		{"a < x | b", "a b x", "0110011001100110111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111011001100110011010101010101010101111111111111111111111111111111111111111111111111111111111111111111111111111111100000000000000000000000000000000000000000000000011111111111111111111111111111111111111111111111111111111111111110000000000000000000000000000000000000000000000001111111111111111111111111111111111111111111111111111111111111111000000000000000000000000000000000000000000000000011111111111111101111111111111111111111111111111111111111111111100000000000000000000000000000000000000000000000000111111111111110111111111111111101111111111111111111111111111110000000000000000000000000000000000000000000000000001111111111111000111111111111100011111111111110001111111111111"},
		{"m & 1 == 1", "m", "100"},
		{"m ** 2 > 5", "m", "011"},
		{"m >> 1 == 1", "m", "000"},
		{"round(f, 1) == f", "f", "111111"},
		{"round(a * 0.25, 1) > 0", "a", "0000111"},
		{"round(a * 25, -1) == a * 20", "a", "0011100"},
		{"round(a * 5, b) == a * 5", "a b", "0001111001111100011111111111000111100111110001111"},
		{"round(f, b) > 0.1", "b f", "000001000001000001000111001111001111001111"},
		{"round(f, f) > 0", "f", "000000"},
		{"round(f) == 2", "f", "000110"},
		{"round(a/2) == 0", "a", "0011100"},
		{"round(x/4, 1) == 1.2", "x", "0000100000000000"},
		{"round(a*0.5) == round(a*0.5, 0)", "a", "1111111"},
		{"int(f) == 0", "f", "011000"},
		{"int(f * 1e200) > 0", "f", "001110"},
		{"round(f * 1e200) > 0", "f", "001110"},
		{"a ** 2 < 5", "a", "0111110"},
		{"2 ** x > 100", "x", "0000001111111111"},
		{"(-2) ** a < 0", "a", "1010101"},
		{"a ** -1 != 0", "a", "1110111"},
		{"b ** a > 2", "a b", "0000000000000000000000000000000000111000110000011"},
		{"x ** 3 % 7 == 1", "x", "1101000110100011"},
		{"m ** 400 > 1", "m", "01E"}, // 4**400 is a big int in Python
		{"m ** b > 1", "b m", "000000000000011011011"},
		// Python computes the left side and the whole list before it looks for one in the
		// other, and both sides of a comparison of a str with a number: what raises there
		// raises however the test would come out
		{"a in [1, 1 // b]", "a b", "0000000000000011100000000011111011100000000000000"},
		{"a // b not in []", "a b", "1110111111011111101111110111111011111101111110111"},
		{"a // b not in ['x']", "a b", "1110111111011111101111110111111011111101111110111"},
		{"a // b not in ()", "a b", "1110111111011111101111110111111011111101111110111"},
		{`('x' if a > 0 else 'y' * f) != a`, "a f", "000000000000000000000000111111111111111111"},
		{"[1 // a] or a > 5", "a", "1110111"},
		// A value that is an int or a float as the configuration has it (a choice between
		// an int and a float, an int to an int power, a parameter that mixes them) is a
		// float where Python's is, whole or not: & ~ << and repeating a str raise for it
		{"max(f, a) & 1 == 0", "a f", "000000000000000000100000000000111000000000"},
		{"~(a if a > 0 else f) < 0", "a f", "000000000000000000000000111111111111111111"},
		{"~a ** b < 0", "a b", "0001010000101000010100001111000111100011110001111"},
		{"(a and f) | 1 > 0", "a f", "000000000000000000111111000000000000000000"},
		{"w & 1 == 0", "w", "0001"},
		{`'x' * w == 'xx'`, "w", "0000"},
		{"round(2.5, w) > 0", "w", "1001"},
		{"~abs(-w) < 0", "w", "1001"},
		{"(w - 1) << 1 >= 0", "w", "1001"},
		{`'x' * -(2 // a) == ''`, "a", "0000111"},
		// and only an int beyond 2**53 is one ktune cannot compute
		{"(f if a > 0 else a) * 2**52 * 4 != 1", "a f", "EEEEEEEEEEEEEEEEEE111111111111111111111111"},
		{"w * 2**52 * 4 != 1", "w", "E11E"},
		// a NaN that Python computes (inf - inf) differs from every number
		{"f * 1e308 * 10 - f * 1e308 * 10 != 0", "f", "101111"},
	}
	checkAgainstPython(t, pyParams(), tests)
}

// pyCase is a restriction, the parameters it reads (in the order the configurations are
// enumerated, the last fastest) and, per configuration, what Python gives: 1 true, 0
// false, E an integer beyond float64's exact range (Python's big int).
type pyCase struct{ src, names, want string }

// checkAgainstPython compiles each case's restriction over params and compares what it
// gives for every combination of its parameters' values with what Python gave.
func checkAgainstPython(t *testing.T, params []space.Param, tests []pyCase) {
	t.Helper()
	slot := map[string]int{}
	for i, p := range params {
		slot[p.Name] = i
	}
	for _, tt := range tests {
		r, err := expr.CompileRestriction(params, tt.src)
		if err != nil {
			t.Errorf("%s: %v", tt.src, err)
			continue
		}
		names := strings.Fields(tt.names)
		b := &space.Bindings{Num: make([]float64, len(params)), Str: make([]string, len(params))}
		idx := make([]int, len(names))
		var got strings.Builder
		for {
			for k, n := range names {
				v := params[slot[n]].Values[idx[k]]
				b.Num[slot[n]] = v.Float()
				if v.Kind() == space.String {
					b.Str[slot[n]] = v.Str()
				}
			}
			switch holds := r.Holds(b); {
			case b.Inexact:
				got.WriteByte('E')
			case holds:
				got.WriteByte('1')
			default:
				got.WriteByte('0')
			}
			k := len(names) - 1
			for ; k >= 0; k-- {
				if idx[k]++; idx[k] < len(params[slot[names[k]]].Values) {
					break
				}
				idx[k] = 0
			}
			if k < 0 {
				break
			}
		}
		if got.String() != tt.want {
			t.Errorf("%s over %s:\n got %s\nwant %s", tt.src, tt.names, got.String(), tt.want)
		}
	}
}

// A restriction whose integers outgrow a float64's exact range stops the space's
// construction with the restriction and the configuration, not a rounded guess.
func TestInexactIntegersAreReported(t *testing.T) {
	params := []space.Param{
		{Name: "x", Values: []space.Value{space.IntValue(2), space.IntValue(3)}},
		{Name: "y", Values: []space.Value{space.IntValue(10), space.IntValue(60)}},
	}
	for _, src := range []string{"x ** y > 0", "x << y > 0", "x * 2**47 * y > 0", "(x ** y) % 7 == 1"} {
		_, err := expr.NewSpace(params, []string{src})
		if err == nil || !strings.Contains(err.Error(), "2**53") || !strings.Contains(err.Error(), "y=60") {
			t.Errorf("%s: %v, want an error naming 2**53 and y=60", src, err)
		}
	}
	// The same with smaller integers builds: 3**10 and 2**10 are exact.
	s, err := expr.NewSpace(params, []string{"x ** y > 0 if y < 20 else True"})
	if err != nil || s.Len() != 4 {
		t.Errorf("%v, %v", s, err)
	}
}

// Strings follow Python as numbers do: + joins two, * repeats one an int number of times
// (either operand may be the int; zero or less gives ""; a bool is an int, a float raises),
// and they compare and test for substrings. want is as for TestRestrictionsFollowPython,
// from the same program over these parameters.
func TestStringOperatorsFollowPython(t *testing.T) {
	params := []space.Param{
		{Name: "s", Values: []space.Value{space.StringValue(""), space.StringValue("x"), space.StringValue("ab")}},
		{Name: "a", Values: []space.Value{space.IntValue(-1), space.IntValue(0), space.IntValue(1), space.IntValue(2), space.IntValue(3)}},
		{Name: "m", Values: []space.Value{space.IntValue(1), space.FloatValue(2.5)}},
		{Name: "f", Values: []space.Value{space.FloatValue(2.0)}},
		{Name: "g", Values: []space.Value{space.BoolValue(false), space.BoolValue(true)}},
	}
	tests := []pyCase{
		{`s * a == 'xx'`, "a s", "000000000010000"},
		{`a * s == 'abab'`, "a s", "000000000001000"},
		{`s * g == s`, "g s", "100111"},
		{`s * m == 'x'`, "m s", "010000"},
		{`s * f == ''`, "f s", "000"},
		{`s + s == 'xx'`, "s", "010"},
		{`'x' * a in s`, "a s", "111111010000000"},
		{`s * (a - 1) != ''`, "a s", "000000000011011"},
		{`2 * s * a == 'xxxx'`, "a s", "000000000010000"},
		{`s * a < 'ab'`, "a s", "111111100100100"},
		{`'ab' * 2 == s + s`, "s", "001"},
		{`a * 'x' == 'x' * a`, "a", "11111"},
		{`(s or 'y') * a == 'yy'`, "a s", "000000000100000"},
		{`s * -a == 'x'`, "a s", "010000000000000"},
		{`(s * a if a > 1 else s) == 'abab'`, "a s", "000000000001000"},
	}
	checkAgainstPython(t, params, tests)
	// a repetition too long to hold is not satisfied (Python's MemoryError)
	params[1].Values = []space.Value{space.IntValue(1 << 40)}
	r, err := expr.CompileRestriction(params, `s * a != ''`)
	if err != nil {
		t.Fatal(err)
	}
	b := &space.Bindings{Num: []float64{0, 1 << 40, 0, 0, 0}, Str: []string{"ab", "", "", "", ""}}
	if r.Holds(b) {
		t.Errorf("'ab' * 2**40 != '' holds")
	}
}

// Strings order as Python's do, by code point (U+FFFD before U+1F600, where UTF-16 code
// units would order them the other way), under each comparison. want is as for
// TestRestrictionsFollowPython, from the same program over these parameters.
func TestStringComparisonsFollowPython(t *testing.T) {
	params := []space.Param{
		{Name: "s", Values: []space.Value{space.StringValue(""), space.StringValue("x"), space.StringValue("ab")}},
		{Name: "u", Values: []space.Value{space.StringValue("é"), space.StringValue("z"), space.StringValue("\uFFFD"), space.StringValue("😀")}},
	}
	checkAgainstPython(t, params, []pyCase{
		{`s == 'x'`, "s", "010"},
		{`s != 'x'`, "s", "101"},
		{`s <= 'ab'`, "s", "101"},
		{`s > 'a'`, "s", "011"},
		{`s >= 'x'`, "s", "010"},
		{`u <= 'é'`, "u", "1100"},
		{`u > 'z'`, "u", "1011"},
		{`u < '😀'`, "u", "1110"},
		{`u >= '😀'`, "u", "0001"},
		{`s < u`, "s u", "111111111111"},
	})
}
