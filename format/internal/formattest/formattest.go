// Package formattest helps the format packages' tests: an independent minimal reading of
// each format (plain encoding/json into map[string]any, sharing no code with the readers
// under test) to check counts and best times against, recording comparison, the location
// of the shared recorded spaces, and a JSON Schema validator for the formats' schemas.
package formattest

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ktune/ktune/format"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
)

// Stats are the numbers a test checks a reader against.
type Stats struct {
	Total int     // configurations in the file
	Valid int     // configurations with a usable objective
	Best  float64 // lowest time in milliseconds among the valid ones (NaN if none)
}

// readMaybeGzip reads a file, gunzipping by magic bytes.
func readMaybeGzip(path string) ([]byte, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(raw) > 2 && raw[0] == 0x1f && raw[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return nil, err
		}
		if raw, err = io.ReadAll(zr); err != nil {
			return nil, err
		}
	}
	return raw, nil
}

// load reads a file, gunzipping by magic bytes, and decodes it into generic values.
func load(path string) (map[string]any, error) {
	raw, err := readMaybeGzip(path)
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return doc, nil
}

func newStats() Stats { return Stats{Best: math.NaN()} }

func (s *Stats) add(ok bool, t float64) {
	s.Total++
	if !ok {
		return
	}
	s.Valid++
	if math.IsNaN(s.Best) || t < s.Best {
		s.Best = t
	}
}

// KernelTunerStats reads a closed Kernel Tuner cache: an entry is valid when "time" is a
// number below 1e20 and it has no "__error__".
func KernelTunerStats(path string) (Stats, error) {
	doc, err := load(path)
	if err != nil {
		return Stats{}, err
	}
	cache, ok := doc["cache"].(map[string]any)
	if !ok {
		return Stats{}, fmt.Errorf("%s: no cache object", path)
	}
	s := newStats()
	for _, e := range cache {
		m := e.(map[string]any)
		t, isNum := m["time"].(float64)
		_, hasErr := m["__error__"]
		s.add(isNum && t < 1e20 && !hasErr, t)
	}
	return s, nil
}

// T4Stats reads a T4 results file: a result is valid when its invalidity is "correct";
// its time is the "time" measurement (the file's unit is milliseconds).
func T4Stats(path string) (Stats, error) {
	doc, err := load(path)
	if err != nil {
		return Stats{}, err
	}
	results, ok := doc["results"].([]any)
	if !ok {
		return Stats{}, fmt.Errorf("%s: no results array", path)
	}
	s := newStats()
	for _, r := range results {
		m := r.(map[string]any)
		t := math.NaN()
		for _, x := range m["measurements"].([]any) {
			mm := x.(map[string]any)
			if mm["name"] == "time" {
				if f, ok := mm["value"].(float64); ok {
					t = f
				}
			}
		}
		s.add(m["invalidity"] == "correct" && !math.IsNaN(t), t)
	}
	return s, nil
}

// KTTStats reads a KTT output file: a result is valid when its Status is "Ok"; its time
// is the sum of its kernels' Durations, converted from Metadata.TimeUnit to milliseconds.
func KTTStats(path string) (Stats, error) {
	doc, err := load(path)
	if err != nil {
		return Stats{}, err
	}
	meta, _ := doc["Metadata"].(map[string]any)
	scale := map[string]float64{"Nanoseconds": 1e-6, "Microseconds": 1e-3, "Milliseconds": 1, "Seconds": 1e3}[fmt.Sprint(meta["TimeUnit"])]
	if scale == 0 {
		return Stats{}, fmt.Errorf("%s: unknown TimeUnit %v", path, meta["TimeUnit"])
	}
	results, ok := doc["Results"].([]any)
	if !ok {
		return Stats{}, fmt.Errorf("%s: no Results array", path)
	}
	s := newStats()
	for _, r := range results {
		m := r.(map[string]any)
		sum := 0.0
		for _, c := range m["ComputationResults"].([]any) {
			sum += c.(map[string]any)["Duration"].(float64)
		}
		s.add(m["Status"] == "Ok", sum*scale)
	}
	return s, nil
}

// SharedSpaces returns the absolute path of the shared recorded spaces, given as a path
// relative to the calling test's package, or skips the test when they are absent (CI has
// them; a checkout on its own may not).
func SharedSpaces(t testing.TB, rel string) string {
	t.Helper()
	dir, err := filepath.Abs(rel)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Skipf("shared recorded spaces not found at %s", dir)
	}
	return dir
}

// CheckStats compares a recording's counts and best time with independently read stats.
func CheckStats(t testing.TB, rec *result.Recording, want Stats) {
	t.Helper()
	total, ok := rec.Counts()
	if total != want.Total || ok != want.Valid {
		t.Errorf("%s: counts = %d total, %d valid; independent reading gives %d, %d", rec.Source, total, ok, want.Total, want.Valid)
	}
	best, found := rec.Best()
	switch {
	case !found && !math.IsNaN(want.Best):
		t.Errorf("%s: no best evaluation; independent reading gives %v", rec.Source, want.Best)
	case found && !near(best.Objective, want.Best):
		t.Errorf("%s: best objective = %v; independent reading gives %v", rec.Source, best.Objective, want.Best)
	}
}

// near compares with a relative tolerance, for times converted between units.
func near(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-12*math.Max(math.Abs(a), math.Abs(b))
}

// Diff describes how two recordings differ, ignoring Source and Warnings (which name the
// file and the reading, not the data); "" when they are equal. NaNs compare equal to
// NaNs and times by instant.
func Diff(a, b *result.Recording) string {
	var d []string
	add := func(format string, args ...any) {
		if len(d) < 10 {
			d = append(d, fmt.Sprintf(format, args...))
		}
	}
	if a.Format != b.Format || a.Device != b.Device || a.Backend != b.Backend || a.Kernel != b.Kernel || !sameProblemSize(a.ProblemSize, b.ProblemSize) ||
		a.Objective != b.Objective || a.Maximize != b.Maximize {
		add("header: %q %q %q %q %q %q %v vs %q %q %q %q %q %q %v", a.Format, a.Device, a.Backend, a.Kernel, a.ProblemSize, a.Objective, a.Maximize,
			b.Format, b.Device, b.Backend, b.Kernel, b.ProblemSize, b.Objective, b.Maximize)
	}
	if fmt.Sprint(a.Restrictions) != fmt.Sprint(b.Restrictions) {
		add("restrictions %q vs %q", a.Restrictions, b.Restrictions)
	}
	if len(a.Params) != len(b.Params) {
		add("%d params vs %d", len(a.Params), len(b.Params))
	} else {
		for i := range a.Params {
			pa, pb := a.Params[i], b.Params[i]
			if pa.Name != pb.Name || valuesString(pa.Values) != valuesString(pb.Values) {
				add("param %d: %s %s vs %s %s", i, pa.Name, valuesString(pa.Values), pb.Name, valuesString(pb.Values))
			}
		}
	}
	if len(a.Evaluations) != len(b.Evaluations) {
		add("%d evaluations vs %d", len(a.Evaluations), len(b.Evaluations))
		return strings.Join(d, "\n")
	}
	for i := range a.Evaluations {
		if s := diffEval(&a.Evaluations[i], &b.Evaluations[i]); s != "" {
			add("evaluation %d: %s", i, s)
		}
	}
	return strings.Join(d, "\n")
}

// sameProblemSize compares problem sizes by their integer sizes where they have them:
// Kernel Tuner writes a 1-D size as 20000000, the writers as [20000000].
func sameProblemSize(a, b string) bool {
	x, okA := format.ProblemSizeJSON(a)
	y, okB := format.ProblemSizeJSON(b)
	if okA && okB {
		return x == y
	}
	return a == b
}

func valuesString(vs []space.Value) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = v.Kind().String() + ":" + v.String()
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func same(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }

func diffEval(a, b *result.Evaluation) string {
	if valuesString(a.Config) != valuesString(b.Config) {
		return fmt.Sprintf("config %s vs %s", valuesString(a.Config), valuesString(b.Config))
	}
	if a.Status != b.Status || !same(a.Objective, b.Objective) {
		return fmt.Sprintf("status/objective %v %v vs %v %v", a.Status, a.Objective, b.Status, b.Objective)
	}
	if len(a.Samples) != len(b.Samples) {
		return fmt.Sprintf("%d samples vs %d", len(a.Samples), len(b.Samples))
	}
	for i := range a.Samples {
		if !same(a.Samples[i], b.Samples[i]) {
			return fmt.Sprintf("sample %d: %v vs %v", i, a.Samples[i], b.Samples[i])
		}
	}
	if !same(a.CompileMS, b.CompileMS) || !same(a.VerifyMS, b.VerifyMS) || !same(a.BenchmarkMS, b.BenchmarkMS) ||
		!same(a.FrameworkMS, b.FrameworkMS) || !same(a.StrategyMS, b.StrategyMS) {
		return fmt.Sprintf("timings %v %v %v %v %v vs %v %v %v %v %v", a.CompileMS, a.VerifyMS, a.BenchmarkMS, a.FrameworkMS, a.StrategyMS,
			b.CompileMS, b.VerifyMS, b.BenchmarkMS, b.FrameworkMS, b.StrategyMS)
	}
	if metricsString(a.Metrics) != metricsString(b.Metrics) {
		return fmt.Sprintf("metrics %s vs %s", metricsString(a.Metrics), metricsString(b.Metrics))
	}
	if a.Message != b.Message {
		return fmt.Sprintf("message %q vs %q", a.Message, b.Message)
	}
	if a.Device != b.Device {
		return fmt.Sprintf("device %q vs %q", a.Device, b.Device)
	}
	if !a.Time.Equal(b.Time) {
		return fmt.Sprintf("time %v vs %v", a.Time, b.Time)
	}
	if !result.SameLaunch(a.Launch, b.Launch) {
		return fmt.Sprintf("launch %s vs %s", launchString(a.Launch), launchString(b.Launch))
	}
	if a.RunsPerSample != b.RunsPerSample {
		return fmt.Sprintf("runs per sample %d vs %d", a.RunsPerSample, b.RunsPerSample)
	}
	return ""
}

// launchString is a launch's sizes, "none" when unknown.
func launchString(l *result.Launch) string {
	if l == nil {
		return "none"
	}
	return fmt.Sprintf("grid %v, block %v", l.Grid, l.Block)
}

func metricsString(m map[string]float64) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%v ", k, m[k])
	}
	return b.String()
}
