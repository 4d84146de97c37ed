package runner

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/device/hostc"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/spec"
)

// Data is an application's own data for one run of a configuration (RunWith): the
// contents of arrays and the values of scalars, by argument name. A value is either raw
// little-endian bytes of the argument's type ([]byte), or a typed Go slice or value that
// is converted by the argument's type: []float32 for float32, []float64 for float64,
// []int32 for int32 and so on, []uint16 (IEEE 754 binary16 bits) for float16; a scalar
// may be given as a Go value of its type (float32(2), int32(7)) or as a slice of one
// element. Arguments left out keep what the spec gives them (its fill, its value).
type Data map[string]any

// DataError is data a caller gave that do not fit the spec's argument: an unknown
// name, a wrong type, a wrong length. The configuration is not to blame.
type DataError struct {
	Arg string // the argument's name
	Msg string
}

// Error names the argument and what is wrong with its data.
func (e *DataError) Error() string { return "argument " + e.Arg + ": " + e.Msg }

// RunError is the failure of a configuration run on a caller's data (RunWith): it did
// not compile, exceeded a device limit, or failed at run time. Status classifies it as an
// evaluation's would be.
type RunError struct {
	Status result.Status
	Err    error
}

// Error says what failed.
func (e *RunError) Error() string { return e.Status.String() + ": " + e.Err.Error() }

// Unwrap returns why it failed.
func (e *RunError) Unwrap() error { return e.Err }

// Outcome is one run of a configuration on a caller's data.
type Outcome struct {
	// Outputs holds the contents of every output array after the run, by argument name,
	// as little-endian bytes of its type. They are the caller's: the runner keeps no
	// reference to them.
	Outputs map[string][]byte
	// KernelMS is the run's time as the device measured it (a sequence of launches timed
	// as one), without compilation or data transfers.
	KernelMS float64
	// CompileMS is the time spent compiling the configuration for this run; 0 when it
	// was compiled already (RunWith keeps the last few it compiled).
	CompileMS float64
	// ChangedInputs says which inputs the run changed, as verification says it (see
	// RunCheckedWith); "" when it changed none, or when they were not read back (RunWith).
	ChangedInputs string
}

// appPrograms is how many compiled configurations RunWith keeps: a dynamic tuner
// alternates between the configuration it tries and the one it checks it against.
const appPrograms = 4

// appProgram is a configuration RunWith compiled, kept for its next runs.
type appProgram struct {
	idx  int // the configuration's index in the space
	prog *program
}

// RunWith runs configuration c once on data, the caller's arguments, and returns the
// contents of the outputs and the run's time. Unlike Evaluate it neither verifies nor
// times repeated runs: one launch (or one run of the spec's launches) on the caller's
// data, as an application's own call of its kernel would be. Its buffers are its own,
// apart from those Evaluate keeps, so the two may be used in turn on one runner.
//
// The error is a *DataError when data do not fit the spec's arguments (for this
// configuration: an array's length may depend on it), a *RunError when the configuration
// failed, and the context's when it was cancelled before the run.
func (r *Runner) RunWith(ctx context.Context, c space.Config, data Data) (Outcome, error) {
	return r.runWith(ctx, c, data, false)
}

// RunCheckedWith is RunWith for a run whose outputs are judged (a dynamic tuner's tried
// configuration, a checked call): it also reads back each input the kernel must leave
// unchanged (spec.UnchangedInputs: neither output nor scratch) and compares it byte for
// byte with the data it was given, as verification does after a tuning run, saying in
// the Outcome's ChangedInputs which the kernel changed. The reading back costs a copy of
// every input from the device, which RunWith spares the calls that are not judged.
func (r *Runner) RunCheckedWith(ctx context.Context, c space.Config, data Data) (Outcome, error) {
	return r.runWith(ctx, c, data, true)
}

// runWith is RunWith; with checkInputs, RunCheckedWith.
func (r *Runner) runWith(ctx context.Context, c space.Config, data Data, checkInputs bool) (Outcome, error) {
	if err := ctx.Err(); err != nil {
		return Outcome{}, err
	}
	if r.lost != nil {
		return Outcome{}, &RunError{Status: result.RuntimeError, Err: r.lost}
	}
	values := r.sp.Values(c)
	inst, err := r.spec.Instance(values)
	if err != nil {
		return Outcome{}, &RunError{Status: result.RuntimeError, Err: err}
	}
	given, err := r.bindData(inst, data)
	if err != nil {
		return Outcome{}, err
	}
	if msg := r.limitViolation(inst); msg != "" {
		return Outcome{}, &RunError{Status: result.DeviceLimit, Err: errors.New(msg)}
	}
	if err := r.applySettings(values); err != nil {
		return Outcome{}, &RunError{Status: result.RuntimeError, Err: fmt.Errorf("device setting: %w", err)}
	}
	var out Outcome
	t0 := time.Now()
	prog, err := r.appProgram(ctx, c, inst)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return Outcome{}, ctxErr
		}
		return Outcome{}, &RunError{Status: compileStatus(err), Err: err}
	}
	if prog.compiled {
		out.CompileMS = ms(time.Since(t0))
	}
	args, bufs, err := r.appArguments(inst, given)
	if err != nil {
		return Outcome{}, &RunError{Status: r.failure(err, result.RuntimeError), Err: err}
	}
	d, binding, err := prog.prog.run(ctx, args)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return Outcome{}, ctxErr
		}
		return Outcome{}, &RunError{Status: r.failure(err, classify(err)), Err: r.spec.ArgumentError(err)}
	}
	if err := prog.prog.checkOverruns(args); err != nil {
		return Outcome{}, &RunError{Status: r.failure(err, classify(err)), Err: r.spec.ArgumentError(err)}
	}
	out.KernelMS = ms(d)
	out.Outputs = map[string][]byte{}
	named := bound(bufs, binding)
	for i, a := range inst.Args {
		if a.Kind != spec.ArgArray || !a.Output {
			continue
		}
		b := make([]byte, a.Bytes)
		if err := named[i].Read(b); err != nil {
			return Outcome{}, &RunError{Status: r.failure(err, result.RuntimeError), Err: fmt.Errorf("reading output %s: %w", a.Name, err)}
		}
		out.Outputs[a.Name] = b
	}
	if checkInputs {
		changed, err := r.changedInputs(inst, named, given)
		if err != nil {
			return Outcome{}, &RunError{Status: r.failure(err, result.RuntimeError), Err: err}
		}
		out.ChangedInputs = changed
	}
	return out, nil
}

// compiledProgram is RunWith's program for a configuration, and whether this call
// compiled it.
type compiledProgram struct {
	prog     *program
	compiled bool
}

// appProgram returns c's program, compiled now or kept from an earlier RunWith.
func (r *Runner) appProgram(ctx context.Context, c space.Config, inst *spec.Instance) (compiledProgram, error) {
	idx, ok := r.sp.Index(c)
	if ok {
		for i, p := range r.appProgs {
			if p.idx == idx {
				// the most recently used last, so that eviction takes the oldest
				r.appProgs = append(slices.Delete(r.appProgs, i, i+1), p)
				return compiledProgram{prog: p.prog}, nil
			}
		}
	}
	prog, err := r.compileProgram(ctx, r.dev, inst)
	if err != nil {
		return compiledProgram{}, err
	}
	if err := prog.checkDeclared(r); err != nil {
		prog.release()
		return compiledProgram{}, err
	}
	if ok {
		if len(r.appProgs) == appPrograms {
			r.appProgs[0].prog.release()
			r.appProgs = slices.Delete(r.appProgs, 0, 1)
		}
		r.appProgs = append(r.appProgs, appProgram{idx: idx, prog: prog})
	}
	return compiledProgram{prog: prog, compiled: true}, nil
}

// compileStatus classifies a compilation's failure as Evaluate does.
func compileStatus(err error) result.Status {
	var le *device.LimitError
	if errors.As(err, &le) {
		return result.DeviceLimit
	}
	return result.CompileError
}

// Encoded returns data with each value converted to the little-endian bytes of its
// argument's type, as RunWith converts it: data that several configurations run on (a
// dynamic tuner's tried configuration and its judge) are converted once. A name that is
// no argument of the spec and a value that does not convert are left as given, for
// RunWith to report.
func (r *Runner) Encoded(data Data) Data {
	out := make(Data, len(data))
	for name, v := range data {
		out[name] = v
		if _, raw := v.([]byte); raw {
			continue
		}
		i := slices.IndexFunc(r.spec.Arguments, func(a spec.Argument) bool { return a.Name == name })
		if i < 0 || r.spec.Arguments[i].Kind == spec.ArgLocal {
			continue
		}
		if b, err := encode(r.spec.Arguments[i].Type, v); err == nil {
			out[name] = b
		}
	}
	return out
}

// bindData checks data against inst's arguments and returns each given argument's
// bytes by index.
func (r *Runner) bindData(inst *spec.Instance, data Data) (map[int][]byte, error) {
	given := make(map[int][]byte, len(data))
	for name, v := range data {
		i := slices.IndexFunc(inst.Args, func(a spec.ArgInstance) bool { return a.Name == name })
		if i < 0 {
			names := make([]string, 0, len(inst.Args))
			for _, a := range inst.Args {
				if a.Kind != spec.ArgLocal {
					names = append(names, a.Name)
				}
			}
			sort.Strings(names)
			return nil, &DataError{Arg: name, Msg: "the spec has no argument of this name; it has " + strings.Join(names, ", ")}
		}
		a := inst.Args[i]
		if a.Kind == spec.ArgLocal {
			return nil, &DataError{Arg: name, Msg: "local memory has no contents to give"}
		}
		b, err := encode(a.Type, v)
		if err != nil {
			return nil, &DataError{Arg: name, Msg: err.Error()}
		}
		size := elemSize(a.Type)
		if len(b)%size != 0 {
			return nil, &DataError{Arg: name, Msg: fmt.Sprintf("%d bytes are not a whole number of %s elements (%d bytes each)", len(b), a.Type, size)}
		}
		if n := len(b) / size; n != a.Length {
			what := "array"
			if a.Kind == spec.ArgScalar {
				what = "scalar"
			}
			return nil, &DataError{Arg: name, Msg: fmt.Sprintf("got %d %s elements; the %s has %d for this configuration", n, a.Type, what, a.Length)}
		}
		given[i] = b
	}
	return given, nil
}

// appArguments returns the kernel arguments of inst with the caller's data where given,
// the spec's elsewhere. Array buffers are kept between calls (appBufs) and written
// before every run: an output the caller did not give starts from the spec's fill, not
// from what the previous run left in it.
func (r *Runner) appArguments(inst *spec.Instance, given map[int][]byte) ([]device.Arg, []device.Buffer, error) {
	args := make([]device.Arg, len(inst.Args))
	bufs := make([]device.Buffer, len(inst.Args))
	for i, a := range inst.Args {
		data, have := given[i]
		switch a.Kind {
		case spec.ArgScalar:
			if !have {
				data = a.Scalar
			}
			args[i] = device.Arg{Scalar: data}
		case spec.ArgLocal:
			args[i] = device.Arg{Local: a.Bytes}
		default:
			if !have {
				var err error
				if data, err = r.input(i, a.Length); err != nil {
					return nil, nil, err
				}
			}
			if a.Kind == spec.ArgConstant {
				args[i] = device.Arg{Symbol: a.Name, Scalar: data}
				continue
			}
			buf, err := keptBuffer(r.dev, r.appBufs, i, a, data)
			if err != nil {
				return nil, nil, err
			}
			bufs[i], args[i] = buf, device.Arg{Buffer: buf}
		}
	}
	return args, bufs, nil
}

// releaseApp releases what RunWith keeps: its compiled configurations and buffers.
func (r *Runner) releaseApp() {
	for _, p := range r.appProgs {
		p.prog.release()
	}
	r.appProgs = nil
	if r.appRef != nil {
		r.appRef.Release()
		r.appRef = nil
	}
	for k, b := range r.appHostBufs {
		b.Release()
		delete(r.appHostBufs, k)
	}
	if r.appHost != nil {
		r.appHost.Close()
		r.appHost = nil
	}
	for k, b := range r.appBufs {
		b.Release()
		delete(r.appBufs, k)
	}
}

// keptBuffer returns the buffer pool keeps on dev for argument i (a) at its length,
// allocated where pool has none (the argument's buffer of an earlier length is released
// first), with data written to it: RunWith's buffers on the kernel's device and
// RunReferenceWith's on the host, kept from call to call.
func keptBuffer(dev device.Device, pool map[[2]int]device.Buffer, i int, a spec.ArgInstance, data []byte) (device.Buffer, error) {
	key := [2]int{i, a.Bytes}
	if buf, ok := pool[key]; ok {
		if err := buf.Write(data); err != nil {
			return nil, fmt.Errorf("argument %s: copying to the device: %w", a.Name, err)
		}
		return buf, nil
	}
	for k, old := range pool { // an earlier length of the argument
		if k[0] == i {
			old.Release()
			delete(pool, k)
		}
	}
	buf, err := dev.Alloc(max(a.Bytes, 1))
	if err != nil {
		return nil, fmt.Errorf("argument %s: allocating %d bytes: %w", a.Name, a.Bytes, err)
	}
	pool[key] = buf
	if err := buf.Write(data); err != nil {
		return nil, fmt.Errorf("argument %s: copying to the device: %w", a.Name, err)
	}
	return buf, nil
}

// KnownGood is the configuration whose results a dynamic tuner trusts: the one the
// spec's reference runs at (its verification config, else its default_config, else the
// space's first configuration), which `ktune tune` verifies every other against.
func (r *Runner) KnownGood() space.Config {
	c, err := r.sp.ConfigOf(r.referenceValues())
	if err != nil || !r.sp.Contains(c) {
		return r.sp.At(0, nil)
	}
	return c
}

// OwnReference reports whether the spec's verification names a reference kernel of its
// own that runs on the kernel's device. A C or C++ reference on the host, expected
// outputs from files, and the tuned kernel at the reference configuration are not.
func (r *Runner) OwnReference() bool {
	_, ok := r.spec.ReferenceSource()
	return ok && !r.spec.HostReference()
}

// CanRunReferenceWith reports whether RunReferenceWith runs the spec's reference on a
// caller's data: a reference kernel of its own on the kernel's device (OwnReference), or
// a C or C++ one on the host (spec.HostReference). Expected outputs from .npy files are
// not: they are fixed data, the outputs of the spec's own inputs, and cannot say what
// other inputs should give; nor is the tuned kernel at the reference configuration.
func (r *Runner) CanRunReferenceWith() bool {
	_, ok := r.spec.ReferenceSource()
	return ok
}

// RunReferenceWith runs the spec's reference (CanRunReferenceWith) once on data, the
// caller's arguments, as RunWith runs a configuration: at the reference configuration's
// definitions and the reference's own launch. A reference kernel on the kernel's device
// runs on RunWith's buffers (written before every run); a C or C++ one on the host C
// backend, opened beside the kernel's device on the first call and kept, with buffers of
// its own. Its Outputs are the verification's compared outputs only (what the reference
// computes), for CompareWithReference. It is compiled on the first call and kept. The
// errors are RunWith's: a *DataError for data that do not fit, a *RunError when the
// reference does not compile or fails (the spec's fault, not a configuration's; a host
// reference also when the host C backend cannot be opened), the context's when cancelled.
func (r *Runner) RunReferenceWith(ctx context.Context, data Data) (Outcome, error) {
	if !r.CanRunReferenceWith() {
		return Outcome{}, fmt.Errorf("spec %s: verification names no reference kernel to run on the caller's data; call RunReferenceWith only where CanRunReferenceWith says so", r.spec.File)
	}
	if err := ctx.Err(); err != nil {
		return Outcome{}, err
	}
	if r.lost != nil {
		return Outcome{}, &RunError{Status: result.RuntimeError, Err: r.lost}
	}
	rk := r.spec.Verification.Kernel
	what := "the reference kernel " + rk.Name
	if r.spec.HostReference() {
		what = hostReferenceName(rk)
	}
	inst, err := r.spec.ReferenceInstance(r.referenceValues())
	if err != nil {
		return Outcome{}, &RunError{Status: result.RuntimeError, Err: fmt.Errorf("%s: reference configuration: %w", what, err)}
	}
	given, err := r.bindData(inst, data)
	if err != nil {
		return Outcome{}, err
	}
	if r.spec.HostReference() {
		return r.hostReferenceWith(ctx, inst, given, what)
	}
	var out Outcome
	if r.appRef == nil {
		t0 := time.Now()
		src, _ := r.spec.ReferenceSource()
		src.Defines = inst.Defines
		k, err := r.compile(ctx, src, rk)
		if err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil {
				return Outcome{}, ctxErr
			}
			return Outcome{}, &RunError{Status: compileStatus(err), Err: compileFailure(what, err)}
		}
		if err := r.checkDeclared(k, true); err != nil {
			k.Release()
			return Outcome{}, &RunError{Status: result.CompileError, Err: err}
		}
		r.appRef = k
		out.CompileMS = ms(time.Since(t0))
	}
	args, bufs, err := r.appArguments(inst, given)
	if err != nil {
		return Outcome{}, &RunError{Status: r.failure(err, result.RuntimeError), Err: err}
	}
	d, err := r.appRef.Run(ctx, inst.Launch, r.spec.ReferenceArgs(args))
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return Outcome{}, ctxErr
		}
		return Outcome{}, &RunError{Status: r.failure(err, classify(err)), Err: fmt.Errorf("running %s: %w", what, r.spec.ReferenceArgumentError(err))}
	}
	out.KernelMS = ms(d)
	if out.Outputs, err = r.readReferenceOutputs(inst, bufs); err != nil {
		return Outcome{}, &RunError{Status: r.failure(err, result.RuntimeError), Err: err}
	}
	return out, nil
}

// hostReferenceWith is RunReferenceWith of a C or C++ reference (what names it), on the
// host C backend, on inst's arguments with the caller's bytes where given (by index),
// the spec's elsewhere. The host device is the runner's own, not the kernel's: its
// failures are not the kernel device's (Runner.failure is not told).
func (r *Runner) hostReferenceWith(ctx context.Context, inst *spec.Instance, given map[int][]byte, what string) (Outcome, error) {
	var out Outcome
	if r.appRef == nil {
		t0 := time.Now()
		if r.appHost == nil {
			b, ok := device.Lookup(hostc.Name)
			if !ok {
				return Outcome{}, &RunError{Status: result.RuntimeError, Err: fmt.Errorf("%s runs on the host C backend, which this program does not register (blank-import github.com/ktune/ktune/device/all)", what)}
			}
			host, err := b.Open(ctx, 0)
			if err != nil {
				if ctxErr := ctx.Err(); ctxErr != nil {
					return Outcome{}, ctxErr
				}
				return Outcome{}, &RunError{Status: result.RuntimeError, Err: fmt.Errorf("%s runs on the host C backend: %w", what, err)}
			}
			r.appHost = host
		}
		src, _ := r.spec.ReferenceSource()
		src.Defines = inst.Defines
		k, err := compileOn(ctx, r.appHost, src, r.spec.Verification.Kernel)
		if err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil {
				return Outcome{}, ctxErr
			}
			return Outcome{}, &RunError{Status: compileStatus(err), Err: compileFailure(what, err)}
		}
		r.appRef = k
		out.CompileMS = ms(time.Since(t0))
	}
	if r.appHostBufs == nil {
		r.appHostBufs = map[[2]int]device.Buffer{}
	}
	args := make([]device.Arg, len(inst.Args))
	bufs := make([]device.Buffer, len(inst.Args))
	for i, a := range inst.Args {
		data, have := given[i]
		switch a.Kind {
		case spec.ArgScalar:
			if !have {
				data = a.Scalar
			}
			args[i] = device.Arg{Scalar: data}
		case spec.ArgArray, spec.ArgConstant:
			// constant memory too: the reference reads it through a pointer
			if !have {
				var err error
				if data, err = r.input(i, a.Length); err != nil {
					return Outcome{}, &RunError{Status: result.RuntimeError, Err: err}
				}
			}
			buf, err := keptBuffer(r.appHost, r.appHostBufs, i, a, data)
			if err != nil {
				return Outcome{}, &RunError{Status: result.RuntimeError, Err: fmt.Errorf("%s, on the host: %w", what, err)}
			}
			bufs[i], args[i] = buf, device.Arg{Buffer: buf}
		}
		// local memory has no meaning on the host: the spec leaves it out of the
		// reference's arguments
	}
	d, err := r.appRef.Run(ctx, inst.Launch, r.spec.ReferenceArgs(args))
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return Outcome{}, ctxErr
		}
		return Outcome{}, &RunError{Status: classify(err), Err: fmt.Errorf("running %s: %w", what, r.spec.ReferenceArgumentError(err))}
	}
	out.KernelMS = ms(d)
	if out.Outputs, err = r.readReferenceOutputs(inst, bufs); err != nil {
		return Outcome{}, &RunError{Status: result.RuntimeError, Err: err}
	}
	return out, nil
}

// readReferenceOutputs reads the verification's compared outputs of a reference run on
// bufs (by argument index), by name.
func (r *Runner) readReferenceOutputs(inst *spec.Instance, bufs []device.Buffer) (map[string][]byte, error) {
	outputs := map[string][]byte{}
	for _, i := range r.spec.Verification.Outputs {
		a := inst.Args[i]
		b := make([]byte, a.Bytes)
		if err := bufs[i].Read(b); err != nil {
			return nil, fmt.Errorf("reading the reference output %s: %w", a.Name, err)
		}
		outputs[a.Name] = b
	}
	return outputs, nil
}

// CompareWithReference is CompareOutputs against want, the outputs of the reference
// kernel of the spec's own (RunReferenceWith): only the verification's compared outputs
// are judged, each by its check, as offline tuning's verification judges them.
func (r *Runner) CompareWithReference(ctx context.Context, c space.Config, got, want map[string][]byte) (string, error) {
	return r.compareOutputs(ctx, c, got, want, true)
}

// CompareOutputs compares the outputs of two runs of configuration c's instance on the
// same data, got against want (Outcome.Outputs), as the spec's verification compares an
// output with its reference: each compared output by its check (a verification function
// included: it is compiled for the host C backend the first time, and called as a tuning
// run calls it), every other output, and every output of a spec without verification, by
// allclose within the default tolerances. It returns "" when they agree, else what
// differs; the error is a verification function's that cannot be built or called (the
// outputs are then not judged), or the context's.
func (r *Runner) CompareOutputs(ctx context.Context, c space.Config, got, want map[string][]byte) (string, error) {
	return r.compareOutputs(ctx, c, got, want, false)
}

// compareOutputs is CompareOutputs; with verifiedOnly, the outputs the verification
// does not compare are left alone.
func (r *Runner) compareOutputs(ctx context.Context, c space.Config, got, want map[string][]byte, verifiedOnly bool) (string, error) {
	inst, err := r.spec.Instance(r.sp.Values(c))
	if err != nil {
		return err.Error(), nil
	}
	v := r.spec.Verification
	var problems []string
	for i, a := range inst.Args {
		if a.Kind != spec.ArgArray || !a.Output {
			continue
		}
		if verifiedOnly && (v == nil || !slices.Contains(v.Outputs, i)) {
			continue
		}
		g, w := got[a.Name], want[a.Name]
		if len(g) != len(w) {
			problems = append(problems, fmt.Sprintf("output %s has %d bytes, the known-good run's %d", a.Name, len(g), len(w)))
			continue
		}
		chk := spec.Check{Method: spec.MethodAllclose, Atol: spec.DefaultAtol, Rtol: spec.DefaultRtol}
		if a.Type == "float16" {
			chk.Atol, chk.Rtol = spec.DefaultHalfAtol, spec.DefaultHalfRtol
		}
		if v != nil {
			if j := slices.Index(v.Outputs, i); j >= 0 {
				chk = v.Check(j)
			} else {
				chk.Atol, chk.Rtol = v.Tolerance(a.Type)
			}
		}
		if chk.Method == spec.MethodFunction && chk.Function != nil {
			gr, wr, name, msg := inRange(a, g, w, chk)
			if msg == "" {
				if msg, err = r.callFunction(ctx, func(string) {}, i, a, gr, wr, chk, name); err != nil {
					return "", err
				}
			}
			if msg != "" {
				problems = append(problems, msg)
			}
			continue
		}
		if msg := compare(a, g, w, chk); msg != "" {
			problems = append(problems, msg)
		}
	}
	return strings.Join(problems, "; "), nil
}

// encode converts a caller's value for an argument of element type typ to its
// little-endian bytes.
func encode(typ string, v any) ([]byte, error) {
	wrong := func() error {
		return fmt.Errorf("got %T for an argument of type %s; give []byte (raw little-endian) or %s (a scalar also as one value)", v, typ, goType(typ))
	}
	// a Go value is a slice of one element, named as given when it is the wrong type
	one := func(x any) ([]byte, error) {
		b, err := encode(typ, x)
		if err != nil {
			return nil, wrong()
		}
		return b, nil
	}
	switch x := v.(type) {
	case nil:
		return nil, errors.New("got nil")
	case []byte:
		return x, nil
	case []int8:
		return put(typ, "int8", x, 1, func(b []byte, e int8) { b[0] = byte(e) }, wrong)
	case int8:
		return one([]int8{x})
	case uint8:
		return one([]byte{x})
	case []int16:
		return put(typ, "int16", x, 2, func(b []byte, e int16) { binary.LittleEndian.PutUint16(b, uint16(e)) }, wrong)
	case int16:
		return one([]int16{x})
	case []uint16:
		if typ != "uint16" && typ != "float16" {
			return nil, wrong()
		}
		return put(typ, typ, x, 2, binary.LittleEndian.PutUint16, wrong)
	case uint16:
		return one([]uint16{x})
	case []int32:
		return put(typ, "int32", x, 4, func(b []byte, e int32) { binary.LittleEndian.PutUint32(b, uint32(e)) }, wrong)
	case int32:
		return one([]int32{x})
	case []uint32:
		return put(typ, "uint32", x, 4, binary.LittleEndian.PutUint32, wrong)
	case uint32:
		return one([]uint32{x})
	case []int64:
		return put(typ, "int64", x, 8, func(b []byte, e int64) { binary.LittleEndian.PutUint64(b, uint64(e)) }, wrong)
	case int64:
		return one([]int64{x})
	case []uint64:
		return put(typ, "uint64", x, 8, binary.LittleEndian.PutUint64, wrong)
	case uint64:
		return one([]uint64{x})
	case []float32:
		return put(typ, "float32", x, 4, func(b []byte, e float32) { binary.LittleEndian.PutUint32(b, math.Float32bits(e)) }, wrong)
	case float32:
		return one([]float32{x})
	case []float64:
		return put(typ, "float64", x, 8, func(b []byte, e float64) { binary.LittleEndian.PutUint64(b, math.Float64bits(e)) }, wrong)
	case float64:
		return one([]float64{x})
	}
	return nil, wrong()
}

// put writes xs, elements of Go type want, as bytes of size each, when the argument's
// type typ is want.
func put[T any](typ, want string, xs []T, size int, write func([]byte, T), wrong func() error) ([]byte, error) {
	if typ != want {
		return nil, wrong()
	}
	b := make([]byte, len(xs)*size)
	for i, x := range xs {
		write(b[i*size:], x)
	}
	return b, nil
}

// goType names the Go slice that holds elements of type typ.
func goType(typ string) string {
	if typ == "float16" {
		return "[]uint16 (binary16 bits)"
	}
	return "[]" + typ
}
