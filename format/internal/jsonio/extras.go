package jsonio

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/ktune/ktune/result"
)

// What a Kernel Tuner cache entry and a T4 result have no member for, ktune writes in
// members of its own and reads back: a measurement's runs per sample and its launch.
const (
	// FieldRunsPerSample is how many timed runs each sample is the statistic of
	// (result.Evaluation.RunsPerSample), where it is known.
	FieldRunsPerSample = "ktune_runs_per_sample"
	// FieldLaunch is the grid and block a configuration is launched with,
	// {"grid": [x, y, z], "block": [x, y, z]}, in CUDA's terms (result.Launch).
	FieldLaunch = "ktune_launch"
)

// MalformedProblem is the problem of a Located warning about items whose field (one of
// the above) has a value ParseLaunch or ParseRunsPerSample refuses, MalformedThenOne and
// MalformedThenMany its consequence: the value is left out, the measurement kept.
func MalformedProblem(field string) string { return "a malformed " + strconv.Quote(field) }

// The consequences of a malformed field, for one item and for many.
const (
	MalformedThenOne  = "the value is left out; the measurement is kept"
	MalformedThenMany = "the values are left out; the measurements are kept"
)

// LaunchValue is l as FieldLaunch's value.
func LaunchValue(l *result.Launch) any {
	return struct {
		Grid  [3]int `json:"grid"`
		Block [3]int `json:"block"`
	}{l.Grid, l.Block}
}

// ParseLaunch reads FieldLaunch's value as decoded JSON (a map of lists of numbers,
// float64 or json.Number). It returns nil and "" for no value (absent, or null), and nil
// and what is wrong ("has no grid", "block[2] is the number 0, want a whole number...") for a value
// that is not a launch a device could make, for a warning that names the entry.
func ParseLaunch(v any) (*result.Launch, string) {
	if v == nil {
		return nil, ""
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Sprintf("is %s, want an object {\"grid\": [x, y, z], \"block\": [x, y, z]}", Describe(v))
	}
	var l result.Launch
	for _, part := range []struct {
		name string
		to   *[3]int
	}{{"grid", &l.Grid}, {"block", &l.Block}} {
		x, ok := m[part.name]
		if !ok {
			return nil, "has no " + part.name
		}
		list, ok := x.([]any)
		if !ok || len(list) != 3 {
			what := Describe(x)
			if ok {
				what = fmt.Sprintf("an array of %d", len(list))
			}
			return nil, fmt.Sprintf("%s is %s, want an array of 3 sizes [x, y, z]", part.name, what)
		}
		for d, x := range list {
			n, ok := count(x)
			if !ok {
				return nil, fmt.Sprintf("%s[%d] is %s, want %s", part.name, d, describeNumber(x), wantCount)
			}
			part.to[d] = n
		}
	}
	return &l, ""
}

// ParseRunsPerSample reads FieldRunsPerSample's value as decoded JSON. It returns 0 and
// "" for no value (absent, or null), and 0 and what is wrong for a value that is not a
// whole number of at least 1.
func ParseRunsPerSample(v any) (int, string) {
	if v == nil {
		return 0, ""
	}
	n, ok := count(v)
	if !ok {
		return 0, fmt.Sprintf("is %s, want %s", describeNumber(v), wantCount)
	}
	return n, ""
}

// wantCount says what a count (a size, the runs per sample) must be.
const wantCount = "a whole number from 1 to 2147483647"

// describeNumber is Describe(v), with a number as written or as encoding/json decoded
// it.
func describeNumber(v any) string {
	if f, ok := v.(float64); ok {
		return "the number " + strconv.FormatFloat(f, 'g', -1, 64)
	}
	return Describe(v)
}

// count reads a decoded JSON number (float64, or json.Number where the decoder kept
// numbers as written) that is a whole count of at least 1 and at most MaxInt32.
func count(v any) (int, bool) {
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case json.Number:
		var err error
		if f, err = x.Float64(); err != nil {
			return 0, false
		}
	default:
		return 0, false
	}
	if f != math.Trunc(f) || f < 1 || f > math.MaxInt32 {
		return 0, false
	}
	return int(f), true
}
