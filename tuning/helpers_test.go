package tuning_test

import (
	"context"
	"os"
	"sync"
	"testing"

	"github.com/ktune/ktune/format/kerneltuner"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/simulator"
	"github.com/ktune/ktune/strategy"
	"github.com/ktune/ktune/tuning"
)

// Recorded spaces from benchmark_hub (Kernel Tuner caches, exhaustively measured).
const (
	// pnpoly on an RTX 2080 Ti: 4,092 configurations (the full product), 358 failed at run time.
	pnpolyPath = "../testdata/benchmark_hub/kerneltuner_pnpoly/RTX_2080_Ti.json.gz"
	// 2D convolution on an A100: 4,362 recorded of a 10,240 product, 161 failed.
	convolutionPath = "../testdata/benchmark_hub/convolution_milo/A100.json.gz"
)

var (
	recordingsMu sync.Mutex
	recordings   = map[string]*result.Recording{}
)

// recording reads a Kernel Tuner cache once per test binary; tests share it read-only.
func recording(tb testing.TB, path string) *result.Recording {
	tb.Helper()
	recordingsMu.Lock()
	defer recordingsMu.Unlock()
	if rec, ok := recordings[path]; ok {
		return rec
	}
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	rec, err := kerneltuner.Read(f, path)
	if err != nil {
		tb.Fatal(err)
	}
	recordings[path] = rec
	return rec
}

func newSim(tb testing.TB, path string, opts simulator.Options) *simulator.Simulator {
	tb.Helper()
	sim, err := simulator.New(recording(tb, path), opts)
	if err != nil {
		tb.Fatal(err)
	}
	return sim
}

func newStrategy(tb testing.TB, name string) strategy.Strategy {
	tb.Helper()
	st, err := strategy.New(name, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return st
}

// simulate runs one session of a registered strategy on a simulator.
func simulate(tb testing.TB, sim *simulator.Simulator, name string, opts tuning.Options) tuning.Summary {
	tb.Helper()
	opts.Maximize = sim.Maximize()
	s, err := tuning.New(sim.Space(), newStrategy(tb, name), sim, opts)
	if err != nil {
		tb.Fatal(err)
	}
	sum, err := s.Run(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	return sum
}

// strategyFunc makes a strategy of a function, for tests that script what a strategy asks.
type strategyFunc func(ctx context.Context, p strategy.Problem) error

func (strategyFunc) Name() string                                        { return "scripted" }
func (f strategyFunc) Run(ctx context.Context, p strategy.Problem) error { return f(ctx, p) }

// sinkFunc adapts a function to tuning.Sink.
type sinkFunc func(ctx context.Context, e result.Evaluation) error

func (f sinkFunc) Record(ctx context.Context, e result.Evaluation) error { return f(ctx, e) }
