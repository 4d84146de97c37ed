package strategy_test

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/ktune/ktune/format/kerneltuner"
	"github.com/ktune/ktune/simulator"
)

// Recorded spaces are read once per test binary and shared by every test: reading a
// recording costs far more than a simulated run.
var (
	recordedSimsMu sync.Mutex
	recordedSims   = map[string]*simulator.Simulator{}
)

// recordedSim returns the simulator of the Kernel Tuner recording at path in mode.
func recordedSim(tb testing.TB, path string, mode simulator.Mode) *simulator.Simulator {
	tb.Helper()
	return recordedSimWith(tb, path, simulator.Options{Mode: mode})
}

// recordedSimWith returns the simulator of the Kernel Tuner recording at path with opts
// (mode and fitness; the seed is set per run with WithSeed).
func recordedSimWith(tb testing.TB, path string, opts simulator.Options) *simulator.Simulator {
	tb.Helper()
	recordedSimsMu.Lock()
	defer recordedSimsMu.Unlock()
	key := path + "\x00" + opts.Mode.String() + "\x00" + opts.Fitness.String()
	if s, ok := recordedSims[key]; ok {
		return s
	}
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	rec, err := kerneltuner.Read(f, filepath.Base(path))
	if err != nil {
		tb.Fatal(err)
	}
	sim, err := simulator.New(rec, opts)
	if err != nil {
		tb.Fatal(err)
	}
	recordedSims[key] = sim
	return sim
}
