package runner

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/device/hostc"
	"github.com/ktune/ktune/spec"
)

// hostReference computes the expected outputs with a C or C++ reference of an OpenCL or
// CUDA kernel (spec.HostReference): once, on the host C backend, opened beside the
// kernel's device for it and closed after, from the inputs the kernel gets (the same
// generated data), at the reference configuration's definitions.
func (r *Runner) hostReference(ctx context.Context, phase func(string)) *reference {
	ref := &reference{outputs: map[int][]byte{}}
	rk := r.spec.Verification.Kernel
	what := hostReferenceName(rk)
	inst, err := r.spec.ReferenceInstance(r.referenceValues())
	if err != nil {
		ref.err = fmt.Errorf("reference configuration: %w", err)
		return ref
	}
	b, ok := device.Lookup(hostc.Name)
	if !ok {
		ref.err = fmt.Errorf("%s runs on the host C backend, which this program does not register (blank-import github.com/ktune/ktune/device/all)", what)
		return ref
	}
	host, err := b.Open(ctx, 0)
	if err != nil {
		ref.err = fmt.Errorf("%s runs on the host C backend: %w", what, err)
		return ref
	}
	defer host.Close()
	src, _ := r.spec.ReferenceSource()
	src.Defines = inst.Defines
	k, err := compileOn(ctx, host, src, rk)
	if err != nil {
		ref.err = compileFailure(what, err)
		return ref
	}
	defer k.Release()
	args := make([]device.Arg, len(inst.Args))
	bufs := make([]device.Buffer, len(inst.Args))
	defer func() {
		for _, b := range bufs {
			if b != nil {
				b.Release()
			}
		}
	}()
	for i, a := range inst.Args {
		switch a.Kind {
		case spec.ArgScalar:
			args[i] = device.Arg{Scalar: a.Scalar}
		case spec.ArgArray, spec.ArgConstant:
			// constant memory too: the reference reads it through a pointer
			data, err := r.input(i, a.Length)
			if err != nil {
				ref.err = err
				return ref
			}
			buf, err := host.Alloc(max(a.Bytes, 1))
			if err != nil {
				ref.err = fmt.Errorf("%s: argument %s: allocating %d bytes on the host: %w", what, a.Name, a.Bytes, err)
				return ref
			}
			bufs[i] = buf
			if err := buf.Write(data); err != nil {
				ref.err = fmt.Errorf("%s: argument %s: %w", what, a.Name, err)
				return ref
			}
			args[i] = device.Arg{Buffer: buf}
		}
		// local memory has no meaning on the host: the spec leaves it out of the
		// reference's arguments
	}
	ref.outputs, ref.err = r.runReference(inst, bufs, phase, func() ([]device.Buffer, error) {
		if _, err := k.Run(ctx, inst.Launch, r.spec.ReferenceArgs(args)); err != nil {
			return nil, fmt.Errorf("running %s: %w", what, r.spec.ReferenceArgumentError(err))
		}
		return bufs, nil
	})
	return ref
}

// hostReferenceName names a C or C++ reference rk in messages: "the C reference
// axpy_ref (axpy_ref.c)".
func hostReferenceName(rk *spec.Kernel) string {
	what := fmt.Sprintf("the %s reference %s", languageName(rk.Language), rk.Name)
	if len(rk.Files) > 0 {
		what += " (" + filepath.Base(rk.Files[0]) + ")"
	}
	return what
}

// languageName is a host language as people write it.
func languageName(lang string) string {
	if lang == "c++" {
		return "C++"
	}
	return "C"
}
