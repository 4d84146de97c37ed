package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ktune/ktune/benchmark"
	"github.com/ktune/ktune/format"
	"github.com/ktune/ktune/internal/outfile"
	"github.com/ktune/ktune/report"
	"github.com/ktune/ktune/simulator"
	"github.com/ktune/ktune/strategy"
)

func init() {
	register(&command{
		name:    "hypertune",
		summary: "tune a strategy's hyperparameters on recorded spaces (seed 000's selection) into a defaults file",
		usage: `FILE|FOLDER... --strategy NAME [--grid 'OPT=V1,V2;OPT=V1,V2'] [--budgets 25,50,...]
          [--repeats 20] [--seed S] [--mode cartesian|recorded] [--fitness deterministic|stochastic]
          [-o|--out FILE] [--csv OUT] [--json] [--checkpoint FILE] [--resume FILE] [--maximize|--minimize]

Tunes the hyperparameters of one strategy on training spaces (recorded Kernel Tuner cache,
T4 or KTT files; a folder stands for every recording under it; a compressed file cut short
is refused), as seed 000 chose its Table III (section VI-A). Every combination of the grid's option values (a setting) runs
--repeats times on every space at every budget (run i uses seed S+i for every setting) and
is scored by its mean fraction of the optimum. Then, per budget:
  1. on each space, a setting is acceptable when its mean is within k * sigma of the best
     mean, sigma being the standard deviation of that best setting;
  2. the acceptable sets of all spaces are intersected;
  3. k is adjusted, from 1, by bisection (halving the interval; doubling while the
     intersection stays empty) until exactly one setting remains. Settings that tie
     exactly are separated by their mean fraction over all spaces.
The table per budget shows each setting's mean (std) per space and the k it needs to be
acceptable on every space; '*' marks the choice. The choices are written to --out as a
defaults file, which 'ktune tune', 'ktune simulate' and 'ktune bench' read with
--defaults FILE: a run takes the options of the largest budget column not above its budget
(the smallest column for a budget below them all, the largest when the run has no
budget), and options given explicitly (--option, NAME:OPT=VALUE) win over the file's. The
file writes the chosen options in the strategy's own spelling (a grid's hamming is written
Hamming, restart=1 true), as runs store them; its "grid" keeps the grid as given.

--grid lists options separated by ';', each with its values separated by ',' (a list
value in brackets, whose commas separate nothing: 'order=[0,1],[1,0]'); one value listed
twice however it is spelled (1 and 1.0, Hamming and hamming, false and 0) is refused.
Without it the strategy's built-in grid is used, where it has one:
` + builtInGrids() + `
For the strategies of seed 000's Table III these span the values the table chose across
its budget columns (it shows only the choices, not what they were chosen from): some of
them where it has many (genetic's popsize 10, 40 and 128 of its 8 to 320), a middle value
where it has only two ends (perturbation_size 0.3, tabu_size 50), and values it does not
show, such as the adjacent neighbourhood where it chose Hamming, Nelder-Mead, genetic's
uniform crossover, gls's tournament selection, smac's ei and logei, and irace's firstTest
5 and nbConfigurations 8 and 32. Table III has no bayes, firefly, greedyils or greedymls,
nor smac's interleave or irace's testType: their values lie around ktune's defaults.
The cost is settings x spaces x budgets x repeats simulated runs; see 'ktune help
strategies' for each strategy's options. The grid runs budget by budget, so an interrupted
hypertune (Ctrl-C) keeps the choices of the budgets it finished: it prints them, writes
them to --out (and the cells run to --csv and --json), and exits with status 130.
--resume FILE, with the --json output of an earlier hypertune of the same strategy, seed
and repeats (interrupted or not), takes from it the cells of this grid's settings, spaces
and budgets (a setting is the same when its values mean the same to the strategy, however
the grid spelled them: neighbourhood=hamming and Hamming, perturbation_size=0.10 and 0.1)
and runs only the others (a file none of whose cells is of this grid is refused, and so
is one with a cell no run writes or of a setting, space or budget the file does not list,
edited or damaged, naming the cell).
--checkpoint FILE keeps FILE up to date with the finished cells as the grid goes
(rewritten whole at most every 10 s, within 10 s of each finished cell, and at the end),
so that after a crash, a kill or a lost terminal the same command with --resume FILE goes
on where it was; a FILE that holds cells already is refused unless it is the --resume
file, so that a run that forgot --resume writes over none, and a second ktune given FILE
while a run writes it (which holds FILE.lock beside it meanwhile, as bench does) is refused
at once. The checkpoint holds this grid's cells only: --checkpoint naming the
--resume file is refused when that file has cells of other settings, spaces or budgets;
an output (--out, --csv, --checkpoint) that is a recording read, the --resume file (but
for --checkpoint) or another output is refused before anything runs.
A checkpoint that cannot be written (a full disk) is said at once and tried again as cells
finish; an output that cannot be written (--out, --csv, the final checkpoint) loses none
of the choices: they are printed, and each output that failed is said at the end, with
exit status 1.`,
		run: runHypertune,
	})
}

func runHypertune(ctx context.Context, env *cliEnv, args []string) error {
	c := lookup("hypertune")
	fs := newFlags(env, c)
	name := fs.String("strategy", "", "the strategy whose options are tuned (required)")
	gridFlag := fs.String("grid", "", "option values to combine, 'OPT=V1,V2;OPT=V1,V2' (default: the strategy's built-in grid)")
	budgets := fs.String("budgets", "25,50,100,200,400,800,1600", "comma-separated budgets (evaluations: unique configurations under deterministic fitness, every measurement under stochastic), one choice each")
	repeats := count(fs, "repeats", 20, 2, "runs", "runs per setting, space and budget (seed 000: 20; 2 or more)")
	seed := fs.Uint64("seed", 1, "seed of the first run")
	modeName := fs.String("mode", "cartesian", "cartesian (seed 000's setting) or recorded")
	fitnessName := fs.String("fitness", "deterministic", "deterministic (the recorded mean) or stochastic (one recorded sample per evaluation, repeats cost budget)")
	out := fs.String("out", "", "defaults file to write (default NAME.defaults.json)")
	fs.StringVar(out, "o", "", "the same as --out")
	csvPath := fs.String("csv", "", "also write every cell as CSV to this file")
	workers := count(fs, "workers", 0, 0, "workers", "parallel runs (0: all cores)")
	jsonOut := fs.Bool("json", false, "print JSON: settings, every cell, the choice per budget")
	showProgress := fs.Bool("progress", false, "show progress even when standard error is not a terminal (then a line at most every second)")
	resume := fs.String("resume", "", "take the cells an earlier 'ktune hypertune --json' output or --checkpoint file already has from this file instead of running them again")
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
	switch {
	case *name == "":
		return usageErr(env, c, "give --strategy")
	case len(files) == 0:
		return usageErr(env, c, "give at least one recorded space to train on")
	}
	if err := noStdin(env, c, files, spacesByFile); err != nil {
		return err
	}
	if _, ok := strategy.Lookup(*name); !ok {
		return usageErr(env, c, "%v", strategy.UnknownStrategy(*name))
	}
	var grid benchmark.Grid
	if *gridFlag != "" {
		if grid, err = benchmark.ParseGrid(*gridFlag); err != nil {
			return usageErr(env, c, "--grid: %v", err)
		}
	} else if g, ok := benchmark.DefaultGrid(*name); ok {
		grid = g
	} else {
		return usageErr(env, c, "%s has no built-in grid: give --grid", *name)
	}
	cfg := benchmark.HypertuneConfig{Strategy: *name, Grid: grid, Repeats: *repeats, Seed: *seed, Workers: *workers}
	if cfg.Budgets, err = parseBudgets(*budgets); err != nil {
		return usageErr(env, c, "%v", err)
	}
	mode, err := simulator.ParseMode(*modeName)
	if err != nil {
		return usageErr(env, c, "%v", err)
	}
	fitness, err := simulator.ParseFitness(*fitnessName)
	if err != nil {
		return usageErr(env, c, "%v", err)
	}
	outPath := *out
	if outPath == "" {
		outPath = *name + ".defaults.json"
	}
	if err := checkOutputs(output{"--out", outPath, false}, output{"--csv", *csvPath, false}, output{"--checkpoint", *checkpointPath, false}); err != nil {
		return err
	}
	if err := distinctOutputs(files, *resume, nil,
		outfile.Named{What: "--out", Path: outPath}, outfile.Named{What: "--csv", Path: *csvPath}, outfile.Named{What: "--checkpoint", Path: *checkpointPath}); err != nil {
		return err
	}
	lock, err := lockCheckpoint("hypertune", *checkpointPath, env.log)
	if err != nil {
		return err
	}
	defer lock.Release()
	if err := heldCells("hypertune", *checkpointPath, *resume); err != nil {
		return err
	}
	if cfg.Spaces, err = loadSpaces(files, mode, fitness, maximize, env.stderr, "hypertune"); err != nil {
		return err
	}
	// options that the strategy refuses or that do not fit a space are refused before any cell runs
	if err := cfg.Check(); err != nil {
		if *gridFlag != "" {
			return usageErr(env, c, "--grid: %v", err)
		}
		return usageErr(env, c, "%v", err)
	}
	if *resume != "" {
		var skipped int
		if cfg.Done, skipped, err = resumeTuning(*resume, cfg, mode.String(), fitness.String(), env.stderr); err != nil {
			return err
		}
		// the checkpoint holds this grid's cells: written over the file resumed from, it
		// would lose the others
		if skipped > 0 && *checkpointPath != "" && sameFile(*checkpointPath, *resume) {
			return fmt.Errorf("--checkpoint %s is the --resume file, and %d of its cells are not of this grid: they would be lost; give --checkpoint another file",
				*checkpointPath, skipped)
		}
	}
	var prog *progress
	if *showProgress || isTerminal(env.stderr) {
		prog = newProgress(env.stderr, "evaluations")
		cfg.Progress = func(at benchmark.Progress) {
			prog.update(at.Evaluations, at.TotalEvaluations, fmt.Sprintf("%d/%d cells%s", at.Cells, at.TotalCells, leading(at)))
		}
	}
	ckpt := newCheckpoint(*checkpointPath, "hypertune", env.stderr)
	saved := func(r *benchmark.HypertuneResult) any {
		return struct {
			Mode    string `json:"mode"`
			Fitness string `json:"fitness"`
			*benchmark.HypertuneResult
		}{mode.String(), fitness.String(), r}
	}
	if ckpt != nil {
		// the cells so far are not copied at each cell (n²/2 for n cells): Hypertune
		// never changes one it has passed on
		cfg.Finished = func(partial *benchmark.HypertuneResult) { ckpt.update(saved(partial)) }
	}
	res, err := benchmark.Hypertune(ctx, cfg)
	if prog != nil {
		prog.finish() // before the interruption's message and the results
	}
	if res != nil {
		ckpt.pendingState(saved(res))
	}
	// The choices are printed whatever output fails (a full disk): every output is
	// tried, and those that failed are said at the end, with a status that is not 0.
	var failed []error
	if cerr := ckpt.flush(); cerr != nil {
		failed = append(failed, fmt.Errorf("%w: the final checkpoint is not written", cerr))
	}
	var interrupted error
	if err != nil {
		if res == nil {
			return failedOutputs(env, "hypertune", append(failed, err), nil)
		}
		// Interrupted (Ctrl-C, SIGTERM): the budgets finished keep their choice, written
		// as a defaults file of those budgets, and the cells run go to --csv and --json.
		if ctx.Err() == nil {
			return failedOutputs(env, "hypertune", append(failed, err), nil)
		}
		// said as the other commands say it, without Go's "context canceled"
		interrupted = interruption(ctx, "interrupted with %d of %d budgets finished", len(res.Choices), len(cfg.Budgets))
		if len(res.Choices) > 0 {
			interrupted = fmt.Errorf("%w; the choices are of those", interrupted)
		}
		fmt.Fprintf(env.stderr, "ktune hypertune: %v\n", interrupted)
	}
	path := ""
	if len(res.Choices) > 0 {
		d := res.Defaults()
		d.Mode, d.Fitness = mode.String(), fitness.String()
		if err := d.Save(outPath); err != nil {
			failed = append(failed, fmt.Errorf("--out %s: %w", outPath, outfile.Cause(err, outPath)))
		} else {
			path = outPath
		}
	}
	if *csvPath != "" {
		if err := writeBenchCSV(*csvPath, res.Cells); err != nil {
			failed = append(failed, err)
		}
	}
	stdout := &resultWriter{w: env.stdout}
	results := &cliEnv{stdout: stdout, stderr: env.stderr, log: env.log}
	if *jsonOut {
		note := ""
		if interrupted != nil {
			note = interrupted.Error()
		}
		writeJSON(results, struct {
			Mode        string `json:"mode"`
			Fitness     string `json:"fitness"`
			Defaults    string `json:"defaults_file,omitempty"`
			Interrupted string `json:"interrupted,omitempty"`
			*benchmark.HypertuneResult
		}{mode.String(), fitness.String(), path, note, res}) // a failure is stdout's
	} else {
		printHypertune(results, res, mode, fitness)
		switch {
		case path != "":
			fmt.Fprintf(stdout, "defaults: %s (use with --defaults %s)\n", path, path)
		case len(res.Choices) > 0:
			fmt.Fprintf(stdout, "defaults: none written (writing --out %s failed)\n", outPath)
		default:
			fmt.Fprintf(stdout, "defaults: none written (no budget finished)\n")
		}
	}
	if stdout.err != nil {
		failed = append(failed, fmt.Errorf("standard output: %w", stdout.err))
	}
	return failedOutputs(env, "hypertune", failed, interrupted)
}

// builtInGrids lists the built-in grids as --grid takes them, one strategy a line, wrapped
// at the options.
func builtInGrids() string {
	const indent = 17
	var lines []string
	for _, name := range benchmark.DefaultGridNames() {
		g, _ := benchmark.DefaultGrid(name)
		line := fmt.Sprintf("  %-*s ", indent-3, name)
		for i, p := range g {
			opt := p.Name + "=" + strings.Join(p.Values, ",")
			if i < len(g)-1 {
				opt += ";"
			}
			if i > 0 && len(line)+len(opt) > 90 {
				lines = append(lines, line)
				line = strings.Repeat(" ", indent)
			}
			line += opt
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// resumeTuning reads an earlier 'ktune hypertune --json' output and returns the cells of
// it that this run would compute again and how many it leaves, saying on w how many it
// takes and leaves.
func resumeTuning(path string, cfg benchmark.HypertuneConfig, mode, fitness string, w io.Writer) (done []benchmark.Cell, skipped int, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, fmt.Errorf("--resume: %w", err)
	}
	if why := format.NotJSONObject(data); why != "" {
		return nil, 0, fmt.Errorf("--resume %s: %s; --resume takes the --json output or a --checkpoint file of 'ktune hypertune'", path, why)
	}
	// a defaults file names its strategy, mode and repeats too, but holds no settings or
	// cells; told apart before its other fields fail to decode as a run's
	var probe struct {
		Settings json.RawMessage `json:"settings"`
		Training json.RawMessage `json:"training_spaces"`
	}
	if json.Unmarshal(data, &probe) == nil && probe.Settings == nil && probe.Training != nil {
		return nil, 0, fmt.Errorf("--resume %s: not 'ktune hypertune --json' output or a --checkpoint file: it has no cells, "+
			"being its defaults file (which bench, simulate and tune read with --defaults)", path)
	}
	// so are the files of 'ktune bench', whose cells are of strategies, not settings
	var damaged *report.BenchFileError
	if b, err := report.ReadBench(data); err == nil || errors.As(err, &damaged) {
		what := b.Kind()
		if err != nil {
			what = damaged.What
		}
		return nil, 0, fmt.Errorf("--resume %s: not 'ktune hypertune --json' output or a --checkpoint file: it has no cells of a hypertune, "+
			"being %s (a benchmark's cells, which 'ktune bench --resume' and 'ktune report' read)", path, what)
	}
	var prev struct {
		Mode    string `json:"mode"`
		Fitness string `json:"fitness"`
		benchmark.HypertuneResult
		Cells json.RawMessage `json:"cells"` // read cell by cell, so that an error names the cell
	}
	const what = "the --json output or a --checkpoint file of 'ktune hypertune'"
	if err := json.Unmarshal(data, &prev); err != nil {
		if probe.Settings == nil {
			return nil, 0, fmt.Errorf("--resume %s: not 'ktune hypertune --json' output or a --checkpoint file: %s", path, format.JSONError(data, err))
		}
		return nil, 0, fmt.Errorf("--resume %s: %s, edited or damaged: %s", path, what, format.JSONError(data, err))
	}
	if prev.Strategy == "" || prev.Repeats == 0 {
		return nil, 0, fmt.Errorf("--resume %s: not 'ktune hypertune --json' output (no strategy or repeats)", path)
	}
	// cells no run wrote (edited, damaged) are refused, naming the cell, rather than
	// taken as they are (a fraction of 5 changed the choice) or dropped as of another grid
	if prev.HypertuneResult.Cells, err = benchmark.DecodeCells(prev.Cells, prev.Repeats); err == nil {
		// and cells of a setting, space or budget the file does not describe
		err = benchmark.CheckTuning(&prev.HypertuneResult)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("--resume %s: %s, edited or damaged: %w%s", path, what, err, mend(err))
	}

	done, skipped, err = benchmark.ReusableTuning(cfg, mode, fitness, &prev.HypertuneResult, prev.Mode, prev.Fitness)
	if err != nil {
		return nil, 0, fmt.Errorf("--resume %s: %w", path, err)
	}
	if err := reportTaken(w, "hypertune", path, len(done), skipped, "grid (other settings, spaces or budgets)", prev.SpaceInfo, cfg.Spaces); err != nil {
		return nil, 0, err
	}
	return done, skipped, nil
}

// printHypertune writes one table per budget: settings by spaces, and the choice.
func printHypertune(env *cliEnv, res *benchmark.HypertuneResult, mode simulator.Mode, fitness simulator.Fitness) {
	w := env.stdout
	width := len("setting")
	for _, s := range res.Settings {
		width = max(width, len(s.Label))
	}
	type key struct {
		setting, space string
		budget         int
	}
	cells := map[key]benchmark.Cell{}
	for _, c := range res.Cells {
		cells[key{c.Strategy, c.Space, c.Budget}] = c
	}
	fmt.Fprintf(w, "%s: %d settings x %d spaces, %d runs each (%s mode, %s fitness); mean fraction of optimum (std)\n",
		res.Strategy, len(res.Settings), len(res.Spaces), res.Repeats, mode, fitness)
	for i, sp := range res.Spaces {
		fmt.Fprintf(w, "  space %d: %s\n", i+1, sp)
	}
	for _, ch := range res.Choices {
		k := "none (highest mean over spaces)"
		if ch.K != nil {
			k = fmt.Sprintf("k = %.3g", *ch.K)
		}
		tie := ""
		switch {
		case ch.Tied && ch.EqualMeans:
			tie = ", an exact tie with equal means over spaces: the first listed"
		case ch.Tied:
			tie = ", exact tie broken by the mean over spaces"
		case ch.K == nil && ch.EqualMeans:
			tie = ", the first of equal means"
		}
		fmt.Fprintf(w, "budget %d: %s (%s%s; mean over spaces %.4f)\n", ch.Budget, ch.Label, k, tie, ch.MeanFraction)
		fmt.Fprintf(w, "    %-*s", width, "setting")
		for i := range res.Spaces {
			fmt.Fprintf(w, " %15s", fmt.Sprintf("space %d", i+1))
		}
		fmt.Fprintf(w, " %9s\n", "k needed")
		for i, s := range res.Settings {
			mark := " "
			if i == ch.Setting {
				mark = "*"
			}
			fmt.Fprintf(w, "  %s %-*s", mark, width, s.Label)
			for _, sp := range res.Spaces {
				c := cells[key{s.Label, sp, ch.Budget}]
				fmt.Fprintf(w, " %7.4f (%.3f)", c.MeanFraction, c.StdFraction)
			}
			if n := ch.Needed[i]; n != nil {
				fmt.Fprintf(w, " %9.3g\n", *n)
			} else {
				fmt.Fprintf(w, " %9s\n", "never")
			}
		}
	}
	for _, b := range res.Unfinished {
		fmt.Fprintf(w, "budget %d: not finished (interrupted), no choice\n", b)
	}
}

// fileList is a repeatable flag of file names.
type fileList []string

func (f *fileList) String() string     { return strings.Join(*f, ",") }
func (f *fileList) Set(s string) error { *f = append(*f, s); return nil }

// applyDefaults applies --defaults FILE to a single-strategy command (tune, simulate): the
// file's strategy is used unless --strategy was given, in which case the two must agree,
// and the options are the file's for the budget with the --option values on top. Without
// a file it returns the explicit options as they are. It returns the file too (nil
// without one), for optionsErr.
func applyDefaults(fs *flag.FlagSet, path string, name *string, explicit map[string]any, budget int) (map[string]any, *benchmark.Defaults, error) {
	if path == "" {
		return explicit, nil, nil
	}
	d, err := benchmark.LoadDefaults(path)
	if err != nil {
		return nil, nil, err
	}
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == "strategy" })
	switch {
	case !set:
		*name = d.Strategy
	case *name != d.Strategy:
		return nil, nil, fmt.Errorf("%s holds options for %s, not for --strategy %s", path, d.Strategy, *name)
	}
	return d.Merge(budget, explicit), d, nil
}

// optionsErr says an error of strategy options that do not fit the space or budget, a
// usage error; with a defaults file (d not nil) it says that the options are the file's
// for the budget, as the command line may not name the option at fault.
func optionsErr(env *cliEnv, c *command, err error, d *benchmark.Defaults, budget int, explicit map[string]any) error {
	if d != nil {
		return usageErr(env, c, "%v (%s)", err, d.Source(budget, explicit))
	}
	return usageErr(env, c, "%v", err)
}

// defaultsErr says an error of --defaults: one in the file itself (it cannot be read, is
// not a defaults file, or holds what no run can use) is no error of the command line, and
// is said without the usage, exit status 1; one of the command line (a label no entry has,
// a file for another strategy) is a usage error.
func defaultsErr(env *cliEnv, c *command, err error) error {
	if errors.As(err, new(*benchmark.DefaultsFileError)) {
		return fmt.Errorf("--defaults: %w", err)
	}
	return usageErr(env, c, "--defaults: %v", err)
}

// formatOptions writes strategy options as " (OPT=VALUE, ...)", sorted; "" when none.
func formatOptions(opts map[string]any) string {
	if len(opts) == 0 {
		return ""
	}
	return " (" + strings.Join(optionPairs(opts), ", ") + ")"
}
