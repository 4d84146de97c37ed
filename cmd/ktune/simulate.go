package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/simulator"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/strategy"
	"github.com/ktune/ktune/tuning"
)

func init() {
	register(&command{
		name:    "simulate",
		summary: "replay a recorded space to measure how well a strategy finds its optimum",
		usage: `(FILE | - | --run ID [--db PATH]) [--strategy NAME] [--option OPT=VALUE]... [--defaults FILE]
          [--budget N] [--time-limit D] [--within F] [--stop-at VALUE] [--repeats R] [--seed S] [--workers N]
          [--mode recorded|cartesian] [--fitness deterministic|stochastic] [--maximize|--minimize]
          [--progress] [--json]

Runs the strategy --repeats times on a recorded space (a Kernel Tuner cache, T4 or KTT
file, - for one on standard input, or a run in the results database, imported or tuned by
'ktune tune'; a compressed file cut short is refused, an unclosed Kernel Tuner cache of an
interrupted run read up to its last whole entry, with a warning) without a device: each
evaluation returns the recorded result and advances a simulated clock by the time it cost
when recorded. Prints the mean and sample standard deviation (of two runs or more; 0 in
--json for one run) of the fraction of the optimum reached (optimum / best time found, or
best / optimum when maximising; 0 for a run that found nothing, or whose best was found
wrong in the recording, a wrong_answer evaluation of it, which is never the optimum; a
ratio needs objectives
above 0, so a recording with an objective of 0 or less is refused, except 0 when
maximising, which scores 0), and the mean number of evaluations and simulated time used.
Run i uses seed S+i, so results are reproducible and do not depend on the number of
parallel workers (past seed 2^64-1, seed+i goes on from 0). --within F stops a run once
its best reaches F of the optimum, judged as runs are scored (on the recorded mean, also
under stochastic fitness); the summary says how many runs reached it, and how many the
optimum itself. --stop-at VALUE stops a run once its best's objective is at least as good as
VALUE, in the objective's units and direction (a time in ms, at most VALUE), judged the same
way: as 'ktune tune --stop-at' stops a real search; the summary says how many runs reached
it. With --json every run is listed: its seed, fraction of optimum, best
configuration and its objective (null for a run that found nothing), evaluations,
simulated time and why it stopped: budget, time limit, within (reached --within of the
optimum, short of it), optimum (found it), target (reached --stop-at), space exhausted or
strategy finished.
Interrupted (Ctrl-C), it says after how many runs, prints the summary of the runs that
finished (in --json, those runs, marked "interrupted") and exits with status 130.

Modes: recorded searches the configurations the recording holds; where it records
restrictions (a run of 'ktune tune', its exports, a T4 file), the space is every
configuration they allow, and the recording must hold them all: a tuning run that
measured part of its space is refused, naming a configuration it lacks. cartesian searches
the full product of the parameter values, where missing and failed configurations have
the fail fitness and still cost an evaluation (the setting of seed 000); it replays such
a partial run.
Direction: as the recording says; a Kernel Tuner cache says none, and its objective's name
is taken as a hint (time, energy: lower is better; GFLOP/s: higher). --maximize or
--minimize says it, and turning a direction the recording says is warned of.
Fitness: deterministic answers with the recorded objective (the mean of the recorded runs)
and repeats come from the cache for free; stochastic answers with one recorded timing
sample per evaluation, and a repeat is a new measurement that costs budget (seed 000's
stochastic experiment). Under stochastic fitness a run's best configuration is the one
whose measurements' mean, plus one standard error from the noise its repeated
configurations show, is lowest, so one lucky sample does not win over a configuration
measured again. Runs are scored on the recorded mean either way.
Strategy options: --option name=value (repeatable), or as 'ktune bench' takes them,
--strategy 'NAME:OPT=VALUE;OPT=VALUE'; see 'ktune help strategies'.
--defaults FILE takes the strategy and its options for the budget from a file written by
'ktune hypertune' (the largest budget column not above --budget, the smallest when --budget
is below them all, the largest with --budget 0); --option values win over the file's, and
--strategy, when given, must name the file's strategy. A file chosen for another --mode or
--fitness than the run's is used with a warning that says so.`,
		run: runSimulate,
	})
}

// optionList is a repeatable --option OPT=VALUE, each value read as every command reads
// option values (strategy.ParseValue), so that restart=0 means in simulate and tune what
// it means in bench and hypertune.
type optionList map[string]any

func (o optionList) String() string { return fmt.Sprint(map[string]any(o)) }
func (o optionList) Set(s string) error {
	k, v, err := strategy.ParseOption(s)
	if err != nil {
		return err
	}
	if _, twice := o[k]; twice {
		return fmt.Errorf("option %s is given twice", k)
	}
	o[k] = v
	return nil
}

// splitStrategy takes options written into --strategy as 'ktune bench' takes them,
// NAME:OPT=VALUE;OPT=VALUE, into opts beside those of --option, and leaves NAME in name.
func splitStrategy(name *string, opts optionList) error {
	head, list, ok := strings.Cut(*name, ":")
	*name = strings.TrimSpace(head) // ' annealing' from a quoted list, as option values are
	if !ok {
		return nil
	}
	kvs, err := strategy.SplitList(list, ';')
	if err != nil {
		return fmt.Errorf("--strategy: %w", err)
	}
	for _, kv := range kvs {
		k, v, err := strategy.ParseOption(kv)
		if err != nil {
			return fmt.Errorf("--strategy: %w", err)
		}
		if _, dup := opts[k]; dup {
			return fmt.Errorf("--strategy: option %s is given twice (in --strategy and --option, or twice in --strategy)", k)
		}
		opts[k] = v
	}
	return nil
}

func runSimulate(ctx context.Context, env *cliEnv, args []string) error {
	c := lookup("simulate")
	fs := newFlags(env, c)
	name := fs.String("strategy", "random", "search strategy (see 'ktune help strategies')")
	opts := optionList{}
	fs.Var(opts, "option", "strategy option name=value (repeatable)")
	defaultsPath := fs.String("defaults", "", "strategy and options per budget from 'ktune hypertune'")
	budget := count(fs, "budget", 100, 0, "evaluations", "evaluations per run (0: none, where --time-limit or --within ends the runs, or the strategy does: bruteforce, saltelli with n)")
	timeLimit := duration(fs, "time-limit", 0, "simulated time per run, a `duration` such as 30s (0: none)")
	alias(fs, "time", "time-limit")
	within := share(fs, "within", 0, "stop a run once this fraction of the optimum is reached, e.g. 0.95 (0: never)")
	stopAt := fs.Float64("stop-at", 0, "stop a run once its best has an objective at least as good as `VALUE`, in the objective's units and direction (ms for time)")
	repeats := count(fs, "repeats", 100, 1, "runs", "number of runs")
	seed := fs.Uint64("seed", 1, "seed of the first run")
	modeName := fs.String("mode", "recorded", "recorded or cartesian")
	fitnessName := fs.String("fitness", "deterministic", "deterministic (the recorded mean) or stochastic (one recorded sample per evaluation)")
	workers := count(fs, "workers", 0, 0, "workers", "parallel runs (0: all cores)")
	db := fs.String("db", defaultDB(), "results database: a file, or postgres://USER@HOST/DATABASE (also $KTUNE_DB), for --run")
	run := fs.Int64("run", 0, "replay this run (imported or tuned) from the results database")
	jsonOut := fs.Bool("json", false, "print JSON, with every run")
	showProgress := fs.Bool("progress", false, "show progress even when standard error is not a terminal (then a line at most every second)")
	direction := directionFlags(fs)
	pos, err := parseFlags(env, c, fs, args)
	if err != nil {
		return err
	}
	maximize, err := direction()
	if err != nil {
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
	if err := splitStrategy(name, opts); err != nil {
		return usageErr(env, c, "%v", err)
	}
	stOpts, defaults, err := applyDefaults(fs, *defaultsPath, name, opts, *budget)
	if err != nil {
		return defaultsErr(env, c, err)
	}
	if _, ok := strategy.Lookup(*name); !ok {
		return usageErr(env, c, "%v", strategy.UnknownStrategy(*name))
	}
	var target *float64
	if flagGiven(fs, "stop-at") {
		if math.IsNaN(*stopAt) || math.IsInf(*stopAt, 0) {
			return usageErr(env, c, "--stop-at %v: want a finite objective value (a time in ms for time)", *stopAt)
		}
		target = stopAt
	}
	if *budget == 0 && *timeLimit == 0 && *within == 0 && target == nil && !strategy.EndsOnItsOwn(*name, stOpts) {
		return usageErr(env, c, "--budget 0 ends no run: give --budget, --time-limit, --within or --stop-at (only bruteforce, and saltelli with n, end on their own)")
	}
	var rec *result.Recording
	source := ""
	switch {
	case *run != 0 && len(pos) == 0:
		st, err := openStoredRun(ctx, *db)
		if err != nil {
			return err
		}
		rec, err = st.Recording(ctx, *run)
		if err != nil {
			err = runError(ctx, st, *db, *run, err)
		} else {
			err = measuredNothing(*db, *run, rec, "replay")
		}
		st.Close()
		if err != nil {
			return err
		}
		source = fmt.Sprintf("%s run %d", *db, *run)
	case *run == 0 && len(pos) == 1:
		if rec, err = readRecording(ctx, pos[0]); err != nil {
			return err
		}
		if err := cutShort(inputName(pos[0]), rec); err != nil {
			return err
		}
		source = inputName(pos[0])
	default:
		return usageErr(env, c, "give one recorded file or --run")
	}
	applyDirection(rec, maximize)
	printWarnings(env.stderr, "simulate", rec.Warnings)
	if defaults != nil {
		if w := defaults.Unlike(mode, fitness); w != "" {
			printWarnings(env.stderr, "simulate", []string{w})
		}
	}
	sim, err := simulator.New(rec, simulator.Options{Mode: mode, Fitness: fitness, Seed: *seed})
	if err != nil {
		return fmt.Errorf("%s: %w", source, err)
	}
	printWarnings(env.stderr, "simulate", append(sim.Warnings(), sim.ClockWarnings()...))
	if err := strategy.Validate(*name, stOpts, sim.Space(), *budget); err != nil {
		return optionsErr(env, c, err, defaults, *budget, opts)
	}
	ro := simulator.RepeatOptions{Strategy: *name, StrategyOptions: stOpts, Budget: *budget, TimeLimit: *timeLimit,
		Within: *within, Target: target, Repeats: *repeats, Seed: *seed, Workers: *workers}
	var prog *progress
	if *showProgress || isTerminal(env.stderr) {
		prog = newProgress(env.stderr, "runs")
		ro.Progress = func(done, total int, mean float64) { prog.update(done, total, fmt.Sprintf("mean fraction %.4f", mean)) }
	}
	start := time.Now()
	sum, err := simulator.Repeat(ctx, sim, ro)
	if prog != nil {
		prog.finish() // before the interruption's message and the summary
	}
	var interrupted error
	if err != nil {
		// Interrupted (Ctrl-C, SIGTERM): the runs that finished are summarised, and
		// written to --json, before ktune exits with the error, as bench does with cells.
		if ctx.Err() == nil {
			return err
		}
		interrupted = interruption(ctx, "interrupted after %d of %d runs", len(sum.Runs), *repeats)
		if len(sum.Runs) > 0 {
			interrupted = fmt.Errorf("%w; the summary is of those", interrupted)
		}
		fmt.Fprintf(env.stderr, "ktune simulate: %v\n", interrupted)
		if len(sum.Runs) == 0 && !*jsonOut {
			return interrupted
		}
	}
	wall := time.Since(start)
	if *jsonOut {
		params := make([]string, len(rec.Params))
		for i, p := range rec.Params {
			params[i] = p.Name
		}
		_, optCfg := sim.Optimum()
		objective := rec.Objective
		if objective == "" {
			objective = "time"
		}
		note := ""
		if interrupted != nil {
			note = interrupted.Error()
		}
		if err := writeJSON(env, struct {
			Source string `json:"source"`
			Kernel string `json:"kernel,omitempty"`
			Device string `json:"device,omitempty"`
			// Interrupted says the runs were cut short: "runs" holds those that finished,
			// fewer than "repeats", and the means are of them.
			Interrupted string `json:"interrupted,omitempty"`
			// Objective and Maximize say what the optimum and each run's best objective
			// are; Params names the values of every configuration (a run's best, the
			// optimum's) in order.
			Objective string         `json:"objective"`
			Maximize  bool           `json:"maximize"`
			Params    []string       `json:"parameters"`
			OptimumAt []space.Value  `json:"optimum_configuration"`
			Strategy  string         `json:"strategy"`
			Options   map[string]any `json:"strategy_options,omitempty"`
			Mode      string         `json:"mode"`
			Fitness   string         `json:"fitness"`
			Budget    int            `json:"budget"`
			Repeats   int            `json:"repeats"`
			Seed      uint64         `json:"seed"`
			Space     int            `json:"space_size"`
			WallMS    float64        `json:"wall_ms"`
			simulator.RepeatSummary
		}{source, rec.Kernel, rec.Device, note, objective, rec.Maximize, params, sim.Space().Values(optCfg),
			*name, stOpts, mode.String(), fitness.String(), *budget, *repeats, *seed, sim.Space().Len(),
			float64(wall.Microseconds()) / 1e3, sum}); err != nil {
			return err
		}
		return interrupted
	}
	w := env.stdout
	n := len(sum.Runs)
	_, bestCfg := sim.Optimum()
	fmt.Fprintf(w, "%s: %s, %s on %s; %s mode, %s fitness, %s\n", source, rec.Format, orDash(rec.Kernel), orDash(rec.Device), mode, fitness,
		counted(sim.Space().Len(), "configuration", "configurations"))
	fmt.Fprintf(w, "optimum %g %s at %s\n", sum.Optimum, objectiveUnit(rec), sim.Space().Format(bestCfg))
	runs := fmt.Sprintf("%d runs (%s)", *repeats, seedRange(*seed, *repeats))
	switch {
	case interrupted != nil:
		runs = fmt.Sprintf("%d of %d runs of %s (interrupted)", n, *repeats, seedRange(*seed, *repeats))
	case *repeats == 1:
		runs = fmt.Sprintf("1 run (%s)", seedRange(*seed, *repeats))
	}
	fmt.Fprintf(w, "%s%s, budget %d, %s:\n", *name, formatOptions(stOpts), *budget, runs)
	if n > 1 {
		fmt.Fprintf(w, "  fraction of optimum  mean %.4f  std %.4f  (standard error %.4f)\n", sum.MeanFraction, sum.StdFraction, sum.StdFraction/math.Sqrt(float64(n)))
	} else {
		fmt.Fprintf(w, "  fraction of optimum  %.4f  (one run: no standard deviation)\n", sum.MeanFraction)
	}
	if *within > 0 {
		stops := map[tuning.StopReason]int{}
		for _, r := range sum.Runs {
			stops[r.Stop]++
		}
		fmt.Fprintf(w, "  reached --within     %g of the optimum in %d of %d runs (the optimum itself in %d)\n", *within,
			stops[tuning.StopWithin]+stops[tuning.StopOptimum], n, stops[tuning.StopOptimum])
	}
	if target != nil {
		reached := 0
		for _, r := range sum.Runs {
			if r.Stop == tuning.StopTarget {
				reached++
			}
		}
		fmt.Fprintf(w, "  reached --stop-at    %g in %d of %d runs\n", *target, reached, n)
	}
	fmt.Fprintf(w, "  evaluations used     mean %.1f\n", sum.MeanEvaluations)
	fmt.Fprintf(w, "  simulated time       mean %.1f s per run\n", sum.MeanSimulatedMS/1e3)
	fmt.Fprintf(w, "  wall time            %.3f s for all runs (%.1f µs per run)\n", wall.Seconds(), float64(wall.Microseconds())/float64(n))
	return interrupted
}

// seedRange says which seeds runs 0..n-1 use (seed+i, which wraps past 2^64-1 to 0).
func seedRange(seed uint64, n int) string {
	last := seed + uint64(n) - 1
	switch {
	case n == 1:
		return fmt.Sprintf("seed %d", seed)
	case last >= seed:
		return fmt.Sprintf("seeds %d..%d", seed, last)
	}
	// seed+i passed the largest seed and went on from 0
	head := fmt.Sprintf("%d", seed)
	if seed < math.MaxUint64 {
		head = fmt.Sprintf("%d..%d", seed, uint64(math.MaxUint64))
	}
	tail := "0"
	if last > 0 {
		tail = fmt.Sprintf("0..%d", last)
	}
	return fmt.Sprintf("seeds %s and %s: seed+i wraps to 0 past 2^64-1", head, tail)
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
