package tuner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/store"
)

// writeSpec writes files (name to text) into a fresh folder and returns the path of the
// one named spec.
func writeSpec(t *testing.T, spec string, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, spec)
}

// byConfig is a run's stored evaluations by their configurations' keys.
func byConfig(t *testing.T, db string, run int64) map[string]result.Evaluation {
	t.Helper()
	out := map[string]result.Evaluation{}
	for _, e := range storedEvaluations(t, db, run) {
		out[store.ConfigKey(e.Config)] = e
	}
	return out
}

// A compilation that hung in a pre-compiler is stored with the time it spent compiling,
// the compile limit, as one that hung in the measuring worker is. It was stored with the
// time the measuring worker waited for the pre-compiler: none when the pre-compiler had
// given up before the configuration's turn came, as here, where the configuration measured
// while it was compiled ahead spends 3 s in its first run (which does not pause the
// pre-compilers).
func TestACompilationThatHungAheadIsStoredWithItsCompileTime(t *testing.T) {
	needBackend(t, "c")
	kernel := `#include <unistd.h>
#if mode == 1
#include "never.h"
#endif
static int launches;
void fill(float *y, int n) {
	if (mode == 0 && launches++ == 0)
		sleep(3);
	for (int i = 0; i < n; i++) y[i] = i;
}
`
	spec := `kernel: {name: fill, source: fill.c}
parameters:
  - {name: mode, values: [0, 1, 2]}
problem_size: [64]
arguments:
  - {name: y, type: float32, length: 64, output: true}
  - {name: n, type: int32, value: 64}
iterations: 1
compile_timeout: 1s
`
	path := writeSpec(t, "fill.yaml", map[string]string{"fill.c": kernel, "fill.yaml": spec})
	// the compiler waits for ever on an #include of a named pipe that no one writes
	if err := syscall.Mkfifo(filepath.Join(filepath.Dir(path), "never.h"), 0o600); err != nil {
		t.Skipf("no named pipe: %v", err)
	}
	db := filepath.Join(t.TempDir(), "k.db")
	rep, err := Tune(context.Background(), Options{SpecPath: path, Device: "c", Strategy: "bruteforce", DB: db, Precompilers: 1})
	if err != nil {
		t.Fatal(err)
	}
	evals := byConfig(t, db, rep.Run)
	for _, ok := range []string{"0", "2"} {
		if e := evals[ok]; e.Status != result.OK {
			t.Fatalf("mode %s: %v %q", ok, e.Status, e.Message)
		}
	}
	// it hung in the pre-compiler alone: the measuring worker was never replaced
	e := evals["1"]
	if e.Status != result.Timeout || !strings.Contains(e.Message, "compile_timeout") || rep.WorkerRestarts != 0 {
		t.Fatalf("mode 1: %v %q, %d worker restarts; want a timeout in the pre-compiler alone", e.Status, e.Message, rep.WorkerRestarts)
	}
	if e.CompileMS < 1000 || e.CompileMS > 10000 || e.BenchmarkMS != 0 {
		t.Errorf("mode 1: compile %v ms, benchmark %v ms; want the compile limit of 1 s as compile time, no kernel time (%s)",
			e.CompileMS, e.BenchmarkMS, e.Message)
	}
}
