// Package hostc is the host C backend ("c"): kernels written in C or C++ (languages "c"
// and "c++") are compiled with the system's compiler into shared objects, loaded with
// dlopen (through purego, so the binary needs no cgo) and called on the host CPU.
//
// Compile puts the user's source and a generated call wrapper into one translation unit
// and builds it with `cc -O3 -march=native -fPIC -shared`, the user's options (which may
// override those), one -D per definition and -I for the source's directory. The wrapper,
// ktune_call_<kernel>, takes an array of argument pointers, calls the kernel and times the
// call with CLOCK_MONOTONIC, so Run measures the kernel and not the Go-to-C transition.
// C++ is compiled with $CXX (else c++, g++ or clang++), the wrapper being C++ with C
// linkage that calls the kernel by the name the spec gives: a function of C or C++
// linkage, qualified or a template's instance (matmul<float, TILE>). A device without a
// C++ compiler runs C kernels and says why it has none (Info.Extra's cxx_unavailable); a
// C++ kernel's compile there is a *device.EnvironmentError.
//
// Compiled objects are cached on disk by a hash of everything that decides their content:
// source, definitions, options, compiler and its version, the CPU (for -march=native)
// and the headers the source included. A configuration compiled once, by this process or
// by another one sharing the cache directory (see [CacheDir]), loads without running the
// compiler again. Writes are atomic renames and concurrent builders of one configuration
// serialise on a lock file, so parallel pre-compiling processes are safe. An object whose
// bytes no longer hash as when it was stored (damaged in place) is rebuilt, not loaded:
// the loader could die of it. A build that
// fails for the machine's sake (the cache's disk full, read-only or not writable) is a
// *device.EnvironmentError, not a compile error: only the compiler's own reports count,
// never diagnostics of the source, whatever their words. A compiler killed (the
// out-of-memory killer's SIGKILL) is a compile error of the configuration with a note.
//
// The device's memory is the host's, or the process's data limit (RLIMIT_DATA, a ktune
// worker's memory limit) where that is lower, as PoCL sizes its CPU device: a buffer
// larger is a device limit.
//
// Kernels run in this process. A kernel that faults (a segmentation fault, an abort, an
// endless loop) takes the process with it, and Run cannot interrupt a running kernel
// when its context ends: ktune runs device work in a supervised worker process for this
// reason. Buffers live outside the Go heap, so C code may keep and write through their
// addresses; they stay valid until released. Their data is 64-byte aligned and ends
// within 64 bytes of an inaccessible guard page, with another before the data's first
// page: a kernel that writes a few elements past either end of an array fails its launch
// with a runtime error naming the argument (canaries around the data are checked after
// every launch), and one that goes further faults on a guard page.
//
// As package device requires, use a device from one goroutine locked to its OS thread:
// OpenMP keeps a thread team per calling thread, so calls from changing threads would
// build new teams and time their start-up. OpenMP's runtime stays loaded once a kernel
// has pulled it in, because unloading it under its idle worker threads would crash them.
package hostc
