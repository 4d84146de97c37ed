// Package ktt reads and writes the JSON output of the Kernel Tuning Toolkit (KTT): tuning results
// with each configuration's status, the durations and overheads of its kernel functions,
// their launch sizes, their compilation data and, when KTT profiled, hardware counters.
//
// KTT writes each kernel function's launch as GlobalSize and LocalSize ({"X", "Y", "Z"});
// Metadata.GlobalSizeType says what GlobalSize counts: work-groups (blocks) for "CUDA" and
// "Vulkan", work-items (threads) for "OpenCL". Read keeps a result's launch in CUDA terms
// (result.Launch: grid = GlobalSize, or GlobalSize / LocalSize for OpenCL) and Write
// writes it back in the terms of the recording's compute API, so that KTT's sizes come
// back as they were.
package ktt

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/ktune/ktune/format"
	"github.com/ktune/ktune/format/internal/jsonio"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
)

// Name is the format's registered name and the Recording.Format of what Read returns.
const Name = "ktt"

func init() {
	format.Register(format.Format{Name: Name, Sniff: Sniff, SniffKeys: sniffKeys, Looks: "top-level Metadata and Results", Read: Read, Write: Write, Losses: Losses})
}

// statuses maps KTT's ResultStatus names.
var statuses = map[string]result.Status{
	"Ok":                   result.OK,
	"CompilationFailed":    result.CompileError,
	"ComputationFailed":    result.RuntimeError,
	"ValidationFailed":     result.WrongAnswer,
	"DeviceLimitsExceeded": result.DeviceLimit,
}

// timeUnits maps KTT's TimeUnit names.
var timeUnits = map[string]jsonio.Unit{
	"Nanoseconds":  jsonio.Nanoseconds,
	"Microseconds": jsonio.Microseconds,
	"Milliseconds": jsonio.Milliseconds,
	"Seconds":      jsonio.Seconds,
}

// compilationMetrics renames KTT's CompilationData fields to ktune metric names.
var compilationMetrics = map[string]string{
	"RegistersCount":     "registers",
	"LocalMemorySize":    "local_memory",
	"PrivateMemorySize":  "private_memory",
	"ConstantMemorySize": "constant_memory",
	"MaxWorkGroupSize":   "max_work_group_size",
}

// Sniff reports whether data looks like KTT output: top-level Metadata and Results.
func Sniff(data []byte) bool { return sniffKeys(format.TopLevelKeys(data)) }

// sniffKeys is Sniff of the top-level member names.
func sniffKeys(keys []string) bool { return format.HasKeys(keys, "Metadata", "Results") }

type metadata struct {
	ComputeAPI     string `json:"ComputeApi"`
	Device         string `json:"Device"`
	GlobalSizeType string `json:"GlobalSizeType"`
	KttVersion     string `json:"KttVersion"`
	Platform       string `json:"Platform"`
	TimeUnit       string `json:"TimeUnit"`
	Timestamp      string `json:"Timestamp"`
}

// backends maps KTT's ComputeApi names to Recording.Backend, as ktune names its backends.
var backends = map[string]string{"CUDA": "cuda", "OpenCL": "opencl", "Vulkan": "vulkan"}

// countsThreads maps KTT's GlobalSizeType names to whether a GlobalSize of that type
// counts threads (work-items), as OpenCL's global size does, rather than blocks
// (work-groups), as a CUDA grid and a Vulkan dispatch do.
var countsThreads = map[string]bool{"CUDA": false, "Vulkan": false, "OpenCL": true}

// maxSize bounds the launch sizes Read keeps: JSON numbers beyond it (2^53) are not exact
// in the float64 they are read into.
const maxSize = 1 << 53

type pair struct {
	Name      string `json:"Name"`
	Value     any    `json:"Value"`
	ValueType string `json:"ValueType"`
}

type counter struct {
	Name  string `json:"Name"`
	Type  string `json:"Type"`
	Value any    `json:"Value"`
}

type computation struct {
	KernelFunction      string         `json:"KernelFunction"`
	Duration            *float64       `json:"Duration"`
	Overhead            float64        `json:"Overhead"`
	CompilationOverhead *float64       `json:"CompilationOverhead"` // since KTT 2.2; nil in older output
	CompilationData     *jsonio.Object `json:"CompilationData"`
	ProfilingData       *struct {
		Counters []counter `json:"Counters"`
	} `json:"ProfilingData"`
	PowerUsage        *float64 `json:"PowerUsage"`
	EnergyConsumption *float64 `json:"EnergyConsumption"`
	GlobalSize        any      `json:"GlobalSize"` // {"X", "Y", "Z"}, of Metadata.GlobalSizeType
	LocalSize         any      `json:"LocalSize"`
}

type rawResult struct {
	KernelName            string        `json:"KernelName"`
	Status                string        `json:"Status"`
	Configuration         []pair        `json:"Configuration"`
	ComputationResults    []computation `json:"ComputationResults"`
	DataMovementOverhead  float64       `json:"DataMovementOverhead"`
	ValidationOverhead    float64       `json:"ValidationOverhead"`
	SearcherOverhead      float64       `json:"SearcherOverhead"`
	ProfilingRunsOverhead float64       `json:"ProfilingRunsOverhead"`
	ProfilingOverhead     float64       `json:"ProfilingOverhead"`
	ExtraDuration         float64       `json:"ExtraDuration"`
	TotalDuration         *float64      `json:"TotalDuration"`
	TotalOverhead         *float64      `json:"TotalOverhead"`
	Timestamp             string        `json:"Timestamp"`
	offset                int64
}

// Read decodes KTT's JSON output (gzip detected by its magic bytes). A result's objective
// is the sum of its kernel functions' Durations in milliseconds. Parameters keep the order
// of the first result's configuration; their value lists are the values seen, sorted.
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
	top, err := parse(in)
	if err != nil {
		return nil, err
	}
	unit, err := top.check(in)
	if err != nil {
		return nil, err
	}
	var first *rawResult
	if len(top.results) > 0 {
		first = &top.results[0]
	}
	b, err := newBuilder(in, top.meta, unit, first, len(top.results))
	if err != nil {
		return nil, err
	}
	for i := range top.results {
		// each result's decoded tree is let go once its evaluation is made
		r := top.results[i]
		top.results[i] = rawResult{}
		if err := b.add(&r, i); err != nil {
			return nil, err
		}
	}
	return b.finish(), nil
}

// topLevel is what a KTT file holds: its metadata (and where it starts) and its results.
type topLevel struct {
	meta        *metadata
	metaOff     int64
	results     []rawResult
	haveResults bool
}

// check checks the top level and returns the time unit of its metadata.
func (top *topLevel) check(in *jsonio.Input) (jsonio.Unit, error) {
	if top.meta == nil || !top.haveResults {
		return jsonio.Unit{}, in.Errorf(-1, "no Metadata or no Results: not a KTT output file")
	}
	unit, ok := timeUnits[top.meta.TimeUnit]
	if !ok {
		return jsonio.Unit{}, in.Errorf(top.metaOff, "Metadata.TimeUnit %q is not one of Nanoseconds, Microseconds, Milliseconds, Seconds", top.meta.TimeUnit)
	}
	return unit, nil
}

// parse reads the top level with encoding/json's decoder, token by token, and reports
// precisely what is wrong with a file readFast does not read.
func parse(in *jsonio.Input) (topLevel, error) {
	var top topLevel
	dec := in.Decoder()
	_, err := jsonio.WalkTop(in, dec, func(key string, off int64) (bool, error) {
		switch key {
		case "Metadata":
			top.metaOff = in.ValueStart(off)
			return false, dec.Decode(&top.meta)
		case "Results":
			top.haveResults = true
			var err error
			top.results, err = decodeResults(in, dec)
			return false, err
		}
		return false, jsonio.Skip(dec)
	})
	return top, err
}

func decodeResults(in *jsonio.Input, dec *json.Decoder) ([]rawResult, error) {
	return jsonio.DecodeArray(in, dec, `field "Results"`, "result", func(r *rawResult, off int64) { r.offset = off })
}

// builder makes a recording of the results, one result at a time.
type builder struct {
	in        *jsonio.Input
	rec       *result.Recording
	unit      jsonio.Unit
	index     map[string]int
	noKernels jsonio.Located // Ok results without kernel durations
	noLaunch  jsonio.Located // results whose sizes make no launch
	// sizesKnown: the file says whether GlobalSize counts threads (threads) or blocks
	sizesKnown, threads bool
}

// newBuilder starts the recording of n results; first is the first result (nil when there
// is none), which gives the kernel and the parameters.
func newBuilder(in *jsonio.Input, meta *metadata, unit jsonio.Unit, first *rawResult, n int) (*builder, error) {
	rec := &result.Recording{
		Format:    Name,
		Source:    in.Source,
		Device:    meta.Device,
		Backend:   backends[meta.ComputeAPI],
		Objective: "time",
	}
	if first != nil {
		rec.Kernel = first.KernelName
		for _, p := range first.Configuration {
			rec.Params = append(rec.Params, space.Param{Name: p.Name})
		}
		rec.Evaluations = make([]result.Evaluation, 0, n)
	}
	index := make(map[string]int, len(rec.Params))
	for i, p := range rec.Params {
		if _, dup := index[p.Name]; dup {
			return nil, in.Errorf(first.offset, "result 0: parameter %q appears twice", p.Name)
		}
		index[p.Name] = i
	}
	// without a GlobalSizeType ktune knows, the ComputeApi's own: KTT's default for its
	// engine, which a file without one was written with
	sizeType := meta.GlobalSizeType
	if _, known := countsThreads[sizeType]; !known {
		sizeType = meta.ComputeAPI
	}
	threads, sizesKnown := countsThreads[sizeType]
	return &builder{in: in, rec: rec, unit: unit, index: index,
		noKernels:  jsonio.Located{One: "Ok result", Many: "Ok results"},
		noLaunch:   jsonio.Located{One: "result", Many: "results"},
		sizesKnown: sizesKnown, threads: threads}, nil
}

// add makes result i, r, the recording's next evaluation.
func (b *builder) add(r *rawResult, i int) error {
	rec := b.rec
	ev, err := evaluation(b.in, rec, r, i, b.index, b.unit, &b.noKernels)
	if err != nil {
		return err
	}
	if why := launch(&ev, r, b.sizesKnown, b.threads); why != "" {
		b.noLaunch.Add(b.in, r.offset, fmt.Sprintf("result %d", i), why)
	}
	for j, v := range ev.Config {
		if rec.Params[j].Index(v) < 0 {
			rec.Params[j].Values = append(rec.Params[j].Values, v)
		}
	}
	rec.Evaluations = append(rec.Evaluations, ev)
	return nil
}

// finish sorts the value lists and adds the warnings.
func (b *builder) finish() *result.Recording {
	rec := b.rec
	for i := range rec.Params {
		vs := rec.Params[i].Values
		sort.SliceStable(vs, func(a, b int) bool { return vs[a].Less(vs[b]) })
	}
	if w := b.noKernels.Warning("has no kernel durations", "have no kernel durations", "its objective is TotalDuration", "their objective is TotalDuration"); w != "" {
		rec.Warnings = append(rec.Warnings, w)
	}
	if w := b.noLaunch.Warning("has launch sizes ktune cannot read", "have launch sizes ktune cannot read", "its launch is left out", "their launch is left out"); w != "" {
		rec.Warnings = append(rec.Warnings, w)
	}
	return rec
}

// launch sets ev's launch from the GlobalSize and LocalSize of r's one kernel function,
// GlobalSize counting threads (threads) or blocks, where the file says which
// (sizesKnown). A result of
// several kernel functions has none: they may have been launched each its own way, and
// Write writes one. It returns why sizes the result has make no launch, "" when they do
// or there are none.
func launch(ev *result.Evaluation, r *rawResult, sizesKnown, threads bool) string {
	if len(r.ComputationResults) != 1 {
		return ""
	}
	c := &r.ComputationResults[0]
	if c.GlobalSize == nil && c.LocalSize == nil {
		return ""
	}
	global, why := dims("GlobalSize", c.GlobalSize)
	if why != "" {
		return why
	}
	local, why := dims("LocalSize", c.LocalSize)
	if why != "" {
		return why
	}
	if !sizesKnown {
		return "no GlobalSizeType or ComputeApi says whether GlobalSize counts threads or blocks"
	}
	var l result.Launch
	for d, axis := range "XYZ" {
		l.Block[d], l.Grid[d] = local[d], global[d]
		if threads {
			if global[d]%local[d] != 0 {
				return fmt.Sprintf("GlobalSize %c %d (work-items) is not a multiple of LocalSize %c %d", axis, global[d], axis, local[d])
			}
			l.Grid[d] = global[d] / local[d]
		} else if global[d] > maxSize/local[d] {
			return fmt.Sprintf("GlobalSize %c %d of LocalSize %c %d is more than 2^53 threads", axis, global[d], axis, local[d])
		}
	}
	ev.Launch = &l
	return ""
}

// dims reads one of KTT's sizes, {"X": .., "Y": .., "Z": ..}: whole numbers from 1 to
// 2^53, or why it is not one.
func dims(name string, v any) ([3]int, string) {
	var out [3]int
	m, ok := v.(map[string]any)
	if !ok {
		return out, fmt.Sprintf("%s is %s, not an object of X, Y and Z", name, jsonio.Describe(v))
	}
	for d, axis := range []string{"X", "Y", "Z"} {
		f, ok := jsonio.Float(m[axis])
		if !ok || f != math.Trunc(f) || f < 1 || f > maxSize {
			return out, fmt.Sprintf("%s %s is %s, not a whole number of at least 1", name, axis, jsonio.Describe(m[axis]))
		}
		out[d] = int(f)
	}
	return out, ""
}

func evaluation(in *jsonio.Input, rec *result.Recording, r *rawResult, i int, index map[string]int, unit jsonio.Unit, noKernels *jsonio.Located) (result.Evaluation, error) {
	fail := func(msg string, args ...any) error {
		return in.Errorf(r.offset, "result %d: %s", i, fmt.Sprintf(msg, args...))
	}
	ev := result.Evaluation{Config: make([]space.Value, len(rec.Params)), Objective: math.NaN()}
	if len(r.Configuration) != len(rec.Params) {
		return ev, fail("has %d configuration parameters, the first result %d", len(r.Configuration), len(rec.Params))
	}
	for _, p := range r.Configuration {
		j, ok := index[p.Name]
		if !ok {
			return ev, fail("parameter %q is not among the first result's", p.Name)
		}
		v, err := value(p)
		if err != nil {
			return ev, fail("parameter %q: %v", p.Name, err)
		}
		ev.Config[j] = v
	}
	status, ok := statuses[r.Status]
	if !ok {
		return ev, fail("Status %q is not one of Ok, CompilationFailed, ComputationFailed, ValidationFailed, DeviceLimitsExceeded", r.Status)
	}
	ev.Status = status

	ms := unit.ToMS
	prefix := func(c *computation) string {
		if len(r.ComputationResults) > 1 {
			return c.KernelFunction + "/"
		}
		return ""
	}
	sum, kernelOverhead := 0.0, 0.0
	// KTT 2.1 does not record compile time (its output has no CompilationOverhead): it is
	// unknown then, not 0, as it is for a failure without computation results
	ev.CompileMS = math.NaN()
	for k := range r.ComputationResults {
		c := &r.ComputationResults[k]
		if c.Duration == nil {
			return ev, fail("computation result %d (%s) has no Duration", k, c.KernelFunction)
		}
		sum += *c.Duration
		kernelOverhead += c.Overhead
		if c.CompilationOverhead != nil {
			if math.IsNaN(ev.CompileMS) {
				ev.CompileMS = 0
			}
			ev.CompileMS += ms(*c.CompilationOverhead)
		}
		pre := prefix(c)
		if c.CompilationData != nil {
			for _, m := range *c.CompilationData {
				name := compilationMetrics[m.Key]
				if name == "" {
					name = m.Key
				}
				if f, ok := jsonio.Float(m.Value); ok {
					setMetric(&ev, pre+name, f)
				}
			}
		}
		if c.ProfilingData != nil {
			for _, ctr := range c.ProfilingData.Counters {
				if f, ok := jsonio.Float(ctr.Value); ok {
					setMetric(&ev, pre+ctr.Name, f)
				}
			}
		}
		if c.PowerUsage != nil {
			setMetric(&ev, pre+"power", *c.PowerUsage)
		}
		if c.EnergyConsumption != nil {
			setMetric(&ev, pre+"energy", *c.EnergyConsumption)
		}
	}
	if status == result.OK {
		switch {
		case len(r.ComputationResults) > 0:
			ev.Objective = ms(sum)
		case r.TotalDuration != nil:
			ev.Objective = ms(*r.TotalDuration)
			noKernels.Add(in, r.offset, fmt.Sprintf("result %d", i), "")
		default:
			return ev, fail("Status is Ok but there are no ComputationResults and no TotalDuration")
		}
		if !jsonio.Finite(ev.Objective) {
			return ev, fail("duration %v is out of range", ev.Objective)
		}
	}
	// TotalDuration is KTT's sum of the kernel Durations and ExtraDuration: the benchmark.
	// TotalOverhead is KTT's sum of all its overheads (KernelResult::GetTotalOverhead):
	// data movement, validation, searcher, each kernel's Overhead (launch, and compilation
	// where the kernel was built) and members KTT 2.1 does not write, as the creation of a
	// kernel that failed. The searcher's time is Kernel Tuner's strategy_time, validation
	// is verification, compilation (since KTT 2.2) compile time, and the rest of the total
	// the framework's, so that the four add up to what the result cost. Without a total
	// (or one smaller than its parts) framework time is the members that hold it, as
	// KTT's own T4 writer splits them: data movement, profiling and kernel overhead; so
	// is it where the total is smaller than the searcher's, validation and compile times.
	ev.VerifyMS = ms(r.ValidationOverhead)
	ev.StrategyMS = ms(r.SearcherOverhead)
	ev.FrameworkMS = ms(r.DataMovementOverhead + r.ProfilingRunsOverhead + r.ProfilingOverhead + kernelOverhead)
	if r.TotalOverhead != nil {
		if rest := frameworkRest(ms(*r.TotalOverhead), ev.StrategyMS, ev.VerifyMS, ev.CompileMS); rest >= 0 && jsonio.Finite(rest) {
			ev.FrameworkMS = rest
		}
	}
	if r.TotalDuration != nil {
		ev.BenchmarkMS = ms(*r.TotalDuration)
	}
	if r.ExtraDuration != 0 {
		setMetric(&ev, "extra_duration", ms(r.ExtraDuration))
	}
	if r.TotalOverhead != nil {
		setMetric(&ev, "total_overhead", ms(*r.TotalOverhead))
	}
	if r.Timestamp != "" {
		if t, ok := jsonio.ParseTime(r.Timestamp); ok {
			ev.Time = t
		}
	}
	return ev, nil
}

// frameworkRest is the part of a result's TotalOverhead (ms) that is neither the
// searcher's, nor validation, nor compilation (when known): the framework's time. Write
// writes TotalOverhead only where this gives back the evaluation's framework time.
func frameworkRest(total, searcher, validation, compile float64) float64 {
	rest := total - searcher - validation
	if !math.IsNaN(compile) {
		rest -= compile
	}
	return rest
}

// value converts a configuration pair, using ValueType to keep KTT's type: a Double whose
// value happens to be integral stays a float, a Bool written as 0/1 becomes a boolean.
func value(p pair) (space.Value, error) {
	v, err := space.ValueOf(p.Value)
	if err != nil {
		return v, fmt.Errorf("value %s: %v", jsonio.Describe(p.Value), err)
	}
	switch strings.ToLower(p.ValueType) {
	case "double", "float":
		if v.Kind() == space.Int {
			return space.FloatValue(float64(v.Int())), nil
		}
	case "bool":
		if v.IsNumeric() {
			return space.BoolValue(v.Bool()), nil
		}
	}
	return v, nil
}

func setMetric(ev *result.Evaluation, name string, f float64) {
	if !jsonio.Finite(f) {
		return
	}
	if ev.Metrics == nil {
		ev.Metrics = map[string]float64{}
	}
	ev.Metrics[name] = f
}
