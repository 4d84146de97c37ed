package runner

import (
	"context"
	"errors"
	"fmt"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/spec"
)

// Reference computes the reference outputs now, as the first verification would, and
// compiles the verification functions (spec.MethodFunction), and says why there are no
// outputs or a function does not build (worker.Referencer): a spec without verification
// has nothing to compute.
func (r *Runner) Reference(ctx context.Context, phase func(string)) error {
	if r.spec.Verification == nil {
		return nil
	}
	if r.ref == nil {
		r.ref = r.computeReference(ctx, phase)
	}
	err := r.ref.err
	if env := new(device.EnvironmentError); errors.As(err, &env) {
		r.ref = nil // the machine's failure, not the reference's: computed again next time
	}
	if err == nil {
		err = r.prepareFunctions(ctx)
	}
	return err
}

// computeReference produces the expected outputs once: from .npy files, from a reference
// kernel (on the kernel's device, or a C or C++ one on the host: hostReference), or from
// the tuned kernel itself at the reference configuration (the spec's verification
// config, else its default_config, else the space's first configuration).
// phase (nil for none) is called with "compiled" before the reference kernel runs.
func (r *Runner) computeReference(ctx context.Context, phase func(string)) *reference {
	v := r.spec.Verification
	ref := &reference{outputs: map[int][]byte{}}
	if len(v.NPY) > 0 {
		for i, path := range v.NPY {
			a, err := spec.ReadNPYFile(path)
			if err != nil {
				ref.err = fmt.Errorf("reference for %s: %w", r.spec.Arguments[i].Name, err)
				return ref
			}
			ref.outputs[i] = a.Data
		}
		return ref
	}
	if r.spec.HostReference() {
		return r.hostReference(ctx, phase)
	}
	values := r.referenceValues()
	src := r.src
	what := "the kernel at the reference configuration " + formatValues(r, values)
	isRef, kernel := false, &r.spec.Kernel
	instance := r.spec.Instance
	if rs, ok := r.spec.ReferenceSource(); ok {
		src, isRef, kernel = rs, true, r.spec.Verification.Kernel
		what = "the reference kernel " + rs.Kernel
		instance = r.spec.ReferenceInstance // its own launch, where it has one
	}
	inst, err := instance(values)
	if err != nil {
		ref.err = fmt.Errorf("reference configuration: %w", err)
		return ref
	}
	if !isRef && len(r.spec.Launches) > 0 {
		return r.sequenceReference(ctx, inst, what, phase)
	}
	src.Defines = inst.Defines
	k, err := r.compile(ctx, src, kernel)
	if err != nil {
		ref.err = compileFailure(what, err)
		return ref
	}
	defer k.Release()
	if err := r.checkDeclared(k, isRef); err != nil {
		ref.err = err
		return ref
	}
	ref.outputs, ref.err = r.runOwnReference(inst, phase, func(args []device.Arg, bufs []device.Buffer) ([]device.Buffer, error) {
		argErr := r.spec.ArgumentError
		if isRef {
			args, argErr = r.spec.ReferenceArgs(args), r.spec.ReferenceArgumentError
		}
		if _, err := k.Run(ctx, inst.Launch, args); err != nil {
			return nil, fmt.Errorf("running %s: %w", what, argErr(err))
		}
		return bufs, nil
	})
	return ref
}

// compileFailure is err, the failure to compile what (a reference), with what the
// compiler said where it is a device.CompileError.
func compileFailure(what string, err error) error {
	var ce *device.CompileError
	if errors.As(err, &ce) {
		return fmt.Errorf("%s does not compile:\n%s", what, truncate(compilerSaid(ce), 4096))
	}
	return err
}

// runOwnReference is runReference on the device's buffers of the reference's own (sharing
// the tuned kernel's output buffers would overwrite the output about to be verified with
// the reference itself), freed once its outputs are read: run gets inst's arguments and
// the buffers that hold them.
func (r *Runner) runOwnReference(inst *spec.Instance, phase func(string), run func(args []device.Arg, bufs []device.Buffer) ([]device.Buffer, error)) (map[int][]byte, error) {
	own := map[[2]int]*argBuffer{}
	defer func() {
		for _, b := range own {
			b.release()
		}
	}()
	args, bufs, err := r.argumentsIn(inst, own, false)
	if err != nil {
		return nil, err
	}
	return r.runReference(inst, bufs, phase, func() ([]device.Buffer, error) { return run(args, bufs) })
}

// runReference runs a reference whose arguments are set up, in bufs (by argument index),
// with run, which returns the buffers that hold the arguments after it (a sequence of
// launches may leave an output in another buffer), and reads the verification's outputs
// from them. phase (nil for none) hears "compiled" before it runs.
func (r *Runner) runReference(inst *spec.Instance, bufs []device.Buffer, phase func(string), run func() ([]device.Buffer, error)) (map[int][]byte, error) {
	if phase != nil {
		phase("compiled")
	}
	// A reference that overruns an array crashes as a configuration would: the guard map
	// lets the crash message name the array.
	r.reportGuards(inst, bufs)
	bufs, err := run()
	if err != nil {
		return nil, err
	}
	outputs := map[int][]byte{}
	for _, i := range r.spec.Verification.Outputs {
		out := make([]byte, inst.Args[i].Bytes)
		if err := bufs[i].Read(out); err != nil {
			return nil, fmt.Errorf("reading the reference output %s: %w", inst.Args[i].Name, err)
		}
		outputs[i] = out
	}
	return outputs, nil
}

// referenceValues is the configuration the reference runs at: the spec's verification
// config, else its default_config, else the space's first configuration.
func (r *Runner) referenceValues() []space.Value {
	var values []space.Value
	if v := r.spec.Verification; v != nil {
		values = v.Config
	}
	if values == nil {
		values = r.spec.Default
	}
	if values == nil {
		values = r.sp.Values(r.sp.At(0, nil))
	}
	return values
}

// Check compares the spec's arguments with the parameters that the kernel declares, and
// the reference kernel where verification names one (worker.Checker), before anything is
// measured: a mismatch would fail every configuration, or worse, let each compute garbage
// from reinterpreted bytes. It compiles the kernel at the reference configuration (see
// referenceValues); a kernel that does not compile there is left for the evaluations and
// the reference to report, as is a backend that cannot say what its kernels declare.
func (r *Runner) Check(ctx context.Context) error {
	inst, err := r.spec.Instance(r.referenceValues())
	if err != nil {
		return nil
	}
	sources := []device.Source{r.src}
	defines := [][]device.Define{inst.Defines}
	isRef := []bool{false}
	if len(r.spec.Launches) > 0 {
		// each launch's function, against the arguments it takes
		sources, defines, isRef = nil, nil, nil
		prog, err := r.compileProgram(ctx, r.dev, inst)
		if err == nil {
			err = prog.checkDeclared(r)
			prog.release()
			if err != nil {
				return err
			}
		} else if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	// A reference on the host is left out: the host C backend cannot say what its
	// kernels declare.
	if rs, ok := r.spec.ReferenceSource(); ok && !r.spec.HostReference() {
		// the reference kernel as it will run: its own launch's sizes, its own defines
		if ri, err := r.spec.ReferenceInstance(r.referenceValues()); err == nil {
			sources = append(sources, rs)
			defines = append(defines, ri.Defines)
			isRef = append(isRef, true)
		}
	}
	for i, src := range sources {
		src.Defines = defines[i]
		k, err := r.dev.Compile(ctx, src)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			continue
		}
		err = r.checkDeclared(k, isRef[i])
		k.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// checkDeclared compares the spec's arguments with the parameters that kernel k (the
// reference kernel, with reference) declares, where its backend reports them. It runs at
// every compilation, since a kernel's parameter list may depend on the definitions of a
// configuration.
func (r *Runner) checkDeclared(k device.Kernel, reference bool) error {
	dk, ok := k.(device.Declarer)
	if !ok {
		return nil
	}
	params, detailed := dk.Declared()
	return r.spec.CheckDeclared(reference, params, detailed)
}

func formatValues(r *Runner, values []space.Value) string {
	c, err := r.sp.ConfigOf(values)
	if err != nil {
		return fmt.Sprint(values)
	}
	return r.sp.Format(c)
}
