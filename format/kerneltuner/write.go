package kerneltuner

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
// in the recording's order. Non-finite numbers, which JSON cannot hold, are left out.
func Write(w io.Writer, rec *result.Recording) error {
	bw := bufio.NewWriter(w)
	e := &encoder{w: bw}
	objective := rec.Objective
	if objective == "" {
		objective = fieldTime
	}
	names := make([]string, len(rec.Params))
	for i, p := range rec.Params {
		names[i] = p.Name
	}
	e.str("{\n")
	e.field("schema_version", SchemaVersion, ",\n")
	e.field("device_name", rec.Device, ",\n")
	e.field("kernel_name", rec.Kernel, ",\n")
	if rec.ProblemSize != "" {
		e.key("problem_size")
		if json.Valid([]byte(rec.ProblemSize)) {
			e.str(rec.ProblemSize)
		} else {
			e.json(rec.ProblemSize)
		}
		e.str(",\n")
	}
	e.field("tune_params_keys", names, ",\n")
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
	e.str("},\n")
	e.field("objective", objective, ",\n")
	e.key("cache")
	e.str("{")
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
			e.str(",")
		}
		e.str("\n")
		e.entry(key, ev, rec, objective)
		if e.err != nil {
			return e.err
		}
	}
	// Kernel Tuner checks the last three characters for "}\n}" to see that a cache is closed.
	e.str("}\n}\n")
	if e.err != nil {
		return e.err
	}
	return bw.Flush()
}

// entry writes one `"key": {...}` cache line.
func (e *encoder) entry(key string, ev *result.Evaluation, rec *result.Recording, objective string) {
	e.key(key)
	e.str("{")
	first := true
	sep := func() {
		if !first {
			e.str(", ")
		}
		first = false
	}
	for i, p := range rec.Params {
		sep()
		e.key(p.Name)
		e.json(ev.Config[i])
	}
	failed := ev.Failed()
	marker := markers[ev.Status]
	if marker == "" {
		marker = runtimeFailed // OK status with a NaN objective
	}
	writeObjective := func() {
		sep()
		e.key(objective)
		if failed {
			e.json(marker)
		} else {
			e.num(ev.Objective)
		}
	}
	if objective == fieldTime {
		writeObjective()
	} else if f, ok := ev.Metrics[fieldTime]; ok && jsonio.Finite(f) {
		sep()
		e.key(fieldTime)
		e.num(f)
	} else if failed {
		// Kernel Tuner marks failures in "time" whatever the objective.
		sep()
		e.key(fieldTime)
		e.json(marker)
	}
	if len(ev.Samples) > 0 {
		sep()
		e.key(fieldTimes)
		e.str("[")
		n := 0
		for _, s := range ev.Samples {
			if !jsonio.Finite(s) {
				continue
			}
			if n > 0 {
				e.str(", ")
			}
			e.num(s)
			n++
		}
		e.str("]")
	}
	for _, t := range []struct {
		name string
		v    float64
	}{{fieldCompile, ev.CompileMS}, {fieldVerify, ev.VerifyMS}, {fieldBenchmark, ev.BenchmarkMS}, {fieldFramework, ev.FrameworkMS}} {
		if jsonio.Finite(t.v) {
			sep()
			e.key(t.name)
			e.num(t.v)
		}
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
			e.key(k)
			e.num(f)
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
	if !ev.Time.IsZero() {
		sep()
		e.field(fieldTimestamp, jsonio.FormatTime(ev.Time), "")
	}
	e.str("}")
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
		e.err = fmt.Errorf("kerneltuner: %w", err)
		return
	}
	_, e.err = e.w.Write(b)
}

func (e *encoder) key(k string) {
	e.json(k)
	e.str(": ")
}

func (e *encoder) field(k string, v any, after string) {
	e.key(k)
	e.json(v)
	e.str(after)
}

// num writes a finite float in the shortest form that reads back to the same float64.
func (e *encoder) num(f float64) {
	e.buf = strconv.AppendFloat(e.buf[:0], f, 'g', -1, 64)
	if e.err == nil {
		_, e.err = e.w.Write(e.buf)
	}
}
