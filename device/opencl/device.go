package opencl

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/expr"
)

// errClosed is returned by a device, kernel or buffer used after its release.
var errClosed = errors.New("opencl: device closed or object released")

// clDevice is an opened device: a context holding one device and an in-order command queue
// with profiling enabled. It tracks what it allocates so that Close releases everything.
type clDevice struct {
	cl             *api
	info           device.Info
	platform, id   uintptr
	context, queue uintptr
	kernels        map[*kernel]struct{}
	buffers        map[*buffer]struct{}
	allocs         uint64 // buffers allocated, each with its own canary
	baseAlign      int    // bytes to which a sub-buffer's origin is aligned; 0: no sub-buffers
	// maxConstant is the largest __constant buffer argument (CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE)
	// and maxConstantArgs how many a kernel may take (CL_DEVICE_MAX_CONSTANT_ARGS); 0 where
	// the runtime does not say.
	maxConstant     int64
	maxConstantArgs int
	closed          bool
}

// openDevice creates the context and the profiling queue of a located device.
func openDevice(cl *api, loc located) (*clDevice, error) {
	props := [3]uintptr{clContextPlatform, loc.platform, 0}
	devs := [1]uintptr{loc.device}
	var errcode int32
	ctx := cl.CreateContext(unsafe.Pointer(&props[0]), 1, unsafe.Pointer(&devs[0]), 0, 0, &errcode)
	if err := check("clCreateContext", errcode); err != nil {
		return nil, fmt.Errorf("opencl: open %s: %w", loc.info.Name, err)
	}
	// clCreateCommandQueue is deprecated since OpenCL 2.0 but present in every runtime,
	// while clCreateCommandQueueWithProperties is missing from 1.x ones.
	queue := cl.CreateCommandQueue(ctx, loc.device, clQueueProfilingEnable, &errcode)
	if err := check("clCreateCommandQueue", errcode); err != nil {
		cl.ReleaseContext(ctx)
		return nil, fmt.Errorf("opencl: open %s: %w", loc.info.Name, err)
	}
	// A buffer's canary before its data needs a sub-buffer at an aligned origin (see
	// buffer); without either, buffers go without one.
	baseAlign := 0
	if bits, err := infoValue[uint32](cl.deviceInfo(loc.device), clDeviceMemBaseAddrAlign); err == nil && bits >= 8 && cl.CreateSubBuffer != nil {
		baseAlign = int(bits / 8)
	}
	get := cl.deviceInfo(loc.device)
	maxConstant, _ := infoValue[uint64](get, clDeviceMaxConstantBufferSize)
	maxConstantArgs, _ := infoValue[uint32](get, clDeviceMaxConstantArgs)
	return &clDevice{
		cl:              cl,
		baseAlign:       baseAlign,
		maxConstant:     int64(maxConstant),
		maxConstantArgs: int(maxConstantArgs),
		info:            loc.info,
		platform:        loc.platform,
		id:              loc.device,
		context:         ctx,
		queue:           queue,
		kernels:         map[*kernel]struct{}{},
		buffers:         map[*buffer]struct{}{},
	}, nil
}

// Info describes the device.
func (d *clDevice) Info() device.Info {
	info := d.info
	info.Extra = maps.Clone(d.info.Extra)
	return info
}

// Compile builds src.Code for the device and creates the kernel src.Kernel. A program the
// compiler rejects, or one without that kernel, gives a *device.CompileError with the
// build log.
func (d *clDevice) Compile(ctx context.Context, src device.Source) (device.Kernel, error) {
	if src.Kernel == "" {
		return nil, errors.New("opencl: no kernel name given")
	}
	ks, _, err := d.build(ctx, src, []device.Function{{Name: src.Kernel, Params: src.Params}})
	if err != nil {
		return nil, err
	}
	return ks[0], nil
}

var _ device.MultiCompiler = (*clDevice)(nil)

// CompileFunctions implements device.MultiCompiler: one program, built once, and a
// kernel (clCreateKernel) for each function; the program is released with the last of
// them.
func (d *clDevice) CompileFunctions(ctx context.Context, src device.Source, fns []device.Function) ([]device.Kernel, error) {
	ks, failed, err := d.build(ctx, src, fns)
	if err != nil && failed >= 0 {
		return nil, &device.FunctionError{Index: failed, Err: err}
	}
	return ks, err
}

// build builds src.Code into one program and creates a kernel for each of fns. A
// function the program lacks gives its index with the error; a failure of the build -1.
func (d *clDevice) build(ctx context.Context, src device.Source, fns []device.Function) ([]device.Kernel, int, error) {
	if d.closed {
		return nil, -1, errClosed
	}
	if err := ctx.Err(); err != nil {
		return nil, -1, err
	}
	if src.Language != "" && src.Language != "opencl" {
		return nil, -1, fmt.Errorf("opencl: cannot compile %s source", src.Language)
	}
	if len(fns) == 0 {
		return nil, -1, errors.New("opencl: no kernel name given")
	}
	for i, f := range fns {
		if f.Name == "" {
			return nil, i, errors.New("opencl: no kernel name given")
		}
	}
	if src.Code == "" {
		return nil, -1, errors.New("opencl: empty source")
	}
	what := fns[0].Name // for messages about the build
	opts, err := buildOptions(src)
	if err != nil {
		return nil, -1, fmt.Errorf("opencl: compile %s: %w", what, err)
	}
	defines, err := defineLines(src)
	if err != nil {
		return nil, -1, fmt.Errorf("opencl: compile %s: %w", what, err)
	}
	if d.keepsArgInfo() && !slices.Contains(strings.Fields(opts), argInfoOption) {
		opts = strings.TrimSpace(opts + " " + argInfoOption)
	}

	// The lengths let the runtime read the source without a terminating NUL; both arrays
	// and the text stay alive until the call returns, and the runtime copies the source.
	code := defines + src.Code
	strs := [1]*byte{unsafe.StringData(code)}
	lengths := [1]uintptr{uintptr(len(code))}
	var errcode int32
	prog := d.cl.CreateProgramWithSource(d.context, 1, unsafe.Pointer(&strs[0]), unsafe.Pointer(&lengths[0]), &errcode)
	runtime.KeepAlive(code)
	if err := check("clCreateProgramWithSource", errcode); err != nil {
		return nil, -1, fmt.Errorf("opencl: compile %s: %w", what, err)
	}

	st := d.cl.BuildProgram(prog, 1, unsafe.Pointer(&d.id), opts, 0, 0)
	if st != 0 {
		buildLog, _ := infoString(d.cl.buildInfo(prog, d.id), clProgramBuildLog)
		d.cl.ReleaseProgram(prog)
		err := check("clBuildProgram", st)
		switch Status(st) {
		case statusBuildProgramFailure, statusInvalidBuildOptions:
			buildLog = strings.TrimSpace(buildLog)
			if buildLog == "" && Status(st) == statusInvalidBuildOptions {
				buildLog = "invalid build options: " + opts
			}
			if note := lineNotes(code, buildLog); note != "" {
				buildLog += "\n" + note
			}
			return nil, -1, &device.CompileError{Log: buildLog, Err: err}
		}
		return nil, -1, fmt.Errorf("opencl: compile %s: %w", what, err)
	}
	// A successful build's log holds the compiler's warnings, where it has any.
	log, _ := infoString(d.cl.buildInfo(prog, d.id), clProgramBuildLog)
	warnings := strings.TrimSpace(log)
	if note := lineNotes(code, warnings); note != "" && warnings != "" {
		warnings += "\n" + note
	}

	shared := &program{handle: prog}
	var made []*kernel
	fail := func(i int, err error) ([]device.Kernel, int, error) {
		// the last kernel released releases the program
		for _, k := range made {
			k.Release()
		}
		if len(made) == 0 {
			d.cl.ReleaseProgram(prog)
		}
		return nil, i, err
	}
	out := make([]device.Kernel, len(fns))
	for i, f := range fns {
		h := d.cl.CreateKernel(prog, f.Name, &errcode)
		if errcode != 0 {
			err := check("clCreateKernel", errcode)
			if Status(errcode) == statusInvalidKernelName {
				names, _ := infoString(d.cl.programInfo(prog), clProgramKernelNames)
				return fail(i, &device.CompileError{Log: noKernelNamed(f.Name, names), Err: err})
			}
			return fail(i, fmt.Errorf("opencl: compile %s: %w", f.Name, err))
		}
		k, err := newKernel(d, f.Name, shared, h)
		if err != nil {
			d.cl.ReleaseKernel(h)
			return fail(i, fmt.Errorf("opencl: compile %s: %w", f.Name, err))
		}
		shared.refs++
		k.params, k.warnings = f.Params, warnings
		d.kernels[k] = struct{}{}
		made = append(made, k)
		out[i] = k
	}
	return out, -1, nil
}

// program is a built program and how many of the device's kernels still use it: it is
// released with the last.
type program struct {
	handle uintptr
	refs   int
}

// argInfoOption asks the compiler to keep each kernel parameter's name, type and address
// space for clGetKernelArgInfo, which Declared reads. It is metadata beside the code: the
// code generated is the same. Every build of the device gets it, so that a program
// compiled ahead of time (a pre-compiler filling PoCL's cache) and the one measured are
// built with the same options and share the cache's entry.
const argInfoOption = "-cl-kernel-arg-info"

// keepsArgInfo reports whether the device's compiler takes argInfoOption: OpenCL C 1.2 and
// later (an OpenCL 1.1 compiler would reject the option), with a library that has
// clGetKernelArgInfo to read what it keeps.
func (d *clDevice) keepsArgInfo() bool {
	if d.cl.GetKernelArgInfo == nil {
		return false
	}
	// "OpenCL C <major>.<minor> <vendor-specific information>"
	version, ok := strings.CutPrefix(d.info.Extra["opencl_c_version"], "OpenCL C ")
	if !ok {
		return false
	}
	number, _, _ := strings.Cut(strings.TrimSpace(version), " ")
	major, minor, _ := strings.Cut(number, ".")
	maj, err1 := strconv.Atoi(major)
	mnr, err2 := strconv.Atoi(minor)
	return err1 == nil && err2 == nil && (maj > 1 || maj == 1 && mnr >= 2)
}

// Alloc creates a read-write buffer of n bytes, between up to device.GuardBytes bytes of
// canary on either side on the device (before the data, when the device's alignment
// allows), which a kernel's first launch must leave as they are (see buffer and
// kernel.Run). The runtime may defer the allocation to the buffer's first use, so running
// out of device memory can also show up there.
func (d *clDevice) Alloc(n int) (device.Buffer, error) {
	if d.closed {
		return nil, errClosed
	}
	if n < 0 {
		return nil, fmt.Errorf("opencl: cannot allocate %d bytes", n)
	}
	if limit := d.info.MaxAllocBytes; limit > 0 && int64(n) > limit {
		return nil, &device.LimitError{
			What:  fmt.Sprintf("buffer of %d bytes exceeds the device's largest allocation of %d bytes", n, limit),
			Limit: limit, Want: int64(n),
		}
	}
	front, slack := 0, device.GuardBytes
	if a := d.baseAlign; a > 0 && a <= device.GuardBytes {
		front = (device.GuardBytes + a - 1) / a * a
	}
	if limit := d.info.MaxAllocBytes; limit > 0 && int64(front+n+slack) > limit {
		// the largest buffers go with less canary, or none: the tail first
		slack = max(int(limit)-front-n, 0)
		if int64(front+n) > limit {
			front = (int(limit) - n) / d.baseAlign * d.baseAlign
		}
	}
	var errcode int32
	// OpenCL has no buffer of 0 bytes; an argument of no elements still gets an address,
	// as on the other backends, from a byte that nothing transfers to.
	mem := d.cl.CreateBuffer(d.context, clMemReadWrite, uintptr(max(front+n+slack, front+1)), nil, &errcode)
	if err := check("clCreateBuffer", errcode); err != nil {
		return nil, fmt.Errorf("opencl: allocate %d bytes: %w", n, err)
	}
	b := &buffer{dev: d, mem: mem, data: mem, Guard: device.Guard{Front: front, Size: n, Slack: slack, Canary: device.NewCanary(d.allocs)}}
	d.allocs++
	d.buffers[b] = struct{}{}
	if front > 0 {
		region := [2]uintptr{uintptr(front), uintptr(max(n, 1))}
		sub := d.cl.CreateSubBuffer(mem, clMemReadWrite, clBufferCreateTypeRegion, unsafe.Pointer(&region), &errcode)
		if err := check("clCreateSubBuffer", errcode); err != nil {
			b.Release()
			return nil, fmt.Errorf("opencl: allocate %d bytes: %w", n, err)
		}
		b.data = sub
	}
	if err := b.Fill(true, true, b.writeAt); err != nil {
		b.Release()
		return nil, fmt.Errorf("opencl: allocate %d bytes: %w", n, err)
	}
	return b, nil
}

// Close waits for queued work, then releases every kernel and buffer still held, the
// queue and the context. Closing twice is harmless.
func (d *clDevice) Close() error {
	if d.closed {
		return nil
	}
	errs := []error{check("clFinish", d.cl.Finish(d.queue))}
	for k := range d.kernels {
		k.Release()
	}
	for b := range d.buffers {
		b.Release()
	}
	errs = append(errs,
		check("clReleaseCommandQueue", d.cl.ReleaseCommandQueue(d.queue)),
		check("clReleaseContext", d.cl.ReleaseContext(d.context)))
	d.closed = true
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("opencl: close %s: %w", d.info.Name, err)
	}
	return nil
}

// noKernelNamed says that the program has no kernel named name, with the ones it has
// (kernels: the driver's list, separated by semicolons; "" when it gives none) and the one
// closest to the name.
func noKernelNamed(name, kernels string) string {
	msg := fmt.Sprintf("no kernel named %q in the program", name)
	var have []string
	for _, k := range strings.Split(kernels, ";") {
		if k = strings.TrimSpace(k); k != "" {
			have = append(have, k)
		}
	}
	if len(have) == 0 {
		return msg
	}
	if near := expr.Closest(name, have); near != "" {
		msg += fmt.Sprintf("; did you mean %q?", near)
	}
	return msg + " (its kernels: " + strings.Join(have, ", ") + ")"
}
