//go:build linux

package dl

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"unsafe"
)

// The CUDA and OpenCL backends bind functions whose parameters and results are Go
// strings (C strings in and out), pointers to Go variables, and char** out-parameters.
// These shapes are checked here against the C library, which every Linux has.
func TestBindingShapesTheBackendsUse(t *testing.T) {
	h, err := Open("libc.so.6")
	if err != nil {
		t.Skip(err)
	}
	var strlen func(s string) uintptr
	var strerror func(errnum int32) string
	var strtol func(s string, end **byte, base int32) int64
	var snprintf func(buf *byte, n uintptr, format string, v int32) int32
	for name, f := range map[string]any{"strlen": &strlen, "strerror": &strerror, "strtol": &strtol, "snprintf": &snprintf} {
		if err := Bind(f, h, name); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if n := strlen("sm_90"); n != 5 {
		t.Errorf("a string argument arrives as a C string of length %d, want 5", n)
	}
	if s := strerror(2); s != "No such file or directory" {
		t.Errorf("a returned C string reads %q", s)
	}
	var end *byte
	if v := strtol("8192 rest", &end, 10); v != 8192 || end == nil || *end != ' ' {
		t.Errorf("strtol: %d, end %v", v, end)
	} else if next := *(*byte)(unsafe.Add(unsafe.Pointer(end), 1)); next != 'r' {
		t.Errorf("the char** out-parameter points at %q, want 'r'", next)
	}
	buf := make([]byte, 16)
	if n := snprintf(&buf[0], uintptr(len(buf)), "sm_%d", 86); n != 5 || string(buf[:5]) != "sm_86" || buf[5] != 0 {
		t.Errorf("a buffer filled through a pointer: %d %q", n, buf)
	}
	if _, err := Lookup(h, "no_such_symbol_in_libc"); err == nil {
		t.Error("a missing symbol was found")
	}
	if _, err := Open("/nonexistent/libcuda.so.1"); err == nil {
		t.Error("a missing library opened")
	}
}

// Why a library failed to load is said every time: dlerror's message is the thread's that
// called dlopen, and a goroutine moved to another thread in between read an empty one.
func TestOpenSaysWhyEveryTime(t *testing.T) {
	const missing = "libktune-no-such-library.so.1"
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for range 8 {
		wg.Go(func() {
			for range 200 {
				if _, err := Open(missing); err == nil || !strings.Contains(err.Error(), missing) {
					select {
					case errs <- fmt.Sprint(err):
					default:
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Errorf("Open of a missing library: %q, want its name and the loader's reason", e)
	}
}
