package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ktune/ktune/efficiency"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/store"
	"github.com/ktune/ktune/tuner"
	"github.com/ktune/ktune/tuning"
	"github.com/ktune/ktune/worker"
)

func init() {
	register(&command{
		name:    "tune",
		summary: "tune a kernel on a real device: compile, run, verify and time configurations",
		usage: `SPEC [--strategy NAME] [--option OPT=VALUE]... [--defaults FILE] [--budget N] [--time D]
          [--stop-at VALUE] [--stop-within-peak F]
          [--device BACKEND[:INDEX][,INDEX]...] [--mixed-devices] [--seed S] [--db PATH] [--new]
          [--precompilers N] [--no-precompile] [--space-memory SIZE] [--worker-memory SIZE]
          [--peak-gflops GFLOP/s] [--peak-gbs GB/s] [--peaks FILE] [--progress] [--json]

Searches the configurations of the kernel spec (see 'ktune help spec') on a device: each
configuration is compiled, run once to warm up and verify its output against the
reference, twice more untimed when a run takes under 10 ms (a fresh kernel is slow in its
first runs), then timed over the spec's iterations (a kernel too slow for them all within
the spec's timeout over those that fit, at least one, which its result says; with the
spec's min_time, one whose iterations are over sooner runs on, iterations runs at a time,
until they have lasted min_time, at most 10000 runs, each sample then the statistic of a
batch of consecutive runs, which its result says and the store keeps with it as its runs
per sample). A time is the kernel's alone, in ms:
OpenCL profiling events (the command's start to its end) and CUDA events time it on the
device, host C and C++ the monotonic clock around the call; a spec's launches are timed as
one run, from the first launch's start to the last one's end (host C: the calls' times
added up); the first run is not among the
samples, and the spec's statistic (mean by default, median or min) makes them one time,
from which the metrics are computed. The default strategy, auto, is the best ktune has for
the budget by its benchmarks on recorded GPU spaces ('ktune help strategies'). Device work
runs in a supervised worker process: a configuration that crashes or hangs is recorded
(runtime_error, timeout) and tuning goes on. A configuration that breaks a device limit
('ktune devices' lists them) is a device_limit, and is not run: the block size, local
memory arguments and arrays are checked before compiling, what the compiled kernel says
(its maximum work-group size, static local memory, __constant arguments) before its first
launch. One known before compiling costs no budget (Kernel Tuner leaves such
configurations out of the space): it is stored as a device_limit and its count is in the
summary's statuses ("device_limit 12 (known before compiling: no budget spent)") and its
first line ("18 of the space's 64 configurations evaluated (6 measured, 12 over a device
limit known before compiling: not compiled, no budget spent)"); one
found after compiling costs an evaluation, as it cost a compile. A crash's message names
the signal, as in "the kernel crashed: SIGSEGV (segmentation fault)", and what the
kernel printed, so that the configurations that crash alike are counted together; the
runtime's report of the fault (addresses) is logged with 'ktune --log-level info tune ...'.
What a kernel prints is kept for that message alone: a configuration that does not crash
shows none of it. On a CPU OpenCL device (PoCL) a
work-group's private variables share a thread's stack, as large as the stack limit
(RLIMIT_STACK): a segmentation fault's message says that, besides an access outside the
arrays, private arrays times the block size may have overflowed it.
Upcoming configurations (those a strategy knows ahead: random sampling, brute force, a
population; for the model-based strategies and auto, their guesses at the next picks)
are compiled ahead in other workers (--precompilers, by default one per two cores, at most
8), which are paused while a kernel is timed on a CPU device.
Several devices of one backend (--device opencl:0,opencl:1, or opencl:0,1) measure one
run's configurations side by side, each device in workers of its own, a crash costing its
configuration and that device's worker alone. A strategy asks for one configuration at a
time, so a second device measures what the strategy said it asks for next (random
sampling's and brute force's next picks, a population's members, the initial designs of
the model-based strategies): such a configuration is stored, counted against the budget and
told to the strategy only when the strategy asks for it, exactly once, and one never asked
for is dropped unstored (dropped_ahead). A strategy that hints nothing (a local search's
next neighbour depends on this one's result) measures on one device at a time. The devices'
names must be the same, or their timings would not be comparable: --mixed-devices accepts
devices whose names differ. The devices' workers start at once (a device that cannot start
stops the run, named in the error). The run is stored as the first device's; its settings
list the indices (devices), the summary what each measured (devices: index, measured,
ahead), and each evaluation the device that measured it (opencl:1; on one device too),
which 'ktune runs' counts per device and exports keep (ktune_device). The first device's
pre-compilers compile for every device (the devices share the compiler's cache): a
device's measurement waits for the one compiling its configuration rather than compile it
twice, and on a CPU device pauses them while it times its kernel.
Devices that share the machine's cores (PoCL's CPU devices: POCL_DEVICES="pthread pthread")
slow each other's kernels: tune on them to test, not to time.
Each worker's memory is bounded by --worker-memory (default: half the machine's memory, or
of its control group's limit, on a CPU device, where kernels and their buffers live in the
worker; none on another device, a GPU; none turns it off; $KTUNE_WORKER_MEMORY): on Linux
it is the worker's data limit (RLIMIT_DATA, the private memory it maps, which the
compilers it runs inherit), so an allocation past it fails in the worker (malloc returns
NULL, LLVM throws bad_alloc) and the configuration is a runtime_error whose message says
it ran out of memory, rather than the machine swapping or its out-of-memory killer
stepping in. PoCL sizes its device by the limit (global memory the limit, largest buffer a
quarter of it; the host C device's largest buffer is the limit): a configuration with a
larger array, or with arrays larger together than global memory (on a CPU device, than
half of it: ktune's copies of their initial data share it), is a device_limit. Workers
also offer themselves to the out-of-memory killer first (oom_score_adj 1000), and a worker
it kills (any SIGKILL ktune did not send) is that configuration's runtime_error: "the
kernel was killed by SIGKILL from outside ktune, often the out-of-memory killer", with
what to do. Measured on the examples, PoCL needs about 384 MiB, a host C worker 200 to 350
MiB (each thread's 8 MiB stack counts): a limit much lower fails every configuration.

Every evaluation is stored in the results database the moment it is measured. Running the
same command again resumes an interrupted run (same spec, device, strategy, options and
seed) without measuring finished configurations again. Options are the same when they mean
the same to the strategy, however they are spelled: neighbourhood=hamming is Hamming,
candidates=1e3 is 1000, xi=0.50 is 0.5, restart=1 is true; a run stores and prints them as
the strategy spells them (Hamming, 1000, 0.5, true). A run that finished (its budget
spent, its strategy done, its time up) is not resumed: the same command starts a new run,
which measures again; --new starts a fresh run in any case. A run is resumed only while
its inputs are as they were: the spec file, the kernel sources, the headers they include
from their own folder and from -I folders, the .npy data files, the device's software (for
host C: the compiler, $CC, and its version; for host C++, $CXX and its version besides),
the compiler of a C or C++ reference of an OpenCL or CUDA kernel, which runs on the host,
the verification functions (their code and headers, and beside an OpenCL or CUDA kernel the
host compilers that build them), and, for a host C or C++ kernel with OpenMP, the OMP_, GOMP_ and KMP_ variables set; when
they changed, the command says which, and a new run starts. The budget is the run's: a
resumed run measures until it has --budget evaluations, one that has them already measures
nothing and stays interrupted (a larger --budget continues it), and the summary is of all
its evaluations. A run that another ktune process is tuning is not resumed: the command
says so. Runs are locked in a file beside the database, named as it with -runlock appended
(ktune.db-runlock), which whoever tunes into the database must be able to write; a
PostgreSQL database (--db postgres://USER@HOST/DATABASE), which ktune processes on several
machines may tune into at once, holds the locks itself (advisory locks). A write
that waits for another process's write lock on the database (a large import) says so after
a few seconds; Ctrl-C then ends the wait within 3 seconds, and an evaluation that could
not be stored by then is named in a warning and measured again when the run resumes.
Before the search the reference outputs are computed (a C or C++ reference of an OpenCL
or CUDA kernel runs once on the host, through the host C backend): a reference that does
not compile, crashes or hangs stops the command, since every configuration would fail
verification, and so does a verification function that does not compile. A
configuration that fails is stored with its status and message (in either results
database, as UTF-8 without NUL bytes: U+FFFD stands in for each NUL byte and each run of
bytes that are not UTF-8, which PostgreSQL's text cannot hold); the summary gives each
failing status's most common message, tuning stops when the first 10 configurations
and 5 more drawn at random from the rest of the space all fail with one message (a fault
of the spec, not of the first picks' parameter values; the draws are stored and count
against the budget), and the exit status is 1 when no configuration ran and verified
successfully.
The space is built first ('ktune help expressions' says how): a construction that takes
over a second shows its progress, Ctrl-C stops it, and one whose index would take more
than --space-memory (default: 1/8 of the memory available; $KTUNE_SPACE_MEMORY) is
refused with an error that names the restrictions, before anything is stored.
--time bounds the whole command, counted from its start: building the space, starting the
workers, the reference, the default configuration and the search all count. When it
passes, the configuration being compiled or run is killed at once (it was not measured:
it is stored neither as a timeout nor as a failure), so are pre-compilers still
compiling, the run is stored as finished, and the command ends a fraction of a second
later; the summary's time is counted the same way. A limit that passes before the search
measures nothing, and the exit status is 1 (one that passes before the reference is
computed stores no run).
Stop conditions beside the budget and the time (seed 003's: a well-performing threshold,
a configuration count, a time): --stop-at VALUE stops the search once a configuration that
ran and verified successfully has an objective at least as good as VALUE, in the
objective's units and direction (a time in ms, at most VALUE; a maximised metric, at least
VALUE); --stop-within-peak F once one reaches the fraction F (above 0, at most 1) of the
device's peak by its efficiency (eq. 2, below), seed 003's Section 6 threshold, "75% of the
peak memory bandwidth" being 0.75. The latter needs the spec's essential_ops (not
excluded) and the peaks they need: given with --peak-gbs and --peak-gflops or a peaks file,
stored with the run resumed, or derived (below). The command refuses it otherwise, before
any run is created, resumed or changed, naming each figure missing (memory bandwidth, or
the arithmetic peak of essential_ops' precision), why the backend could not derive it, and
the flag or peaks file entry that gives it. The default configuration counts: when
it meets the condition, nothing else is measured. The summary's stopped line (stop in
--json) names the condition and what was reached: "target reached: time 1.13 ms (at most
1.2 ms)", "within 75% of peak: 412 GB/s of 549 GB/s (75.1%)". A resumed run whose stored
evaluations already meet the condition measures nothing, says so, and stays interrupted, as
one whose budget is spent does ("..., reached before this command"): a stricter condition
continues it. A configuration found wrong anywhere in the run (a wrong_answer evaluation
stored, by a check after dynamic tuning, say) meets neither condition, however fast its
other evaluations ran; nor do its successes count in the summary (the best, the median,
the spreads; found_wrong in --json counts them), and a default configuration found
wrong is compared with nothing (default_found_wrong).
Progress (evaluated / budget, ETA, best so far) goes to standard error; the summary (best
configuration, objective, speedup over the median configuration and over the spec's
default_config) to standard output. What the compiler printed for a build that succeeded
(its warnings: the OpenCL build log, NVRTC's log, the host compiler's output; warnings
that compiler_options such as -Wall turn on included) is kept with each evaluation in the
results database, and the summary shows it once: each distinct warning (known by its
first line, its position and message) with how many configurations' builds gave it and
the first that did, the 5 most frequent, 4 lines of each.
Efficiency against the peak: a spec that declares the operations its task essentially
needs (essential_ops: bytes, flops, precision; 'ktune help spec') gets the best
configuration's efficiency, seed 003's eq. 2: 100 x max((bytes/time)/GB/s peak,
(flops/time)/GFLOP/s peak), with the bound (memory or compute) whose share is the larger.
The peaks are the device's as its backend derives them ('ktune devices' shows them and
how: CUDA from SMs, clocks and memory bus; OpenCL gives no memory bandwidth, nor a CPU's
arithmetic peak), or as --peak-gflops (in essential_ops' precision) and --peak-gbs give
them, which win, or as the device's entry in a peaks file (--peaks FILE, YAML or JSON: a
device's name or backend:index to gbs and gflops by precision; 'ktune help portability'),
which must name the device and which the flags win over. The summary says where each
peak came from ("given: --peak-gbs", the file and its entry, or "derived: how"). The run
stores the peaks it used in its settings ("peaks": each figure's value, unit and source),
which 'ktune report' and 'ktune portability' of the run use unless given others; a resumed
run keeps the peaks it was given before where it is given none: its summary, its
--stop-within-peak and the check that its stored evaluations already meet it are against
them, and the summary says so ("stored with run 3: given: --peak-gbs"); a flag or peaks
file given on resuming wins ('ktune help peaks'). A peak the operations need and nobody
gives is never guessed: the summary says which figure is missing, why, and what gives it,
instead of an efficiency. A spec that says essential_ops: {excluded: WHY} shows why.
With --json the summary is one JSON object: run, database, kernel, backend, device,
strategy, strategy_options, seed, objective and maximize; space_size, evaluations (of the
whole run: resumed_from_store + measured + device_excluded), resumed_from_store (those
the run had before this command that count against the budget) and measured (by this
command); statuses (a count per status) and device_excluded (of the device_limits, those
known before compiling, the run's before this command and its own, which cost no budget); failures (per failing status its most common message, how many gave it and an
example configuration); best_configuration (parameter names to values, in the spec's
order), best_objective, best_metrics, best_time_ms and best_note (metrics that could not
be computed for it, timed runs left out for its timeout; lacking_metrics counts the
successes that lack metrics, short_timed those timed over fewer runs than the spec's
iterations, since more would have passed its timeout; min_time_batched those whose runs
went on for the spec's min_time); best_runs (the timed runs its time is made of),
best_runs_per_sample (with min_time, how many runs each of its samples is made of, as
the store keeps it),
best_time_cv (its samples' spread, the coefficient of variation: standard deviation over
mean, 0.05 for 5%),
median_time_cv (the median spread over the run's successes) and within_spread_of_best
(how many other successes have an objective within the best's spread of its: an order
another run may not repeat; the summary calls timings with a spread over 10% noisy);
verified (the successful configurations' outputs were checked against the spec's
verification); median_objective and default_objective (or
default_status when the default configuration failed), with speedup_over_median and
speedup_over_default where a ratio means something (both values above 0); stop (budget,
time limit, space exhausted, strategy finished, cancelled, the condition of --stop-at or
--stop-within-peak with what was reached...), stop_condition (stop as a structure: kind,
one of budget, time, target, within_peak, space_exhausted, strategy_finished, same_failure,
cancelled, error; value, what was reached: the evaluations counted against the budget, the
seconds searched, the best objective, the best efficiency in % of the peak; threshold, the
condition's: --budget, --time in s, --stop-at, --stop-within-peak in %; unit; before, true
where the stored evaluations met it before this command), wall_seconds,
worker_restarts, devices (with several devices: each one's index, measured and ahead, the
evaluations it measured and of those how many before they were asked for) and
dropped_ahead, mean_compile_ms, mean_verify_ms, mean_framework_ms and
median_framework_ms (over the evaluations this command measured) and kernel_ms;
compiler_warnings (each distinct warning of the run's builds, the most frequent first, at
most 20: warning, its text with the source lines that belong to it, cut at 8 lines;
configurations, how many builds gave it; first_configuration),
warned_configurations (how many configurations' builds printed warnings) and
more_compiler_warnings (the distinct warnings left out); efficiency, where the spec has
essential_ops (essential_ops: bytes, flops, precision or excluded; peaks: precision, gflops,
gbs, gflops_from and gbs_from in words ("given: --peak-gbs", "derived: HOW"),
gflops_source and gbs_source as objects (from: flag, file or derived; flag; file and
device, the file's entry; how; run, where read from a run's stored peaks), unknown (the
backend's word on every figure it could not derive), gflops_unknown and gbs_unknown (why
the figure, unknown still, was not derived); best: percent,
bound, memory_percent, compute_percent, gbs and gflops reached; missing: why there is no
efficiency, and what to pass). Absent
values (no success: no best) are left out. An interrupted command's object opens with
"interrupted", saying what was kept. Interrupted before the search began, it has the same
fields with what was known then: run (null until a run is created or found to resume),
database, strategy, strategy_options, seed, evaluations and resumed_from_store (those the
run had stored that count against the budget), measured 0, statuses (empty; null for a resumed run), stop cancelled and
the costs per evaluation 0; kernel, backend, device, objective, maximize, space_size,
device_excluded, verified and worker_restarts are null, and there is no best.

Strategy options: --option name=value (repeatable), or as 'ktune bench' takes them,
--strategy 'NAME:OPT=VALUE;OPT=VALUE'; see 'ktune help strategies'.
--defaults FILE takes the strategy and its options for the budget from a file written by
'ktune hypertune' (the largest budget column not above --budget, the smallest when --budget
is below them all, the largest when there is no budget); --option values win over the
file's, and --strategy, when given, must name the file's strategy.`,
		run: runTune,
	})
}

func runTune(ctx context.Context, env *cliEnv, args []string) error {
	c := lookup("tune")
	fs := newFlags(env, c)
	name := fs.String("strategy", "auto", "search strategy (see 'ktune help strategies'; auto picks the best for the budget)")
	opts := optionList{}
	fs.Var(opts, "option", "strategy option name=value (repeatable)")
	defaultsPath := fs.String("defaults", "", "strategy and options per budget from 'ktune hypertune'")
	budget := count(fs, "budget", 0, 0, "configurations", fmt.Sprintf("unique configurations to evaluate (0: no limit unless --time; a space of more than %d configurations needs --budget or --time)", tuner.MaxUnlimited))
	limit := duration(fs, "time", 0, "wall-clock time limit of the whole command from its start, a `duration` such as 10m (0: none)")
	alias(fs, "time-limit", "time")
	stopAt := fs.Float64("stop-at", 0, "stop once a configuration that ran and verified successfully has an objective at least as good as `VALUE`, in the objective's units and direction (ms for time)")
	stopPeak := share(fs, "stop-within-peak", 0, "stop once a configuration that ran and verified successfully reaches this `fraction` of the device's peak by its efficiency (seed 003's eq. 2; Section 6: 0.75); needs the spec's essential_ops, and the peaks: --peak-gbs, --peak-gflops, --peaks, those a resumed run stored, or derived ('ktune devices')")
	devFlag := fs.String("device", "", "BACKEND[:INDEX], e.g. opencl:0, cuda:1 or c (default: the first available backend for the spec's language); several identical devices of one backend measure side by side: cuda:0,cuda:1 or cuda:0,1")
	mixed := fs.Bool("mixed-devices", false, "accept several devices whose names differ, their timings compared in one run")
	seed := fs.Uint64("seed", 1, "seed of the strategy")
	db := fs.String("db", defaultDB(), "results database: a file, or postgres://USER@HOST/DATABASE (also $KTUNE_DB)")
	fresh := fs.Bool("new", false, "start a new run even when an interrupted one could be resumed")
	noPre := fs.Bool("no-precompile", false, "do not compile upcoming configurations ahead of time")
	precompilers := count(fs, "precompilers", tuner.DefaultPrecompilers(), 0, "workers", "workers compiling upcoming configurations side by side; the default is one per two cores of this machine, at most 8")
	jsonOut := fs.Bool("json", false, "print the summary as JSON")
	progressFlag := fs.Bool("progress", false, "show progress even when standard error is not a terminal (then a line at most every second)")
	peaks := peakFlags(fs, false)
	peaksFile := peaksFileFlag(fs)
	maxBytes, err := spaceMemory(fs)
	if err != nil {
		return usageErr(env, c, "%v", err)
	}
	workerBytes, err := workerMemory(fs)
	if err != nil {
		return usageErr(env, c, "%v", err)
	}
	pos, err := parseFlags(env, c, fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErr(env, c, "want one spec file, got %d arguments", len(pos))
	}
	if err := noStdin(env, c, pos, "a kernel spec is read with the kernel sources and data files beside it: give the spec file"); err != nil {
		return err
	}
	if err := splitStrategy(name, opts); err != nil {
		return usageErr(env, c, "%v", err)
	}
	var target *float64
	if flagGiven(fs, "stop-at") {
		if math.IsNaN(*stopAt) || math.IsInf(*stopAt, 0) {
			return usageErr(env, c, "--stop-at %v: want a finite objective value (a time in ms for time)", *stopAt)
		}
		target = stopAt
	}
	if flagGiven(fs, "stop-within-peak") && *stopPeak == 0 {
		return usageErr(env, c, "--stop-within-peak 0: want a fraction of the device's peak above 0 and at most 1 (0.75 for 75%%)")
	}
	stOpts, defaults, err := applyDefaults(fs, *defaultsPath, name, opts, *budget)
	if err != nil {
		return defaultsErr(env, c, err)
	}
	pf, err := readPeaksFile(*peaksFile)
	if err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	o := tuner.Options{PeaksFile: pf, SpecPath: pos[0], Device: *devFlag, MixedDevices: *mixed, Strategy: *name, StrategyOptions: stOpts, Budget: *budget,
		TimeLimit: *limit, Target: target, WithinPeak: *stopPeak, Seed: *seed, DB: *db, Fresh: *fresh, Precompilers: *precompilers, Peaks: *peaks,
		NoPrecompile: *noPre || *precompilers == 0, WorkerMemory: *workerBytes, WorkerCommand: []string{exe, "worker"}, Logger: env.log}
	o.SpaceBuild.MaxBytes = *maxBytes
	var building *progress // the space's construction, shown when it takes over a second
	endBuilding := func() {
		if building != nil {
			building.finish()
			building = nil
		}
	}
	if *progressFlag || isTerminal(env.stderr) {
		building = newProgress(env.stderr, "of the product enumerated")
		building.delay = time.Second
		o.SpaceBuild.Progress = func(fr float64) {
			if building != nil {
				building.fraction(fr, "building the space of "+filepath.Base(pos[0]))
			}
		}
	}
	var started *tuner.RunStart // the run, once it is created or found to resume
	o.Started = func(r tuner.RunStart) {
		started = &r
		endBuilding()
		switch {
		case r.Stale != nil && len(r.Stale.Changed) > 0:
			fmt.Fprintf(env.stderr, "ktune tune: run %d of this spec and settings is not resumed: its inputs changed since (%s); a new run, %d, starts\n",
				r.Stale.ID, strings.Join(r.Stale.Changed, ", "), r.ID)
		case r.Stale != nil:
			fmt.Fprintf(env.stderr, "ktune tune: run %d of this spec and settings is not resumed: an earlier ktune stored it without its inputs (data files, headers, compiler), which cannot be compared; a new run, %d, starts\n",
				r.Stale.ID, r.ID)
		}
		switch {
		case r.Reached != "":
			fmt.Fprintf(env.stderr, "ktune tune: run %d's %d evaluations already meet the stop condition (%s): nothing to measure; a stricter --stop-at or --stop-within-peak continues it, --new starts a new run\n", r.ID, r.Resumed, r.Reached)
		case r.Spent:
			fmt.Fprintf(env.stderr, "ktune tune: run %d already has %d evaluations, the budget is %d: nothing to do; raise --budget to continue it\n", r.ID, r.Resumed, *budget)
		case r.Resumed > 0:
			fmt.Fprintf(env.stderr, "ktune tune: resuming run %d: %d configurations already measured are not measured again\n", r.ID, r.Resumed)
		}
	}
	var prog *progress
	if *progressFlag || isTerminal(env.stderr) {
		o.Progress = func(p tuner.Progress) {
			if prog == nil {
				prog = newProgress(env.stderr, "evaluated")
				prog.start, prog.deadline, prog.base = p.Started, p.Deadline, p.Resumed
			}
			prog.update(p.Evaluations, p.Total, bestLine(p))
		}
	}
	rep, err := tuner.Tune(ctx, o)
	endBuilding()
	if prog != nil {
		prog.finish()
	}
	if rep == nil {
		var oe *tuner.OptionsError
		if errors.As(err, &oe) && oe.Strategy {
			return optionsErr(env, c, err, defaults, *budget, opts)
		}
		err = tuneError(env, c, err, *db)
		if *jsonOut && errors.Is(err, context.Canceled) {
			// a script reads one document, the interruption's, whenever it came
			if werr := writeJSON(env, interruptedBeforeSearch(*db, *name, stOpts, *seed, started)); werr != nil {
				return werr
			}
		}
		return err
	}
	if *jsonOut {
		doc := tuneJSON{Report: rep}
		if errors.Is(err, context.Canceled) {
			doc.Interrupted = resumeNote(rep.Run)
		}
		if err := writeJSON(env, doc); err != nil {
			return err
		}
	} else {
		printTuneReport(env, rep, !errors.Is(err, tuner.ErrDatabaseLost))
	}
	switch {
	case errors.Is(err, context.Canceled):
		fmt.Fprintf(env.stderr, "ktune tune: %s\n", resumeNote(rep.Run))
	case errors.Is(err, tuner.ErrNothingSucceeded) && rep.Evaluations > 0:
		return fmt.Errorf("no configuration %s successfully in run %d (the failures are listed above, and stored: %s)", ranVerb(rep), rep.Run, exportHint(rep.Run, *db))
	case errors.Is(err, tuner.ErrNothingSucceeded) && rep.Stop == string(tuning.StopTime):
		return fmt.Errorf("no configuration %s successfully in run %d: none was evaluated before it stopped (%s; --time counts from the command's start, the space, the workers, the reference and the default configuration included: give a longer one)", ranVerb(rep), rep.Run, rep.Stop)
	case errors.Is(err, tuner.ErrNothingSucceeded):
		return fmt.Errorf("no configuration %s successfully in run %d: none was evaluated before it stopped (%s)", ranVerb(rep), rep.Run, rep.Stop)
	case errors.Is(err, worker.ErrEnvironment):
		return fmt.Errorf("%w\nThe machine failed, not the configuration: nothing was stored for it, and run %d is left interrupted; once the cause is gone, the same command resumes the run and measures it", err, rep.Run)
	case errors.Is(err, worker.ErrReferenceLost):
		return fmt.Errorf("%w\n%s; run %d is left interrupted with what it measured: once the cause is gone %s, the same command resumes the run", err, referenceLostNote, rep.Run, referenceLostCause)
	}
	return err
}

// tuneError is the command's error for one that Tune returned before the search began:
// options it refused are usage errors, and the errors that name what the library calls
// an option name the flag instead.
func tuneError(env *cliEnv, c *command, err error, db string) error {
	var (
		oe *tuner.OptionsError
		ue *tuner.UnlimitedError
		de *tuner.DeviceError
		me *tuner.DeviceMismatchError
		he *tuner.RunHeldError
	)
	switch {
	case errors.As(err, &me):
		return fmt.Errorf("--device: %s:%d (%s) and %s:%d (%s) differ, and their timings would not be comparable in one run: name identical devices, or give --mixed-devices to accept the difference",
			me.Backend, me.First, me.FirstName, me.Backend, me.Other, me.OtherName)
	case errors.As(err, &oe):
		return usageErr(env, c, "%v", err)
	case errors.As(err, &ue):
		return usageErr(env, c, "the space has %d configurations: give --budget or --time", ue.SpaceSize)
	case errors.As(err, &de) && de.Unavailable:
		return errors.New(de.Named("--device"))
	case errors.As(err, &de): // a name no device answers to: a bad flag value
		return usageErr(env, c, "%s", de.Named("--device"))
	case errors.As(err, &he):
		return fmt.Errorf("run %d of this kernel, device and settings in %s is being tuned by another ktune process: wait for it to end (it resumes nothing then), or give --new to start a run beside it", he.Run, he.DB)
	case errors.Is(err, tuner.ErrTimeUp):
		return fmt.Errorf("%w: --time counts from the command's start; give a longer one", err)
	case errors.Is(err, store.ErrNoBackend):
		return noBackend(db)
	case errors.As(err, new(*space.TooLargeError)):
		return spaceTooLarge(err)
	case errors.Is(err, worker.ErrEnvironment):
		return fmt.Errorf("%w\nThe machine failed, not the spec: nothing was stored for what failed; once the cause is gone, run the same command again (anything measured is kept)", err)
	case errors.Is(err, worker.ErrReferenceLost):
		return fmt.Errorf("%w\n%s; once the cause is gone %s, run the same command again (anything measured is kept)", err, referenceLostNote, referenceLostCause)
	case errors.Is(err, context.Canceled):
		// an interruption before the search (building the space, starting the workers, the
		// reference, the default configuration) is still said, as a later one is
		fmt.Fprintf(env.stderr, "ktune tune: %s\n", beforeSearchNote)
	}
	return err
}

// referenceLostNote says why tuning stopped when fresh workers could not compute the
// reference again (worker.ErrReferenceLost), and referenceLostCause what to look at.
const (
	referenceLostNote  = "No configuration can be judged without the reference, so tuning stopped; the configuration it was to measure is not to blame, and nothing was stored for it"
	referenceLostCause = "(where a worker ran out of memory, give more with --worker-memory, or free the machine's)"
)

// resumeNote says what an interruption of the search left: run, to be resumed.
func resumeNote(run int64) string {
	return fmt.Sprintf("interrupted; run the same command again to resume run %d", run)
}

// beforeSearchNote says what an interruption before the search left.
const beforeSearchNote = "interrupted before the search began; run the same command again to start it (anything measured is kept)"

// tuneJSON is tune's --json document: the run's summary, and what an interruption left.
type tuneJSON struct {
	Interrupted string `json:"interrupted,omitempty"`
	*tuner.Report
}

// beforeSearchJSON is tune's --json document for an interruption before the search
// (building the space, starting the workers, the reference, the default configuration):
// the summary's fields (tuneJSON's), those it always has, with what the command knew and
// null for what only the search tells. Nothing was measured: the costs per evaluation
// are 0, as in a summary of a run that measured nothing, and there is no best.
type beforeSearchJSON struct {
	Interrupted string `json:"interrupted"`
	// Run is null until a run is created or found to resume.
	Run             *int64         `json:"run"`
	Database        string         `json:"database"`
	Kernel          unknown        `json:"kernel"`
	Backend         unknown        `json:"backend"`
	Device          unknown        `json:"device"`
	Strategy        string         `json:"strategy"`
	StrategyOptions map[string]any `json:"strategy_options,omitempty"`
	Seed            uint64         `json:"seed"`
	Objective       unknown        `json:"objective"`
	Maximize        unknown        `json:"maximize"`
	SpaceSize       unknown        `json:"space_size"`
	// Evaluations and Resumed are those the run had stored that count against the budget
	// (tuner.RunStart.Resumed; 0 for a new one); Statuses is empty for a new run, null for
	// a resumed one (its evaluations are not read back).
	Evaluations       int            `json:"evaluations"`
	Resumed           int            `json:"resumed_from_store"`
	Measured          int            `json:"measured"`
	Statuses          map[string]int `json:"statuses"`
	DeviceExcluded    unknown        `json:"device_excluded"`
	Verified          unknown        `json:"verified"`
	Stop              string         `json:"stop"`
	WallSeconds       float64        `json:"wall_seconds"`
	WorkerRestarts    unknown        `json:"worker_restarts"`
	MeanCompileMS     float64        `json:"mean_compile_ms"`
	MeanVerifyMS      float64        `json:"mean_verify_ms"`
	MeanFrameworkMS   float64        `json:"mean_framework_ms"`
	MedianFrameworkMS float64        `json:"median_framework_ms"`
	KernelMS          float64        `json:"kernel_ms"`
}

// unknown is a field of a --json document that an interruption left unknown (tune's
// before the search, space's before the space was built): null.
type unknown struct{}

func (unknown) MarshalJSON() ([]byte, error) { return []byte("null"), nil }

func interruptedBeforeSearch(db, strategy string, options map[string]any, seed uint64, started *tuner.RunStart) beforeSearchJSON {
	doc := beforeSearchJSON{Interrupted: beforeSearchNote, Database: db, Strategy: strategy, StrategyOptions: options, Seed: seed,
		Statuses: map[string]int{}, Stop: string(tuning.StopCancelled)}
	if started != nil {
		doc.Run, doc.Evaluations, doc.Resumed = &started.ID, started.Resumed, started.Resumed
		if started.Resumed > 0 {
			doc.Statuses = nil
		}
	}
	return doc
}

// bestLine is the progress line's information: the run's best so far.
func bestLine(p tuner.Progress) string {
	if math.IsNaN(p.Best) {
		return "no valid configuration yet"
	}
	line := fmt.Sprintf("best %s %s", formatObjective(p.Best), result.Unit(p.Objective))
	if !p.BestConfig.IsZero() {
		line += " at " + p.BestConfig.String()
	}
	return line
}

func formatObjective(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return strconv.FormatFloat(v, 'g', 5, 64)
}

// printTuneReport prints the summary of a run; stored says whether the run is in its
// database, to be exported.
func printTuneReport(env *cliEnv, r *tuner.Report, stored bool) {
	w := env.stdout
	// The parts add up to the evaluations: measured now, measured before, and refused
	// before compiling (this command's and the run's before), which cost no budget.
	resumed := ""
	excluded := fmt.Sprintf("%d over a device limit known before compiling: not compiled, no budget spent", r.DeviceExcluded)
	switch {
	case r.Resumed > 0 && r.DeviceExcluded > 0:
		resumed = fmt.Sprintf(" (%d measured by this command, %d before it, %s)", r.Measured, r.Resumed, excluded)
	case r.Resumed > 0:
		resumed = fmt.Sprintf(" (%d measured by this command, %d before it)", r.Measured, r.Resumed)
	case r.DeviceExcluded > 0:
		resumed = fmt.Sprintf(" (%d measured, %s)", r.Measured, excluded)
	}
	fmt.Fprintf(w, "tuned %s on %s (%s): %d of the space's %d configurations evaluated%s with %s%s (seed %d) in %.1f s; stopped: %s\n",
		r.Kernel, r.Device, r.Backend, r.Evaluations, r.SpaceSize, resumed, r.Strategy, formatOptions(r.StrategyOptions), r.Seed, r.WallSeconds, r.Stop)
	var st []string
	for k, v := range r.Statuses {
		note := ""
		if k == result.DeviceLimit.String() && r.DeviceExcluded > 0 {
			// refused before compiling: they cost no budget
			note = " (known before compiling: no budget spent)"
			if r.DeviceExcluded < v {
				note = fmt.Sprintf(" (%d known before compiling: no budget spent)", r.DeviceExcluded)
			}
		}
		st = append(st, fmt.Sprintf("%s %d%s", k, v, note))
	}
	slices.Sort(st)
	if len(st) == 0 {
		st = []string{"none (nothing was evaluated)"}
	}
	fmt.Fprintf(w, "statuses: %s", strings.Join(st, ", "))
	switch {
	case r.WorkerRestarts == 1:
		fmt.Fprint(w, " (worker restarted once)")
	case r.WorkerRestarts > 1:
		fmt.Fprintf(w, " (worker restarted %d times)", r.WorkerRestarts)
	}
	fmt.Fprintln(w)
	if len(r.Devices) > 0 {
		var ds []string
		for _, d := range r.Devices {
			ds = append(ds, fmt.Sprintf("%s:%d %d (%d ahead)", r.Backend, d.Index, d.Measured, d.Ahead))
		}
		fmt.Fprintf(w, "measured on: %s", strings.Join(ds, ", "))
		if r.DroppedAhead > 0 {
			fmt.Fprintf(w, "; %d measured ahead and never asked for (not stored)", r.DroppedAhead)
		}
		fmt.Fprintln(w)
	}
	for _, f := range r.Failures {
		fmt.Fprintf(w, "  %s: ", f.Status)
		if f.Same == f.Count {
			fmt.Fprintf(w, "all %d said", f.Count)
		} else {
			fmt.Fprintf(w, "%d of %d said", f.Same, f.Count)
		}
		fmt.Fprintf(w, " (e.g. %s):\n%s\n", f.Example, indent(firstLines(f.Message, 6), "    "))
	}
	writeWarnings(w, r)
	if r.BestObjective == nil {
		fmt.Fprintf(w, "no configuration %s successfully\n", ranVerb(r))
		return
	}
	verified := "(verified)"
	if !r.Verified {
		verified = "(not verified: the spec has no verification)"
	}
	// A metric's direction may come from its name (a spec without maximize), so it is
	// shown; a time is always minimised.
	dir := ""
	if r.Objective != "time" {
		dir = " (" + direction(r.Maximize) + ")"
	}
	fmt.Fprintf(w, "best %s%s: %s %s %s\n", r.Objective, dir, formatObjective(*r.BestObjective), result.Unit(r.Objective), verified)
	fmt.Fprintf(w, "  configuration: %s\n", r.Best)
	// The spec's metrics in its order, then what the device observed beside them.
	var ms []string
	for _, k := range r.MetricOrder {
		if v, ok := r.BestMetrics[k]; ok {
			ms = append(ms, fmt.Sprintf("%s %s", k, formatObjective(v)))
		}
	}
	var observed []string
	for k, v := range r.BestMetrics {
		if !slices.Contains(r.MetricOrder, k) {
			observed = append(observed, fmt.Sprintf("%s %s", k, formatObjective(v)))
		}
	}
	slices.Sort(observed)
	ms = append(ms, observed...)
	if len(ms) > 0 {
		fmt.Fprintf(w, "  metrics: %s\n", strings.Join(ms, ", "))
	}
	if r.BestNote != "" {
		fmt.Fprintf(w, "  %s\n", firstLines(r.BestNote, 3))
	}
	if r.BestTimeMS != nil && r.Objective != "time" {
		fmt.Fprintf(w, "  time: %s ms\n", formatObjective(*r.BestTimeMS))
	}
	writeSpread(w, r)
	writeEfficiency(w, r.Efficiency)
	if r.MedianObjective != nil && r.Statuses[result.OK.String()]-r.FoundWrong > 1 {
		fmt.Fprintf(w, "  %s the median configuration evaluated (%s %s)\n", result.Better(r.Maximize, *r.BestObjective, *r.MedianObjective),
			formatObjective(*r.MedianObjective), result.Unit(r.Objective))
	}
	if r.DefaultObjective != nil && r.Evaluations == 1 {
		fmt.Fprintf(w, "  the default is the only configuration evaluated\n")
	} else if r.DefaultObjective != nil {
		fmt.Fprintf(w, "  %s the default configuration (%s %s)\n", result.Better(r.Maximize, *r.BestObjective, *r.DefaultObjective),
			formatObjective(*r.DefaultObjective), result.Unit(r.Objective))
	}
	if n := r.LackingMetrics; n > 0 {
		what := "1 successful configuration lacks"
		if n > 1 {
			what = fmt.Sprintf("%d successful configurations lack", n)
		}
		fmt.Fprintf(w, "  %s metrics that could not be computed for them (ktune export names them)\n", what)
	}
	if n := r.ShortTimed; n > 0 {
		what := "1 successful configuration was"
		if n > 1 {
			what = fmt.Sprintf("%d successful configurations were", n)
		}
		fmt.Fprintf(w, "  %s timed over fewer runs than the spec's %d iterations: more would have passed its timeout of %v\n", what, r.Iterations, r.Timeout)
	}
	if n := r.MinTimeBatched; n > 0 {
		what := "1 successful configuration"
		if n > 1 {
			what = fmt.Sprintf("%d successful configurations", n)
		}
		fmt.Fprintf(w, "  %s ran on past the spec's %d iterations for its min_time of %v: each sample the statistic of a batch of runs (ktune export says how many)\n", what, r.Iterations, r.MinTime)
	}
	if r.DefaultStatus != "" {
		fmt.Fprintf(w, "  the default configuration did not run successfully (%s): no speedup over it\n", r.DefaultStatus)
	}
	if r.DefaultFoundWrong {
		fmt.Fprintf(w, "  the default configuration ran successfully but was found wrong (a wrong_answer evaluation in the run): no speedup over it\n")
	}
	if n := r.FoundWrong; n > 0 {
		what := "1 successful evaluation of a configuration found wrong in the run (a wrong_answer evaluation) is"
		if n > 1 {
			what = fmt.Sprintf("%d successful evaluations of configurations found wrong in the run (a wrong_answer evaluation) are", n)
		}
		fmt.Fprintf(w, "  %s left out of the best, the median and the spreads\n", what)
	}
	if r.Measured > 0 { // the costs of this command's measurements
		fmt.Fprintf(w, "per evaluation: compile %.1f ms, verify %.1f ms (means), framework overhead %.2f ms (median; mean %.2f with worker start-up); kernels ran %.1f s in all\n",
			r.MeanCompileMS, r.MeanVerifyMS, r.MedianFrameworkMS, r.MeanFrameworkMS, r.KernelMS/1e3)
	}
	if stored {
		fmt.Fprintf(w, "results: run %d in %s (%s --format kerneltuner|t4|ktt)\n", r.Run, r.Database, exportHint(r.Run, r.Database))
	}
}

// writeEfficiency says how close the best configuration came to the device's peaks
// (seed 003, eq. 2), or why it has no efficiency; nothing when the spec declares no
// essential operations.
func writeEfficiency(w io.Writer, e *efficiency.Summary) {
	if e == nil {
		return
	}
	if e.Best == nil {
		if e.Missing != "" {
			fmt.Fprintf(w, "  efficiency: %s\n", strings.TrimPrefix(e.Missing, "no efficiency: "))
		}
		return
	}
	b, p := e.Best, e.Peaks
	var shares []string
	if b.MemoryPercent != nil {
		shares = append(shares, fmt.Sprintf("%.4g GB/s of %.4g GB/s peak (%s) = %.1f%%", b.GBs, p.GBs, p.GBsFrom, *b.MemoryPercent))
	}
	if b.ComputePercent != nil {
		shares = append(shares, fmt.Sprintf("%.4g GFLOP/s of %.4g GFLOP/s %s peak (%s) = %.1f%%", b.GFLOPS, p.GFLOPS, p.Precision, p.GFLOPSFrom, *b.ComputePercent))
	}
	fmt.Fprintf(w, "  efficiency: %.1f%% of the device's peak, %s-bound (seed 003, eq. 2: essential %s)\n", b.Percent, b.Bound, strings.Join(shares, "; "))
}

// shownWarnings is how many distinct compiler warnings the summary shows, and
// warningLines how many lines of each.
const (
	shownWarnings = 5
	warningLines  = 4
)

// writeWarnings says what the compiler warned of in the run's builds, each distinct
// warning once, with how many configurations' builds gave it and the first that did.
func writeWarnings(w io.Writer, r *tuner.Report) {
	if len(r.CompilerWarnings) == 0 {
		return
	}
	distinct := len(r.CompilerWarnings) + r.MoreWarnings
	of := "configuration"
	if r.Warned > 1 {
		of = "configurations"
	}
	fmt.Fprintf(w, "compiler warnings: %d distinct, in the builds of %d %s of %d\n", distinct, r.Warned, of, r.Evaluations)
	for i, cw := range r.CompilerWarnings {
		if i == shownWarnings {
			fmt.Fprintf(w, "  and %d more distinct warnings (--json lists %d of them)\n", distinct-shownWarnings, len(r.CompilerWarnings))
			break
		}
		gave := "1 configuration, " + cw.First.String()
		switch {
		case cw.Configurations == r.Evaluations:
			gave = fmt.Sprintf("all %d configurations", cw.Configurations)
		case cw.Configurations > 1:
			gave = fmt.Sprintf("%d configurations, the first %s", cw.Configurations, cw.First)
		}
		text := cw.Warning
		if lines := strings.Split(text, "\n"); len(lines) > warningLines {
			text = strings.Join(append(lines[:warningLines], "..."), "\n")
		}
		fmt.Fprintf(w, "  %s:\n%s\n", gave, indent(text, "    "))
	}
}

// noisyCV is the spread of timing samples (coefficient of variation) above which the
// summary calls the timings noisy.
const noisyCV = 0.10

// writeSpread says how much the best configuration's timed runs varied, how many other
// configurations are that close to it, and whether the run's timings were noisy.
func writeSpread(w io.Writer, r *tuner.Report) {
	if r.BestTimeCV == nil {
		return
	}
	cv := *r.BestTimeCV
	if per := r.BestRunsPerSample; per > 1 {
		fmt.Fprintf(w, "  spread of its %d samples, each of a batch of %d runs: %.1f%% (coefficient of variation", r.BestRuns/per, per, 100*cv)
	} else {
		fmt.Fprintf(w, "  spread of its %d timed runs: %.1f%% (coefficient of variation", r.BestRuns, 100*cv)
	}
	if r.MedianTimeCV != nil {
		fmt.Fprintf(w, "; median over the run %.1f%%", 100**r.MedianTimeCV)
	}
	fmt.Fprintln(w, ")")
	if n := r.WithinSpread; n > 0 {
		what := "1 other configuration is"
		if n > 1 {
			what = fmt.Sprintf("%d other configurations are", n)
		}
		fmt.Fprintf(w, "  %s within that spread of it: their order may not repeat in another run\n", what)
	}
	if cv > noisyCV || r.MedianTimeCV != nil && *r.MedianTimeCV > noisyCV {
		more := ""
		if r.MinTime == 0 {
			more = ", and for a kernel of microseconds min_time (a least time for each configuration's runs: 'ktune help spec')"
		}
		fmt.Fprintf(w, "  the timings are noisy (a spread over %.0f%%): other work on the machine or device, or a kernel so short that launch jitter shows; more iterations, statistic: median (against outliers) or min (the steadiest from run to run on a busy machine)%s make the ranking steadier\n", 100*noisyCV, more)
	}
}

// firstLines is s cut after n lines, saying how many more there were.
func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) <= n {
		return strings.Join(lines, "\n")
	}
	more := "lines"
	if len(lines)-n == 1 {
		more = "line"
	}
	return strings.Join(lines[:n], "\n") + fmt.Sprintf("\n(%d more %s: ktune export shows them all)", len(lines)-n, more)
}

// indent puts prefix before every line of s.
func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

// exportHint is the command that exports run from the database db: with --db when db is
// not the one ktune opens by default.
func exportHint(run int64, db string) string {
	if db != defaultDB() {
		return fmt.Sprintf("ktune export --run %d --db %s", run, db)
	}
	return fmt.Sprintf("ktune export --run %d", run)
}

// ranVerb is what a successful configuration of the run did: "ran and verified" where the
// spec checks outputs, "ran" where it has no verification.
func ranVerb(r *tuner.Report) string {
	if r.Verified {
		return "ran and verified"
	}
	return "ran"
}
