// Package recording holds what every store backend does the same way to import a
// result.Recording as a run and to read a run back as one; a backend gives the
// statements, through Writer, and the reads.
package recording

import (
	"context"
	"fmt"
	"time"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/store"
)

// Name names rec in errors: "kerneltuner recording "gemm.json"", or as much of that as
// rec says (a recording a program built has neither format nor source).
func Name(rec *result.Recording) string {
	name := "recording"
	if rec.Format != "" {
		name = rec.Format + " " + name
	}
	if rec.Source != "" {
		name += fmt.Sprintf(" %q", rec.Source)
	}
	return name
}

// Importable refuses a recording that ImportRecording must not store.
func Importable(rec *result.Recording) error {
	if rec == nil {
		return fmt.Errorf("store: import: nil recording")
	}
	if len(rec.Evaluations) == 0 {
		return fmt.Errorf("store: import %s: no evaluations, nothing to import", Name(rec))
	}
	return nil
}

// Writer stores the parts of an import, all inside the import's one transaction.
type Writer interface {
	PutDevice(ctx context.Context, d store.Device) (int64, error)
	PutSpace(ctx context.Context, sp store.Space) (int64, error)
	CreateRun(ctx context.Context, run store.RunInfo) (int64, error)
	// AddEvaluations appends es to a run whose space has width parameters.
	AddEvaluations(ctx context.Context, runID int64, width int, es []result.Evaluation) error
}

// Import stores rec as a finished import run through w and returns its id.
func Import(ctx context.Context, w Writer, rec *result.Recording) (int64, error) {
	deviceID, err := w.PutDevice(ctx, store.Device{Name: rec.Device, Backend: rec.Backend})
	if err != nil {
		return 0, fmt.Errorf("device: %w", err)
	}
	spaceID, err := w.PutSpace(ctx, store.Space{Kernel: rec.Kernel, Params: rec.Params, Restrictions: rec.Restrictions})
	if err != nil {
		return 0, fmt.Errorf("space: %w", err)
	}
	now := time.Now()
	runID, err := w.CreateRun(ctx, store.RunInfo{
		SpaceID: spaceID, DeviceID: deviceID, Kind: store.KindImport,
		Objective: rec.Objective, Maximize: rec.Maximize, ProblemSize: rec.ProblemSize,
		Started: now, Finished: now, Status: store.StatusFinished,
		Source: rec.Source, Format: rec.Format, Warnings: rec.Warnings,
	})
	if err != nil {
		return 0, fmt.Errorf("run: %w", err)
	}
	return runID, w.AddEvaluations(ctx, runID, len(rec.Params), rec.Evaluations)
}

// Of returns run, over space sp and with evaluations es, as a recording. A run without a
// format (ktune's own) has format "ktune"; one without a source has source, which names
// the run in its database.
func Of(run store.RunInfo, sp store.Space, es []result.Evaluation, source string) *result.Recording {
	rec := &result.Recording{
		Format: run.Format, Source: run.Source, Device: run.Device, Backend: run.Backend, Kernel: sp.Kernel,
		ProblemSize: run.ProblemSize, Params: sp.Params, Restrictions: sp.Restrictions,
		Objective: run.Objective, Maximize: run.Maximize, Evaluations: es, Warnings: run.Warnings,
	}
	if rec.Format == "" {
		rec.Format = "ktune"
	}
	if rec.Source == "" {
		rec.Source = source
	}
	return rec
}
