package kerneltuner

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ktune/ktune/format"
	"github.com/ktune/ktune/format/internal/jsonio"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
)

// SchemaVersion is the cache-format version Write declares. Kernel Tuner's own cache
// schemas (kernel_tuner/schema/cache/<version>/schema.json) call the field
// "schema_version"; Kernel Tuner 1.x's reader ignores fields it does not know.
const SchemaVersion = "1.0.0"

// markers are the failure strings Write puts in "time" for each status. Kernel Tuner knows
// only the first three; the others get the closest one plus a ktune_status field so that
// ktune reads them back exactly.
var markers = map[result.Status]string{
	result.Restricted:   invalidConfig,
	result.CompileError: compilationFailed,
	result.RuntimeError: runtimeFailed,
	result.Timeout:      runtimeFailed,
	result.WrongAnswer:  runtimeFailed,
	result.DeviceLimit:  invalidConfig,
}

// Write encodes rec as a closed Kernel Tuner cache file that Kernel Tuner 1.x can load
// (as a cache to resume from or for simulation mode). Entries are written one per line,
// in the recording's order. Non-finite numbers, which JSON cannot hold, are left out. The
// file follows Kernel Tuner's cache schema 1.0.0 except where Kernel Tuner's own caches do
// not: keys of values other than non-negative integers, and a problem size over the
// parameters (see problemSize). A parameter named as a member of the entries (time,
// compile_time, the objective) is an error: an entry cannot hold both. What a cache has no
// member for, the objective's direction and the restrictions, goes in ktune_maximize and
// ktune_restrictions, which Read takes back and Kernel Tuner ignores.
func Write(w io.Writer, rec *result.Recording) error {
	bw := bufio.NewWriter(w)
	e := &encoder{jsonio.Encoder{W: bw, Prefix: "kerneltuner"}}
	objective := rec.Objective
	if objective == "" {
		objective = fieldTime
	}
	names := make([]string, len(rec.Params))
	for i, p := range rec.Params {
		names[i] = p.Name
		if entryField(p.Name, objective) {
			return fmt.Errorf("kerneltuner: parameter %q has the name of a member of Kernel Tuner's cache entries, which hold the parameters and the measurements side by side: an entry cannot hold both (Kernel Tuner forbids a tunable parameter named time); export to t4 or ktt, which keep the configuration apart", p.Name)
		}
	}
	e.Str("{\n")
	e.field("schema_version", SchemaVersion, ",\n")
	e.field("device_name", rec.Device, ",\n")
	e.field("kernel_name", rec.Kernel, ",\n")
	e.field("problem_size", problemSize(rec.ProblemSize), ",\n")
	e.field("tune_params_keys", names, ",\n")
	e.Key("tune_params")
	e.ParamValues(rec.Params)
	e.Str(",\n")
	e.field("objective", objective, ",\n")
	e.field(fieldMaximize, rec.Maximize, ",\n")
	if len(rec.Restrictions) > 0 {
		e.field(fieldRestrictions, rec.Restrictions, ",\n")
	}
	e.Key("cache")
	e.Str("{")
	seen := make(map[string]int, len(rec.Evaluations))
	for i := range rec.Evaluations {
		ev := &rec.Evaluations[i]
		if len(ev.Config) != len(rec.Params) {
			return fmt.Errorf("kerneltuner: evaluation %d has %d values for %d parameters", i, len(ev.Config), len(rec.Params))
		}
		key := Key(ev.Config)
		if j, dup := seen[key]; dup {
			return fmt.Errorf("kerneltuner: evaluations %d and %d have the same configuration %q; a cache holds one entry per configuration", j, i, key)
		}
		seen[key] = i
		if i > 0 {
			e.Str(",")
		}
		e.Str("\n")
		e.entry(key, ev, rec, objective)
		if e.Err != nil {
			return e.Err
		}
	}
	// Kernel Tuner checks the last three characters for "}\n}" to see that a cache is closed.
	return e.End("}\n}\n")
}

// entry writes one `"key": {...}` cache line.
func (e *encoder) entry(key string, ev *result.Evaluation, rec *result.Recording, objective string) {
	e.Key(key)
	e.Str("{")
	first := true
	sep := func() {
		if !first {
			e.Str(", ")
		}
		first = false
	}
	for i, p := range rec.Params {
		sep()
		e.Key(p.Name)
		e.JSON(ev.Config[i])
	}
	failed := ev.Failed()
	marker := markers[ev.Status]
	if marker == "" {
		marker = runtimeFailed // OK status with a NaN objective
	}
	writeObjective := func() {
		sep()
		e.Key(objective)
		if failed {
			e.JSON(marker)
		} else {
			e.float(ev.Objective)
		}
	}
	// Kernel Tuner writes every entry's "time", whatever the objective, and its
	// simulation mode computes the metrics from it: it is the time the run used (its
	// statistic of the samples), which the metrics were computed from (Evaluation.TimeMS
	// says what stands in for it in evaluations stored before ktune kept it). Kernel Tuner
	// marks failures in "time" too.
	if objective == fieldTime {
		writeObjective()
	} else if f, ok := ev.TimeMS(objective); ok {
		sep()
		e.Key(fieldTime)
		e.float(f)
	} else if failed {
		sep()
		e.Key(fieldTime)
		e.JSON(marker)
	}
	if len(ev.Samples) > 0 {
		sep()
		e.Key(fieldTimes)
		e.Str("[")
		n := 0
		for _, s := range ev.Samples {
			if !jsonio.Finite(s) {
				continue
			}
			if n > 0 {
				e.Str(", ")
			}
			e.float(s)
			n++
		}
		e.Str("]")
	}
	// Kernel Tuner's cache schema requires every entry's timings (strategy_time, the time
	// the search strategy spent choosing the configuration, included), and its simulation
	// mode reads compile, verification and benchmark time from every entry (some versions
	// fail without them, others only under a time limit). A timing the recording lacks
	// (NaN, such as the benchmark time of a T4 file, or the strategy time of a run ktune
	// stored before it recorded one) is written as 0 for Kernel Tuner and named in
	// ktune_unrecorded, so that ktune reads it back as unknown, not as 0.
	var unrecorded []string
	if ev.Time.IsZero() {
		unrecorded = append(unrecorded, fieldTimestamp)
	}
	for _, t := range []struct {
		name string
		v    float64
	}{{fieldCompile, ev.CompileMS}, {fieldVerify, ev.VerifyMS}, {fieldBenchmark, ev.BenchmarkMS}, {fieldStrategy, ev.StrategyMS}, {fieldFramework, ev.FrameworkMS}} {
		sep()
		e.Key(t.name)
		if jsonio.Finite(t.v) {
			e.float(t.v)
		} else {
			e.Str("0") // as Kernel Tuner writes a timing it did not take
			unrecorded = append(unrecorded, t.name)
		}
	}
	if len(unrecorded) > 0 {
		sep()
		e.field(fieldUnrecorded, unrecorded, "")
	}
	names := make([]string, 0, len(ev.Metrics))
	for k := range ev.Metrics {
		if k == fieldTime || reserved(k, rec) {
			continue
		}
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if f := ev.Metrics[k]; jsonio.Finite(f) {
			sep()
			e.Key(k)
			e.float(f)
		}
	}
	if objective != fieldTime {
		writeObjective()
	}
	if failed && ev.Status != result.OK && markerStatus[marker] != ev.Status {
		sep()
		e.field(fieldStatus, ev.Status.String(), "")
	}
	if ev.Message != "" {
		sep()
		e.field(fieldMessage, ev.Message, "")
	}
	if ev.Device != "" {
		sep()
		e.field(fieldDevice, ev.Device, "")
	}
	// nor for how many runs each sample is the statistic of, or the launch
	if ev.RunsPerSample > 0 {
		sep()
		e.field(jsonio.FieldRunsPerSample, ev.RunsPerSample, "")
	}
	if ev.Launch != nil {
		sep()
		e.field(jsonio.FieldLaunch, jsonio.LaunchValue(ev.Launch), "")
	}
	// The schema requires a timestamp too; an evaluation measured at an unknown time (KTT
	// output has none per result) gets the Unix epoch, which no measurement carries, and
	// is named in ktune_unrecorded.
	sep()
	e.field(fieldTimestamp, jsonio.FormatTime(timestamp(ev.Time)), "")
	e.Str("}")
}

// entryField reports whether name is a member Write gives a cache entry besides the
// parameters (the objective, the kernel time and samples, the timings, the failure and
// ktune's own members): a parameter of that name would be written twice in one object,
// and the measurement would take the parameter's place when Python or ktune reads it.
func entryField(name, objective string) bool {
	switch name {
	case objective, fieldTime, fieldTimes, fieldCompile, fieldVerify, fieldBenchmark, fieldStrategy, fieldFramework,
		fieldTimestamp, fieldError, fieldStatus, fieldMessage, fieldDevice, fieldUnrecorded,
		jsonio.FieldRunsPerSample, jsonio.FieldLaunch:
		return true
	}
	return false
}

// unknownTime is the timestamp written for an evaluation whose time is unknown.
var unknownTime = time.Unix(0, 0).UTC()

func timestamp(t time.Time) time.Time {
	if t.IsZero() {
		return unknownTime
	}
	return t
}

// problemSize is the "problem_size" Write gives Kernel Tuner for a recording's size.
//
// Kernel Tuner's cache schema wants an array of integers, and Kernel Tuner compares the
// member with the size it tunes (as numpy arrays) before it resumes from a cache or
// simulates with it. A size over the parameters is written as Kernel Tuner writes the
// problem_size it was given: one dimension as its string ("num_blocks"), several as a
// list of strings and integers (["num_blocks", 1]); ktune stores such sizes with their
// dimensions joined by commas. The schema's integers cannot hold it, and Kernel Tuner's
// own caches of such sizes break the schema alike. A recording that does not say (KTT
// output has no problem size) gets an empty array, which the schema requires and which
// claims no size: Kernel Tuner then refuses to resume from the file for a given size,
// unless the member is deleted (it checks the size only where there is one).
func problemSize(s string) any {
	if ints, ok := format.ProblemSizeInts(s); ok {
		return ints
	}
	switch {
	case s == "":
		return []int64{}
	case json.Valid([]byte(s)):
		return json.RawMessage(s) // a size read from a cache that held it so
	}
	// A size with commas becomes a list where Read joins that list back to the same text
	// ("num_blocks,1"); anything else ("N / 2, 1", "f(a,b)", " A") stays a string, as
	// Read keeps it, spaces included.
	if parts := strings.Split(s, ","); len(parts) > 1 {
		dims := make([]any, len(parts))
		for i, p := range parts {
			if n, err := strconv.ParseInt(p, 10, 64); err == nil && strconv.FormatInt(n, 10) == p {
				dims[i] = n
			} else {
				dims[i] = p
			}
		}
		if raw, err := json.Marshal(dims); err == nil {
			if back, ok := namedDims(raw); ok && back == s {
				return dims
			}
		}
	}
	return s
}

// encoder is the shared JSON encoder with the cache's own pieces.
type encoder struct{ jsonio.Encoder }

// float writes a finite measured number as Python's json.dumps writes a float (2.0,
// 1e-05, 1e+16), never as an integer: Python reads 2 back as an int, and Kernel Tuner
// takes an objective that is no float for a failure (get_best_config passes over it, so
// a kernel time of exactly 2 ms could never be the best), and an observable that was
// 45.0 would come back as another type.
func (e *encoder) float(f float64) { e.Str(space.FormatFloat(f)) }

func (e *encoder) field(k string, v any, after string) {
	e.Field(k, v)
	e.Str(after)
}
