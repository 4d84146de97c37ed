// Package kerneltuner reads and writes Kernel Tuner cache files: the JSON that Kernel
// Tuner's tune_kernel(cache=...) appends every measured configuration to, plain or gzip,
// closed or left open by an interrupted run.
package kerneltuner

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ktune/ktune/format"
	"github.com/ktune/ktune/format/internal/jsonio"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
)

// Name is the format's registered name and the Recording.Format of what Read returns.
const Name = "kerneltuner"

func init() {
	format.Register(format.Format{Name: Name, Sniff: Sniff, SniffKeys: sniffKeys, Looks: "top-level tune_params_keys, or tune_params and cache", Read: Read, Write: Write})
}

// Failure markers Kernel Tuner writes instead of a time, and the statuses they mean.
const (
	invalidConfig     = "InvalidConfig"
	compilationFailed = "CompilationFailedConfig"
	runtimeFailed     = "RuntimeFailedConfig"
)

// failureTime is the time older Kernel Tuner versions record for a failed configuration;
// anything at least this large is a failure marker, not a measurement.
const failureTime = 1e20

var markerStatus = map[string]result.Status{
	invalidConfig:     result.Restricted,
	compilationFailed: result.CompileError,
	runtimeFailed:     result.RuntimeError,
}

// Entry fields with a dedicated Evaluation field, in the order Write emits them.
const (
	fieldTime      = "time"
	fieldTimes     = "times"
	fieldCompile   = "compile_time"
	fieldVerify    = "verification_time"
	fieldBenchmark = "benchmark_time"
	fieldFramework = "framework_time"
	fieldStrategy  = "strategy_time"
	fieldTimestamp = "timestamp"
	fieldError     = "__error__"
	// ktune's own additions, for what Kernel Tuner cannot express; Kernel Tuner ignores them.
	fieldStatus  = "ktune_status"
	fieldMessage = "ktune_message"
	// fieldDevice names the device that measured the entry ("opencl:1"), which tells the
	// devices of a run on several apart.
	fieldDevice = "ktune_device"
	// fieldUnrecorded names the timings written as 0, and a timestamp written as the
	// Unix epoch, because the recording lacked them.
	fieldUnrecorded = "ktune_unrecorded"
)

// ktune's additions to the header.
const (
	// fieldProblemSize held a problem size that is no array of integers in the caches
	// ktune wrote before it wrote such sizes in "problem_size", as Kernel Tuner does.
	fieldProblemSize = "ktune_problem_size"
	// fieldMaximize holds the objective's direction, which a cache does not record
	// (Kernel Tuner takes it from tune_kernel's objective_higher_is_better).
	fieldMaximize = "ktune_maximize"
	// fieldRestrictions holds the restriction expressions of the space, which a cache
	// does not record (Kernel Tuner takes them from tune_kernel's restrictions).
	fieldRestrictions = "ktune_restrictions"
)

// Sniff reports whether data looks like a Kernel Tuner cache: a top-level object with
// tune_params_keys, or with cache and tune_params.
func Sniff(data []byte) bool { return sniffKeys(format.TopLevelKeys(data)) }

// sniffKeys is Sniff of the top-level member names.
func sniffKeys(keys []string) bool {
	return format.HasKeys(keys, "tune_params_keys") || format.HasKeys(keys, "cache", "tune_params")
}

type entry struct {
	key    string
	fields fields
	offset int64 // offset of the entry's key in the content
}

type header struct {
	device, kernel, problem, objective string
	ktuneProblem                       string   // fieldProblemSize
	maximize                           *bool    // fieldMaximize; nil when absent
	restrictions                       []string // fieldRestrictions
	keys                               []string
	haveKeys                           bool
	params                             jsonio.Object
	haveParams                         bool
}

// decodeMember decodes the value of the top-level member key from dec into h when key is a
// header member (known), and leaves dec alone otherwise.
func (h *header) decodeMember(key string, dec *json.Decoder) (known bool, err error) {
	switch key {
	case "device_name":
		h.device, err = decodeString(dec)
	case "kernel_name":
		h.kernel, err = decodeString(dec)
	case "objective":
		h.objective, err = decodeString(dec)
	case "problem_size":
		h.problem, err = decodeProblemSize(dec)
	case fieldProblemSize:
		h.ktuneProblem, err = decodeString(dec)
	case fieldMaximize:
		var b bool
		if err = dec.Decode(&b); err != nil {
			err = fmt.Errorf("is not true or false: %w", err)
		}
		h.maximize = &b
	case fieldRestrictions:
		if err = dec.Decode(&h.restrictions); err != nil {
			err = fmt.Errorf("is not a list of strings: %w", err)
		}
	case "tune_params_keys":
		err = dec.Decode(&h.keys)
		h.haveKeys = true
	case "tune_params":
		err = dec.Decode(&h.params)
		h.haveParams = true
	default:
		return false, nil
	}
	return true, err
}

// Read decodes a Kernel Tuner cache file (gzip detected by its magic bytes). An unclosed
// file from an interrupted run is read up to its last complete entry, with a warning.
func Read(r io.Reader, source string) (*result.Recording, error) {
	in, err := jsonio.Load(r, source)
	if err != nil {
		return nil, err
	}
	return read(in, true)
}

// read reads the loaded content: with the fast reader when fast is true and the content
// is whole and well formed, with the decoder-based one otherwise.
func read(in *jsonio.Input, fast bool) (*result.Recording, error) {
	if fast {
		if rec, ok, err := readFast(in); ok {
			return rec, err
		}
	}
	var h header
	entries, warning, err := parse(in, &h)
	if err != nil {
		return nil, err
	}
	rec, err := build(in, &h, entries)
	if err != nil {
		return nil, err
	}
	if warning != "" {
		rec.Warnings = append([]string{warning}, rec.Warnings...)
	}
	return rec, nil
}

// parse walks the top-level object, decoding the header fields and collecting the cache
// entries; it returns a warning when the file was left open.
func parse(in *jsonio.Input, h *header) ([]entry, string, error) {
	if len(bytes.TrimSpace(in.Data)) == 0 {
		return nil, "", in.Errorf(0, "empty file, not a Kernel Tuner cache")
	}
	var entries []entry
	var warning string
	dec := in.Decoder()
	_, err := jsonio.WalkTop(in, dec, func(key string, off int64) (bool, error) {
		if key == "cache" {
			var closed bool
			var err error
			entries, warning, closed, err = parseCache(in, dec, entries)
			// An unclosed cache ends the file: what follows it was never written.
			return err == nil && !closed, err
		}
		known, err := h.decodeMember(key, dec)
		if !known {
			err = jsonio.Skip(dec)
		}
		return false, err
	})
	if err != nil {
		return nil, "", err
	}
	return entries, warning, nil
}

// parseCache reads the cache object entry by entry. When the input ends before the object
// is closed (Kernel Tuner appends `"key": {...},` lines and closes the braces only when a
// run ends normally), it keeps the complete entries and reports closed == false.
func parseCache(in *jsonio.Input, dec *json.Decoder, entries []entry) (_ []entry, warning string, closed bool, err error) {
	if err := jsonio.ExpectDelim(in, dec, '{', `field "cache"`); err != nil {
		if jsonio.Truncated(err) {
			return entries, openWarning(in, len(entries), dec.InputOffset()), false, nil
		}
		return nil, "", false, err
	}
	for {
		good := dec.InputOffset() // end of the last complete entry
		if !dec.More() {
			break
		}
		tok, err := dec.Token()
		if jsonio.Truncated(err) {
			return entries, openWarning(in, len(entries), good), false, nil
		}
		if err != nil {
			return nil, "", false, in.JSONError(err, good, "cache")
		}
		key, _ := tok.(string)
		var m map[string]any
		err = dec.Decode(&m)
		if jsonio.Truncated(err) {
			return entries, openWarning(in, len(entries), good), false, nil
		}
		if err != nil {
			return nil, "", false, in.JSONError(err, good, fmt.Sprintf("cache entry %q", key))
		}
		if m == nil {
			return nil, "", false, in.Errorf(good, "cache entry %q is null, want an object", key)
		}
		fs := make(fields, 0, len(m))
		for k, x := range m {
			fs = append(fs, field{name: k, v: value{kind: vDecoded, x: x}})
		}
		entries = append(entries, entry{key: key, fields: fs, offset: in.ValueStart(good)})
	}
	good := dec.InputOffset()
	_, err = dec.Token()
	if jsonio.Truncated(err) {
		return entries, openWarning(in, len(entries), good), false, nil
	}
	if err != nil {
		return nil, "", false, in.JSONError(err, good, "cache")
	}
	return entries, "", true, nil
}

func openWarning(in *jsonio.Input, n int, good int64) string {
	off, line, col := in.Pos(good)
	rest := int64(len(in.Data)) - good
	return fmt.Sprintf("%s: unclosed cache file (an interrupted Kernel Tuner run): read %s; stopped at byte %d (line %d, column %d), after the last complete entry, ignoring %s after it",
		in.Source, plural(n, "complete entry", "complete entries"), off, line, col, plural(int(rest), "byte", "bytes"))
}

func decodeString(dec *json.Decoder) (string, error) {
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", err
	}
	switch t := v.(type) {
	case nil:
		return "", nil
	case string:
		return t, nil
	}
	return "", fmt.Errorf("is %s, want a string", jsonio.Describe(v))
}

// decodeProblemSize keeps the problem size as compact JSON ([4096,4096], 20000000); a
// string is kept as its text unless that text would itself read as JSON, so that Write
// can tell the two apart; a list of parameter names and integers (["num_blocks", 1]) as
// ktune keeps such a size, its dimensions joined by commas ("num_blocks,1"); an empty
// list, which Write gives a recording without a size, as no size.
func decodeProblemSize(dec *json.Decoder) (string, error) {
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return "", err
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if json.Valid([]byte(s)) {
			return compact(raw), nil
		}
		return s, nil
	}
	if string(raw) == "null" {
		return "", nil
	}
	if dims, ok := namedDims(raw); ok {
		return dims, nil
	}
	return compact(raw), nil
}

// namedDims joins a list of dimensions with a name among them by commas; false for any
// other list, and for an empty one ("").
func namedDims(raw []byte) (string, bool) {
	var list []any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if d.Decode(&list) != nil {
		return "", false
	}
	if len(list) == 0 {
		return "", true
	}
	named := false
	parts := make([]string, len(list))
	for i, x := range list {
		switch v := x.(type) {
		case string:
			if v == "" || strings.ContainsAny(v, ",()[]{}") || json.Valid([]byte(v)) {
				return "", false
			}
			parts[i], named = v, true
		case json.Number:
			if _, err := strconv.ParseInt(string(v), 10, 64); err != nil {
				return "", false
			}
			parts[i] = string(v)
		default:
			return "", false
		}
	}
	return strings.Join(parts, ","), named
}

func compact(raw []byte) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

// build turns the decoded header and entries into a recording, letting each entry's
// fields go once its evaluation is made.
func build(in *jsonio.Input, h *header, entries []entry) (*result.Recording, error) {
	b, err := newBuilder(in, h, len(entries))
	if err != nil {
		return nil, err
	}
	for k := range entries {
		e := entries[k]
		entries[k].fields = nil
		if err := b.add(e); err != nil {
			return nil, err
		}
	}
	return b.finish(), nil
}

// builder makes a recording of a header and the entries it is given one at a time, so
// that a reader need not hold every entry's fields (about 1.2 KB an entry) beside the
// evaluations.
type builder struct {
	in        *jsonio.Input
	rec       *result.Recording
	derived   map[int]bool // parameters whose value lists come from the entries
	ns        *notes
	notInList int
	example   string         // the first value not in tune_params
	index     map[string]int // the evaluation of each cache key
}

// newBuilder starts the recording of the header h, sized for n entries.
func newBuilder(in *jsonio.Input, h *header, n int) (*builder, error) {
	rec := &result.Recording{
		Format:       Name,
		Source:       in.Source,
		Device:       h.device,
		Kernel:       h.kernel,
		ProblemSize:  h.problem,
		Objective:    h.objective,
		Restrictions: h.restrictions,
	}
	if rec.ProblemSize == "" {
		rec.ProblemSize = h.ktuneProblem
		if _, ints := format.ProblemSizeInts(rec.ProblemSize); !ints && json.Valid([]byte(rec.ProblemSize)) {
			// as a string in "problem_size" whose text reads as JSON: kept quoted, so
			// that Write gives it back as a string
			b, _ := json.Marshal(rec.ProblemSize)
			rec.ProblemSize = string(b)
		}
	}
	if rec.Objective == "" {
		rec.Objective = fieldTime
	}
	// Kernel Tuner's caches do not record the direction, so it is guessed from the
	// objective's name, unless ktune wrote the cache and recorded it.
	rec.Maximize = result.HigherIsBetter(rec.Objective)
	if h.maximize != nil {
		rec.Maximize = *h.maximize
	}
	names := h.keys
	if !h.haveKeys {
		if !h.haveParams {
			return nil, in.Errorf(-1, "no tune_params_keys or tune_params: not a Kernel Tuner cache file")
		}
		for _, m := range h.params {
			names = append(names, m.Key)
		}
	}
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			return nil, in.Errorf(-1, "tune_params_keys names %q twice", n)
		}
		seen[n] = true
	}
	derived := map[int]bool{} // parameters whose value lists come from the entries
	rec.Params = make([]space.Param, len(names))
	for i, n := range names {
		rec.Params[i].Name = n
		raw, ok := h.params.Get(n)
		if !ok {
			derived[i] = true
			continue
		}
		list, ok := raw.([]any)
		if !ok {
			return nil, in.Errorf(-1, "tune_params[%q] is %s, want an array of values", n, jsonio.Describe(raw))
		}
		for _, x := range list {
			v, err := space.ValueOf(x)
			if err != nil {
				return nil, in.Errorf(-1, "tune_params[%q]: value %s: %v", n, jsonio.Describe(x), err)
			}
			rec.Params[i].Values = append(rec.Params[i].Values, v)
		}
	}
	if len(derived) > 0 {
		what := fmt.Sprintf("tune_params lacks %d of the parameters; their values are taken from the entries", len(derived))
		if len(derived) == 1 {
			what = "tune_params lacks 1 of the parameters; its values are taken from the entries"
		}
		rec.Warnings = append(rec.Warnings, in.Source+": "+what)
	}

	rec.Evaluations = make([]result.Evaluation, 0, n)
	return &builder{in: in, rec: rec, derived: derived, ns: newNotes(), index: make(map[string]int, n)}, nil
}

// add makes entry e an evaluation of the recording; e's fields are not kept.
func (b *builder) add(e entry) error {
	in, rec, derived := b.in, b.rec, b.derived
	ev, err := evaluation(in, rec, e, b.ns)
	if err != nil {
		return err
	}
	for i, v := range ev.Config {
		if derived[i] {
			if rec.Params[i].Index(v) < 0 {
				rec.Params[i].Values = append(rec.Params[i].Values, v)
			}
		} else if rec.Params[i].Index(v) < 0 {
			// Kernel Tuner measured it, so it is a value of the parameter: every
			// command can then place the entry in the space.
			if b.notInList++; b.notInList == 1 {
				b.example = rec.Params[i].Name + "=" + literal(v)
			}
			rec.Params[i].Values = append(rec.Params[i].Values, v)
		}
	}
	if j, dup := b.index[e.key]; dup {
		// Python's json keeps the last of duplicate keys; so does Kernel Tuner.
		rec.Evaluations[j] = ev
		rec.Warnings = append(rec.Warnings, fmt.Sprintf("%s: cache key %q appears more than once; the last entry wins", in.Source, e.key))
		return nil
	}
	b.index[e.key] = len(rec.Evaluations)
	rec.Evaluations = append(rec.Evaluations, ev)
	return nil
}

// finish adds what the entries gave to the parameters and the warnings, and returns the
// recording.
func (b *builder) finish() *result.Recording {
	in, rec, derived, ns, notInList := b.in, b.rec, b.derived, b.ns, b.notInList
	for i := range rec.Params {
		if derived[i] {
			sortValues(rec.Params[i].Values)
		}
	}
	obj := strconv.Quote(rec.Objective)
	warn(rec, &ns.badTime, "an unparsable timestamp", "its time is left unknown", "their times are left unknown")
	warn(rec, &ns.noValue, "no usable "+obj+" value", "it is counted as a runtime error", "they are counted as runtime errors")
	warn(rec, &ns.marker, "a "+obj+" of 1e20 or more, which older Kernel Tuner versions record for a failed configuration",
		"it is counted as a runtime error", "they are counted as runtime errors")
	warn(rec, &ns.nonPositive, "a "+obj+" of zero or less", "it is counted as a runtime error", "they are counted as runtime errors")
	warn(rec, &ns.badSamples, "values in \"times\" that are not finite numbers", "they are left out of its samples", "they are left out of the samples")
	for _, x := range []struct {
		l     *jsonio.Located
		field string
	}{{&ns.badRunsPerSample, jsonio.FieldRunsPerSample}, {&ns.badLaunch, jsonio.FieldLaunch}} {
		warn(rec, x.l, jsonio.MalformedProblem(x.field), jsonio.MalformedThenOne, jsonio.MalformedThenMany)
	}
	if notInList > 0 {
		rec.Warnings = append(rec.Warnings, fmt.Sprintf("%s: %s of entries %s not in tune_params (e.g. %s); %s added to the parameters' values",
			in.Source, plural(notInList, "parameter value", "parameter values"), isAre(notInList), b.example, itThey(notInList, "it is", "they are")))
	}
	return rec
}

// notes gathers what reading the entries noticed, for a warning each.
type notes struct {
	badTime     jsonio.Located // an unparsable timestamp
	noValue     jsonio.Located // no usable objective value
	marker      jsonio.Located // an objective of failureTime or more
	nonPositive jsonio.Located // a time of zero or less
	badSamples  jsonio.Located // samples that are not finite numbers
	// malformed values of the members ktune's export adds
	badRunsPerSample, badLaunch jsonio.Located
}

func newNotes() *notes {
	ns := &notes{}
	for _, l := range []*jsonio.Located{&ns.badTime, &ns.noValue, &ns.marker, &ns.nonPositive, &ns.badSamples, &ns.badRunsPerSample, &ns.badLaunch} {
		l.One, l.Many = "entry", "entries"
	}
	return ns
}

// note counts entry e under l, naming it by its cache key.
func note(l *jsonio.Located, in *jsonio.Input, e entry, what string) {
	l.Add(in, e.offset, fmt.Sprintf("entry %q", e.key), what)
}

// warn adds the warning "N entries have PROBLEM (the entries named); CONSEQUENCE".
func warn(rec *result.Recording, l *jsonio.Located, problem, one, many string) {
	if w := l.Warning("has "+problem, "have "+problem, one, many); w != "" {
		rec.Warnings = append(rec.Warnings, w)
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

func isAre(n int) string { return itThey(n, "is", "are") }

func itThey(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// literal writes a parameter value as in the file: a string quoted, so that "320" and 320
// differ.
func literal(v space.Value) string {
	if v.Kind() == space.String {
		return strconv.Quote(v.Str())
	}
	return v.String()
}

// describe names a field's decoded value for a warning: a number as written, anything
// else as jsonio.Describe does; a null is any of NaN, Infinity and null when the content
// had the first two (Data holds them as null).
func describe(in *jsonio.Input, x any) string {
	switch t := x.(type) {
	case json.Number:
		if _, ok := jsonio.Float(t); !ok {
			return t.String() + " (beyond a float64's range)"
		}
		return t.String()
	case nil:
		if in.Replaced() {
			return "NaN, Infinity or null"
		}
	}
	return jsonio.Describe(x)
}

// evaluation converts one cache entry.
func evaluation(in *jsonio.Input, rec *result.Recording, e entry, ns *notes) (result.Evaluation, error) {
	ev := result.Evaluation{Config: make([]space.Value, len(rec.Params)), Objective: math.NaN()}
	entryErr := func(msg string, args ...any) error {
		return in.Errorf(e.offset, "cache entry %q: %s", e.key, fmt.Sprintf(msg, args...))
	}
	data := in.Data
	parts := strings.Split(e.key, ",")
	for i, p := range rec.Params {
		fv, ok := e.fields.get(p.Name)
		if !ok {
			// Older caches may omit parameters from the entries; fall back on the key.
			if len(parts) != len(rec.Params) {
				return ev, entryErr("has no value for parameter %q and the key does not have one value per parameter", p.Name)
			}
			v, found := valueByString(p.Values, parts[i])
			if !found {
				return ev, entryErr("has no value for parameter %q and the key's %q is not one of its values", p.Name, parts[i])
			}
			ev.Config[i] = v
			continue
		}
		raw := fv.decoded(data)
		v, err := space.ValueOf(raw)
		if err != nil {
			return ev, entryErr("parameter %q is %s, want a number, boolean or string", p.Name, jsonio.Describe(raw))
		}
		ev.Config[i] = v
	}
	if key := Key(ev.Config); key != e.key {
		if len(parts) == len(ev.Config) {
			for i, v := range ev.Config {
				if parts[i] != v.String() {
					return ev, entryErr("inconsistent with its key: the key says %s=%s but the entry has %s=%s", rec.Params[i].Name, parts[i], rec.Params[i].Name, v)
				}
			}
		}
		return ev, entryErr("inconsistent with its key: the entry's parameter values give the key %q", key)
	}

	ev.Status = result.OK
	if s, ok := e.str(data, fieldStatus); ok {
		if st, err := result.ParseStatus(s); err == nil && st != result.OK {
			ev.Status = st
		}
	}
	if ev.Status == result.OK {
		ev.Status = failure(data, e.fields, rec.Objective)
	}
	if ev.Status == result.OK {
		f, ok := e.float(data, rec.Objective)
		switch {
		case !ok:
			ev.Status = result.RuntimeError
			what := "missing"
			if v, ok := e.fields.get(rec.Objective); ok {
				what = describe(in, v.decoded(data))
			}
			note(&ns.noValue, in, e, what)
		case f >= failureTime:
			ev.Status = result.RuntimeError
			note(&ns.marker, in, e, describe(in, e.decoded(data, rec.Objective)))
		case f <= 0 && !rec.Maximize && strings.EqualFold(rec.Objective, fieldTime):
			// no kernel runs in no time, as result.Recording.RejectNonPositiveTimes says
			ev.Status = result.RuntimeError
			ev.Message = fmt.Sprintf("recorded time %v is not positive", f)
			note(&ns.nonPositive, in, e, describe(in, e.decoded(data, rec.Objective)))
		default:
			ev.Objective = f
		}
	}
	if m, ok := e.str(data, fieldMessage); ok {
		ev.Message = m
	}
	if d, ok := e.str(data, fieldDevice); ok {
		ev.Device = d
	}
	// what ktune's export adds, malformed, is left out with a warning: the measurement
	// stands without it
	if n, bad := jsonio.ParseRunsPerSample(e.decoded(data, jsonio.FieldRunsPerSample)); bad != "" {
		note(&ns.badRunsPerSample, in, e, bad)
	} else {
		ev.RunsPerSample = n
	}
	if l, bad := jsonio.ParseLaunch(e.decoded(data, jsonio.FieldLaunch)); bad != "" {
		note(&ns.badLaunch, in, e, bad)
	} else {
		ev.Launch = l
	}
	if v, ok := e.fields.get(fieldTimes); ok {
		s, bad, n, first := v.samples(data)
		if len(s) > 0 {
			ev.Samples = s
		}
		if bad > 0 {
			what := fmt.Sprintf("%d of %d, the first %s", bad, n, describe(in, first))
			if bad == 1 {
				what = fmt.Sprintf("1 of %d: %s", n, describe(in, first))
			}
			note(&ns.badSamples, in, e, what)
		}
	}
	if s, ok := e.str(data, fieldTimestamp); ok {
		if t, ok := jsonio.ParseTime(s); ok {
			ev.Time = t
		} else {
			note(&ns.badTime, in, e, strconv.Quote(s))
		}
	}
	// a timing the entry lacks stays unknown (NaN), so that writing leaves it out again
	ev.CompileMS = e.floatOrNaN(data, fieldCompile)
	ev.VerifyMS = e.floatOrNaN(data, fieldVerify)
	ev.BenchmarkMS = e.floatOrNaN(data, fieldBenchmark)
	ev.FrameworkMS = e.floatOrNaN(data, fieldFramework)
	ev.StrategyMS = e.floatOrNaN(data, fieldStrategy)
	if v, ok := e.fields.get(fieldUnrecorded); ok {
		list, _ := v.decoded(data).([]any)
		for _, x := range list {
			switch x {
			case fieldCompile:
				ev.CompileMS = math.NaN()
			case fieldVerify:
				ev.VerifyMS = math.NaN()
			case fieldBenchmark:
				ev.BenchmarkMS = math.NaN()
			case fieldFramework:
				ev.FrameworkMS = math.NaN()
			case fieldStrategy:
				ev.StrategyMS = math.NaN()
			case fieldTimestamp:
				ev.Time = time.Time{}
			}
		}
	}
	for i, fd := range e.fields {
		if reserved(fd.name, rec) || e.fields.shadowed(i) {
			continue
		}
		if f, ok := fd.v.float(data); ok {
			if fd.name == fieldTime && f >= failureTime {
				continue // a failure marker, not a measurement
			}
			if ev.Metrics == nil {
				ev.Metrics = map[string]float64{}
			}
			ev.Metrics[fd.name] = f
		}
	}
	return ev, nil
}

// failure returns the status an entry's failure markers give, or OK when it has none:
// "__error__" first, then a marker string in the objective's field or in "time".
func failure(data []byte, fs fields, objective string) result.Status {
	for _, k := range []string{fieldError, objective, fieldTime} {
		v, ok := fs.get(k)
		if !ok {
			continue
		}
		s, ok := v.str(data)
		if !ok {
			continue
		}
		if st, ok := markerStatus[s]; ok {
			return st
		}
		if k == fieldError {
			return result.RuntimeError
		}
	}
	return result.OK
}

// str returns the entry's field name when it is a string.
func (e entry) str(data []byte, name string) (string, bool) {
	if v, ok := e.fields.get(name); ok {
		return v.str(data)
	}
	return "", false
}

// float returns the entry's field name when it is a finite number.
func (e entry) float(data []byte, name string) (float64, bool) {
	if v, ok := e.fields.get(name); ok {
		return v.float(data)
	}
	return 0, false
}

// decoded returns the entry's field name decoded (nil when it has none).
func (e entry) decoded(data []byte, name string) any {
	if v, ok := e.fields.get(name); ok {
		return v.decoded(data)
	}
	return nil
}

// floatOrNaN returns the entry's field name when it is a finite number, and NaN otherwise.
func (e entry) floatOrNaN(data []byte, name string) float64 {
	if f, ok := e.float(data, name); ok {
		return f
	}
	return math.NaN()
}

// reserved reports whether an entry field is not a metric: parameters, fields with their
// own Evaluation field, and the objective (whose value is Objective).
func reserved(k string, rec *result.Recording) bool {
	switch k {
	case fieldTimes, fieldCompile, fieldVerify, fieldBenchmark, fieldStrategy, fieldFramework,
		fieldTimestamp, fieldError, fieldStatus, fieldMessage, fieldDevice, fieldUnrecorded, rec.Objective,
		jsonio.FieldRunsPerSample, jsonio.FieldLaunch:
		return true
	}
	for _, p := range rec.Params {
		if p.Name == k {
			return true
		}
	}
	return false
}

func valueByString(values []space.Value, s string) (space.Value, bool) {
	for _, v := range values {
		if v.String() == s {
			return v, true
		}
	}
	return space.Value{}, false
}

func sortValues(vs []space.Value) {
	sort.SliceStable(vs, func(i, j int) bool { return vs[i].Less(vs[j]) })
}

// Key returns Kernel Tuner's cache key of a configuration: the values' Python str()
// joined by commas, which is how ktune's stores key configurations too (result.ConfigKey).
func Key(config []space.Value) string { return result.ConfigKey(config) }
