package jsonio

import (
	"encoding/json"
	"math"

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

// LaunchValue is l as FieldLaunch's value.
func LaunchValue(l *result.Launch) any {
	return struct {
		Grid  [3]int `json:"grid"`
		Block [3]int `json:"block"`
	}{l.Grid, l.Block}
}

// ParseLaunch reads FieldLaunch's value as decoded JSON (a map of lists of numbers,
// float64 or json.Number); false where it is not a launch a device could make.
func ParseLaunch(v any) (*result.Launch, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	var l result.Launch
	for _, part := range []struct {
		name string
		to   *[3]int
	}{{"grid", &l.Grid}, {"block", &l.Block}} {
		list, ok := m[part.name].([]any)
		if !ok || len(list) != 3 {
			return nil, false
		}
		for d, x := range list {
			n, ok := count(x)
			if !ok {
				return nil, false
			}
			part.to[d] = n
		}
	}
	return &l, l.Valid()
}

// ParseRunsPerSample reads FieldRunsPerSample's value as decoded JSON; false where it is
// not a whole number of at least 1.
func ParseRunsPerSample(v any) (int, bool) { return count(v) }

// count reads a decoded JSON number (float64, or json.Number where the decoder kept
// numbers as written) that is a whole count of at least 1.
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
