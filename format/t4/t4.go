// Package t4 reads and writes T4 results files, the auto-tuning community's shared
// output format (schema_version 1.0.0, written by Kernel Tuner's store_output_file and by
// KTT): a "results" array with each configuration's times, validity and measurements.
package t4

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/ktune/ktune/format"
	"github.com/ktune/ktune/format/internal/jsonio"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
)

// Name is the format's registered name and the Recording.Format of what Read returns.
const Name = "t4"

// SchemaVersion is the T4 results schema version Write declares.
const SchemaVersion = "1.0.0"

func init() {
	format.Register(format.Format{Name: Name, Sniff: Sniff, SniffKeys: sniffKeys, Looks: "top-level results with schema_version or metadata", Read: Read, Write: Write})
}

// invalidity values and the statuses they mean. "correct" is Kernel Tuner's value for a
// valid configuration; the schema's enum lists it too.
var invalidityStatus = map[string]result.Status{
	"correct":     result.OK,
	"compile":     result.CompileError,
	"runtime":     result.RuntimeError,
	"timeout":     result.Timeout,
	"correctness": result.WrongAnswer,
	"constraints": result.Restricted,
}

// ktune's members of a result: a failure's message, a status that "invalidity" does
// not tell (device_limit, which Write gives the invalidity "runtime"), and the device that
// measured the result ("opencl:1"), which tells the devices of a run on several apart.
const (
	fieldMessage = "ktune_message"
	fieldStatus  = "ktune_status"
	fieldDevice  = "ktune_device"
)

// Kernel Tuner's failure strings, which its T4 writer puts in the objective's measurement.
var markerStatus = map[string]result.Status{
	"InvalidConfig":           result.Restricted,
	"CompilationFailedConfig": result.CompileError,
	"RuntimeFailedConfig":     result.RuntimeError,
}

// timeUnits maps the spellings of "timeunit" and of measurement units (including Kernel
// Tuner's "miliseconds").
var timeUnits = map[string]jsonio.Unit{
	"nanoseconds": jsonio.Nanoseconds, "ns": jsonio.Nanoseconds,
	"microseconds": jsonio.Microseconds, "us": jsonio.Microseconds,
	"milliseconds": jsonio.Milliseconds, "miliseconds": jsonio.Milliseconds, "ms": jsonio.Milliseconds,
	"seconds": jsonio.Seconds, "s": jsonio.Seconds,
}

// Sniff reports whether data looks like a T4 results file: a top-level "results" member
// next to "schema_version" or "metadata".
func Sniff(data []byte) bool { return sniffKeys(format.TopLevelKeys(data)) }

// sniffKeys is Sniff of the top-level member names.
func sniffKeys(keys []string) bool {
	return format.HasKeys(keys, "results") && (format.HasKeys(keys, "schema_version") || format.HasKeys(keys, "metadata"))
}

type measurement struct {
	Name  string `json:"name"`
	Value any    `json:"value"`
	Unit  string `json:"unit"`
}

type rawResult struct {
	Timestamp     any            `json:"timestamp"`
	Configuration *jsonio.Object `json:"configuration"`
	Times         *jsonio.Object `json:"times"`
	Invalidity    any            `json:"invalidity"`
	Correctness   any            `json:"correctness"`
	Measurements  []measurement  `json:"measurements"`
	Objectives    []any          `json:"objectives"`
	Message       any            `json:"ktune_message"`         // a failure's message, which ktune's Write adds
	Status        any            `json:"ktune_status"`          // a status invalidity does not tell, which ktune's Write adds
	Device        any            `json:"ktune_device"`          // the device that measured it, which ktune's Write adds
	RunsPerSample any            `json:"ktune_runs_per_sample"` // runs per sample, which ktune's Write adds
	Launch        any            `json:"ktune_launch"`          // the launch, which ktune's Write adds
	offset        int64          // decoder offset of the result, for errors
}

// metadata holds what Read uses of the free-form "metadata" object; fields of other types
// than expected are ignored rather than rejected, since no schema constrains them.
type metadata struct {
	TimeUnit     string
	Device       string
	Kernel       string
	ProblemSize  any
	Objective    string
	Maximize     bool
	TuneParams   jsonio.Object // nil when absent
	Restrictions []string
}

// decodeMetadata picks the known members out of the metadata object.
func decodeMetadata(dec *json.Decoder, meta *metadata) error {
	var raw map[string]json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return err
	}
	str := func(keys ...string) string {
		for _, k := range keys {
			var s string
			if json.Unmarshal(raw[k], &s) == nil && s != "" {
				return s
			}
		}
		return ""
	}
	meta.TimeUnit = str("timeunit")
	meta.Device = str("device", "device_name")
	meta.Kernel = str("kernel", "kernel_name")
	meta.Objective = str("objective")
	_ = json.Unmarshal(raw["maximize"], &meta.Maximize)
	if ps, ok := raw["problem_size"]; ok {
		d := json.NewDecoder(bytes.NewReader(ps))
		d.UseNumber()
		_ = d.Decode(&meta.ProblemSize)
	}
	if tp, ok := raw["tune_params"]; ok {
		if err := json.Unmarshal(tp, &meta.TuneParams); err != nil {
			return fmt.Errorf("metadata.tune_params: %v", err)
		}
	}
	var list []any
	_ = json.Unmarshal(raw["restrictions"], &list)
	for _, x := range list {
		if s, ok := x.(string); ok {
			meta.Restrictions = append(meta.Restrictions, s)
		}
	}
	return nil
}

// Read decodes a T4 results file (gzip detected by its magic bytes). The parameters' value
// lists come from metadata.tune_params when present (Write records them there) and are
// otherwise derived from the values seen, sorted, in the first result's order.
func Read(r io.Reader, source string) (*result.Recording, error) {
	in, err := jsonio.Load(r, source)
	if err != nil {
		return nil, err
	}
	return read(in, true)
}

// read reads the loaded content: with readFast when fast is true and that reads it, with
// parse otherwise.
func read(in *jsonio.Input, fast bool) (*result.Recording, error) {
	if fast {
		if rec, ok := readFast(in); ok {
			return rec, nil
		}
	}
	return parse(in)
}

// supported reports whether a schema_version is one Read reads: a 1.x version.
func supported(v any) bool {
	s, ok := v.(string)
	return ok && strings.HasPrefix(s, "1.")
}

// parse reads the content with encoding/json's decoder, token by token, and reports
// precisely what is wrong with a file readFast does not read.
func parse(in *jsonio.Input) (*result.Recording, error) {
	var meta metadata
	var metaOff int64 = -1
	var results []rawResult
	haveResults := false
	dec := in.Decoder()
	_, err := jsonio.WalkTop(in, dec, func(key string, off int64) (bool, error) {
		switch key {
		case "metadata":
			metaOff = off
			return false, decodeMetadata(dec, &meta)
		case "results":
			haveResults = true
			var err error
			results, err = decodeResults(in, dec)
			return false, err
		case "schema_version":
			var v any
			if err := dec.Decode(&v); err != nil {
				return false, err
			}
			if !supported(v) {
				return false, in.Errorf(off, "schema_version is %s, want a 1.x version", jsonio.Describe(v))
			}
			return false, nil
		}
		return false, jsonio.Skip(dec)
	})
	if err != nil {
		return nil, err
	}
	if !haveResults {
		return nil, in.Errorf(-1, "no results array: not a T4 results file")
	}
	var first *rawResult
	if len(results) > 0 {
		first = &results[0]
	}
	b, err := newBuilder(in, &meta, metaOff, first, len(results))
	if err != nil {
		return nil, err
	}
	for i := range results {
		// each result's decoded tree is let go once its evaluation is made
		r := results[i]
		results[i] = rawResult{}
		if err := b.add(&r, i); err != nil {
			return nil, err
		}
	}
	return b.finish(), nil
}

func decodeResults(in *jsonio.Input, dec *json.Decoder) ([]rawResult, error) {
	return jsonio.DecodeArray(in, dec, `field "results"`, "result", func(r *rawResult, off int64) { r.offset = off })
}

// builder makes a recording of the metadata and the results, one result at a time.
type builder struct {
	in      *jsonio.Input
	rec     *result.Recording
	unit    jsonio.Unit
	derived bool // the parameters' value lists come from the results
	index   map[string]int
	ns      notes
}

// newBuilder starts the recording of the metadata and n results; first is the first
// result (nil when there is none), which gives the objective and the parameters that the
// metadata lacks.
func newBuilder(in *jsonio.Input, meta *metadata, metaOff int64, first *rawResult, n int) (*builder, error) {
	rec := &result.Recording{
		Format:       Name,
		Source:       in.Source,
		Device:       meta.Device,
		Kernel:       meta.Kernel,
		Objective:    meta.Objective,
		Maximize:     meta.Maximize,
		Restrictions: meta.Restrictions,
	}
	if n > 0 {
		rec.Evaluations = make([]result.Evaluation, 0, n)
	}
	if meta.ProblemSize != nil {
		rec.ProblemSize = problemSize(meta.ProblemSize)
	}
	unit := jsonio.Milliseconds
	if meta.TimeUnit != "" {
		u, ok := timeUnits[strings.ToLower(meta.TimeUnit)]
		if !ok {
			return nil, in.Errorf(metaOff, "metadata.timeunit %q is not a known unit (nanoseconds, microseconds, milliseconds, seconds)", meta.TimeUnit)
		}
		unit = u
	}
	if rec.Objective == "" && first != nil && len(first.Objectives) > 0 {
		rec.Objective, _ = first.Objectives[0].(string)
	}
	if rec.Objective == "" {
		rec.Objective = "time"
	}

	// Parameters: recorded lists, or derived from the first result's names.
	derived := meta.TuneParams == nil
	if !derived {
		for _, m := range meta.TuneParams {
			p := space.Param{Name: m.Key}
			list, ok := m.Value.([]any)
			if !ok {
				return nil, in.Errorf(metaOff, "metadata.tune_params[%q] is %s, want an array", m.Key, jsonio.Describe(m.Value))
			}
			for _, x := range list {
				v, err := space.ValueOf(x)
				if err != nil {
					return nil, in.Errorf(metaOff, "metadata.tune_params[%q]: %v", m.Key, err)
				}
				p.Values = append(p.Values, v)
			}
			rec.Params = append(rec.Params, p)
		}
	} else if first != nil && first.Configuration != nil {
		for _, m := range *first.Configuration {
			rec.Params = append(rec.Params, space.Param{Name: m.Key})
		}
	}
	index := make(map[string]int, len(rec.Params))
	for i, p := range rec.Params {
		if _, dup := index[p.Name]; dup {
			return nil, in.Errorf(-1, "parameter %q appears twice", p.Name)
		}
		index[p.Name] = i
	}
	return &builder{in: in, rec: rec, unit: unit, derived: derived, index: index, ns: newNotes()}, nil
}

// add makes result i, r, the recording's next evaluation.
func (b *builder) add(r *rawResult, i int) error {
	rec := b.rec
	ev, err := evaluation(b.in, rec, r, i, b.index, b.unit, &b.ns)
	if err != nil {
		return err
	}
	for j, v := range ev.Config {
		if rec.Params[j].Index(v) < 0 {
			rec.Params[j].Values = append(rec.Params[j].Values, v)
			if !b.derived {
				lit, _ := v.MarshalJSON()
				b.ns.added.Add(b.in, r.offset, fmt.Sprintf("result %d", i), rec.Params[j].Name+"="+string(lit))
			}
		}
	}
	rec.Evaluations = append(rec.Evaluations, ev)
	return nil
}

// finish sorts derived value lists and adds the warnings.
func (b *builder) finish() *result.Recording {
	rec := b.rec
	if b.derived {
		for i := range rec.Params {
			vs := rec.Params[i].Values
			sort.SliceStable(vs, func(a, b int) bool { return vs[a].Less(vs[b]) })
		}
	}
	if w := b.ns.added.Warning("has a configuration value missing from metadata.tune_params", "have configuration values missing from metadata.tune_params",
		"it was appended to its parameter's list", "they were appended to the parameters' lists"); w != "" {
		rec.Warnings = append(rec.Warnings, w)
	}
	obj := strconv.Quote(rec.Objective)
	if w := b.ns.noObjective.Warning("marked correct has no numeric "+obj+" measurement", "marked correct have no numeric "+obj+" measurement",
		"it is counted as a runtime error", "they are counted as runtime errors"); w != "" {
		rec.Warnings = append(rec.Warnings, w)
	}
	for _, x := range []struct {
		l     *jsonio.Located
		field string
	}{{&b.ns.badRunsPerSample, jsonio.FieldRunsPerSample}, {&b.ns.badLaunch, jsonio.FieldLaunch}} {
		problem := jsonio.MalformedProblem(x.field)
		if w := x.l.Warning("has "+problem, "have "+problem, jsonio.MalformedThenOne, jsonio.MalformedThenMany); w != "" {
			rec.Warnings = append(rec.Warnings, w)
		}
	}
	return rec
}

// notes gathers what reading the results noticed, for a warning each.
type notes struct {
	added       jsonio.Located // results with values tune_params lacks
	noObjective jsonio.Located // results marked correct without the objective
	// malformed values of the members ktune's export adds
	badRunsPerSample, badLaunch jsonio.Located
}

func newNotes() notes {
	var ns notes
	for _, l := range []*jsonio.Located{&ns.added, &ns.noObjective, &ns.badRunsPerSample, &ns.badLaunch} {
		l.One, l.Many = "result", "results"
	}
	return ns
}

// configText writes a configuration for a warning: "block_size_x=32, tile_size_x=1".
func configText(ps []space.Param, config []space.Value) string {
	parts := make([]string, len(config))
	for j, v := range config {
		lit, _ := v.MarshalJSON()
		parts[j] = ps[j].Name + "=" + string(lit)
	}
	return strings.Join(parts, ", ")
}

func evaluation(in *jsonio.Input, rec *result.Recording, r *rawResult, i int, index map[string]int, unit jsonio.Unit, ns *notes) (result.Evaluation, error) {
	fail := func(msg string, args ...any) error {
		return in.Errorf(r.offset, "result %d: %s", i, fmt.Sprintf(msg, args...))
	}
	// timings the result does not have stay unknown (NaN), not 0
	nan := math.NaN()
	ev := result.Evaluation{Config: make([]space.Value, len(rec.Params)), Objective: nan,
		CompileMS: nan, VerifyMS: nan, BenchmarkMS: nan, FrameworkMS: nan, StrategyMS: nan, Message: asString(r.Message), Device: asString(r.Device)}
	if r.Configuration == nil {
		return ev, fail("no configuration")
	}
	set := make([]bool, len(rec.Params))
	for _, m := range *r.Configuration {
		j, ok := index[m.Key]
		if !ok {
			return ev, fail("configuration has parameter %q, which the first result (or metadata.tune_params) lacks", m.Key)
		}
		v, err := space.ValueOf(m.Value)
		if err != nil {
			return ev, fail("configuration value of %q is %s, want a number, boolean or string", m.Key, jsonio.Describe(m.Value))
		}
		ev.Config[j], set[j] = v, true
	}
	for j, ok := range set {
		if !ok {
			return ev, fail("configuration lacks parameter %q", rec.Params[j].Name)
		}
	}
	// what ktune's export adds, malformed, is left out with a warning: the measurement
	// stands without it
	label := func() string { return fmt.Sprintf("result %d (%s)", i, configText(rec.Params, ev.Config)) }
	if n, bad := jsonio.ParseRunsPerSample(r.RunsPerSample); bad != "" {
		ns.badRunsPerSample.Add(in, r.offset, label(), bad)
	} else {
		ev.RunsPerSample = n
	}
	if l, bad := jsonio.ParseLaunch(r.Launch); bad != "" {
		ns.badLaunch.Add(in, r.offset, label(), bad)
	} else {
		ev.Launch = l
	}

	inv, ok := r.Invalidity.(string)
	if !ok {
		return ev, fail("invalidity is %s, want one of correct, compile, runtime, timeout, correctness, constraints", jsonio.Describe(r.Invalidity))
	}
	status, ok := invalidityStatus[inv]
	if !ok {
		return ev, fail("invalidity %q is not one of correct, compile, runtime, timeout, correctness, constraints", inv)
	}
	if c, ok := jsonio.Float(r.Correctness); ok && c == 0 && status == result.OK {
		status = result.WrongAnswer
	}
	if st, err := result.ParseStatus(asString(r.Status)); err == nil && status != result.OK && st != result.OK {
		status = st
	}
	ev.Status = status

	// Times: Kernel Tuner and KTT write "compilation"; the schema says "compilation_time".
	if r.Times != nil {
		for _, m := range *r.Times {
			if m.Key == "runtimes" {
				list, _ := m.Value.([]any)
				for _, x := range list {
					if f, ok := jsonio.Float(x); ok && jsonio.Finite(unit.ToMS(f)) {
						ev.Samples = append(ev.Samples, unit.ToMS(f))
					}
				}
				continue
			}
			f, ok := jsonio.Float(m.Value)
			if f = unit.ToMS(f); !ok || !jsonio.Finite(f) {
				continue
			}
			switch m.Key {
			case "compilation", "compilation_time":
				ev.CompileMS = f
			case "validation":
				ev.VerifyMS = f
			case "benchmark":
				ev.BenchmarkMS = f
			case "framework":
				ev.FrameworkMS = f
			case "search_algorithm":
				ev.StrategyMS = f
			case rec.Objective:
				// A timing under the objective's name would be a metric that shadows the
				// objective, which only the measurements carry: it is left out, as
				// writing could not keep it apart from the objective anyway.
			default:
				setMetric(&ev, m.Key, f)
			}
		}
	}

	found := false
	for _, m := range r.Measurements {
		f, isNum := jsonio.Float(m.Value)
		if m.Name == rec.Objective {
			found = true
			obj := measurementUnit(m, rec.Objective, unit).ToMS(f)
			switch {
			case ev.Status != result.OK:
				// A failed result's measurement carries no objective.
			case isNum && jsonio.Finite(obj):
				ev.Objective = obj
			default: // a failure string, null (a Python NaN), or a value out of range
				ev.Status = result.RuntimeError
				if st, ok := markerStatus[asString(m.Value)]; ok {
					ev.Status = st
				} else {
					ns.noObjective.Add(in, r.offset, fmt.Sprintf("result %d", i), jsonio.Describe(m.Value))
				}
			}
			continue
		}
		if g := measurementUnit(m, m.Name, unit).ToMS(f); isNum && jsonio.Finite(g) {
			setMetric(&ev, m.Name, g)
		}
	}
	if !found && ev.Status == result.OK {
		ev.Status = result.RuntimeError
		ns.noObjective.Add(in, r.offset, fmt.Sprintf("result %d", i), "missing")
	}
	if s, ok := r.Timestamp.(string); ok {
		if t, ok := jsonio.ParseTime(s); ok {
			ev.Time = t
		}
	}
	return ev, nil
}

// measurementUnit returns the unit of a measurement: its own unit when
// that is a time unit, the file's unit for a measurement called "time" without a unit,
// and 1 (no conversion) for everything else.
func measurementUnit(m measurement, name string, fileUnit jsonio.Unit) jsonio.Unit {
	if u, ok := timeUnits[strings.ToLower(m.Unit)]; ok {
		return u
	}
	if m.Unit == "" && name == "time" {
		return fileUnit
	}
	return jsonio.Milliseconds
}

func asString(v any) string {
	s, _ := v.(string)
	return s
}

func setMetric(ev *result.Evaluation, name string, f float64) {
	if ev.Metrics == nil {
		ev.Metrics = map[string]float64{}
	}
	ev.Metrics[name] = f
}

// problemSize keeps a string as is and anything else as compact JSON, like the Kernel
// Tuner reader does.
func problemSize(v any) string {
	if s, ok := v.(string); ok && !json.Valid([]byte(s)) {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
