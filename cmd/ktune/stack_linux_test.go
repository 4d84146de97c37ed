package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/result"
)

// A kernel whose private array, times its block size, overflows a PoCL thread's stack
// crashes with a segmentation fault, whose message now says what that may mean on a CPU
// OpenCL device and what runs it: it said "the kernel crashed: SIGSEGV (segmentation
// fault)" alone (QA: 16 KiB of private floats in blocks of 1024 crashed, in blocks of 64
// ran, and ran in blocks of 1024 too under ulimit -s 65536).
func TestAPrivateArrayOverflowingPoCLsStackSaysSo(t *testing.T) {
	needBackend(t, "opencl")
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_STACK, &lim); err != nil || lim.Cur > 8<<20 {
		t.Skipf("the stack limit is over 8 MiB, or unlimited (%d, %v): 16 MiB of private arrays may fit", lim.Cur, err)
	}
	dir := t.TempDir()
	spec := `kernel:
  name: priv
  language: opencl
  code: |
    __kernel void priv(__global float *c, const int n) {
        float p[4096];
        int i = get_global_id(0);
        for (int j = 0; j < 4096; j++) p[j] = i + j;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (i < n) c[i] = p[i % 4096];
    }
parameters:
  - {name: block_size_x, values: [64, 1024]}
problem_size: [4096]
arguments:
  - {name: c, type: float32, length: 4096, output: true}
  - {name: n, type: int32, value: 4096}
iterations: 1
`
	if err := os.WriteFile(filepath.Join(dir, "priv.yaml"), []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	b, _ := device.Lookup("opencl")
	if devs, err := b.Devices(); err != nil || len(devs) == 0 || devs[0].Type != "cpu" {
		t.Skip("the first OpenCL device is not a CPU (PoCL)")
	}
	db := filepath.Join(dir, "k.db")
	if _, errOut, code := ktune(t, "tune", filepath.Join(dir, "priv.yaml"), "--strategy", "bruteforce", "--no-precompile", "--db", db); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	evals := evaluationsOf(t, db)
	if e := evals["64"]; e.Status != result.OK {
		t.Errorf("block_size_x=64: %v %q, want ok", e.Status, e.Message)
	}
	e := evals["1024"]
	want := "the kernel crashed: SIGSEGV (segmentation fault); on a CPU OpenCL device (PoCL) that is an access outside the kernel's arrays, or, " +
		"where it has private arrays, a work-group's private variables (their size times the block size) overflowing a thread's stack"
	if e.Status != result.RuntimeError || !strings.HasPrefix(e.Message, want) || !strings.Contains(e.Message, "ulimit -s") {
		t.Errorf("block_size_x=1024: %v %q, want a runtime_error saying %q...", e.Status, e.Message, want)
	}
}
