package t4

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"sort"

	"github.com/ktune/ktune/format"
	"github.com/ktune/ktune/format/internal/jsonio"
	"github.com/ktune/ktune/result"
)

// statusInvalidity is what Write puts in "invalidity". T4 has no device-limit value. The
// closest is "runtime": the device refuses to run the configuration (Kernel Tuner records
// a launch with too many resources as a runtime failure), and "constraints", which reads
// as restricted, would say that the space's restrictions exclude it, which they do not
// (and a complete run would then seem to lack configurations its restrictions allow).
// Write keeps the exact status in fieldStatus.
var statusInvalidity = map[result.Status]string{
	result.OK:           "correct",
	result.Restricted:   "constraints",
	result.CompileError: "compile",
	result.RuntimeError: "runtime",
	result.Timeout:      "timeout",
	result.WrongAnswer:  "correctness",
	result.DeviceLimit:  "runtime",
}

// statusMarker is the Kernel Tuner failure string Write puts in the objective's
// measurement of a failed result, as Kernel Tuner's own T4 writer does.
var statusMarker = map[result.Status]string{
	result.Restricted:   "InvalidConfig",
	result.CompileError: "CompilationFailedConfig",
	result.RuntimeError: "RuntimeFailedConfig",
}

// Write encodes rec as a T4 results file (schema_version 1.0.0) in milliseconds, one result
// per line, each with its kernel time as a "time" measurement whatever the objective. Besides the schema's fields it records, under "metadata", what a recording has
// and T4 lacks (device, kernel, problem size, objective, direction, the parameters' value
// lists, restrictions), so that Read restores them. Non-finite numbers are left out.
func Write(w io.Writer, rec *result.Recording) error {
	bw := bufio.NewWriter(w)
	e := &encoder{jsonio.Encoder{W: bw, Prefix: "t4"}}
	objective := rec.Objective
	if objective == "" {
		objective = "time"
	}
	e.Str("{\n")
	e.Field("schema_version", SchemaVersion)
	e.Str(",\n")
	e.Key("metadata")
	e.Str("{")
	e.Field("timeunit", "milliseconds")
	if rec.Device != "" {
		e.Str(", ")
		e.Field("device", rec.Device)
	}
	if rec.Kernel != "" {
		e.Str(", ")
		e.Field("kernel", rec.Kernel)
	}
	// as Kernel Tuner's cache schema has it, an array of integers, where the size is one
	if ints, ok := format.ProblemSizeInts(rec.ProblemSize); ok {
		e.Str(", ")
		e.Field("problem_size", ints)
	} else if rec.ProblemSize != "" {
		e.Str(", ")
		e.Key("problem_size")
		if json.Valid([]byte(rec.ProblemSize)) {
			e.Str(rec.ProblemSize)
		} else {
			e.JSON(rec.ProblemSize)
		}
	}
	e.Str(", ")
	e.Field("objective", objective)
	if rec.Maximize {
		e.Str(", ")
		e.Field("maximize", true)
	}
	e.Str(", ")
	e.Key("tune_params")
	e.ParamValues(rec.Params)
	if len(rec.Restrictions) > 0 {
		e.Str(", ")
		e.Field("restrictions", rec.Restrictions)
	}
	e.Str("},\n")
	e.Key("results")
	e.Str("[")
	for i := range rec.Evaluations {
		ev := &rec.Evaluations[i]
		if len(ev.Config) != len(rec.Params) {
			return fmt.Errorf("t4: evaluation %d has %d values for %d parameters", i, len(ev.Config), len(rec.Params))
		}
		if i > 0 {
			e.Str(",")
		}
		e.Str("\n")
		e.result(ev, rec, objective)
		if e.Err != nil {
			return e.Err
		}
	}
	return e.End("\n]\n}\n")
}

func (e *encoder) result(ev *result.Evaluation, rec *result.Recording, objective string) {
	e.Str("{")
	if !ev.Time.IsZero() {
		e.Field("timestamp", jsonio.FormatTime(ev.Time))
		e.Str(", ")
	}
	e.Key("configuration")
	e.Str("{")
	for i, p := range rec.Params {
		if i > 0 {
			e.Str(", ")
		}
		e.Key(p.Name)
		e.JSON(ev.Config[i])
	}
	e.Str("}, ")
	e.Key("times")
	e.Str("{")
	// Timings that were not recorded (NaN), and runtimes where there are none (a
	// failure), are left out, not written as 0 or []: the schema requires none of them.
	first := true
	timing := func(name string, f float64) {
		if !jsonio.Finite(f) {
			return
		}
		if !first {
			e.Str(", ")
		}
		first = false
		e.Key(name)
		e.Num(f)
	}
	timing("compilation", ev.CompileMS)
	timing("benchmark", ev.BenchmarkMS)
	timing("framework", ev.FrameworkMS)
	timing("search_algorithm", ev.StrategyMS)
	timing("validation", ev.VerifyMS)
	n := 0
	for _, s := range ev.Samples {
		if !jsonio.Finite(s) {
			continue
		}
		if n == 0 {
			if !first {
				e.Str(", ")
			}
			e.Key("runtimes")
			e.Str("[")
		} else {
			e.Str(", ")
		}
		e.Num(s)
		n++
	}
	if n > 0 {
		e.Str("]")
	}
	e.Str("}, ")
	failed := ev.Failed()
	status := ev.Status
	if failed && status == result.OK {
		status = result.RuntimeError // an OK status without a usable objective
	}
	e.Field("invalidity", statusInvalidity[status])
	e.Str(", ")
	// A status the invalidity does not tell goes in ktune's own member, as in a Kernel
	// Tuner cache; the schema allows other members in a result.
	if invalidityStatus[statusInvalidity[status]] != status {
		e.Field(fieldStatus, status.String())
		e.Str(", ")
	}
	// Only a result that ran and whose output was verified (or not checked) is correct;
	// a failure never produced output to call correct, and T4 files from Kernel Tuner's
	// benchmark hub give compile and runtime failures 0.
	correctness := 0
	if status == result.OK {
		correctness = 1
	}
	e.Field("correctness", correctness)
	e.Str(", ")
	e.Key("measurements")
	e.Str("[")
	n = 0
	sep := func() {
		if n > 0 {
			e.Str(", ")
		}
		n++
	}
	if !failed {
		sep()
		e.measurement(objective, ev.Objective, nil)
	} else if m, ok := statusMarker[status]; ok {
		sep()
		e.measurement(objective, 0, m)
	}
	// Every result's time in ms, whatever the objective, as Kernel Tuner's T4 writer has
	// it: the time the run used, which other measurements (GB/s) were computed from.
	measured := ev.Metrics
	if t, ok := ev.TimeMS(objective); ok && objective != "time" {
		measured = maps.Clone(ev.Metrics)
		if measured == nil {
			measured = map[string]float64{}
		}
		measured["time"] = t
	}
	names := make([]string, 0, len(measured))
	for k := range measured {
		if k != objective {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	for _, k := range names {
		if f := measured[k]; jsonio.Finite(f) {
			sep()
			e.measurement(k, f, nil)
		}
	}
	e.Str("], ")
	e.Field("objectives", []string{objective})
	// T4 has no field for a failure's compiler or runtime message; the schema allows
	// other members in a result, so it goes in ktune's own, as in a Kernel Tuner cache.
	if ev.Message != "" {
		e.Str(", ")
		e.Field(fieldMessage, ev.Message)
	}
	// nor for the device that measured the result, among a run's several
	if ev.Device != "" {
		e.Str(", ")
		e.Field(fieldDevice, ev.Device)
	}
	// nor for how many runs each sample is the statistic of, or the launch
	if ev.RunsPerSample > 0 {
		e.Str(", ")
		e.Field(jsonio.FieldRunsPerSample, ev.RunsPerSample)
	}
	if ev.Launch != nil {
		e.Str(", ")
		e.Field(jsonio.FieldLaunch, jsonio.LaunchValue(ev.Launch))
	}
	e.Str("}")
}

// measurement writes {"name", "value", "unit"}; times are in ms, everything else unitless
// (T4 has no unit vocabulary; Kernel Tuner writes "" too).
func (e *encoder) measurement(name string, f float64, marker any) {
	e.Str("{")
	e.Field("name", name)
	e.Str(", ")
	e.Key("value")
	if marker != nil {
		e.JSON(marker)
	} else {
		e.Num(f)
	}
	e.Str(", ")
	unit := ""
	if name == "time" {
		unit = "ms"
	}
	e.Field("unit", unit)
	e.Str("}")
}

// encoder is the shared JSON encoder with the results file's own pieces.
type encoder struct{ jsonio.Encoder }
