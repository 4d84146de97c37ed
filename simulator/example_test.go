package simulator_test

import (
	"context"
	"fmt"

	"github.com/ktune/ktune/format"
	_ "github.com/ktune/ktune/format/all" // registers the Kernel Tuner, KTT and T4 readers
	"github.com/ktune/ktune/simulator"
	"github.com/ktune/ktune/strategy"
	"github.com/ktune/ktune/tuning"
)

// How well does a strategy find the optimum of a recorded space with 50 evaluations? Replay
// it 20 times (seeds 1-20) on Kernel Tuner's point-in-polygon cache of an RTX 2080 Ti.
func ExampleRepeat() {
	rec, err := format.Open("../testdata/benchmark_hub/kerneltuner_pnpoly/RTX_2080_Ti.json.gz")
	if err != nil {
		fmt.Println(err)
		return
	}
	sim, err := simulator.New(rec, simulator.Options{Mode: simulator.Recorded})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, name := range []string{"random", "auto"} {
		sum, err := simulator.Repeat(context.Background(), sim, simulator.RepeatOptions{
			Strategy: name, Budget: 50, Repeats: 20, Seed: 1})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%-6s mean fraction of optimum %.3f over %d runs of %.0f evaluations\n",
			name, sum.MeanFraction, len(sum.Runs), sum.MeanEvaluations)
	}
	// Output:
	// random mean fraction of optimum 0.950 over 20 runs of 50 evaluations
	// auto   mean fraction of optimum 0.980 over 20 runs of 50 evaluations
}

// One simulated tuning session: the simulator stands in for the device as the session's
// evaluator, and answers with the recorded results and their recorded time.
func ExampleSimulator() {
	rec, err := format.Open("../testdata/benchmark_hub/kerneltuner_pnpoly/RTX_2080_Ti.json.gz")
	if err != nil {
		fmt.Println(err)
		return
	}
	sim, err := simulator.New(rec, simulator.Options{Mode: simulator.Recorded})
	if err != nil {
		fmt.Println(err)
		return
	}
	st, err := strategy.New("firstils", map[string]any{"neighbourhood": "adjacent"})
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := tuning.New(sim.Space(), st, sim, tuning.Options{Budget: 100, Seed: 7})
	if err != nil {
		fmt.Println(err)
		return
	}
	sum, err := s.Run(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("stopped (%s) after %d evaluations; best %s\n", sum.Stop, sum.Evaluations, sim.Space().Format(sum.Best))
	_, at := sim.Optimum()
	fmt.Printf("fraction of optimum %.3f (the optimum is %s)\n", sim.FractionOfOptimum(sum.BestObjective), sim.Space().Format(at))
	// Output:
	// stopped (budget) after 100 evaluations; best between_method=1, block_size_x=224, tile_size=18, use_method=2
	// fraction of optimum 0.971 (the optimum is between_method=3, block_size_x=448, tile_size=20, use_method=0)
}
