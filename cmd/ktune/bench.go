package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ktune/ktune/benchmark"
	"github.com/ktune/ktune/simulator"
	"github.com/ktune/ktune/strategy"
)

func init() {
	register(&command{
		name:    "bench",
		summary: "benchmark strategies on recorded spaces (seed 000's harness and competition)",
		usage: `FILE... [--strategies a,b,...] [--budgets 25,50,...] [--repeats 50] [--seed S]
          [--mode cartesian|recorded] [--alpha 0.05] [--csv OUT] [--json]

Runs every strategy on every recorded space (Kernel Tuner cache, T4 or KTT files) at every
budget, --repeats times each (run i uses seed S+i for every strategy), and prints the mean
and standard deviation of the fraction of the optimum reached and the mean evaluations
used. Then the competition of seed 000, Section VI-B: a two-sample independent t-test
(pooled variance) between every pair of strategies per space and budget; a significantly
better mean (p < --alpha) is a win, summed for low (<= 200) and medium (> 200) budgets.
--plot DIR draws the curves of seed 000's Fig. 2 and the win heat maps of its Fig. 1.`,
		run: runBench,
	})
}

func runBench(ctx context.Context, env *cliEnv, args []string) error {
	c := lookup("bench")
	fs := newFlags(env, c)
	names := fs.String("strategies", "random,bruteforce", "comma-separated strategy names (see 'ktune help strategies')")
	budgets := fs.String("budgets", "25,50,100,200,400,800,1600", "comma-separated budgets (unique evaluations)")
	repeats := fs.Int("repeats", 50, "runs per strategy, space and budget")
	seed := fs.Uint64("seed", 1, "seed of the first run")
	modeName := fs.String("mode", "cartesian", "cartesian (seed 000's setting) or recorded")
	alpha := fs.Float64("alpha", 0.05, "significance level of the t-tests")
	csvPath := fs.String("csv", "", "also write the table as CSV to this file")
	plotDir := fs.String("plot", "", "write figures (SVG and PNG) into this directory: fraction of optimum against budget per space, and win heat maps")
	workers := fs.Int("workers", 0, "parallel runs (0: all cores)")
	jsonOut := fs.Bool("json", false, "print JSON (cells with every run's fraction, and the competition)")
	files, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return usageErr(env, c, "give at least one recorded space")
	}
	mode, err := simulator.ParseMode(*modeName)
	if err != nil {
		return usageErr(env, c, "%v", err)
	}
	var cfg benchmark.Config
	for _, n := range strings.Split(*names, ",") {
		n = strings.TrimSpace(n)
		if _, ok := strategy.Lookup(n); !ok {
			return usageErr(env, c, "unknown strategy %q (have %s)", n, strings.Join(strategy.Names(), ", "))
		}
		cfg.Strategies = append(cfg.Strategies, benchmark.Strategy{Name: n})
	}
	for _, b := range strings.Split(*budgets, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(b))
		if err != nil || v <= 0 {
			return usageErr(env, c, "--budgets: %q is not a positive number", b)
		}
		cfg.Budgets = append(cfg.Budgets, v)
	}
	for _, f := range files {
		rec, err := openRecording(f)
		if err != nil {
			return err
		}
		sim, err := simulator.New(rec, simulator.Options{Mode: mode})
		if err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(f), ".gz"), ".json")
		if d := filepath.Base(filepath.Dir(f)); d != "." {
			name = d + "/" + name
		}
		cfg.Spaces = append(cfg.Spaces, benchmark.Space{Name: name, Sim: sim})
	}
	cfg.Repeats, cfg.Seed, cfg.Workers = *repeats, *seed, *workers
	if isTerminal(env.stderr) {
		p := newProgress(env.stderr, "cells")
		cfg.Progress = func(done, total int) { p.update(done, total, "") }
		defer p.finish()
	}
	cells, err := benchmark.Run(ctx, cfg)
	if err != nil {
		return err
	}
	scores := benchmark.Compete(cells, *alpha)
	if *csvPath != "" {
		if err := writeBenchCSV(*csvPath, cells); err != nil {
			return err
		}
	}
	var figures []string
	if *plotDir != "" {
		f, err := benchmark.PlotCurves(cells, *plotDir)
		if err != nil {
			return err
		}
		figures = append(figures, f...)
		for _, r := range []struct {
			name, label string
			lo, hi      int
		}{{"low", "budgets <= 200", 0, 200}, {"medium", "budgets > 200", 201, 1 << 30}} {
			f, err := benchmark.PlotCompetition(cells, *alpha, r.lo, r.hi, r.name, r.label, *plotDir)
			if err != nil {
				return err
			}
			figures = append(figures, f...)
		}
	}
	if *jsonOut {
		return writeJSON(env, struct {
			Figures []string          `json:"figures,omitempty"`
			Mode    string            `json:"mode"`
			Alpha   float64           `json:"alpha"`
			Cells   []benchmark.Cell  `json:"cells"`
			Scores  []benchmark.Score `json:"competition"`
		}{figures, mode.String(), *alpha, cells, scores})
	}
	w := env.stdout
	for _, sp := range cfg.Spaces {
		fmt.Fprintf(w, "%s (%s mode, %d configurations): mean fraction of optimum (std) over %d runs\n", sp.Name, mode, sp.Sim.Space().Len(), *repeats)
		fmt.Fprintf(w, "  %-16s", "strategy")
		for _, b := range cfg.Budgets {
			fmt.Fprintf(w, " %15d", b)
		}
		fmt.Fprintln(w)
		for _, st := range cfg.Strategies {
			fmt.Fprintf(w, "  %-16s", st.Name)
			for _, b := range cfg.Budgets {
				for _, cell := range cells {
					if cell.Space == sp.Name && cell.Budget == b && cell.Strategy == st.Name {
						fmt.Fprintf(w, " %7.4f (%.3f)", cell.MeanFraction, cell.StdFraction)
					}
				}
			}
			fmt.Fprintln(w)
		}
	}
	fmt.Fprintf(w, "competition (t-tests, alpha %g): wins/losses for budgets <= 200 and > 200\n", *alpha)
	for _, s := range scores {
		fmt.Fprintf(w, "  %-16s low %3d / %-3d  medium %3d / %-3d\n", s.Strategy, s.WinsLow, s.LossesLow, s.WinsHigh, s.LossesHigh)
	}
	for _, f := range figures {
		fmt.Fprintf(w, "figure: %s\n", f)
	}
	return nil
}

func writeBenchCSV(path string, cells []benchmark.Cell) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	w.Write([]string{"space", "strategy", "budget", "mean_fraction_of_optimum", "std_fraction_of_optimum", "mean_evaluations", "runs"})
	for _, c := range cells {
		w.Write([]string{c.Space, c.Strategy, strconv.Itoa(c.Budget), strconv.FormatFloat(c.MeanFraction, 'g', -1, 64),
			strconv.FormatFloat(c.StdFraction, 'g', -1, 64), strconv.FormatFloat(c.MeanEvaluations, 'g', -1, 64), strconv.Itoa(len(c.Fractions))})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
