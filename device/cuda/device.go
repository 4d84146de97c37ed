package cuda

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"unsafe"

	"github.com/ktune/ktune/device"
)

// errClosed is returned by a device, kernel or buffer used after its release.
var errClosed = errors.New("cuda: device closed or object released")

// cuDevice is an opened device: its primary context, current on the opening thread, and
// two events that time launches. It tracks what it allocates so that Close releases it.
type cuDevice struct {
	cu         *driverAPI
	rtc        *nvrtcAPI
	info       device.Info
	dev        int32
	ctx        uintptr
	arch       target
	maxGrid    [3]int  // blocks per grid dimension
	start, end uintptr // events
	kernels    map[*kernel]struct{}
	buffers    map[*buffer]struct{}
	allocs     uint64         // buffers allocated, each with its own canary
	observer   *powerObserver // nil without NVML
	cache      *moduleCache   // nil when off
	closed     bool
	lost       error // the sticky error that poisoned the context, if any
}

// openDevice retains the device's primary context and makes it current.
func openDevice(cu *driverAPI, rtc *nvrtcAPI, info device.Info) (*cuDevice, error) {
	var dev int32
	if err := cu.check("cuDeviceGet", Result(cu.DeviceGet(&dev, int32(info.Index)))); err != nil {
		return nil, fmt.Errorf("cuda: open %s: %w", info.Name, err)
	}
	cc, err := computeCapability(info.Extra["compute_capability"])
	if err != nil {
		return nil, fmt.Errorf("cuda: open %s: %w", info.Name, err)
	}
	arch, err := chooseArch(cc, rtc.supportedArchs())
	if err != nil {
		return nil, fmt.Errorf("cuda: %s: %w", info.Name, err)
	}
	if rtc.GetCUBIN == nil {
		// NVRTC before 11.1 emits PTX only, for virtual architectures.
		arch = target{option: fmt.Sprintf("-arch=compute_%d", cc)}
	}
	d := &cuDevice{cu: cu, rtc: rtc, info: info, dev: dev, arch: arch, cache: openModuleCache(),
		maxGrid: parseDims(info.Extra["max_grid_dims"]),
		kernels: map[*kernel]struct{}{}, buffers: map[*buffer]struct{}{}}
	if err := cu.check("cuDevicePrimaryCtxRetain", Result(cu.PrimaryCtxRetain(&d.ctx, dev))); err != nil {
		return nil, fmt.Errorf("cuda: open %s: %w", info.Name, err)
	}
	if err := d.current(); err != nil {
		cu.PrimaryCtxRelease(dev)
		return nil, fmt.Errorf("cuda: open %s: %w", info.Name, err)
	}
	for _, ev := range []*uintptr{&d.start, &d.end} {
		if err := cu.check("cuEventCreate", Result(cu.EventCreate(ev, 0))); err != nil {
			d.Close()
			return nil, fmt.Errorf("cuda: open %s: %w", info.Name, err)
		}
	}
	if o, err := newPowerObserver(info.Extra["pci_bus_id"]); err == nil {
		d.observer = o
		delete(d.info.Extra, "nvml")
	} else {
		d.info.Extra["nvml"] = err.Error()
	}
	return d, nil
}

// computeCapability parses "8.6" into 86.
func computeCapability(s string) (int, error) {
	major, minor, ok := strings.Cut(s, ".")
	a, err1 := strconv.Atoi(major)
	b, err2 := strconv.Atoi(minor)
	if !ok || err1 != nil || err2 != nil {
		return 0, fmt.Errorf("unreadable compute capability %q", s)
	}
	return a*10 + b, nil
}

// current makes the device's context current on the calling thread.
func (d *cuDevice) current() error {
	return d.cu.check("cuCtxSetCurrent", Result(d.cu.CtxSetCurrent(d.ctx)))
}

// usable refuses work on a closed device or one whose context a kernel poisoned.
func (d *cuDevice) usable() error {
	if d.closed {
		return errClosed
	}
	if d.lost != nil {
		return fmt.Errorf("cuda: the context was lost to an earlier fault (%w); the process must open the device afresh", d.lost)
	}
	return nil
}

// failed records a sticky error, after which the device refuses all work, and returns err.
func (d *cuDevice) failed(err error) error {
	if errors.Is(err, device.ErrDeviceLost) && d.lost == nil {
		d.lost = err
	}
	return err
}

// Info describes the device.
func (d *cuDevice) Info() device.Info {
	info := d.info
	info.Extra = maps.Clone(d.info.Extra)
	return info
}

// Observers returns the NVML power observer, when NVML is available for the device.
func (d *cuDevice) Observers() []device.Observer {
	if d.observer == nil {
		return nil
	}
	return []device.Observer{d.observer}
}

// Compile compiles src with NVRTC for the device, loads the module and finds the kernel
// src.Kernel (template arguments included). A source the compiler or the driver rejects,
// or one without that kernel, gives a *device.CompileError with the log; a kernel that
// needs more shared or local memory than the architecture has, a *device.LimitError.
func (d *cuDevice) Compile(ctx context.Context, src device.Source) (device.Kernel, error) {
	if src.Kernel == "" {
		return nil, errors.New("cuda: no kernel name given")
	}
	ks, _, err := d.compile(ctx, src, []device.Function{{Name: src.Kernel, Params: src.Params}})
	if err != nil {
		return nil, err
	}
	return ks[0], nil
}

var _ device.MultiCompiler = (*cuDevice)(nil)

// CompileFunctions implements device.MultiCompiler: one NVRTC program with a name
// expression per function, one module, and a cuModuleGetFunction per function; the
// module is unloaded with the last of them.
func (d *cuDevice) CompileFunctions(ctx context.Context, src device.Source, fns []device.Function) ([]device.Kernel, error) {
	ks, failed, err := d.compile(ctx, src, fns)
	if err != nil && failed >= 0 {
		return nil, &device.FunctionError{Index: failed, Err: err}
	}
	return ks, err
}

// compile builds src for fns into one module and finds each function in it. A function
// the module lacks gives its index with the error, other failures -1.
func (d *cuDevice) compile(ctx context.Context, src device.Source, fns []device.Function) ([]device.Kernel, int, error) {
	if err := d.usable(); err != nil {
		return nil, -1, err
	}
	if err := ctx.Err(); err != nil {
		return nil, -1, err
	}
	switch {
	case src.Language != "" && src.Language != "cuda":
		return nil, -1, fmt.Errorf("cuda: cannot compile %s source", src.Language)
	case len(fns) == 0:
		return nil, -1, errors.New("cuda: no kernel name given")
	case src.Code == "":
		return nil, -1, errors.New("cuda: empty source")
	}
	names := make([]string, len(fns))
	for i, f := range fns {
		if f.Name == "" {
			return nil, i, errors.New("cuda: no kernel name given")
		}
		names[i] = f.Name
	}
	if err := d.current(); err != nil {
		return nil, -1, d.failed(err)
	}
	out, failed, err := d.rtc.compile(src, names, d.arch, d.cache)
	if err != nil {
		return nil, failed, err
	}
	var mod uintptr
	if r := Result(d.cu.ModuleLoadData(&mod, unsafe.Pointer(&out.Image[0]))); r != success {
		err := d.cu.check("cuModuleLoadData", r)
		switch r {
		case errInvalidPTX, errUnsupportedPTX, errNoBinaryForGPU, errInvalidImage:
			return nil, -1, &device.CompileError{Log: "the driver cannot load the compiled kernel: " + err.Error() + hint(r), Err: err}
		}
		return nil, -1, d.failed(fmt.Errorf("cuda: load %s: %w", names[0], err))
	}
	shared := &module{handle: mod, symbols: map[string]*symbolCopy{}}
	var made []*kernel
	fail := func(i int, err error) ([]device.Kernel, int, error) {
		// the last kernel released unloads the module
		for _, k := range made {
			k.Release()
		}
		if len(made) == 0 {
			d.cu.ModuleUnload(mod)
		}
		return nil, i, err
	}
	ks := make([]device.Kernel, len(fns))
	for i, f := range fns {
		lowered := out.lowered(i)
		var fn uintptr
		if r := Result(d.cu.ModuleGetFunction(&fn, mod, lowered)); r != success {
			err := d.cu.check("cuModuleGetFunction", r)
			if r == errNotFound {
				return fail(i, &device.CompileError{Log: fmt.Sprintf("no kernel %s (%s) in the compiled module: is it __global__?", f.Name, lowered), Err: err})
			}
			return fail(i, d.failed(fmt.Errorf("cuda: compile %s: %w", f.Name, err)))
		}
		k, err := newKernel(d, f.Name, shared, fn)
		if err != nil {
			return fail(i, fmt.Errorf("cuda: compile %s: %w", f.Name, err))
		}
		shared.refs++
		k.log, k.cached, k.names = out.Log, out.Cached, f.Params
		d.kernels[k] = struct{}{}
		made = append(made, k)
		ks[i] = k
	}
	return ks, -1, nil
}

// module is a loaded module, the variables found in it, and how many of the device's
// kernels still use it: it is unloaded with the last.
type module struct {
	handle  uintptr
	refs    int
	symbols map[string]*symbolCopy // shared: a copy by one kernel is every kernel's
}

// hint says what to do about a module the driver refused.
func hint(r Result) string {
	switch r {
	case errUnsupportedPTX:
		return " (NVRTC is newer than the driver: update the driver or use an older NVRTC through " + NVRTCEnv + ")"
	case errNoBinaryForGPU:
		return " (the code was compiled for another architecture: check -arch in compiler_options)"
	}
	return ""
}

// Alloc allocates n bytes of device memory between device.GuardBytes bytes of canary on
// either side (the front ones keep the data at cuMemAlloc's alignment, a multiple of 256),
// which a kernel's first launch must leave as they are (see buffer and kernel.Run). A
// buffer that fits only without them goes without.
func (d *cuDevice) Alloc(n int) (device.Buffer, error) {
	if err := d.usable(); err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, fmt.Errorf("cuda: cannot allocate %d bytes", n)
	}
	if limit := d.info.MaxAllocBytes; limit > 0 && int64(n) > limit {
		return nil, &device.LimitError{
			What:  fmt.Sprintf("buffer of %d bytes exceeds the device's %d bytes of memory", n, limit),
			Limit: limit, Want: int64(n),
		}
	}
	if err := d.current(); err != nil {
		return nil, d.failed(err)
	}
	front, slack := device.GuardBytes, device.GuardBytes
	if limit := d.info.MaxAllocBytes; limit > 0 && int64(front+n+slack) > limit {
		front, slack = 0, 0 // the largest buffers go without
	}
	var ptr uint64
	// cuMemAlloc refuses 0 bytes; an argument of no elements still gets an address, as on
	// the other backends, from a buffer of one byte (or of its canary) that nothing
	// transfers to.
	r := Result(d.cu.MemAlloc(&ptr, uintptr(max(front+n+slack, 1))))
	if r == errOutOfMemory && front+slack > 0 {
		front, slack = 0, 0
		r = Result(d.cu.MemAlloc(&ptr, uintptr(max(n, 1))))
	}
	if r != success {
		err := d.cu.check("cuMemAlloc", r)
		if r == errOutOfMemory {
			return nil, &device.LimitError{What: fmt.Sprintf("allocating %d bytes: the device is out of memory", n), Want: int64(n)}
		}
		return nil, d.failed(fmt.Errorf("cuda: allocate %d bytes: %w", n, err))
	}
	b := &buffer{dev: d, base: ptr, ptr: ptr + uint64(front), Guard: device.Guard{Front: front, Size: n, Slack: slack, Canary: device.NewCanary(d.allocs)}}
	d.allocs++
	d.buffers[b] = struct{}{}
	if err := b.Fill(true, true, b.writeAt); err != nil {
		b.Release()
		return nil, fmt.Errorf("cuda: allocate %d bytes: %w", n, err)
	}
	return b, nil
}

// Close waits for the device, then releases every kernel and buffer still held, the
// events and the primary context. Closing twice is harmless. After a fault the releases
// fail as the context does; Close then only drops its references.
func (d *cuDevice) Close() error {
	if d.closed {
		return nil
	}
	var errs []error
	if d.lost == nil {
		d.current()
		errs = append(errs, d.cu.check("cuCtxSynchronize", Result(d.cu.CtxSynchronize())))
	}
	for k := range d.kernels {
		k.Release()
	}
	for b := range d.buffers {
		b.Release()
	}
	for _, ev := range []uintptr{d.start, d.end} {
		if ev != 0 {
			d.cu.EventDestroy(ev)
		}
	}
	errs = append(errs, d.cu.check("cuDevicePrimaryCtxRelease", Result(d.cu.PrimaryCtxRelease(d.dev))))
	d.closed = true
	if d.lost != nil {
		return nil
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("cuda: close %s: %w", d.info.Name, err)
	}
	return nil
}
