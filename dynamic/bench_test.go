package dynamic_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/dynamic"
	"github.com/ktune/ktune/runner"
	"github.com/ktune/ktune/spec"
)

// BenchmarkCallAfterTuning measures a call of a tuned kernel through a dynamic tuner
// (dynamic) against a plain runner's RunWith of the same configuration on the same
// data (runner): the difference is the tuner's per-call overhead (the hand-off to its
// device goroutine). Both convert the typed data and copy the arrays in and out: the
// vector_add example's 1M floats, and the tests' axpy on 4096, where that copying is
// small beside the overhead. BENCHMARKS.md gives the figures.
func BenchmarkCallAfterTuning(b *testing.B) {
	openCL(b)
	s, err := spec.Load("../examples/vector_add/vector_add_opencl.yaml")
	if err != nil {
		b.Fatal(err)
	}
	const n = 1000000
	a, bb := make([]float32, n), make([]float32, n)
	for i := range a {
		a[i], bb[i] = float32(i%1000), 0.5
	}
	b.Run("vector_add_1M", func(b *testing.B) { benchCalls(b, s, dynamic.Data{"a": a, "b": bb}) })
	x, y := make([]float32, axpyN), make([]float32, axpyN)
	b.Run("axpy_4K", func(b *testing.B) { benchCalls(b, axpy(b), dynamic.Data{"x": x, "y": y, "alpha": float32(2)}) })
}

func benchCalls(b *testing.B, s *spec.Spec, data dynamic.Data) {
	ctx := context.Background()
	tu, err := dynamic.New(ctx, s, dynamic.Options{Backend: "opencl", Budget: 6, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer tu.Close()
	for tu.Tuning() {
		if _, err := tu.Run(ctx, data); err != nil {
			b.Fatal(err)
		}
	}
	res, err := tu.Run(ctx, data) // compiles the best once
	if err != nil {
		b.Fatal(err)
	}
	kernel := 0.0
	b.Run("dynamic", func(b *testing.B) {
		kernel = 0
		for b.Loop() {
			res, err := tu.Run(ctx, data)
			if err != nil {
				b.Fatal(err)
			}
			kernel += res.KernelMS
		}
		b.ReportMetric(kernel*1e6/float64(b.N), "kernel-ns/op")
	})
	b.Run("runner", func(b *testing.B) {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		be, _ := device.Lookup("opencl")
		dev, err := be.Open(ctx, 0)
		if err != nil {
			b.Fatal(err)
		}
		defer dev.Close()
		sp, err := s.Space()
		if err != nil {
			b.Fatal(err)
		}
		r := runner.New(s, sp, dev)
		defer r.Close()
		c, err := sp.ConfigOf(res.Config)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := r.RunWith(ctx, c, data); err != nil { // compiles it
			b.Fatal(err)
		}
		kernel = 0
		for b.Loop() {
			out, err := r.RunWith(ctx, c, data)
			if err != nil {
				b.Fatal(err)
			}
			kernel += out.KernelMS
		}
		b.ReportMetric(kernel*1e6/float64(b.N), "kernel-ns/op")
	})
}

// BenchmarkSwitchingSizes measures calls of tuned kernels of two sizes in turn
// (alternating, the axpy of the tests at N 4096 and 2048) against calls of one size only
// (one_size, N 4096 and 2048 in turn too, as two tuners): each size keeps its runner,
// its compiled best and its buffers, so switching costs nothing beyond the call. new_size
// is what a size's first call adds before its kernels compile: the spec at the new
// sizes (spec.Spec.WithConstants, which reads the kernel source again) and its space.
func BenchmarkSwitchingSizes(b *testing.B) {
	s := axpy(b)
	ctx := context.Background()
	data := map[int]dynamic.Data{}
	for _, n := range []int{4096, 2048} {
		x, y := make([]float32, n), make([]float32, n)
		data[n] = dynamic.Data{"x": x, "y": y, "alpha": float32(2)}
	}
	tuned := func(b *testing.B, ns ...int) *dynamic.Tuner {
		tu, err := dynamic.New(ctx, s, dynamic.Options{Backend: "opencl", Budget: 4, Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		for _, n := range ns {
			for range 5 { // the budget, and the best's first run
				if _, err := tu.RunSized(ctx, dynamic.Sizes{"N": float64(n)}, data[n]); err != nil {
					b.Fatal(err)
				}
			}
		}
		return tu
	}
	b.Run("alternating", func(b *testing.B) {
		tu := tuned(b, 4096, 2048)
		defer tu.Close()
		i := 0
		for b.Loop() {
			n := []int{4096, 2048}[i%2]
			i++
			if _, err := tu.RunSized(ctx, dynamic.Sizes{"N": float64(n)}, data[n]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("one_size", func(b *testing.B) {
		big, small := tuned(b, 4096), tuned(b, 2048)
		defer big.Close()
		defer small.Close()
		i := 0
		for b.Loop() {
			n, tu := 4096, big
			if i%2 == 1 {
				n, tu = 2048, small
			}
			i++
			if _, err := tu.RunSized(ctx, dynamic.Sizes{"N": float64(n)}, data[n]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("new_size", func(b *testing.B) {
		for b.Loop() {
			sized, err := s.WithConstants(map[string]float64{"N": 2048})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := sized.Space(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkCheckedCall measures what a check after tuning costs a call
// (Options.CheckEvery): calls of the tests' count-dependent axpy (countSpec) after
// tuning, through a tuner that checks every call and one that checks none, in turn on
// the same data (at N 4096, and at 1M through RunSized), so that the load of a shared
// machine weighs on both alike. The spec's rank makes the best 128 2 whatever the
// timings, so every check runs: the known-good configuration on the same data beside
// the best, and the outputs compared; in the _reference_kernel cases, the spec's
// reference kernel of its own (oddRef) instead, the judge of a spec that has one, and in
// the _host_reference cases a C reference on the host (hostRef, on the host C backend:
// the call's data copied to host buffers and the outputs back). It reports each tuner's
// time per call, and their difference, the cost of one check; CheckEvery N costs a call
// 1/N of it.
func BenchmarkCheckedCall(b *testing.B) {
	ctx := context.Background()
	for _, tc := range []struct {
		n    int
		ref  string // "", "kernel" or "host"
		name string
	}{{4096, "", "N4096"}, {1 << 20, "", "N1048576"}, {4096, "kernel", "N4096_reference_kernel"}, {1 << 20, "kernel", "N1048576_reference_kernel"},
		{4096, "host", "N4096_host_reference"}, {1 << 20, "host", "N1048576_host_reference"}} {
		n := tc.n
		s := countAxpy(b)
		switch tc.ref {
		case "kernel":
			s = oddAxpyOf(b, true, countKernel)
		case "host":
			s = oddAxpyJudged(b, countKernel, hostRefMapping, map[string]string{"ref.c": hostRef})
		}
		x, y := make([]float32, n), make([]float32, n)
		for i := range x {
			x[i], y[i] = float32(i%1000)/8, 0.5
		}
		data := dynamic.Data{"x": x, "y": y, "alpha": float32(2), "n": int32(n)}
		sizes := dynamic.Sizes{"N": float64(n)}
		b.Run(tc.name, func(b *testing.B) {
			tuned := func(every int) *dynamic.Tuner {
				tu, err := dynamic.New(ctx, s, dynamic.Options{Backend: "opencl", Budget: 6, Seed: 1, CheckEvery: every})
				if err != nil {
					b.Fatal(err)
				}
				for range 6 { // the budget, and the best's first run
					if _, err := tu.RunSized(ctx, sizes, data); err != nil {
						b.Fatal(err)
					}
				}
				return tu
			}
			plain, checking := tuned(0), tuned(1)
			defer plain.Close()
			defer checking.Close()
			var plainT, checkT time.Duration
			for b.Loop() {
				t0 := time.Now()
				if _, err := plain.RunSized(ctx, sizes, data); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				res, err := checking.RunSized(ctx, sizes, data)
				if err != nil {
					b.Fatal(err)
				}
				checkT += time.Since(t1)
				plainT += t1.Sub(t0)
				if !res.Checked || len(res.CheckErrors) > 0 {
					b.Fatalf("a call of the checking tuner: checked %v, %s", res.Checked, res.Failure)
				}
			}
			per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(b.N) }
			b.ReportMetric(per(plainT), "unchecked-ns/call")
			b.ReportMetric(per(checkT), "checked-ns/call")
			b.ReportMetric(per(checkT-plainT), "check-ns")
		})
	}
}
