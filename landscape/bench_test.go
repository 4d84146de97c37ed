package landscape

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ktune/ktune/format"
	"github.com/ktune/ktune/simulator"
	"github.com/ktune/ktune/space"
)

// BenchmarkAnalyzeGEMMCartesian analyses Kernel Tuner's GEMM on the RTX 3090 as seed 000
// searches it: the full product of 82,944 configurations, most of them restricted.
func BenchmarkAnalyzeGEMMCartesian(b *testing.B) {
	path := filepath.Join("..", "..", "shared", "data", "spaces", "benchmark_hub", "kerneltuner_gemm", "RTX_3090.json.gz")
	if _, err := os.Stat(path); err != nil {
		b.Skipf("no GEMM recording: %v", err)
	}
	rec, err := format.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	sim, err := simulator.New(rec, simulator.Options{Mode: simulator.Cartesian})
	if err != nil {
		b.Fatal(err)
	}
	l := FromSimulator(sim)
	for _, nb := range []space.Neighbourhood{space.Hamming, space.Adjacent} {
		b.Run(nb.String(), func(b *testing.B) {
			b.ReportAllocs()
			var a *Analysis
			for b.Loop() {
				a, err = Analyze(context.Background(), l, Options{Neighbourhood: nb})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(a.Edges), "edges")
			b.ReportMetric(float64(a.PageRankIterations), "iterations")
			b.ReportMetric(float64(a.Minima), "minima")
		})
	}
}
