package analysis_test

import (
	"context"
	"fmt"

	"github.com/ktune/ktune/analysis"
	"github.com/ktune/ktune/format"
	_ "github.com/ktune/ktune/format/all" // registers the Kernel Tuner, KTT and T4 readers
)

// How hard is a recorded space to tune, and which parameters matter? Analyze Kernel
// Tuner's point-in-polygon cache of an RTX 2080 Ti: its landscape under the adjacent
// neighbourhood (local minima, the proportion of PageRank centrality on minima within 5%
// of the optimum, C_0.05) and its parameters' significance and Sobol indices.
func ExampleAnalyze() {
	rec, err := format.Open("../testdata/benchmark_hub/kerneltuner_pnpoly/RTX_2080_Ti.json.gz")
	if err != nil {
		fmt.Println(err)
		return
	}
	o := analysis.Defaults() // everything, as the papers compute it
	o.Seed = 1               // the bootstrap intervals' draws
	r, err := analysis.Analyze(context.Background(), analysis.Input{Name: "pnpoly/RTX_2080_Ti", Rec: rec}, o)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: %d configurations, optimum %.4g ms at %s\n", r.Name, r.Configurations, r.Optimum, r.OptimumConfig)
	l := r.Landscape
	fmt.Printf("%d local minima under the %s neighbourhood; C_0.05 = %.3f\n", l.Minima, l.Neighbourhood, l.ProportionAt(0.05))
	for i, c := range r.Significance {
		fmt.Printf("%-14s Spearman %+.2f  Sobol first %.2f total %.2f\n", c.Param, c.Spearman, r.Sobol.First[i].Value, r.Sobol.Total[i].Value)
	}
	// Output:
	// pnpoly/RTX_2080_Ti: 4092 configurations, optimum 0.01591 ms at between_method=3, block_size_x=448, tile_size=20, use_method=0
	// 79 local minima under the adjacent neighbourhood; C_0.05 = 0.318
	// between_method Spearman +0.01  Sobol first 0.00 total 0.00
	// block_size_x   Spearman -0.08  Sobol first 0.16 total 0.44
	// tile_size      Spearman -0.87  Sobol first 0.56 total 0.83
	// use_method     Spearman +0.03  Sobol first 0.00 total 0.00
}
