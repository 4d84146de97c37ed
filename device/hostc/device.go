//go:build linux

package hostc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ktune/ktune/device"
)

// hostDevice is the host CPU with a C compiler, maybe a C++ compiler, and an object cache.
type hostDevice struct {
	info   device.Info
	tc     *toolchain
	cxx    *toolchain // the C++ compiler; nil when there is none, and cxxErr says why
	cxxErr error
	cache  *objectCache
	// limited says the memory info gives is the process's data limit, not the host's
	limited bool

	// Compile and Alloc may be called from several goroutines (a pre-compiling pool);
	// mu guards what they share.
	mu      sync.Mutex
	closed  bool
	kernels map[*kernel]struct{}
	buffers map[*buffer]struct{}
	allocs  atomic.Uint64 // buffers allocated, each with its own canary

	hits, builds atomic.Int64 // cache hits and compiler runs, for tests and logs
}

func newHostDevice(tc, cxx *toolchain, cxxErr error, cache *objectCache) *hostDevice {
	info := hostInfo(tc, cxx, cxxErr, cache.dir)
	return &hostDevice{
		info:    info,
		tc:      tc,
		cxx:     cxx,
		cxxErr:  cxxErr,
		cache:   cache,
		limited: info.MaxAllocBytes > 0 && info.MaxAllocBytes == dataLimit(),
		kernels: map[*kernel]struct{}{},
		buffers: map[*buffer]struct{}{},
	}
}

var errClosed = errors.New("host C device is closed")

// Info describes the host CPU.
func (d *hostDevice) Info() device.Info { return d.info }

// Compile builds src into a shared object, or takes it from the cache, and loads it.
func (d *hostDevice) Compile(ctx context.Context, src device.Source) (device.Kernel, error) {
	ks, _, err := d.compile(ctx, src, []device.Function{{Name: src.Kernel, Params: src.Params}})
	if err != nil {
		return nil, err
	}
	return ks[0], nil
}

var _ device.MultiCompiler = (*hostDevice)(nil)

// CompileFunctions implements device.MultiCompiler: one shared object, built once, with
// a call wrapper for each function.
func (d *hostDevice) CompileFunctions(ctx context.Context, src device.Source, fns []device.Function) ([]device.Kernel, error) {
	ks, failed, err := d.compile(ctx, src, fns)
	if err != nil && failed >= 0 {
		return nil, &device.FunctionError{Index: failed, Err: err}
	}
	return ks, err
}

// compile builds src with a wrapper for each of fns into one shared object, or takes it
// from the cache, and loads a kernel of each. A failure that is one function's alone (its
// name, its parameters, its wrapper's call) gives its index, others -1.
func (d *hostDevice) compile(ctx context.Context, src device.Source, fns []device.Function) ([]device.Kernel, int, error) {
	if d.isClosed() {
		return nil, -1, errClosed
	}
	u, failed, err := newUnitOf(src, fns)
	if err != nil {
		what := src.Kernel
		if failed >= 0 {
			what = fns[failed].Name
		}
		return nil, failed, fmt.Errorf("compile %s: %w", what, err)
	}
	tc := d.tc
	if u.lang == "c++" {
		if d.cxx == nil {
			// Every C++ configuration would fail alike: the machine lacks a tool, which
			// the run stops for, as for a cache it cannot write.
			return nil, -1, &device.EnvironmentError{Place: "the host C backend (C++ kernel " + u.kernel + ")", Err: d.cxxErr}
		}
		tc = d.cxx
	}
	key := tc.key(u)
	var ks []*kernel
	release := func() {
		for _, k := range ks {
			k.Release()
		}
		ks = nil
	}
	for attempt := 0; ; attempt++ {
		path, image, log, hit, err := d.cache.get(ctx, key, func(dir string) (string, []string, string, error) {
			return d.build(ctx, dir, tc, u)
		})
		if err != nil {
			// A cache that cannot be written fails every configuration alike.
			err = cacheFault(d.cache.dir, err)
			var ce *device.CompileError
			if errors.As(err, &ce) && len(u.calls) > 1 {
				if r := u.reported(ce.Log); len(r) == 1 {
					return nil, r[0], err // that function's wrapper does not compile
				}
			}
			return nil, -1, err
		}
		if hit {
			d.hits.Add(1)
		} else {
			d.builds.Add(1)
		}
		for _, c := range u.calls {
			var k *kernel
			if k, err = openKernel(d, path, image, c); err != nil {
				break
			}
			k.warnings = strings.TrimSpace(log)
			ks = append(ks, k)
		}
		if err == nil {
			slog.Debug("hostc: kernel loaded", "kernel", u.kernel, "functions", len(u.calls), "object", path, "cache_hit", hit)
			break
		}
		release()
		// An object that does not load is of no use in the cache.
		d.cache.evict(key, path)
		if !hit || attempt > 0 {
			// It compiled and linked but does not load: an undefined symbol, mostly.
			return nil, -1, &device.CompileError{Log: "the compiled object does not load: " + err.Error() + loadMemoryNote(err) + u.openMPSymbolNote(err), Err: err}
		}
		// A cached object that does not load was damaged or built elsewhere: build again.
		slog.Warn("hostc: cached object does not load; rebuilding", "object", path, "err", err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]device.Kernel, len(ks))
	for i, k := range ks {
		if d.closed {
			k.releaseLocked()
			continue
		}
		d.kernels[k] = struct{}{}
		out[i] = k
	}
	if d.closed {
		return nil, -1, errClosed
	}
	return out, -1, nil
}

// build runs the compiler of tc on u in dir and returns the object, the files it included
// and what the compiler printed (its warnings).
func (d *hostDevice) build(ctx context.Context, dir string, tc *toolchain, u *unit) (string, []string, string, error) {
	source := filepath.Join(dir, u.base+u.ext())
	object := filepath.Join(dir, u.base+".so")
	deps := filepath.Join(dir, u.base+".d")
	if err := os.WriteFile(source, []byte(u.text), 0o644); err != nil {
		return "", nil, "", err
	}
	args := append([]string{}, tc.cc[1:]...)
	args = append(args, u.flags...)
	args = append(args, "-MD", "-MF", deps, "-o", object, source)
	args = append(args, u.libs...)
	cmd := exec.CommandContext(ctx, tc.cc[0], args...)
	cmd.Env = append(os.Environ(), "LC_ALL=C") // messages in one language, quotes in ASCII
	cmd.WaitDelay = 5 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	if ctx.Err() != nil {
		return "", nil, "", fmt.Errorf("compile %s: %w", u.kernel, ctx.Err())
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		log := out.String()
		if err := d.environmentFault(log, exit); err != nil {
			return "", nil, "", err
		}
		if strings.TrimSpace(log) == "" {
			// A wrapper that fails quietly: how it ended is all there is to say.
			log = fmt.Sprintf("the compiler (%s) %s and printed nothing\n", strings.Join(tc.cc, " "), howEnded(exit))
		}
		log += killedNote(log, exit)
		if reported := u.reported(log); len(reported) > 0 {
			for _, j := range reported {
				c := u.calls[j]
				log += fmt.Sprintf("note: %s is the code ktune generates to call %s(%s); check that the source defines %s with these parameters (a scalar may also be of a type that holds all its values, and differ in sign)\n",
					c.file, c.kernel, c.signature(), c.kernel)
			}
			log += u.argumentNotes(log)
		}
		if float16Missing(log) {
			log += fmt.Sprintf("note: the compiler (%s) has no _Float16 for this target, which float16 (half) arguments need: GCC 12 or later and Clang 15 or later have it for x86-64 (SSE2) and AArch64; set $%s to such a compiler (and leave out options that target another machine), or give the arguments type float32\n",
				strings.Join(tc.cc, " "), compilerKinds[tc.lang].env)
		}
		if openMPMissing(log) {
			log += fmt.Sprintf("note: the compiler (%s) lacks the OpenMP runtime the spec asks for: install it (libomp-dev for clang, libgomp with gcc), or set $%s to a compiler that has it\n",
				strings.Join(tc.cc, " "), compilerKinds[tc.lang].env)
		}
		return "", nil, "", &device.CompileError{Log: log, Err: err}
	}
	if err != nil {
		// The compiler did not start (removed, out of processes): no fault of the source.
		return "", nil, "", &device.EnvironmentError{Place: "the compiler " + tc.cc[0], Err: err}
	}
	slog.Debug("hostc: compiled", "kernel", u.kernel, "duration", time.Since(start), "warnings", out.String())
	rule, err := os.ReadFile(deps)
	if err != nil {
		return "", nil, "", fmt.Errorf("compile %s: the compiler wrote no dependency list: %w", u.kernel, err)
	}
	return object, parseDeps(rule, source), out.String(), nil
}

// Alloc maps n bytes of host memory. A buffer larger than the machine's memory (or the
// process's data limit) is a device limit, as on the other backends, before anything is
// mapped or filled.
func (d *hostDevice) Alloc(n int) (device.Buffer, error) {
	if d.isClosed() {
		return nil, errClosed
	}
	if limit := d.info.MaxAllocBytes; limit > 0 && int64(n) > limit {
		of := "the host's memory"
		if d.limited {
			of = "this process's data limit (a ktune worker's --worker-memory)"
		}
		return nil, &device.LimitError{
			What:  fmt.Sprintf("buffer of %d bytes exceeds %s of %d bytes", n, of, limit),
			Limit: limit, Want: int64(n),
		}
	}
	b, err := newBuffer(d, n)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		b.releaseLocked()
		return nil, errClosed
	}
	d.buffers[b] = struct{}{}
	return b, nil
}

// Close releases every kernel and buffer still held; closing twice does nothing.
func (d *hostDevice) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil
	}
	d.closed = true
	for k := range d.kernels {
		k.releaseLocked()
	}
	for b := range d.buffers {
		b.releaseLocked()
	}
	clear(d.kernels)
	clear(d.buffers)
	return nil
}

func (d *hostDevice) isClosed() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.closed
}

// howEnded says how a process that failed ended: "exited with status 1", "was killed by
// signal SIGKILL (killed)".
func howEnded(exit *exec.ExitError) string {
	if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		sig := ws.Signal()
		return fmt.Sprintf("was killed by signal %s (%v)", unix.SignalName(sig), sig)
	}
	return fmt.Sprintf("exited with status %d", exit.ExitCode())
}

// openMPMissing reports whether a compiler's log says it cannot find OpenMP's runtime or
// header: clang without libomp ("cannot find -lomp", "'omp.h' file not found"), gcc without
// libgomp ("cannot find -lgomp", "omp.h: No such file").
func openMPMissing(log string) bool {
	for _, s := range []string{"cannot find -lomp", "cannot find -lgomp", "unable to find library -lomp", "'omp.h' file not found", "omp.h: No such file"} {
		if strings.Contains(log, s) {
			return true
		}
	}
	return false
}

// openMPSymbolNote says, when err is the loader's "undefined symbol: omp_..." and u was
// compiled without OpenMP, that the kernel calls OpenMP's runtime and should be compiled
// with it; "" otherwise.
func (u *unit) openMPSymbolNote(err error) string {
	_, sym, ok := strings.Cut(err.Error(), "undefined symbol: ")
	if !ok || !strings.HasPrefix(sym, "omp_") || slices.Contains(u.flags, "-fopenmp") {
		return ""
	}
	sym, _, _ = strings.Cut(sym, " ")
	return fmt.Sprintf("; %s is a function of OpenMP's runtime, which the kernel is not compiled with: set kernel.openmp: true in the spec (or add -fopenmp to its compiler_options)", sym)
}

// loadMemoryNote is what a failure to load a compiled object (err) says of memory: under
// a data limit (ktune's --worker-memory), the dynamic loader's "failed to map segment"
// and "cannot allocate memory" mean the process had no room left to map the object
// into, not that the configuration's code is wrong; "" otherwise.
func loadMemoryNote(err error) string {
	limit := dataLimit()
	if limit <= 0 {
		return ""
	}
	low := strings.ToLower(err.Error())
	if !strings.Contains(low, "failed to map segment") && !strings.Contains(low, "cannot allocate memory") {
		return ""
	}
	return fmt.Sprintf("; it ran out of memory: a worker's memory is limited to %.0f MiB (--worker-memory); give more if the configuration needs it", float64(limit)/(1<<20))
}
