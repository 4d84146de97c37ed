package main

import (
	"regexp"
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

// An unknown flag is named as the help writes flags and the nearest the command has is
// suggested; a flag without its value says so (QA: "flag provided but not defined:
// -bugdet", the flag package's words, with one dash and no suggestion).
func TestUnknownFlagsSuggestTheNearest(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"simulate", pnpoly, "--bugdet", "5"}, "ktune simulate: unknown flag --bugdet; did you mean --budget?\n"},
		{[]string{"simulate", pnpoly, "--strategies", "random"}, "ktune simulate: unknown flag --strategies; did you mean --strategy?\n"},
		{[]string{"bench", pnpoly, "--budget", "5"}, "ktune bench: unknown flag --budget; did you mean --budgets?\n"},
		{[]string{"runs", "--jsn"}, "ktune runs: unknown flag --jsn; did you mean --json?\n"},
		{[]string{"runs", "--frobnicate"}, "ktune runs: unknown flag --frobnicate\n"},
		{[]string{"simulate", pnpoly, "--budget"}, "ktune simulate: --budget needs a value\n"},
	} {
		_, errOut, code := ktune(t, tc.args...)
		if code != 2 || !strings.HasPrefix(errOut, tc.want) || !strings.Contains(errOut, "Run 'ktune "+tc.args[0]+" --help' for every flag.") {
			t.Errorf("%q: exit %d: %q, want %q first", tc.args, code, errOut, tc.want)
		}
	}
}

// --log-level is taken among a command's flags as well as before the command (QA: after
// the command it was an unknown flag, though the commands' help says to add it).
func TestLogLevelAmongACommandsFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--log-level", "info", "analyze", pnpoly, "--bootstrap", "0", "--landscape=false"},
		{"analyze", pnpoly, "--bootstrap", "0", "--landscape=false", "--log-level", "info"},
		{"analyze", pnpoly, "--log-level=info", "--bootstrap", "0", "--landscape=false"},
	} {
		_, errOut, code := ktune(t, args...)
		if code != 0 || !strings.Contains(errOut, "level=INFO msg=analysing") {
			t.Errorf("%q: exit %d, no info log: %s", args, code, errOut)
		}
	}
	// warn by default: nothing at info
	if _, errOut, code := ktune(t, "analyze", pnpoly, "--bootstrap", "0", "--landscape=false"); code != 0 || strings.Contains(errOut, "level=INFO") {
		t.Errorf("exit %d, logged at info by default: %s", code, errOut)
	}
	for _, args := range [][]string{{"--log-level", "loud", "runs"}, {"runs", "--log-level", "loud"}} {
		if _, errOut, code := ktune(t, args...); code != 2 || !strings.Contains(errOut, "--log-level") || !strings.Contains(errOut, "want debug, info, warn or error") {
			t.Errorf("%q: exit %d: %s", args, code, errOut)
		}
	}
}

// ktune without a command is a usage error: the usage goes to standard error, not into
// the output a script reads, with status 2; --help prints it to standard output.
func TestNoCommandIsAUsageError(t *testing.T) {
	out, errOut, code := ktune(t)
	if code != 2 || out != "" || !strings.Contains(errOut, "Commands:") {
		t.Errorf("exit %d, stdout %q, stderr %.80q", code, out, errOut)
	}
	out, errOut, code = ktune(t, "--help")
	if code != 0 || errOut != "" || !strings.Contains(out, "Commands:") || !strings.Contains(out, "Exit status:") {
		t.Errorf("--help: exit %d, stdout %.80q, stderr %q", code, out, errOut)
	}
}

// A flag that another command spells otherwise is understood in that spelling too: tune's
// --time is simulate's --time-limit, and space's --repeat is the --repeats of simulate,
// bench and hypertune (QA: "unknown flag --time-limit" from tune, "--time" from simulate).
func TestFlagsTakeTheSpellingOfOtherCommands(t *testing.T) {
	limited := func(args ...string) string {
		out, errOut, code := ktune(t, append([]string{"simulate", pnpoly, "--budget", "0", "--repeats", "3", "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, errOut)
		}
		return wallTime.ReplaceAllString(out, "")
	}
	if a, b := limited("--time-limit", "2s"), limited("--time", "2s"); a != b || a == limited("--time", "4s") {
		t.Errorf("simulate --time 2s is not --time-limit 2s, or the limit is not used:\n%s\n%s", a, b)
	}
	for _, flag := range []string{"--time", "--time-limit"} {
		_, errOut, code := ktune(t, "tune", "no-such-spec.yaml", flag, "5")
		if code != 2 || !strings.Contains(errOut, "ktune tune: "+flag+" 5: want a duration") {
			t.Errorf("tune %s 5: exit %d: %s", flag, code, errOut)
		}
	}
	out, errOut, code := ktune(t, "space", "count", pnpoly, "--time", "--repeats", "3")
	if code != 0 || !strings.Contains(out, "over 3 builds") {
		t.Errorf("space --time --repeats 3: exit %d: %s%s", code, out, errOut)
	}
}

// wallTime matches the wall-clock time in JSON output, which differs from run to run.
var wallTime = regexp.MustCompile(`"wall_ms": [0-9.e+-]+`)
