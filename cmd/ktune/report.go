package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/ktune/ktune/analysis"
	"github.com/ktune/ktune/format"
	"github.com/ktune/ktune/report"
	"github.com/ktune/ktune/simulator"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/store"
)

func init() {
	register(&command{
		name:    "report",
		summary: "write a self-contained HTML report of a run, a recorded space or a benchmark",
		usage: `(RUN | --run ID | BENCH.json | FILE) [-o|--out OUT.html] [--db PATH] [--mode recorded|cartesian]
          [--neighbourhood adjacent|Hamming] [--objective NAME] [--maximize|--minimize]
          [--graph-nodes N] [--bootstrap N] [--space-memory SIZE]
          [--peak-gflops GFLOP/s] [--peak-gbs GB/s] [--peaks FILE]

Writes one HTML file with every figure embedded, readable offline (OUT; by default
report-RUN.html in this folder for a run, and for a file the file beside it whose name
ends in .html instead of .json or .json.gz: data/A100.json.gz gives data/A100.html):
  RUN         a run id of the results database: what ran, outcomes, the best
              configurations (with the spread of each one's timed runs, or of its
              samples, batches of runs, under the spec's min_time, where it has
              several; and the device that measured each, for a run on several
              devices), failures, compiler warnings (each distinct one once),
              convergence, and the analysis of what it measured
              (landscape, significance, Sobol sensitivity; see 'ktune analyze');
              where the spec declared essential_ops, the efficiency against the
              device's peaks (seed 003, eq. 2) of the most efficient configurations
              and how many reach 75% of the peak (seed 003's well-performing
              threshold), against --peak-gflops and --peak-gbs, which win, or the
              run's device's entry in a peaks file (--peaks FILE: 'ktune help
              peaks'), which must name the device, or else the peaks the run stored
              when it was tuned, or those the device derived; each peak says where
              it came from ("stored with run 3: given: --peak-gbs"); a peak that is
              unknown is named, with the option that gives it, instead of an
              efficiency
  BENCH.json  the output of 'ktune bench --json', or its --checkpoint file (the cells
              finished so far; the competition is computed from them): competition
              (wins and losses, heat maps), mean fraction of optimum per space, strategy
              and budget, curves
  FILE        a recorded space (any format 'ktune import' reads): outcomes, best
              configurations and its analysis

A configuration with a wrong_answer evaluation anywhere in the run or recording (a
verification, or a check after dynamic tuning on later data, found it wrong) is neither
the best nor among the best configurations, whose section says how many successes it
left out; nor do its successes count in the summary: not in the median the best is
compared with, nor as successful (the summary counts them apart), nor as ok outcomes. A
default configuration found wrong is no reference for the best, nor drawn in the
convergence figure, and a run whose successes were all found wrong failed. 'ktune
portability' counts it neither as the best nor as well-performing.

The objective is better lower or higher as the run or recording says; a Kernel Tuner
cache does not say, and neither does a metric beside the objective (--objective), so there
its name decides (see 'ktune analyze'). --maximize or --minimize says it instead: for the
recording's objective the whole page follows it (best configurations, convergence,
analysis), for another metric the analysis.

A bare number is a run id unless a file of that name exists in this folder: then the file
is read, with a warning; --run ID always names the run, ./NAME always the file.

Interrupted (Ctrl-C) before the page is made, it writes nothing, says so, and exits with
status 130: a page OUT from before is left as it was.`,
		run: runReport,
	})
}

func runReport(ctx context.Context, env *cliEnv, args []string) error {
	c := lookup("report")
	fs := newFlags(env, c)
	runID := fs.String("run", "", "report this run of the results database (a bare RUN names a file when one of that name exists)")
	out := fs.String("o", "", "output file (default report-RUN.html, or beside the input file, its name with .html; -: standard output)")
	fs.StringVar(out, "out", "", "the same as -o")
	db := fs.String("db", defaultDB(), "results database: a file, or postgres://USER@HOST/DATABASE (also $KTUNE_DB), for a run")
	modeName := fs.String("mode", "recorded", "landscape space: recorded or cartesian")
	nbName := fs.String("neighbourhood", "adjacent", "landscape neighbourhood: adjacent or Hamming")
	objective := fs.String("objective", "", "objective or recorded metric to explain (default: the run's objective)")
	direction := directionFlags(fs)
	graphNodes := count(fs, "graph-nodes", 5000, 0, "configurations", "draw the flow graph of spaces with at most this many configurations (0: none)")
	bootstrap := count(fs, "bootstrap", 200, 0, "resamples", "bootstrap resamples for the Sobol intervals (0: none, otherwise at least 20)")
	peaks := peakFlags(fs, true)
	peaksFile := peaksFileFlag(fs)
	maxBytes, err := spaceMemory(fs)
	if err != nil {
		return err
	}
	pos, err := parseFlags(env, c, fs, args)
	if err != nil {
		return err
	}
	if *runID != "" {
		if len(pos) != 0 {
			return usageErr(env, c, "give --run or one run id, benchmark JSON or recorded file, not both")
		}
		if _, err := strconv.ParseInt(*runID, 10, 64); err != nil {
			return usageErr(env, c, "--run %q: not a run id", *runID)
		}
	} else if len(pos) != 1 {
		return usageErr(env, c, "give one run id, benchmark JSON or recorded file")
	} else if err := noStdin(env, c, pos, "the page is named after its input file (its title, and the default -o): give the file"); err != nil {
		return err
	}
	o := report.Options{Analysis: analysis.Defaults(), GraphNodes: *graphNodes, Peaks: *peaks}
	if o.PeaksFile, err = readPeaksFile(*peaksFile); err != nil {
		return err
	}
	o.Analysis.Objective = *objective
	if o.Analysis.Maximize, err = direction(); err != nil {
		return usageErr(env, c, "%v", err)
	}
	o.Analysis.MaxBytes = *maxBytes
	o.Analysis.Bootstrap = *bootstrap
	if *bootstrap > 0 && *bootstrap < minBootstrap {
		return usageErr(env, c, "--bootstrap %d: give 0 (no intervals) or at least %d resamples for a 95%% interval", *bootstrap, minBootstrap)
	}
	if *bootstrap == 0 {
		o.Analysis.Bootstrap = -1
	}
	if o.Analysis.Mode, err = simulator.ParseMode(*modeName); err != nil {
		return usageErr(env, c, "%v", err)
	}
	if o.Analysis.Neighbourhood, err = space.ParseNeighbourhood(*nbName); err != nil || o.Analysis.Neighbourhood == space.StrictlyAdjacent {
		return usageErr(env, c, "--neighbourhood %q: want adjacent or Hamming", *nbName)
	}
	toStdout := *out == "-"
	if !toStdout {
		if err := checkOutputs(output{"-o", *out, false}); err != nil {
			return err
		}
	}
	var arg string
	id, isRun := int64(0), false
	if *runID != "" {
		arg = *runID
		id, _ = strconv.ParseInt(arg, 10, 64)
		isRun = true
	} else {
		arg = pos[0]
		id, isRun = bareRunID("report", arg, env.stderr)
	}
	path := *out
	if path == "" {
		path = "report-" + arg + ".html"
		if !isRun {
			path = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(arg, ".gz"), ".json"), ".JSON") + ".html"
		}
	}
	page, err := reportPage(ctx, arg, id, isRun, *db, o)
	if err != nil && ctx.Err() != nil {
		// said as the other commands say it, with what became of the output
		left := "nothing was written to standard output"
		switch {
		case toStdout:
		case fileExists(path):
			left = "the existing " + path + " was left as it was"
		default:
			left = path + " was not written"
		}
		interrupted := interruption(ctx, "interrupted while making the page; %s", left)
		fmt.Fprintf(env.stderr, "ktune report: %v\n", interrupted)
		return interrupted
	}
	if err != nil {
		return err
	}
	if toStdout { // the page alone, for a pipe
		return page.Write(env.stdout)
	}
	if err := page.WriteFile(path); err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "wrote %s\n", path)
	return nil
}

// reportPage makes the page of report's argument arg: the run id when isRun, else a
// benchmark's JSON or a recorded space.
func reportPage(ctx context.Context, arg string, id int64, isRun bool, db string, o report.Options) (*report.Page, error) {
	if isRun {
		st, err := openStoredRun(ctx, db)
		if err != nil {
			return nil, err
		}
		defer st.Close()
		page, err := report.RunPage(ctx, st, id, o)
		if err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return nil, runError(ctx, st, db, id, err)
			}
			return nil, spaceTooLarge(fmt.Errorf("%s: %w", db, err))
		}
		return page, nil
	}
	data, err := format.ReadFile(ctx, arg)
	if err != nil {
		return nil, err
	}
	b, err := report.ReadBench(data)
	var damaged *report.BenchFileError
	switch {
	case err == nil:
		return report.BenchPage(b, arg)
	case errors.As(err, &damaged):
		return nil, fmt.Errorf("%s: %w", arg, err)
	case !errors.Is(err, report.ErrNotBench):
		return nil, fmt.Errorf("%s: %w; report takes a run id, the --json output or --checkpoint file of 'ktune bench', or a recorded space", arg, err)
	}
	rec, err := format.Read(bytes.NewReader(data), arg)
	if err != nil {
		return nil, fmt.Errorf("%w (a report needs a run id, the --json output or --checkpoint file of 'ktune bench', or a recorded space)", err)
	}
	page, err := report.SpacePage(ctx, analysis.Input{Name: spaceName(arg), Rec: rec}, o)
	if err != nil {
		return nil, spaceTooLarge(err)
	}
	return page, nil
}

// bareRunID reads a bare argument of 'ktune report' or 'ktune analyze': a whole number is
// a run id unless a file of that name exists. Then the file is meant, and a warning says
// how to name the run instead (--run ID) or the file without the warning (./NAME).
func bareRunID(cmd, arg string, warn io.Writer) (int64, bool) {
	id, err := strconv.ParseInt(arg, 10, 64)
	if err != nil {
		return 0, false
	}
	if fileExists(arg) {
		fmt.Fprintf(warn, "ktune %s: warning: %s is read as the file of that name in this folder, not as run %d; give --run %d for the run, or ./%s for the file\n",
			cmd, arg, id, id, arg)
		return 0, false
	}
	return id, true
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
