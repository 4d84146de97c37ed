package tuner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/store"
	"github.com/ktune/ktune/worker"
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

// modeSpec is the spec of a host C kernel name (name.c) of one parameter, mode, with the
// given number of values (0, 1, ...), writing a 64-float output y of length n = 64, run
// once; extra lines (YAML at the top level) follow. A test's kernel does what mode says.
func modeSpec(name string, modes int, extra string) string {
	values := make([]string, modes)
	for i := range values {
		values[i] = strconv.Itoa(i)
	}
	return "kernel: {name: " + name + ", source: " + name + ".c}\n" +
		"parameters:\n  - {name: mode, values: [" + strings.Join(values, ", ") + "]}\n" +
		"problem_size: [64]\narguments:\n" +
		"  - {name: y, type: float32, length: 64, output: true}\n" +
		"  - {name: n, type: int32, value: 64}\n" +
		"iterations: 1\n" + extra
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
// while it was compiled ahead spends 8 s in its first run (which does not pause the
// pre-compilers). The compile limit is 4 s: at 1 s a loaded machine (a load of 12-20 on 2
// cores) killed the healthy configurations' compilers too, and nothing succeeded.
func TestACompilationThatHungAheadIsStoredWithItsCompileTime(t *testing.T) {
	needBackend(t, "c")
	kernel := `#include <unistd.h>
#if mode == 1
#include "never.h"
#endif
static int launches;
void fill(float *y, int n) {
	if (mode == 0 && launches++ == 0)
		sleep(8);
	for (int i = 0; i < n; i++) y[i] = i;
}
`
	spec := modeSpec("fill", 3, "compile_timeout: 4s\ntimeout: 60s\n")
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
	if e.CompileMS < 4000 || e.CompileMS > 40000 || e.BenchmarkMS != 0 {
		t.Errorf("mode 1: compile %v ms, benchmark %v ms; want the compile limit of 4 s as compile time, no kernel time (%s)",
			e.CompileMS, e.BenchmarkMS, e.Message)
	}
}

// A host C kernel whose allocation passes the workers' memory limit fails alone, as that
// configuration's runtime error, stored with its times; the message says it ran out of
// the limit, whether the kernel wrote through the NULL that malloc returned or said so and
// aborted, and the configurations after it run. Nothing large is ever touched: a kernel
// whose 4 GiB malloc succeeds (no limit) frees it at once and passes.
func TestAnAllocationPastTheWorkersMemoryLimitFailsItsConfigurationAlone(t *testing.T) {
	needBackend(t, "c")
	kernel := `#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
void hog(float *y, int n) {
	if (mode == 1 || mode == 2) {
		size_t big = (size_t)4 << 30;
		char *p = malloc(big);
		if (p != NULL) {
			free(p);
			y[0] = -1;
			return;
		}
		if (mode == 2) {
			fprintf(stderr, "hog: %s\n", strerror(errno));
			abort();
		}
		__asm__ volatile("" : "+r"(p)); // the compiler must not know p is NULL
		memset(p, 1, big);
	}
	for (int i = 0; i < n; i++) y[i] = i;
}
`
	spec := modeSpec("hog", 4, "")
	path := writeSpec(t, "hog.yaml", map[string]string{"hog.c": kernel, "hog.yaml": spec})
	db := filepath.Join(t.TempDir(), "k.db")
	rep, err := Tune(context.Background(), Options{SpecPath: path, Device: "c", Strategy: "bruteforce", DB: db, WorkerMemory: 512 << 20})
	if err != nil {
		t.Fatal(err)
	}
	more := "a worker's memory is limited to 512.0 MiB (--worker-memory); give more if the configuration needs it"
	want := map[string]string{
		"1": "the kernel crashed: SIGSEGV (segmentation fault), touching memory at a null pointer; if a failed allocation returned that pointer, it ran out of memory: " + more,
		"2": "the kernel crashed: SIGABRT (aborted), after printing: hog: Cannot allocate memory; it ran out of memory: " + more,
	}
	evals := byConfig(t, db, rep.Run)
	for _, mode := range []string{"0", "1", "2", "3"} {
		e, ok := evals[mode]
		switch {
		case !ok:
			t.Errorf("mode %s: not stored", mode)
		case want[mode] == "" && e.Status != result.OK:
			t.Errorf("mode %s: %v %q, want ok", mode, e.Status, e.Message)
		case want[mode] != "" && (e.Status != result.RuntimeError || e.Message != want[mode]):
			t.Errorf("mode %s: %v %q, want a runtime error %q", mode, e.Status, e.Message, want[mode])
		case want[mode] != "" && (e.CompileMS <= 0 || e.BenchmarkMS < 0 || !math.IsNaN(e.Objective)):
			t.Errorf("mode %s: compile %v ms, benchmark %v ms, objective %v; want the times a crash has", mode, e.CompileMS, e.BenchmarkMS, e.Objective)
		}
	}
}

// A reference that runs out of memory under the workers' memory limit stops the command
// before anything is measured, as any failing reference does, but says to give the
// workers more memory rather than to fix the reference (QA: "Fix the reference" after a
// std::bad_alloc under --worker-memory 256MiB).
func TestAReferenceOutOfMemorySaysToGiveMore(t *testing.T) {
	needBackend(t, "c")
	kernel := `#include <stdio.h>
#include <stdlib.h>
void hog(float *y, int n) {
	if (mode == 1) {
		size_t big = (size_t)4 << 30;
		char *p = malloc(big);
		if (p == NULL) {
			perror("hog");
			abort();
		}
		free(p);
	}
	for (int i = 0; i < n; i++) y[i] = i;
}
`
	spec := modeSpec("hog", 2, "verification:\n  reference: {config: {mode: 1}}\n")
	path := writeSpec(t, "hog.yaml", map[string]string{"hog.c": kernel, "hog.yaml": spec})
	db := filepath.Join(t.TempDir(), "k.db")
	_, err := Tune(context.Background(), Options{SpecPath: path, Device: "c", Strategy: "bruteforce", DB: db, WorkerMemory: 512 << 20})
	if err == nil || !errors.Is(err, worker.ErrReference) || !strings.Contains(err.Error(), "hog: Cannot allocate memory; it ran out of memory") ||
		!strings.Contains(err.Error(), "Give the workers more memory if the reference needs it") || strings.Contains(err.Error(), "Fix the reference") {
		t.Errorf("got %v; want a reference error that says to give the workers more memory, not to fix the reference", err)
	}
}

// A worker killed by a SIGKILL that ktune did not send, as the out-of-memory killer
// kills, is stored as that configuration's runtime error, saying so and what to do about
// the workers' memory limit (by default half the machine's on a CPU device); the
// configurations after it run.
func TestAWorkerKilledFromOutsideIsItsConfigurationsFailure(t *testing.T) {
	needBackend(t, "c")
	kernel := `#include <signal.h>
#include <unistd.h>
void die(float *y, int n) {
	if (mode == 1)
		kill(getpid(), SIGKILL);
	for (int i = 0; i < n; i++) y[i] = i;
}
`
	spec := modeSpec("die", 3, "")
	limit := worker.DefaultMemoryLimit()
	if limit == 0 {
		t.Skip("the machine's memory is unknown: no default limit")
	}
	path := writeSpec(t, "die.yaml", map[string]string{"die.c": kernel, "die.yaml": spec})
	db := filepath.Join(t.TempDir(), "k.db")
	rep, err := Tune(context.Background(), Options{SpecPath: path, Device: "c", Strategy: "bruteforce", DB: db})
	if err != nil {
		t.Fatal(err)
	}
	evals := byConfig(t, db, rep.Run)
	want := "the kernel was killed by SIGKILL from outside ktune, often the out-of-memory killer; if the machine ran out of memory, lower the workers' memory limit of " +
		space.FormatBytes(limit) + " (--worker-memory), or free memory"
	if e := evals["1"]; e.Status != result.RuntimeError || e.Message != want {
		t.Errorf("mode 1: %v %q, want a runtime error %q", e.Status, e.Message, want)
	}
	for _, mode := range []string{"0", "2"} {
		if e := evals[mode]; e.Status != result.OK {
			t.Errorf("mode %s: %v %q, want ok", mode, e.Status, e.Message)
		}
	}
}

// A device that lives in the worker's memory, PoCL's CPU device or the host's, has no
// larger buffers under the workers' memory limit than the limit allows (PoCL a quarter
// of it, the host all of it): a configuration whose array is larger is a device limit,
// refused before anything is allocated, and costing no budget, as the limit is the
// worker's, which the tuner checks before compiling; the configurations that fit run.
func TestAnArrayPastTheWorkersMemoryLimitIsADeviceLimit(t *testing.T) {
	for _, tc := range []struct {
		backend, source, kernel string
		limit                   int64
	}{
		// 384 MiB arrays: above a quarter of 1 GiB; above 256 MiB
		{"opencl", "big.cl", "__kernel void big(__global float *y, int n) { int i = get_global_id(0); if (i < n) y[i] = i; }\n", 1 << 30},
		{"c", "big.c", "void big(float *y, int n) { for (int i = 0; i < n; i++) y[i] = i; }\n", 256 << 20},
	} {
		t.Run(tc.backend, func(t *testing.T) {
			needBackend(t, tc.backend)
			spec := `kernel: {name: big, source: ` + tc.source + `}
constants: {N: 1048576}
parameters:
  - {name: rep, values: [1, 96]}
problem_size: [N]
arguments:
  - {name: y, type: float32, length: N * rep, output: true}
  - {name: n, type: int32, value: N}
iterations: 1
`
			path := writeSpec(t, "big.yaml", map[string]string{tc.source: tc.kernel, "big.yaml": spec})
			db := filepath.Join(t.TempDir(), "k.db")
			rep, err := Tune(context.Background(), Options{SpecPath: path, Device: tc.backend, Strategy: "bruteforce", DB: db, WorkerMemory: tc.limit})
			if err != nil {
				t.Fatal(err)
			}
			evals := byConfig(t, db, rep.Run)
			if e := evals["1"]; e.Status != result.OK {
				t.Errorf("rep 1: %v %q, want ok", e.Status, e.Message)
			}
			if e := evals["96"]; e.Status != result.DeviceLimit || !strings.Contains(e.Message, "largest buffer") {
				t.Errorf("rep 96: %v %q, want a device limit on the largest buffer", e.Status, e.Message)
			}
			// known before compiling, from the device as the worker opened it: no budget spent
			if rep.DeviceExcluded != 1 || rep.Measured != 1 {
				t.Errorf("%d device limits known before compiling, %d measured; want rep 96's, and rep 1 measured", rep.DeviceExcluded, rep.Measured)
			}
		})
	}
}

// A fresh worker, started after a configuration crashed the last one, computes the
// reference before it measures anything, as the first worker did. When it cannot, another
// fresh worker tries once more; when that fails too, tuning stops with an error that says
// so (worker.ErrReferenceLost), keeping what was measured and storing nothing for the
// configurations after: they were stored as wrong answers, "no reference to verify
// against", blamed for a reference that was never theirs. Once the cause is gone the same
// tuning resumes the run and measures them. Here the reference kernel fails (as it would
// run out of memory) while a marker file, which the crashing configuration leaves, exists:
// once, when it removes the marker as it fails, or always.
func TestAReferenceThatAFreshWorkerCannotComputeStopsTuning(t *testing.T) {
	needBackend(t, "c")
	for _, once := range []bool{true, false} {
		t.Run(map[bool]string{true: "once", false: "always"}[once], func(t *testing.T) {
			dir := t.TempDir()
			marker := filepath.Join(dir, "crashed")
			kernel := fmt.Sprintf(`#include <signal.h>
#include <stdio.h>
void fill(float *y, int n) {
	if (mode == 1) {
		FILE *f = fopen(%q, "w");
		if (f) fclose(f);
		raise(SIGSEGV);
	}
	for (int i = 0; i < n; i++) y[i] = i;
}
`, marker)
			ref := fmt.Sprintf(`#include <stdio.h>
#include <stdlib.h>
void ref(float *y, int n) {
	FILE *f = fopen(%q, "r");
	if (f) {
		fclose(f);
		if (ONCE) remove(%[1]q);
		fprintf(stderr, "ref: no memory left\n");
		abort();
	}
	for (int i = 0; i < n; i++) y[i] = i;
}
`, marker)
			ref = strings.Replace(ref, "ONCE", map[bool]string{true: "1", false: "0"}[once], 1)
			spec := modeSpec("fill", 4, "verification:\n  reference:\n    kernel: {name: ref, source: ref.c}\n")
			path := writeSpec(t, "fill.yaml", map[string]string{"fill.c": kernel, "ref.c": ref, "fill.yaml": spec})
			db := filepath.Join(dir, "k.db")
			o := Options{SpecPath: path, Device: "c", Strategy: "bruteforce", DB: db, NoPrecompile: true}
			rep, err := Tune(context.Background(), o)
			if rep == nil {
				t.Fatalf("no report: %v", err)
			}
			evals := byConfig(t, db, rep.Run)
			if e := evals["1"]; e.Status != result.RuntimeError {
				t.Errorf("mode 1: %v %q, want the runtime error of its crash", e.Status, e.Message)
			}
			for _, e := range evals {
				if e.Status == result.WrongAnswer {
					t.Errorf("%s: stored as a wrong answer: %q", store.ConfigKey(e.Config), e.Message)
				}
			}
			if once {
				if err != nil {
					t.Fatalf("the reference failed once in a fresh worker: %v; want it computed in the next one", err)
				}
				for _, mode := range []string{"0", "2", "3"} {
					if e := evals[mode]; e.Status != result.OK {
						t.Errorf("mode %s: %v %q, want ok", mode, e.Status, e.Message)
					}
				}
				return
			}
			if !errors.Is(err, worker.ErrReferenceLost) || !strings.Contains(err.Error(), "ref: no memory left") {
				t.Fatalf("error %v; want ErrReferenceLost with the reference's failure", err)
			}
			if len(evals) != 2 || evals["0"].Status != result.OK {
				t.Fatalf("stored %v; want mode 0 ok and mode 1's crash, nothing after", keys(storedEvaluations(t, db, rep.Run)))
			}
			if got := runStatus(t, db, rep.Run); got != store.StatusInterrupted {
				t.Errorf("run %d is %s; want interrupted, to be resumed", rep.Run, got)
			}
			// the cause is gone: the same tuning resumes the run and measures the rest
			if err := os.Remove(marker); err != nil {
				t.Fatal(err)
			}
			again, err := Tune(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			if again.Run != rep.Run || again.Resumed != 2 {
				t.Errorf("run %d resumed %d evaluations; want run %d resumed with 2", again.Run, again.Resumed, rep.Run)
			}
			evals = byConfig(t, db, rep.Run)
			for _, mode := range []string{"0", "2", "3"} {
				if e := evals[mode]; e.Status != result.OK {
					t.Errorf("after resuming, mode %s: %v %q, want ok", mode, e.Status, e.Message)
				}
			}
		})
	}
}

// runStatus is the status run has in the database at db.
func runStatus(t *testing.T, db string, run int64) store.RunStatus {
	t.Helper()
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	info, err := st.Run(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	return info.Status
}
