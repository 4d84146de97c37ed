package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// tunedExports tunes the host C vector_add example (objective GB/s) with the spec changed
// by edit, and returns its Kernel Tuner and T4 exports.
func tunedExports(t *testing.T, edit func(string) string, args ...string) (kt, t4 []byte) {
	t.Helper()
	needBackend(t, "c")
	dir := t.TempDir()
	spec := vectorAddVariant(t, dir, "va.yaml", edit)
	db := filepath.Join(dir, "k.db")
	if _, errOut, code := ktune(t, append([]string{"tune", spec, "--db", db}, args...)...); code != 0 {
		t.Fatalf("tune: exit %d: %s", code, errOut)
	}
	return exportRun(t, db, "kerneltuner"), exportRun(t, db, "t4")
}

// measurement is a T4 result's measurement.
type measurement struct {
	Name  string `json:"name"`
	Value any    `json:"value"`
	Unit  string `json:"unit"`
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// With statistic: median and a metric objective, the exports carry the time the run used
// (the median of the samples, which GB/s was computed from): as "time" in Kernel Tuner's
// cache, whose simulation mode recomputes metrics from it, and as a "time" measurement in
// ms in T4. They carried the mean, and T4 no time at all.
func TestExportsCarryTheTimeOfTheRunsStatistic(t *testing.T) {
	kt, t4 := tunedExports(t, func(s string) string {
		return strings.Replace(s, "N: 4000000", "N: 400000", 1) + "statistic: median\n"
	}, "--budget", "3", "--strategy", "random")
	const bytesMoved = 3 * 4 * 400000
	var cache struct {
		Cache map[string]map[string]any `json:"cache"`
	}
	if err := json.Unmarshal(kt, &cache); err != nil {
		t.Fatal(err)
	}
	ok := 0
	for key, e := range cache.Cache {
		tm, isNum := e["time"].(float64)
		if !isNum {
			continue // a failure
		}
		ok++
		var samples []float64
		for _, x := range e["times"].([]any) {
			samples = append(samples, x.(float64))
		}
		if want := median(samples); tm != want {
			t.Errorf("%s: time %v, want the median %v of %v", key, tm, want, samples)
		}
		if gbs, want := e["GB/s"].(float64), bytesMoved/(tm/1e3)/1e9; math.Abs(gbs-want) > 1e-9*want {
			t.Errorf("%s: GB/s %v, but %v from its time", key, gbs, want)
		}
	}
	var results struct {
		Results []struct {
			Times        map[string]any `json:"times"`
			Measurements []measurement  `json:"measurements"`
			Invalidity   string         `json:"invalidity"`
		} `json:"results"`
	}
	if err := json.Unmarshal(t4, &results); err != nil {
		t.Fatal(err)
	}
	okT4 := 0
	for i, r := range results.Results {
		if r.Invalidity != "correct" {
			continue
		}
		okT4++
		var samples []float64
		for _, x := range r.Times["runtimes"].([]any) {
			samples = append(samples, x.(float64))
		}
		j := slices.IndexFunc(r.Measurements, func(m measurement) bool { return m.Name == "time" })
		if j < 0 {
			t.Errorf("result %d has no time measurement: %+v", i, r.Measurements)
			continue
		}
		if m := r.Measurements[j]; m.Value != median(samples) || m.Unit != "ms" {
			t.Errorf("result %d: time %v %s, want the median %v ms", i, m.Value, m.Unit, median(samples))
		}
	}
	if ok == 0 || okT4 != ok {
		t.Fatalf("%d successful entries in the cache, %d in T4", ok, okT4)
	}
}

// A tuning run's exports carry the time its strategy spent choosing each configuration:
// Kernel Tuner's cache schema requires strategy_time in every entry, and T4 has
// times.search_algorithm. The default configuration, measured before the search, took the
// strategy no time. Timestamps have microseconds, which every Python reads.
func TestExportsOfATuningRunCarryTheStrategysTime(t *testing.T) {
	kt, t4 := tunedExports(t, func(s string) string { return strings.Replace(s, "N: 4000000", "N: 40000", 1) },
		"--budget", "4", "--strategy", "random")
	var cache struct {
		Cache map[string]map[string]any `json:"cache"`
	}
	if err := json.Unmarshal(kt, &cache); err != nil {
		t.Fatal(err)
	}
	iso := regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{6})?\+00:00$`)
	positive := 0
	for key, e := range cache.Cache {
		st, ok := e["strategy_time"].(float64)
		if !ok || st < 0 || strings.Contains(fmt.Sprint(e["ktune_unrecorded"]), "strategy_time") {
			t.Errorf("%s: strategy_time %v, ktune_unrecorded %v", key, e["strategy_time"], e["ktune_unrecorded"])
		}
		if st > 0 {
			positive++
		}
		if ts, _ := e["timestamp"].(string); !iso.MatchString(ts) {
			t.Errorf("%s: timestamp %q", key, ts)
		}
	}
	if len(cache.Cache) != 4 || positive != 3 {
		t.Errorf("%d entries, %d with a strategy time; want 4, the 3 the strategy chose", len(cache.Cache), positive)
	}
	var results struct {
		Results []struct {
			Times map[string]any `json:"times"`
		} `json:"results"`
	}
	if err := json.Unmarshal(t4, &results); err != nil {
		t.Fatal(err)
	}
	for i, r := range results.Results {
		if _, ok := r.Times["search_algorithm"].(float64); !ok {
			t.Errorf("T4 result %d: times %v", i, r.Times)
		}
	}
}

// ktune space takes ktune's own T4 export of a run its budget stopped (its restrictions
// allow configurations it lacks) as the configurations it holds, saying so, as analyze
// does; it refused it as a recording that lacks configurations.
func TestSpaceOfAPartialRunsExport(t *testing.T) {
	_, t4 := tunedExports(t, func(s string) string {
		return strings.Replace(s, "N: 4000000", "N: 4000", 1) + "restrictions:\n  - \"unroll_factor * threads <= 32\"\n"
	}, "--budget", "3", "--strategy", "random")
	file := filepath.Join(t.TempDir(), "run.t4.json")
	if err := os.WriteFile(file, t4, 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := ktune(t, "space", "count", file)
	if code != 0 || !strings.Contains(out, "valid 3 ") || !strings.Contains(errOut, "holds only 3 of the configurations its restrictions allow") {
		t.Fatalf("exit %d:\n%s%s", code, out, errOut)
	}
}
