package tuner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/efficiency"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/spec"
	"github.com/ktune/ktune/store"
	"github.com/ktune/ktune/strategy"
	"github.com/ktune/ktune/tuning"
	"github.com/ktune/ktune/worker"
)

// Options say what Tune tunes, on which device, how and for how long. SpecPath or SpecData
// is required, and DB or Store; the zero value of every other field is a sensible default.
type Options struct {
	// SpecPath is the kernel spec file (see spec.Doc). The worker processes load it too.
	SpecPath string
	// SpecData, when set, is the spec's text (YAML or JSON), for a program that builds its
	// spec in memory: Tune parses it as spec.Parse does, and SpecPath, which need not
	// exist then, names it in messages and in the run, and is where its relative paths
	// (kernel sources, .npy files) resolve; "" is InMemorySpec in the working directory.
	// The worker processes get the same text, through a file in the temporary directory
	// that Tune deletes before it returns. A run resumes while the text is the same.
	SpecData []byte
	// Device is the device to tune on: BACKEND or BACKEND:INDEX ("opencl:1", "c"), as
	// 'ktune devices' lists them. "" picks the first available backend that compiles the
	// spec's language, and its first device.
	//
	// Several devices of one backend, separated by commas ("opencl:0,opencl:1", or
	// "opencl:0,1"), measure the run's configurations side by side, each in worker
	// processes of its own (see the package doc, Several devices). Their names must be the
	// same (a *DeviceMismatchError otherwise), unless MixedDevices. The run is stored as
	// the first device's, its settings listing every index ("devices").
	Device string
	// MixedDevices accepts several devices whose names differ, whose timings are then
	// compared in one run as if they were one device's.
	MixedDevices bool
	// Peaks are the device's peaks as the user gives them, which win over those its
	// backend derives (device.Info.Peak): the report's efficiency (Report.Efficiency) of a
	// spec that declares its essential operations is computed against them. The run
	// stores the peaks it used, given or derived, each with where it came from, in its
	// settings (efficiency.SettingsKey, efficiency.Stored), for its reports; a resumed run
	// keeps those it was given before where it is given none.
	Peaks efficiency.Given
	// PeaksFile gives the device its peaks by its name or backend:index, under Peaks; it
	// must name the run's device (the first). nil: none.
	PeaksFile *efficiency.File
	// Strategy names the search strategy (strategy.New); "" is "auto", the best for the
	// budget. StrategyOptions are its options, which must fit the space
	// (strategy.Validate); the run stores and reports them canonically
	// (strategy.Canonical: neighbourhood=hamming as Hamming, 1e3 as 1000), and resumes a
	// run of the same options however they were spelled.
	Strategy        string
	StrategyOptions map[string]any
	// Budget is the run's number of evaluations, those measured before a resumption
	// included (a run that has them measures nothing); 0 is no limit. A configuration that
	// breaks a limit of the device known before compiling (its block size, local memory,
	// largest buffer or global memory: runner.LimitViolation) is recorded as a
	// device_limit without being compiled, and costs none of it (Report.DeviceExcluded);
	// one whose limit only the compiled kernel tells (its own maximum work-group size,
	// static local memory) costs one evaluation, as it cost a compile.
	Budget int
	// TimeLimit bounds Tune's wall-clock time, counted from the call: building the space,
	// starting the workers, checking the arguments, computing the reference, measuring the
	// default configuration and the search all count. When it passes, the work in
	// progress stops at once: a configuration being compiled or run is killed (within
	// about a tenth of a second, plus the time its process takes to die) and is stored
	// neither as a timeout nor as a failure, since it was not measured; Tune then stores
	// that the run finished, stops its workers (killing pre-compilers still compiling)
	// and returns. A limit that passes before the search begins is ErrTimeUp, or a run
	// with nothing evaluated when it passes while the default configuration is measured.
	// 0 is none. A space of more than MaxUnlimited configurations needs a Budget or a
	// TimeLimit.
	TimeLimit time.Duration
	// Target, when set, ends the search once the run has a configuration that ran and
	// verified successfully with an objective at least as good as it, in the objective's
	// units and direction (ms for time): fast enough (seed 003's stop conditions). The
	// report's Stop says so ("target reached: time 1.13 ms (at most 1.2 ms)").
	Target *float64
	// WithinPeak, above 0, ends the search once a configuration that ran and verified
	// successfully reaches this fraction (at most 1) of the device's peak by its
	// efficiency (seed 003, eq. 2): the well-performing threshold of seed 003's Section
	// 6, "75% of the peak memory bandwidth" (0.75). Its peaks are the run's: Peaks (with
	// PeaksFile's), then those a resumed run stored, then the peaks the backend derives.
	// The report's Stop says what was reached ("within 75% of peak: 412 GB/s of 549 GB/s
	// (75.1%)"), its Efficiency where each peak came from. It needs the spec's
	// essential_ops, not excluded, and the peaks they need: an *OptionsError otherwise,
	// before any run is created, resumed or otherwise changed in the store.
	//
	// A resumed run whose stored evaluations already meet Target or WithinPeak measures
	// nothing, not even the default configuration (RunStart.Reached), and stays
	// interrupted, as one whose budget is spent does: a stricter condition continues it.
	// A configuration with a wrong_answer evaluation stored in the run (a check after
	// dynamic tuning found it wrong) meets neither, however fast its successes ran.
	WithinPeak float64
	// Seed seeds the strategy: the same seed, strategy and space ask for the same
	// configurations.
	Seed uint64
	// DB names the results database, as store.Open takes it (a SQLite file). Unless Store
	// is set, Tune opens it once the options are checked, so that options it refuses
	// create no database, and closes it before it returns. Runs are locked in a file beside
	// the database DB names (LockRun).
	DB string
	// Store, when set, is the results database, open; Tune leaves it open. DB should name
	// it: without a DB its runs are not locked against other processes.
	Store store.Store
	// Fresh starts a new run even when an interrupted run of the same spec, device,
	// strategy, options and seed could be resumed.
	Fresh bool
	// Precompilers is how many worker processes compile upcoming configurations ahead of
	// time, beside the one that measures; 0 is DefaultPrecompilers(). NoPrecompile
	// compiles nothing ahead.
	Precompilers int
	NoPrecompile bool
	// WorkerMemory bounds the memory of each worker process, in bytes (on Linux, its data
	// limit, RLIMIT_DATA: see worker.Options.MemoryLimit), so that a configuration that
	// allocates without bound fails alone, its allocations refused, rather than drive the
	// machine into swap or its out-of-memory killer. 0 is the default:
	// worker.DefaultMemoryLimit() (half the machine's memory) on a CPU device (host C,
	// PoCL), where kernels and their buffers live in the worker, and none on another (a
	// GPU, whose drivers map memory of their own). A negative value is none. PoCL sizes its device by the limit: its global memory is
	// the limit, its largest buffer a quarter of it (the host C device's, all of it); a
	// configuration with a larger array is a device_limit. Messages about the limit name it
	// as the ktune command does, --worker-memory.
	WorkerMemory int64
	// WorkerCommand is the command line, a program and its arguments, that starts a worker
	// process; Tune appends the Worker's Args, and that command must call Worker.Serve.
	// Nil (or empty: no program) starts the running program's executable with WorkerArg,
	// for WorkerMain.
	WorkerCommand []string
	// Started, when set, is called once the run is created or found to resume, before
	// anything is measured.
	Started func(RunStart)
	// Progress, when set, is called after every evaluation of the search, on the goroutine
	// that called Tune; it must return quickly.
	Progress func(Progress)
	// Logger receives the tuner's and the worker supervisor's logs; slog.Default() when
	// nil.
	Logger *slog.Logger
	// SpaceBuild says how the spec's space is built: its progress (called on the goroutine
	// that called Tune), and the memory its index may take (a space that needs more is a
	// *space.TooLargeError, before anything is stored).
	SpaceBuild space.BuildOptions
}

// InMemorySpec is the name of a spec given as SpecData without a SpecPath, in the working
// directory, against which its relative paths resolve.
const InMemorySpec = "in-memory-spec.yaml"

// MaxUnlimited is the largest space Tune searches with neither a Budget nor a TimeLimit.
const MaxUnlimited = 10000

// RunStart is the stored run that Tune tunes, as it starts.
type RunStart struct {
	ID int64 // the run's id in the store
	// Resumed is how many evaluations the run had before, an interrupted run that Tune
	// resumes, that count against the budget: those over a device limit known before
	// compiling, which cost none, left out.
	Resumed int
	// Spent says the run has Options.Budget evaluations already: Tune measures nothing and
	// leaves it interrupted, for a larger budget to continue.
	Spent bool
	// Reached, when set, is the stop condition (Options.Target, WithinPeak) that the run's
	// stored evaluations already meet: Tune measures nothing and leaves it interrupted, as
	// when Spent.
	Reached tuning.StopReason
	// Stale, when set, is an unfinished run of the same spec and settings that was not
	// resumed because its inputs (data files, headers, the compiler...) changed since: the
	// run is a new one.
	Stale *StaleRun
}

// Progress is the state of a run for a progress display: the run's count, those measured
// before a resumption included.
type Progress struct {
	Run         int64
	Evaluations int       // the run's evaluations so far that count against the budget (not those over a device limit known before compiling)
	Resumed     int       // of those, the ones it had before Tune
	Total       int       // the most it will have: the budget, or the space's size
	Started     time.Time // when the search began
	Deadline    time.Time // when Options.TimeLimit ends the run (from Tune's call); zero when there is none
	Objective   string    // the objective's name: "time" (ms) or one of the spec's metrics
	Best        float64   // the run's best objective so far; NaN when none succeeded
	BestConfig  Config    // the configuration that gave Best; zero when none did
}

// An OptionsError is Tune's error for options that are missing (no SpecPath, neither DB
// nor Store) or out of range (a negative budget, time limit or count of pre-compilers)
// and strategy options that the space refuses (an unknown option, one that names what the
// space lacks, a design larger than the budget), before anything is stored or compiled.
type OptionsError struct {
	Err error
	// Strategy says the strategy's options are at fault, not the run's (budget, time
	// limit, pre-compilers): a command that took them from a file can say so.
	Strategy bool
}

// Error is the strategy's message.
func (e *OptionsError) Error() string { return e.Err.Error() }

// Unwrap returns the strategy's error.
func (e *OptionsError) Unwrap() error { return e.Err }

// ErrNoWorkerMain is Tune's error in a worker process it started, when the program's main
// did not call WorkerMain first: the program ran as itself and called Tune again.
var ErrNoWorkerMain = errors.New("tuner: this process is a worker that Tune started, but main did not call tuner.WorkerMain first; call it at the top of main (or set Options.WorkerCommand)")

// workerEnv marks the environment of the worker processes Tune starts.
const workerEnv = "KTUNE_TUNER_WORKER"

// An UnlimitedError is Tune's error for a space of more than MaxUnlimited configurations
// with neither a Budget nor a TimeLimit, before anything is stored or compiled.
type UnlimitedError struct {
	SpaceSize int // the space's configurations
}

// Error says how large the space is and what it needs.
func (e *UnlimitedError) Error() string {
	return fmt.Sprintf("the space has %d configurations: give a budget or a time limit", e.SpaceSize)
}

// ErrTimeUp is Tune's error when Options.TimeLimit passed before the search began: while
// the space was built, the workers started, the arguments were checked or the reference
// was computed. No run was created and nothing was measured.
var ErrTimeUp = errors.New("the time limit passed before the search began")

// ErrNothingSucceeded is Tune's error, beside its report, when no configuration of the run
// ran and verified successfully: all failed (Report.Failures says how), or none was
// evaluated before the run stopped.
var ErrNothingSucceeded = errors.New("no configuration ran and verified successfully")

// DefaultPrecompilers is the number of pre-compiling workers when Options.Precompilers is
// 0: one per two cores (the measuring worker, the device runtime and the tuner need the
// others), at least one, and at most 8, each holding a device context of its own.
func DefaultPrecompilers() int {
	return min(max(runtime.NumCPU()/2, 1), 8)
}

// Tune tunes the kernel spec at o.SpecPath on a device and returns the run's report. In
// order, it
//
//   - builds the spec's space, checks the strategy's options against it, picks the device
//     and checks that it measures what the objective and metrics read;
//   - opens the store and starts the worker supervisor (device work runs in worker
//     processes: a configuration that crashes or hangs is recorded, and tuning goes on);
//   - computes the reference outputs, when the spec verifies, and compiles its
//     verification functions: a reference that does not compile, crashes or hangs, or a
//     function that does not compile, is an error wrapping worker.ErrReference, and
//     nothing is measured;
//   - resumes the newest interrupted run of the same spec, device, strategy, options and
//     seed (unless o.Fresh), answering the configurations it measured from the store, or
//     creates a run;
//   - measures the spec's default configuration, the baseline, then searches, storing
//     every evaluation the moment it is measured. The search stops at the budget, the time
//     limit, the strategy's end, or when the first 10 configurations and 5 drawn at random
//     from the rest of the space all failed with one message (StopSameFailure: a fault of
//     the spec, not of the first picks' parameter values).
//
// The time limit (Options.TimeLimit) counts from the call and covers every step above.
//
// Options that do not fit are errors before anything is stored: *OptionsError,
// *UnlimitedError, *DeviceError, a *spec.Error, a *space.TooLargeError. A run that
// another process tunes is a *RunHeldError. A time limit that passes before the reference
// is ready is ErrTimeUp. Once the search has begun Tune returns the report, with an error
// beside it when the search failed or ctx ended it (ctx's error; the run is left
// interrupted, to be resumed; worker.ErrReferenceLost when fresh workers, replacing one
// that died, could not compute the reference again, as a machine's fault does:
// worker.ErrEnvironment), ErrDatabaseLost when the database file was deleted or
// replaced meanwhile, or ErrNothingSucceeded; when recording how the run ended fails too
// (a full disk), the error wraps both, the run's own first.
func Tune(ctx context.Context, o Options) (*Report, error) {
	began := time.Now() // the time limit counts from here
	if os.Getenv(workerEnv) != "" {
		// Tune started this process as a worker, and main did not call WorkerMain: going on
		// would start workers of its own, without end.
		return nil, ErrNoWorkerMain
	}
	switch {
	case o.SpecPath == "" && o.SpecData == nil:
		return nil, &OptionsError{Err: errors.New("no kernel spec given (SpecPath and SpecData are empty)")}
	case o.DB == "" && o.Store == nil:
		return nil, &OptionsError{Err: errors.New("no results database given: name a SQLite file (DB) or pass an open Store")}
	case o.Budget < 0:
		return nil, &OptionsError{Err: fmt.Errorf("budget %d: want 0 (no limit) or more", o.Budget)}
	case o.TimeLimit < 0:
		return nil, &OptionsError{Err: fmt.Errorf("time limit %v: want 0 (none) or more", o.TimeLimit)}
	case o.Precompilers < 0:
		return nil, &OptionsError{Err: fmt.Errorf("precompilers %d: want 0 (the default) or more", o.Precompilers)}
	case o.Target != nil && (math.IsNaN(*o.Target) || math.IsInf(*o.Target, 0)):
		return nil, &OptionsError{Err: fmt.Errorf("target %v: want a finite objective value to stop at", *o.Target)}
	case o.WithinPeak != 0 && !(o.WithinPeak > 0 && o.WithinPeak <= 1):
		return nil, &OptionsError{Err: fmt.Errorf("stop within %v of the peak: want a fraction above 0 and at most 1 (0.75 for 75%%)", o.WithinPeak)}
	}
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	// limited is ctx ended by the time limit too: the steps before the search run in it.
	// The session keeps the same deadline itself (tuning.Options.Since), and tells its
	// end by the time limit from an interruption.
	limited, endLimited := ctx, context.CancelFunc(func() {})
	if o.TimeLimit > 0 {
		limited, endLimited = context.WithDeadline(ctx, began.Add(o.TimeLimit))
	}
	defer endLimited()
	timeUp := func(err error, while string) error {
		if err != nil && ctx.Err() == nil && limited.Err() != nil {
			return fmt.Errorf("%w: %v ran out while %s; nothing was measured", ErrTimeUp, o.TimeLimit, while)
		}
		return nil
	}
	name, stOpts := o.Strategy, o.StrategyOptions
	if name == "" {
		name = "auto"
	}
	if stOpts == nil {
		stOpts = map[string]any{} // stored as {}, not null
	}
	if o.SpecData != nil && o.SpecPath == "" {
		o.SpecPath = InMemorySpec
	}
	specPath, err := filepath.Abs(o.SpecPath)
	if err != nil {
		return nil, err
	}
	s, err := loadSpec(specPath, o.SpecData)
	if err != nil {
		return nil, err
	}
	for _, w := range s.Warnings {
		log.Warn(w.Error())
	}
	sp, err := s.SpaceContext(limited, o.SpaceBuild)
	if err := timeUp(err, "the space was built"); err != nil {
		return nil, err
	}
	if err != nil {
		var se *spec.Error
		if errors.As(err, &se) || ctx.Err() != nil {
			return nil, err // it names the file
		}
		return nil, fmt.Errorf("%s: %w", o.SpecPath, err)
	}
	// options that name what the space lacks are refused here, as an unknown option is,
	// before a run is stored or anything compiled
	if err := strategy.Validate(name, stOpts, sp, o.Budget); err != nil {
		return nil, &OptionsError{Err: err, Strategy: true}
	}
	// The run is stored, run and reported under its options in the one spelling the
	// strategy reads them (hamming as Hamming, 1e3 as 1000), so that a later command
	// spelled otherwise finds it.
	if stOpts, err = strategy.Canonical(name, stOpts); err != nil {
		return nil, &OptionsError{Err: err, Strategy: true}
	}
	lang := s.Kernel.Language
	if usesCXX(s) {
		lang = "c++" // a C kernel's C++ reference needs the C++ compiler too
	}
	backend, indices, infos, err := pickDevices(o.Device, lang, o.MixedDevices)
	if err != nil {
		return nil, err
	}
	index, info := indices[0], infos[0] // the run's device, the first
	var host device.Info                // where a C or C++ reference of an OpenCL or CUDA kernel runs
	if s.HostReference() {
		if host, err = hostReferenceInfo(s); err != nil {
			return nil, err
		}
	}
	fnHost, err := verifyFunctionHost(s, backend, info)
	if err != nil {
		return nil, err
	}
	if err := s.Unmeasured(backend); err != nil {
		return nil, err
	}
	if o.PeaksFile != nil {
		precision := ""
		if s.Essential != nil {
			precision = s.Essential.Precision
		}
		if o.Peaks, err = o.PeaksFile.For(efficiency.DeviceOf(info), precision, o.Peaks); err != nil {
			return nil, &OptionsError{Err: err}
		}
	}
	if o.WithinPeak > 0 {
		// What no run's stored peaks can change is refused before anything is opened; a
		// peak missing may be one the run this command resumes stored (peaksOf, below),
		// unless there is no run to resume.
		if _, err := peakThreshold(s, info, o, o.Peaks, nil); err != nil && (!errors.As(err, new(*efficiency.MissingPeakError)) || noRunToResume(o)) {
			return nil, &OptionsError{Err: err}
		}
	}
	if o.Budget == 0 && o.TimeLimit == 0 && sp.Len() > MaxUnlimited {
		return nil, &UnlimitedError{sp.Len()}
	}

	st := o.Store
	if st == nil {
		if st, err = store.Open(ctx, o.DB); err != nil {
			return nil, err
		}
		defer st.Close()
	}
	props, _ := json.Marshal(info)
	devID, err := st.PutDevice(ctx, store.Device{Name: info.Name, Backend: backend, Properties: props})
	if err != nil {
		return nil, err
	}
	restrictions, err := s.BoundRestrictions()
	if err != nil {
		return nil, err
	}
	spaceID, err := st.PutSpace(ctx, store.Space{Kernel: s.Kernel.Name, Params: s.Parameters, Restrictions: restrictions})
	if err != nil {
		return nil, err
	}
	// Before the reference is computed, and after the writes above, which say clearly why
	// a database is read-only: a run that could not be held is not tuned.
	if err := CanLockRuns(o.DB); err != nil {
		return nil, err
	}
	objective, maximize := s.Objective()
	optJSON, _ := json.Marshal(stOpts)
	inputs, err := runInputs(s, o.SpecData, info)
	if err != nil {
		return nil, err
	}
	addReferenceCompiler(inputs, s, host)
	if err := addVerifyFunctions(inputs, s, backend, fnHost); err != nil {
		return nil, err
	}
	hash := inputs.hash()
	memoryLimit := o.WorkerMemory
	switch {
	case memoryLimit == 0 && info.Type == "cpu":
		memoryLimit = worker.DefaultMemoryLimit()
	case memoryLimit < 0:
		memoryLimit = 0
	}
	workerMemory := "none"
	if memoryLimit > 0 {
		workerMemory = space.FormatBytes(memoryLimit)
	}
	runSettings := map[string]any{"spec": specPath, "spec_hash": hash, "inputs": inputs, "budget": o.Budget,
		"time_limit": o.TimeLimit.String(), "backend": backend, "device_index": index, "worker_memory": workerMemory}
	if len(indices) > 1 {
		runSettings["devices"] = indices // which measured: the run's device is the first
	}
	if ops, ok := efficiency.FromSpec(s.Essential); ok {
		// what a report of the run computes efficiency from, without the spec
		runSettings["essential_ops"] = ops
		if peaks := runPeaks(ops, info, o.Peaks); peaks != nil {
			runSettings[efficiency.SettingsKey] = peaks
		}
	}
	if o.Target != nil {
		runSettings["target"] = *o.Target
	}
	if o.WithinPeak > 0 {
		runSettings["within_peak"] = o.WithinPeak
	}
	settings, _ := json.Marshal(runSettings)
	want := store.RunInfo{SpaceID: spaceID, DeviceID: devID, Kind: store.KindTuning,
		Strategy: name, StrategyOptions: optJSON, Seed: o.Seed, Objective: objective, Maximize: maximize,
		ProblemSize: storedProblemSize(s), Source: specPath, Settings: settings}
	// The peaks of the run, and the stop condition's threshold against them, are the
	// command's (flags, then the peaks file), then those the run it resumes stored, then
	// the derived ones. The run to resume is looked up before the workers start, so that
	// a threshold no peak makes possible is refused at once, and shown again to
	// findOrCreateRun, which resumes it: nothing is stored before it is accepted.
	given := o.Peaks
	var threshold *efficiency.Threshold
	peaksOf := func(resume *store.RunInfo) error {
		given, threshold = o.Peaks, nil
		ops, ok := efficiency.FromSpec(s.Essential)
		if !ok {
			return nil
		}
		if resume != nil {
			prior, err := efficiency.StoredOf(*resume)
			if err != nil {
				log.Warn("the peaks stored with the run resumed are not used", "err", err)
			}
			// a resumed run's derived peaks are its device's now
			given = given.Or(givenOnly(prior.Given(ops.Precision, resume.ID)))
		}
		if o.WithinPeak > 0 {
			t, err := peakThreshold(s, info, o, given, resume)
			if err != nil {
				return &OptionsError{Err: err}
			}
			threshold = t
		}
		return nil
	}
	if o.WithinPeak > 0 {
		resume, err := resumableRun(ctx, st, want, hash, o.Fresh)
		if err != nil {
			return nil, err
		}
		if err := peaksOf(resume); err != nil {
			return nil, err
		}
	}
	command := o.WorkerCommand
	if len(command) == 0 {
		exe, err := os.Executable()
		if err != nil {
			return nil, err
		}
		command = []string{exe, WorkerArg}
	}
	precompilers := o.Precompilers
	if precompilers == 0 {
		precompilers = DefaultPrecompilers()
	}
	var specData string
	if o.SpecData != nil {
		// The workers parse the same text; the file outlives them (deferred before
		// the supervisors' stop).
		if specData, err = writeSpecData(o.SpecData); err != nil {
			return nil, err
		}
		defer os.Remove(specData)
	}
	// One supervisor per device, its workers pinned to it. The first device's
	// pre-compilers compile for every device (worker.Options.PrecompiledBy): what they
	// compile lands in the compiler's cache, which the identical devices' workers share
	// (PoCL's, keyed by the device's build hash; an NVIDIA driver's, by its architecture;
	// ktune's own for host C and CUDA), so a pre-compiler per device would compile each
	// configuration once per device, or one device's pre-compilers would wait for
	// configurations another's had compiled. Every device's measurement waits for the
	// one pre-compiler compiling its configuration, sets the idle ones to the next hinted
	// configurations, and on a CPU device pauses them while its kernel is timed.
	sups := make([]*worker.Supervisor, len(indices))
	for i, idx := range indices {
		w := Worker{Spec: specPath, SpecData: specData, Backend: backend, Device: idx}
		dlog := log
		if len(indices) > 1 {
			dlog = log.With("device", fmt.Sprintf("%s:%d", backend, idx))
		}
		opts := worker.Options{
			Command:        append(command[:len(command):len(command)], w.Args()...),
			Env:            []string{workerEnv + "=1"},
			Timeout:        s.Timeout,
			CompileTimeout: s.CompileTimeout,
			Precompile:     !o.NoPrecompile && i == 0,
			Precompilers:   precompilers,
			// On a CPU device compiling would slow the timed kernel; a GPU times its own.
			PauseWhileTiming: info.Type != "gpu",
			MemoryLimit:      memoryLimit,
			Log:              dlog,
		}
		if i > 0 {
			opts.PrecompiledBy = sups[0]
		}
		sups[i] = worker.NewSupervisor(opts)
	}
	pool := newDevicePool(limited, sp, backend, indices, sups, log)
	defer pool.close()
	if err := startDevices(limited, sups, backend, indices, infos, o, s, command, timeUp); err != nil {
		return nil, err
	}
	found, err := findOrCreateRun(ctx, log, st, o.DB, want, hash, o.Fresh, peaksOf)
	if err != nil {
		return nil, err
	}
	run, stored, lock := found.info, found.stored, found.lock
	defer lock.Release()
	// A resumed run keeps the peaks it was given before and is not given again: its
	// summary, its stop condition and what it stores are against them.
	o.Peaks = given
	if ops, ok := efficiency.FromSpec(s.Essential); ok {
		if peaks := runPeaks(ops, info, o.Peaks); peaks != nil {
			runSettings[efficiency.SettingsKey] = peaks
			settings, _ = json.Marshal(runSettings)
		}
	}
	storeCtx, stopStoring := afterGrace(ctx, storeGrace)
	defer stopStoring()
	dbf := watchDB(o.DB)
	known := make(map[string]result.Evaluation, len(stored))
	for _, e := range stored {
		known[store.ConfigKey(e.Config)] = e
	}
	// Configurations over a device limit known before compiling are refused without a
	// worker, and cost no budget (free): the run's stored ones as well. The limits are
	// the device's as the worker opened it (under its memory limit, a CPU device has less
	// memory than this process sees), or as this process sees it when no worker said.
	limits := info
	if wi, ok := sups[0].DeviceInfo(); ok {
		limits = wi
	}
	ev := &resumingEvaluator{inner: pool, sp: sp, known: known, launch: launchOf(s), budget: o.Budget, stored: len(stored), measured: map[string]bool{},
		rng: rand.New(rand.NewPCG(o.Seed, 0x5ea3c4)), ctx: limited, log: log,
		stackNote: info.Backend == "opencl" && info.Type == "cpu",
		overLimit: overLimitOf(s, limits), excluded: map[string]bool{}}
	ev.resumeExcluded(stored)
	resumed := ev.runEvaluations() // those that count against the budget

	sink := &storeSink{ctx: storeCtx, st: st, log: log, run: run.ID, known: known, maximize: maximize,
		check: func() error { return errors.Join(dbf.check(), lock.Check()) }}
	ev.sink = sink
	// The stop conditions of the caller's: they read the run's evaluations as the sink sees
	// them, the stored ones included, not the session's, which sees only those its strategy
	// asks for.
	var stops []tuning.StopCondition
	if threshold != nil {
		sink.watch = threshold.Watch(objective)
		stops = append(stops, sink.watch.Stop)
	}
	if o.Target != nil {
		stops = append(stops, sink.target(*o.Target, objective))
	}
	for _, e := range stored {
		sink.consider(e) // progress shows the run's best from the first line on
	}
	// A resumed run whose stored evaluations meet a stop condition already is over; the
	// budget is the run's: one that has used it up measures nothing more either. Both stay
	// interrupted, so that the same command with a larger budget or a stricter condition
	// resumes it.
	var reached tuning.StopReason
	for _, stop := range stops {
		if reached = stop(tuning.State{}); reached != "" {
			break
		}
	}
	spent := reached == "" && o.Budget > 0 && resumed >= o.Budget
	idle := spent || reached != "" // nothing to measure
	if !idle && !sameJSON(run.Settings, settings) {
		// a resumed run goes on under this command's budget and time limit, which its
		// report states; a spent budget measures nothing, and changes nothing
		if err := st.SetRunSettings(ctx, run.ID, settings); err != nil {
			finishRun(ctx, storeCtx, log, st, run.ID, store.StatusInterrupted)
			return nil, err
		}
	}
	if o.Started != nil {
		o.Started(RunStart{ID: run.ID, Resumed: resumed, Spent: spent, Reached: reached, Stale: found.stale})
	}
	ev.resumeFailures(stored)

	// The baseline: the spec's default configuration, measured (or found) before the search.
	// nil when it was cut short by the time limit, and so not measured: nothing is stored
	// for it, and the session, whose clock started with Tune's, stops at once.
	baseline := func(dc space.Config) (*result.Evaluation, error) {
		e, err := ev.Evaluate(limited, dc)
		if timeUp(err, "") != nil {
			log.Info("the time limit passed while the default configuration was measured: no baseline", "limit", o.TimeLimit)
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		if e.Config == nil {
			e.Config = sp.Values(dc)
		}
		if err := sink.Record(ctx, e); err != nil {
			return nil, err
		}
		known[store.ConfigKey(e.Config)] = e
		return &e, nil
	}
	var defaultEval *result.Evaluation
	if s.Default != nil {
		if dc, err := sp.ConfigOf(s.Default); err == nil && sp.Contains(dc) {
			// a spent budget, or a condition met, measures nothing, not even the baseline
			if _, ok := known[store.ConfigKey(sp.Values(dc))]; ok || !idle {
				if defaultEval, err = baseline(dc); err != nil {
					finishRun(ctx, storeCtx, log, st, run.ID, store.StatusInterrupted)
					return nil, machineFault(err, info)
				}
			}
		} else {
			log.Warn("default_config is not a valid configuration of the space; no baseline", "spec", specPath)
		}
	}

	warnLengthsThatVary(log, s)

	strat, err := strategy.New(name, stOpts)
	if err != nil {
		return nil, err
	}
	topts := tuning.Options{Budget: o.Budget, TimeLimit: o.TimeLimit, Since: began, Maximize: maximize, Seed: o.Seed, Sink: sink,
		Logger: log, Stop: append(stops, ev.sameFailure, ev.runBudget), Free: ev.free}
	if defaultEval != nil {
		// the baseline is one of the budget's evaluations, whichever the strategy
		topts.Measured = []result.Evaluation{*defaultEval}
	}
	if o.Progress != nil {
		p := Progress{Run: run.ID, Resumed: resumed, Total: o.Budget, Started: time.Now(), Objective: objective}
		if o.TimeLimit > 0 {
			p.Deadline = began.Add(o.TimeLimit) // the run stops then, whatever the budget says
		}
		if p.Total == 0 || p.Total > sp.Len() {
			p.Total = sp.Len()
		}
		topts.Progress = func(tuning.Progress) {
			// the run's count, not the session's: a resumed run's strategy asks again for
			// the configurations the store answers
			p.Evaluations = ev.runEvaluations()
			p.Best, p.BestConfig = math.NaN(), Config{}
			if b := sink.best; b != nil {
				p.Best = b.Objective
				if c, err := sp.ConfigOf(b.Config); err == nil {
					p.BestConfig = configOf(sp, c)
				}
			}
			o.Progress(p)
		}
	}
	sum := tuning.Summary{Strategy: strat.Name(), Seed: o.Seed, Stop: StopBudgetSpent}
	if reached != "" {
		sum.Stop = reached + StopReachedBefore
	}
	var runErr error
	if !idle {
		sess, err := tuning.New(sp, strat, ev, topts)
		if err != nil {
			return nil, err
		}
		sum, runErr = sess.Run(ctx)
	}
	status := store.StatusFinished
	if runErr != nil || idle {
		status = store.StatusInterrupted
	}
	finishErr := finishRun(ctx, storeCtx, log, st, run.ID, status)
	// stopped before the report reads what its workers did: a measurement ahead that no
	// ask took is still running when the session ends
	dropped := pool.close()
	rep := buildReport(sp, s, run.ID, o.DB, backend, info, sum, ev.measured, defaultEval, stored, ev.probes, pool.crashes(), ev.free)
	if len(pool.devs) > 1 {
		for _, d := range pool.devs {
			rep.Devices = append(rep.Devices, DeviceShare{Device: d.name, Index: d.index, Measured: d.measured, Ahead: d.ahead})
		}
		rep.DroppedAhead = dropped
		if dropped > 0 {
			log.Info("configurations measured ahead on an idle device were never asked for: not stored, no budget spent", "count", dropped)
		}
	}
	rep.StrategyOptions = stOpts
	rep.StopCondition = stopCondition(sum.Stop, o, rep, sink, objective)
	if ops, ok := efficiency.FromSpec(s.Essential); ok {
		best := math.NaN()
		if rep.BestTimeMS != nil {
			best = *rep.BestTimeMS
		}
		sum := efficiency.Summarize(ops, info.Peak, o.Peaks, best)
		rep.Efficiency = &sum
	}
	if err := dbf.check(); err != nil && !errors.Is(runErr, ErrDatabaseLost) {
		runErr = err // whatever else ended the run: what it stored is lost
	}
	switch {
	case finishErr != nil && runErr != nil:
		// what ended the run is the cause (a full disk fails both): it comes first, and the
		// report still says what was stored
		runErr = fmt.Errorf("%w; recording how run %d ended failed too: %w", runErr, run.ID, finishErr)
	case finishErr != nil:
		runErr = finishErr
	}
	if runErr != nil {
		return rep, machineFault(runErr, info)
	}
	// whatever ended the run (the budget, the time limit, failures alike): nothing to use
	if rep.BestObjective == nil {
		return rep, fmt.Errorf("%w in run %d", ErrNothingSucceeded, run.ID)
	}
	return rep, nil
}

// runPeaks are the peaks a run of a spec with essential operations ops stores (its
// settings' efficiency.SettingsKey): those given, else those the device's backend
// derived, each with where it came from; nil when there are none, or the spec excludes
// the kernel from efficiency.
func runPeaks(ops efficiency.Ops, info device.Info, given efficiency.Given) *efficiency.Stored {
	if ops.Excluded != "" {
		return nil
	}
	return efficiency.Resolve(info.Peak, ops.Precision, given).ToStore()
}

// givenOnly is g without the peaks a backend derived: a resumed run's derived peaks are
// its device's now.
func givenOnly(g efficiency.Given) efficiency.Given {
	if g.GFLOPSSource.From == efficiency.FromDerived {
		g.GFLOPS, g.GFLOPSSource = 0, efficiency.Source{}
	}
	if g.GBsSource.From == efficiency.FromDerived {
		g.GBs, g.GBsSource = 0, efficiency.Source{}
	}
	return g
}

// noRunToResume tells that o resumes no stored run, whatever the store holds: it starts
// a new one (Fresh), or its SQLite file does not exist yet, so that nothing need be
// created in it to know.
func noRunToResume(o Options) bool {
	if o.Fresh {
		return true
	}
	if o.Store != nil || o.DB == "" || store.Scheme(o.DB) != store.DefaultScheme || strings.HasPrefix(strings.ToLower(o.DB), store.DefaultScheme+":") {
		return false
	}
	_, err := os.Stat(o.DB)
	return errors.Is(err, os.ErrNotExist)
}

// peakThreshold is Options.WithinPeak's threshold for spec s on the device info, against
// the peaks given (the command's, and those of the run it resumes, resume; nil: none) or
// derived; its errors say which option to give.
func peakThreshold(s *spec.Spec, info device.Info, o Options, given efficiency.Given, resume *store.RunInfo) (*efficiency.Threshold, error) {
	what := fmt.Sprintf("stop within %s%% of the device's peak (--stop-within-peak %v)", strconv.FormatFloat(100*o.WithinPeak, 'g', 4, 64), o.WithinPeak)
	ops, ok := efficiency.FromSpec(s.Essential)
	if !ok {
		return nil, fmt.Errorf("%s: the spec declares no essential_ops (the bytes and flops its task essentially needs, seed 003's Table 4: 'ktune help spec'), from which efficiency against the peak is computed; declare them, or stop at an objective value instead (--stop-at)", what)
	}
	t, err := efficiency.NewThreshold(ops, efficiency.Resolve(info.Peak, ops.Precision, given), o.WithinPeak)
	if errors.As(err, new(*efficiency.MissingPeakError)) && resume != nil {
		// the peaks a run stored are used where the command gives none: say that they
		// were looked for
		what += fmt.Sprintf(", resuming run %d, which stored none of the peaks missing", resume.ID)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return &t, nil
}

// startDevices starts every device's measuring worker at once (startDevice), so that a run
// on several devices waits for the slowest start-up rather than for each in turn. The
// first to fail stops the others, whose errors, of that stop, are dropped; its error names
// its device when there are several.
func startDevices(limited context.Context, sups []*worker.Supervisor, backend string, indices []int, infos []device.Info,
	o Options, s *spec.Spec, command []string, timeUp func(error, string) error) error {
	if len(sups) == 1 {
		return startDevice(limited, sups[0], o, s, command, infos[0], timeUp)
	}
	ctx, stop := context.WithCancel(limited)
	defer stop()
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	for i, sup := range sups {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := startDevice(ctx, sup, o, s, command, infos[i], timeUp)
			if err == nil {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if first == nil {
				first = fmt.Errorf("device %s:%d: %w", backend, indices[i], err)
				stop()
			}
		}()
	}
	wg.Wait()
	return first
}

// startDevice starts a device's measuring worker, which checks the spec's arguments
// against the kernel's parameters, and has it compute the reference outputs when the spec
// verifies; timeUp says when the time limit (in limited) ended either.
func startDevice(limited context.Context, sup *worker.Supervisor, o Options, s *spec.Spec, command []string, info device.Info,
	timeUp func(error, string) error) error {
	// Arguments that differ from the kernel's parameters would fail every configuration,
	// or let each compute garbage from reinterpreted bytes: they are a spec error.
	if err := sup.Check(limited); err != nil {
		if err := timeUp(err, "the worker started and checked the arguments"); err != nil {
			return err
		}
		if errors.Is(err, worker.ErrArguments) {
			return fmt.Errorf("%w\nFix the spec's arguments (or the kernel's parameter list); nothing was measured", err)
		}
		if slices.Contains(command, WorkerArg) && errors.Is(err, worker.ErrCommandRefused) {
			// the program parsed its flags, WorkerArg among them, before WorkerMain could
			// see it: a test binary without a TestMain that calls it, a main that parses
			// flags first
			return fmt.Errorf("%w\nThe worker processes are this program started with %s: call tuner.WorkerMain first thing in main (in a test, in TestMain before m.Run), before anything parses flags, or set Options.WorkerCommand; nothing was measured", err, WorkerArg)
		}
		return machineFault(err, info)
	}
	// A reference that cannot be computed would fail every configuration's verification
	// (and a crashing one would be blamed on each configuration in turn): stop before the
	// run starts and spends its budget.
	if s.Verification != nil {
		if err := sup.Reference(limited); err != nil {
			if err := timeUp(err, "the reference outputs were computed"); err != nil {
				return err
			}
			if errors.Is(err, worker.ErrReference) && worker.OutOfMemory(err) {
				return fmt.Errorf("%s: verification: %w\nGive the workers more memory if the reference needs it, or lower what it needs (the spec's array sizes); nothing was measured", o.SpecPath, err)
			}
			if ferr := functionFailure(o.SpecPath, err); errors.Is(err, worker.ErrReference) && ferr != nil {
				return ferr
			}
			if errors.Is(err, worker.ErrReference) {
				return fmt.Errorf("%s: verification: %w\nFix the reference (verification.reference: its kernel, config or .npy files) or the kernel at the reference configuration; nothing was measured", o.SpecPath, err)
			}
			return machineFault(err, info)
		}
	}
	return nil
}

// machineFault adds to an error of the machine (worker.ErrEnvironment) the folder where
// the device writes what it compiles, where the error does not name it: a runtime that
// died of a full disk (PoCL) does not say where it wrote.
func machineFault(err error, info device.Info) error {
	dir := info.Extra["cache_dir"]
	if !errors.Is(err, worker.ErrEnvironment) || dir == "" || strings.Contains(err.Error(), dir) {
		return err
	}
	return fmt.Errorf("%w (the %s device writes what it compiles in %s)", err, info.Backend, dir)
}

// finishRun records how the run ended, in storeCtx (afterGrace of ctx). A cancelled run
// whose status cannot be written (another process holds the database's write lock) is
// left as it is, with a warning: its status reads as interrupted once no process holds it
// (RunHeld), and the next tuning of it records that.
func finishRun(ctx, storeCtx context.Context, log *slog.Logger, st store.Store, run int64, status store.RunStatus) error {
	err := st.FinishRun(storeCtx, run, status)
	if err != nil && ctx.Err() != nil {
		log.Warn("interrupted while another process held the database's write lock: the run stays recorded as running, and reads as interrupted once this process ends",
			"run", run, "error", err)
		return nil
	}
	return err
}

// warnLengthsThatVary warns of outputs whose length reads a tunable parameter while they
// are verified: only the configurations whose length equals the reference's can verify, so
// the best is found among those alone.
func warnLengthsThatVary(log *slog.Logger, s *spec.Spec) {
	if s.Verification == nil {
		return
	}
	tunable := map[string]bool{}
	for _, p := range s.Parameters {
		tunable[p.Name] = true
	}
	for i, a := range s.Arguments {
		if !a.Output {
			continue
		}
		var reads []string
		for _, n := range s.LengthReads(i) {
			if tunable[n] {
				reads = append(reads, n)
			}
		}
		if len(reads) > 0 {
			log.Warn(fmt.Sprintf("output %s: its length, %s, reads tunable parameter%s %s; only configurations whose length equals the reference's verify, so the best is found among those alone",
				a.Name, a.Length, map[bool]string{true: "s"}[len(reads) > 1], strings.Join(reads, ", ")))
		}
	}
}
