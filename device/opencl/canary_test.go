package opencl

import (
	"context"
	"strings"
	"testing"

	"github.com/ktune/ktune/device"
)

// TestAKernelThatWritesOutsideAnArrayFailsNamingIt: one work-item writes x[w] = x[0] + 1.
// A write before x's start went unseen on PoCL (there was no canary before the data) and
// corrupted the host heap, crashing the process later with glibc's "free(): invalid next
// size". Now a write into either canary fails the kernel's first launch naming x and
// where, the data the kernel sees is the data written to the buffer, and the canary is
// whole again for the next kernel.
func TestAKernelThatWritesOutsideAnArrayFailsNamingIt(t *testing.T) {
	d := openTestDevice(t)
	const n = 1000
	const code = `__kernel void poke(__global int *x, const int w) { if (get_global_id(0) == 0) x[w] = x[0] + 1; }`
	for _, c := range []struct {
		name string
		w    int32
		says string
	}{
		{"inside", 0, ""},
		{"one before the start", -1, "the kernel wrote before the start of argument x (1000 elements of int32): the kernel indexes it below 0"},
		{"a row of 4096 before the start", -4096, "the kernel wrote before the start of argument x"},
		{"the last int of the canary before", -device.GuardBytes / 4, "the kernel wrote before the start of argument x"},
		{"one past the end", n, "the kernel wrote past the end of argument x (1000 elements of int32)"},
		{"inside again", n - 1, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := make([]int32, n)
			for i := range data {
				data[i] = int32(i + 41)
			}
			x := alloc(t, d, data)
			defer x.Release()
			k := compile(t, d, device.Source{Code: code, Kernel: "poke", Language: "opencl"})
			defer k.Release()
			args := []device.Arg{{Buffer: x}, scalar(t, c.w)}
			_, err := k.Run(context.Background(), device.Launch{Grid: device.Dim3{1, 1, 1}, Block: device.Dim3{1, 1, 1}}, args)
			if c.says == "" && err != nil || c.says != "" && (err == nil || !strings.Contains(err.Error(), c.says)) {
				t.Fatalf("x[%d] = x[0] + 1: %v, want an error saying %q", c.w, err, c.says)
			}
			if c.w >= 0 && c.w < n {
				data[c.w] = 42
			}
			got := make([]int32, n)
			read(t, x, got)
			for i := range got {
				if got[i] != data[i] {
					t.Fatalf("x[%d] = %d after the launch, want %d", i, got[i], data[i])
				}
			}
			// the canary was written again: another kernel that stays inside passes
			k2 := compile(t, d, device.Source{Code: code + "\n", Kernel: "poke", Language: "opencl"})
			defer k2.Release()
			args[1] = scalar(t, int32(1))
			if _, err := k2.Run(context.Background(), device.Launch{Grid: device.Dim3{1, 1, 1}, Block: device.Dim3{1, 1, 1}}, args); err != nil {
				t.Fatalf("a kernel inside x after it: %v", err)
			}
		})
	}
}
