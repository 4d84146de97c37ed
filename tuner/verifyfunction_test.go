package tuner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ktune/ktune/worker"
)

// verifyFunctionFiles writes an OpenCL kernel, y = 2x, wrong by 1 at index 7 where bad
// is 1, and a spec verifying it against itself at bad=0 with check.c, which holds check
// (text); it returns the spec's path.
func verifyFunctionFiles(t *testing.T, dir, check string) string {
	t.Helper()
	files := map[string]string{
		"scale.cl": scaleCL,
		"check.c":  check,
		"scale.yaml": `kernel: {name: scale, source: scale.cl}
parameters:
  - {name: block_size_x, values: [32, 64]}
  - {name: bad, values: [0, 1]}
problem_size: [1000]
arguments:
  - {name: y, type: float32, length: 1000, output: true}
  - {name: x, type: float32, length: 1000, fill: random}
  - {name: n, type: int32, value: 1000}
verification:
  reference: {config: {block_size_x: 32, bad: 0}}
  function: {name: check, source: check.c}
  tolerance: 0.5
iterations: 2
`,
	}
	writeFiles(t, dir, files)
	return filepath.Join(dir, "scale.yaml")
}

const checkFunction = `int check(const float *want, const float *got, long n, double tolerance, char *message, long message_size) {
    for (long i = 0; i < n; i++) {
        float d = got[i] > want[i] ? got[i] - want[i] : want[i] - got[i];
        if (d > tolerance) {
            const char *say = "off beyond the tolerance";
            for (long k = 0; k + 1 < message_size && say[k]; k++) message[k] = say[k];
            return (int)i;
        }
    }
    return 0;
}
`

// An OpenCL run on PoCL is verified by a C function in the worker processes: the right
// configurations pass, the wrong ones fail with the function's own message. The
// function's code is one of the run's inputs: edited, the run is not resumed.
func TestAnOpenCLRunIsVerifiedByACFunction(t *testing.T) {
	needBackend(t, "opencl")
	needBackend(t, "c")
	dir := t.TempDir()
	path := verifyFunctionFiles(t, dir, checkFunction)
	db := filepath.Join(dir, "k.db")
	var start RunStart
	o := Options{SpecPath: path, Device: "opencl", Strategy: "random", Seed: 1, Budget: 4, DB: db, NoPrecompile: true,
		Started: func(r RunStart) { start = r }}
	rep, err := Tune(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Statuses["ok"] != 2 || rep.Statuses["wrong_answer"] != 2 {
		t.Errorf("statuses %v, want 2 ok and 2 wrong_answer", rep.Statuses)
	}
	for _, e := range storedEvaluations(t, db, rep.Run) {
		want := "output y: the verification function check (check.c) returned 7: off beyond the tolerance"
		if bad := e.Config[1].String() == "1"; bad && e.Message != want {
			t.Errorf("bad=1: %v %q, want %q", e.Status, e.Message, want)
		}
	}
	interrupt(t, db, rep.Run)
	if err := os.WriteFile(filepath.Join(dir, "check.c"), []byte("// the same, commented\n"+checkFunction), 0o644); err != nil {
		t.Fatal(err)
	}
	again, err := Tune(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if again.Run == rep.Run || start.Stale == nil || !slices.Equal(start.Stale.Changed, []string{"verification function check (check.c)"}) {
		t.Errorf("with the function changed: run %d (stale %+v), want a new run beside run %d naming the function", again.Run, start.Stale, rep.Run)
	}
}

// A verification function that crashes costs the configuration it judged, as a kernel
// that crashes does: a runtime error naming the function; a fresh worker measures the
// next one.
func TestAVerificationFunctionThatCrashesFailsItsConfiguration(t *testing.T) {
	needBackend(t, "opencl")
	needBackend(t, "c")
	dir := t.TempDir()
	path := verifyFunctionFiles(t, dir, `int check(const float *want, const float *got, long n, double tolerance, char *message, long message_size) {
    if (got[7] != want[7]) *(volatile int *)0 = 1;
    return 0;
}
`)
	db := filepath.Join(dir, "k.db")
	rep, err := Tune(context.Background(), Options{SpecPath: path, Device: "opencl", Strategy: "bruteforce", Budget: 4, DB: db, NoPrecompile: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Statuses["ok"] != 2 || rep.Statuses["runtime_error"] != 2 {
		t.Errorf("statuses %v, want 2 ok and 2 runtime_error", rep.Statuses)
	}
	for _, e := range storedEvaluations(t, db, rep.Run) {
		if bad := e.Config[1].String() == "1"; bad && !strings.HasPrefix(e.Message, "the verification function check (check.c) crashed: SIGSEGV") {
			t.Errorf("bad=1: %v %q, want a crash of the function", e.Status, e.Message)
		}
	}
}

// A verification function that does not compile stops the command before anything is
// measured, naming its file and quoting the compiler.
func TestAVerificationFunctionThatDoesNotCompileStopsTheRun(t *testing.T) {
	needBackend(t, "opencl")
	needBackend(t, "c")
	dir := t.TempDir()
	path := verifyFunctionFiles(t, dir, "int check(const float *want) { return 0 }\n")
	db := filepath.Join(dir, "k.db")
	rep, err := Tune(context.Background(), Options{SpecPath: path, Device: "opencl", Strategy: "random", Seed: 1, Budget: 4, DB: db, NoPrecompile: true})
	if err == nil {
		t.Fatalf("tuned with a function that does not compile: %+v", rep)
	}
	for _, want := range []string{"scale.yaml: verification: the verification function check (check.c) does not compile:", "check.c:1", "nothing was measured"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "no reference to verify against") || !errors.Is(err, worker.ErrReference) {
		t.Errorf("error %q: want the function blamed, not the reference, still an ErrReference", err)
	}
}
