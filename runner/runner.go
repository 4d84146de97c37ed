// Package runner measures one configuration of a kernel spec on an opened device: it
// compiles the kernel with the configuration's definitions, checks device limits, fills the
// arguments, runs it once to warm up and verify its outputs against the reference, then
// times the spec's iterations and derives the objective and metrics. Every outcome is a
// result.Evaluation with a status; nothing a kernel does makes Evaluate fail.
//
// A Runner runs inside a worker process (package worker), on the goroutine that opened the
// device.
package runner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime/debug"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/spec"
)

// Runner measures configurations of one spec on one device.
type Runner struct {
	spec    *spec.Spec
	sp      *space.Space
	dev     device.Device
	info    device.Info
	src     device.Source
	inputs  map[[2]int][]byte     // generated contents by (argument, length)
	bufs    map[[2]int]*argBuffer // device buffers by (argument, bytes), kept between evaluations
	outputs map[int][]byte        // host copies of the compared outputs, by argument, reused
	ref     *reference            // expected outputs, computed on first use
	lost    error                 // the fault that lost the device's context, if any
	fault   error                 // the machine's failure that spoiled the last evaluation (Fault)

	// readBack is the host copy that each input is read into after the verified run, to
	// check that the kernel left it unchanged (changedInputs); reused.
	readBack []byte

	settings []setting // device settings the spec tunes (parameters named like one)

	// functions holds the verification functions (spec.MethodFunction), compiled on first
	// use, and what they run with
	functions *verifyFunctions

	// guardReport, when set (ReportGuards), is given the guard map of the arrays a
	// launch uses, when it changes; lastGuards is the map it was given last.
	guardReport func(string)
	lastGuards  string

	// appProgs and appBufs are what RunWith keeps between calls: the configurations it
	// compiled last (the most recently used last) and its array buffers, apart from
	// Evaluate's.
	appProgs []appProgram
	appBufs  map[[2]int]device.Buffer
	// appRef is the reference kernel of the spec's own that RunReferenceWith compiled,
	// kept for its next runs; nil until then.
	appRef device.Kernel
	// appHost is the host C backend's device that RunReferenceWith opened for a C or C++
	// reference (spec.HostReference), with its compiled reference (appRef) and its
	// buffers by argument index and length in bytes; nil until then.
	appHost     device.Device
	appHostBufs map[[2]int]device.Buffer
}

// ReportGuards has the runner call report, before a launch, with the guard regions of
// the arrays it passes (device.Guarded) whenever they changed since the last report: a
// line per array, "name lo hi lo hi" in hexadecimal, the regions before and after its
// data. A process that watches this one for crashes reads a faulting address against
// them (worker.GuardMap) to name the array a kernel overran.
func (r *Runner) ReportGuards(report func(string)) { r.guardReport = report }

// reportGuards reports the guard map of inst's arrays, bufs, where it changed.
func (r *Runner) reportGuards(inst *spec.Instance, bufs []device.Buffer) {
	if r.guardReport == nil {
		return
	}
	var b strings.Builder
	for i, buf := range bufs {
		if g, ok := buf.(device.Guarded); ok {
			before, after := g.Guards()
			fmt.Fprintf(&b, "%s %x %x %x %x\n", inst.Args[i].Name, before[0], before[1], after[0], after[1])
		}
	}
	if m := b.String(); m != r.lastGuards {
		r.lastGuards = m
		r.guardReport(m)
	}
}

// argBuffer is the device buffer of one array argument, kept between evaluations.
type argBuffer struct {
	buf  device.Buffer
	name string // the argument's, for messages
	data []byte // its initial contents
	// pristine holds the initial contents on the device, where the device copies between
	// its buffers (device.Copier): a reset from it runs at the device's memory bandwidth
	// instead of the bus's. nil when there is none: the reset writes from the host.
	pristine device.Buffer
	tried    bool // a pristine copy was made, or could not be (not a Copier, no memory for it)
	// dirty is set when the buffer is handed to a launch, and cleared when it holds its
	// initial contents again.
	dirty bool
}

// release releases the buffer and its pristine copy.
func (b *argBuffer) release() {
	b.buf.Release()
	if b.pristine != nil {
		b.pristine.Release()
	}
}

// setting is a parameter that sets a device setting of its name.
type setting struct {
	param   int
	name    string
	applied space.Value // the value set last; zero when none is
	set     bool
}

// reference holds the expected contents of the compared outputs.
type reference struct {
	outputs map[int][]byte // by argument index
	err     error          // why there is no reference (then every configuration fails verification)
}

// New returns a runner of s's configurations (of space sp) on dev.
func New(s *spec.Spec, sp *space.Space, dev device.Device) *Runner {
	src := s.Source()
	src.Params = s.KernelParams()
	r := &Runner{spec: s, sp: sp, dev: dev, info: dev.Info(), src: src, inputs: map[[2]int][]byte{}, bufs: map[[2]int]*argBuffer{}, appBufs: map[[2]int]device.Buffer{},
		outputs: map[int][]byte{}, functions: &verifyFunctions{compiled: map[functionKey]*compiledFunction{},
			want: map[int]device.Buffer{}, got: map[int]device.Buffer{}}}
	for i, p := range s.Parameters {
		if slices.Contains(device.SettingNames, p.Name) {
			r.settings = append(r.settings, setting{param: i, name: p.Name})
		}
	}
	return r
}

// applySettings sets the device settings that configuration values ask for, when they
// differ from those set last. It never touches a setting the spec does not tune.
func (r *Runner) applySettings(values []space.Value) error {
	if len(r.settings) == 0 {
		return nil
	}
	sd, ok := r.dev.(device.Settable)
	for i := range r.settings {
		st := &r.settings[i]
		if !ok || !slices.Contains(sd.Settings(), st.name) {
			return fmt.Errorf("parameter %s asks to set a device setting that the %s device %s cannot set (NVIDIA GPUs through NVML can)", st.name, r.info.Backend, r.info.Name)
		}
		v := values[st.param]
		if st.set && v.Equal(st.applied) {
			continue
		}
		f := v.Float()
		if math.IsNaN(f) {
			return fmt.Errorf("parameter %s: %v is not a number", st.name, v)
		}
		if err := sd.Set(st.name, f); err != nil {
			st.set = false
			return err
		}
		st.applied, st.set = v, true
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// compile compiles src, kernel k of the spec, on the device. A kernel whose source files
// were never read (a spec made by spec.Parse, without its ReadFiles) has no code: it is
// refused with what to do, where the device said only that the source was empty.
func (r *Runner) compile(ctx context.Context, src device.Source, k *spec.Kernel) (device.Kernel, error) {
	return compileOn(ctx, r.dev, src, k)
}

// compileOn is compile on device dev.
func compileOn(ctx context.Context, dev device.Device, src device.Source, k *spec.Kernel) (device.Kernel, error) {
	if src.Code == "" && len(k.Files) > 0 {
		return nil, fmt.Errorf("the kernel source %s was never read: spec.Parse reads no files; call the spec's ReadFiles after Parse (spec.Load does both)", k.Files[0])
	}
	return dev.Compile(ctx, src)
}

// Compile only compiles c, so that a later Evaluate of c finds it in the compiler's cache;
// phase("compiled") is called when it goes on to run the kernel (see below).
func (r *Runner) Compile(ctx context.Context, c space.Config, phase func(string)) error {
	inst, err := r.spec.Instance(r.sp.Values(c))
	if err != nil {
		return err
	}
	if msg := r.limitViolation(inst); msg != "" {
		return nil
	}
	prog, err := r.compileProgram(ctx, r.dev, inst)
	if err != nil {
		return err
	}
	defer prog.release()
	if err := prog.checkDeclared(r); err != nil {
		return err
	}
	if r.info.Backend != "opencl" || r.info.Type != "cpu" {
		return nil
	}
	// OpenCL runtimes for CPUs such as PoCL generate the code for a work-group size at its
	// first launch: one work-group fills that cache too, so the measuring worker finds
	// both. It runs the kernel, which may hang: the caller's run time limit starts here.
	// (GPU drivers generate code when building; a launch there would only share the
	// device with the measuring worker's timed runs.)
	if phase != nil {
		phase("compiled")
	}
	// No pristine copies: this process never verifies what it runs, and its launch is one
	// work-group. Its arguments still start from their initial data, which decides how a
	// kernel whose work depends on it runs (and whether it hangs).
	args, _, err := r.argumentsIn(inst, r.bufs, false)
	if err != nil {
		return err
	}
	if len(r.spec.Launches) == 0 {
		one := inst.Launch
		one.Grid = device.Dim3{1, 1, 1}
		_, err = prog.kernels[0].Run(ctx, one, args)
		return r.spec.ArgumentError(err)
	}
	// each function at each of its launches' work-group sizes
	for i, l := range inst.Launches {
		one := l.Launch
		one.Grid = device.Dim3{1, 1, 1}
		if _, err := prog.kernels[i].Run(ctx, one, r.spec.LaunchArgs(i, args, nil)); err != nil {
			return &launchError{name: r.spec.LaunchName(i), err: r.spec.LaunchArgumentError(i, err)}
		}
	}
	return nil
}

// Evaluate measures configuration c; phase("compiled") is called when compilation is over
// and the kernel is about to run (the supervisor starts its run timer then), and
// phase("timing") before the timed runs (the supervisor pauses other device users then).
func (r *Runner) Evaluate(ctx context.Context, c space.Config, phase func(string)) result.Evaluation {
	if phase == nil {
		phase = func(string) {}
	}
	r.fault = nil
	start := time.Now()
	values := r.sp.Values(c)
	e := result.Evaluation{Config: values, Objective: math.NaN(), Time: start}
	fail := func(st result.Status, msg string) result.Evaluation {
		e.Status, e.Message = st, msg
		e.FrameworkMS = max(ms(time.Since(start))-e.CompileMS-e.VerifyMS-e.BenchmarkMS, 0)
		return e
	}
	inst, err := r.spec.Instance(values)
	if err != nil {
		return fail(result.RuntimeError, err.Error())
	}
	if msg := r.limitViolation(inst); msg != "" {
		return fail(result.DeviceLimit, msg)
	}
	if err := r.applySettings(values); err != nil {
		return fail(result.RuntimeError, "device setting: "+err.Error())
	}
	t0 := time.Now()
	prog, err := r.compileProgram(ctx, r.dev, inst)
	e.CompileMS = ms(time.Since(t0))
	if err != nil {
		var ce *device.CompileError
		var le *device.LimitError
		var env *device.EnvironmentError
		switch {
		case errors.As(err, &env):
			// A full compile cache, a compiler killed for memory: the configuration is
			// not to blame, and the evaluation is no result (Fault).
			r.fault = env
			return fail(result.CompileError, err.Error())
		case errors.As(err, &le):
			// The compiler found the kernel needs more than the device has.
			return fail(result.DeviceLimit, le.Error())
		case errors.As(err, &ce):
			return fail(result.CompileError, truncate(compilerSaid(ce), 8192))
		}
		return fail(r.failure(err, result.CompileError), err.Error())
	}
	defer prog.release()
	// Kept whatever happens next: a warning often explains a wrong answer.
	e.Warnings = truncate(prog.warnings(), MaxWarnings)
	if err := prog.checkDeclared(r); err != nil {
		return fail(result.RuntimeError, err.Error())
	}
	// The spec's timeout counts from here: the supervisor's run limit starts as it hears
	// of this phase.
	launched := time.Now()
	phase("compiled")
	args, bufs, err := r.arguments(inst)
	if err != nil {
		return fail(r.failure(err, result.RuntimeError), err.Error())
	}
	r.reportGuards(inst, bufs)
	// The first run warms up (code paths, caches, lazy allocation) and is the one verified.
	// Runtimes that generate code at the first launch (PoCL) spend that time here: it is
	// compilation, not framework overhead.
	t1 := time.Now()
	d, binding, err := prog.run(ctx, args)
	if err != nil {
		return fail(r.failure(err, classify(err)), r.spec.ArgumentError(err).Error())
	}
	e.CompileMS += max(ms(time.Since(t1))-ms(d), 0)
	warmup := ms(d)
	if r.spec.Verification != nil {
		t := time.Now()
		msg, err := r.verify(ctx, phase, inst, bound(bufs, binding))
		e.VerifyMS = ms(time.Since(t))
		if err != nil {
			return fail(r.failure(err, result.RuntimeError), err.Error())
		}
		if msg != "" {
			return fail(result.WrongAnswer, msg)
		}
	}
	n := max(r.spec.Iterations, 1)
	e.Samples = make([]float64, 0, n)
	phase("timing")
	// A freshly built kernel is not at its steady speed after one run: on PoCL its second
	// run took 1.7-2x and its third 1.15-1.3x the time of later ones. Short kernels run
	// twice more, untimed, before the timed runs; in a long one (settleUnder) the
	// difference is lost.
	settled := time.Now()
	for i := 0; i < settleRuns && warmup < ms(settleUnder); i++ {
		d, _, err := prog.run(ctx, args)
		if err != nil {
			return fail(r.failure(err, classify(err)), err.Error())
		}
		if ms(d) >= ms(settleUnder) {
			break
		}
	}
	warmup += ms(time.Since(settled))
	obs := r.observers()
	t := time.Now()
	for _, o := range obs {
		if err := o.Begin(); err != nil {
			return fail(result.RuntimeError, "observer: "+err.Error())
		}
	}
	// The observation window below counts from after every Begin, as an observer reports
	// energy only when its own observation, from its Begin, lasted the window: counted
	// from t, before a slow Begin (a loaded machine), the runs ended short of it and the
	// configuration failed for want of energy.
	observing := time.Now()
	// A kernel slow enough that all its runs would pass the timeout is timed over the runs
	// that fit, at least one, rather than killed with nothing measured: a run is left out
	// when one as long as the longest so far would end past the limit.
	limit := r.timedRunsEnd(launched)
	var longest time.Duration
	timingNote := ""
	timed := time.Now()
	for i := range n {
		if err := ctx.Err(); err != nil {
			return fail(result.RuntimeError, "cancelled: "+err.Error())
		}
		if i > 0 && !limit.IsZero() && time.Now().Add(longest+longest/4).After(limit) {
			timingNote = fmt.Sprintf("timed over %d of the spec's %d iterations: another run would have passed its timeout of %v", i, n, r.spec.Timeout)
			break
		}
		began := time.Now()
		d, _, err := prog.run(ctx, args)
		if err != nil {
			return fail(r.failure(err, classify(err)), err.Error())
		}
		longest = max(longest, time.Since(began))
		e.Samples = append(e.Samples, ms(d))
	}
	// A kernel whose runs are over in less than the spec's min_time runs on, in rounds of
	// iterations runs, until they have lasted min_time by the clock (launches included),
	// the cap of runs is reached, or another round would pass the timeout. The samples
	// stay iterations numbers: the runs are cut in as many batches of consecutive runs,
	// each sample its batch's statistic, so that the mean of the samples is that of every
	// run, their minimum every run's minimum (on PoCL the steadiest time of a kernel of
	// microseconds: a minimum of batch means moved 61-141% from run to run), and their
	// median the median of the batches' medians.
	runs := len(e.Samples)
	e.RunsPerSample = 1
	if mt := r.spec.MinTime; mt > 0 && timingNote == "" && time.Since(timed) < mt {
		short := ""
		for time.Since(timed) < mt {
			if len(e.Samples)+n > MaxTimedRuns {
				short = fmt.Sprintf("min_time not reached within the cap of %d runs", MaxTimedRuns)
				break
			}
			if !limit.IsZero() && time.Now().Add(time.Duration(n)*(longest+longest/4)).After(limit) {
				short = fmt.Sprintf("min_time not reached: another %d runs would have passed its timeout of %v", n, r.spec.Timeout)
				break
			}
			for range n {
				if err := ctx.Err(); err != nil {
					return fail(result.RuntimeError, "cancelled: "+err.Error())
				}
				began := time.Now()
				d, _, err := prog.run(ctx, args)
				if err != nil {
					return fail(r.failure(err, classify(err)), err.Error())
				}
				longest = max(longest, time.Since(began))
				e.Samples = append(e.Samples, ms(d))
			}
		}
		runs = len(e.Samples)
		switch {
		case runs > n:
			e.Samples = batchStatistics(r.spec.Statistic, e.Samples, n)
			e.RunsPerSample = runs / n
			timingNote = fmt.Sprintf("timed over %d runs for min_time %v: each of its %d samples is the %s of %d consecutive runs", runs, mt, n, r.spec.Statistic, runs/n)
			if short != "" {
				timingNote += " (" + short + ")"
			}
		case short != "":
			timingNote = fmt.Sprintf("timed over the spec's %d iterations alone: %s", n, short)
		}
	}
	// Energy and power need a stretch of runs long enough for the board's sensors: the
	// observation goes on, back to back, past the timed runs when the spec reads them.
	if window := r.observationWindow(obs); window > 0 {
		for time.Since(observing) < window {
			if err := ctx.Err(); err != nil {
				return fail(result.RuntimeError, "cancelled: "+err.Error())
			}
			if _, _, err := prog.run(ctx, args); err != nil {
				return fail(r.failure(err, classify(err)), err.Error())
			}
			runs++
		}
	}
	observed := map[string]float64{}
	for _, o := range obs {
		m, err := o.End(runs)
		if err != nil {
			return fail(result.RuntimeError, "observer: "+err.Error())
		}
		for k, v := range m {
			observed[k] = v
		}
	}
	// The first launch was checked for writes outside the arrays; one in a timed run
	// alone fails this configuration, not the next one to use the arrays.
	if err := prog.checkOverruns(args); err != nil {
		return fail(r.failure(err, classify(err)), r.spec.ArgumentError(err).Error()+" (in a timed run, not the first)")
	}
	// What the compiler decided, where the backend reports it (CUDA); a sequence's
	// kernels each decided their own.
	if attrs := prog.kernels[0].Attributes(); attrs != nil && len(r.spec.Launches) == 0 {
		if regs, ok := attrs["registers"]; ok {
			observed["registers"] = regs
			observed["shared_memory"] = attrs["local_mem_bytes"] + float64(inst.Launch.SharedBytes)
		}
	}
	// Kernel time includes the warm-up launch (on PoCL its device time also covers loading
	// the generated code) and the settling ones.
	e.BenchmarkMS = ms(time.Since(t)) + warmup
	timeMS := TimeMS(r.spec.Statistic, e.Samples)
	metrics, err := r.spec.MetricValues(values, timeMS, observed)
	objectiveName, _ := r.spec.Objective()
	var metricsErr *spec.MetricsError
	switch {
	case err == nil:
	case !errors.As(err, &metricsErr):
		return fail(result.RuntimeError, "metrics: "+err.Error())
	case metricsErr.Failed[objectiveName] != nil:
		return fail(result.RuntimeError, "metrics: "+err.Error())
	default:
		// A metric beside the objective that cannot be computed for this configuration
		// (1/(VW-1) at VW=1) costs it that metric, not its measurement: the evaluation
		// stays a success and says which it lacks.
		e.Message = MetricsLeftOut + err.Error()
	}
	for name, v := range observed {
		if _, isMetric := metrics[name]; !isMetric {
			metrics[name] = v
		}
	}
	if len(metrics) > 0 {
		e.Metrics = metrics
	}
	if timingNote != "" {
		if e.Message != "" {
			e.Message += "; "
		}
		e.Message += timingNote
	}
	e.Status = result.OK
	e.Objective = timeMS
	if name, _ := r.spec.Objective(); name != "time" && name != "" {
		// The time the metrics were computed from stays with them, as a Kernel Tuner
		// cache keeps "time" beside another objective: exports write it, and a time
		// recomputed from the samples with another statistic would disagree with them.
		metrics["time"] = timeMS
		e.Metrics = metrics
		v, ok := metrics[name]
		if !ok || math.IsNaN(v) {
			why := "could not be computed"
			if _, measured := observed[name]; !measured && slices.ContainsFunc(spec.Observables, func(o spec.Observable) bool { return o.Name == name }) {
				why = "is not measured by this device (" + r.info.Backend + ")"
			}
			return fail(result.RuntimeError, fmt.Sprintf("objective %q %s", name, why))
		}
		e.Objective = v
	}
	e.FrameworkMS = max(ms(time.Since(start))-e.CompileMS-e.VerifyMS-e.BenchmarkMS, 0)
	return e
}

// MaxWarnings bounds, in bytes, the compiler's warnings an evaluation keeps (truncate):
// pages of them say no more than their first lines, and every evaluation is stored.
const MaxWarnings = 4096

// settleRuns is how many untimed runs follow the warm-up before the timed runs, for
// kernels whose runs take under settleUnder.
const (
	settleRuns  = 2
	settleUnder = 10 * time.Millisecond
)

// MaxTimedRuns caps the timed runs of a configuration that runs on for the spec's min_time:
// rounds of iterations runs are made while they stay within it.
const MaxTimedRuns = 10000

// batchStatistics cuts runs, a multiple of n long, into n batches of consecutive runs and
// returns each batch's statistic (TimeMS).
func batchStatistics(statistic string, runs []float64, n int) []float64 {
	b := len(runs) / n
	out := make([]float64, n)
	for i := range out {
		out[i] = TimeMS(statistic, runs[i*b:(i+1)*b])
	}
	return out
}

// MetricsLeftOut opens the message of a successful evaluation that lacks metrics which
// could not be computed for its configuration; a note on its timed runs may follow.
const MetricsLeftOut = "metrics left out: "

// timedRunsEnd is when the timed runs of a kernel first launched at launched must be
// over, so that the spec's timeout does not kill it: the limit less a twentieth of it,
// for what follows the runs (the overrun check, the metrics, the answer). Zero when the
// spec has no timeout.
func (r *Runner) timedRunsEnd(launched time.Time) time.Time {
	if r.spec.Timeout <= 0 {
		return time.Time{}
	}
	return launched.Add(r.spec.Timeout - r.spec.Timeout/20)
}

// Fault returns the failure of the machine, not of the configuration, that spoiled the
// last Evaluate (a *device.EnvironmentError: the compile cache's folder is full, the
// compiler was killed for memory), or nil. That evaluation is no result: the configuration
// may well build once the cause is gone, so a caller stores nothing for it and stops
// (package worker does).
func (r *Runner) Fault() error { return r.fault }

// Broken returns the fault that lost the device's context, after which this process can
// run nothing more on it (a CUDA kernel's illegal address), or nil. Package worker then
// replaces the process.
func (r *Runner) Broken() error { return r.lost }

// failure is the status of an evaluation that ended with err: status, unless err lost the
// device's context, which the runner then remembers (Broken) and which is a runtime error
// whatever the step.
func (r *Runner) failure(err error, status result.Status) result.Status {
	if errors.Is(err, device.ErrDeviceLost) {
		if r.lost == nil {
			r.lost = err
		}
		if status != result.Timeout {
			status = result.RuntimeError
		}
	}
	return status
}

// observers returns the device's observers, none when it has none.
func (r *Runner) observers() []device.Observer {
	if o, ok := r.dev.(device.Observable); ok {
		return o.Observers()
	}
	return nil
}

// observationWindow is how long the observed runs must last: the longest observer window
// when the spec reads energy or power, else 0.
func (r *Runner) observationWindow(obs []device.Observer) time.Duration {
	needs := false
	for _, name := range r.spec.Observes() {
		if name == "energy" || name == "power" {
			needs = true
		}
	}
	var w time.Duration
	if needs {
		for _, o := range obs {
			w = max(w, o.Window())
		}
	}
	return w
}

// DeviceInfo is the device the runner measures on, as it was opened: the limits that
// limitViolation checks (worker.Describer).
func (r *Runner) DeviceInfo() device.Info { return r.info }

// limitViolation reports a launch the device cannot run, before anything is compiled.
func (r *Runner) limitViolation(inst *spec.Instance) string { return LimitViolation(r.info, inst) }

// LimitViolation says which limit of the device described by info a configuration's
// instance breaks, as its evaluation's device_limit message; "" when it breaks none that
// is known before compiling (the block size, overall and per dimension; the local memory
// of a block; an array over the largest buffer; the arrays together over the global
// memory, or on a CPU device half of it). Limits that only the compiled kernel knows (its
// own maximum work-group size, static local memory) are checked later.
func LimitViolation(info device.Info, inst *spec.Instance) string {
	if inst.Launches == nil {
		if msg := launchViolation(info, inst.Launch, inst.Args); msg != "" {
			return msg
		}
	}
	// A sequence's launches are checked each, with the local memory of the arguments
	// they take.
	for i, l := range inst.Launches {
		args := make([]spec.ArgInstance, len(l.Args))
		for j, k := range l.Args {
			args[j] = inst.Args[k]
		}
		if msg := launchViolation(info, l.Launch, args); msg != "" {
			return fmt.Sprintf("launches[%d] (%s): %s", i, l.Kernel, msg)
		}
	}
	return arraysViolation(info, inst.Args)
}

// launchViolation is LimitViolation's check of one launch, with args the arguments it
// takes: its block size and its local memory.
func launchViolation(info device.Info, launch device.Launch, args []spec.ArgInstance) string {
	b := launch.Block
	if info.MaxBlockSize > 0 && b.Count() > info.MaxBlockSize {
		return fmt.Sprintf("block size %d x %d x %d = %d exceeds the device's maximum of %d", b[0], b[1], b[2], b.Count(), info.MaxBlockSize)
	}
	for d := range 3 {
		if lim := info.MaxBlockDims[d]; lim > 0 && b[d] > lim {
			return fmt.Sprintf("block size %d in dimension %c exceeds the device's maximum of %d", b[d], "xyz"[d], lim)
		}
	}
	local := int64(launch.SharedBytes)
	var parts []string
	if launch.SharedBytes > 0 {
		parts = append(parts, fmt.Sprintf("shared_memory_bytes %d", launch.SharedBytes))
	}
	for _, a := range args {
		if a.Kind == spec.ArgLocal {
			local += int64(a.Bytes)
			parts = append(parts, fmt.Sprintf("argument %s: %d elements of %s, %d bytes", a.Name, a.Length, a.Type, a.Bytes))
		}
	}
	if info.LocalMemBytes > 0 && local > info.LocalMemBytes {
		return fmt.Sprintf("%d bytes of local memory per block (%s) exceed the device's %d", local, strings.Join(parts, "; "), info.LocalMemBytes)
	}
	return ""
}

// arraysViolation is LimitViolation's check of the arrays: each against the largest
// buffer, all together against the global memory.
func arraysViolation(info device.Info, args []spec.ArgInstance) string {
	// An array the device cannot hold would only be refused after compiling, and its
	// data, generated in this process first, could exhaust the machine's memory.
	var total int64
	var arrays []string
	for _, a := range args {
		if a.Kind != spec.ArgArray {
			continue
		}
		if info.MaxAllocBytes > 0 && int64(a.Bytes) > info.MaxAllocBytes {
			return fmt.Sprintf("argument %s: %d elements of %s (%d bytes) exceed the device's largest buffer of %d bytes",
				a.Name, a.Length, a.Type, a.Bytes, info.MaxAllocBytes)
		}
		total += int64(a.Bytes)
		arrays = append(arrays, fmt.Sprintf("%s %d", a.Name, a.Bytes))
	}
	// Arrays that each fit may still not fit together: a GPU would refuse one of them, a
	// CPU worker run out of memory after generating the data of the others. A CPU device's
	// memory is the host's, where the runner's copies of the arrays' initial data (which
	// reset them) take as much again.
	if info.GlobalMemBytes > 0 && total > info.GlobalMemBytes {
		return fmt.Sprintf("the arrays take %d bytes in all (%s), more than the device's global memory of %d bytes",
			total, strings.Join(arrays, ", "), info.GlobalMemBytes)
	}
	if info.Type == "cpu" && info.GlobalMemBytes > 0 && 2*total > info.GlobalMemBytes {
		return fmt.Sprintf("the arrays take %d bytes in all (%s), and twice that with ktune's copy of their initial data in the same memory, more than the CPU device's global memory of %d bytes",
			total, strings.Join(arrays, ", "), info.GlobalMemBytes)
	}
	return ""
}

func classify(err error) result.Status {
	var le *device.LimitError
	if errors.As(err, &le) {
		return result.DeviceLimit
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return result.Timeout
	}
	return result.RuntimeError
}

// compilerSaid is the message of a source the compiler rejected: its output, or, where
// it printed nothing, the failure the backend saw, so that the message is never empty and
// failures of different kinds do not read alike.
func compilerSaid(ce *device.CompileError) string {
	if strings.TrimSpace(ce.Log) != "" || ce.Err == nil {
		return ce.Log
	}
	return "the compiler failed and printed nothing: " + ce.Err.Error()
}

// truncate bounds a compiler's log s to about n bytes: the whole lines that fit, then
// "... (truncated)" and the log's last line, where compilers sum up and the OpenCL
// backend notes where a runtime that ignores #line puts its positions (when that line
// is not too long itself). A line longer than the rest is cut at a character's start.
func truncate(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	last := s[strings.LastIndexByte(s, '\n')+1:]
	if len(last) > n/2 {
		last = ""
	}
	head := s[:n-len(last)]
	if i := strings.LastIndexByte(head, '\n'); i > 0 {
		head = head[:i]
	} else {
		for len(head) > 0 && !utf8.RuneStart(s[len(head)]) {
			head = head[:len(head)-1]
		}
	}
	out := head + "\n... (truncated)"
	if last != "" {
		out += "\n" + last
	}
	return out
}

// input returns the generated contents of argument i at a length, generated once.
func (r *Runner) input(i, length int) ([]byte, error) {
	key := [2]int{i, length}
	if b, ok := r.inputs[key]; ok {
		return b, nil
	}
	b, err := r.spec.Generate(i, length)
	if err != nil {
		return nil, err
	}
	r.inputs[key] = b
	return b, nil
}

// arguments returns the kernel arguments of an instance; bufs[i] is argument i's buffer,
// nil for scalars and local memory. Device buffers live as long as the runner, and every
// array argument, input or output, is reset to its initial contents before each
// evaluation: a kernel that writes nothing cannot pass verification with what the
// previous configuration left in an output, and a kernel that changes an array in place
// (a scratch array; verification fails one that changes an input) sees the same data
// whatever configurations ran before it. In a worker the resets are mostly done by then,
// between requests (Idle).
func (r *Runner) arguments(inst *spec.Instance) ([]device.Arg, []device.Buffer, error) {
	return r.argumentsIn(inst, r.bufs, true)
}

// argumentsIn is arguments with the buffers kept in pool. With copies, an argument is
// reset by a device-side copy from a pristine copy of its initial contents, made at its
// first use where the device can copy between its buffers; otherwise (or when the device
// has no memory for the copy) it is written from the host. A buffer that Idle reset
// already is not reset again.
func (r *Runner) argumentsIn(inst *spec.Instance, pool map[[2]int]*argBuffer, copies bool) ([]device.Arg, []device.Buffer, error) {
	args := make([]device.Arg, len(inst.Args))
	bufs := make([]device.Buffer, len(inst.Args))
	var arrays []*argBuffer
	for i, a := range inst.Args {
		switch a.Kind {
		case spec.ArgScalar:
			args[i] = device.Arg{Scalar: a.Scalar}
		case spec.ArgLocal:
			args[i] = device.Arg{Local: a.Bytes}
		case spec.ArgConstant:
			data, err := r.input(i, a.Length)
			if err != nil {
				return nil, bufs, err
			}
			args[i] = device.Arg{Symbol: a.Name, Scalar: data}
		default:
			key := [2]int{i, a.Bytes}
			b, have := pool[key]
			if !have {
				// An argument whose length depends on the configuration keeps the buffer
				// and data of its latest length alone: those of earlier lengths, kept on,
				// would fill the device (and, on a CPU, the worker's memory) until a
				// configuration that fits alone failed for want of memory.
				r.forget(pool, i, a.Length)
				// The buffer first: an array larger than the device allows is refused by
				// it, before its data are generated in this process's memory (which an
				// array larger than the machine's ends with a fatal out-of-memory error).
				buf, err := r.dev.Alloc(max(a.Bytes, 1))
				if err != nil {
					return nil, bufs, fmt.Errorf("argument %s: allocating %d bytes: %w", a.Name, a.Bytes, err)
				}
				data, err := r.input(i, a.Length)
				if err != nil {
					buf.Release()
					return nil, bufs, err
				}
				// A fresh buffer's contents are unknown: dirty until written.
				b = &argBuffer{buf: buf, name: a.Name, data: data, dirty: true}
				pool[key] = b
			}
			arrays = append(arrays, b)
			bufs[i] = b.buf
			args[i] = device.Arg{Buffer: b.buf}
		}
	}
	// Every buffer the kernel uses is allocated before any pristine copy, so that on a
	// device short of memory it is a copy that is missing, not an argument.
	for _, b := range arrays {
		if b.dirty {
			if err := r.reset(b, copies); err != nil {
				return nil, bufs, err
			}
		}
		b.dirty = true
	}
	return args, bufs, nil
}

// forget releases argument i's buffers in pool, with their pristine copies, and its
// generated contents of lengths other than length.
// Their memory is collected at once, so that the next length's data reuse it rather than
// map more (which a worker's data limit counts) beside what the device allocates.
func (r *Runner) forget(pool map[[2]int]*argBuffer, i, length int) {
	freed := false
	for key, b := range pool {
		if key[0] == i {
			b.release()
			delete(pool, key)
			freed = true
		}
	}
	for key := range r.inputs {
		if key[0] == i && key[1] != length {
			delete(r.inputs, key)
			freed = true
		}
	}
	if freed {
		debug.FreeOSMemory()
	}
}

// reset gives buffer b its initial contents; with copies, it first makes b's pristine
// copy where it can.
func (r *Runner) reset(b *argBuffer, copies bool) error {
	if b.pristine != nil {
		if err := b.buf.(device.Copier).CopyFrom(b.pristine, len(b.data)); err != nil {
			return fmt.Errorf("argument %s: resetting it on the device: %w", b.name, err)
		}
		b.dirty = false
		return nil
	}
	if err := b.buf.Write(b.data); err != nil {
		return fmt.Errorf("argument %s: copying to the device: %w", b.name, err)
	}
	b.dirty = false
	if !copies || b.tried || len(b.data) == 0 {
		return nil
	}
	b.tried = true
	// A CPU device's memory is the host's, where a copy between buffers is no faster than
	// a write from the host and would take a third of the memory the arrays need (their
	// buffers and the host's data being the others), which a worker's limit counts.
	if _, ok := b.buf.(device.Copier); !ok || r.info.Type == "cpu" {
		return nil
	}
	// Without memory for the copy, the argument is reset from the host: a device that
	// allocates at a buffer's first use (NVIDIA's OpenCL) says so at the copy's write,
	// which then costs the configuration nothing, its own buffer being written already.
	p, err := r.dev.Alloc(len(b.data))
	if err != nil {
		return nil
	}
	if err := p.Write(b.data); err != nil {
		p.Release()
		return nil
	}
	b.pristine = p
	return nil
}

// Idle resets the buffers the last evaluation handed to its launches, so that the next
// one finds them ready (worker.Idler): the worker calls it after answering, while the
// tuner stores the result and picks the next configuration, so the resets cost no time
// of their own. A reset that fails here is tried again, and reported, at the buffer's
// next use.
func (r *Runner) Idle() {
	if r.lost != nil {
		return
	}
	for _, b := range r.bufs {
		if b.dirty {
			r.reset(b, false)
		}
	}
}

// Close releases the device buffers the runner keeps and returns the device settings it
// changed to what they were.
func (r *Runner) Close() {
	r.functions.close()
	r.releaseApp()
	for k, b := range r.bufs {
		b.release()
		delete(r.bufs, k)
	}
	changed := false
	for i := range r.settings {
		changed = changed || r.settings[i].set
		r.settings[i].set = false
	}
	if sd, ok := r.dev.(device.Settable); ok && changed {
		sd.ResetSettings()
	}
}

// TimeMS is the kernel time that a spec's statistic ("mean", "median" or "min") makes of
// an evaluation's timing samples, in ms as they are; NaN without samples.
func TimeMS(statistic string, samples []float64) float64 {
	if len(samples) == 0 {
		return math.NaN()
	}
	if statistic == "min" {
		return slices.Min(samples)
	}
	if statistic == "median" {
		s := slices.Clone(samples)
		slices.Sort(s)
		if len(s)%2 == 1 {
			return s[len(s)/2]
		}
		return (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	sum := 0.0
	for _, v := range samples {
		sum += v
	}
	return sum / float64(len(samples))
}

// verify compares the compared outputs after the warm-up run with the reference, and the
// inputs with the data they were given (changedInputs); it returns a description of the
// first mismatches and of the inputs the kernel changed, or "".
func (r *Runner) verify(ctx context.Context, phase func(string), inst *spec.Instance, bufs []device.Buffer) (string, error) {
	if r.ref == nil {
		r.ref = r.computeReference(ctx, nil)
	}
	if r.ref.err != nil {
		if env := new(device.EnvironmentError); errors.As(r.ref.err, &env) {
			// The machine's failure, not the reference's (a worker that replaced a
			// crashed one computes it here): no verdict, and computed again next time.
			r.fault, r.ref = env, nil
			return "", env
		}
		return "no reference to verify against: " + r.ref.err.Error(), nil
	}
	v := r.spec.Verification
	var problems []string
	for j, i := range v.Outputs {
		a := inst.Args[i]
		// The host copy of an output is kept for the next evaluation: a fresh one of tens
		// of megabytes costs more in page faults than the copy itself.
		got := r.outputs[i]
		if cap(got) < a.Bytes {
			got = make([]byte, a.Bytes)
			r.outputs[i] = got
		}
		got = got[:a.Bytes]
		if err := bufs[i].Read(got); err != nil {
			return "", fmt.Errorf("reading output %s: %w", a.Name, err)
		}
		want, ok := r.ref.outputs[i]
		if !ok {
			continue
		}
		c := v.Check(j)
		if len(got) != len(want) && !(c.End > 0 && min(len(got), len(want)) >= c.End*elemSize(a.Type)) {
			problems = append(problems, r.lengthMismatch(i, a, len(want)/elemSize(a.Type)))
			continue
		}
		if c.Method == spec.MethodFunction && c.Function != nil {
			g, w, name, msg := inRange(a, got, want, c)
			if msg == "" {
				var err error
				if msg, err = r.callFunction(ctx, phase, i, a, g, w, c, name); err != nil {
					if env := new(device.EnvironmentError); errors.As(err, &env) {
						r.fault = env // a full compile cache: no verdict on the configuration
					}
					return "", err
				}
			}
			if msg != "" {
				problems = append(problems, msg)
			}
			continue
		}
		if msg := compare(a, got, want, c); msg != "" {
			problems = append(problems, msg)
		}
	}
	changed, err := r.changedInputs(inst, bufs, nil)
	if err != nil {
		return "", err
	}
	if changed != "" {
		problems = append(problems, changed)
	}
	return strings.Join(problems, "; "), nil
}
