package runner_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/runner"
	"github.com/ktune/ktune/spec"
)

// BenchmarkFrameworkOverhead evaluates the GEMM example's default configuration again
// and again, as a tuning run's measuring worker does (on the host C backend, the C matrix
// multiply's, whose arrays are as large), and reports the medians of the
// evaluations' framework time (argument set-up, everything outside compiling, verifying
// and running the kernel) as framework-ms and of the Idle between them (the resets of
// its three 1 MiB arrays, output and inputs, while the tuner stores the result) as
// idle-ms.
func BenchmarkFrameworkOverhead(b *testing.B) {
	for _, c := range []struct{ backend, spec string }{
		{"opencl", "../examples/gemm/gemm.yaml"}, {"cuda", "../examples/gemm/gemm_cuda.yaml"}, {"c", "../examples/matmul_c/matmul.yaml"},
	} {
		b.Run(c.backend, func(b *testing.B) {
			dev := openBackend(b, c.backend)
			s, err := spec.Load(c.spec)
			if err != nil {
				b.Fatal(err)
			}
			s.Iterations = 1 // the timed runs are not framework time; fewer make it quicker
			sp, err := s.Space()
			if err != nil {
				b.Fatal(err)
			}
			cfg, err := sp.ConfigOf(s.Default)
			if err != nil {
				b.Fatal(err)
			}
			r := runner.New(s, sp, dev)
			defer r.Close()
			ctx := context.Background()
			if e := r.Evaluate(ctx, cfg, nil); e.Status != result.OK { // the reference, caches
				b.Fatalf("%v: %s", e.Status, e.Message)
			}
			var framework, idle []float64
			for b.Loop() {
				e := r.Evaluate(ctx, cfg, nil)
				if e.Status != result.OK {
					b.Fatalf("%v: %s", e.Status, e.Message)
				}
				framework = append(framework, e.FrameworkMS)
				t := time.Now()
				r.Idle()
				idle = append(idle, float64(time.Since(t).Nanoseconds())/1e6)
			}
			b.ReportMetric(median(framework), "framework-ms")
			b.ReportMetric(median(idle), "idle-ms")
		})
	}
}

func median(v []float64) float64 {
	slices.Sort(v)
	return v[len(v)/2]
}
