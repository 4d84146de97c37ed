// Package tuner tunes a kernel spec on a real device end to end: the library form of
// 'ktune tune'.
//
// Tune picks the device, checks the options against the spec, opens or resumes the run in
// the results store, computes the reference outputs, measures the spec's default
// configuration and then searches, storing each evaluation the moment it is measured, and
// returns the run's Report (what 'ktune tune' prints; its JSON form is 'ktune tune
// --json'). The same Options resume an interrupted run, measuring only what it lacks (its
// strategy options compared by what they mean, not by how they are spelled:
// strategy.SameOptions); the budget is the run's. A configuration over a limit of the
// device known before compiling (runner.LimitViolation, against the device as a worker
// opened it) is stored as a device_limit without reaching a worker and costs no budget
// (Report.DeviceExcluded), as Kernel Tuner leaves such configurations out of the space;
// a Report's Evaluations are its Resumed, Measured and DeviceExcluded together.
//
// # Worker processes
//
// Device work runs in supervised worker processes (package worker), so that a kernel that
// crashes or hangs costs a process, not the tuning: it is recorded as a runtime error or a
// timeout and the next configuration runs in a fresh process. Tune starts them from the
// running program's own executable, with WorkerArg as the first argument, so a program
// that calls Tune calls WorkerMain first thing in main, and registers the device backends
// it tunes on (they are needed in the worker processes too):
//
//	import _ "github.com/ktune/ktune/device/all"
//
//	func main() {
//		tuner.WorkerMain() // in a worker process: serves, then exits
//		...
//		rep, err := tuner.Tune(ctx, tuner.Options{SpecPath: "kernel.yaml", Budget: 100, DB: "ktune.db"})
//	}
//
// A spec built in memory is given as its text, Options.SpecData, with SpecPath naming it
// and anchoring its relative paths; the workers get the same text.
//
// A test binary is such a program too: a package whose tests call Tune calls WorkerMain
// in its TestMain, before m.Run parses the test flags (a worker that parsed them refuses
// WorkerArg, and Tune says so):
//
//	func TestMain(m *testing.M) {
//		tuner.WorkerMain()
//		os.Exit(m.Run())
//	}
//
// A program whose command line has a place for it (ktune has a hidden 'worker' command)
// sets Options.WorkerCommand instead, parses the Worker's flags there (Worker.DefineFlags)
// and calls Worker.Serve. Each worker process runs in a process group of its own, so a
// Ctrl-C at the terminal reaches only the program, which should cancel Tune's context;
// workers end when the program closes their pipes, also when it dies. A program that
// forgot WorkerMain gets ErrNoWorkerMain from Tune in its workers, not workers of workers.
// Each worker's memory is bounded (Options.WorkerMemory; by default half the machine's
// on a CPU device), so that a configuration that allocates without bound fails alone,
// and workers offer themselves to the out-of-memory killer before the program.
//
// # Several devices
//
// Options.Device may name several devices of one backend ("opencl:0,opencl:1"): one run
// is measured on all of them, each device with a measuring worker process of its own,
// checked and given the reference like the one device's. A strategy asks for one
// configuration at a time and waits for its result, so a second device's work comes from
// what the strategy says it will ask for next (strategy.Hinter: random sampling's and brute
// force's next picks, a population's members, a model's initial design): an idle device
// measures the first such configuration ahead of its ask. The result waits, unstored and
// uncounted, until the strategy asks for that configuration; it is then recorded, stored,
// counted against the budget and told to the strategy as if it had been measured then,
// once. A configuration measured ahead that the strategy never asks for (it changed its
// mind, or the run ended) is dropped (Report.DroppedAhead): no more configurations are
// measured ahead at once than there are devices, nor than the budget has left. A strategy
// that hints nothing (a local search, whose next neighbour depends on this result)
// measures on one device at a time. A crash costs its configuration and its device's
// worker, which is replaced; the time limit and a cancellation stop what is measured
// ahead too. Devices whose names differ are a *DeviceMismatchError, unless
// Options.MixedDevices. The devices' workers start at once, the first to fail stopping
// the run with an error that names it. The run is the first device's (the store's run
// has one device); its settings list the indices ("devices"), Report.Devices says how
// many evaluations each device measured, and each stored evaluation names the device that
// measured it (result.Evaluation.Device, "opencl:1"; on one device too). The first
// device's pre-compilers (Options.Precompilers) compile for every device
// (worker.Options.PrecompiledBy): the identical devices' workers find what they compiled
// in the compiler's cache, and a device's measurement waits for the pre-compiler that is
// compiling its configuration rather than compile it a second time.
//
// # Errors
//
// Options that do not fit are refused before anything is stored: *OptionsError,
// *UnlimitedError, *DeviceError, *DeviceMismatchError, a *spec.Error for the spec. A run that another process
// tunes is a *RunHeldError, and a reference that cannot be computed (or a verification
// function that does not compile) wraps worker.ErrReference. Once the search has begun Tune returns its report even beside an
// error: ctx's error when it was cancelled (the run is left interrupted, to be resumed),
// ErrDatabaseLost when the database file was deleted or replaced meanwhile (checked at
// every evaluation and at the end), or ErrNothingSucceeded when no configuration ran and
// verified successfully. A configuration is never judged without the reference: a fresh
// worker, replacing one that died, computes it first, and when neither it nor another
// fresh worker can, Tune stops with an error wrapping worker.ErrReferenceLost (nothing is
// stored for the configuration, the run is left interrupted, to be resumed). Failures of
// the machine rather than the configuration (a full compile cache) wrap
// worker.ErrEnvironment, and leave the run interrupted too.
package tuner
