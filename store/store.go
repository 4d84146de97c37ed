// Package store is where ktune keeps everything it measures: devices, search spaces, runs
// and every evaluation of every run. Tuning sessions write to it as they go, so a killed
// run resumes without losing or repeating work; analyses, reports and listings ('ktune
// analyze', 'report', 'runs') read from it.
//
// Store is the seam between ktune and a database. The default implementation is SQLite
// (package store/sqlite); a shared server database can implement the same interface and
// register itself with Register, the way database/sql drivers do.
package store

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
)

// Errors that callers test for with errors.Is.
var (
	// ErrNotFound reports a run, space or device id that the store does not hold.
	ErrNotFound = errors.New("not found")
	// ErrNewerSchema reports a database written by a newer ktune, which this one must not
	// modify or misread.
	ErrNewerSchema = errors.New("database schema is newer than this ktune supports")
	// ErrReadOnly reports a write to a database opened read-only, because this process
	// may not write its file or folder; the error says which.
	ErrReadOnly = errors.New("read-only database")
)

// Store holds devices, spaces, runs and their evaluations.
//
// Implementations are safe for concurrent use by multiple goroutines. They are built for
// one writer (the tuning session) alongside any number of readers (analyses, reports);
// concurrent writes are allowed but serialised.
type Store interface {
	// PutDevice records a device, or finds the one already recorded under the same name
	// and backend, and returns its id.
	PutDevice(ctx context.Context, d Device) (int64, error)
	// PutSpace records a space, or finds the identical one (same Space.Hash), and returns
	// its id, so that runs over the same space can be compared.
	PutSpace(ctx context.Context, s Space) (int64, error)
	// Device returns a recorded device.
	Device(ctx context.Context, id int64) (Device, error)
	// Space returns a recorded space.
	Space(ctx context.Context, id int64) (Space, error)

	// CreateRun starts a run over a recorded space and device and returns its id.
	CreateRun(ctx context.Context, run RunInfo) (int64, error)
	// FinishRun records how a run ended and when; StatusRunning reopens a resumed run.
	FinishRun(ctx context.Context, runID int64, status RunStatus) error
	// SetRunSettings replaces a run's settings: a resumed run takes those of the command
	// that resumes it (a larger budget).
	SetRunSettings(ctx context.Context, runID int64, settings json.RawMessage) error
	// Run returns one run.
	Run(ctx context.Context, runID int64) (RunInfo, error)
	// Runs returns the runs that match the filter, oldest first.
	Runs(ctx context.Context, filter RunFilter) ([]RunInfo, error)

	// AddEvaluation appends one evaluation to a run; it is durable when this returns.
	AddEvaluation(ctx context.Context, runID int64, e result.Evaluation) error
	// AddEvaluations appends evaluations to a run all at once or not at all.
	AddEvaluations(ctx context.Context, runID int64, es []result.Evaluation) error
	// Evaluations returns a run's evaluations in the order they were added.
	Evaluations(ctx context.Context, runID int64) ([]result.Evaluation, error)
	// EvaluationsAfter returns a run's evaluations after its first n, in the order they
	// were added: those of Evaluations from n on, read without the first n, so that a
	// reader following a growing run (a live view) pays for what is new. It returns none
	// when the run has n or fewer.
	EvaluationsAfter(ctx context.Context, runID int64, n int) ([]result.Evaluation, error)
	// Tally counts a run's evaluations and those that succeeded, and returns the first
	// best successful one (by the run's direction; ok false when none succeeded), without
	// reading the others back.
	Tally(ctx context.Context, runID int64) (t Tally, err error)
	// Lookup finds the first evaluation of config in a run, so a resumed run need not
	// measure it again.
	Lookup(ctx context.Context, runID int64, config []space.Value) (result.Evaluation, bool, error)

	// ImportRecording stores a recording as a finished run of kind KindImport, all at
	// once or not at all, and returns the run's id. An empty objective is stored as "time".
	ImportRecording(ctx context.Context, rec *result.Recording) (int64, error)
	// ImportRecordingOnce stores a recording as ImportRecording does, unless an import run
	// holds the same recording already (result.Recording.SameAs): then it stores nothing
	// and returns that run, with imported false. Checking and storing are atomic: two
	// processes importing one file at once store it once.
	ImportRecordingOnce(ctx context.Context, rec *result.Recording) (run RunInfo, imported bool, err error)
	// Recording reads a run back as a recording; an imported recording reads back equal
	// to what was imported.
	Recording(ctx context.Context, runID int64) (*result.Recording, error)

	// Close releases the database.
	Close() error
}

// Device is a machine that evaluations ran on.
type Device struct {
	ID         int64           // assigned by the store
	Name       string          // as the platform reports it, e.g. "NVIDIA A100-PCIE-40GB"
	Backend    string          // "cuda", "opencl", "c"; an import's from its file (KTT's compute API), empty when unknown
	Properties json.RawMessage // JSON object: compute capability, clocks, driver...; may be nil
}

// Space is a kernel's tunable parameters and the restrictions on them: what a run searches.
type Space struct {
	ID           int64         // assigned by the store
	Kernel       string        // kernel name
	Params       []space.Param // parameters with their typed values, in the user's order
	Restrictions []string      // restriction expressions, in the user's order
}

// RunKind says where a run's evaluations came from.
type RunKind string

// Run kinds.
const (
	KindTuning     RunKind = "tuning"     // measured on a device
	KindSimulation RunKind = "simulation" // replayed from a recorded space
	KindImport     RunKind = "import"     // read from another tuner's result files
)

// Valid reports whether k is one of the known kinds.
func (k RunKind) Valid() bool {
	return k == KindTuning || k == KindSimulation || k == KindImport
}

// RunStatus says whether a run is still going and, if not, how it ended.
type RunStatus string

// Run statuses. A run whose process was killed stays StatusRunning until resumed.
const (
	StatusRunning     RunStatus = "running"
	StatusFinished    RunStatus = "finished"
	StatusInterrupted RunStatus = "interrupted"
)

// Valid reports whether s is one of the known statuses.
func (s RunStatus) Valid() bool {
	return s == StatusRunning || s == StatusFinished || s == StatusInterrupted
}

// RunInfo describes a run: one search of one space on one device.
type RunInfo struct {
	ID              int64           // assigned by CreateRun
	SpaceID         int64           // from PutSpace
	DeviceID        int64           // from PutDevice
	Kind            RunKind         // required
	Strategy        string          // strategy name; empty for imports
	StrategyOptions json.RawMessage // JSON object of the strategy's hyperparameters; may be nil
	Seed            uint64          // the seed that reproduces the run
	Objective       string          // objective name; "time" when empty
	Maximize        bool            // whether larger objective values are better
	ProblemSize     string          // problem size as the kernel's spec or producer wrote it
	Started         time.Time       // CreateRun uses the current time when zero
	Finished        time.Time       // zero while running
	Status          RunStatus       // CreateRun uses StatusRunning when empty
	Source          string          // the file an import was read from
	Format          string          // the format an import was read from ("kerneltuner", "t4"...)
	Settings        json.RawMessage // JSON object: budget, backend options, anything else; may be nil
	Warnings        []string        // problems noticed while producing the run that did not stop it

	// Filled in when reading; ignored by CreateRun.
	Kernel      string // the space's kernel name
	Device      string // the device's name
	Backend     string // the device's backend
	Evaluations int    // number of evaluations stored
}

// RunFilter selects runs; zero fields match everything.
type RunFilter struct {
	SpaceID  int64
	DeviceID int64
	Kernel   string
	Device   string
	Kind     RunKind
	Status   RunStatus
}

// Tally is what Store.Tally counts of a run.
type Tally struct {
	Evaluations, Succeeded int
	// FoundWrong counts, of Succeeded, the successes of configurations found wrong in the
	// run (a wrong_answer evaluation of the same configuration; result.Recording.FoundWrong),
	// which count nowhere as a success: Succeeded - FoundWrong ran successfully and right.
	FoundWrong int
	Best       result.Evaluation // the first of the best successful ones
	HasBest    bool
}
