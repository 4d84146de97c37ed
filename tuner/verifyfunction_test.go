package tuner

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ktune/ktune/worker"
)

// verifyFunctionFiles writes the scale kernel and a spec verifying it against itself at
// bad=0 with check.c, which holds check (text); it returns the spec's path.
func verifyFunctionFiles(t *testing.T, dir, check string) string {
	t.Helper()
	return scaleFiles(t, dir, `  reference: {config: {block_size_x: 32, bad: 0}}
  function: {name: check, source: check.c}
  tolerance: 0.5
`, map[string]string{"check.c": check})
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
	dir := t.TempDir()
	const want = "output y: the verification function check (check.c) returned 7: off beyond the tolerance"
	checkVerifiedOnTheHost(t, dir, verifyFunctionFiles(t, dir, checkFunction), hostCheck{
		file: "check.c", text: checkFunction, what: "the function", changed: "verification function check (check.c)",
		badSays: func(msg string) bool { return msg == want }, badWant: strconv.Quote(want),
	})
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
	err := tuneRefused(t, path, "a function that does not compile", Options{Strategy: "random", Seed: 1},
		"scale.yaml: verification: the verification function check (check.c) does not compile:", "check.c:1")
	if strings.Contains(err.Error(), "no reference to verify against") || !errors.Is(err, worker.ErrReference) {
		t.Errorf("error %q: want the function blamed, not the reference, still an ErrReference", err)
	}
}
