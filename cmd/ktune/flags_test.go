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
