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
	// Launches whose functions come from one source share one build of it (per
	// configuration: the definitions are the configuration's); a function launched twice
	// with the same arguments is one kernel.
	type build struct {
		src      device.Source
		first    int // the first launch built from src, named when the build fails
		fns      []device.Function
		launches []int // the launch of each of fns, named when it fails
		slots    [][]int
	}
	var builds []*build
	bySource := map[string]*build{}
	p.kernels = make([]device.Kernel, len(r.spec.Launches))
	for i, l := range r.spec.Launches {
		src := r.spec.LaunchSource(i)
		src.Defines = inst.Defines
		if src.Code == "" && len(l.Kernel.Files) > 0 {
			return nil, launchCompileError(r.spec.LaunchName(i), fmt.Errorf("the kernel source %s was never read: spec.Parse reads no files; call the spec's ReadFiles after Parse (spec.Load does both)", l.Kernel.Files[0]))
		}
		skey := fmt.Sprintf("%q %q %q %q", src.File, src.Code, src.Language, src.Options)
		b := bySource[skey]
		if b == nil {
			b = &build{src: src, first: i}
			bySource[skey] = b
			builds = append(builds, b)
		}
		fn := device.Function{Name: src.Kernel, Params: src.Params}
		j := slices.IndexFunc(b.fns, func(f device.Function) bool { return f.Name == fn.Name && slices.Equal(f.Params, fn.Params) })
		if j < 0 {
			j = len(b.fns)
			b.fns, b.launches, b.slots = append(b.fns, fn), append(b.launches, i), append(b.slots, nil)
		}
		b.slots[j] = append(b.slots[j], i)
	}
	for _, b := range builds {
		ks, err := device.CompileFunctions(ctx, dev, b.src, b.fns)
		if err != nil {
			p.release()
			var fe *device.FunctionError
			if errors.As(err, &fe) && fe.Index >= 0 && fe.Index < len(b.launches) {
				return nil, launchCompileError(r.spec.LaunchName(b.launches[fe.Index]), fe.Err)
			}
			return nil, launchCompileError(r.spec.LaunchName(b.first), err)
		}
		for j, k := range ks {
			p.distinct = append(p.distinct, k)
			for _, i := range b.slots[j] {
				p.kernels[i] = k
			}
		}
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
	var seen []string
	for i, k := range p.kernels {
		w, ok := k.(device.Warner)
		// the functions of one build share its log
		if !ok || w.Warnings() == "" || slices.Contains(seen, w.Warnings()) {
			continue
		}
		seen = append(seen, w.Warnings())
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
		ref.err = compileFailure(what, err)
		return ref
	}
	defer prog.release()
	if err := prog.checkDeclared(r); err != nil {
		ref.err = err
		return ref
	}
	ref.outputs, ref.err = r.runOwnReference(inst, phase, func(args []device.Arg, bufs []device.Buffer) ([]device.Buffer, error) {
		_, binding, err := prog.run(ctx, args)
		if err != nil {
			return nil, fmt.Errorf("running %s: %w", what, err)
		}
		return bound(bufs, binding), nil
	})
	return ref
}
