// Package device is the seam between ktune and the hardware that runs kernels. A backend
// (OpenCL, host C, CUDA) lists its devices and opens one; a device compiles
// kernel source with preprocessor definitions, holds buffers and launches kernels, timing
// them with the device's own clock. Backends register themselves, as database/sql drivers
// do, and report why they are unavailable instead of failing to load.
//
// A Device and everything it returns must be used from one goroutine, the one that opened
// it, locked to its OS thread (runtime.LockOSThread): CUDA binds contexts to threads and
// some OpenCL runtimes expect it too.
package device

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"
)

// Backend is one way of running kernels.
type Backend interface {
	// Name identifies the backend: "opencl", "c", "cuda".
	Name() string
	// Languages lists the kernel languages it compiles ("opencl", "c", "cuda").
	Languages() []string
	// Devices lists the backend's devices. An error means the backend is unavailable and
	// says why (library not found, no platform, no compiler) in words a user can act on.
	Devices() ([]Info, error)
	// Open opens the device with the given index in Devices' list.
	Open(ctx context.Context, index int) (Device, error)
}

// Info describes a device and its limits.
type Info struct {
	Backend           string            `json:"backend"`
	Index             int               `json:"index"`
	Name              string            `json:"name"`
	Vendor            string            `json:"vendor,omitempty"`
	Platform          string            `json:"platform,omitempty"`
	Version           string            `json:"version,omitempty"` // device or runtime version
	Driver            string            `json:"driver,omitempty"`
	Type              string            `json:"type,omitempty"` // gpu, cpu, accelerator
	ComputeUnits      int               `json:"compute_units,omitempty"`
	ClockMHz          int               `json:"clock_mhz,omitempty"`
	MaxBlockSize      int               `json:"max_block_size,omitempty"`      // max work-group size / threads per block; 0 = no limit
	MaxBlockDims      [3]int            `json:"max_block_dims,omitempty"`      // per-dimension limits
	LocalMemBytes     int64             `json:"local_mem_bytes,omitempty"`     // local (shared) memory per block
	GlobalMemBytes    int64             `json:"global_mem_bytes,omitempty"`    // device memory
	MaxAllocBytes     int64             `json:"max_alloc_bytes,omitempty"`     // largest single buffer
	RegistersPerBlock int               `json:"registers_per_block,omitempty"` // CUDA
	Extra             map[string]string `json:"extra,omitempty"`

	// Peak is the device's theoretical throughput as far as the backend can derive it
	// (nil when it derives nothing): the bounds of efficiency against the peak.
	Peak *Peak `json:"peak,omitempty"`
}

// Define is a preprocessor definition injected into kernel source (-D name=value).
type Define struct {
	Name, Value string
}

// IsIdentifier reports whether s is a valid C identifier, and so a name a Define may have.
func IsIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_', 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z':
		case i > 0 && '0' <= r && r <= '9':
		default:
			return false
		}
	}
	return true
}

// Source is what a device compiles.
type Source struct {
	// Code is the kernel source text, taken to start at File's first line; code from
	// elsewhere in a file (a spec's inline code) starts with a #line directive saying
	// where, which compilers follow in their messages.
	Code     string
	File     string   // where it came from, for messages; also the directory for #include
	Kernel   string   // the function to launch (may carry template arguments for CUDA)
	Language string   // "opencl", "c", "c++", "cuda"
	Options  []string // compiler options as the user wrote them
	Defines  []Define // injected definitions, in order
	// Params is the kernel's parameter list. Backends that must generate a call wrapper
	// (host C) need it; others may ignore it.
	Params []Param
}

// Param is one parameter of a kernel function.
type Param struct {
	Name    string
	Type    string // element type for arrays, value type for scalars: float16, float32, float64, int8..int64, uint8..uint64
	Pointer bool   // an array (passed as a pointer) rather than a scalar
}

// Dim3 is a size in up to three dimensions.
type Dim3 [3]int

// Count is the product of the dimensions.
func (d Dim3) Count() int { return max(d[0], 1) * max(d[1], 1) * max(d[2], 1) }

// Launch is the launch geometry in CUDA terms: Grid blocks of Block threads. OpenCL runs
// it as a global size of Grid*Block work-items in work-groups of Block; host C ignores it.
type Launch struct {
	Grid  Dim3
	Block Dim3
	// SharedBytes is dynamically allocated shared memory per block (CUDA); OpenCL passes
	// local memory as Local arguments instead.
	SharedBytes int
}

// Arg is one kernel argument: exactly one of Buffer, Scalar or Local, or a Symbol with its
// contents in Scalar.
type Arg struct {
	Buffer Buffer // a device array
	Scalar []byte // a scalar value, in the kernel's binary representation (little endian)
	Local  int    // bytes of local (shared) memory allocated for this argument (OpenCL)
	// Symbol names a module-scope variable of the kernel's program (a CUDA __constant__
	// array) that receives Scalar's bytes before the launch. Such an argument is not
	// passed to the kernel; backends without symbols refuse it.
	Symbol string
}

// Device is an opened device.
type Device interface {
	Info() Info
	// Compile builds src. A source the compiler rejects gives a *CompileError holding the
	// compiler's log, a build that failed for the machine's sake (a full compile cache)
	// an *EnvironmentError; a launch that would break a device limit known after compiling (the
	// kernel's own maximum block size) is reported by Launch as a *LimitError.
	Compile(ctx context.Context, src Source) (Kernel, error)
	// Alloc allocates a device buffer of n bytes; n may be 0 (an argument of no
	// elements), which still gives a buffer to pass.
	Alloc(n int) (Buffer, error)
	// Close releases the device and everything it allocated.
	Close() error
}

// Buffer is device memory.
type Buffer interface {
	Size() int
	Write(src []byte) error // copies host data into the buffer (blocking)
	Read(dst []byte) error  // copies the buffer into host memory (blocking)
	Release()
}

// Copier is a Buffer that can be filled from another buffer of its device without a trip
// through host memory. On a GPU such a copy runs at the device's memory bandwidth, a
// write from the host at the bus's: the runner resets array arguments this way where the
// backend offers it.
type Copier interface {
	// CopyFrom copies the first n bytes of src, a buffer of the same device, into the
	// start of the buffer, after every launch before it, and returns when the copy is
	// done (so that its time is not counted as a later launch's).
	CopyFrom(src Buffer, n int) error
}

// Guarded is a Buffer whose data lies between inaccessible guard regions (host C): a
// kernel touching one faults. The runner reports them, so that a crash at such an
// address can name the array it overran.
type Guarded interface {
	// Guards returns the address ranges [lo, hi) just before and just after the data
	// that a kernel must not touch.
	Guards() (before, after [2]uintptr)
}

// Kernel is a compiled kernel.
type Kernel interface {
	// Run launches the kernel once and waits for it; it returns the execution time measured
	// by the device (profiling events, CUDA events, or a monotonic clock around the call
	// for host C). ctx bounds the wait where the runtime allows it.
	Run(ctx context.Context, l Launch, args []Arg) (time.Duration, error)
	// Attributes reports what the compiler says about the kernel: "max_block_size",
	// "local_mem_bytes", "private_mem_bytes", "registers"...
	Attributes() map[string]float64
	Release()
}

// Warner is a Kernel whose compiler had something to say about a build that succeeded:
// its warnings ("implicit conversion loses precision", "unused variable"), which often
// explain a wrong or slow result. The runner keeps them with the evaluation.
type Warner interface {
	// Warnings is what the compiler printed for the build, trimmed: "" when it printed
	// nothing. A backend that caches builds keeps it with the build, so that a kernel
	// taken from the cache says what its build said.
	Warnings() string
}

// OverrunChecker is a Kernel whose Run looks for writes outside its array arguments
// (device.Canary) after the first launch only, as the OpenCL and CUDA backends do, where
// it costs a read from the device. CheckOverruns looks again, after the timed runs, so
// that a kernel that overran an array in a later launch alone fails itself rather than
// leaving the canary for the next kernel's first launch to be blamed for. It returns the
// error Run would have.
type OverrunChecker interface {
	CheckOverruns(args []Arg) error
}

// Declared is one parameter of a compiled kernel as its source declares it.
type Declared struct {
	Name string // the parameter's name
	// Decl is the declaration in the kernel language's words, for messages:
	// "float alpha", "__global float* out".
	Decl    string
	Pointer bool // passed as a pointer: an array, or local memory
	Local   bool // a pointer to local (shared) memory, which is passed as a size
	// Type is the value's type (scalars) or the element's (pointers) in Param's terms
	// (float32, int32...); for a vector type, its component's. "" where the backend
	// cannot tell (a typedef, a struct): then any type is taken for it.
	Type  string
	Lanes int // components of a vector type (float4: 4); 1 otherwise
}

// Declarer is a Kernel that reports its parameters, so that what a caller passes can be
// checked against them before the first launch, where a mismatch would be silently
// reinterpreted or crash.
type Declarer interface {
	// Declared returns the kernel's parameters. Where the runtime reports no more than
	// their number, detailed is false and the parameters are zero but for their count.
	Declared() (params []Declared, detailed bool)
}

// ArgError is a launch argument that the kernel refused (a value of another size than
// the parameter's). Backends wrap it in a *RuntimeError, and callers that know the
// argument by name say which it is.
type ArgError struct {
	Index int // the argument's position
	Err   error
}

// Error names the argument by its position.
func (e *ArgError) Error() string { return fmt.Sprintf("argument %d: %v", e.Index, e.Err) }

// Unwrap returns the argument's problem.
func (e *ArgError) Unwrap() error { return e.Err }

// CompileError is a source the compiler rejected.
type CompileError struct {
	Log string // the compiler's output
	Err error  // the underlying status, when there is one
}

// Error is the compiler's log, after "compile error".
func (e *CompileError) Error() string {
	if e.Log == "" {
		return fmt.Sprintf("compile error: %v", e.Err)
	}
	return "compile error:\n" + e.Log
}

// Unwrap returns the underlying status, when there is one.
func (e *CompileError) Unwrap() error { return e.Err }

// EnvironmentError is a failure of the machine rather than of the source: the folder a
// backend compiles into is full, over its quota, read-only or not writable, or the compiler
// was killed (the out-of-memory killer). It says nothing about the configuration, which
// may well build once the cause is gone: callers must not record it as the
// configuration's result.
type EnvironmentError struct {
	// Place names what failed in the user's words: "$KTUNE_CACHE (/x/hostc)", "the
	// compiler /usr/bin/cc".
	Place string
	// Err is the cause; errors.Is finds its errno (syscall.ENOSPC) where there is one.
	Err error
}

// Error names the place on the machine and what failed there.
func (e *EnvironmentError) Error() string { return e.Place + ": " + e.Err.Error() }

// Unwrap returns what failed.
func (e *EnvironmentError) Unwrap() error { return e.Err }

// LimitError is a launch that breaks a device limit (block size, local memory).
type LimitError struct {
	What        string // e.g. "block size 2048 exceeds the device's maximum work-group size 1024"
	Limit, Want int64
}

// Error says which device limit the configuration exceeds.
func (e *LimitError) Error() string { return "device limit exceeded: " + e.What }

// RuntimeError is a launch or execution that failed.
type RuntimeError struct {
	Op  string // what failed: "launch", "wait", "read"
	Err error
}

// Error names the operation that failed and why.
func (e *RuntimeError) Error() string { return fmt.Sprintf("runtime error in %s: %v", e.Op, e.Err) }

// Unwrap returns why the operation failed.
func (e *RuntimeError) Unwrap() error { return e.Err }

// ErrDeviceLost marks a runtime error after which the opened device cannot run anything
// more: a CUDA kernel that reads an illegal address poisons its context for the rest of
// the process. The device must be closed and the process replaced (package worker does).
var ErrDeviceLost = errors.New("the device context is lost")

// Observer measures a device beside kernel time, over a stretch of timed runs: energy and
// power, clocks. Names and units of what it reports are those of package spec's
// observables (energy in J per run, power in W, clocks in MHz).
type Observer interface {
	// Begin starts an observation.
	Begin() error
	// End ends the observation begun last; runs is how many kernel runs it covered. It
	// reports energy and power only when the observation lasted at least Window.
	End(runs int) (map[string]float64, error)
	// Window is the least wall time an observation needs for energy and power to mean
	// something (NVML's energy counter advances in steps of a few milliseconds).
	Window() time.Duration
}

// Observable is a Device that offers observers; Observers may return none.
type Observable interface {
	Observers() []Observer
}

// SettingNames are the device settings a spec may tune, as parameters of these names:
// the locked graphics clock (MHz), the locked memory clock (MHz) and the power limit (W).
var SettingNames = []string{"nvml_gr_clock", "nvml_mem_clock", "nvml_pwr_limit"}

// Settable is a Device whose settings (locked clocks, power limit) can be tuned. A device
// setting is never changed unless a spec asks for it by having a tunable parameter of the
// setting's name; the names are Kernel Tuner's (nvml_gr_clock, nvml_mem_clock,
// nvml_pwr_limit).
type Settable interface {
	// Settings lists the names of the settings the device can change.
	Settings() []string
	// Set applies one setting; an error says why it cannot be (no permission, a value
	// the device does not support).
	Set(name string, value float64) error
	// ResetSettings returns every setting Set changed to what it was.
	ResetSettings() error
}

// ErrUnavailable wraps why a backend cannot be used.
var ErrUnavailable = errors.New("backend unavailable")

var (
	mu       sync.RWMutex
	backends = map[string]Backend{}
)

// Register makes a backend available; it panics on a duplicate name (a programming error).
func Register(b Backend) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := backends[b.Name()]; dup {
		panic("device: Register called twice for " + b.Name())
	}
	backends[b.Name()] = b
}

// Backends returns the registered backends sorted by name.
func Backends() []Backend {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]Backend, 0, len(backends))
	for _, b := range backends {
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

// Lookup returns the backend with the given name.
func Lookup(name string) (Backend, bool) {
	mu.RLock()
	defer mu.RUnlock()
	b, ok := backends[name]
	return b, ok
}

// ForLanguage returns the registered backends that compile a language, in name order.
func ForLanguage(lang string) []Backend {
	var out []Backend
	for _, b := range Backends() {
		for _, l := range b.Languages() {
			if l == lang {
				out = append(out, b)
				break
			}
		}
	}
	return out
}
