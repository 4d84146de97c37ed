//go:build linux

package hostc

import (
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"maps"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/ktune/ktune/device"
)

// rtldNoload is glibc's and musl's RTLD_NOLOAD, which purego does not name.
const rtldNoload = 0x4

// kernel is a loaded shared object and its call wrapper.
//
// Run passes arguments through an arena mapped outside the Go heap: the wrapper's pointer
// array, a slot per scalar and the measured nanoseconds. The rules for passing memory to
// C forbid handing it Go memory that holds Go pointers, and a fixed arena also makes a
// call allocate nothing.
type kernel struct {
	dev    *hostDevice
	params []device.Param
	path   string // the shared object
	handle uintptr
	fn     uintptr
	arena  []byte
	ptrs   []uintptr // the pointer array, inside arena
	bufs   []*buffer // the buffer of each array argument of the call in progress, nil for scalars
	attrs  map[string]float64
	// warnings is what the compiler printed for the object's build, trimmed.
	warnings string
}

var _ device.Warner = (*kernel)(nil)

// Warnings is what the compiler printed for the kernel's build: its warnings.
func (k *kernel) Warnings() string { return k.warnings }

// Layout of the arena: len(params) pointers, then len(params) 8-byte scalar slots, then
// the int64 the wrapper writes the duration to.
func (k *kernel) slot(i int) []byte {
	off := 8 * (len(k.params) + i)
	return k.arena[off : off+8]
}

func (k *kernel) nsOffset() int { return 16 * len(k.params) }

// openKernel loads the object at path and finds c's wrapper in it. image holds the
// object's bytes when the caller has read them already (a cache hit), else nil.
func openKernel(dev *hostDevice, path string, image []byte, c *call) (*kernel, error) {
	h, err := purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		return nil, err
	}
	fn, err := purego.Dlsym(h, c.symbol)
	if err != nil {
		purego.Dlclose(h)
		return nil, err
	}
	pinThreadRuntimes(path, image)
	size := 16*len(c.params) + 8
	arena, err := syscall.Mmap(-1, 0, (size+os.Getpagesize()-1)/os.Getpagesize()*os.Getpagesize(),
		syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		purego.Dlclose(h)
		return nil, fmt.Errorf("argument arena: %w", err)
	}
	k := &kernel{dev: dev, params: c.params, path: path, handle: h, fn: fn, arena: arena, attrs: map[string]float64{},
		bufs: make([]*buffer, len(c.params))}
	if len(c.params) > 0 {
		k.ptrs = unsafe.Slice((*uintptr)(unsafe.Pointer(&arena[0])), len(c.params))
	}
	if image != nil {
		k.attrs["binary_bytes"] = float64(len(image))
	} else if st, err := os.Stat(path); err == nil {
		k.attrs["binary_bytes"] = float64(st.Size())
	}
	return k, nil
}

var pinned struct {
	sync.Mutex
	libs map[string]uintptr
}

// pinThreadRuntimes keeps the thread-pool runtimes (OpenMP's) that the object at path
// links against loaded for good. When the last kernel using libgomp is closed, dlclose
// would unload it while its pool threads sleep or spin in its code, and they would crash
// the process on waking. Only the object's direct dependencies are looked at: asking the
// loader about libraries that are not there costs a search of the library path.
//
// image is the object's bytes when they have been read already, else nil.
func pinThreadRuntimes(path string, image []byte) {
	var f *elf.File
	var err error
	if image != nil {
		f, err = elf.NewFile(bytes.NewReader(image))
	} else {
		f, err = elf.Open(path)
	}
	if err != nil {
		return
	}
	libs, _ := f.ImportedLibraries()
	f.Close()
	pinned.Lock()
	defer pinned.Unlock()
	for _, lib := range libs {
		if pinned.libs[lib] != 0 || !(strings.HasPrefix(lib, "libgomp") || strings.HasPrefix(lib, "libomp") || strings.HasPrefix(lib, "libiomp")) {
			continue
		}
		// RTLD_NOLOAD takes a reference only if the library is already in the process;
		// the reference is never dropped.
		if h, err := purego.Dlopen(lib, purego.RTLD_NOW|rtldNoload); err == nil {
			if pinned.libs == nil {
				pinned.libs = map[string]uintptr{}
			}
			pinned.libs[lib] = h
		}
	}
}

// Run calls the kernel once with args and returns the duration the wrapper measured
// around the call. The launch geometry means nothing on the host and is ignored. ctx is
// checked before the call; a call in progress cannot be interrupted. A kernel that wrote
// outside an array argument's data (see buffer) gives a *device.RuntimeError that names
// the argument.
func (k *kernel) Run(ctx context.Context, _ device.Launch, args []device.Arg) (time.Duration, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if k.fn == 0 {
		return 0, &device.RuntimeError{Op: "launch", Err: fmt.Errorf("kernel %w", errReleased)}
	}
	if len(args) != len(k.params) {
		return 0, &device.RuntimeError{Op: "launch", Err: fmt.Errorf("%d arguments for %d parameters", len(args), len(k.params))}
	}
	for i, a := range args {
		p, err := k.arg(i, a)
		if err != nil {
			return 0, &device.RuntimeError{Op: "launch", Err: fmt.Errorf("argument %d (%s): %w", i, k.params[i].Name, err)}
		}
		k.ptrs[i] = p
		k.bufs[i], _ = a.Buffer.(*buffer)
	}
	base := uintptr(unsafe.Pointer(&k.arena[0]))
	purego.SyscallN(k.fn, base, base+uintptr(k.nsOffset()))
	ns := *(*int64)(unsafe.Pointer(&k.arena[k.nsOffset()]))
	var overruns []string
	for i, b := range k.bufs {
		if b == nil {
			continue
		}
		if where := b.overrun(); where != "" {
			overruns = append(overruns, k.overrunMessage(i, b, where))
		}
	}
	if overruns != nil {
		return time.Duration(max(ns, 0)), &device.RuntimeError{Op: "launch", Err: errors.New(strings.Join(overruns, "; "))}
	}
	return time.Duration(max(ns, 0)), nil
}

// overrunMessage says that the kernel wrote where ("past the end", "before the start") of
// argument i's buffer b, in the words of every backend (device.OverrunMessage).
func (k *kernel) overrunMessage(i int, b *buffer, where string) string {
	p := k.params[i]
	return device.OverrunMessage(p.Name, p.Type, b.size, where)
}

// arg is the pointer the wrapper receives for argument i.
func (k *kernel) arg(i int, a device.Arg) (uintptr, error) {
	p := k.params[i]
	switch {
	case a.Symbol != "":
		return 0, fmt.Errorf("symbol %s: constant-memory symbols are a CUDA notion; the host C backend has none", a.Symbol)
	case a.Local != 0:
		return 0, errors.New("local memory arguments are an OpenCL notion; the host C backend has none (declare the array in the kernel)")
	case a.Buffer != nil:
		if !p.Pointer {
			return 0, fmt.Errorf("a buffer for a scalar parameter of type %s", p.Type)
		}
		b, ok := a.Buffer.(*buffer)
		if !ok {
			return 0, fmt.Errorf("a %T is not a host C buffer", a.Buffer)
		}
		addr := b.addr()
		if addr == 0 {
			return 0, fmt.Errorf("buffer %w", errReleased)
		}
		return addr, nil
	case a.Scalar != nil:
		if p.Pointer {
			return 0, fmt.Errorf("a scalar for an array parameter of type %s", p.Type)
		}
		if want := cTypes[p.Type].size; len(a.Scalar) != want {
			return 0, fmt.Errorf("%d bytes for a scalar of type %s, want %d", len(a.Scalar), p.Type, want)
		}
		s := k.slot(i)
		copy(s, a.Scalar)
		return uintptr(unsafe.Pointer(&s[0])), nil
	default:
		return 0, errors.New("empty argument: set a buffer or a scalar")
	}
}

// Attributes reports the shared object's size in bytes as "binary_bytes".
func (k *kernel) Attributes() map[string]float64 {
	return maps.Clone(k.attrs)
}

// Release closes the shared object; releasing twice does nothing.
func (k *kernel) Release() {
	k.dev.mu.Lock()
	defer k.dev.mu.Unlock()
	k.releaseLocked()
	delete(k.dev.kernels, k)
}

// releaseLocked closes the shared object; the caller holds the device's lock.
func (k *kernel) releaseLocked() {
	if k.fn == 0 {
		return
	}
	k.fn = 0
	k.ptrs = nil
	purego.Dlclose(k.handle)
	syscall.Munmap(k.arena)
	k.arena = nil
}
