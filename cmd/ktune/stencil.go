package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/ktune/ktune/format"
	"github.com/ktune/ktune/stencil"
)

func init() {
	register(&command{
		name:    "stencil",
		summary: "generate a symmetric stencil (seed 002) as a tunable OpenCL spec, its features, or train its performance model",
		usage: `[generate|features] [--dim 2|3] [--order N] [--shape star|box|random] [--seed S] [--steps S] [flags]
       ktune stencil train RECORDING... [-o MODEL] [--test RECORDING]... [--trees N] [--depth D] [--seed S] [--json]

Makes a stencil as GSTuner does (seed 002): star (the axes out to the order), box (the
whole cube of the order) or random (the paper's Algorithm 1: points sampled order by order
in one orthant, each adjacent to one of the order below, then mirrored into every orthant),
with one coefficient per mirror class, a multiple of 1/64 drawn from --seed: the same
options give the same stencil.

  generate  writes a ktune kernel spec (YAML) to -o (default: standard output) that tunes
            one sweep of the stencil over a grid of doubles (--size, default 4096,4096 in
            2D and 256,256,256 in 3D): an OpenCL kernel, inline, whose parameters are the
            paper's optimisations for an OpenCL kernel (block sizes; block or cyclic
            merging of rows, not both; in 3D streaming along z, concurrent in tiles, and
            retiming and prefetching, which need streaming: Table 1's constraints as
            restrictions), verified against a plain C function on the host that adds the
            same products in the same order; its objective is Gcells/s, with GFLOP/s
            beside it. Tune it with 'ktune tune FILE'. With --steps S above 1 (2D), a run
            is S sweeps, the kernel launched with in and out swapped between launches,
            and the spec also tunes temporal blocking (Table 1's optimisation 6):
            temporal_block sweeps per launch (the divisors of S up to 8) in local memory,
            each work-group over a tile that loses a halo of the order per sweep on each
            side (so block sizes above 2 * order * temporal_block), without merging.
  features  prints the paper's feature set of the stencil (Table 2): order, nnz, sparsity,
            and per order and per step (Manhattan distance) the non-zeros and their ratio
            to nnz, the centre counted among the non-zeros; --json prints them as JSON
            with the points and coefficients.
  train     fits seed 002's performance model (Section 4.4) to recordings of generated
            stencils' specs (a Kernel Tuner cache, T4 or KTT file, as 'ktune export'
            writes a 'ktune tune' run; the kernel name, random2d3r_s14 or star3d2r, says
            the stencil) and writes it to -o (default stencil-model.json): the kernel time
            of a setting from the stencil's features and the setting zero-padded to every
            optimisation's parameters (log2 of numbers, switches 0 or 1, 0 for what its
            combination lacks). ktune's model is gradient-boosted regression trees on the
            log of the time per stencil point (--trees rounds, default 150, of depth
            --depth, default 3,
            each on 80% of the measurements drawn from --seed) where the paper has an MLP:
            it learns from a few thousand measurements without tuning and needs no
            dependency. --test RECORDING (repeatable) reports the model's mean absolute
            percentage error (MAPE) on the stencils held out, beside that of predicting
            the training set's mean or median time, and the rank correlation (Spearman)
            of its predictions with the times, how well it orders a stencil's settings,
            which is what the sampling uses. 'ktune tune' and 'ktune simulate' use
            the model through mpga's sample=quota (see 'ktune help strategies').`,
		run: runStencil,
	})
}

func runStencil(ctx context.Context, env *cliEnv, args []string) error {
	c := lookup("stencil")
	fs := newFlags(env, c)
	var o stencil.Options
	countVar(fs, &o.Dim, "dim", 2, 2, "dimensions", "the stencil's dimensions: 2 or 3")
	countVar(fs, &o.Order, "order", 1, 1, "points", "the stencil's order (radius): its largest extent, 1 to 6")
	shape := fs.String("shape", "random", "star, box or random (Algorithm 1)")
	fs.Uint64Var(&o.Seed, "seed", 1, "random seed of the points (random) and coefficients")
	size := fs.String("size", "", "generate: the grid, NX,NY or NX,NY,NZ cells (default 4096,4096 or 256,256,256)")
	iterations := fs.Int("iterations", 0, "generate: the spec's timed runs per configuration (0: ktune's default)")
	steps := count(fs, "steps", 1, 1, "sweeps", "generate: sweeps (time steps) a run computes; above 1 (2D) tunes temporal blocking")
	out := fs.String("o", "", "generate: the spec file to write (default, or -: standard output); train: the model file (default stencil-model.json)")
	fs.StringVar(out, "out", "", "the same as -o")
	jsonOut := fs.Bool("json", false, "features, train: print JSON")
	var tests fileList
	fs.Var(&tests, "test", "train: a recording held out to measure the model's error on (repeatable)")
	trees := count(fs, "trees", 0, 0, "rounds", "train: boosting rounds (0: 150)")
	depth := count(fs, "depth", 0, 0, "levels", "train: the trees' depth (0: 3)")
	pos, err := parseFlags(env, c, fs, args)
	if err != nil {
		return err
	}
	action := "generate"
	if len(pos) > 0 {
		action, pos = pos[0], pos[1:]
	}
	if action == "train" {
		if len(pos) == 0 {
			return usageErr(env, c, "train: no recordings to train on")
		}
		path := *out
		if path == "" {
			path = "stencil-model.json"
		}
		return trainStencilModel(ctx, env, pos, tests, path, stencil.TrainOptions{Trees: *trees, Depth: *depth, Seed: o.Seed}, *jsonOut)
	}
	if len(pos) > 0 {
		return usageErr(env, c, "no arguments expected after %s, got %s", action, strings.Join(pos, " "))
	}
	if action != "generate" && action != "features" {
		return usageErr(env, c, "unknown action %q (want generate, features or train)", action)
	}
	o.Shape = stencil.Shape(*shape)
	if !slices.Contains(stencil.Shapes, o.Shape) {
		return usageErr(env, c, "--shape %s: want star, box or random", *shape)
	}
	if *iterations < 0 {
		return usageErr(env, c, "--iterations %d: want 0 or more", *iterations)
	}
	st, err := stencil.Generate(o)
	if err != nil {
		return usageErr(env, c, "%v", err)
	}
	if action == "features" {
		return printFeatures(env, st, *jsonOut)
	}
	so := stencil.SpecOptions{Iterations: *iterations, Steps: *steps}
	if *size != "" {
		for _, f := range strings.Split(*size, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 1 {
				return usageErr(env, c, "--size %s: want %d whole numbers separated by commas", *size, o.Dim)
			}
			so.Size = append(so.Size, n)
		}
	}
	data, err := stencil.Spec(st, so)
	if err != nil {
		return usageErr(env, c, "%v", err)
	}
	if *out == "" || *out == "-" {
		_, err = env.stdout.Write(data)
		return err
	}
	if err := os.WriteFile(*out, data, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(env.stderr, "wrote %s: %s, %d points, kernel %s\n", *out, st.Name, len(st.Points), st.Name)
	return nil
}

func printFeatures(env *cliEnv, st *stencil.Stencil, jsonOut bool) error {
	f := st.Features()
	if jsonOut {
		type point struct {
			Offset []int   `json:"offset"`
			Coef   float64 `json:"coefficient"`
		}
		v := struct {
			Name     string           `json:"name"`
			Dim      int              `json:"dim"`
			Features stencil.Features `json:"features"`
			Points   []point          `json:"points"`
		}{Name: st.Name, Dim: st.Dim, Features: f}
		for i, p := range st.Points {
			v.Points = append(v.Points, point{Offset: p[:st.Dim], Coef: st.Coefs[i]})
		}
		return writeJSON(env, v)
	}
	w := env.stdout
	fmt.Fprintf(w, "%s: %dD, order %d, %d points\n", st.Name, st.Dim, f.Order, f.NNZ)
	fmt.Fprintf(w, "nnz %d, sparsity %.4f\n", f.NNZ, f.Sparsity)
	for n, k := range f.NNZOrder {
		fmt.Fprintf(w, "order-%d: nnz %d, ratio %.4f\n", n+1, k, f.NNZOrderRatio[n])
	}
	for m, k := range f.NNZStep {
		fmt.Fprintf(w, "step-%d: nnz %d, ratio %.4f\n", m+1, k, f.NNZStepRatio[m])
	}
	return nil
}

// readStencilSamples reads the measurements of recordings of generated stencils.
func readStencilSamples(ctx context.Context, paths []string) ([]stencil.Sample, error) {
	var out []stencil.Sample
	for _, p := range paths {
		rec, err := format.OpenContext(ctx, p)
		if err != nil {
			return nil, err
		}
		s, err := stencil.RecordingSamples(rec)
		if err != nil {
			return nil, err
		}
		out = append(out, s...)
	}
	return out, nil
}

// stencilTestError is the error of a model on one held-out recording.
type stencilTestError struct {
	Recording    string  `json:"recording"`
	Stencil      string  `json:"stencil"`
	Measurements int     `json:"measurements"`
	ModelMAPE    float64 `json:"model_mape"`
	MeanMAPE     float64 `json:"mean_mape"`   // predicting the training set's mean time
	MedianMAPE   float64 `json:"median_mape"` // predicting the training set's median time
	Spearman     float64 `json:"spearman"`    // rank correlation of the model's predictions and the times
}

func trainStencilModel(ctx context.Context, env *cliEnv, paths, tests []string, out string, o stencil.TrainOptions, jsonOut bool) error {
	samples, err := readStencilSamples(ctx, paths)
	if err != nil {
		return err
	}
	m, err := stencil.Train(samples, o)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := m.Save(&buf); err != nil {
		return err
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		return err
	}
	mean, median := stencil.MeanMedianTime(samples)
	var errs []stencilTestError
	for _, p := range tests {
		held, err := readStencilSamples(ctx, []string{p})
		if err != nil {
			return err
		}
		e := stencilTestError{Recording: p, Stencil: held[0].Stencil.Name, Measurements: len(held)}
		meas := make([]float64, len(held))
		pred := make([]float64, len(held))
		for i, s := range held {
			meas[i], pred[i] = s.TimeMS, m.Predict(s.Stencil, s.Setting)
		}
		e.ModelMAPE = stencil.MAPE(pred, meas)
		e.Spearman = stencil.Spearman(pred, meas)
		for i := range pred {
			pred[i] = mean
		}
		e.MeanMAPE = stencil.MAPE(pred, meas)
		for i := range pred {
			pred[i] = median
		}
		e.MedianMAPE = stencil.MAPE(pred, meas)
		errs = append(errs, e)
	}
	if jsonOut {
		return writeJSON(env, struct {
			Model    string             `json:"model"`
			Stencils []string           `json:"stencils"`
			Samples  int                `json:"measurements"`
			Tests    []stencilTestError `json:"tests"`
		}{out, m.Stencils, m.Samples, errs})
	}
	fmt.Fprintf(env.stdout, "wrote %s: trained on %d measurements of %d stencils (%s)\n", out, m.Samples, len(m.Stencils), strings.Join(m.Stencils, ", "))
	for _, e := range errs {
		fmt.Fprintf(env.stdout, "%s (%d measurements): MAPE %.1f%% (predicting the mean: %.1f%%, the median: %.1f%%), rank correlation %.3f\n",
			e.Stencil, e.Measurements, e.ModelMAPE, e.MeanMAPE, e.MedianMAPE, e.Spearman)
	}
	return nil
}
