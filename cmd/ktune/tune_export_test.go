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

	"github.com/ktune/ktune/format"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/store"
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

// kttComputation is what a KTT export says of a result's one kernel function's launch.
type kttComputation struct {
	GlobalSize, LocalSize *struct{ X, Y, Z int }
}

// kttExport is what a KTT export says of launches: its metadata and each result's
// configuration, status and computation results.
type kttExport struct {
	Metadata struct{ ComputeApi, GlobalSizeType string }
	Results  []struct {
		Status        string
		Configuration []struct {
			Name  string
			Value any
		}
		ComputationResults []kttComputation
	}
}

// A run tuned on PoCL keeps each configuration's launch, which the KTT export writes as
// KTT 2.1 does for OpenCL: GlobalSize in work-items (GlobalSizeType OpenCL) and LocalSize,
// as the spec gives them: a grid of ceil(N / (block_size_x * tile_size_x)) work-groups of
// block_size_x. Every stored evaluation has its launch, failures too. The export had no
// sizes.
func TestTunedRunExportsItsLaunchesAsKTT(t *testing.T) {
	needBackend(t, "opencl")
	const spec = "../../examples/vector_add/vector_add_opencl.yaml"
	src, err := os.ReadFile(spec)
	if err != nil {
		t.Fatal(err)
	}
	// the geometry the test computes its expectations by, read off the spec
	m := regexp.MustCompile(`(?m)^  N: (\d+)$`).FindSubmatch(src)
	if m == nil || !strings.Contains(string(src), "problem_size: [N]\ngrid_div_x: [block_size_x, tile_size_x]\n") {
		t.Fatalf("%s no longer has N, problem_size [N] and grid_div_x [block_size_x, tile_size_x]", spec)
	}
	var n int
	fmt.Sscan(string(m[1]), &n)
	db := filepath.Join(t.TempDir(), "k.db")
	if _, errOut, code := ktune(t, "tune", spec, "--device", "opencl", "--db", db, "--strategy", "random", "--budget", "5", "--seed", "3"); code != 0 {
		t.Fatalf("tune: exit %d: %s", code, errOut)
	}
	launchOf := func(config []any) (grid, block int) {
		bsx, tile := int(config[0].(float64)), int(config[1].(float64))
		return (n + bsx*tile - 1) / (bsx * tile), bsx
	}
	stored := evaluationsOf(t, db)
	if len(stored) != 5 {
		t.Fatalf("%d evaluations stored, want 5", len(stored))
	}
	for key, e := range stored {
		grid, block := launchOf([]any{e.Config[0].Float(), e.Config[1].Float()})
		if want := (result.Launch{Grid: [3]int{grid, 1, 1}, Block: [3]int{block, 1, 1}}); !result.SameLaunch(e.Launch, &want) {
			t.Errorf("%s (%s): stored launch %v, want %v", key, e.Status, e.Launch, want)
		}
	}
	var out kttExport
	if err := json.Unmarshal(exportRun(t, db, "ktt"), &out); err != nil {
		t.Fatal(err)
	}
	if out.Metadata.ComputeApi != "OpenCL" || out.Metadata.GlobalSizeType != "OpenCL" || len(out.Results) != 5 {
		t.Fatalf("ComputeApi %q, GlobalSizeType %q, %d results; want OpenCL, OpenCL, 5", out.Metadata.ComputeApi, out.Metadata.GlobalSizeType, len(out.Results))
	}
	ok := 0
	for i, r := range out.Results {
		if r.Status != "Ok" {
			continue
		}
		ok++
		if len(r.ComputationResults) != 1 || r.Configuration[0].Name != "block_size_x" || r.Configuration[1].Name != "tile_size_x" {
			t.Fatalf("result %d: %d computation results, configuration %v", i, len(r.ComputationResults), r.Configuration)
		}
		grid, block := launchOf([]any{r.Configuration[0].Value, r.Configuration[1].Value})
		c := r.ComputationResults[0]
		if c.GlobalSize == nil || c.LocalSize == nil || *c.GlobalSize != (struct{ X, Y, Z int }{grid * block, 1, 1}) ||
			*c.LocalSize != (struct{ X, Y, Z int }{block, 1, 1}) {
			t.Errorf("result %d %v: GlobalSize %v, LocalSize %v; want {%d 1 1}, {%d 1 1}", i, r.Configuration, c.GlobalSize, c.LocalSize, grid*block, block)
		}
	}
	if ok == 0 {
		t.Fatal("no configuration succeeded")
	}
	// a Kernel Tuner cache and T4 results keep the launches and the runs per sample in
	// members of ktune's own, which reading the file gives back
	for _, name := range []string{"kerneltuner", "t4"} {
		path := filepath.Join(t.TempDir(), "export."+name+".json")
		if err := os.WriteFile(path, exportRun(t, db, name), 0o644); err != nil {
			t.Fatal(err)
		}
		back, err := format.Open(path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(back.Evaluations) != len(stored) {
			t.Fatalf("%s: %d evaluations read back, %d stored", name, len(back.Evaluations), len(stored))
		}
		for _, e := range back.Evaluations {
			want := stored[store.ConfigKey(e.Config)]
			if !result.SameLaunch(e.Launch, want.Launch) || e.RunsPerSample != want.RunsPerSample || want.RunsPerSample < 1 && want.Status == result.OK {
				t.Errorf("%s: %v read back with launch %v and %d runs per sample, stored %v and %d",
					name, e.Config, e.Launch, e.RunsPerSample, want.Launch, want.RunsPerSample)
			}
		}
	}
}

// A host C kernel is called once, not launched over a grid: its run keeps no launch, and
// its KTT export names no compute API and has no sizes.
func TestHostCRunExportsNoLaunchAsKTT(t *testing.T) {
	needBackend(t, "c")
	dir := t.TempDir()
	spec := vectorAddVariant(t, dir, "va.yaml", func(s string) string { return strings.Replace(s, "N: 4000000", "N: 4000", 1) })
	db := filepath.Join(dir, "k.db")
	if _, errOut, code := ktune(t, "tune", spec, "--db", db, "--budget", "2", "--strategy", "random"); code != 0 {
		t.Fatalf("tune: exit %d: %s", code, errOut)
	}
	for key, e := range evaluationsOf(t, db) {
		if e.Launch != nil {
			t.Errorf("%s: launch %v, want none", key, e.Launch)
		}
	}
	var out kttExport
	if err := json.Unmarshal(exportRun(t, db, "ktt"), &out); err != nil {
		t.Fatal(err)
	}
	if out.Metadata.ComputeApi != "" || out.Metadata.GlobalSizeType != "" || len(out.Results) != 2 {
		t.Fatalf("ComputeApi %q, GlobalSizeType %q, %d results; want none, none, 2", out.Metadata.ComputeApi, out.Metadata.GlobalSizeType, len(out.Results))
	}
	for i, r := range out.Results {
		for _, c := range r.ComputationResults {
			if c.GlobalSize != nil || c.LocalSize != nil {
				t.Errorf("result %d: GlobalSize %v, LocalSize %v; want none", i, c.GlobalSize, c.LocalSize)
			}
		}
	}
}
