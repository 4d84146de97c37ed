package ktt

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/ktune/ktune/format/internal/jsonio"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
)

// statusNames maps statuses to KTT's ResultStatus names. KTT has no timeout: a
// configuration stopped for taking too long failed while computing.
var statusNames = map[result.Status]string{
	result.OK:           "Ok",
	result.CompileError: "CompilationFailed",
	result.RuntimeError: "ComputationFailed",
	result.Timeout:      "ComputationFailed",
	result.WrongAnswer:  "ValidationFailed",
	result.DeviceLimit:  "DeviceLimitsExceeded",
}

// compilationFields is compilationMetrics the other way round: the metric names Write
// puts back in a computation result's CompilationData.
var compilationFields = func() map[string]string {
	m := make(map[string]string, len(compilationMetrics))
	for field, metric := range compilationMetrics {
		m[metric] = field
	}
	return m
}()

// Write encodes rec as KTT's JSON output, in milliseconds (TimeUnit), in the layout KTT
// 2.1 writes: Metadata, then one result per evaluation with its status, configuration
// (each value with its ValueType) and, for a success, one computation result of the
// recording's kernel whose Duration is the kernel time. What KTT keeps elsewhere goes
// back where Read takes it from: compile time (CompilationOverhead), the launch
// (GlobalSize and LocalSize), the registers and memory sizes (CompilationData), power and
// energy (PowerUsage, EnergyConsumption), the verification, strategy and framework times
// (ValidationOverhead, SearcherOverhead, DataMovementOverhead, and TotalOverhead where a
// KTT file recorded one that still holds them), the total time spent running it
// (TotalDuration) and every other metric as a profiling counter; with another objective
// than time, the objective too is a counter of its name, so Read gives it back as a
// metric beside the time.
//
// The recording's backend is the ComputeApi (CUDA, OpenCL or Vulkan; none for host C or
// an unknown one) and says the GlobalSizeType, written where a launch is: OpenCL's
// GlobalSize counts work-items (grid*block), CUDA's and Vulkan's blocks (the grid), as KTT
// writes them; without such a backend a launch is written in CUDA's terms, ktune's own.
// A success whose launch is unknown (a Kernel Tuner cache's or T4 file's not written by
// ktune, which record none, a host C run's, whose function is called rather than launched, a run stored
// before ktune kept launches) has no GlobalSize or LocalSize. KTT always writes them, but
// has no value that means unknown: its default, 1 x 1 x 1, would claim a launch of one
// thread. Read, and tools that take them as optional, read such a file; KTT's own loader
// needs them, as it needs the Platform, KttVersion and Timestamp no recording knows.
//
// KTT has no place for what else a recording holds (the objective's direction,
// restrictions, problem size, timing samples, failure messages, a failure's compile time,
// metrics and launch, parameter values no configuration has, the device of a run's
// several that measured each configuration), nor for configurations the
// restrictions exclude (Restricted, as a Kernel Tuner cache lists them), which are left
// out (Losses names them); a timeout is written as ComputationFailed. The platform KTT
// records is not known to a recording and is not written.
// A success without a kernel time (another objective whose time was not kept) is an error.
func Write(w io.Writer, rec *result.Recording) error {
	bw := bufio.NewWriter(w)
	e := &jsonio.Encoder{W: bw, Prefix: Name}
	objective := rec.Objective
	if objective == "" {
		objective = "time"
	}
	kernel := rec.Kernel
	api, sizeType := computeAPIs[rec.Backend], computeAPIs[rec.Backend]
	if sizeType == "" {
		sizeType = "CUDA" // ktune's own terms: a grid of blocks
	}
	launched := false // whether a computation result is written with a launch
	for i := range rec.Evaluations {
		ev := &rec.Evaluations[i]
		if ev.Launch != nil && resultStatus(ev) == "Ok" {
			launched = true
			break
		}
	}
	e.Str("{\n")
	e.Key("Metadata")
	e.Str("{")
	if api != "" {
		e.Field("ComputeApi", api)
		e.Str(", ")
	}
	if rec.Device != "" {
		e.Field("Device", rec.Device)
		e.Str(", ")
	}
	if launched {
		e.Field("GlobalSizeType", sizeType)
		e.Str(", ")
	}
	e.Field("TimeUnit", "Milliseconds")
	e.Str("},\n")
	e.Key("Results")
	e.Str("[")
	n := 0
	for i := range rec.Evaluations {
		ev := &rec.Evaluations[i]
		if len(ev.Config) != len(rec.Params) {
			return fmt.Errorf("%s: evaluation %d has %d values for %d parameters", Name, i, len(ev.Config), len(rec.Params))
		}
		if ev.Status == result.Restricted {
			continue
		}
		if n > 0 {
			e.Str(",")
		}
		n++
		e.Str("\n")
		if err := writeResult(e, rec, ev, i, kernel, objective, countsThreads[sizeType]); err != nil {
			return err
		}
		if e.Err != nil {
			return e.Err
		}
	}
	return e.End("\n]\n}\n")
}

// computeAPIs maps Recording.Backend to KTT's ComputeApi names (backends the other way
// round); host C has none.
var computeAPIs = func() map[string]string {
	m := make(map[string]string, len(backends))
	for api, backend := range backends {
		m[backend] = api
	}
	return m
}()

// resultStatus is the ResultStatus Write gives an evaluation.
func resultStatus(ev *result.Evaluation) string {
	status, ok := statusNames[ev.Status]
	if !ok || ev.Failed() && ev.Status == result.OK {
		status = "ComputationFailed" // an OK status without a usable objective
	}
	return status
}

// Losses says what Write leaves out of rec because KTT's output has no place for it, each
// as a phrase ("the timing samples of 4201 configurations"), so that a user is told what
// an export drops; none where Write keeps everything (KTT output that ktune read).
func Losses(rec *result.Recording) []string {
	var l []string
	switch objective := rec.Objective; {
	case objective != "" && objective != "time":
		l = append(l, fmt.Sprintf("the objective %s and its direction (written as a profiling counter; the file's objective is the kernel time)", objective))
	case rec.Maximize:
		l = append(l, "the objective's direction (higher is better)")
	}
	if rec.ProblemSize != "" {
		l = append(l, "the problem size "+rec.ProblemSize)
	}
	if n := len(rec.Restrictions); n > 0 {
		l = append(l, counted(n, "the restriction", "the %d restrictions"))
	}
	var restricted, samples, messages, timeouts, compiles, metrics, launches, measuredOn int
	var devices []string // that measured, in the order they first did
	// the values each parameter has in the results: KTT lists no others
	used := make([]map[string]bool, len(rec.Params))
	for j := range used {
		used[j] = map[string]bool{}
	}
	for i := range rec.Evaluations {
		ev := &rec.Evaluations[i]
		if ev.Status == result.Restricted {
			restricted++
			continue
		}
		for j, v := range ev.Config {
			if j < len(used) {
				used[j][valueKey(v)] = true
			}
		}
		if len(ev.Samples) > 0 {
			samples++
		}
		if ev.Message != "" {
			messages++
		}
		if ev.Device != "" {
			measuredOn++
			if !slices.Contains(devices, ev.Device) {
				devices = append(devices, ev.Device)
			}
		}
		if ev.Status == result.Timeout {
			timeouts++
		}
		if resultStatus(ev) == "Ok" {
			continue
		}
		// a failure has no computation result, where compile time, metrics and launch go
		if jsonio.Finite(ev.CompileMS) {
			compiles++
		}
		if ev.Launch != nil {
			launches++
		}
		searcher, validation, framework := writtenTime(ev.StrategyMS), writtenTime(ev.VerifyMS), writtenTime(ev.FrameworkMS)
		withTotal := totalFits(ev, false, searcher, validation, framework)
		for name, f := range ev.Metrics {
			if jsonio.Finite(f) && !(name == "extra_duration" && f != 0) && !(name == "total_overhead" && withTotal) {
				metrics++
				break
			}
		}
	}
	var unused []string
	for j, p := range rec.Params {
		for _, v := range p.Values {
			if !used[j][valueKey(v)] {
				unused = append(unused, p.Name+"="+v.String())
			}
		}
	}
	if len(unused) > 0 {
		more := ""
		if len(unused) > 5 {
			unused, more = unused[:5], fmt.Sprintf(" and %d more", len(unused)-5)
		}
		l = append(l, fmt.Sprintf("the parameter values no configuration has (%s%s)", strings.Join(unused, ", "), more))
	}
	if restricted > 0 {
		l = append(l, counted(restricted, "the configuration the restrictions exclude", "the %d configurations the restrictions exclude"))
	}
	if samples > 0 {
		l = append(l, counted(samples, "the timing samples of 1 configuration", "the timing samples of %d configurations"))
	}
	if messages > 0 {
		l = append(l, counted(messages, "the failure message of 1 configuration", "the failure messages of %d configurations"))
	}
	if measuredOn > 0 {
		l = append(l, counted(measuredOn, "the device that measured 1 configuration", "the devices that measured %d configurations")+
			" ("+strings.Join(devices, ", ")+")")
	}
	if timeouts > 0 {
		l = append(l, counted(timeouts, "the timeout of 1 configuration (written as ComputationFailed)", "the timeouts of %d configurations (written as ComputationFailed)"))
	}
	if compiles > 0 {
		l = append(l, counted(compiles, "the compile time of 1 failed configuration", "the compile times of %d failed configurations"))
	}
	if metrics > 0 {
		l = append(l, counted(metrics, "the metrics of 1 failed configuration", "the metrics of %d failed configurations"))
	}
	if launches > 0 {
		l = append(l, counted(launches, "the launch sizes of 1 failed configuration", "the launch sizes of %d failed configurations"))
	}
	return l
}

// valueKey tells values apart by kind and text (1, 1.0 and "1" are three values).
func valueKey(v space.Value) string { return fmt.Sprint(int(v.Kind())) + ":" + v.String() }

// counted is one, or many with n in it.
func counted(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return fmt.Sprintf(many, n)
}

// writtenTime is a timing as Write writes it: 0 for what was not measured, as KTT writes
// a failure's.
func writtenTime(f float64) float64 {
	if !jsonio.Finite(f) {
		return 0
	}
	return f
}

// writeResult writes one result, its members in the order KTT writes them (by name).
func writeResult(e *jsonio.Encoder, rec *result.Recording, ev *result.Evaluation, i int, kernel, objective string, threads bool) error {
	status := resultStatus(ev)
	ok := status == "Ok"
	duration := math.NaN()
	if ok {
		var has bool
		if duration, has = ev.TimeMS(objective); !has || !jsonio.Finite(duration) {
			return fmt.Errorf("%s: evaluation %d (%s) succeeded but has no kernel time, which KTT's output records as its Duration",
				Name, i, configString(rec, ev))
		}
	}
	searcher, validation, framework := writtenTime(ev.StrategyMS), writtenTime(ev.VerifyMS), writtenTime(ev.FrameworkMS)
	withTotal := totalFits(ev, ok, searcher, validation, framework)
	e.Str("{")
	e.Key("ComputationResults")
	e.Str("[")
	if ok {
		if err := writeComputation(e, ev, kernel, objective, duration, withTotal, threads); err != nil {
			return fmt.Errorf("%s: evaluation %d (%s): %w", Name, i, configString(rec, ev), err)
		}
	}
	e.Str("], ")
	e.Key("Configuration")
	e.Str("[")
	for j, p := range rec.Params {
		if j > 0 {
			e.Str(", ")
		}
		v := ev.Config[j]
		e.Str("{")
		e.Field("Name", p.Name)
		e.Str(", ")
		e.Field("Value", v)
		e.Str(", ")
		e.Field("ValueType", valueType(v))
		e.Str("}")
	}
	e.Str("], ")
	num := func(name string, f float64) {
		if !jsonio.Finite(f) {
			f = 0 // KTT writes 0 for what it did not measure (a failure's TotalDuration)
		}
		e.Key(name)
		e.Num(f)
		e.Str(", ")
	}
	num("DataMovementOverhead", framework)
	num("ExtraDuration", ev.Metrics["extra_duration"]) // 0 where it has none, as KTT writes it
	e.Field("KernelName", kernel)
	e.Str(", ")
	num("SearcherOverhead", searcher)
	e.Field("Status", status)
	e.Str(", ")
	if !ev.Time.IsZero() {
		e.Field("Timestamp", jsonio.FormatTime(ev.Time))
		e.Str(", ")
	}
	total := ev.BenchmarkMS
	if !jsonio.Finite(total) && ok {
		total = duration
	}
	num("TotalDuration", total)
	if withTotal {
		num("TotalOverhead", ev.Metrics["total_overhead"])
	}
	e.Key("ValidationOverhead")
	e.Num(validation)
	e.Str("}")
	return nil
}

// totalFits reports whether the evaluation's recorded total overhead (its metric
// total_overhead) is written as TotalOverhead: only where Read takes back the same framework
// time from it, the rest of the total beside the searcher's, validation and compile times
// as written (compile time goes in a success's computation result). Elsewhere, as in a
// run whose strategy time is not the recording's, Read takes DataMovementOverhead, and the
// metric goes back as a profiling counter.
func totalFits(ev *result.Evaluation, ok bool, searcher, validation, framework float64) bool {
	total, has := ev.Metrics["total_overhead"]
	if !has || !jsonio.Finite(total) {
		return false
	}
	compile := math.NaN()
	if ok && jsonio.Finite(ev.CompileMS) {
		compile = ev.CompileMS
	}
	return frameworkRest(total, searcher, validation, compile) == framework
}

// writeComputation writes a success's one computation result: the kernel's duration, its
// launch, with a GlobalSize that counts threads or blocks, and the metrics KTT keeps
// beside it.
func writeComputation(e *jsonio.Encoder, ev *result.Evaluation, kernel, objective string, duration float64, withTotal, threads bool) error {
	l := ev.Launch
	var global [3]int
	if l != nil {
		if !l.Valid() {
			return fmt.Errorf("launch: grid %v, block %v: a size below 1", l.Grid, l.Block)
		}
		global = l.Grid
		if threads {
			for d := range 3 {
				if l.Grid[d] > maxSize/l.Block[d] {
					return fmt.Errorf("launch: grid %v of block %v is more than 2^53 threads", l.Grid, l.Block)
				}
				global[d] *= l.Block[d]
			}
		}
	}
	compiled := map[string]float64{}
	counters := map[string]float64{}
	power, energy := math.NaN(), math.NaN()
	for name, f := range ev.Metrics {
		if !jsonio.Finite(f) {
			continue
		}
		switch field, isCompile := compilationFields[name]; {
		case isCompile:
			compiled[field] = f
		case name == "power":
			power = f
		case name == "energy":
			energy = f
		case name == "time" && objective != "time", name == "extra_duration" && f != 0, name == "total_overhead" && withTotal:
			// the Duration beside another objective, and the result's own members (Read
			// takes an ExtraDuration of 0 for none: a metric of 0 stays a counter; a
			// total that does not fit the timings, a counter too: see totalFits)
		default:
			counters[name] = f
		}
	}
	if objective != "time" && jsonio.Finite(ev.Objective) {
		counters[objective] = ev.Objective
	}
	e.Str("{")
	if len(compiled) > 0 {
		e.Key("CompilationData")
		e.Str("{")
		for k, name := range sortedKeys(compiled) {
			if k > 0 {
				e.Str(", ")
			}
			e.Key(name)
			e.Num(compiled[name])
		}
		e.Str("}, ")
	}
	if jsonio.Finite(ev.CompileMS) {
		e.Key("CompilationOverhead")
		e.Num(ev.CompileMS)
		e.Str(", ")
	}
	e.Key("Duration")
	e.Num(duration)
	e.Str(", ")
	if jsonio.Finite(energy) {
		e.Key("EnergyConsumption")
		e.Num(energy)
		e.Str(", ")
	}
	if l != nil {
		writeSize(e, "GlobalSize", global)
	}
	e.Field("KernelFunction", kernel)
	e.Str(", ")
	if l != nil {
		writeSize(e, "LocalSize", l.Block)
	}
	e.Key("Overhead")
	e.Num(0)
	if jsonio.Finite(power) {
		e.Str(", ")
		e.Key("PowerUsage")
		e.Num(power)
	}
	if len(counters) > 0 {
		e.Str(", ")
		e.Key("ProfilingData")
		e.Str("{")
		e.Key("Counters")
		e.Str("[")
		for k, name := range sortedKeys(counters) {
			if k > 0 {
				e.Str(", ")
			}
			e.Str("{")
			e.Field("Name", name)
			e.Str(", ")
			e.Field("Type", "Double")
			e.Str(", ")
			e.Key("Value")
			e.Num(counters[name])
			e.Str("}")
		}
		e.Str("], ")
		e.Field("RemainingProfilingRuns", 0)
		e.Str("}")
	}
	e.Str("}")
	return nil
}

// writeSize writes one of KTT's sizes, {"X": .., "Y": .., "Z": ..}, and a comma.
func writeSize(e *jsonio.Encoder, name string, size [3]int) {
	e.Key(name)
	e.Str("{")
	for d, axis := range []string{"X", "Y", "Z"} {
		if d > 0 {
			e.Str(", ")
		}
		e.Field(axis, size[d])
	}
	e.Str("}, ")
}

// valueType is KTT's ParameterValueType of v.
func valueType(v space.Value) string {
	switch v.Kind() {
	case space.Int:
		if v.Int() < 0 {
			return "Int"
		}
		return "UnsignedInt"
	case space.Float:
		return "Double"
	case space.Bool:
		return "Bool"
	}
	return "String"
}

func sortedKeys(m map[string]float64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// configString names an evaluation's configuration in errors: name=value, ...
func configString(rec *result.Recording, ev *result.Evaluation) string {
	s := ""
	for j, p := range rec.Params {
		if j > 0 {
			s += ", "
		}
		s += p.Name + "=" + ev.Config[j].String()
	}
	return s
}
