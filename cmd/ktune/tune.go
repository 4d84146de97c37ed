package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/expr"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/runner"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/spec"
	"github.com/ktune/ktune/store"
	"github.com/ktune/ktune/strategy"
	"github.com/ktune/ktune/tuner"
	"github.com/ktune/ktune/tuning"
	"github.com/ktune/ktune/worker"
)

func init() {
	register(&command{
		name:    "tune",
		summary: "tune a kernel on a real device: compile, run, verify and time configurations",
		usage: `SPEC [--strategy NAME] [--option OPT=VALUE]... [--defaults FILE] [--budget N] [--time D]
          [--device BACKEND[:INDEX]] [--seed S] [--db PATH] [--new] [--precompilers N]
          [--no-precompile] [--progress] [--json]

Searches the configurations of the kernel spec (see 'ktune help spec') on a device: each
configuration is compiled, run once to warm up and verify its output against the reference,
then timed over the spec's iterations. The default strategy, auto, is the best ktune has
for the budget by its benchmarks on recorded GPU spaces ('ktune help strategies'). Device
work runs in a supervised worker process: a configuration that crashes or hangs is recorded
(runtime_error, timeout) and tuning goes on. A crash's message names the signal, as in "the
kernel crashed: SIGSEGV (segmentation fault)", and what the kernel printed, so that the
configurations that crash alike are counted together; the runtime's report of the fault
(addresses) is logged with 'ktune --log-level info tune ...'.
Upcoming configurations (those a strategy knows ahead: random sampling, brute force, a
population; for the model-based strategies and auto, their guesses at the next picks)
are compiled ahead in other workers (--precompilers, by default one per two cores, at most
8), which are paused while a kernel is timed on a CPU device.

Every evaluation is stored in the results database the moment it is measured. Running the
same command again resumes an interrupted run (same spec, device, strategy, options and
seed) without measuring finished configurations again; --new starts a fresh run. The
budget is the run's: a resumed run measures until it has --budget evaluations, one that
has them already measures nothing (a larger --budget continues it), and the summary is of
all its evaluations. A run that another ktune process on this machine is tuning is not
resumed: the command says so.
Before the search the reference outputs are computed: a reference that does not compile,
crashes or hangs stops the command, since every configuration would fail verification. A
configuration that fails is stored with its status and message; the summary gives each
failing status's most common message, tuning stops when the first 10 configurations all
fail with one message (a fault of the spec, not of the configurations), and the exit
status is 1 when no configuration ran and verified successfully.
Progress (evaluated / budget, ETA, best so far) goes to standard error; the summary (best
configuration, objective, speedup over the median configuration and over the spec's
default_config) to standard output.

Strategy options: --option name=value (repeatable), or as 'ktune bench' takes them,
--strategy 'NAME:OPT=VALUE;OPT=VALUE'; see 'ktune help strategies'.
--defaults FILE takes the strategy and its options for the budget from a file written by
'ktune hypertune' (the largest budget column not above --budget, the largest column when
there is no budget); --option values win over the file's, and --strategy, when given, must
name the file's strategy.`,
		run: runTune,
	})
}

func runTune(ctx context.Context, env *cliEnv, args []string) (err error) {
	said := false // whether an interruption has been reported
	defer func() {
		// an interruption before the search (building the space, starting the workers, the
		// reference, the default configuration) is still said, as a later one is
		if errors.Is(err, context.Canceled) && !said {
			fmt.Fprintln(env.stderr, "ktune tune: interrupted before the search began; run the same command again to start it (anything measured is kept)")
		}
	}()
	c := lookup("tune")
	fs := newFlags(env, c)
	name := fs.String("strategy", "auto", "search strategy (see 'ktune help strategies'; auto picks the best for the budget)")
	opts := optionList{}
	fs.Var(opts, "option", "strategy option name=value (repeatable)")
	defaultsPath := fs.String("defaults", "", "strategy and options per budget from 'ktune hypertune'")
	budget := count(fs, "budget", 0, 0, "configurations", "unique configurations to evaluate (0: no limit unless --time)")
	limit := fs.Duration("time", 0, "wall-clock time limit, e.g. 10m (0: none)")
	devFlag := fs.String("device", "", "BACKEND[:INDEX], e.g. opencl:0, cuda:1 or c (default: the first available backend for the spec's language)")
	seed := fs.Uint64("seed", 1, "seed of the strategy")
	db := fs.String("db", defaultDB(), "results database (also $KTUNE_DB)")
	fresh := fs.Bool("new", false, "start a new run even when an interrupted one could be resumed")
	noPre := fs.Bool("no-precompile", false, "do not compile upcoming configurations ahead of time")
	precompilers := count(fs, "precompilers", defaultPrecompilers(), 0, "workers", "workers compiling upcoming configurations side by side; the default is one per two cores of this machine, at most 8")
	jsonOut := fs.Bool("json", false, "print the summary as JSON")
	progressFlag := fs.Bool("progress", false, "show progress even when standard error is not a terminal")
	pos, err := parseFlags(env, c, fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErr(env, c, "want one spec file, got %d arguments", len(pos))
	}
	if *limit < 0 {
		return usageErr(env, c, "--time %v: want a duration of 0 (none) or more", *limit)
	}
	specPath, err := filepath.Abs(pos[0])
	if err != nil {
		return err
	}
	sp0, err := spec.Load(specPath)
	if err != nil {
		return err
	}
	sp, err := sp0.Space()
	if err != nil {
		var se *spec.Error
		if errors.As(err, &se) {
			return err // it names the file
		}
		return fmt.Errorf("%s: %w", pos[0], err)
	}
	if err := splitStrategy(name, opts); err != nil {
		return usageErr(env, c, "%v", err)
	}
	stOpts, err := applyDefaults(fs, *defaultsPath, name, opts, *budget)
	if err != nil {
		return usageErr(env, c, "%v", err)
	}
	// options that name what the space lacks are refused here, as an unknown option is,
	// before a run is stored or anything compiled
	if err := strategy.Validate(*name, stOpts, sp, *budget); err != nil {
		return usageErr(env, c, "%v", err)
	}
	backend, index, info, err := pickDevice(*devFlag, sp0.Kernel.Language)
	if err != nil {
		return err
	}
	if err := sp0.Unmeasured(backend); err != nil {
		return err
	}
	if *budget == 0 && *limit == 0 && sp.Len() > 10000 {
		return usageErr(env, c, "the space has %d configurations: give --budget or --time", sp.Len())
	}

	st, err := openDB(ctx, *db)
	if err != nil {
		return err
	}
	defer st.Close()
	props, _ := json.Marshal(info)
	devID, err := st.PutDevice(ctx, store.Device{Name: info.Name, Backend: backend, Properties: props})
	if err != nil {
		return err
	}
	restrictions, err := sp0.BoundRestrictions()
	if err != nil {
		return err
	}
	spaceID, err := st.PutSpace(ctx, store.Space{Kernel: sp0.Kernel.Name, Params: sp0.Parameters, Restrictions: restrictions})
	if err != nil {
		return err
	}
	objective, maximize := sp0.Objective()
	optJSON, _ := json.Marshal(stOpts)
	hash, err := specHash(sp0)
	if err != nil {
		return err
	}
	settings, _ := json.Marshal(map[string]any{"spec": specPath, "spec_hash": hash, "budget": *budget,
		"time_limit": limit.String(), "backend": backend, "device_index": index})
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	sup := worker.NewSupervisor(worker.Options{
		Command:        append([]string{exe, "worker"}, tuner.Worker{Spec: specPath, Backend: backend, Device: index}.Args()...),
		Timeout:        sp0.Timeout,
		CompileTimeout: sp0.CompileTimeout,
		Precompile:     !*noPre && *precompilers > 0,
		Precompilers:   *precompilers,
		// On a CPU device compiling would slow the timed kernel; a GPU times its own.
		PauseWhileTiming: info.Type != "gpu",
		Log:              env.log,
	})
	defer sup.Close()
	// A reference that cannot be computed would fail every configuration's verification
	// (and a crashing one would be blamed on each configuration in turn): stop before the
	// run starts and spends its budget.
	if sp0.Verification != nil {
		if err := sup.Reference(ctx); err != nil {
			if errors.Is(err, worker.ErrReference) {
				return fmt.Errorf("%s: verification: %w\nFix the reference (verification.reference: its kernel, config or .npy files) or the kernel at the reference configuration; nothing was measured", pos[0], err)
			}
			return err
		}
	}
	problemSize := storedProblemSize(sp0)
	run, stored, lock, err := findOrCreateRun(ctx, st, *db, store.RunInfo{SpaceID: spaceID, DeviceID: devID, Kind: store.KindTuning,
		Strategy: *name, StrategyOptions: optJSON, Seed: *seed, Objective: objective, Maximize: maximize,
		ProblemSize: problemSize, Source: specPath, Settings: settings}, hash, *fresh)
	if err != nil {
		return err
	}
	defer lock.Release()
	known := make(map[string]result.Evaluation, len(stored))
	for _, e := range stored {
		known[store.ConfigKey(e.Config)] = e
	}
	resumed := len(stored)
	// The budget is the run's: a resumed run that has used it up measures nothing more. It
	// stays interrupted, so that the same command with a larger budget resumes it.
	spent := *budget > 0 && resumed >= *budget
	switch {
	case spent:
		fmt.Fprintf(env.stderr, "ktune tune: run %d already has %d evaluations, the budget is %d: nothing to do; raise --budget to continue it\n", run.ID, resumed, *budget)
	case resumed > 0:
		fmt.Fprintf(env.stderr, "ktune tune: resuming run %d: %d configurations already measured are not measured again\n", run.ID, resumed)
	}

	ev := &resumingEvaluator{inner: sup, sp: sp, known: known, budget: *budget, stored: resumed, measured: map[string]bool{}}
	sink := &storeSink{st: st, run: run.ID, sp: sp, known: known, maximize: maximize}
	for _, e := range stored {
		sink.consider(e) // progress shows the run's best from the first line on
	}

	// The baseline: the spec's default configuration, measured (or found) before the search.
	var defaultEval *result.Evaluation
	if sp0.Default != nil {
		if dc, err := sp.ConfigOf(sp0.Default); err == nil && sp.Contains(dc) {
			// a spent budget measures nothing, not even the baseline
			if _, ok := known[store.ConfigKey(sp.Values(dc))]; ok || !spent {
				e, err := ev.Evaluate(ctx, dc)
				if err != nil {
					return finishInterrupted(ctx, st, run.ID, err)
				}
				if e.Config == nil {
					e.Config = sp.Values(dc)
				}
				if err := sink.Record(ctx, e); err != nil {
					return err
				}
				known[store.ConfigKey(e.Config)] = e
				defaultEval = &e
			}
		} else {
			env.log.Warn("default_config is not a valid configuration of the space; no baseline", "spec", specPath)
		}
	}

	s, err := strategy.New(*name, stOpts)
	if err != nil {
		return err
	}
	topts := tuning.Options{Budget: *budget, TimeLimit: *limit, Maximize: maximize, Seed: *seed, Sink: sink, Logger: env.log,
		Stop: []tuning.StopCondition{ev.sameFailure, ev.runBudget}}
	if defaultEval != nil {
		// the baseline is one of the budget's evaluations, whichever the strategy
		topts.Measured = []result.Evaluation{*defaultEval}
	}
	var prog *progress
	if *progressFlag || isTerminal(env.stderr) {
		prog = newProgress(env.stderr, "evaluated")
		if *limit > 0 {
			prog.deadline = prog.start.Add(*limit) // the run stops then, whatever the budget says
		}
		prog.base = resumed
		total := *budget
		if total == 0 || total > sp.Len() {
			total = sp.Len()
		}
		topts.Progress = func(tuning.Progress) {
			// the run's count, not the session's: a resumed run's strategy asks again for
			// the configurations the store answers
			prog.update(ev.runEvaluations(), total, sink.bestLine(sp0, objective))
		}
	}
	sum := tuning.Summary{Strategy: s.Name(), Seed: *seed, Stop: stopBudgetSpent}
	var runErr error
	if !spent {
		sess, err := tuning.New(sp, s, ev, topts)
		if err != nil {
			return err
		}
		sum, runErr = sess.Run(ctx)
	}
	if prog != nil {
		prog.finish()
	}
	status := store.StatusFinished
	if runErr != nil || spent {
		status = store.StatusInterrupted
	}
	if err := st.FinishRun(context.WithoutCancel(ctx), run.ID, status); err != nil {
		return err
	}
	rep := buildTuneReport(sp, sp0, run.ID, *db, backend, info, sum, ev, defaultEval, stored, sup.Crashes)
	rep.StrategyOptions = stOpts
	if *jsonOut {
		if err := writeJSON(env, rep); err != nil {
			return err
		}
	} else {
		printTuneReport(env, rep)
	}
	if runErr != nil && !errors.Is(runErr, context.Canceled) {
		return runErr
	}
	if errors.Is(runErr, context.Canceled) {
		fmt.Fprintf(env.stderr, "ktune tune: interrupted; run the same command again to resume run %d\n", run.ID)
		said = true
		return runErr
	}
	// whatever ended the run (the budget, the time limit, failures alike): nothing to use
	if rep.BestObjective == nil && rep.Evaluations > 0 {
		return fmt.Errorf("no configuration ran and verified successfully in run %d (the failures are listed above, and stored: %s)", run.ID, exportHint(run.ID, *db))
	}
	if rep.BestObjective == nil {
		return fmt.Errorf("no configuration ran and verified successfully in run %d: none was evaluated before it stopped (%s)", run.ID, rep.Stop)
	}
	return nil
}

func finishInterrupted(ctx context.Context, st store.Store, run int64, err error) error {
	st.FinishRun(context.WithoutCancel(ctx), run, store.StatusInterrupted)
	return err
}

// pickDevice resolves --device, or picks the first available backend for the language.
func pickDevice(flag, language string) (string, int, device.Info, error) {
	var cands []device.Backend
	index := 0
	if flag != "" {
		name, idx, hasIdx := strings.Cut(flag, ":")
		b, ok := device.Lookup(name)
		if !ok {
			var names []string
			for _, b := range device.Backends() {
				names = append(names, b.Name())
			}
			return "", 0, device.Info{}, fmt.Errorf("--device %q: unknown backend (have %s)", flag, strings.Join(names, ", "))
		}
		if hasIdx {
			n, err := strconv.Atoi(idx)
			if err != nil || n < 0 {
				return "", 0, device.Info{}, fmt.Errorf("--device %q: the index must be a whole number, 0 or more (see 'ktune devices')", flag)
			}
			index = n
		}
		if !slices.Contains(b.Languages(), language) {
			return "", 0, device.Info{}, fmt.Errorf("--device %q does not compile %s kernels (it compiles %v)", flag, language, b.Languages())
		}
		cands = []device.Backend{b}
	} else {
		cands = device.ForLanguage(language)
		if len(cands) == 0 {
			return "", 0, device.Info{}, fmt.Errorf("no backend compiles %s kernels in this build of ktune", language)
		}
	}
	var reasons []string
	for _, b := range cands {
		devs, err := b.Devices()
		if err != nil {
			reasons = append(reasons, fmt.Sprintf("%s: %v", b.Name(), err))
			continue
		}
		if index >= len(devs) {
			reasons = append(reasons, fmt.Sprintf("%s has %d devices, no index %d (see 'ktune devices')", b.Name(), len(devs), index))
			continue
		}
		return b.Name(), index, devs[index], nil
	}
	return "", 0, device.Info{}, fmt.Errorf("no device can run this %s kernel:\n  %s", language, strings.Join(reasons, "\n  "))
}

// specHash identifies what a run measures: the spec file and its kernel sources. A resumed
// run must measure the same thing.
func specHash(s *spec.Spec) (string, error) {
	h := sha256.New()
	data, err := os.ReadFile(s.File)
	if err != nil {
		return "", err
	}
	h.Write(data)
	h.Write([]byte(s.Kernel.Code))
	if s.Verification != nil && s.Verification.Kernel != nil {
		h.Write([]byte(s.Verification.Kernel.Code))
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// findOrCreateRun resumes the newest unfinished run with the same space, device, strategy,
// options, seed and spec hash, or creates a new one. It returns the run's stored
// evaluations, in the order they were measured.
func findOrCreateRun(ctx context.Context, st store.Store, db string, want store.RunInfo, hash string, fresh bool) (store.RunInfo, []result.Evaluation, *tuner.RunLock, error) {
	runs, err := st.Runs(ctx, store.RunFilter{SpaceID: want.SpaceID, DeviceID: want.DeviceID, Kind: store.KindTuning})
	if err != nil {
		return store.RunInfo{}, nil, nil, err
	}
	var resume *store.RunInfo // the newest unfinished run of these settings
	for i := len(runs) - 1; i >= 0; i-- {
		r := &runs[i]
		if !fresh && resume == nil && r.Status != store.StatusFinished && r.Strategy == want.Strategy && r.Seed == want.Seed &&
			sameJSON(r.StrategyOptions, want.StrategyOptions) && settingsHash(r.Settings) == hash {
			resume = r
			continue
		}
		// A run left "running" by a process that died (SIGKILL, a crash) and that this one
		// does not resume is marked interrupted once no process holds it.
		if r.Status == store.StatusRunning {
			if l, err := tuner.LockRun(db, r.ID); err == nil {
				err := st.FinishRun(ctx, r.ID, store.StatusInterrupted)
				l.Release()
				if err != nil {
					return store.RunInfo{}, nil, nil, err
				}
			}
		}
	}
	if resume != nil {
		r := *resume
		lock, err := tuner.LockRun(db, r.ID)
		if errors.Is(err, tuner.ErrRunHeld) {
			return store.RunInfo{}, nil, nil, fmt.Errorf("run %d of this kernel, device and settings in %s is being tuned by another ktune process: wait for it to end (it resumes nothing then), or give --new to start a run beside it", r.ID, db)
		}
		if err != nil {
			return store.RunInfo{}, nil, nil, err
		}
		evals, err := st.Evaluations(ctx, r.ID)
		if err != nil {
			lock.Release()
			return store.RunInfo{}, nil, nil, err
		}
		if err := st.FinishRun(ctx, r.ID, store.StatusRunning); err != nil {
			lock.Release()
			return store.RunInfo{}, nil, nil, err
		}
		return r, evals, lock, nil
	}
	id, err := st.CreateRun(ctx, want)
	if err != nil {
		return store.RunInfo{}, nil, nil, err
	}
	want.ID = id
	lock, err := tuner.LockRun(db, id)
	if err != nil {
		// a new run's id is this process's alone; another process holding it would be a
		// lock file left from a database deleted and made again
		return store.RunInfo{}, nil, nil, err
	}
	return want, nil, lock, nil
}

func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	json.Unmarshal(a, &x)
	json.Unmarshal(b, &y)
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return string(ja) == string(jb)
}

func settingsHash(raw json.RawMessage) string {
	var m map[string]any
	json.Unmarshal(raw, &m)
	h, _ := m["spec_hash"].(string)
	return h
}

// resumingEvaluator answers configurations the run measured before it was interrupted from
// the store, and forwards the rest (and hints) to the device.
type resumingEvaluator struct {
	inner *worker.Supervisor
	sp    *space.Space
	known map[string]result.Evaluation
	// the first sameFailures evaluations, and whether any evaluation succeeded
	first     []result.Evaluation
	succeeded bool
	// budget is the run's (0: none), stored how many evaluations the run had before this
	// command, measured the configurations (keys) this command measured
	budget, stored int
	measured       map[string]bool
}

// runEvaluations is how many evaluations the run has: those stored before this command
// and those it measured.
func (r *resumingEvaluator) runEvaluations() int { return r.stored + len(r.measured) }

// runBudget is a stop condition: the budget is spent once the run has that many
// evaluations. A resumed run's strategy starts again, and the configurations it asks for
// again are answered from the store, counting against the session's budget as they did
// before; but a strategy that takes another path (auto with another budget) would
// otherwise measure a whole budget more.
func (r *resumingEvaluator) runBudget(tuning.State) tuning.StopReason {
	if r.budget > 0 && r.runEvaluations() >= r.budget {
		return tuning.StopBudget
	}
	return ""
}

func (r *resumingEvaluator) Evaluate(ctx context.Context, c space.Config) (result.Evaluation, error) {
	e, err := r.evaluate(ctx, c)
	if err == nil {
		r.succeeded = r.succeeded || !e.Failed()
		if len(r.first) < sameFailures {
			r.first = append(r.first, e)
		}
	}
	return e, err
}

func (r *resumingEvaluator) evaluate(ctx context.Context, c space.Config) (result.Evaluation, error) {
	vals := r.sp.Values(c)
	if e, ok := r.known[store.ConfigKey(vals)]; ok {
		return e, nil
	}
	start := time.Now()
	e, err := r.inner.Evaluate(ctx, c)
	if err == nil {
		r.measured[store.ConfigKey(vals)] = true
	}
	e.Config = vals
	// The framework overhead as the tuner sees it: everything but compiling, verifying and
	// running the kernel (process hand-over, argument set-up, copies).
	wall := float64(time.Since(start).Nanoseconds()) / 1e6
	e.FrameworkMS = max(wall-e.CompileMS-e.VerifyMS-e.BenchmarkMS, 0)
	return e, err
}

// stopBudgetSpent is why a resumed run that already has its budget's evaluations measures
// nothing.
const stopBudgetSpent tuning.StopReason = "the budget was spent before this command"

// sameFailures is how many configurations, from the first, must fail with one message
// before tuning stops (stopSameFailure).
const sameFailures = 10

// stopSameFailure ends a run whose first configurations all failed with the same message:
// a fault of the spec or the device (arguments that do not match the kernel, a missing
// symbol), not of the configurations, which the rest of the budget would only repeat.
const stopSameFailure tuning.StopReason = "the first configurations all failed the same way"

// sameFailure is a stop condition: stopSameFailure once the first sameFailures
// configurations evaluated (the default configuration included) failed with one message
// (compile errors, runtime errors and wrong answers; a timeout or a device limit belongs
// to its configuration).
func (r *resumingEvaluator) sameFailure(tuning.State) tuning.StopReason {
	if r.succeeded || len(r.first) < sameFailures {
		return ""
	}
	first := r.first[0]
	for _, e := range r.first {
		if e.Status == result.OK || e.Status == result.Timeout || e.Status == result.DeviceLimit ||
			e.Status != first.Status || e.Message != first.Message || e.Message == "" {
			return ""
		}
	}
	return stopSameFailure
}

func (r *resumingEvaluator) Hint(cs ...space.Config) {
	todo := make([]space.Config, 0, len(cs))
	for _, c := range cs {
		if _, ok := r.known[store.ConfigKey(r.sp.Values(c))]; !ok {
			todo = append(todo, c)
		}
	}
	r.inner.Hint(todo...)
}

// storeSink commits each new evaluation to the store as soon as it is measured and keeps
// the best for progress lines.
type storeSink struct {
	st       store.Store
	run      int64
	sp       *space.Space
	known    map[string]result.Evaluation
	maximize bool
	best     *result.Evaluation
	all      []result.Evaluation
}

func (s *storeSink) Record(ctx context.Context, e result.Evaluation) error {
	s.all = append(s.all, e)
	s.consider(e)
	if _, old := s.known[store.ConfigKey(e.Config)]; old {
		return nil
	}
	// Committed even when the run is being cancelled: it was measured.
	return s.st.AddEvaluation(context.WithoutCancel(ctx), s.run, e)
}

// consider keeps e when it is the best so far.
func (s *storeSink) consider(e result.Evaluation) {
	if !e.Failed() && (s.best == nil || (s.maximize && e.Objective > s.best.Objective) || (!s.maximize && e.Objective < s.best.Objective)) {
		b := e
		s.best = &b
	}
}

func (s *storeSink) bestLine(sp0 *spec.Spec, objective string) string {
	if s.best == nil {
		return "no valid configuration yet"
	}
	line := fmt.Sprintf("best %s %s", formatObjective(s.best.Objective), unitOf(objective))
	if c, err := s.sp.ConfigOf(s.best.Config); err == nil {
		line += " at " + s.sp.Format(c)
	}
	return line
}

func unitOf(objective string) string {
	if objective == "time" || objective == "" {
		return "ms"
	}
	return objective
}

func formatObjective(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return strconv.FormatFloat(v, 'g', 5, 64)
}

const maxFailureMessage = 2000

// failures sums up the failed evaluations by status, the most frequent status first.
func failures(sp *space.Space, history []tuning.Evaluated) []tuner.FailureSummary {
	type msgCount struct {
		n     int
		first space.Config
	}
	byStatus := map[result.Status]map[string]*msgCount{}
	count := map[result.Status]int{}
	for _, h := range history {
		e := h.Evaluation
		if e.Status == result.OK {
			continue
		}
		if byStatus[e.Status] == nil {
			byStatus[e.Status] = map[string]*msgCount{}
		}
		m := byStatus[e.Status][e.Message]
		if m == nil {
			m = &msgCount{first: h.Config}
			byStatus[e.Status][e.Message] = m
		}
		m.n++
		count[e.Status]++
	}
	var out []tuner.FailureSummary
	for st, msgs := range byStatus {
		var best string
		for msg, m := range msgs {
			if b := msgs[best]; b == nil || m.n > b.n || m.n == b.n && msg < best {
				best = msg
			}
		}
		m := msgs[best]
		f := tuner.FailureSummary{Status: st.String(), Count: count[st], Same: m.n, Message: best, Example: nameConfig(sp, m.first)}
		if len(f.Message) > maxFailureMessage {
			f.Message = f.Message[:maxFailureMessage] + " ..."
		}
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b tuner.FailureSummary) int {
		if a.Count != b.Count {
			return b.Count - a.Count
		}
		return strings.Compare(a.Status, b.Status)
	})
	return out
}

// runHistory is a run's evaluations: those stored before this command that its session
// did not ask for again (a resumed run's strategy replays its requests, answered from the
// store, but one that takes another path leaves some aside), then the session's.
func runHistory(sp *space.Space, session []tuning.Evaluated, stored []result.Evaluation) []tuning.Evaluated {
	seen := make(map[string]bool, len(session))
	for _, h := range session {
		seen[store.ConfigKey(h.Evaluation.Config)] = true
	}
	var all []tuning.Evaluated
	for _, e := range stored {
		if seen[store.ConfigKey(e.Config)] {
			continue
		}
		if c, err := sp.ConfigOf(e.Config); err == nil {
			all = append(all, tuning.Evaluated{Config: c, Evaluation: e})
		}
	}
	return append(all, session...)
}

// buildTuneReport sums up the run: all its evaluations, those stored before this command
// included; the means of compile, verify and framework time are over those it measured.
func buildTuneReport(sp *space.Space, s *spec.Spec, run int64, db, backend string, info device.Info, sum tuning.Summary,
	ev *resumingEvaluator, def *result.Evaluation, stored []result.Evaluation, crashes int) *tuner.Report {
	objective, maximize := s.Objective()
	history := runHistory(sp, sum.History, stored)
	r := &tuner.Report{Run: run, Database: db, Kernel: s.Kernel.Name, Backend: backend, Device: info.Name, Strategy: sum.Strategy,
		Seed: sum.Seed, Objective: objective, Maximize: maximize, SpaceSize: sp.Len(), Evaluations: len(history),
		Resumed: len(stored), Measured: len(ev.measured), Statuses: map[string]int{}, Stop: string(sum.Stop),
		WallSeconds: sum.Wall.Seconds(), WorkerRestarts: crashes, Verified: s.Verification != nil}
	var ok, fw []float64
	var best *tuning.Evaluated
	for i := range history {
		h := &history[i]
		if ev.measured[store.ConfigKey(h.Evaluation.Config)] {
			r.MeanCompileMS += h.Evaluation.CompileMS
			r.MeanVerifyMS += h.Evaluation.VerifyMS
			r.MeanFrameworkMS += h.Evaluation.FrameworkMS
			fw = append(fw, h.Evaluation.FrameworkMS)
			r.KernelMS += h.Evaluation.BenchmarkMS
		}
		r.Statuses[h.Evaluation.Status.String()]++
		if e := h.Evaluation; !e.Failed() {
			ok = append(ok, e.Objective)
			if best == nil || maximize && e.Objective > best.Evaluation.Objective || !maximize && e.Objective < best.Evaluation.Objective {
				best = h
			}
		}
	}
	r.Failures = failures(sp, history)
	if len(fw) > 0 {
		r.MeanCompileMS /= float64(len(fw))
		r.MeanVerifyMS /= float64(len(fw))
		r.MeanFrameworkMS /= float64(len(fw))
		slices.Sort(fw)
		r.MedianFrameworkMS = fw[len(fw)/2]
	}
	if best != nil {
		r.Best = nameConfig(sp, best.Config)
		bestObjective := best.Evaluation.Objective
		r.BestObjective = &bestObjective
		r.BestMetrics = best.Evaluation.Metrics
		for _, m := range s.Metrics {
			r.MetricOrder = append(r.MetricOrder, m.Name)
		}
		t := runner.TimeMS(s.Statistic, best.Evaluation.Samples)
		if objective == "time" {
			t = bestObjective
		}
		if !math.IsNaN(t) {
			r.BestTimeMS = &t
		}
		speedup := func(other float64) *float64 {
			v := other / bestObjective
			if maximize {
				v = bestObjective / other
			}
			return &v
		}
		slices.Sort(ok)
		med := ok[len(ok)/2]
		if len(ok)%2 == 0 {
			med = (ok[len(ok)/2-1] + ok[len(ok)/2]) / 2
		}
		r.MedianObjective = &med
		r.SpeedupOverMed = speedup(med)
		if def != nil && !def.Failed() {
			d := def.Objective
			r.DefaultObjective = &d
			r.SpeedupOverDef = speedup(d)
		}
		if def != nil && def.Failed() {
			r.DefaultStatus = def.Status.String()
		}
	}
	return r
}

func printTuneReport(env *cliEnv, r *tuner.Report) {
	w := env.stdout
	resumed := ""
	if r.Resumed > 0 {
		resumed = fmt.Sprintf(" (%d of them measured by this command, %d before)", r.Measured, r.Resumed)
	}
	fmt.Fprintf(w, "tuned %s on %s (%s): %d of %d configurations evaluated%s with %s%s (seed %d) in %.1f s; stopped: %s\n",
		r.Kernel, r.Device, r.Backend, r.Evaluations, r.SpaceSize, resumed, r.Strategy, formatOptions(r.StrategyOptions), r.Seed, r.WallSeconds, r.Stop)
	var st []string
	for k, v := range r.Statuses {
		st = append(st, fmt.Sprintf("%s %d", k, v))
	}
	slices.Sort(st)
	fmt.Fprintf(w, "statuses: %s", strings.Join(st, ", "))
	if r.WorkerRestarts > 0 {
		fmt.Fprintf(w, " (worker restarted %d times)", r.WorkerRestarts)
	}
	fmt.Fprintln(w)
	for _, f := range r.Failures {
		fmt.Fprintf(w, "  %s: ", f.Status)
		if f.Same == f.Count {
			fmt.Fprintf(w, "all %d said", f.Count)
		} else {
			fmt.Fprintf(w, "%d of %d said", f.Same, f.Count)
		}
		fmt.Fprintf(w, " (e.g. %s):\n%s\n", f.Example, indent(firstLines(f.Message, 6), "    "))
	}
	if r.BestObjective == nil {
		fmt.Fprintln(w, "no configuration ran and verified successfully")
		return
	}
	verified := "(verified)"
	if !r.Verified {
		verified = "(not verified: the spec has no verification)"
	}
	fmt.Fprintf(w, "best %s: %s %s %s\n", r.Objective, formatObjective(*r.BestObjective), unitOf(r.Objective), verified)
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
	if r.BestTimeMS != nil && r.Objective != "time" {
		fmt.Fprintf(w, "  time: %s ms\n", formatObjective(*r.BestTimeMS))
	}
	if r.SpeedupOverMed != nil {
		fmt.Fprintf(w, "  %.2fx better than the median configuration evaluated (%s %s)\n", *r.SpeedupOverMed, formatObjective(*r.MedianObjective), unitOf(r.Objective))
	}
	if r.SpeedupOverDef != nil {
		fmt.Fprintf(w, "  %.2fx better than the default configuration (%s %s)\n", *r.SpeedupOverDef, formatObjective(*r.DefaultObjective), unitOf(r.Objective))
	}
	if r.DefaultStatus != "" {
		fmt.Fprintf(w, "  the default configuration did not run successfully (%s): no speedup over it\n", r.DefaultStatus)
	}
	if r.Measured > 0 { // the costs of this command's measurements
		fmt.Fprintf(w, "per evaluation: compile %.1f ms, verify %.1f ms (means), framework overhead %.2f ms (median; mean %.2f with worker start-up); kernels ran %.1f s in all\n",
			r.MeanCompileMS, r.MeanVerifyMS, r.MedianFrameworkMS, r.MeanFrameworkMS, r.KernelMS/1e3)
	}
	fmt.Fprintf(w, "results: run %d in %s (%s --format kerneltuner|t4)\n", r.Run, r.Database, exportHint(r.Run, r.Database))
}

// defaultPrecompilers is --precompilers' default: one pre-compiling worker per two cores
// (the measuring worker, the device runtime and the tuner need the others), at least one,
// and at most 8, each holding a device context of its own.
func defaultPrecompilers() int {
	return min(max(runtime.NumCPU()/2, 1), 8)
}

// firstLines is s cut after n lines, saying how many more there were.
func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) <= n {
		return strings.Join(lines, "\n")
	}
	return strings.Join(lines[:n], "\n") + fmt.Sprintf("\n(%d more lines: ktune export shows them all)", len(lines)-n)
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

// storedProblemSize is the problem size as a run stores it: a JSON array of integers
// ("[512,512]", the shape of Kernel Tuner's and T4's problem_size) when the spec's sizes
// are constant expressions (N, 2*N); otherwise, for sizes that depend on the parameters,
// the expressions with the constants they read replaced by their values, comma-separated.
func storedProblemSize(sp *spec.Spec) string {
	consts := map[string]float64{}
	for _, k := range sp.Constants {
		consts[k.Name] = k.Value
	}
	sizes := make([]string, len(sp.ProblemSize))
	ints := make([]int64, len(sp.ProblemSize))
	whole := true
	for i, e := range sp.ProblemSize {
		var err error
		if sizes[i], err = expr.BindConstants(e, consts); err != nil {
			sizes[i] = e
		}
		vs, err := expr.EvalValues(sizes[i])
		if err != nil || len(vs) != 1 || (vs[0].Kind() != space.Int && vs[0].Kind() != space.Float) ||
			vs[0].Float() != math.Trunc(vs[0].Float()) || math.Abs(vs[0].Float()) > 1<<53 {
			whole = false // a size over the parameters, or no whole number (N/3)
			continue
		}
		ints[i] = int64(vs[0].Float())
	}
	if !whole || len(ints) == 0 {
		return strings.Join(sizes, ",")
	}
	b, _ := json.Marshal(ints)
	return string(b)
}

// nameConfig names c's values by sp's parameters.
func nameConfig(sp *space.Space, c space.Config) tuner.Config {
	n := tuner.Config{Values: sp.Values(c)}
	for _, p := range sp.Params() {
		n.Names = append(n.Names, p.Name)
	}
	return n
}
