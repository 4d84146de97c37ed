package simulator_test

import (
	"context"
	"os"
	"testing"

	"github.com/ktune/ktune/format"
	"github.com/ktune/ktune/simulator"
)

// BenchmarkRepeatRandomGEMM measures the goal of issue 4's speed table: random sampling
// on the 17,956-configuration GEMM space (RTX 3090, recorded mode), 50 runs of 1,600
// evaluations on one worker, as 'ktune bench --strategies random --budgets 1600
// --workers 1' runs them. It reports the real time per evaluation and evaluations per
// second; the goal is a million per second on one core.
func BenchmarkRepeatRandomGEMM(b *testing.B) {
	f, err := os.Open("../testdata/benchmark_hub/kerneltuner_gemm/RTX_3090.json.gz")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	rec, err := format.Read(f, "gemm")
	if err != nil {
		b.Fatal(err)
	}
	sim, err := simulator.New(rec, simulator.Options{})
	if err != nil {
		b.Fatal(err)
	}
	const runs, budget = 50, 1600
	b.ReportAllocs()
	for b.Loop() {
		if _, err := simulator.Repeat(context.Background(), sim, simulator.RepeatOptions{
			Strategy: "random", Budget: budget, Repeats: runs, Workers: 1}); err != nil {
			b.Fatal(err)
		}
	}
	evals := float64(b.N * runs * budget)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1e3/evals, "µs/eval")
	b.ReportMetric(evals/b.Elapsed().Seconds(), "evals/s")
}
