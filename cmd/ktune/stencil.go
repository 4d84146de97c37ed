package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/ktune/ktune/stencil"
)

func init() {
	register(&command{
		name:    "stencil",
		summary: "generate a symmetric stencil (seed 002) as a tunable OpenCL spec, or its features",
		usage: `[generate|features] [--dim 2|3] [--order N] [--shape star|box|random] [--seed S] [flags]

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
            beside it. Tune it with 'ktune tune FILE'.
  features  prints the paper's feature set of the stencil (Table 2): order, nnz, sparsity,
            and per order and per step (Manhattan distance) the non-zeros and their ratio
            to nnz, the centre counted among the non-zeros; --json prints them as JSON
            with the points and coefficients.`,
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
	out := fs.String("o", "", "generate: the spec file to write (default, or -: standard output)")
	fs.StringVar(out, "out", "", "the same as -o")
	jsonOut := fs.Bool("json", false, "features: print JSON")
	pos, err := parseFlags(env, c, fs, args)
	if err != nil {
		return err
	}
	action := "generate"
	if len(pos) > 0 {
		action, pos = pos[0], pos[1:]
	}
	if len(pos) > 0 {
		return usageErr(env, c, "no arguments expected after %s, got %s", action, strings.Join(pos, " "))
	}
	if action != "generate" && action != "features" {
		return usageErr(env, c, "unknown action %q (want generate or features)", action)
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
	so := stencil.SpecOptions{Iterations: *iterations}
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
