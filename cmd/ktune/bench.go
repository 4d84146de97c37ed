package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ktune/ktune/benchmark"
	"github.com/ktune/ktune/format"
	"github.com/ktune/ktune/internal/outfile"
	"github.com/ktune/ktune/report"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/simulator"
)

func init() {
	register(&command{
		name:    "bench",
		summary: "benchmark strategies on recorded spaces (seed 000's harness and competition)",
		usage: `FILE|FOLDER... [--strategies a,b,...] [--budgets 25,50,...] [--repeats 50] [--seed S]
          [--mode cartesian|recorded] [--fitness deterministic|stochastic] [--defaults FILE]...
          [--alpha 0.05] [--split 200] [--csv OUT] [--plot DIR] [--json]
          [--checkpoint FILE] [--resume FILE]... [--shard K/N] [--merge] [--maximize|--minimize]

Runs every strategy on every recorded space (Kernel Tuner cache, T4 or KTT files; a folder
stands for every recording under it, other JSON files there are left out; two that hold
the same measurements, one run in two formats, are warned of, as that run counts twice; a
compressed file cut short is refused, an unclosed Kernel Tuner cache of an interrupted run
read up to its last whole entry, with a warning) at every budget, --repeats times each
(run i uses seed S+i for every strategy), and prints the mean and standard deviation of
the fraction of the optimum reached, and whether every run used its whole budget (cells
that used less are listed, and cells whose runs evaluated the whole space, smaller than
the budget, under deterministic fitness, where a run can do no more, are said apart; the
CSV and JSON give every cell's mean evaluations). A space is named by its folder and file
(kerneltuner_gemm/RTX_3090), the folder the file is in however its path is written and
wherever ktune runs; the spaces of one folder are one kernel on several devices, and for
every kernel with several spaces a second table gives the mean over all of them, as seed
000 reports its kernels (the standard deviation is over the pooled runs). Then the
competition of seed 000, Section VI-B: a two-sided Student's t-test for two independent
samples with pooled variance (the two-sample independent t-test seed 000 names, as
scipy's ttest_ind computes it by default) between every pair of strategies per space and
budget; a significantly better mean (two-sided p < --alpha) is a win, summed for low
(<= --split, 200 as in its Table IV) and medium (> --split) budgets; its appendix also
splits at 100 and 400.
--plot DIR draws seed 000's figures as SVG and PNG: per kernel with several spaces the
mean fraction of optimum against the budget with its 95% interval (Fig. 2; shaded, more
lightly past 6 strategies, and an error bar at a point without neighbours, as with a
single budget; a line is broken where a point was not run, as its title says;
curves-kernel-KERNEL; as in the kernel table, a point only where every one of the kernel's
spaces has its cell, the title saying when an interruption left points out), the same per
space (curves-SPACE; in these names '/', '\' and spaces are written '_', as in
curves-convolution_milo_A100, and a name two spaces would share gets a hash), and the
competition as heat maps whose cell in row r and column c counts the spaces and budgets
where the column's strategy beat the row's, light for none to dark on one scale for all
the maps, shown by a bar beside each, the diagonal hatched (Fig. 1: competition-low and
competition-medium over all spaces, and competition-KERNEL-low and -medium per kernel when
there are several kernels; none with one strategy, which has no competition).
Interrupted (Ctrl-C), it reports, and writes to --csv, --json and --plot, the cells it
finished ("-" for the others) before exiting with status 130. --resume FILE, with the
--json output of an earlier benchmark (interrupted or not), takes from it the cells this
one would compute again (the same strategy, options, seed and repeats give the same runs;
options are the same when they mean the same to the strategy, however spelled: an entry
firstmls:neighbourhood=hamming;restart=1 there is firstmls:restart=true;neighbourhood=Hamming
here, and its cells take this run's label) and runs only the others; a file none of whose
cells is of this benchmark is refused, and so is one with a cell no benchmark writes (a
fraction outside [0, 1], a mean not of its fractions, a cell twice, a cell of a strategy,
space or budget the file does not list: an edited or damaged file), naming the cell.
--checkpoint FILE keeps FILE up to date with the finished cells as the benchmark goes
(rewritten whole at most every 10 s, within 10 s of each finished cell, and at the end),
so that after a crash, a kill or a lost terminal the same command with --resume FILE goes
on where it was; a FILE that holds cells already (a checkpoint or --json output) is
refused unless it is the --resume file, so that a run that forgot --resume, or the same
command started again beside the first, writes over none; and while a run writes FILE it
holds FILE.lock beside it (deleted at its end; one a killed run left holds nothing), so a
second ktune given the same FILE meanwhile, even at the same moment, is refused at once,
naming the process that writes it. With --resume, the checkpoint also keeps the cells of the --resume file
that this run does not run (other strategies, spaces or budgets, of the same mode,
fitness, seed and repeats), so a smaller command resumed from a large benchmark's
checkpoint into the same file loses none of the large one's cells; a cell that cannot
stand beside this run's (its label runs another strategy here, or has other options at
its budget; another recording has its space's name) is left out, saying so, and is
refused when --checkpoint is the --resume file. An output (--csv, --checkpoint) that is a
recording read, a --defaults file, the --resume file (but for --checkpoint) or the other
output is refused before anything runs. The tables, --csv and --json hold this run's
cells only. A checkpoint that cannot be written (a full disk) is said at once and
tried again as cells finish, its file keeping what it held. An output that cannot be
written loses none of the results: they are printed, every other output is written, and
each that failed (the final checkpoint too) is said at the end, with exit status 1.
--shard K/N runs only shard K of N of the cells (the same command with K = 1 ... N runs
each cell once), so that a benchmark runs as N processes, on one machine or as a Slurm array
job (scripts/slurm-bench.sh writes and submits one, or runs its tasks here as processes;
scripts/verify-slurm.sh checks the merge of one submitted to a real Slurm); a cell's runs
are the same in any shard (run i uses seed S+i). The cells go to the shards balanced
by an estimate of their cost, fixed by the command alone: the runs' evaluations
(the budget, or a smaller space under deterministic fitness) times the strategy's time per
evaluation relative to random sampling's (about 3-13 for the population and annealing
strategies, 800-1,500 at budget 400 for smac, bayes and auto, whose models cost more the
more evaluations), the costliest cell first to the least loaded shard; with more shards
than cells some have none. Its --json output and checkpoint say which shard they are
("shard": {"index": K, "of": N}). --resume may be given several times: the cells of all
the files are taken, one that two files hold with other results (fractions, evaluations)
is refused, naming both. --merge runs no cell: with the same command and --resume FILE for
each shard's --json output (or checkpoint) it prints, and writes to --csv, --json and
--plot, what the whole benchmark would; a part of another benchmark (other spaces,
strategies, options, budgets, mode, fitness, seed or repeats) is refused, naming the file,
and cells that no part holds are said, how many and which, with the shards they are of.
Last comes each strategy's cost: the real time per evaluation of its runs (the strategy's
own work, the session and the replay; in the CSV and JSON per cell too), and the wall time;
use --workers 1 for figures free of contention between runs.

Strategies (--strategies, comma-separated), each entry one of
  NAME                          a strategy with its defaults (see 'ktune help strategies')
  NAME:OPT=VALUE;OPT=VALUE      with options; the entry as written labels it
  LABEL=NAME[:OPT=VALUE;...]    under a label of its own
so one strategy can run in several settings side by side, e.g.
  --strategies 'random,adj=firstmls:neighbourhood=adjacent,irace:testType=t-test;firstTest=4'
(quote the list: ';' ends a shell command). An option that takes a list is written in
brackets, whose commas separate no entries: 'greedymls:order=[tile_size,use_method]'.
An entry listed twice is refused, also when its options are spelled otherwise
(firstmls:neighbourhood=hamming and firstmls:neighbourhood=Hamming): label one to run both.
--defaults [LABEL=]FILE (repeatable) reads a defaults file written by 'ktune hypertune':
the entry labelled LABEL, or without a label every entry of the file's strategy, takes at
each budget the options of the largest budget column not above it (the smallest column
for a budget below them all); options given in the entry win over the file's; a file
chosen for another --mode or --fitness than the benchmark's is used with a warning that
says so. To compare
tuned with built-in defaults: --strategies 'firstmls,tuned=firstmls' --defaults tuned=firstmls.defaults.json

Fitness (seed 000, section V): deterministic answers every evaluation with the recorded
objective (the mean of the recorded runs), and a repeated configuration comes from the
session's cache for free; stochastic answers with one recorded timing sample drawn anew per
evaluation, and a repeat is a new measurement that costs budget (what irace is built for);
a run's best configuration is then the one whose measurements' mean, plus one standard
error from the noise its repeated configurations show, is lowest. Either way a run is
scored by the recorded mean objective of the best configuration it found.

Direction: as each recording says; a Kernel Tuner cache says none, and its objective's name
is taken as a hint (time, energy: lower is better; GFLOP/s: higher). --maximize or
--minimize says it for every recording, and turning a direction one says is warned of.`,
		run: runBench,
	})
}

func runBench(ctx context.Context, env *cliEnv, args []string) error {
	c := lookup("bench")
	fs := newFlags(env, c)
	names := fs.String("strategies", "auto,random", "comma-separated entries NAME, NAME:OPT=VALUE;OPT=VALUE or LABEL=NAME[:...] (see above); by default ktune's default strategy against random sampling")
	budgets := fs.String("budgets", "25,50,100,200,400,800,1600", "comma-separated budgets (evaluations)")
	repeats := count(fs, "repeats", 50, 2, "runs", "runs per strategy, space and budget (2 or more: the t-tests need them)")
	seed := fs.Uint64("seed", 1, "seed of the first run")
	modeName := fs.String("mode", "cartesian", "cartesian (seed 000's setting) or recorded")
	fitnessName := fs.String("fitness", "deterministic", "deterministic (the recorded mean, repeats cached) or stochastic (one recorded sample per evaluation, repeats cost budget)")
	var defaults fileList
	fs.Var(&defaults, "defaults", "[LABEL=]FILE: defaults file from 'ktune hypertune' for the entry LABEL, or for every entry of its strategy (repeatable)")
	alpha := fs.Float64("alpha", 0.05, "significance level of the two-sided t-tests")
	split := fs.Int("split", benchmark.DefaultSplit, "largest budget of the competition's low range")
	csvPath := fs.String("csv", "", "also write the table as CSV to this file")
	plotDir := fs.String("plot", "", "write figures (SVG and PNG) into this directory: fraction of optimum against budget per space, and win heat maps")
	workers := count(fs, "workers", 0, 0, "workers", "parallel runs (0: all cores)")
	jsonOut := fs.Bool("json", false, "print JSON (cells with every run's fraction, and the competition)")
	showProgress := fs.Bool("progress", false, "show progress even when standard error is not a terminal (then a line at most every second)")
	var resumes fileList
	fs.Var(&resumes, "resume", "take the cells an earlier 'ktune bench --json' output or --checkpoint file already has from this file instead of running them again (repeatable: the parts of a sharded benchmark)")
	shardSpec := fs.String("shard", "", "K/N: run only shard K of N of the cells, balanced by their estimated cost, for a benchmark split over processes or nodes (see above)")
	merge := fs.Bool("merge", false, "run no cell: take every cell from the --resume files (the parts of a sharded benchmark), refusing a part of another benchmark and saying which cells are missing")
	checkpointPath := fs.String("checkpoint", "", "keep this file up to date with the finished cells (within 10 s of each finished cell, and at the end), for --resume after a crash")
	direction := directionFlags(fs)
	files, err := parseFlags(env, c, fs, args)
	if err != nil {
		return err
	}
	maximize, err := direction()
	if err != nil {
		return usageErr(env, c, "%v", err)
	}
	if len(files) == 0 {
		return usageErr(env, c, "give at least one recorded space")
	}
	if err := noStdin(env, c, files, spacesByFile); err != nil {
		return err
	}
	if !(*alpha > 0 && *alpha < 1) {
		return usageErr(env, c, "--alpha %v: give a significance level between 0 and 1", *alpha)
	}
	if *split < 1 {
		return usageErr(env, c, "--split %d: give a budget of 1 or more", *split)
	}
	mode, err := simulator.ParseMode(*modeName)
	if err != nil {
		return usageErr(env, c, "%v", err)
	}
	fitness, err := simulator.ParseFitness(*fitnessName)
	if err != nil {
		return usageErr(env, c, "%v", err)
	}
	var cfg benchmark.Config
	if cfg.Strategies, err = benchmark.ParseStrategies(*names); err != nil {
		return usageErr(env, c, "--strategies: %v", err)
	}
	for _, spec := range defaults {
		if err := benchmark.AttachDefaults(cfg.Strategies, spec); err != nil {
			return defaultsErr(env, c, err)
		}
	}
	warned := map[string]bool{}
	for _, st := range cfg.Strategies {
		if st.Defaults == nil {
			continue
		}
		if w := st.Defaults.Unlike(mode, fitness); w != "" && !warned[w] {
			warned[w] = true
			printWarnings(env.stderr, "bench", []string{w})
		}
	}
	if cfg.Budgets, err = parseBudgets(*budgets); err != nil {
		return usageErr(env, c, "%v", err)
	}
	var shard benchmark.Shard
	if *shardSpec != "" {
		if shard, err = benchmark.ParseShard(*shardSpec); err != nil {
			return usageErr(env, c, "--shard %v", err)
		}
	}
	switch {
	case *merge && len(resumes) == 0:
		return usageErr(env, c, "--merge takes its cells from the --resume files: give the parts to merge, --resume FILE each")
	case *merge && *shardSpec != "":
		return usageErr(env, c, "--merge joins the shards' parts into the whole benchmark: leave --shard out")
	case len(resumes) > 1 && *checkpointPath != "":
		return usageErr(env, c, "--checkpoint keeps the cells of one --resume file beside its own: give one --resume file with --checkpoint")
	}
	resume := "" // the one --resume file, or none
	if len(resumes) == 1 {
		resume = resumes[0]
	}
	if err := checkOutputs(output{"--csv", *csvPath, false}, output{"--plot", *plotDir, true}, output{"--checkpoint", *checkpointPath, false}); err != nil {
		return err
	}
	var inputs []outfile.Named
	for _, st := range cfg.Strategies {
		if st.Defaults != nil {
			inputs = append(inputs, outfile.Named{What: "the --defaults file", Path: st.Defaults.Path})
		}
	}
	for _, r := range append([]string{""}, resumes...) {
		if err := distinctOutputs(files, r, inputs, outfile.Named{What: "--csv", Path: *csvPath}, outfile.Named{What: "--checkpoint", Path: *checkpointPath}); err != nil {
			return err
		}
	}
	lock, err := lockCheckpoint("bench", *checkpointPath, env.log)
	if err != nil {
		return err
	}
	defer lock.Release()
	if err := heldCells("bench", *checkpointPath, resume); err != nil {
		return err
	}
	if cfg.Spaces, err = loadSpaces(files, mode, fitness, maximize, env.stderr, "bench"); err != nil {
		return err
	}
	// options that do not fit a space are refused before any cell runs
	if err := cfg.Check(); err != nil {
		return usageErr(env, c, "--strategies: %v", err)
	}
	cfg.Repeats, cfg.Seed, cfg.Workers, cfg.Shard = *repeats, *seed, *workers, shard
	info := benchmark.Describe(cfg, mode.String(), fitness.String())
	// what the checkpoint holds beside this run's cells: the --resume file's others
	kept := benchmark.Kept{Info: info}
	var parts []benchmark.Part
	for _, r := range resumes {
		done, prev, err := resumeCells(r, cfg, mode.String(), fitness.String(), *merge, env.stderr)
		if err != nil {
			return err
		}
		part := benchmark.Part{Path: r, Cells: done}
		if prev.Shard != nil {
			part.Shard = *prev.Shard
		}
		parts = append(parts, part)
		if *checkpointPath != "" {
			kept = benchmark.Keep(cfg, info, prev.RunInfo, prev.Cells)
			if err := reportKept(env.stderr, kept, r, *checkpointPath); err != nil {
				return err
			}
		}
	}
	if cfg.Done, err = benchmark.Merge(parts); err != nil {
		return fmt.Errorf("--resume: %w", err)
	}
	if *merge {
		if err := missingCells(cfg, parts); err != nil {
			return err
		}
	}
	runs := len(cfg.ShardCells(shard)) // the cells of this run
	var prog *progress
	if *showProgress || isTerminal(env.stderr) {
		prog = newProgress(env.stderr, "evaluations")
		cfg.Progress = func(at benchmark.Progress) {
			prog.update(at.Evaluations, at.TotalEvaluations, fmt.Sprintf("%d/%d cells%s", at.Cells, at.TotalCells, leading(at)))
		}
	}
	ckpt := newCheckpoint(*checkpointPath, "bench", env.stderr)
	saved := func(cells []benchmark.Cell) any { return benchState(kept, *alpha, *split, cells) }
	if ckpt != nil {
		cfg.Finished = func(cells []benchmark.Cell) { ckpt.update(saved(cells)) }
	}
	start := time.Now()
	cells, err := benchmark.Run(ctx, cfg)
	if prog != nil {
		prog.finish() // before the interruption's message and the results
	}
	if cells == nil {
		cells = []benchmark.Cell{} // an interruption before the first cell keeps an empty list
	}
	if len(cells) > 0 || ctx.Err() != nil {
		ckpt.pendingState(saved(cells))
	}
	// The results are printed whatever output fails (a full disk): every output is
	// tried, and those that failed are said at the end, with a status that is not 0.
	var failed []error
	if cerr := ckpt.flush(); cerr != nil {
		failed = append(failed, fmt.Errorf("%w: the final checkpoint is not written", cerr))
	}
	var interrupted error
	if err != nil {
		// Interrupted (Ctrl-C, SIGTERM): what finished is reported, and written where
		// asked, before ktune exits with the error; a long benchmark keeps its work.
		if ctx.Err() == nil {
			return failedOutputs(env, "bench", append(failed, err), nil)
		}
		interrupted = interruption(ctx, "interrupted after %d of %d cells", len(cells), runs)
		if len(cells) > 0 {
			interrupted = fmt.Errorf("%w; the results are of those", interrupted)
		}
		fmt.Fprintf(env.stderr, "ktune bench: %v\n", interrupted)
	}
	scores := benchmark.Compete(cells, *alpha, *split)
	// kernels and their spaces as given (an interrupted run has cells of fewer); a
	// kernel's cell pools every one of its spaces, in the tables, JSON and figures alike
	spaceNames := make([]string, len(cfg.Spaces))
	for i, sp := range cfg.Spaces {
		spaceNames[i] = sp.Name
	}
	kernels, spacesOf := benchmark.KernelSpaces(spaceNames)
	kernelCells := benchmark.CompleteKernelCells(cells, spaceNames)
	if *csvPath != "" {
		if err := writeBenchCSV(*csvPath, cells); err != nil {
			failed = append(failed, err)
		}
	}
	var figures []string // those written, before a failure too
	if *plotDir != "" {
		if figures, err = benchmark.Figures(cells, spaceNames, *alpha, *split, *plotDir); err != nil {
			failed = append(failed, fmt.Errorf("--plot %s: %w", *plotDir, err))
		}
	}
	stdout := &resultWriter{w: env.stdout}
	finish := func() error {
		if stdout.err != nil {
			failed = append(failed, fmt.Errorf("standard output: %w", stdout.err))
		}
		return failedOutputs(env, "bench", failed, interrupted)
	}
	if *jsonOut {
		note := ""
		if interrupted != nil {
			note = interrupted.Error()
		}
		writeJSON(&cliEnv{stdout: stdout, stderr: env.stderr, log: env.log}, struct {
			Interrupted string   `json:"interrupted,omitempty"`
			Figures     []string `json:"figures,omitempty"`
			benchmark.RunInfo
			Alpha   float64           `json:"alpha"`
			Split   int               `json:"split"`
			Cells   []benchmark.Cell  `json:"cells"`
			Kernels []benchmark.Cell  `json:"kernels,omitempty"`
			Scores  []benchmark.Score `json:"competition"`
		}{note, figures, info, *alpha, *split, cells, kernelCells, scores}) // a failure is stdout's
		return finish()
	}
	w := stdout
	width := 16
	for _, st := range cfg.Strategies {
		width = max(width, len(st.DisplayName()))
	}
	table := func(cells []benchmark.Cell, space string) {
		fmt.Fprintf(w, "  %-*s", width, "strategy")
		for _, b := range cfg.Budgets {
			fmt.Fprintf(w, " %15d", b)
		}
		fmt.Fprintln(w)
		for _, st := range cfg.Strategies {
			fmt.Fprintf(w, "  %-*s", width, st.DisplayName())
			for _, b := range cfg.Budgets {
				text := "-" // not run (interrupted)
				for _, cell := range cells {
					if cell.Space == space && cell.Budget == b && cell.Strategy == st.DisplayName() {
						text = fmt.Sprintf("%7.4f (%.3f)", cell.MeanFraction, cell.StdFraction)
					}
				}
				fmt.Fprintf(w, " %15s", text)
			}
			fmt.Fprintln(w)
		}
	}
	for _, sp := range cfg.Spaces {
		fmt.Fprintf(w, "%s (%s mode, %s fitness, %s): mean fraction of optimum (std) over %d runs\n", sp.Name, mode, fitness,
			counted(sp.Sim.Space().Len(), "configuration", "configurations"), *repeats)
		table(cells, sp.Name)
	}
	for _, k := range kernels {
		if spacesOf[k] > 1 {
			fmt.Fprintf(w, "kernel %s, mean over its %d spaces: mean fraction of optimum (std over all %d runs)\n", k, spacesOf[k], spacesOf[k]**repeats)
			table(kernelCells, k)
		}
	}
	writeEvaluationsUsed(w, cells, cfg.Spaces)
	if len(cfg.Strategies) < 2 {
		fmt.Fprintln(w, "competition: none, with one strategy (its t-tests compare pairs of strategies)")
	} else {
		fmt.Fprintf(w, "competition (two-sided pooled t-tests, alpha %g): wins/losses for budgets <= %d and > %d\n", *alpha, *split, *split)
		for _, s := range scores {
			fmt.Fprintf(w, "  %-*s low %3d / %-3d  medium %3d / %-3d\n", width, s.Strategy, s.WinsLow, s.LossesLow, s.WinsHigh, s.LossesHigh)
		}
	}
	fmt.Fprintln(w, "cost: real time per evaluation (strategy, session and replay), over every cell")
	for _, st := range cfg.Strategies {
		name := st.DisplayName()
		var us, evals float64
		for _, cell := range cells {
			if cell.Strategy == name {
				us += cell.MicrosPerEvaluation * cell.MeanEvaluations
				evals += cell.MeanEvaluations
			}
		}
		if evals > 0 {
			fmt.Fprintf(w, "  %-*s %10.2f µs\n", width, name, us/evals)
		}
	}
	done := map[benchmark.CellKey]bool{}
	for _, c := range cfg.Done {
		done[c.Key()] = true
	}
	taken := 0 // the cells of this run taken from the --resume files
	for _, c := range cells {
		if done[c.Key()] {
			taken++
		}
	}
	fmt.Fprintf(w, "wall time: %.1f s for %d runs on %d workers", time.Since(start).Seconds(),
		(len(cells)-taken)**repeats, workersOrCores(*workers))
	switch {
	case taken > 0 && len(resumes) == 1:
		fmt.Fprintf(w, " (and %d cells taken from %s)", taken, resume)
	case taken > 0:
		fmt.Fprintf(w, " (and %d cells taken from %d --resume files)", taken, len(resumes))
	}
	fmt.Fprintln(w)
	if !shard.Whole() {
		fmt.Fprintf(w, "shard %s: %d of the benchmark's %d cells; merge the shards' --json outputs with the same command, --merge and --resume FILE for each\n",
			shard, len(cells), len(cfg.Cells()))
	}
	for _, f := range figures {
		fmt.Fprintf(w, "figure: %s\n", f)
	}
	return finish()
}

// writeEvaluationsUsed says whether the runs used their budgets: the cells whose runs
// evaluated the whole space, smaller than the budget, under deterministic fitness (where a
// run can do no more) are said apart from those that fell short of the budget otherwise,
// which are listed (benchmark.BudgetUse; the CSV and JSON hold every cell's mean). With no
// cell (interrupted before the first) it says nothing.
func writeEvaluationsUsed(w io.Writer, cells []benchmark.Cell, spaces []benchmark.Space) {
	if len(cells) == 0 {
		return
	}
	size := map[string]int{}
	for _, sp := range spaces {
		size[sp.Name] = sp.Sim.Space().Len()
	}
	shortCells, cappedCells := benchmark.BudgetUse(cells, spaces)
	var short []string
	for _, c := range shortCells {
		short = append(short, fmt.Sprintf("  %s, %s, budget %d: %.1f evaluations on average", c.Space, c.Strategy, c.Budget, c.MeanEvaluations))
	}
	cappedAt := map[string][]int{} // space -> the budgets of its capped cells
	var cappedSpaces []string
	for _, c := range cappedCells {
		if _, seen := cappedAt[c.Space]; !seen {
			cappedSpaces = append(cappedSpaces, c.Space)
		}
		if !slices.Contains(cappedAt[c.Space], c.Budget) {
			cappedAt[c.Space] = append(cappedAt[c.Space], c.Budget)
		}
	}
	if len(short) > 0 {
		fmt.Fprintf(w, "evaluations: %d of %d cells used less than their budget:\n%s\n", len(short), len(cells), strings.Join(short, "\n"))
	}
	if len(cappedCells) > 0 {
		var where []string
		for _, sp := range cappedSpaces {
			budgets := make([]string, len(cappedAt[sp]))
			for i, b := range cappedAt[sp] {
				budgets[i] = strconv.Itoa(b)
			}
			where = append(where, fmt.Sprintf("%s at budget %s (capped at the space's %d configurations)", sp, strings.Join(budgets, ", "), size[sp]))
		}
		rest := ""
		if len(short) == 0 {
			rest = "; every other run used its whole budget"
		}
		fmt.Fprintf(w, "evaluations: %d of %d cells evaluated their whole space, smaller than the budget: %s%s\n", len(cappedCells), len(cells), strings.Join(where, "; "), rest)
	}
	if len(short) == 0 && len(cappedCells) == 0 {
		fmt.Fprintln(w, "evaluations: every run used its whole budget")
	}
}

func workersOrCores(n int) int {
	if n > 0 {
		return n
	}
	return runtime.GOMAXPROCS(0)
}

// parseBudgets reads a comma-separated list of positive budgets.
func parseBudgets(list string) ([]int, error) {
	var out []int
	for _, b := range strings.Split(list, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(b))
		if errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(strings.TrimSpace(b), "-") {
			return nil, fmt.Errorf("--budgets: %s is too large (at most %d evaluations)", strings.TrimSpace(b), math.MaxInt)
		}
		if err != nil || v <= 0 {
			return nil, fmt.Errorf("--budgets: %q is not a positive number", b)
		}
		if slices.Contains(out, v) {
			return nil, fmt.Errorf("--budgets: %d is listed twice", v)
		}
		out = append(out, v)
	}
	return out, nil
}

// spacesByFile says why bench and hypertune do not read standard input.
const spacesByFile = "the spaces are named by their files in the results, --csv and checkpoints (and matched by them on --resume): give the files"

// errNoOptimum is a recording in which every configuration failed: a strategy's fraction
// of the optimum means nothing on it.
var errNoOptimum = errors.New("no configuration in it succeeded, so it has no optimum to measure a strategy against: leave it out")

// loadSpaces opens recorded spaces for the harness, each named by its folder and file
// ("kerneltuner_gemm/RTX_2080_Ti"), reading several files at once (one per core): a
// recording of tens of thousands of configurations takes a second or two to decode. A
// folder stands for every .json and .json.gz file under it that is a recording (others,
// such as space definitions, are left out, saying so); a file named on its own must be
// one. The first file that fails, in the order given, is the error. What the readers and
// the simulator noticed without failing (an unclosed cache file read up to its last whole
// entry, say) is written to warn, file by file in the order given.
func loadSpaces(args []string, mode simulator.Mode, fitness simulator.Fitness, maximize *bool, warn io.Writer, cmd string) ([]benchmark.Space, error) {
	files, found, err := expandFolders(args)
	if err != nil {
		return nil, err
	}
	spaces := make([]benchmark.Space, len(files))
	recs := make([]*result.Recording, len(files))
	errs := make([]error, len(files))
	warnings := make([][]string, len(files))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(files)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f := files[i]
				rec, err := openRecording(f)
				if err == nil {
					err = cutShort(f, rec)
				}
				if err != nil {
					errs[i] = err
					continue
				}
				applyDirection(rec, maximize)
				sim, err := simulator.New(rec, simulator.Options{Mode: mode, Fitness: fitness})
				if err != nil {
					errs[i] = fmt.Errorf("%s: %w", f, err)
					continue
				}
				if opt, _ := sim.Optimum(); math.IsNaN(opt) {
					errs[i] = fmt.Errorf("%s: %w", f, errNoOptimum)
					if len(rec.Warnings) > 0 {
						// what the reader noticed (a truncated file) is likely why
						errs[i] = fmt.Errorf("%s: %w (%s)", f, errNoOptimum, strings.Join(rec.Warnings, "; "))
					}
					continue
				}
				spaces[i], recs[i] = benchmark.Space{Name: benchSpaceName(f), Sim: sim}, rec
				warnings[i] = rec.Warnings
				for _, w := range sim.Warnings() {
					// the simulator's notes name no file; among many they must
					warnings[i] = append(warnings[i], f+": "+w)
				}
			}
		}()
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
	var out []benchmark.Space
	var outRecs []*result.Recording
	var left, failed []string
	named := map[string]string{} // the tables, the competition and --resume tell spaces apart by name
	for i, err := range errs {
		if err != nil {
			if found[files[i]] && errors.Is(err, format.ErrUnknown) {
				left = append(left, files[i])
				continue
			}
			if found[files[i]] && errors.Is(err, errNoOptimum) {
				failed = append(failed, files[i])
				continue
			}
			return nil, err
		}
		f, name := files[i], spaces[i].Name
		if other, dup := named[name]; dup {
			if sameFile(f, other) {
				return nil, fmt.Errorf("%s is given twice", f)
			}
			return nil, fmt.Errorf("%s and %s are both named %s (folder/file), which tells spaces apart in the tables and the competition: rename or move one", other, f, name)
		}
		named[name] = f
		printWarnings(warn, cmd, warnings[i])
		// one run under two names (a cache and its T4 export, a copy) counts twice in its
		// kernel's mean and in the competition: said, not refused
		for k, o := range outRecs {
			if o.SameMeasurements(recs[i]) {
				counts := "in its kernel's means and in the competition"
				if cmd == "hypertune" {
					counts = "in the choice of each budget's setting"
				}
				fmt.Fprintf(warn, "ktune %s: warning: %s (%s) and %s (%s) hold the same measurements: that run counts twice %s; leave one out unless that is meant\n",
					cmd, out[k].Name, named[out[k].Name], name, f, counts)
			}
		}
		out = append(out, spaces[i])
		outRecs = append(outRecs, recs[i])
	}
	if len(left) > 0 {
		fmt.Fprintf(warn, "ktune %s: %s: %s\n", cmd, notRecordings(len(left)), listSome(left, 5))
	}
	if len(failed) > 0 {
		what := fmt.Sprintf("%d recordings found in the folders have no successful configuration, so no optimum, and are left out", len(failed))
		if len(failed) == 1 {
			what = "1 recording found in the folders has no successful configuration, so no optimum, and is left out"
		}
		fmt.Fprintf(warn, "ktune %s: %s: %s\n", cmd, what, listSome(failed, 5))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no recorded space with a successful configuration in %s", strings.Join(args, ", "))
	}
	return out, nil
}

// benchSpaceName names a benchmark's space by the folder and file of its absolute path
// (spaceName), so that the name, which groups spaces into kernels and matches cells on
// --resume, is the same however the path is written and wherever ktune runs: inside
// kerneltuner_pnpoly, RTX_3090.json.gz is kerneltuner_pnpoly/RTX_3090 too.
func benchSpaceName(f string) string {
	if abs, err := filepath.Abs(f); err == nil {
		f = abs
	}
	return spaceName(f)
}

// benchCheckpoint is what a bench checkpoint holds: the run's description, alpha and
// split too (so that 'ktune report' of the file holds the same competition), and the
// cells so far followed by those kept of the --resume file. The cells are joined when the
// file is written, at most once in the checkpoint's interval, not each time a cell
// finishes: copying all the cells so far at every cell made a benchmark of n cells copy
// n²/2 (20,800 cells: 10 s more with --checkpoint than without). Run never changes a
// cell it has passed on (benchmark.Config.Finished).
type benchCheckpoint struct {
	info        benchmark.RunInfo
	alpha       float64
	split       int
	cells, kept []benchmark.Cell
}

// benchState is the checkpoint's state once cells have finished, beside what kept holds
// of the --resume file.
func benchState(kept benchmark.Kept, alpha float64, split int, cells []benchmark.Cell) benchCheckpoint {
	return benchCheckpoint{kept.Info, alpha, split, cells[:len(cells):len(cells)], kept.Cells}
}

func (b benchCheckpoint) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		benchmark.RunInfo
		Alpha float64          `json:"alpha"`
		Split int              `json:"split"`
		Cells []benchmark.Cell `json:"cells"`
	}{b.info, b.alpha, b.split, append(slices.Clip(b.cells), b.kept...)})
}

// expandFolders replaces each folder among args by the .json and .json.gz files under it
// (or links to such files), in lexical order, and says which files came from a folder. A folder with none is an
// error: named to be read, it would otherwise be left out in silence (a wrong path, a
// folder of .csv files).
func expandFolders(args []string) (files []string, found map[string]bool, err error) {
	found = map[string]bool{}
	for _, a := range args {
		fi, err := os.Stat(a)
		if err != nil || !fi.IsDir() {
			files = append(files, a) // opening it says what is wrong
			continue
		}
		before := len(files)
		err = filepath.WalkDir(a, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			name := strings.ToLower(d.Name())
			if (d.Type().IsRegular() || linksToFile(d, path)) && (strings.HasSuffix(name, ".json") || strings.HasSuffix(name, ".json.gz")) {
				files = append(files, path)
				found[path] = true
			}
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
		if len(files) == before {
			return nil, nil, fmt.Errorf("%s: a folder with no .json or .json.gz file under it, so no recording", a)
		}
	}
	return files, found, nil
}

// linksToFile reports whether entry d at path is a symbolic link to a regular file, as a
// folder of recordings linked from a shared data set holds; links to folders are not
// followed (they may loop).
func linksToFile(d fs.DirEntry, path string) bool {
	if d.Type()&fs.ModeSymlink == 0 {
		return false
	}
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// listSome joins the first n of list, and says how many more there are.
func listSome(list []string, n int) string {
	if len(list) <= n {
		return strings.Join(list, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(list[:n], ", "), len(list)-n)
}

// sameFile reports whether two paths name one file.
func sameFile(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	if errA != nil || errB != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return os.SameFile(fa, fb)
}

// benchFile is what --resume reads of a 'ktune bench --json' output or checkpoint.
type benchFile struct {
	benchmark.RunInfo
	Cells []benchmark.Cell `json:"cells"`
}

// resumeCells reads an earlier 'ktune bench --json' output and returns the cells of it
// that this benchmark would compute again, and the file, saying on w how many it takes and
// leaves. A part to merge (merge) must be of this very benchmark (benchmark.SameBenchmark)
// and hold none but its cells.
func resumeCells(path string, cfg benchmark.Config, mode, fitness string, merge bool, w io.Writer) ([]benchmark.Cell, *benchFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("--resume: %w", err)
	}
	if why := format.NotJSONObject(data); why != "" {
		return nil, nil, fmt.Errorf("--resume %s: %s; --resume takes the --json output or a --checkpoint file of 'ktune bench'", path, why)
	}
	// the files of 'ktune hypertune' (its --json output, checkpoint and defaults file) say
	// how they were run too, but hold no cells of a benchmark: refused by what they are;
	// a benchmark's whose cells no benchmark wrote (edited, damaged) is refused naming the
	// cell, rather than taken as it is or dropped to be run again in silence
	b, err := report.ReadBench(data)
	var other *report.OtherFileError
	switch {
	case errors.As(err, &other):
		return nil, nil, fmt.Errorf("--resume %s: not 'ktune bench --json' output or a --checkpoint file: it has no cells of a benchmark, being %w", path, err)
	case err != nil && !errors.Is(err, report.ErrNotBench):
		return nil, nil, fmt.Errorf("--resume %s: %w%s", path, err, mend(err))
	}
	var prev struct {
		benchmark.RunInfo
		// unread here (a defaults file's are objects; such a file is refused first)
		Budgets json.RawMessage  `json:"budgets"`
		Cells   []benchmark.Cell `json:"cells"`
	}
	if err := json.Unmarshal(data, &prev); err != nil {
		what := "not 'ktune bench --json' output or a --checkpoint file"
		if b != nil {
			what = b.Kind() + ", edited or damaged"
		}
		return nil, nil, fmt.Errorf("--resume %s: %s: %s", path, what, format.JSONError(data, err))
	}
	if prev.Cells == nil {
		return nil, nil, fmt.Errorf("--resume %s: not 'ktune bench --json' output or a --checkpoint file: it has no cells", path)
	}
	if b == nil || prev.Repeats == 0 || prev.Mode == "" {
		return nil, nil, fmt.Errorf("--resume %s: the file does not say how it was run (seed, repeats, strategies): write it with 'ktune bench --json' of this version", path)
	}
	prev.Cells = b.Cells // as ReadBench checked them
	done, skipped, err := benchmark.Reusable(cfg, mode, fitness, prev.RunInfo, prev.Cells)
	if err == nil && merge {
		err = benchmark.SameBenchmark(cfg, prev.RunInfo)
		if err == nil && skipped > 0 {
			err = fmt.Errorf("%d of its %d cells are not of it", skipped, len(prev.Cells))
		}
		if err != nil {
			err = fmt.Errorf("not a part of this benchmark: %w; --merge takes the parts of one benchmark, run with the same spaces, strategies, budgets, seed and repeats", err)
		}
	}
	if err != nil {
		return nil, nil, fmt.Errorf("--resume %s: %w", path, err)
	}
	if err := reportTaken(w, "bench", path, len(done), skipped, "benchmark (other strategies, options, spaces or budgets)", prev.Spaces, cfg.Spaces); err != nil {
		return nil, nil, err
	}
	file := &benchFile{RunInfo: prev.RunInfo, Cells: prev.Cells}
	if budgets := []int(nil); json.Unmarshal(prev.Budgets, &budgets) == nil {
		file.Budgets = budgets
	}
	return done, file, nil
}

// mend says, after an error naming a damaged cell of a --resume file, what to do about it.
func mend(err error) string {
	if errors.As(err, new(*benchmark.CellError)) {
		return "; remove that cell from the file to run it again, or leave --resume out to run every cell"
	}
	return "; leave --resume out to run every cell"
}

// reportKept says what the checkpoint keeps of the --resume file beside this run's cells,
// and refuses a checkpoint that would overwrite the --resume file without cells of it that
// cannot stand beside this run's.
func reportKept(w io.Writer, kept benchmark.Kept, resume, checkpoint string) error {
	same := sameFile(resume, checkpoint)
	if len(kept.Lost) > 0 {
		if same {
			return fmt.Errorf("--checkpoint %s is the --resume file, and %d of its cells cannot be kept beside this run's (%s): "+
				"give --checkpoint another file, or run what the file was of", checkpoint, len(kept.Lost), listSome(kept.Lost, 2))
		}
		fmt.Fprintf(w, "ktune bench: --checkpoint %s leaves out %d cells of %s that cannot stand beside this run's (%s); %s keeps them\n",
			checkpoint, len(kept.Lost), resume, listSome(kept.Lost, 2), resume)
	}
	if len(kept.Cells) > 0 {
		fmt.Fprintf(w, "ktune bench: --checkpoint %s keeps the %d cells of %s that this run does not run, beside its own\n", checkpoint, len(kept.Cells), resume)
	}
	if kept.Replaced > 0 && same {
		fmt.Fprintf(w, "ktune bench: %d cells of %s are replaced in it by this run's, of the same labels under other options\n", kept.Replaced, resume)
	}
	return nil
}

// reportTaken says how many cells --resume took from path, and how many it left out as
// not of this what. A file of cells none of which is of this run is refused, naming the
// spaces it has (was) and those of this run, or those of one name whose recordings differ:
// it is another run's file, or one whose spaces no longer match, and going on would
// silently compute everything again.
func reportTaken(w io.Writer, cmd, path string, taken, skipped int, what string, was []benchmark.SpaceInfo, now []benchmark.Space) error {
	if taken == 0 && skipped > 0 {
		if other := benchmark.OtherRecordings(now, was); len(other) > 0 {
			return fmt.Errorf("--resume %s: none of its %d cells is of this %s: the content of its spaces differs from that of this run's "+
				"spaces of the same name (%s); leave --resume out to run every cell", path, skipped, what, listSome(other, 3))
		}
		names := make([]string, len(now))
		for i, s := range now {
			names[i] = s.Name
		}
		wasNames := make([]string, len(was))
		for i, s := range was {
			wasNames[i] = s.Name
		}
		return fmt.Errorf("--resume %s: none of its %d cells is of this %s; its spaces are %s, this run's %s "+
			"(leave --resume out to run every cell)", path, skipped, what, listSome(wasNames, 5), listSome(names, 5))
	}
	fmt.Fprintf(w, "ktune %s: %d cells taken from %s", cmd, taken, path)
	if skipped > 0 {
		fmt.Fprintf(w, "; %d of its cells are not of this %s and are left out", skipped, what)
	}
	fmt.Fprintln(w)
	return nil
}

// writeBenchCSV writes the cells as CSV to the file of --csv.
func writeBenchCSV(path string, cells []benchmark.Cell) error {
	if err := writeFile(path, func(f io.Writer) error { return writeCSVCells(f, cells) }); err != nil {
		return fmt.Errorf("--csv %s: %w", path, outfile.Cause(err, path))
	}
	return nil
}

func writeCSVCells(f io.Writer, cells []benchmark.Cell) error {
	w := csv.NewWriter(f)
	w.Write([]string{"space", "strategy", "budget", "mean_fraction_of_optimum", "std_fraction_of_optimum", "mean_evaluations", "us_per_evaluation", "runs"})
	for _, c := range cells {
		w.Write([]string{c.Space, c.Strategy, strconv.Itoa(c.Budget), strconv.FormatFloat(c.MeanFraction, 'g', -1, 64),
			strconv.FormatFloat(c.StdFraction, 'g', -1, 64), strconv.FormatFloat(c.MeanEvaluations, 'g', -1, 64),
			strconv.FormatFloat(c.MicrosPerEvaluation, 'f', 3, 64), strconv.Itoa(len(c.Fractions))})
	}
	w.Flush()
	return w.Error()
}

// leading is the progress line's best so far: the strategy (or setting) with the highest
// mean fraction of optimum over the spaces and budgets every one has finished.
func leading(at benchmark.Progress) string {
	if at.Leader == "" {
		return ""
	}
	return fmt.Sprintf(", leading %s %.3f over %s", at.Leader, at.LeaderMean, counted(at.Pairs, "space and budget", "spaces and budgets"))
}

// missingCells refuses a merge whose parts lack cells of the benchmark, saying how many
// and which, and, when the parts are shards of one count, which shards lack them and
// whether a part of each was given at all.
func missingCells(cfg benchmark.Config, parts []benchmark.Part) error {
	missing := cfg.Missing(cfg.Done)
	if len(missing) == 0 {
		return nil
	}
	names := make([]string, len(missing))
	for i, k := range missing {
		names[i] = k.String()
	}
	msg := fmt.Sprintf("--merge: %d of the benchmark's %d cells are in none of the --resume files: %s", len(missing), len(cfg.Cells()), listSome(names, 3))
	count := parts[0].Shard.Count
	given := map[int][]string{} // shard -> the parts that say they are it
	for _, p := range parts {
		if p.Shard.Count != count {
			count = 0 // parts of several counts, or not shards
			break
		}
		given[p.Shard.Index] = append(given[p.Shard.Index], p.Path)
	}
	if count > 1 {
		of := benchmark.Assign(cfg, count)
		lacks := map[int]int{}
		for _, k := range missing {
			lacks[of[k]]++
		}
		var absent, short []string
		for k := 1; k <= count; k++ {
			switch {
			case lacks[k] == 0:
			case len(given[k]) == 0:
				absent = append(absent, fmt.Sprintf("%d/%d", k, count))
			default:
				short = append(short, fmt.Sprintf("%d/%d (%s) lacks %d of its cells (interrupted: run it again with --resume of it)", k, count, strings.Join(given[k], ", "), lacks[k]))
			}
		}
		if len(absent) > 0 {
			msg += fmt.Sprintf("; no part is shard %s", strings.Join(absent, ", "))
		}
		if len(short) > 0 {
			msg += "; shard " + strings.Join(short, "; shard ")
		}
	}
	return errors.New(msg + "; run what is missing, or leave --merge out to run it here")
}
