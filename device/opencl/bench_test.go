package opencl

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ktune/ktune/device"
)

// BenchmarkLaunch measures the cost of one Run of a kernel that does next to nothing:
// setting arguments, enqueueing, waiting and reading the profiling event. ns/op is the
// framework's overhead per evaluation; device-ns/op is what the device reports.
func BenchmarkLaunch(b *testing.B) {
	d := openTestDevice(b)
	k := compile(b, d, device.Source{
		Code:   "__kernel void tiny(__global int* x, int v) { if (get_global_id(0) == 0) x[0] = v; }",
		Kernel: "tiny",
	})
	defer k.Release()
	buf := alloc(b, d, 4)
	args := []device.Arg{{Buffer: buf}, scalar(b, int32(1))}
	launch := device.Launch{Grid: device.Dim3{1, 1, 1}, Block: device.Dim3{1, 1, 1}}
	ctx := context.Background()
	var onDevice time.Duration
	b.ReportAllocs()
	for b.Loop() {
		took, err := k.Run(ctx, launch, args)
		if err != nil {
			b.Fatal(err)
		}
		onDevice += took
	}
	b.ReportMetric(float64(onDevice.Nanoseconds())/float64(b.N), "device-ns/op")
}

// nonce makes every cold compile's source unique, so that no build cache (PoCL keeps one
// in ~/.cache/pocl) can answer it, even across runs of the benchmark.
var nonce atomic.Int64

// BenchmarkCompile measures building a small kernel from source ("cold", never built
// before) and rebuilding the same source and options ("cached", which PoCL serves from its
// build cache).
func BenchmarkCompile(b *testing.B) {
	const code = `
__kernel void saxpy(__global const float* x, __global float* y, const float a, const int n) {
	int i = get_global_id(0);
	if (i < n) y[i] = a * x[i] + y[i] * FACTOR;
}
`
	d := openTestDevice(b)
	ctx := context.Background()
	build := func(b *testing.B, defines []device.Define) {
		k, err := d.Compile(ctx, device.Source{Code: code, Kernel: "saxpy", Defines: defines})
		if err != nil {
			b.Fatal(err)
		}
		k.Release()
	}
	b.Run("cold", func(b *testing.B) {
		start := time.Now().UnixNano()
		for b.Loop() {
			build(b, []device.Define{
				{Name: "FACTOR", Value: "1.0f"},
				{Name: "KTUNE_NONCE", Value: fmt.Sprint(start, "_", nonce.Add(1))},
			})
		}
	})
	b.Run("cached", func(b *testing.B) {
		defines := []device.Define{{Name: "FACTOR", Value: "1.0f"}}
		build(b, defines) // fill the cache
		for b.Loop() {
			build(b, defines)
		}
	})
}
