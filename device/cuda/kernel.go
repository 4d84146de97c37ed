package cuda

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/ktune/ktune/device"
)

// Function attributes read (cuda.h, CUfunction_attribute).
const (
	funcMaxThreadsPerBlock = 0
	funcSharedSizeBytes    = 1
	funcConstSizeBytes     = 2
	funcLocalSizeBytes     = 3
	funcNumRegs            = 4
	funcPTXVersion         = 5
	funcBinaryVersion      = 6
	funcMaxDynamicShared   = 8
)

// kernel is a kernel found in a loaded module, which it may share with the module's
// other kernels. What the compiler decided
// (registers, static shared memory, the largest block those allow) is read at load time.
type kernel struct {
	dev    *cuDevice
	name   string
	mod    uintptr // the module's handle; 0 once released
	module *module
	fn     uintptr
	log    string // what NVRTC printed for the build: its warnings
	cached bool   // the module came from the module cache

	maxThreads   int // the largest block the kernel's registers allow
	staticShared int
	constBytes   int
	localBytes   int // per thread (spills, local arrays)
	registers    int
	ptxVersion   int
	binVersion   int
	dynShared    int // dynamic shared memory the kernel may take now (raised on demand)

	vals     []uint64               // argument values, 8-byte slots
	params   []unsafe.Pointer       // pointers to the values, as cuLaunchKernel takes them
	symbols  map[string]*symbolCopy // the module's
	names    []device.Param         // the caller's names and types of the arguments, for messages
	launched bool                   // a launch finished, and its buffers' canaries were checked
}

// symbolCopy is a module variable that receives an argument's bytes.
type symbolCopy struct {
	ptr  uint64
	size int
	last []byte // the bytes copied last, to copy only on change
}

var (
	_ device.Kernel = (*kernel)(nil)
	_ device.Warner = (*kernel)(nil)
)

// Warnings is what NVRTC printed for the kernel's build, kept with it in the module cache.
func (k *kernel) Warnings() string { return k.log }

func newKernel(d *cuDevice, name string, m *module, fn uintptr) (*kernel, error) {
	k := &kernel{dev: d, name: name, mod: m.handle, module: m, fn: fn, symbols: m.symbols}
	var errs []error
	attr := func(a int32) int {
		var v int32
		errs = append(errs, d.cu.check(fmt.Sprintf("cuFuncGetAttribute(%d)", a), Result(d.cu.FuncGetAttribute(&v, a, fn))))
		return int(v)
	}
	k.maxThreads = attr(funcMaxThreadsPerBlock)
	k.staticShared = attr(funcSharedSizeBytes)
	k.constBytes = attr(funcConstSizeBytes)
	k.localBytes = attr(funcLocalSizeBytes)
	k.registers = attr(funcNumRegs)
	k.ptxVersion = attr(funcPTXVersion)
	k.binVersion = attr(funcBinaryVersion)
	k.dynShared = attr(funcMaxDynamicShared)
	return k, errors.Join(errs...)
}

// Attributes reports what the compiler decided: registers (per thread), local_mem_bytes
// (static shared memory per block), private_mem_bytes (local memory per thread: spills
// and local arrays), constant_mem_bytes, max_block_size (the largest block the registers
// allow), the PTX and binary versions (major*10 + minor), and cached (1 when the module
// came from the compile cache).
func (k *kernel) Attributes() map[string]float64 {
	return map[string]float64{
		"registers":          float64(k.registers),
		"local_mem_bytes":    float64(k.staticShared),
		"private_mem_bytes":  float64(k.localBytes),
		"constant_mem_bytes": float64(k.constBytes),
		"max_block_size":     float64(k.maxThreads),
		"ptx_version":        float64(k.ptxVersion),
		"binary_version":     float64(k.binVersion),
		"cached":             b2f(k.cached),
	}
}

// Run launches Grid blocks of Block threads with Launch.SharedBytes of dynamic shared
// memory on the default stream, waits for the kernel and returns its duration between
// two CUDA events. It checks the launch against the device's and the kernel's limits
// first and refuses one that breaks them with a *device.LimitError. Symbol arguments are
// copied into the module's variables of those names first (when their bytes changed);
// the others are passed in order. ctx bounds the wait: a kernel still running when ctx
// ends leaves the context unusable (the error matches device.ErrDeviceLost too), since
// CUDA cannot stop it.
//
// After the kernel's first launch the canaries around its array arguments' data are
// checked (see buffer): a kernel that wrote past the end of one, or before its start,
// gives a *device.RuntimeError that names the argument. Later launches go unchecked, so
// that the timed runs cost no copies; the runner checks them once, after the timed runs
// (CheckOverruns).
func (k *kernel) Run(ctx context.Context, l device.Launch, args []device.Arg) (time.Duration, error) {
	d := k.dev
	if k.mod == 0 {
		return 0, errClosed
	}
	if err := d.usable(); err != nil {
		return 0, err
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	grid, block, err := k.prepare(l, args)
	if err != nil {
		return 0, err
	}
	cu := d.cu
	if err := cu.check("cuEventRecord", cu.eventRecord(d.start)); err != nil {
		return 0, d.failed(&device.RuntimeError{Op: "launch", Err: err})
	}
	if err := k.launch(grid, block, l.SharedBytes); err != nil {
		return 0, err
	}
	if err := cu.check("cuEventRecord", cu.eventRecord(d.end)); err != nil {
		return 0, d.failed(&device.RuntimeError{Op: "launch", Err: err})
	}
	if err := k.wait(ctx); err != nil {
		return 0, d.failed(err)
	}
	var ms float32
	if err := cu.check("cuEventElapsedTime", cu.eventElapsed(&ms, d.start, d.end)); err != nil {
		return 0, d.failed(&device.RuntimeError{Op: "profile", Err: err})
	}
	dur := time.Duration(float64(ms) * 1e6)
	if k.launched {
		return dur, nil
	}
	k.launched = true
	return dur, k.checkOverruns(args)
}

// prepare checks a launch against the limits, raises the kernel's dynamic shared memory
// where it needs more, and sets the arguments, for launch.
func (k *kernel) prepare(l device.Launch, args []device.Arg) (grid, block [3]uint32, err error) {
	d := k.dev
	if grid, block, err = geometry(l); err != nil {
		return
	}
	if err = k.checkLimits(grid, block, l.SharedBytes); err != nil {
		return
	}
	if l.SharedBytes > k.dynShared {
		r := Result(d.cu.FuncSetAttribute(k.fn, funcMaxDynamicShared, int32(l.SharedBytes)))
		if err = d.cu.check("cuFuncSetAttribute", r); err != nil {
			err = &device.LimitError{What: fmt.Sprintf("the driver refused %d bytes of dynamic shared memory for kernel %s: %v", l.SharedBytes, k.name, err),
				Limit: int64(k.dynShared), Want: int64(l.SharedBytes)}
			return
		}
		k.dynShared = l.SharedBytes
	}
	err = k.setArgs(args)
	return
}

// launch enqueues the kernel with the arguments prepare set, on the default stream. The
// driver copies the arguments' values as it enqueues, so that the next prepare may set
// others.
func (k *kernel) launch(grid, block [3]uint32, shared int) error {
	d, cu := k.dev, k.dev.cu
	var params unsafe.Pointer
	if len(k.params) > 0 {
		params = unsafe.Pointer(&k.params[0])
	}
	r := cu.launchKernel(k.fn, grid, block, uint32(shared), params)
	runtime.KeepAlive(k.vals)
	if r != success {
		err := cu.check("cuLaunchKernel", r)
		if r == errLaunchOutOfResources {
			return &device.LimitError{What: fmt.Sprintf("the driver refused to launch %d x %d x %d threads per block of kernel %s (%d registers per thread): %v",
				block[0], block[1], block[2], k.name, k.registers, err)}
		}
		return d.failed(&device.RuntimeError{Op: "launch", Err: err})
	}
	return nil
}

// CheckOverruns implements device.OverrunChecker: it reads the canaries around the array
// arguments' data (see buffer), which Run checks after the first launch only, and returns
// a *device.RuntimeError naming each array the kernel wrote outside of; those canaries
// are written again.
func (k *kernel) CheckOverruns(args []device.Arg) error {
	d := k.dev
	if k.mod == 0 {
		return errClosed
	}
	if err := d.usable(); err != nil {
		return err
	}
	if err := d.current(); err != nil {
		return d.failed(err)
	}
	return k.checkOverruns(args)
}

func (k *kernel) checkOverruns(args []device.Arg) error {
	return device.Overruns(args, func(i int, buf device.Buffer) (string, error) {
		b, _ := buf.(*buffer)
		if b == nil {
			return "", nil
		}
		where, err := b.overrun()
		if where == "" || err != nil {
			return "", err
		}
		return k.overrunMessage(i, b, where), nil
	})
}

// overrunMessage says that the kernel wrote where ("past the end", "before the start") of
// argument i's buffer b, in the words of every backend (device.OverrunMessage).
func (k *kernel) overrunMessage(i int, b *buffer, where string) string {
	name, typ := strconv.Itoa(i), ""
	if i < len(k.names) {
		name, typ = k.names[i].Name, k.names[i].Type
	}
	return device.OverrunMessage(name, typ, b.Size(), where)
}

// wait returns once the end event has completed: it blocks in the driver when ctx cannot
// end, and otherwise polls, yielding at first (short kernels) and then sleeping.
func (k *kernel) wait(ctx context.Context) error {
	cu, end := k.dev.cu, k.dev.end
	if ctx.Done() == nil {
		if err := cu.check("cuEventSynchronize", cu.eventSynchronize(end)); err != nil {
			return &device.RuntimeError{Op: "wait", Err: fmt.Errorf("kernel %s: %w", k.name, err)}
		}
		return nil
	}
	for polls := 0; ; polls++ {
		switch r := cu.eventQuery(end); r {
		case success:
			return nil
		case errNotReady:
		default:
			return &device.RuntimeError{Op: "wait", Err: fmt.Errorf("kernel %s: %w", k.name, cu.check("cuEventQuery", r))}
		}
		if err := ctx.Err(); err != nil {
			return &device.RuntimeError{Op: "wait", Err: fmt.Errorf("kernel %s still running: %w", k.name, errors.Join(err, device.ErrDeviceLost))}
		}
		if polls < 2000 {
			runtime.Gosched()
		} else {
			time.Sleep(50 * time.Microsecond)
		}
	}
}

// geometry checks the launch sizes and turns them into CUDA's; a zero dimension counts
// as one.
func geometry(l device.Launch) (grid, block [3]uint32, err error) {
	for i := range 3 {
		g, b := l.Grid[i], l.Block[i]
		if g < 0 || b < 0 {
			return grid, block, fmt.Errorf("cuda: negative launch size grid %v block %v", l.Grid, l.Block)
		}
		g, b = max(g, 1), max(b, 1)
		if g > math.MaxUint32 || b > math.MaxUint32 {
			return grid, block, fmt.Errorf("cuda: launch size grid %v block %v overflows", l.Grid, l.Block)
		}
		grid[i], block[i] = uint32(g), uint32(b)
	}
	if l.SharedBytes < 0 {
		return grid, block, fmt.Errorf("cuda: negative dynamic shared memory %d", l.SharedBytes)
	}
	return grid, block, nil
}

// checkLimits refuses a launch that the driver would reject or that could not run, so
// that the tuner can tell an impossible configuration from a broken one.
func (k *kernel) checkLimits(grid, block [3]uint32, dynShared int) error {
	info := &k.dev.info
	threads := int(block[0]) * int(block[1]) * int(block[2])
	if info.MaxBlockSize > 0 && threads > info.MaxBlockSize {
		return &device.LimitError{
			What:  fmt.Sprintf("block size %d exceeds the device's maximum of %d threads per block", threads, info.MaxBlockSize),
			Limit: int64(info.MaxBlockSize), Want: int64(threads),
		}
	}
	maxGrid := k.dev.maxGrid
	for i, axis := range "xyz" {
		if limit := info.MaxBlockDims[i]; limit > 0 && int(block[i]) > limit {
			return &device.LimitError{
				What:  fmt.Sprintf("block size %d in %c exceeds the device's maximum of %d", block[i], axis, limit),
				Limit: int64(limit), Want: int64(block[i]),
			}
		}
		if limit := maxGrid[i]; limit > 0 && int(grid[i]) > limit {
			return &device.LimitError{
				What:  fmt.Sprintf("grid size %d in %c exceeds the device's maximum of %d blocks", grid[i], axis, limit),
				Limit: int64(limit), Want: int64(grid[i]),
			}
		}
	}
	if k.maxThreads > 0 && threads > k.maxThreads {
		return &device.LimitError{
			What: fmt.Sprintf("kernel %s uses %d registers per thread, which allows at most %d threads per block, not %d",
				k.name, k.registers, k.maxThreads, threads),
			Limit: int64(k.maxThreads), Want: int64(threads),
		}
	}
	if limit := info.LocalMemBytes; limit > 0 && int64(k.staticShared+dynShared) > limit {
		return &device.LimitError{
			What: fmt.Sprintf("shared memory of %d bytes per block (%d static in kernel %s, %d dynamic) exceeds the device's %d",
				k.staticShared+dynShared, k.staticShared, k.name, dynShared, limit),
			Limit: limit, Want: int64(k.staticShared + dynShared),
		}
	}
	return nil
}

// parseDims reads "x,y,z"; unreadable parts are 0 (no limit known).
func parseDims(s string) [3]int {
	var out [3]int
	for i, p := range strings.SplitN(s, ",", 3) {
		out[i], _ = strconv.Atoi(p)
	}
	return out
}

// setArgs copies symbol arguments into the module and lays out the others for
// cuLaunchKernel: each value in 8-byte slots of k.vals, and k.params pointing to them.
func (k *kernel) setArgs(args []device.Arg) error {
	slots := 0
	for i, a := range args {
		switch {
		case a.Symbol != "":
		case a.Local != 0:
			return fmt.Errorf("cuda: argument %d of %s: local memory arguments are OpenCL's; CUDA kernels take dynamic shared memory (shared_memory_bytes) or declare __shared__ arrays", i, k.name)
		case a.Buffer != nil && a.Scalar != nil:
			return fmt.Errorf("cuda: argument %d of %s sets both a buffer and a scalar", i, k.name)
		case a.Buffer != nil:
			slots++
		case len(a.Scalar) > 0:
			slots += (len(a.Scalar) + 7) / 8
		default:
			return fmt.Errorf("cuda: argument %d of %s has no buffer, scalar or symbol", i, k.name)
		}
	}
	if cap(k.vals) < slots {
		k.vals = make([]uint64, slots)
	}
	k.vals = k.vals[:slots]
	k.params = k.params[:0]
	slot := 0
	for i, a := range args {
		switch {
		case a.Symbol != "":
			if err := k.copySymbol(a.Symbol, a.Scalar); err != nil {
				return fmt.Errorf("cuda: argument %d of %s: %w", i, k.name, err)
			}
		case a.Buffer != nil:
			b, ok := a.Buffer.(*buffer)
			if !ok || b.dev != k.dev {
				return fmt.Errorf("cuda: argument %d of %s: buffer belongs to another device", i, k.name)
			}
			if b.ptr == 0 {
				return fmt.Errorf("cuda: argument %d of %s: %w", i, k.name, errClosed)
			}
			k.vals[slot] = b.ptr
			k.params = append(k.params, unsafe.Pointer(&k.vals[slot]))
			slot++
		default:
			n := (len(a.Scalar) + 7) / 8
			dst := unsafe.Slice((*byte)(unsafe.Pointer(&k.vals[slot])), n*8)
			copy(dst, a.Scalar)
			k.params = append(k.params, unsafe.Pointer(&k.vals[slot]))
			slot += n
		}
	}
	return nil
}

// copySymbol copies data into the module variable name when it differs from what was
// copied last.
func (k *kernel) copySymbol(name string, data []byte) error {
	s, ok := k.symbols[name]
	if !ok {
		var ptr uint64
		var size uintptr
		r := Result(k.dev.cu.ModuleGetGlobal(&ptr, &size, k.mod, name))
		if r == errNotFound {
			return fmt.Errorf("no __constant__ or __device__ variable %s in the kernel's source (declare it at file scope, extern \"C\" if the source is C++ with overloads)", name)
		}
		if err := k.dev.cu.check("cuModuleGetGlobal", r); err != nil {
			return k.dev.failed(err)
		}
		s = &symbolCopy{ptr: ptr, size: int(size)}
		k.symbols[name] = s
	}
	if len(data) > s.size {
		return fmt.Errorf("symbol %s holds %d bytes; the argument has %d", name, s.size, len(data))
	}
	if s.last != nil && bytes.Equal(s.last, data) {
		return nil
	}
	if len(data) > 0 {
		r := Result(k.dev.cu.MemcpyHtoD(s.ptr, unsafe.Pointer(&data[0]), uintptr(len(data))))
		if err := k.dev.cu.check("cuMemcpyHtoD", r); err != nil {
			return k.dev.failed(&device.RuntimeError{Op: "write " + name, Err: err})
		}
	}
	s.last = append(s.last[:0], data...)
	return nil
}

// Release unloads the module when no other kernel uses it; it is harmless to call twice
// or after the device closed.
func (k *kernel) Release() {
	if k.mod == 0 {
		return
	}
	if !k.dev.closed {
		last := k.module == nil // a kernel made by hand, in tests
		if !last {
			k.module.refs--
			last = k.module.refs == 0
		}
		if last && k.dev.lost == nil {
			k.dev.cu.ModuleUnload(k.mod)
		}
		delete(k.dev.kernels, k)
	}
	k.mod, k.fn, k.module = 0, 0, nil
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
