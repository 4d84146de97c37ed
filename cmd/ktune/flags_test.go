package main

import (
	"strings"
	"testing"
	"time"
)

// Every duration flag says what a duration looks like, and a refused value is said as the
// other usage errors are, "--FLAG VALUE: ..." (QA: "invalid value "5" for flag -time:
// parse error").
func TestFlagValueErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"tune", "no-such-spec.json", "--time", "5"}, "ktune tune: --time 5: want a duration with its unit, such as 30s, 10m or 1h30m\n"},
		{[]string{"simulate", pnpoly, "--time-limit", "5"}, "ktune simulate: --time-limit 5: want a duration with its unit, such as 30s, 10m or 1h30m\n"},
		{[]string{"simulate", pnpoly, "--time-limit=ten minutes"}, `--time-limit "ten minutes": want a duration with its unit`},
		{[]string{"simulate", pnpoly, "--time-limit", "-3s"}, "--time-limit -3s: want a duration of 0 (none) or more"},
		{[]string{"simulate", pnpoly, "--budget", "x"}, "--budget x: want a whole number of evaluations"},
		{[]string{"simulate", pnpoly, "--json=maybe"}, "--json maybe: want true or false"},
		{[]string{"simulate", pnpoly, "--seed", "-3"}, "--seed -3: want a whole number, 0 or more\n"},
		{[]string{"simulate", pnpoly, "--seed", "99999999999999999999999"}, "--seed 99999999999999999999999: out of range: want a whole number, 0 or more, within 64 bits\n"},
		{[]string{"analyze", pnpoly, "--pagerank-tol", "abc"}, "--pagerank-tol abc: want a number, such as 0.5 or 1e-6\n"},
	} {
		_, errOut, code := ktune(t, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d: %s", tc.args, code, errOut)
		}
	}
	// a good duration still parses, 0 included
	for s, want := range map[string]string{"0": "0s", "1h30m": "1h30m0s", " 30s ": "30s"} {
		d := durationValue{new(time.Duration)}
		if err := d.Set(s); err != nil || d.String() != want {
			t.Errorf("Set(%q): %v, %s", s, err, d.String())
		}
	}
}
