package expr

import (
	"strings"
	"testing"
)

// Constant expressions evaluate as CPython 3 does: the want column is what python3 prints
// for each (repr of the result), or "!" and the exception it raises. "!big" marks an
// integer beyond 64 bits, which Python computes exactly and ktune refuses with a clear
// error; "!complex" a complex result, which ktune does not support.
func TestInterpreterFollowsPython(t *testing.T) {
	tests := []struct{ src, want string }{
		{"0 ** -1", "!ZeroDivisionError"},
		{"0.0 ** -1", "!ZeroDivisionError"},
		{"0 ** -1.0", "!ZeroDivisionError"},
		{"2.0 ** 2000", "!OverflowError"},
		{"2 ** 2000.0", "!OverflowError"},
		{"10.0**400", "!OverflowError"},
		{"(-8)**(1/3)", "!complex"},
		{"(-8.0)**0.5", "!complex"},
		{"2 ** -1", "0.5"},
		{"(-2) ** -1", "-0.5"},
		{"(-8.0)**3.0", "-512.0"},
		{"0.5 ** -2", "4.0"},
		{"1e308*10", "inf"},
		{"-1e308-1e308", "-inf"},
		{"1e308/1e-10", "inf"},
		{"round(2.675, 2)", "2.67"},
		{"round(0.125, 2)", "0.12"},
		{"round(0.375,2)", "0.38"},
		{"round(25, -1)", "20"},
		{"round(35, -1)", "40"},
		{"round(-25,-1)", "-20"},
		{"round(-35,-1)", "-40"},
		{"round(15, 0)", "15"},
		{"round(7, 2)", "7"},
		{"round(7, True)", "7"},
		{"round(2.5)", "2"},
		{"round(3.5)", "4"},
		{"round(-2.5)", "-2"},
		{"round(2.5, 0)", "2.0"},
		{"round(-0.5, 0)", "-0.0"},
		{"round(1234.5, -2)", "1200.0"},
		{"round(1250.0,-2)", "1200.0"},
		{"round(1350.0,-2)", "1400.0"},
		{"round(-1250.0,-2)", "-1200.0"},
		{"round(0.1, 1)", "0.1"},
		{"round(1.005, 2)", "1.0"},
		{"round(2.5, None)", "2"},
		{"round(5e307,-308)", "1e+308"},
		{"round(1e300, 400)", "1e+300"},
		{"round(1.5e-300, 300)", "2e-300"},
		{"round(123456789, -20)", "0"},
		{"round(-5, -1)", "0"},
		{"round(-15, -1)", "-20"},
		{"round(7, 2.0)", "!TypeError"},
		{"round(1.7e308, -308)", "!OverflowError"},
		{"round(1e308*10)", "!OverflowError"},
		{"round(1e308*10, 2)", "inf"},
		{"int(1e308*10)", "!OverflowError"},
		{"int(2.9)", "2"},
		{"int(-2.9)", "-2"},
		{"int(1e18)", "1000000000000000000"},
		{"True & False", "False"},
		{"True | False", "True"},
		{"True ^ True", "False"},
		{"True | 2", "3"},
		{"~True", "-2"},
		{"~5", "-6"},
		{"~-1", "0"},
		{"-5 >> 1", "-3"},
		{"-5 << 2", "-20"},
		{"5 >> -1", "!ValueError"},
		{"5 << -1", "!ValueError"},
		{"-1 >> 100", "-1"},
		{"1 >> 64", "0"},
		{"5 & 3 ^ 6 | 1", "7"},
		{"1 + 2 << 3", "24"},
		{"1 < 2 | 4", "True"},
		// lists are equal when their elements are; () is the empty tuple
		{"[] == []", "True"},
		{"() == ()", "True"},
		{"[1, 'a'] == [1.0, 'a']", "True"},
		{"[1, 2] != [1, 2, 3]", "True"},
		{"[1] == 1", "False"},
		{"1 in ()", "False"},
		{"~2**2", "-5"},
		{"- ~3", "4"},
		{"3 & 1.0", "!TypeError"},
		{"1.0 | 1", "!TypeError"},
		{"~1.5", "!TypeError"},
		{"6 ^ 3 == 5", "True"},
		{"2 & 3 == 2", "True"},
		{"12 & 12 - 1", "8"},
		{"(16 & 15) == 0", "True"},
		{"1 << 62", "4611686018427387904"},
		{"1 << 63", "!big"}, // Python: 9223372036854775808
		{"3 << 62", "!big"}, // Python: 13835058055282163712
		{"-1 << 63", "-9223372036854775808"},
		{"7 >> 1 << 1", "6"},
		{"2 ** 3 << 1", "16"},
		{"-(-9223372036854775807-1)", "!big"},   // Python: 9223372036854775808
		{"abs(-9223372036854775807-1)", "!big"}, // Python: 9223372036854775808
		{"10 ** 400", "!big"},                   // Python: 1000000000000000000000000...
		{"2 ** 63", "!big"},                     // Python: 9223372036854775808
		{"9223372036854775807 + 1", "!big"},     // Python: 9223372036854775808
	}
	for _, tt := range tests {
		vals, err := EvalValues(tt.src)
		if strings.HasPrefix(tt.want, "!") {
			msg := map[string]string{"!big": "beyond 64 bits (ktune has no big integers)", "!complex": "complex",
				"!ZeroDivisionError": "0.0 cannot be raised to a negative power", "!OverflowError": "", "!TypeError": "", "!ValueError": "negative shift count"}[tt.want]
			if err == nil || !strings.Contains(err.Error(), msg) {
				t.Errorf("%s = %v, %v; want an error (%s) saying %q", tt.src, vals, err, tt.want, msg)
			}
			continue
		}
		if err != nil || len(vals) != 1 {
			t.Errorf("%s: %v, %v; want %s", tt.src, vals, err, tt.want)
			continue
		}
		if got := vals[0].String(); got != tt.want {
			t.Errorf("%s = %s, want %s", tt.src, got, tt.want)
		}
	}
}
