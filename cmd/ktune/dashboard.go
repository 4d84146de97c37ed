package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/ktune/ktune/dashboard"
	"github.com/ktune/ktune/store"
)

func init() {
	register(&command{
		name:    "dashboard",
		summary: "serve a live, interactive web page of the runs or a recorded file: scatter plot, filters, analysis",
		usage: `[RUN | --run ID | FILE] [--db PATH] [--addr HOST:PORT]

Serves an interactive dashboard on a local web server (seed 004; Kernel Tuner's
KTdashboard) and prints its address; Ctrl-C stops it. It only reads: the database is never
written (opening it may fold its write-ahead log, the -wal file, into it, as SQLite does
when it is read), and a run being tuned goes on undisturbed beside it.
  (none)  the runs of the results database, as 'ktune runs' lists them (the successes of
          configurations found wrong, a wrong_answer evaluation in the run, counted
          apart: "found wrong", not ok); each opens its view
  RUN     that run of the database (--run ID always names a run)
  FILE    a recorded space, any format 'ktune import' reads: read once, no database
          needed; it is served as run 0
A bare number is a run id unless a file of that name exists in this folder (see 'ktune
report').

A run's view (/runs/ID):
  scatter      every evaluation as a point, with the x axis, y axis and colour each chosen
               from the evaluation order, the objective, any recorded metric, any tuning
               parameter (string values by their place in the value list), the status
               and, for a run measured on several devices, the device; numbers coloured
               on a continuous scale (its range under the plot), categories in distinct
               colours; a log y axis; the best so far as a line (with x the evaluation
               order). Evaluations without a value of the y axis (failed ones) are drawn
               hollow in a band above the plot. A success of a configuration found wrong
               (a wrong_answer evaluation of it in the run) is no success: whatever the
               colour field, its point is magenta ("found wrong" in the legend), its value
               is left out of the colour scale's range, and the best so far passes over
               it. Hovering a point shows its configuration, results, device and any
               error message; a click keeps them shown.
  filters      per parameter, the values to show (check boxes), the statuses (ok,
               found wrong, compile_error, runtime_error, timeout, wrong_answer,
               device_limit, restricted; found wrong: the successes of configurations
               found wrong, counted apart from ok as the list of runs and the status line
               count them, again as wrong answers arrive) to show and, for a run measured
               on several devices, the devices (and "no device": configurations refused
               before any device compiled them); they apply to the scatter and the
               analysis.
  sidebar      the objective to analyse (the run's, or a recorded metric) and the
               parameters to include (by default those with more than one value; at
               least one).
  significance the Pearson correlation of each selected parameter with the objective,
               red for positive, blue for negative, paler near 0 (hover: Spearman's too).
  sensitivity  Sobol first-order (solid) and total-order (light) indices of the selected
               parameters, a colour per parameter.
The analysis is 'ktune analyze --objective O --params P' over the evaluations the filters
keep (without bootstrap intervals: 'ktune analyze' gives them), computed by the server
again whenever the selection changes. The address holds the selection (?x=...&y=...):
a link or bookmark opens the same view.

Live: while a run is tuned ('ktune tune' writing the same database), its view asks for
new evaluations every 1.5 s and adds their points, the count, the best so far and the
run's status (running, finished, or interrupted for a tuning killed); the analysis
follows every 3 s. Readers never wait for the writer: the database is in WAL mode.

Remotely: it listens on 127.0.0.1, this machine only, unless --addr says otherwise.
From another machine, forward a port over ssh: 'ssh -L 8080:127.0.0.1:8080 HOST', then
open http://127.0.0.1:8080 there. --addr 0.0.0.0:8080 serves every network the machine
is on, to anyone who reaches it: there is no login.

JSON endpoints (for programs; errors are {"error": "..."} with status 400 for a bad
request, 404 for an unknown run, 422 for a selection that cannot be analysed):
  GET /api/runs                      the runs: id, name, kind, status, failed, kernel,
                                     device, strategy, seed, source, objective, maximize,
                                     started, finished, evaluations, succeeded,
                                     found_wrong, best_objective, best_configuration
  GET /api/runs/ID                   one run, with params: [{name, values, labels}]
  GET /api/runs/ID/evaluations?after=N
                                     the run now ("run") and its evaluations after its
                                     first N ("evaluations": index, config, at (the values'
                                     positions in their lists), status, objective, metrics,
                                     message, time, device where stored), and
                                     "metrics": each metric's name,
                                     true where higher is better; poll with N the count
                                     read so far
  GET /api/runs/ID/analysis?objective=NAME&params=a,b&keep=PARAM=VALUE&status=ok,...&device=opencl:0,...
                                     significance (pearson, spearman, n per parameter) and
                                     sobol (method, params, first, total) of the selection,
                                     with evaluations (those the filters keep),
                                     run_evaluations (all the run's) and configurations
                                     (in its space); keep (repeated) names the values of a parameter to
                                     keep, as the run's labels write them (its others are
                                     left out); status the statuses kept (found_wrong for
                                     the successes of configurations found wrong, which
                                     ok leaves out); device the
                                     devices kept, as the evaluations name them, - for
                                     the evaluations no device measured`,
		run: runDashboard,
	})
}

func runDashboard(ctx context.Context, env *cliEnv, args []string) error {
	c := lookup("dashboard")
	fs := newFlags(env, c)
	db := fs.String("db", defaultDB(), "results database: a file, or postgres://USER@HOST/DATABASE (also $KTUNE_DB)")
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on, HOST:PORT (port 0: any free one; 0.0.0.0 serves every network)")
	runFlag := fs.String("run", "", "show this run of the results database")
	pos, err := parseFlags(env, c, fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 || len(pos) == 1 && *runFlag != "" {
		return usageErr(env, c, "give at most one run id or recorded file")
	}
	if err := noStdin(env, c, pos, "the dashboard reads a recorded file by its name: give the file"); err != nil {
		return err
	}
	var (
		h       *dashboard.Server
		path    = "/"
		what    string
		id      int64
		isRun   bool
		useFile = len(pos) == 1
	)
	switch {
	case *runFlag != "":
		if id, err = strconv.ParseInt(*runFlag, 10, 64); err != nil {
			return usageErr(env, c, "--run %q: not a run id", *runFlag)
		}
		isRun, useFile = true, false
	case useFile:
		id, isRun = bareRunID("dashboard", pos[0], env.stderr)
		useFile = !isRun
	}
	if useFile {
		rec, err := readRecording(ctx, pos[0])
		if err != nil {
			return err
		}
		printWarnings(env.stderr, "dashboard", rec.Warnings)
		h, what = dashboard.NewRecording(rec, spaceName(pos[0])), pos[0]
	} else {
		st, err := openStoredRun(ctx, *db)
		if err != nil {
			return err
		}
		defer st.Close()
		if isRun {
			if _, err := st.Run(ctx, id); err != nil {
				if errors.Is(err, store.ErrNotFound) {
					return runError(ctx, st, *db, id, err)
				}
				return fmt.Errorf("run %d in %s: %w", id, *db, err)
			}
			path, what = fmt.Sprintf("/runs/%d", id), fmt.Sprintf("run %d of %s", id, *db)
		} else {
			what = "the runs of " + *db
		}
		h = dashboard.NewStore(st, *db)
	}
	l, err := dashboard.Listen(*addr)
	if err != nil {
		return fmt.Errorf("--addr %s: %w", *addr, err)
	}
	fmt.Fprintf(env.stdout, "ktune dashboard: %s at %s (Ctrl-C stops it)\n", what, dashboard.URL(l.Addr(), path))
	if err := dashboard.Serve(ctx, l, h); err != nil {
		return err
	}
	fmt.Fprintln(env.stdout, "ktune dashboard: stopped")
	return nil
}
