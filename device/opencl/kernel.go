package opencl

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/ktune/ktune/device"
)

// kernel is a kernel created from a built program, which it may share with the program's
// other kernels. What the compiler says
// about the kernel is read once, at compile time: CL_KERNEL_LOCAL_MEM_SIZE then excludes
// the __local arguments of earlier launches, which Run adds itself.
type kernel struct {
	dev           *clDevice
	name          string
	program       *program
	handle        uintptr // 0 once released
	numArgs       int
	maxBlock      int    // CL_KERNEL_WORK_GROUP_SIZE
	required      [3]int // reqd_work_group_size, zeros when the kernel has none
	localMem      int64  // statically declared __local memory
	privateMem    int64
	preferredMult int
	declared      []device.Declared // numArgs of them
	detailed      bool              // declared holds more than the count (clGetKernelArgInfo answered)
	params        []device.Param    // the caller's names and types of the arguments, for messages
	launched      bool              // a launch finished, and its buffers' canaries were checked
	warnings      string            // the build log of the program's successful build, trimmed
}

var (
	_ device.Kernel   = (*kernel)(nil)
	_ device.Declarer = (*kernel)(nil)
	_ device.Warner   = (*kernel)(nil)
)

// Warnings is the build log of the kernel's program: its compiler's warnings.
func (k *kernel) Warnings() string { return k.warnings }

func newKernel(d *clDevice, name string, program *program, handle uintptr) (*kernel, error) {
	k := &kernel{dev: d, name: name, program: program, handle: handle}
	wg := d.cl.kernelWorkGroupInfo(handle, d.id)
	maxBlock, err1 := infoValue[uintptr](wg, clKernelWorkGroupSize)
	required, err2 := infoValue[[3]uintptr](wg, clKernelCompileWorkGroupSize)
	localMem, err3 := infoValue[uint64](wg, clKernelLocalMemSize)
	privateMem, err4 := infoValue[uint64](wg, clKernelPrivateMemSize)
	mult, err5 := infoValue[uintptr](wg, clKernelPreferredWorkGroupSizeMultiple)
	numArgs, err6 := infoValue[uint32](d.cl.kernelInfo(handle), clKernelNumArgs)
	if err := errors.Join(err1, err2, err3, err4, err5, err6); err != nil {
		return nil, err
	}
	k.maxBlock = int(maxBlock)
	for i, r := range required {
		k.required[i] = int(r)
	}
	k.localMem = int64(localMem)
	k.privateMem = int64(privateMem)
	k.preferredMult = int(mult)
	k.numArgs = int(numArgs)
	k.declared, k.detailed = declaredParams(d.cl, handle, k.numArgs)
	return k, nil
}

// Declared returns the kernel's parameters as clGetKernelArgInfo describes them, or only
// their count (CL_KERNEL_NUM_ARGS) where the runtime keeps no argument information: an
// OpenCL 1.1 library, or a program built without -cl-kernel-arg-info.
func (k *kernel) Declared() ([]device.Declared, bool) {
	return append([]device.Declared(nil), k.declared...), k.detailed
}

// declaredParams reads the address space, type and name of each of a kernel's n
// parameters. Any failure (CL_KERNEL_ARG_INFO_NOT_AVAILABLE) leaves only the count.
func declaredParams(cl *api, handle uintptr, n int) ([]device.Declared, bool) {
	params := make([]device.Declared, n)
	if cl.GetKernelArgInfo == nil {
		return params, false
	}
	for i := range params {
		get := cl.kernelArgInfo(handle, uint32(i))
		space, err1 := infoValue[uint32](get, clKernelArgAddressQualifier)
		typeName, err2 := infoString(get, clKernelArgTypeName)
		name, err3 := infoString(get, clKernelArgName)
		if errors.Join(err1, err2, err3) != nil {
			return make([]device.Declared, n), false
		}
		params[i] = declared(space, typeName, name)
	}
	return params, true
}

// declared describes one parameter from its address qualifier and its type name as
// OpenCL reports it ("float", "float4*", "uint", or a typedef's own name, which stays
// unknown).
func declared(space uint32, typeName, name string) device.Declared {
	typeName = strings.TrimSpace(typeName)
	p := device.Declared{Name: name, Lanes: 1}
	base := typeName
	if strings.HasSuffix(base, "*") {
		p.Pointer = true
		base = strings.TrimSpace(strings.TrimSuffix(base, "*"))
	}
	for _, q := range []string{"const ", "volatile ", "restrict "} {
		base = strings.TrimPrefix(base, q)
	}
	p.Type, p.Lanes = openclType(base)
	prefix := ""
	switch space {
	case clKernelArgAddressGlobal:
		prefix = "__global "
	case clKernelArgAddressConstant:
		prefix = "__constant "
	case clKernelArgAddressLocal:
		prefix = "__local "
		p.Local = true
	}
	// A pointer in private memory cannot be a kernel parameter; a runtime that says so
	// about a pointer has it in global memory.
	if p.Pointer && prefix == "" {
		prefix = "__global "
	}
	p.Decl = strings.TrimSpace(prefix + typeName + " " + name)
	return p
}

// openclTypes maps OpenCL C's scalar types to ktune's element types.
var openclTypes = map[string]string{
	"char": "int8", "uchar": "uint8", "short": "int16", "ushort": "uint16",
	"int": "int32", "uint": "uint32", "long": "int64", "ulong": "uint64",
	"float": "float32", "double": "float64", "half": "float16",
	"signed char": "int8", "unsigned char": "uint8", "unsigned short": "uint16",
	"unsigned int": "uint32", "unsigned": "uint32", "unsigned long": "uint64",
}

// openclType is the element type and the number of components of an OpenCL C type name:
// ("float32", 1) for float, ("float32", 4) for float4, ("", 1) for a type ktune cannot
// name (a typedef, a struct).
func openclType(name string) (string, int) {
	if t, ok := openclTypes[name]; ok {
		return t, 1
	}
	for _, lanes := range []int{16, 8, 4, 3, 2} {
		if base, ok := strings.CutSuffix(name, strconv.Itoa(lanes)); ok {
			if t, ok := openclTypes[base]; ok && !strings.Contains(base, " ") {
				return t, lanes
			}
		}
	}
	return "", 1
}

// Attributes reports max_block_size (CL_KERNEL_WORK_GROUP_SIZE), local_mem_bytes and
// private_mem_bytes, and preferred_block_multiple (the SIMD width the compiler prefers).
func (k *kernel) Attributes() map[string]float64 {
	return map[string]float64{
		"max_block_size":           float64(k.maxBlock),
		"local_mem_bytes":          float64(k.localMem),
		"private_mem_bytes":        float64(k.privateMem),
		"preferred_block_multiple": float64(k.preferredMult),
	}
}

// Run launches the kernel over a global size of Grid*Block work-items in work-groups of
// Block, waits for it and returns its duration from the profiling event. It checks the
// launch against the device's and the kernel's limits first and refuses a launch that
// breaks one with a *device.LimitError. ctx is checked before launching: an OpenCL kernel
// cannot be interrupted once enqueued. Launch.SharedBytes has no meaning in OpenCL, where
// local memory comes as Local arguments, and is ignored.
//
// After the kernel's first launch the canaries around its array arguments' data are
// checked (see buffer): a kernel that wrote past the end of one, or before its start,
// gives a *device.RuntimeError that names the argument. Later launches go unchecked, so
// that the timed runs cost no reads; the runner checks them once, after the timed runs
// (CheckOverruns).
func (k *kernel) Run(ctx context.Context, l device.Launch, args []device.Arg) (time.Duration, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	ev, err := k.enqueue(l, args)
	if err != nil {
		return 0, err
	}
	cl := k.dev.cl
	defer cl.ReleaseEvent(ev)
	if err := k.wait(ev); err != nil {
		return 0, err
	}
	start, end, err := k.dev.profile(ev)
	if err != nil {
		return 0, err
	}
	d := time.Duration(end - start)
	if k.launched {
		return d, nil
	}
	k.launched = true
	return d, k.CheckOverruns(args)
}

// enqueue sets the arguments and enqueues a launch, returning its event, which the caller
// releases.
func (k *kernel) enqueue(l device.Launch, args []device.Arg) (uintptr, error) {
	if k.handle == 0 || k.dev.closed {
		return 0, errClosed
	}
	dims, global, local, err := k.geometry(l)
	if err != nil {
		return 0, err
	}
	if err := k.checkLimits(local, args); err != nil {
		return 0, err
	}
	if err := k.setArgs(args); err != nil {
		return 0, err
	}
	var ev uintptr
	st := k.dev.cl.EnqueueNDRangeKernel(k.dev.queue, k.handle, uint32(dims), &global, &local, &ev)
	if err := check("clEnqueueNDRangeKernel", st); err != nil {
		// The runtime refusing the launch geometry or the kernel's resources (registers,
		// local memory) is a device limit, not a crash: the configuration cannot run here.
		switch st {
		case -54, -5, -55: // CL_INVALID_WORK_GROUP_SIZE, CL_OUT_OF_RESOURCES, CL_INVALID_WORK_ITEM_SIZE
			return 0, &device.LimitError{What: fmt.Sprintf("the OpenCL runtime refused the launch of %d x %d x %d work-items per group: %v", l.Block[0], l.Block[1], l.Block[2], err)}
		}
		return 0, &device.RuntimeError{Op: "launch", Err: err}
	}
	return ev, nil
}

// wait waits for a launch's event ev.
func (k *kernel) wait(ev uintptr) error {
	cl := k.dev.cl
	if st := cl.WaitForEvents(1, &ev); st != 0 {
		err := check("clWaitForEvents", st)
		if Status(st) == statusExecStatusError {
			// The event's status holds why the kernel failed.
			if s, e := infoValue[int32](cl.eventInfo(ev), clEventCommandExecutionStatus); e == nil && s < 0 {
				err = fmt.Errorf("kernel %s failed: %w", k.name, Status(s))
			}
		}
		return &device.RuntimeError{Op: "wait", Err: err}
	}
	return nil
}

// profile reads when the command of a finished event started and ended, in ns.
func (d *clDevice) profile(ev uintptr) (start, end uint64, err error) {
	st1 := d.cl.GetEventProfilingInfo(ev, clProfilingCommandStart, &start)
	st2 := d.cl.GetEventProfilingInfo(ev, clProfilingCommandEnd, &end)
	if err := errors.Join(check("clGetEventProfilingInfo", st1), check("clGetEventProfilingInfo", st2)); err != nil {
		return 0, 0, &device.RuntimeError{Op: "profile", Err: err}
	}
	if end < start {
		return 0, 0, &device.RuntimeError{Op: "profile", Err: fmt.Errorf("event ends (%d ns) before it starts (%d ns)", end, start)}
	}
	return start, end, nil
}

// CheckOverruns implements device.OverrunChecker: it reads the canaries around the array
// arguments' data (see buffer), which Run checks after the first launch only, and returns
// a *device.RuntimeError naming each array the kernel wrote outside of; those canaries
// are written again.
func (k *kernel) CheckOverruns(args []device.Arg) error {
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
	name, typ := fmt.Sprintf("%d", i), ""
	if i < len(k.params) {
		name, typ = k.params[i].Name, k.params[i].Type
	} else if i < len(k.declared) && k.declared[i].Name != "" {
		name, typ = k.declared[i].Name, k.declared[i].Type
	}
	return device.OverrunMessage(name, typ, b.Size(), where)
}

// geometry turns the CUDA-style launch into OpenCL's global and local sizes, using as many
// dimensions as the launch has beyond the first; a zero dimension counts as one.
func (k *kernel) geometry(l device.Launch) (dims int, global, local [3]uintptr, err error) {
	dims = 1
	for i := range 3 {
		g, b := l.Grid[i], l.Block[i]
		if g < 0 || b < 0 {
			return 0, global, local, fmt.Errorf("opencl: negative launch size grid %v block %v", l.Grid, l.Block)
		}
		g, b = max(g, 1), max(b, 1)
		if g > math.MaxInt/b {
			return 0, global, local, fmt.Errorf("opencl: global size %d*%d overflows", g, b)
		}
		global[i], local[i] = uintptr(g*b), uintptr(b)
		if g > 1 || b > 1 {
			dims = i + 1
		}
	}
	return dims, global, local, nil
}

// checkLimits refuses a launch that the runtime would reject or that would fail for lack
// of resources, so that the tuner can tell an invalid configuration from a broken one.
func (k *kernel) checkLimits(local [3]uintptr, args []device.Arg) error {
	info := &k.dev.info
	block := int(local[0] * local[1] * local[2])
	if info.MaxBlockSize > 0 && block > info.MaxBlockSize {
		return &device.LimitError{
			What:  fmt.Sprintf("block size %d exceeds the device's maximum work-group size %d", block, info.MaxBlockSize),
			Limit: int64(info.MaxBlockSize), Want: int64(block),
		}
	}
	for i, axis := range "xyz" {
		if limit := info.MaxBlockDims[i]; limit > 0 && int(local[i]) > limit {
			return &device.LimitError{
				What:  fmt.Sprintf("block size %d in %c exceeds the device's maximum work-item size %d", local[i], axis, limit),
				Limit: int64(limit), Want: int64(local[i]),
			}
		}
	}
	if k.maxBlock > 0 && block > k.maxBlock {
		return &device.LimitError{
			What:  fmt.Sprintf("block size %d exceeds kernel %s's maximum work-group size %d", block, k.name, k.maxBlock),
			Limit: int64(k.maxBlock), Want: int64(block),
		}
	}
	if k.required != [3]int{} {
		want := [3]int{int(local[0]), int(local[1]), int(local[2])}
		if want != k.required {
			return &device.LimitError{
				What: fmt.Sprintf("block %dx%dx%d differs from kernel %s's reqd_work_group_size %dx%dx%d",
					want[0], want[1], want[2], k.name, k.required[0], k.required[1], k.required[2]),
				Limit: int64(k.required[0] * k.required[1] * k.required[2]), Want: int64(block),
			}
		}
	}
	if err := k.checkConstants(args); err != nil {
		return err
	}
	var argLocal int64
	for _, a := range args {
		argLocal += int64(a.Local)
	}
	if limit := info.LocalMemBytes; limit > 0 && argLocal+k.localMem > limit {
		return &device.LimitError{
			What: fmt.Sprintf("local memory of %d bytes (%d in arguments, %d in kernel %s) exceeds the device's %d bytes",
				argLocal+k.localMem, argLocal, k.localMem, k.name, limit),
			Limit: limit, Want: argLocal + k.localMem,
		}
	}
	return nil
}

// checkConstants refuses __constant buffer arguments beyond the device's limits: one larger
// than its largest constant buffer, or more of them than it takes. A GPU refuses such a
// launch for lack of resources, or runs it reading garbage, and PoCL runs it as it would
// global memory; without argument information (OpenCL 1.1) nothing is checked.
func (k *kernel) checkConstants(args []device.Arg) error {
	if !k.detailed {
		return nil
	}
	var names []string
	for i, a := range args {
		if i >= len(k.declared) || !strings.HasPrefix(k.declared[i].Decl, "__constant ") || a.Buffer == nil {
			continue
		}
		name := k.argName(i)
		names = append(names, name)
		if limit := k.dev.maxConstant; limit > 0 && int64(a.Buffer.Size()) > limit {
			return &device.LimitError{
				What: fmt.Sprintf("argument %s: __constant buffer of %d bytes exceeds the device's maximum constant buffer of %d bytes",
					name, a.Buffer.Size(), limit),
				Limit: limit, Want: int64(a.Buffer.Size()),
			}
		}
	}
	if limit := k.dev.maxConstantArgs; limit > 0 && len(names) > limit {
		return &device.LimitError{
			What: fmt.Sprintf("kernel %s takes %d __constant arguments (%s), more than the device's maximum of %d",
				k.name, len(names), strings.Join(names, ", "), limit),
			Limit: int64(limit), Want: int64(len(names)),
		}
	}
	return nil
}

// argName is argument i's name for messages: the caller's, else the kernel's own, else its
// position.
func (k *kernel) argName(i int) string {
	switch {
	case i < len(k.params) && k.params[i].Name != "":
		return k.params[i].Name
	case i < len(k.declared) && k.declared[i].Name != "":
		return k.declared[i].Name
	}
	return fmt.Sprintf("%d", i)
}

// setArgs passes the arguments: a buffer's cl_mem handle, a scalar's bytes, or a local
// memory size with no value.
func (k *kernel) setArgs(args []device.Arg) error {
	if len(args) != k.numArgs {
		return fmt.Errorf("opencl: kernel %s takes %d arguments, got %d", k.name, k.numArgs, len(args))
	}
	cl := k.dev.cl
	for i, a := range args {
		if a.Symbol != "" {
			return fmt.Errorf("opencl: argument %d of %s: symbol %s: constant-memory symbols are CUDA's; OpenCL passes __constant arrays as buffer arguments", i, k.name, a.Symbol)
		}
		if kinds := btoi(a.Buffer != nil) + btoi(a.Scalar != nil) + btoi(a.Local != 0); kinds > 1 {
			return fmt.Errorf("opencl: argument %d of %s sets more than one of buffer, scalar and local size", i, k.name)
		}
		var st int32
		switch {
		case a.Buffer != nil:
			b, ok := a.Buffer.(*buffer)
			if !ok || b.dev != k.dev {
				return fmt.Errorf("opencl: argument %d of %s: buffer belongs to another device", i, k.name)
			}
			if b.mem == 0 {
				return fmt.Errorf("opencl: argument %d of %s: %w", i, k.name, errClosed)
			}
			st = cl.SetKernelArg(k.handle, uint32(i), unsafe.Sizeof(b.data), unsafe.Pointer(&b.data))
		case len(a.Scalar) > 0:
			st = cl.SetKernelArg(k.handle, uint32(i), uintptr(len(a.Scalar)), unsafe.Pointer(&a.Scalar[0]))
		case a.Local > 0:
			st = cl.SetKernelArg(k.handle, uint32(i), uintptr(a.Local), nil)
		default:
			return fmt.Errorf("opencl: argument %d of %s has no buffer, scalar or local size", i, k.name)
		}
		if st != 0 {
			err := check("clSetKernelArg", st)
			if Status(st) == statusInvalidArgSize {
				err = fmt.Errorf("%w: kernel %s's parameter %d does not take %d bytes", err, k.name, i, argSize(a))
			}
			return &device.RuntimeError{Op: fmt.Sprintf("set argument %d", i), Err: &device.ArgError{Index: i, Err: err}}
		}
	}
	return nil
}

// Release frees the kernel, and its program when no other kernel uses it; it is harmless
// to call twice or after the device closed.
func (k *kernel) Release() {
	if k.handle == 0 {
		return
	}
	if !k.dev.closed {
		k.dev.cl.ReleaseKernel(k.handle)
		if k.program.refs--; k.program.refs == 0 {
			k.dev.cl.ReleaseProgram(k.program.handle)
		}
		delete(k.dev.kernels, k)
	}
	k.handle, k.program = 0, nil
}

// argSize is how many bytes setArgs passes for a.
func argSize(a device.Arg) int {
	switch {
	case a.Buffer != nil:
		return int(unsafe.Sizeof(uintptr(0))) // a cl_mem handle
	case a.Scalar != nil:
		return len(a.Scalar)
	}
	return a.Local
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
