package runner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/spec"
)

// program is what a configuration runs: the spec's kernel launched once, or its launches
// (spec.Launches), each function compiled from its source with the configuration's
// definitions. One run of a program is one timed run.
type program struct {
	spec *spec.Spec
	dev  device.Device
	inst *spec.Instance
	// kernels holds the kernel, or each launch's function (a function launched twice with
	// the same arguments is compiled once and appears twice).
	kernels  []device.Kernel
	distinct []device.Kernel
	// stepLaunch is the launch of each step of the last run, for messages.
	stepLaunch []int
	steps      []device.Step
}

// launchError is the failure of one of a spec's launches: its message names the launch,
// and errors.As and errors.Is still find what failed (a device limit, a timeout).
type launchError struct {
	name string
	err  error
}

func (e *launchError) Error() string { return e.name + ": " + e.err.Error() }
func (e *launchError) Unwrap() error { return e.err }

// compileProgram compiles what inst runs on dev. The declared parameters of each kernel
// are checked against the arguments it takes.
func (r *Runner) compileProgram(ctx context.Context, dev device.Device, inst *spec.Instance) (*program, error) {
	p := &program{spec: r.spec, dev: dev, inst: inst}
	if len(r.spec.Launches) == 0 {
		src := r.src
		src.Defines = inst.Defines
		k, err := compileOn(ctx, dev, src, &r.spec.Kernel)
		if err != nil {
			return nil, err
		}
		p.kernels, p.distinct = []device.Kernel{k}, []device.Kernel{k}
		return p, nil
	}
	type key struct {
		fn   string
		own  int
		args string
	}
	built := map[key]device.Kernel{}
	for i, l := range r.spec.Launches {
		own := -1
		if l.OwnSource {
			own = i
		}
		kk := key{l.Kernel.Name, own, fmt.Sprint(l.Args)}
		if k, ok := built[kk]; ok {
			p.kernels = append(p.kernels, k)
			continue
		}
		src := r.spec.LaunchSource(i)
		src.Defines = inst.Defines
		k, err := compileOn(ctx, dev, src, l.Kernel)
		if err != nil {
			p.release()
			return nil, launchCompileError(r.spec.LaunchName(i), err)
		}
		built[kk] = k
		p.kernels = append(p.kernels, k)
		p.distinct = append(p.distinct, k)
	}
	return p, nil
}

// launchCompileError names the launch in a compilation's failure, keeping its kind.
func launchCompileError(name string, err error) error {
	var ce *device.CompileError
	var le *device.LimitError
	switch {
	case errors.As(err, &ce):
		return &device.CompileError{Log: name + ":\n" + compilerSaid(ce), Err: ce.Err}
	case errors.As(err, &le):
		return &device.LimitError{What: name + ": " + le.What, Limit: le.Limit, Want: le.Want}
	}
	return &launchError{name: name, err: err}
}

// checkDeclared compares the arguments of each kernel of p with the parameters it
// declares.
func (p *program) checkDeclared(r *Runner) error {
	if len(p.spec.Launches) == 0 {
		return r.checkDeclared(p.kernels[0], false)
	}
	for i, k := range p.kernels {
		dk, ok := k.(device.Declarer)
		if !ok {
			continue
		}
		params, detailed := dk.Declared()
		if err := p.spec.CheckLaunchDeclared(i, params, detailed); err != nil {
			return err
		}
	}
	return nil
}

// release releases the program's kernels.
func (p *program) release() {
	for _, k := range p.distinct {
		k.Release()
	}
}

// warnings are the compiler's warnings of the program's kernels, each kernel's named
// when there are several.
func (p *program) warnings() string {
	var out string
	for i, k := range p.kernels {
		w, ok := k.(device.Warner)
		if !ok || w.Warnings() == "" || slices.Index(p.kernels, k) < i {
			continue
		}
		if len(p.spec.Launches) > 0 {
			out += p.spec.LaunchName(i) + ":\n"
		}
		out += w.Warnings() + "\n"
	}
	return out
}

// run runs the program once with args (every argument, in the spec's order) and returns
// its time and the binding it leaves: binding[i] is the argument whose buffer argument i
// names after the run (swaps exchange them; the identity without swaps). Without launches
// the kernel runs once with the instance's launch; with them each launch runs its repeat
// count of times, its swap exchanging its two arrays between repetitions, and the
// sequence is timed as one (device.RunSequence).
func (p *program) run(ctx context.Context, args []device.Arg) (time.Duration, []int, error) {
	binding := make([]int, len(args))
	for i := range binding {
		binding[i] = i
	}
	if len(p.spec.Launches) == 0 {
		d, err := p.kernels[0].Run(ctx, p.inst.Launch, args)
		return d, binding, err
	}
	p.steps, p.stepLaunch = p.steps[:0], p.stepLaunch[:0]
	for i, l := range p.inst.Launches {
		for rep := range l.Repeat {
			if rep > 0 && l.Swap != nil {
				x, y := l.Swap[0], l.Swap[1]
				binding[x], binding[y] = binding[y], binding[x]
			}
			p.steps = append(p.steps, device.Step{Kernel: p.kernels[i], Launch: l.Launch, Args: p.spec.LaunchArgs(i, args, binding)})
			p.stepLaunch = append(p.stepLaunch, i)
		}
	}
	d, err := device.RunSequence(ctx, p.dev, p.steps)
	if err != nil {
		return 0, binding, p.stepError(err)
	}
	return d, binding, nil
}

// stepError names the launch of a failed step, and the argument it refused.
func (p *program) stepError(err error) error {
	var se *device.StepError
	if !errors.As(err, &se) || se.Index < 0 || se.Index >= len(p.stepLaunch) {
		return err
	}
	i := p.stepLaunch[se.Index]
	var ae *device.ArgError
	if errors.As(se.Err, &ae) {
		return p.spec.LaunchArgumentError(i, se.Err)
	}
	name := p.spec.LaunchName(i)
	if n := p.inst.Launches[i].Repeat; n > 1 {
		first := slices.Index(p.stepLaunch, i)
		name += fmt.Sprintf(", repetition %d of %d", se.Index-first+1, n)
	}
	return &launchError{name: name, err: se.Err}
}

// checkOverruns looks for writes outside the arrays after the timed runs, in each
// kernel's arguments (device.OverrunChecker).
func (p *program) checkOverruns(args []device.Arg) error {
	for i, k := range p.kernels {
		c, ok := k.(device.OverrunChecker)
		if !ok {
			continue
		}
		a := args
		if len(p.spec.Launches) > 0 {
			a = p.spec.LaunchArgs(i, args, nil)
		}
		if err := c.CheckOverruns(a); err != nil {
			if len(p.spec.Launches) > 0 {
				return &launchError{name: p.spec.LaunchName(i), err: err}
			}
			return err
		}
	}
	return nil
}

// bound returns bufs as binding names them: the buffer each argument names after a run.
func bound(bufs []device.Buffer, binding []int) []device.Buffer {
	out := make([]device.Buffer, len(bufs))
	for i, b := range binding {
		out[i] = bufs[b]
	}
	return out
}

// sequenceReference is computeReference for a spec with launches whose reference is
// the sequence itself at the reference configuration (what, for messages): it runs once
// on buffers of its own, and the outputs are read from the buffers their names hold
// after it.
func (r *Runner) sequenceReference(ctx context.Context, inst *spec.Instance, what string, phase func(string)) *reference {
	ref := &reference{outputs: map[int][]byte{}}
	prog, err := r.compileProgram(ctx, r.dev, inst)
	if err != nil {
		var ce *device.CompileError
		if errors.As(err, &ce) {
			err = fmt.Errorf("%s does not compile:\n%s", what, truncate(compilerSaid(ce), 4096))
		}
		ref.err = err
		return ref
	}
	defer prog.release()
	if err := prog.checkDeclared(r); err != nil {
		ref.err = err
		return ref
	}
	own := map[[2]int]*argBuffer{}
	defer func() {
		for _, b := range own {
			b.release()
		}
	}()
	args, bufs, err := r.argumentsIn(inst, own, false)
	if err != nil {
		ref.err = err
		return ref
	}
	if phase != nil {
		phase("compiled")
	}
	r.reportGuards(inst, bufs)
	_, binding, err := prog.run(ctx, args)
	if err != nil {
		ref.err = fmt.Errorf("running %s: %w", what, err)
		return ref
	}
	bufs = bound(bufs, binding)
	for _, i := range r.spec.Verification.Outputs {
		out := make([]byte, inst.Args[i].Bytes)
		if err := bufs[i].Read(out); err != nil {
			ref.err = fmt.Errorf("reading the reference output %s: %w", inst.Args[i].Name, err)
			return ref
		}
		ref.outputs[i] = out
	}
	return ref
}
