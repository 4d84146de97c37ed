package t4

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"

	"github.com/ktune/ktune/format/internal/jsonio"
	"github.com/ktune/ktune/result"
)

// statusInvalidity is what Write puts in "invalidity". T4 has no device-limit value; a
// configuration the device cannot run violates a constraint of the space.
var statusInvalidity = map[result.Status]string{
	result.OK:           "correct",
	result.Restricted:   "constraints",
	result.CompileError: "compile",
	result.RuntimeError: "runtime",
	result.Timeout:      "timeout",
	result.WrongAnswer:  "correctness",
	result.DeviceLimit:  "constraints",
}

// statusMarker is the Kernel Tuner failure string Write puts in the objective's
// measurement of a failed result, as Kernel Tuner's own T4 writer does.
var statusMarker = map[result.Status]string{
	result.Restricted:   "InvalidConfig",
	result.CompileError: "CompilationFailedConfig",
	result.RuntimeError: "RuntimeFailedConfig",
}

// Write encodes rec as a T4 results file (schema_version 1.0.0) in milliseconds, one result
// per line. Besides the schema's fields it records, under "metadata", what a recording has
// and T4 lacks (device, kernel, problem size, objective, direction, the parameters' value
// lists, restrictions), so that Read restores them. Non-finite numbers are left out.
func Write(w io.Writer, rec *result.Recording) error {
	bw := bufio.NewWriter(w)
	e := &encoder{w: bw}
	objective := rec.Objective
	if objective == "" {
		objective = "time"
	}
	e.str("{\n")
	e.field("schema_version", SchemaVersion)
	e.str(",\n")
	e.key("metadata")
	e.str("{")
	e.field("timeunit", "milliseconds")
	if rec.Device != "" {
		e.str(", ")
		e.field("device", rec.Device)
	}
	if rec.Kernel != "" {
		e.str(", ")
		e.field("kernel", rec.Kernel)
	}
	if rec.ProblemSize != "" {
		e.str(", ")
		e.key("problem_size")
		if json.Valid([]byte(rec.ProblemSize)) {
			e.str(rec.ProblemSize)
		} else {
			e.json(rec.ProblemSize)
		}
	}
	e.str(", ")
	e.field("objective", objective)
	if rec.Maximize {
		e.str(", ")
		e.field("maximize", true)
	}
	e.str(", ")
	e.key("tune_params")
	e.str("{")
	for i, p := range rec.Params {
		if i > 0 {
			e.str(", ")
		}
		e.key(p.Name)
		e.str("[")
		for j, v := range p.Values {
			if j > 0 {
				e.str(", ")
			}
			e.json(v)
		}
		e.str("]")
	}
	e.str("}")
	if len(rec.Restrictions) > 0 {
		e.str(", ")
		e.field("restrictions", rec.Restrictions)
	}
	e.str("},\n")
	e.key("results")
	e.str("[")
	for i := range rec.Evaluations {
		ev := &rec.Evaluations[i]
		if len(ev.Config) != len(rec.Params) {
			return fmt.Errorf("t4: evaluation %d has %d values for %d parameters", i, len(ev.Config), len(rec.Params))
		}
		if i > 0 {
			e.str(",")
		}
		e.str("\n")
		e.result(ev, rec, objective)
		if e.err != nil {
			return e.err
		}
	}
	e.str("\n]\n}\n")
	if e.err != nil {
		return e.err
	}
	return bw.Flush()
}

func (e *encoder) result(ev *result.Evaluation, rec *result.Recording, objective string) {
	e.str("{")
	if !ev.Time.IsZero() {
		e.field("timestamp", jsonio.FormatTime(ev.Time))
		e.str(", ")
	}
	e.key("configuration")
	e.str("{")
	for i, p := range rec.Params {
		if i > 0 {
			e.str(", ")
		}
		e.key(p.Name)
		e.json(ev.Config[i])
	}
	e.str("}, ")
	e.key("times")
	e.str("{")
	e.timing("compilation", ev.CompileMS, false)
	e.timing("benchmark", ev.BenchmarkMS, true)
	e.timing("framework", ev.FrameworkMS, true)
	if f, ok := ev.Metrics["strategy_time"]; ok {
		e.timing("search_algorithm", f, true)
	}
	e.timing("validation", ev.VerifyMS, true)
	e.str(", ")
	e.key("runtimes")
	e.str("[")
	n := 0
	for _, s := range ev.Samples {
		if jsonio.Finite(s) {
			if n > 0 {
				e.str(", ")
			}
			e.num(s)
			n++
		}
	}
	e.str("]}, ")
	failed := ev.Failed()
	status := ev.Status
	if failed && status == result.OK {
		status = result.RuntimeError // an OK status without a usable objective
	}
	e.field("invalidity", statusInvalidity[status])
	e.str(", ")
	correctness := 1
	if status == result.WrongAnswer {
		correctness = 0
	}
	e.field("correctness", correctness)
	e.str(", ")
	e.key("measurements")
	e.str("[")
	n = 0
	sep := func() {
		if n > 0 {
			e.str(", ")
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
	names := make([]string, 0, len(ev.Metrics))
	for k := range ev.Metrics {
		if k != objective && k != "strategy_time" {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	for _, k := range names {
		if f := ev.Metrics[k]; jsonio.Finite(f) {
			sep()
			e.measurement(k, f, nil)
		}
	}
	e.str("], ")
	e.field("objectives", []string{objective})
	e.str("}")
}

// measurement writes {"name", "value", "unit"}; times are in ms, everything else unitless
// (T4 has no unit vocabulary; Kernel Tuner writes "" too).
func (e *encoder) measurement(name string, f float64, marker any) {
	e.str("{")
	e.field("name", name)
	e.str(", ")
	e.key("value")
	if marker != nil {
		e.json(marker)
	} else {
		e.num(f)
	}
	e.str(", ")
	unit := ""
	if name == "time" {
		unit = "ms"
	}
	e.field("unit", unit)
	e.str("}")
}

func (e *encoder) timing(name string, f float64, comma bool) {
	if !jsonio.Finite(f) {
		f = 0
	}
	if comma {
		e.str(", ")
	}
	e.key(name)
	e.num(f)
}

// encoder writes JSON pieces and remembers the first error, which keeps Write linear.
type encoder struct {
	w   *bufio.Writer
	err error
	buf []byte
}

func (e *encoder) str(s string) {
	if e.err == nil {
		_, e.err = e.w.WriteString(s)
	}
}

func (e *encoder) json(v any) {
	if e.err != nil {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		e.err = fmt.Errorf("t4: %w", err)
		return
	}
	_, e.err = e.w.Write(b)
}

func (e *encoder) key(k string) {
	e.json(k)
	e.str(": ")
}

func (e *encoder) field(k string, v any) {
	e.key(k)
	e.json(v)
}

func (e *encoder) num(f float64) {
	e.buf = strconv.AppendFloat(e.buf[:0], f, 'g', -1, 64)
	if e.err == nil {
		_, e.err = e.w.Write(e.buf)
	}
}
