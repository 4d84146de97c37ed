package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ktune/ktune/analysis"
	"github.com/ktune/ktune/benchmark"
	"github.com/ktune/ktune/figure"
	"github.com/ktune/ktune/format"
	"github.com/ktune/ktune/sensitivity"
	"github.com/ktune/ktune/simulator"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/store"
)

func init() {
	register(&command{
		name:    "analyze",
		summary: "explain a search space: local minima, flow graph centrality, parameter significance and sensitivity",
		usage: `(FILE|FOLDER|-... | RUN... | --run ID[,ID...]) [--mode recorded|cartesian] [--neighbourhood adjacent|Hamming]
          [--objective NAME] [--maximize|--minimize] [--params a,b,...] [--bench BENCH.json]
          [--plot DIR] [--json] [--space-memory SIZE]

Analyses recorded spaces (any format 'ktune import' reads; a folder stands for every
recording under it, - for one on standard input) or runs in the results database (RUN: a
run id), whole or partially explored.

The objective (--objective, or the recording's) is better lower or higher as the
recording says; Kernel Tuner caches do not say, and neither does a metric beside the
objective, so there the name decides: higher is better for throughput-like names (GFLOP/s,
GB/s, bandwidth, .../W), lower for any other (speedup, a profiling counter's pct), and the
output says "as its name suggests". --maximize or --minimize says it instead; minima,
optimum, fractions, centrality and the sign read in the significance all follow it.
A successful configuration without a value of a metric (one not measured for every
configuration) is no failure: a warning counts such configurations, and they are left out
of the significance, the indices and the recorded-mode landscape, as a partial run's
unexplored configurations are; a cartesian landscape counts them as failed points, as it
does every configuration of the product without a value.

Landscape (seed 000, Section VII), over the space the simulator's --mode searches:
  every configuration is classified under the neighbourhood as a local minimum, maximum,
  saddle or regular point (per parameter, compared with its neighbours in that parameter; a
  failed point is never a minimum: next to another failed point, or without neighbours, it
  is regular); the local minima's fraction of optimal fitness (Fig. 3; a ratio to the
  optimum, left out with a note where the optimum is 0 or the objective has negative
  values); the fitness flow graph (an edge to every neighbour at least as good), its
  PageRank centrality (damping 0.85, networkx's stopping rule with tolerance 1e-6,
  --pagerank-tol), and the proportion of centrality C_p: the centrality of the minima
  within p·|optimum| of the optimum (at most optimum + p·|optimum|, at least
  optimum - p·|optimum| when maximising: the paper's (1+p)·optimum for a positive one) over
  that of all minima, p = 0..15% (Fig. 7). A partial run covers the configurations it
  explored. In cartesian mode the landscape covers the full product of the values, about
  1 KiB per configuration: a product that needs more than --space-memory (default 1/8 of
  the memory available) is refused.
  With --bench (the JSON of 'ktune bench --json' over the same files), Spearman's rank
  correlation across spaces between C_p and the mean fraction of optimum each strategy
  reached, per budget: does C_p predict difficulty? The landscapes are then analysed in the
  mode the benchmark ran in (a note says so when that is not recorded), so that C_p
  describes the space the strategies searched; --mode given says otherwise, with a warning.

Parameters (seed 004), over the successful configurations:
  significance: Pearson correlation of each parameter's value with the objective (and
  Spearman's rank correlation; string parameters by their position in the value list);
  Sobol first-, second- and total-order indices: exact conditional means where the
  successful configurations form the full product of the values (method "exact": computed
  from the whole population they describe, they have no sampling error and no interval;
  the noise of each measured value is not included), the same formulas over the measured
  configurations otherwise (method "empirical", inputs dependent, totals a lower bound),
  and for a run of strategy saltelli also the Saltelli/Jansen estimates of its design.
  Empirical and Saltelli indices come with 95% percentile intervals from --bootstrap
  resamples: of the configurations (how much the indices depend on which were measured;
  re-centred on the estimate, first- and total-order bounds kept within [0, 1], as these
  are shares of variance), or of the design's rows (Monte Carlo sampling error, not
  clamped, as in SALib: a Saltelli estimate or bound slightly outside [0, 1] is noise).
  A constant objective has no variance to apportion: its indices (and correlations) are
  undefined, which a warning says.

An input that cannot be read or analysed (a corrupt file, no successful configuration) is
reported on standard error (and with --json under "errors", with why, even where no input
could be analysed and "results" is empty) and the others are analysed and printed; the
exit status is then 1, as for 'ktune import'. A file is named by its folder and file, as
'ktune bench' names it (kerneltuner_gemm/RTX_3090), standard input as stdin; two inputs
of one name are refused.

Interrupted (Ctrl-C), it prints the inputs analysed before (with --json as one document
whose "interrupted" says so, "results" holding those), writes no figures, and exits with
status 130.

A bare number is a run id unless a file of that name exists; when both could be meant,
ktune reads the file and warns: give the run as --run ID, or the file as ./NAME.

Figures (--plot DIR, each as SVG and PNG; NAME is the space's name with / as - and any
other character but letters, digits, '.', '_' and '-' as _, so run 12 gemm is run_12_gemm,
and -2, -3 after it where two names would make one file name):
  minima                  the local minima's fraction of optimal fitness, all spaces (Fig. 3;
                          left out where no space has one)
  centrality              the proportion of centrality C_p, all spaces (Fig. 7)
  ffg-NAME                the fitness flow graph (Fig. 6), of a space of at most
                          --graph-nodes configurations
  significance-NAME       the correlation of each parameter with the objective
  sensitivity-NAME        first- and total-order Sobol indices
  sensitivity-NAME-second the strongest second-order pairs (with --second-order)
  saltelli-NAME[-second]  the same from a saltelli run's design
A figure left out (a flow graph above --graph-nodes, minima without a fraction of optimum)
is said on standard error; "figures: N files" counts the files written.`,
		run: runAnalyze,
	})
}

type analyzeFlags struct {
	mode, neighbourhood, objective, params, bench, plot, db, runs string
	landscape, parameters, secondOrder, jsonOut, progress         bool
	bootstrap, graphNodes                                         int
	pagerankTol                                                   float64
	seed                                                          uint64
}

func runAnalyze(ctx context.Context, env *cliEnv, args []string) error {
	c := lookup("analyze")
	fs := newFlags(env, c)
	var f analyzeFlags
	fs.StringVar(&f.runs, "run", "", "analyse these runs of the results database (comma-separated ids)")
	fs.StringVar(&f.db, "db", defaultDB(), "results database: a file, or postgres://USER@HOST/DATABASE (also $KTUNE_DB), for --run")
	fs.StringVar(&f.mode, "mode", "recorded", "landscape space: recorded (restrictions known) or cartesian (the full product, failures as in seed 000); with --bench, the benchmark's mode unless given")
	fs.StringVar(&f.neighbourhood, "neighbourhood", "adjacent", "landscape neighbourhood: adjacent (seed 000's bounded) or Hamming")
	fs.StringVar(&f.objective, "objective", "", "objective or recorded metric to explain, or time (minimised: the time the run used, its spec's statistic of the samples; their mean for runs stored before ktune kept it) beside another objective (default: the recording's objective)")
	direction := directionFlags(fs)
	fs.StringVar(&f.params, "params", "", "comma-separated parameters whose Sobol indices are computed (default: all)")
	fs.BoolVar(&f.landscape, "landscape", true, "analyse the landscape (minima, flow graph, centrality)")
	fs.BoolVar(&f.parameters, "parameters", true, "analyse the parameters (significance, Sobol indices)")
	fs.BoolVar(&f.secondOrder, "second-order", true, "also compute second-order (pair) Sobol indices")
	fs.Float64Var(&f.pagerankTol, "pagerank-tol", 1e-6, "PageRank tolerance with networkx's rule (stop when the L1 change is below configurations x tol); smaller converges large spaces")
	countVar(fs, &f.bootstrap, "bootstrap", 200, 0, "resamples", "bootstrap resamples for the 95% intervals of empirical and Saltelli indices (0: none, otherwise at least 20)")
	fs.Uint64Var(&f.seed, "seed", 1, "seed of the bootstrap resamples")
	fs.StringVar(&f.bench, "bench", "", "'ktune bench --json' output: correlate C_p with the strategies' results across the spaces")
	fs.StringVar(&f.plot, "plot", "", "write the figures (SVG and PNG) into this directory")
	countVar(fs, &f.graphNodes, "graph-nodes", 5000, 0, "configurations", "draw the flow graph of spaces with at most this many configurations (0: none)")
	fs.BoolVar(&f.jsonOut, "json", false, "print JSON")
	fs.BoolVar(&f.progress, "progress", false, "show progress even when standard error is not a terminal (then a line at most every second)")
	maxBytes, err := spaceMemory(fs)
	if err != nil {
		return err
	}
	pos, err := parseFlags(env, c, fs, args)
	if err != nil {
		return err
	}
	o := analysis.Defaults()
	o.Landscape, o.Parameters, o.SecondOrder, o.Seed = f.landscape, f.parameters, f.secondOrder, f.seed
	o.Objective = f.objective
	if o.Maximize, err = direction(); err != nil {
		return usageErr(env, c, "%v", err)
	}
	o.PageRankTol = f.pagerankTol
	o.MaxBytes = *maxBytes
	if f.pagerankTol <= 0 {
		return usageErr(env, c, "--pagerank-tol must be positive")
	}
	o.Bootstrap = f.bootstrap
	if f.bootstrap > 0 && f.bootstrap < minBootstrap {
		return usageErr(env, c, "--bootstrap %d: give 0 (no intervals) or at least %d resamples for a 95%% interval", f.bootstrap, minBootstrap)
	}
	if f.bootstrap == 0 {
		o.Bootstrap = -1
	}
	if o.Mode, err = simulator.ParseMode(f.mode); err != nil {
		return usageErr(env, c, "%v", err)
	}
	if o.Neighbourhood, err = space.ParseNeighbourhood(f.neighbourhood); err != nil || o.Neighbourhood == space.StrictlyAdjacent {
		return usageErr(env, c, "--neighbourhood %q: want adjacent or Hamming", f.neighbourhood)
	}
	if f.params != "" {
		// what can be told without the inputs is told before reading them
		o.Params = strings.Split(f.params, ",")
		for i, p := range o.Params {
			switch {
			case p == "":
				return usageErr(env, c, "--params %q: an empty parameter name", f.params)
			case slices.Contains(o.Params[:i], p):
				return usageErr(env, c, "--params names %s twice", p)
			}
		}
	}
	if !o.Landscape && !o.Parameters {
		return usageErr(env, c, "nothing to do: --landscape=false and --parameters=false")
	}
	if f.plot != "" {
		// said now, not after the analysis, whose output the failure would lose
		if err := figure.Dir(f.plot); err != nil {
			return fmt.Errorf("--plot %s: cannot write figures there: %w", f.plot, err)
		}
	}
	// with --json every input that cannot be read or analysed is listed under "errors",
	// a lone one too, as 'ktune import --json' lists every file
	if err := stdinOnce(env, c, pos); err != nil {
		return err
	}
	inputs, unread, err := analysisInputs(ctx, pos, f.runs, f.db, f.jsonOut, env.stderr)
	if err != nil {
		if err == errNoInput {
			return usageErr(env, c, "give recorded files or --run")
		}
		if ctx.Err() != nil {
			// interrupted while reading: with --json still one document, which says so
			interrupted := interruption(ctx, "interrupted while reading the inputs; nothing was analysed")
			fmt.Fprintf(env.stderr, "ktune analyze: %v\n", interrupted)
			if f.jsonOut {
				if werr := writeJSON(env, struct {
					Interrupted string             `json:"interrupted"`
					Results     []*analysis.Result `json:"results"`
				}{interrupted.Error(), []*analysis.Result{}}); werr != nil {
					return werr
				}
			}
			return interrupted
		}
		return err
	}
	var cells []benchmark.Cell
	if f.bench != "" {
		var benchMode string
		if cells, benchMode, err = readBenchCells(ctx, f.bench); err != nil {
			return err
		}
		// C_p is compared with results in the space the benchmark searched: its mode,
		// unless --mode says otherwise (then the difference is said)
		modeSet := false
		fs.Visit(func(fl *flag.Flag) { modeSet = modeSet || fl.Name == "mode" })
		switch {
		case benchMode == "":
		case !modeSet:
			if o.Mode, err = simulator.ParseMode(benchMode); err != nil {
				return fmt.Errorf("%s: %w", f.bench, err)
			}
			if o.Mode != simulator.Recorded && o.Landscape {
				fmt.Fprintf(env.stderr, "ktune analyze: note: %s was benchmarked in %s mode, so the landscapes are analysed in %s mode too (give --mode recorded for the recorded configurations alone)\n",
					f.bench, o.Mode, o.Mode)
			}
		case benchMode != o.Mode.String():
			fmt.Fprintf(env.stderr, "ktune analyze: warning: %s was benchmarked in %s mode and the landscapes are analysed in %s mode (--mode): C_p and the results describe different spaces\n",
				f.bench, benchMode, o.Mode)
		}
	}
	var results []*analysis.Result
	var prog *progress
	if len(inputs) > 1 && (f.progress || isTerminal(env.stderr)) {
		prog = newProgress(env.stderr, "spaces analysed")
	}
	if len(inputs) == 1 && (f.progress || isTerminal(env.stderr)) {
		// one space: its parts, which take a minute or more on a million configurations
		name, begun := inputs[0].in.Name, time.Now()
		o.Step = func(part string) {
			fmt.Fprintf(env.stderr, "ktune analyze: %s: %s (%.1f s in)\n", name, part, time.Since(begun).Seconds())
		}
	}
	// one input that cannot be read or analysed does not cost the others
	var failed []string
	type inputError struct {
		Input string `json:"input"`
		Error string `json:"error"`
	}
	var inputErrors []inputError // for --json: which inputs failed, and why
	total := len(inputs) + len(unread)
	var lone error // the error of the only input, returned as it is
	// Interrupted (Ctrl-C, SIGTERM): the inputs analysed are printed, and with --json
	// written as one document that says so, before ktune exits with the error.
	var interrupted error
	// an input that cannot be read is said as its reader says it, naming the file
	readFailed := func(err error) {
		if total == 1 {
			lone = err
		} else {
			fmt.Fprintf(env.stderr, "ktune analyze: %v\n", err)
		}
		failed = append(failed, inputOf(err))
		inputErrors = append(inputErrors, inputError{inputOf(err), err.Error()})
	}
	for _, err := range unread {
		readFailed(err)
	}
	var left []string // files found in folders that are no recordings
	for i, input := range inputs {
		in := input.in
		env.log.Info("analysing", "input", in.Name, "n", i+1, "of", len(inputs))
		if prog != nil {
			prog.update(i, len(inputs), "now "+in.Name)
		}
		if input.path != "" {
			rec, err := readRecording(ctx, input.path)
			switch {
			case input.found && errors.Is(err, format.ErrUnknown):
				left = append(left, input.path)
				total--
				continue
			case err != nil && ctx.Err() != nil:
				if prog != nil {
					prog.finish()
				}
				interrupted = interruption(ctx, "interrupted with %d of %d inputs analysed", len(results), total)
				if len(results) > 0 {
					interrupted = fmt.Errorf("%w; the results are of those", interrupted)
				}
				fmt.Fprintf(env.stderr, "ktune analyze: %v\n", interrupted)
			case err != nil && total == 1 && !f.jsonOut:
				return err
			case err != nil:
				readFailed(err)
				continue
			}
			if interrupted != nil {
				break
			}
			in.Rec = rec
		}
		r, err := analysis.Analyze(ctx, in, o)
		inputs[i].in.Rec = nil // analysed: let it go
		if err == nil && f.plot == "" {
			r.ReleaseFigureData()
		}
		if err != nil {
			err = spaceTooLarge(err)
			if prog != nil {
				prog.finish()
			}
			if ctx.Err() != nil {
				interrupted = interruption(ctx, "interrupted with %d of %d inputs analysed", len(results), total)
				if len(results) > 0 {
					interrupted = fmt.Errorf("%w; the results are of those", interrupted)
				}
				fmt.Fprintf(env.stderr, "ktune analyze: %v\n", interrupted)
				break
			}
			if total == 1 && !f.jsonOut {
				return err
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, in.Name+":") {
				msg = in.Name + ": " + msg
			}
			if total == 1 {
				lone = err
			} else {
				fmt.Fprintf(env.stderr, "ktune analyze: %s\n", msg)
			}
			failed = append(failed, in.Name)
			inputErrors = append(inputErrors, inputError{in.Name, msg})
			continue
		}
		results = append(results, r)
		if prog != nil {
			prog.update(i+1, len(inputs), "last "+in.Name)
		}
	}
	if prog != nil {
		prog.finish()
	}
	if len(left) > 0 {
		fmt.Fprintf(env.stderr, "ktune analyze: %s: %s\n", notRecordings(len(left)), listSome(left, 5))
		if total == 0 {
			return fmt.Errorf("no recorded space in %s", strings.Join(pos, ", "))
		}
	}
	note := ""
	if interrupted != nil {
		note = interrupted.Error()
	}
	if len(results) == 0 {
		err := fmt.Errorf("none of the %d inputs could be analysed", total)
		if lone != nil {
			err = lone
		}
		if interrupted != nil {
			err = interrupted
		}
		if f.jsonOut {
			// the errors, for a script that reads what happened from the JSON
			if werr := writeJSON(env, struct {
				Interrupted string             `json:"interrupted,omitempty"`
				Results     []*analysis.Result `json:"results"`
				Errors      []inputError       `json:"errors"`
			}{note, []*analysis.Result{}, inputErrors}); werr != nil {
				return werr
			}
		}
		return err
	}
	// the analysed ones are printed, and the exit status says that some were not
	var errFailed error
	if len(failed) > 0 {
		errFailed = fmt.Errorf("%d of %d inputs could not be analysed: %s", len(failed), total, listSome(failed, 5))
	}
	if interrupted != nil {
		if len(failed) > 0 {
			fmt.Fprintf(env.stderr, "ktune analyze: %v\n", errFailed)
		}
		errFailed = interrupted // the exit status of an interruption
	}
	var difficulty []analysis.Difficulty
	if cells != nil {
		difficulty = analysis.CorrelateDifficulty(results, cells)
		if len(difficulty) == 0 {
			fmt.Fprintf(env.stderr, "ktune analyze: warning: %s has no strategy with results on three or more of the analysed spaces (names must match 'ktune bench', e.g. kerneltuner_gemm/RTX_3090)\n", f.bench)
		}
	}
	var figures []string
	if f.plot != "" && interrupted != nil {
		fmt.Fprintf(env.stderr, "ktune analyze: note: no figures written into %s: interrupted\n", f.plot)
	} else if f.plot != "" {
		note := func(s string) { fmt.Fprintf(env.stderr, "ktune analyze: note: %s\n", s) }
		if figures, err = analysis.WriteFigures(ctx, results, f.plot, analysis.FigureOptions{GraphNodes: f.graphNodes, Note: note}); err != nil {
			// the analysis is finished and printed all the same, with the figures
			// written before
			if ctx.Err() == nil {
				if errFailed != nil {
					fmt.Fprintf(env.stderr, "ktune analyze: %v\n", errFailed)
				}
				errFailed = err
			} else {
				interrupted = interruption(ctx, "interrupted while drawing the figures, with %d of their files written into %s; the analysis is whole", len(figures), f.plot)
				fmt.Fprintf(env.stderr, "ktune analyze: %v\n", interrupted)
				if len(failed) > 0 {
					fmt.Fprintf(env.stderr, "ktune analyze: %v\n", errFailed)
				}
				errFailed = interrupted
			}
		}
	}
	if interrupted != nil {
		note = interrupted.Error()
	}
	if f.jsonOut {
		if err := writeJSON(env, struct {
			// Interrupted says the analysis was cut short: "results" holds the inputs
			// analysed before, and the others are in neither list
			Interrupted string                `json:"interrupted,omitempty"`
			Results     []*analysis.Result    `json:"results"`
			Errors      []inputError          `json:"errors,omitempty"` // the inputs that could not be read or analysed
			Difficulty  []analysis.Difficulty `json:"difficulty,omitempty"`
			Figures     []string              `json:"figures,omitempty"`
		}{note, results, inputErrors, difficulty, figures}); err != nil {
			return err
		}
		return errFailed
	}
	w := env.stdout
	for i, r := range results {
		if i > 0 {
			fmt.Fprintln(w)
		}
		printAnalysis(w, r)
	}
	if len(difficulty) > 0 {
		fmt.Fprintln(w)
		printDifficulty(w, difficulty)
	}
	if len(figures) > 0 {
		fmt.Fprintf(w, "\nfigures: %d files in %s\n", len(figures), f.plot)
	}
	return errFailed
}

var errNoInput = fmt.Errorf("no input")

// inputOf names the input an error of analysisInputs is about: the file of a
// *format.Error or a *fs.PathError, the run, or the message's first part.
func inputOf(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Path
	}
	var re *storedRunError
	if errors.As(err, &re) {
		return re.input()
	}
	msg := err.Error()
	if i := strings.Index(msg, ": "); i > 0 {
		return msg[:i]
	}
	return msg
}

// analysisInput is one input of 'ktune analyze': a recorded file, read when its turn comes
// (path), so that an analysis of many files holds one recording at a time, or a stored
// run or standard input, read before (in.Rec).
type analysisInput struct {
	in    analysis.Input
	path  string // the file to read; "" when in.Rec is read
	found bool   // the file was found in a folder: one that is no recording is left out
}

// analysisInputs names the recorded files (a folder stands for the files under it) and
// opens standard input and the stored runs to analyse. An input that cannot be read is an
// error when it is the only one, unless listAll; otherwise its error joins unread and the
// others are read. The files are read by the analysis, in turn (analysisInput).
func analysisInputs(ctx context.Context, files []string, runs, db string, listAll bool, warn io.Writer) (out []analysisInput, unread []error, err error) {
	// A bare number that names no file is a run id, as 'ktune report' reads it.
	var names []string
	for _, f := range files {
		if _, ok := bareRunID("analyze", f, warn); ok {
			runs = strings.TrimPrefix(runs+","+f, ",")
			continue
		}
		names = append(names, f)
	}
	names, found, err := expandFolders(names)
	if err != nil {
		return nil, nil, err
	}
	var ids []string
	if runs != "" {
		ids = strings.Split(runs, ",")
	}
	single := len(names)+len(ids) == 1 && !listAll
	named := map[string]string{}
	for _, f := range names {
		// the name tells results, figures and --bench's spaces apart
		name := benchSpaceName(f)
		if f == stdinArg {
			name = "stdin"
		}
		if other, dup := named[name]; dup {
			if sameFile(f, other) {
				return nil, nil, fmt.Errorf("%s is given twice", f)
			}
			return nil, nil, fmt.Errorf("%s and %s are both named %s (folder/file), which tells spaces apart in the results and figures: rename or move one", other, f, name)
		}
		named[name] = f
		if f != stdinArg {
			out = append(out, analysisInput{in: analysis.Input{Name: name}, path: f, found: found[f]})
			continue
		}
		rec, err := readRecording(ctx, f)
		if err != nil {
			if single || ctx.Err() != nil {
				return nil, nil, err
			}
			unread = append(unread, err)
			continue
		}
		out = append(out, analysisInput{in: analysis.Input{Name: name, Rec: rec}})
	}
	if len(ids) > 0 {
		// a mistyped id is said before the database is looked for
		nums := make([]int64, len(ids))
		for i, s := range ids {
			if nums[i], err = strconv.ParseInt(strings.TrimSpace(s), 10, 64); err != nil {
				return nil, nil, fmt.Errorf("--run %q: not a run id", s)
			}
		}
		st, err := openStoredRun(ctx, db)
		if err != nil {
			return nil, nil, err
		}
		defer st.Close()
		for _, id := range nums {
			in, err := runInput(ctx, st, id)
			if err != nil {
				err = runError(ctx, st, db, id, err)
			} else {
				err = measuredNothing(db, id, in.Rec, "analyze")
			}
			if err != nil {
				if single || ctx.Err() != nil {
					return nil, nil, err
				}
				unread = append(unread, err)
				continue
			}
			out = append(out, analysisInput{in: in})
		}
	}
	if len(out) == 0 && len(unread) == 0 {
		return nil, nil, errNoInput
	}
	return out, unread, nil
}

func runInput(ctx context.Context, st store.Store, id int64) (analysis.Input, error) {
	info, err := st.Run(ctx, id)
	if err != nil {
		return analysis.Input{}, err
	}
	rec, err := st.Recording(ctx, id)
	if err != nil {
		return analysis.Input{}, err
	}
	return analysis.Input{Name: analysis.RunName(id, info.Kernel), Rec: rec, Run: &info}, nil
}

// spaceName names a recorded file by its folder and file, as 'ktune bench' does
// ("kerneltuner_gemm/RTX_2080_Ti"), so analyses and benchmarks can be matched.
func spaceName(f string) string {
	name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(f), ".gz"), ".json")
	if d := filepath.Base(filepath.Dir(f)); d != "." && d != "/" {
		name = d + "/" + name
	}
	return name
}

// readBenchCells reads the cells of a 'ktune bench --json' output and the mode it ran in
// ("" when the file does not say).
func readBenchCells(ctx context.Context, path string) ([]benchmark.Cell, string, error) {
	data, err := format.ReadFile(ctx, path)
	if err != nil {
		return nil, "", err
	}
	var b struct {
		Mode  string           `json:"mode"`
		Cells []benchmark.Cell `json:"cells"`
	}
	if err := json.Unmarshal(data, &b); err != nil {
		return nil, "", fmt.Errorf("%s: not the JSON of 'ktune bench --json': %w", path, err)
	}
	if len(b.Cells) == 0 {
		return nil, "", fmt.Errorf("%s: no benchmark cells (write it with 'ktune bench --json')", path)
	}
	return b.Cells, b.Mode, nil
}

func direction(maximize bool) string {
	if maximize {
		return "higher is better"
	}
	return "lower is better"
}

// directionOf is the direction of an analysed objective and, unless the recording says
// it, where it comes from.
func directionOf(r *analysis.Result) string {
	switch r.DirectionFrom {
	case analysis.DirectionName:
		other := "--maximize"
		if r.Maximize {
			other = "--minimize"
		}
		return direction(r.Maximize) + ", as its name suggests; " + other + " if not"
	case analysis.DirectionOption:
		if r.Maximize {
			return direction(r.Maximize) + ", --maximize"
		}
		return direction(r.Maximize) + ", --minimize"
	}
	return direction(r.Maximize)
}

func printAnalysis(w io.Writer, r *analysis.Result) {
	if r.Kernel != "" && strings.HasSuffix(r.Name, " "+r.Kernel) { // a run's name says its kernel already: "run 1 gemm"
		fmt.Fprintf(w, "%s on %s; objective %s (%s)\n", r.Name, orDash(r.Device), r.Objective, directionOf(r))
	} else {
		fmt.Fprintf(w, "%s: %s on %s; objective %s (%s)\n", r.Name, orDash(r.Kernel), orDash(r.Device), r.Objective, directionOf(r))
	}
	fmt.Fprintf(w, "  %s, %d evaluated, %d valid; optimum %.6g at %s\n", counted(r.Configurations, "configuration", "configurations"), r.Evaluated, r.Valid, r.Optimum, r.OptimumConfig)
	for _, s := range r.Warnings {
		fmt.Fprintf(w, "  warning: %s\n", s)
	}
	if a := r.Landscape; a != nil {
		fmt.Fprintf(w, "  landscape (%s mode, %s neighbourhood): %s, %d failed\n", r.LandscapeMode, a.Neighbourhood, counted(a.Points, "point", "points"), a.Failed)
		fmt.Fprintf(w, "    %s, %s, %s, %d regular\n", counted(a.Minima, "local minimum", "local minima"), counted(a.Maxima, "maximum", "maxima"),
			counted(a.Saddles, "saddle", "saddles"), a.Regular)
		if fr := a.MinimaFractions; len(fr) > 0 {
			q := quantiles(fr)
			fmt.Fprintf(w, "    fraction of optimal fitness of the minima: min %.3f  quartile %.3f  median %.3f  quartile %.3f  max %.3f\n", q[0], q[1], q[2], q[3], q[4])
		} else if a.FractionNote != "" {
			fmt.Fprintf(w, "    %s\n", a.FractionNote)
		}
		fmt.Fprintf(w, "    flow graph: %s; PageRank stopped after %s\n", counted(a.Edges, "edge", "edges"), counted(a.PageRankIterations, "iteration", "iterations"))
		fmt.Fprintf(w, "    proportion of centrality C_p:")
		for _, pr := range a.Proportions {
			if pct := pr.P * 100; math.Abs(pct-math.Round(pct/5)*5) < 1e-9 {
				fmt.Fprintf(w, "  %g%% %.3f", math.Round(pct), pr.C)
			}
		}
		fmt.Fprintln(w)
	}
	if len(r.Significance) > 0 {
		fmt.Fprintf(w, "  significance: correlation of each parameter with %s over %s\n", r.Objective, counted(r.Valid, "valid configuration", "valid configurations"))
		good := "negative"
		if r.Maximize {
			good = "positive"
		}
		fmt.Fprintf(w, "    (%s: larger values of the parameter are better)\n", good)
		cs := append([]sensitivity.Correlation(nil), r.Significance...)
		sort.SliceStable(cs, func(i, j int) bool { return absOrZero(cs[i].Pearson) > absOrZero(cs[j].Pearson) })
		width := 9
		for _, c := range cs {
			width = max(width, len(c.Param))
		}
		fmt.Fprintf(w, "    %-*s  %8s  %8s\n", width, "parameter", "Pearson", "Spearman")
		someVary := slices.ContainsFunc(cs, func(c sensitivity.Correlation) bool { return !math.IsNaN(c.Pearson) })
		for _, c := range cs {
			note := ""
			switch {
			case c.Ordinal:
				note = "  (values by position)"
			case math.IsNaN(c.Pearson) && someVary:
				// as the significance chart labels it: one value over these configurations
				note = "  (constant)"
			}
			fmt.Fprintf(w, "    %-*s  %8s  %8s%s\n", width, c.Param, num(c.Pearson), num(c.Spearman), note)
		}
	}
	for _, s := range []*sensitivity.Sobol{r.Sobol, r.Saltelli} {
		if s != nil {
			printSobol(w, s)
		}
	}
}

func printSobol(w io.Writer, s *sensitivity.Sobol) {
	fmt.Fprintf(w, "  Sobol indices (%s, %s", s.Method, counted(s.Samples, "sample", "samples"))
	if s.Bootstrap > 0 {
		fmt.Fprintf(w, ", 95%% intervals from %d bootstrap resamples", s.Bootstrap)
	}
	fmt.Fprintln(w, ")")
	if s.Note != "" {
		fmt.Fprintf(w, "    %s\n", s.Note)
	}
	width := 9
	for _, p := range s.Params {
		width = max(width, len(p))
	}
	fmt.Fprintf(w, "    %-*s  %-24s  %-24s\n", width, "parameter", "first order", "total order")
	for i, p := range s.Params {
		fmt.Fprintf(w, "    %-*s  %-24s  %-24s\n", width, p, interval(s.First[i]), interval(s.Total[i]))
	}
	if len(s.Second) > 0 {
		pairs := append([]sensitivity.Pair(nil), s.Second...)
		sort.SliceStable(pairs, func(i, j int) bool { return absOrZero(pairs[i].Index.Value) > absOrZero(pairs[j].Index.Value) })
		n := min(len(pairs), 5)
		fmt.Fprintf(w, "    strongest second-order pairs:")
		for _, p := range pairs[:n] {
			fmt.Fprintf(w, "  %s x %s %s", s.Params[p.I], s.Params[p.J], num(p.Index.Value))
		}
		fmt.Fprintln(w)
	}
}

// notRecordings says that n files found in folders are not recordings and are left out.
func notRecordings(n int) string {
	if n == 1 {
		return "1 file found in the folders is not a recording and is left out"
	}
	return fmt.Sprintf("%d files found in the folders are not recordings and are left out", n)
}

// counted is n with the noun for one or many after it ("1 local minimum", "3 local
// minima"), for the analysis's counts.
func counted(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

func interval(iv sensitivity.Interval) string {
	if math.IsNaN(iv.Low) || math.IsNaN(iv.High) {
		return num(iv.Value)
	}
	return fmt.Sprintf("%s [%s, %s]", num(iv.Value), num(iv.Low), num(iv.High))
}

func num(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

func absOrZero(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return math.Abs(v)
}

// quantiles returns the minimum, quartiles and maximum of xs (linear interpolation).
func quantiles(xs []float64) [5]float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	var q [5]float64
	for i, p := range []float64{0, 0.25, 0.5, 0.75, 1} {
		pos := p * float64(len(s)-1)
		lo := int(math.Floor(pos))
		hi := min(lo+1, len(s)-1)
		q[i] = s[lo] + (pos-float64(lo))*(s[hi]-s[lo])
	}
	return q
}

func printDifficulty(w io.Writer, ds []analysis.Difficulty) {
	fmt.Fprintln(w, "difficulty: Spearman's rank correlation across spaces between C_p and the mean fraction of optimum")
	fmt.Fprintln(w, "(positive: spaces whose good minima are more central were easier for the strategy)")
	if len(ds) == 0 {
		return
	}
	width := 8
	for _, d := range ds {
		width = max(width, len(d.Strategy))
	}
	fmt.Fprintf(w, "  %-*s  %6s  %6s", width, "strategy", "budget", "spaces")
	for i, p := range ds[0].Ps {
		if i%5 == 0 {
			fmt.Fprintf(w, "  %7s", fmt.Sprintf("p=%g%%", math.Round(p*100)))
		}
	}
	fmt.Fprintln(w)
	for _, d := range ds {
		fmt.Fprintf(w, "  %-*s  %6d  %6d", width, d.Strategy, d.Budget, d.Spaces)
		for i, rho := range d.Rho {
			if i%5 == 0 {
				fmt.Fprintf(w, "  %7s", num(float64(rho)))
			}
		}
		fmt.Fprintln(w)
	}
}
