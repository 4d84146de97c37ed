// Package worker runs device work in a supervised child process, so that a kernel that
// crashes its process (a segfault in C, a crash inside an OpenCL runtime, an illegal address
// in CUDA) or hangs costs one configuration, not the tuning run.
//
// The parent (Supervisor) starts the child with a command line it is given (normally
// `ktune worker ...`), sends it configurations and receives evaluations over two pipes
// (file descriptors 3 and 4 in the child), so whatever the kernel prints on stdout or
// stderr cannot corrupt the protocol. A child that dies or runs past its time limit is
// killed, the configuration gets the status runtime_error or timeout, and a fresh child
// serves the next one. Other children may compile upcoming configurations ahead of time
// (a pipeline); on CPU devices they are paused while a kernel is being timed, so they never
// disturb timing. A child whose parent dies exits by itself. Each child has a process group
// of its own, killed whole when the child dies or is killed: the compilers it started and
// the programs its kernel ran die with it, and one that escaped the group (a daemon) is not
// waited for, though it holds the child's output open.
package worker

import (
	"time"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/result"
)

// Operations a parent asks of a child.
const (
	opEvaluate  = "evaluate"
	opCompile   = "compile"
	opReference = "reference"
	opCheck     = "check"
	// opProceed answers a child's phaseTiming when its request asked it to wait
	// (AwaitTiming): the pre-compilers are stopped and the timed runs may start.
	opProceed = "proceed"
)

// Phases a child reports.
const (
	phaseReady    = "ready"    // the child loaded its spec and opened its device
	phaseCompiled = "compiled" // compilation is over; the kernel is about to run
	phaseTiming   = "timing"   // the timed runs start: the device must be left alone
	phaseDone     = "done"     // the evaluation is complete
	// phaseGuards carries, in Err, the guard map of the arrays the next launch uses
	// (runner.ReportGuards): sent when it changes, kept by the parent for crash messages.
	phaseGuards = "guards"
	// phaseRunning starts a phase that names what runs from now on, when it is not the
	// kernel (runner.RunningPrefix): "running: the verification function check
	// (check.c)". A crash or a hang is blamed on it until the next such phase, or
	// phaseCompiled or phaseTiming, gives the blame back to the kernel.
	phaseRunning = "running: "
)

type request struct {
	ID     uint64
	Op     string
	Config []int
	// AwaitTiming has the child of an evaluation wait, after it reports phaseTiming, for
	// the parent's opProceed before its timed runs: the parent stops the pre-compilers
	// first, so that no timed run shares the CPU with a compiler.
	AwaitTiming bool
}

type response struct {
	ID    uint64
	Phase string
	Eval  wireEval
	Err   string // set when the child cannot serve at all (phaseReady) or broke on this request
	// Fault is set when the request failed for the machine's sake, not the
	// configuration's (a full compile cache): the answer is no result (ErrEnvironment).
	Fault string
	// Retire is set with the last answer of a child whose device context is lost (a CUDA
	// fault poisons it for the process): the child exits after it, and the parent starts a
	// fresh one for the next configuration.
	Retire string
	// Info is the device as the child opened it, with phaseReady, from a measurer that
	// describes it (Describer): under the child's memory limit it may have less memory
	// than the parent sees.
	Info *device.Info
}

// wireEval is result.Evaluation without the configuration values, which the parent knows.
type wireEval struct {
	Status                                    uint8
	Objective                                 float64
	Samples                                   []float64
	Metrics                                   map[string]float64
	CompileMS, VerifyMS, BenchmarkMS, FrameMS float64
	Message                                   string
	Warnings                                  string
	RunsPerSample                             int
	Time                                      int64
}

func toWire(e result.Evaluation) wireEval {
	w := wireEval{Status: uint8(e.Status), Objective: e.Objective, Samples: e.Samples, Metrics: e.Metrics,
		CompileMS: e.CompileMS, VerifyMS: e.VerifyMS, BenchmarkMS: e.BenchmarkMS, FrameMS: e.FrameworkMS, Message: e.Message,
		Warnings: e.Warnings, RunsPerSample: e.RunsPerSample}
	if !e.Time.IsZero() {
		w.Time = e.Time.UnixNano()
	}
	return w
}

func (w wireEval) evaluation() result.Evaluation {
	e := result.Evaluation{Status: result.Status(w.Status), Objective: w.Objective, Samples: w.Samples, Metrics: w.Metrics,
		CompileMS: w.CompileMS, VerifyMS: w.VerifyMS, BenchmarkMS: w.BenchmarkMS, FrameworkMS: w.FrameMS, Message: w.Message,
		Warnings: w.Warnings, RunsPerSample: w.RunsPerSample}
	if w.Time != 0 {
		e.Time = time.Unix(0, w.Time)
	}
	return e
}
