// Package result defines what one evaluation of a configuration produces and a recording:
// a set of evaluations of one kernel on one device, as measured by ktune or imported from
// another tuner's files.
package result

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ktune/ktune/space"
)

// Status says how an evaluation ended.
type Status uint8

// Statuses. Anything but OK carries the fail fitness in a search.
const (
	OK           Status = iota // compiled, ran, verified and timed
	Restricted                 // excluded by the restrictions; never run
	CompileError               // the compiler rejected the configuration
	RuntimeError               // launch or run failed (crash included)
	Timeout                    // ran past the per-configuration limit
	WrongAnswer                // ran but failed verification
	DeviceLimit                // breaks a device limit (work-group size, local memory)
)

var statusNames = [...]string{"ok", "restricted", "compile_error", "runtime_error", "timeout", "wrong_answer", "device_limit"}

// Valid reports whether s is one of the statuses above: an evaluation with another would
// be stored as a failure nobody can name.
func (s Status) Valid() bool { return int(s) < len(statusNames) }

// String is the status's name ("ok", "wrong_answer"), or status(N) for one that is not
// Valid.
func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return fmt.Sprintf("status(%d)", s)
}

// ParseStatus is the inverse of Status.String.
func ParseStatus(name string) (Status, error) {
	for i, n := range statusNames {
		if n == name {
			return Status(i), nil
		}
	}
	return 0, fmt.Errorf("unknown status %q (want one of %v)", name, statusNames)
}

// Evaluation is everything known about one measured (or failed) configuration.
// Times are in milliseconds.
type Evaluation struct {
	Config      []space.Value      // one value per parameter of the recording, in its order
	Status      Status             // how the evaluation ended
	Objective   float64            // the objective's value; NaN unless Status is OK
	Samples     []float64          // every timing sample in ms (objective computed from them for time)
	Metrics     map[string]float64 // other observables: GFLOP/s, energy, profiling counters...
	CompileMS   float64            // compilation time; NaN when not recorded (as the four below)
	VerifyMS    float64            // verification time
	BenchmarkMS float64            // total time spent running the kernel for this measurement
	FrameworkMS float64            // tuner overhead
	StrategyMS  float64            // time the search strategy spent choosing this configuration (package tuning)
	Message     string             // compiler or runtime message of a failure
	Warnings    string             // what the compiler printed for a build that succeeded (its warnings); "" when nothing
	Time        time.Time          // when it was measured; zero when unknown
	Launch      *Launch            // the grid and block the configuration is launched with; nil when unknown

	// RunsPerSample is how many consecutive timed runs each sample is the statistic of:
	// 1, more where the runs went on for the spec's min_time; 0 when unknown (another
	// tuner's recording, an evaluation stored before ktune kept it): SampleRuns reads it.
	RunsPerSample int

	// Device is the device that measured the evaluation, as 'ktune devices' and --device
	// name it ("opencl:1"), so that a run measured on several devices tells which measured
	// what (one slower card among identical ones). A tuning run records it for every
	// configuration a device measured, on one device as on several; it is "" when unknown
	// or when no device measured: an import (unless a ktune export's ktune_device said it),
	// a simulation, a configuration refused over a device limit known before compiling,
	// an evaluation stored before ktune kept it.
	Device string
}

// Launch is a kernel's launch geometry in CUDA terms: Grid blocks of Block threads, each
// in three dimensions (OpenCL's global size is Grid*Block work-items in work-groups of
// Block). It belongs to the configuration, whether or not the kernel got to run: a
// tuning run records the one its spec gives (a C kernel, called rather than launched,
// has none), a KTT file the GlobalSize and LocalSize of its one kernel function. An
// evaluation holds it by pointer, nil when unknown, which keeps Evaluation, copied by
// value through every simulated evaluation, small; it is never modified once made.
type Launch struct {
	Grid, Block [3]int
}

// Valid reports whether l is a launch a device could make: every size a whole number of
// at least 1.
func (l Launch) Valid() bool {
	for d := range 3 {
		if l.Grid[d] < 1 || l.Block[d] < 1 {
			return false
		}
	}
	return true
}

// SameLaunch reports whether two evaluations' launches are the same: both unknown, or
// both known and equal.
func SameLaunch(a, b *Launch) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// Failed reports whether the evaluation carries no usable objective.
func (e *Evaluation) Failed() bool { return e.Status != OK || math.IsNaN(e.Objective) }

// TimeMS is the evaluation's kernel time in ms, as the run made it of its samples with its
// statistic (mean, median, min) and computed its metrics (GB/s) from it; objective is the
// recording's. With the objective time it is the objective. Beside another objective it
// is the "time" in Metrics, which ktune's runner keeps there and Kernel Tuner caches and
// T4 files carry. An evaluation without it (one ktune stored before it kept the time
// beside a metric objective, or a file's that has samples alone) falls back on the mean of
// its finite samples: Kernel Tuner's own "time", and the run's unless its spec's statistic
// was median. false when there is none: a failure, or no samples.
func (e *Evaluation) TimeMS(objective string) (float64, bool) {
	if objective == "time" || objective == "" {
		return e.Objective, !e.Failed()
	}
	if t, ok := e.Metrics["time"]; ok && !math.IsNaN(t) && !math.IsInf(t, 0) {
		return t, true
	}
	if e.Failed() {
		return math.NaN(), false
	}
	sum, n := 0.0, 0
	for _, v := range e.Samples {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			sum += v
			n++
		}
	}
	if n == 0 {
		return math.NaN(), false
	}
	return sum / float64(n), true
}

// SampleCV is the coefficient of variation of the evaluation's finite timing samples:
// their standard deviation (over n-1) divided by their mean, 0.05 for a spread of 5%.
// false with fewer than two samples or a mean of 0 or below.
func (e *Evaluation) SampleCV() (float64, bool) {
	sum, n := 0.0, 0
	for _, v := range e.Samples {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			sum += v
			n++
		}
	}
	if n < 2 || sum <= 0 {
		return math.NaN(), false
	}
	mean := sum / float64(n)
	ss := 0.0
	for _, v := range e.Samples {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			ss += (v - mean) * (v - mean)
		}
	}
	return math.Sqrt(ss/float64(n-1)) / mean, true
}

// SampleRuns is how many consecutive timed runs each of the evaluation's samples is the
// statistic of: RunsPerSample where known; else what the note of a run that went on for
// the spec's min_time says in its message ("each of its 32 samples is the mean of 40
// consecutive runs"), which a recording made before evaluations kept RunsPerSample (a
// ktune export's ktune_message) still carries; else 1, a sample per run.
func (e *Evaluation) SampleRuns() int {
	if e.RunsPerSample > 0 {
		return e.RunsPerSample
	}
	return notedRunsPerSample(e.Message)
}

// notedRunsPerSample reads the runs per sample from the note package runner adds to the
// message of an evaluation whose runs went on for min_time ("timed over 1280 runs for
// min_time 10ms: each of its 32 samples is the mean of 40 consecutive runs"); 1 without
// one. The store's schema 5 migration reads old rows' notes the same way (SQL).
func notedRunsPerSample(msg string) int {
	if !strings.Contains(msg, "for min_time ") {
		return 1
	}
	for _, st := range []string{"mean", "median", "min"} {
		if _, rest, ok := strings.Cut(msg, " samples is the "+st+" of "); ok {
			digits, _, _ := strings.Cut(rest, " ")
			if b, err := strconv.Atoi(digits); err == nil && b >= 1 {
				return b
			}
		}
	}
	return 1
}

// Recording is a set of evaluations of one kernel on one device.
type Recording struct {
	Format       string        // the format it was read from: "kerneltuner", "t4", "ktt", "ktune"
	Source       string        // file or store reference it came from
	Device       string        // device name as reported
	Backend      string        // compute API it ran with, as ktune names its backends ("cuda", "opencl", "c"; "vulkan" from KTT); empty when unknown
	Kernel       string        // kernel name
	ProblemSize  string        // problem size as written by the producer
	Params       []space.Param // parameters and their value lists, in the producer's order
	Restrictions []string      // restriction expressions, when the producer recorded them
	Objective    string        // name of the objective, "time" by default
	Maximize     bool          // whether larger objective values are better
	Evaluations  []Evaluation  // in the producer's order
	Warnings     []string      // problems found while reading that did not stop it
	// Truncated says the file ends early (a gzip stream cut short, by a copy or a download
	// that did not finish): the evaluations are those read before the cut, a part of the
	// recording; Warnings says where it was cut.
	Truncated bool
}

// Best returns the best successful evaluation by the recording's objective and direction,
// the first of equals in the recording's order. A configuration found wrong anywhere in
// the recording (FoundWrong) is no candidate, however fast its other evaluations ran.
func (r *Recording) Best() (Evaluation, bool) {
	best, found := -1, false
	wrong := r.FoundWrong()
	for i := range r.Evaluations {
		e := &r.Evaluations[i]
		if e.Failed() || wrong(e) {
			continue
		}
		if !found || (r.Maximize && e.Objective > r.Evaluations[best].Objective) ||
			(!r.Maximize && e.Objective < r.Evaluations[best].Objective) {
			best, found = i, true
		}
	}
	if !found {
		return Evaluation{}, false
	}
	return r.Evaluations[best], true
}

// FoundWrong returns a function that reports whether an evaluation's configuration has a
// wrong_answer evaluation anywhere in the recording: one whose outputs a verification, or
// a check after dynamic tuning on later data, found wrong. Such a configuration computes
// wrong answers on some input, so it is never a run's best nor a well-performing one,
// whatever its other evaluations measured. Configurations are matched by ConfigKey, as
// the store matches them.
func (r *Recording) FoundWrong() func(*Evaluation) bool {
	var wrong map[string]bool
	for i := range r.Evaluations {
		if e := &r.Evaluations[i]; e.Status == WrongAnswer {
			if wrong == nil {
				wrong = map[string]bool{}
			}
			wrong[ConfigKey(e.Config)] = true
		}
	}
	if wrong == nil {
		return func(*Evaluation) bool { return false }
	}
	return func(e *Evaluation) bool { return wrong[ConfigKey(e.Config)] }
}

// KeepWrongAnswers keeps, of each configuration found wrong (FoundWrong), its last
// wrong_answer evaluation alone, where it stands, and drops its other evaluations: its
// successes, which count nowhere as a success, and its earlier failures. A format that
// holds one result per configuration (a Kernel Tuner cache) then writes it once, as the
// failure it is. It returns how many successes it dropped and how many evaluations in all.
func (r *Recording) KeepWrongAnswers() (successes, dropped int) {
	last := map[string]int{}
	for i := range r.Evaluations {
		if e := &r.Evaluations[i]; e.Status == WrongAnswer {
			last[ConfigKey(e.Config)] = i
		}
	}
	if len(last) == 0 {
		return 0, 0
	}
	kept := r.Evaluations[:0] // (kept is never ahead of i)
	for i := range r.Evaluations {
		e := &r.Evaluations[i]
		if at, wrong := last[ConfigKey(e.Config)]; wrong && at != i {
			if !e.Failed() {
				successes++
			}
			continue
		}
		kept = append(kept, *e)
	}
	dropped = len(r.Evaluations) - len(kept)
	clear(r.Evaluations[len(kept):])
	r.Evaluations = kept
	return successes, dropped
}

// ConfigKey is the text by which stores index a configuration: its values' String() joined
// by ",", which is also how Kernel Tuner keys its cache, so keys carry over between the
// two. Values of different kinds with the same text (the int 2 and a float 2) share a key.
func ConfigKey(config []space.Value) string {
	var b strings.Builder
	for i, v := range config {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(v.String())
	}
	return b.String()
}

// KeepLast keeps the last evaluation of each configuration and drops the earlier ones (a
// configuration measured again: a T4 or KTT file may list it twice), with a warning that
// names one of them; it returns how many it dropped. The last measurement supersedes the
// earlier ones, as the last of duplicate keys does in a Kernel Tuner cache (Python's json
// keeps it), so every command sees one result per configuration. A configuration with a
// wrong_answer measurement keeps its last wrong answer instead, however it ran later:
// found wrong once, it computes wrong answers on some input (FoundWrong), and a success
// after it would hide that.
func (r *Recording) KeepLast() int {
	last := make(map[string]int, len(r.Evaluations))
	var key []byte
	keyOf := func(e *Evaluation) string {
		key = key[:0]
		for _, v := range e.Config {
			key = append(key, byte(v.Kind()))
			key = append(key, v.String()...)
			key = append(key, 0)
		}
		return string(key)
	}
	wrongAt := map[string]int{} // the last wrong answer of each configuration found wrong
	for i := range r.Evaluations {
		k := keyOf(&r.Evaluations[i])
		last[k] = i
		if r.Evaluations[i].Status == WrongAnswer {
			wrongAt[k] = i
		}
	}
	if len(last) == len(r.Evaluations) {
		return 0
	}
	overruled := false // a wrong answer kept over a later measurement
	for k, i := range wrongAt {
		overruled = overruled || last[k] != i
		last[k] = i
	}
	kept := r.Evaluations[:0] // (kept is never ahead of i)
	cfg := ""                 // the first configuration measured again
	for i := range r.Evaluations {
		e := &r.Evaluations[i]
		if last[keyOf(e)] == i {
			kept = append(kept, *e)
			continue
		}
		if cfg == "" {
			cfg = r.configText(e)
		}
	}
	dropped := len(r.Evaluations) - len(kept)
	what := fmt.Sprintf("%d measurements are of configurations measured again later (e.g. %s); the last measurement of each is kept", dropped, cfg)
	if dropped == 1 {
		what = fmt.Sprintf("1 measurement is of a configuration measured again later (%s); the last measurement is kept", cfg)
	}
	if overruled {
		what += " (of a configuration with a wrong_answer measurement, its last wrong answer: found wrong once, it is no success)"
	}
	r.Warnings = append(r.Warnings, r.Source+": "+what)
	clear(r.Evaluations[len(kept):])
	r.Evaluations = kept
	return dropped
}

// RejectNonPositiveTimes turns successful evaluations whose objective is a time of zero or
// less into runtime errors, with a warning, and returns how many it turned: no kernel runs
// in no time, and such a value would make every fraction of the optimum meaningless (zero,
// or negative). Only a time objective is checked: other objectives may be zero or negative.
func (r *Recording) RejectNonPositiveTimes() int {
	if r.Maximize || !strings.EqualFold(r.Objective, "time") && r.Objective != "" {
		return 0
	}
	n := 0
	example := ""
	for i := range r.Evaluations {
		e := &r.Evaluations[i]
		if e.Status != OK || !(e.Objective <= 0) {
			continue
		}
		if n++; n == 1 {
			example = fmt.Sprintf("%v for %s", e.Objective, r.configText(e))
		}
		if e.Message == "" {
			e.Message = fmt.Sprintf("recorded time %v is not positive", e.Objective)
		}
		e.Status, e.Objective = RuntimeError, math.NaN()
	}
	switch {
	case n == 1:
		r.Warnings = append(r.Warnings, fmt.Sprintf("%s: 1 entry has a time of zero or less (%s); it is counted as a runtime error", r.Source, example))
	case n > 1:
		r.Warnings = append(r.Warnings, fmt.Sprintf("%s: %d entries have a time of zero or less (e.g. %s); they are counted as runtime errors",
			r.Source, n, example))
	}
	return n
}

// configText names an evaluation's configuration for a message: "bx=32, by=2", a string
// value quoted ("320" is no 320).
func (r *Recording) configText(e *Evaluation) string {
	parts := make([]string, len(e.Config))
	for p, v := range e.Config {
		name := fmt.Sprint(p)
		if p < len(r.Params) {
			name = r.Params[p].Name
		}
		val := v.String()
		if v.Kind() == space.String {
			val = strconv.Quote(val)
		}
		parts[p] = name + "=" + val
	}
	return strings.Join(parts, ", ")
}

// Counts returns the number of evaluations and of successful ones.
func (r *Recording) Counts() (total, ok int) {
	for i := range r.Evaluations {
		if !r.Evaluations[i].Failed() {
			ok++
		}
	}
	return len(r.Evaluations), ok
}

// HigherIsBetter guesses an observable's direction from its name, for files and metrics that
// do not record it (a spec's metric without maximize, so that tuning and importing agree):
// a rate is maximised, everything else (times, energies, power, costs per item) minimised.
// A rate is a name that has FLOPS, throughput or bandwidth in it, or ends in a per-second
// or per-watt unit: /s, /sec, /second, per_s, per_sec, per_second, "per second", bps or /W
// (GFLOP/s, GB/s, GFLOPS/W, gbps, items_per_second), case aside. ns/step, ms_per_sample
// and time_per_step are costs, not rates.
func HigherIsBetter(name string) bool {
	o := strings.ToLower(strings.TrimSpace(name))
	for _, word := range []string{"flops", "throughput", "bandwidth"} {
		if strings.Contains(o, word) {
			return true
		}
	}
	for _, unit := range []string{"/s", "/sec", "/second", "per_s", "per_sec", "per_second", "per second", "bps", "/w"} {
		if strings.HasSuffix(o, unit) {
			return true
		}
	}
	return false
}

// Speedup is how many times better best is than other: other / best, or best / other when
// larger is better. ok is false where no ratio means anything: a value that is not finite,
// or 0 or below (an objective of mixed sign, a count that may be 0).
func Speedup(maximize bool, best, other float64) (v float64, ok bool) {
	if !(best > 0 && other > 0) || math.IsInf(best, 0) || math.IsInf(other, 0) {
		return math.NaN(), false
	}
	if maximize {
		return best / other, true
	}
	return other / best, true
}

// Better says how best compares with other for a sentence about them: "2.50x better than",
// "as good as" for the same value, or "better than" where Speedup gives no ratio.
func Better(maximize bool, best, other float64) string {
	if best == other {
		return "as good as"
	}
	if v, ok := Speedup(maximize, best, other); ok {
		return strconv.FormatFloat(v, 'f', 2, 64) + "x better than"
	}
	return "better than"
}

// Unit is the unit an objective is in: ms for time (kernel times are recorded in
// milliseconds) and for no objective named, otherwise the metric's own name (GFLOP/s).
func Unit(objective string) string {
	if objective == "time" || objective == "" {
		return "ms"
	}
	return objective
}

// SameAs reports whether o holds what r holds: the same format, device, backend, kernel,
// problem size, objective, parameters, restrictions and evaluations (launches included)
// in the same order, all but where they were read from (Source) and what reading them
// noticed (Warnings). NaN equals NaN, a nil list or map equals an empty one and times are
// compared as instants, so a recording equals itself read back from the results store:
// importing a file again finds the run it made.
func (r *Recording) SameAs(o *Recording) bool {
	if r.Format != o.Format || r.Device != o.Device || r.Backend != o.Backend || r.Kernel != o.Kernel || r.ProblemSize != o.ProblemSize ||
		r.Objective != o.Objective || r.Maximize != o.Maximize || len(r.Params) != len(o.Params) ||
		!slices.Equal(r.Restrictions, o.Restrictions) || len(r.Evaluations) != len(o.Evaluations) {
		return false
	}
	for p := range r.Params {
		if r.Params[p].Name != o.Params[p].Name || !sameValues(r.Params[p].Values, o.Params[p].Values) {
			return false
		}
	}
	for k := range r.Evaluations {
		if !r.Evaluations[k].sameAs(&o.Evaluations[k]) {
			return false
		}
	}
	return true
}

// SameMeasurements reports whether o holds the measurements r holds, whatever format
// either came in: the same parameters and values, objective direction, and evaluations
// in the same order of the same configurations with the same status, objective and
// timing samples; the device, backend, kernel, problem size, objective name and
// restrictions agree where both say them (a problem size in any form ProblemSizeInts
// reads: Kernel Tuner's 20000000 is ktune's [20000000]). One run kept in two formats (a
// Kernel Tuner cache and its T4 export, which names no device and drops the metrics)
// holds the same measurements, though not the same recording (SameAs): a benchmark given
// both counts that run twice.
func (r *Recording) SameMeasurements(o *Recording) bool {
	agree := func(a, b string) bool { return a == "" || b == "" || a == b }
	if !agree(r.Device, o.Device) || !agree(r.Backend, o.Backend) || !agree(r.Kernel, o.Kernel) ||
		r.ProblemSize != "" && o.ProblemSize != "" && !sameProblemSize(r.ProblemSize, o.ProblemSize) ||
		!agree(r.Objective, o.Objective) || r.Maximize != o.Maximize || len(r.Params) != len(o.Params) ||
		len(r.Restrictions) > 0 && len(o.Restrictions) > 0 && !slices.Equal(r.Restrictions, o.Restrictions) ||
		len(r.Evaluations) != len(o.Evaluations) {
		return false
	}
	for p := range r.Params {
		if r.Params[p].Name != o.Params[p].Name || !sameValues(r.Params[p].Values, o.Params[p].Values) {
			return false
		}
	}
	for k := range r.Evaluations {
		e, f := &r.Evaluations[k], &o.Evaluations[k]
		if !sameValues(e.Config, f.Config) || e.Status != f.Status || !sameFloat(e.Objective, f.Objective) ||
			!slices.EqualFunc(e.Samples, f.Samples, sameFloat) {
			return false
		}
	}
	return true
}

func (e *Evaluation) sameAs(o *Evaluation) bool {
	if !sameValues(e.Config, o.Config) || e.Status != o.Status || e.Message != o.Message || e.Warnings != o.Warnings ||
		!e.Time.Equal(o.Time) || !SameLaunch(e.Launch, o.Launch) || e.SampleRuns() != o.SampleRuns() ||
		!sameFloat(e.Objective, o.Objective) || !sameFloat(e.CompileMS, o.CompileMS) || !sameFloat(e.VerifyMS, o.VerifyMS) ||
		!sameFloat(e.BenchmarkMS, o.BenchmarkMS) || !sameFloat(e.FrameworkMS, o.FrameworkMS) || !sameFloat(e.StrategyMS, o.StrategyMS) ||
		!slices.EqualFunc(e.Samples, o.Samples, sameFloat) || len(e.Metrics) != len(o.Metrics) {
		return false
	}
	for k, v := range e.Metrics {
		if w, ok := o.Metrics[k]; !ok || !sameFloat(v, w) {
			return false
		}
	}
	return true
}

func sameValues(a, b []space.Value) bool {
	return slices.EqualFunc(a, b, func(v, w space.Value) bool { return v.Kind() == w.Kind() && v.Equal(w) })
}

// sameFloat is == with NaN equal to NaN.
func sameFloat(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }
