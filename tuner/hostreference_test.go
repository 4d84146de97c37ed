package tuner

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/spec"
)

// scaleFiles writes an OpenCL kernel, y = 2x, wrong by 1 at index 7 where the parameter
// bad is 1, a spec tuning it on four configurations whose verification section is
// verification, and the host code that section names (files, name to text); it returns
// the spec's path.
func scaleFiles(t *testing.T, dir, verification string, files map[string]string) string {
	t.Helper()
	writeFiles(t, dir, files)
	writeFiles(t, dir, map[string]string{
		"scale.cl": scaleCL,
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
` + verification + `iterations: 2
`,
	})
	return filepath.Join(dir, "scale.yaml")
}

// hostRefFiles writes the scale kernel and a spec verifying it against whatever
// reference.c holds (ref), and returns the spec's path.
func hostRefFiles(t *testing.T, dir, ref string) string {
	t.Helper()
	return scaleFiles(t, dir, "  reference:\n    kernel: {name: scale_ref, source: reference.c}\n", map[string]string{"reference.c": ref})
}

// scaleCL is an OpenCL kernel, y = 2x, wrong by 1 at index 7 where the parameter bad is 1.
const scaleCL = `__kernel void scale(__global float *y, __global const float *x, const int n) {
    int i = get_global_id(0);
    if (i < n) y[i] = 2.0f * x[i] + (bad && i == 7 ? 1.0f : 0.0f);
}
`

// writeFiles writes each file of files (name to text) into dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

const scaleRef = `void scale_ref(float *y, const float *x, int n) {
    for (int i = 0; i < n; i++) y[i] = 2.0f * x[i];
}
`

// An OpenCL kernel tuned on PoCL is verified against a C reference, which the worker
// runs once on the host: the right configurations pass, the wrong ones fail verification.
// The reference's source is one of the run's inputs: changed, the run is not resumed.
func TestAnOpenCLRunIsVerifiedAgainstACReference(t *testing.T) {
	dir := t.TempDir()
	checkVerifiedOnTheHost(t, dir, hostRefFiles(t, dir, scaleRef), hostCheck{
		file: "reference.c", text: scaleRef, what: "the reference", changed: "reference kernel source",
		badSays: func(msg string) bool { return strings.Contains(msg, "first at index 7") }, badWant: "the difference at index 7",
	})
}

// hostCheck is the host code that verifies a run of the scale kernel.
type hostCheck struct {
	file, text string // its file and what the file holds
	what       string // what it is, in a failure's words
	changed    string // the run input that names it
	// badSays tells whether the message of a configuration at bad=1 is right; badWant
	// says what it should hold.
	badSays func(msg string) bool
	badWant string
}

// checkVerifiedOnTheHost tunes the scale spec at path (in dir), verified by host code h,
// on PoCL: the two configurations at bad=0 pass and the two at bad=1 fail verification,
// saying why. It then interrupts the run and edits h's file: the same command starts a
// new run rather than resuming that one, and names h as what changed.
func checkVerifiedOnTheHost(t *testing.T, dir, path string, h hostCheck) {
	t.Helper()
	needBackend(t, "opencl")
	needBackend(t, "c")
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
		if bad := e.Config[1].String() == "1"; bad && !h.badSays(e.Message) {
			t.Errorf("bad=1: %v %q, want %s", e.Status, e.Message, h.badWant)
		}
	}
	interrupt(t, db, rep.Run)
	if err := os.WriteFile(filepath.Join(dir, h.file), []byte("// the same, commented\n"+h.text), 0o644); err != nil {
		t.Fatal(err)
	}
	again, err := Tune(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if again.Run == rep.Run || start.Stale == nil || !slices.Equal(start.Stale.Changed, []string{h.changed}) {
		t.Errorf("with %s changed: run %d (stale %+v), want a new run beside run %d naming %s", h.what, again.Run, start.Stale, rep.Run, h.what)
	}
}

// tuneRefused tunes the spec at path on PoCL, which must stop with an error before it
// measures anything (what says why, for the failure), and checks that the error says
// each of want; it returns the error.
func tuneRefused(t *testing.T, path, what string, o Options, want ...string) error {
	t.Helper()
	o.SpecPath, o.Device, o.Budget, o.NoPrecompile = path, "opencl", 4, true
	o.DB = filepath.Join(filepath.Dir(path), "k.db")
	rep, err := Tune(context.Background(), o)
	if err == nil {
		t.Fatalf("tuned with %s: %+v", what, rep)
	}
	for _, w := range append(want, "nothing was measured") {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
	return err
}

// A C reference that crashes takes its worker down: the run stops before it measures
// anything, saying that the reference crashed.
func TestACReferenceThatCrashesStopsTheRun(t *testing.T) {
	needBackend(t, "opencl")
	needBackend(t, "c")
	dir := t.TempDir()
	path := hostRefFiles(t, dir, `void scale_ref(float *y, const float *x, int n) { *(volatile float *)0 = x[0]; }
`)
	tuneRefused(t, path, "a crashing reference", Options{Strategy: "random", Seed: 1},
		"verification: no reference to verify against: the reference crashed: SIGSEGV")
}

// A C reference that hangs is killed at the spec's timeout: the run stops before it
// measures anything, blaming the reference, not the kernel, which never ran.
func TestACReferenceThatHangsStopsTheRunNamingTheReference(t *testing.T) {
	needBackend(t, "opencl")
	needBackend(t, "c")
	dir := t.TempDir()
	path := hostRefFiles(t, dir, `void scale_ref(float *y, const float *x, int n) { for (volatile int k = 0; ; k++) ; }
`)
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(text, "timeout: 1s\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	tuneRefused(t, path, "a hanging reference", Options{Strategy: "random", Seed: 1},
		"no reference to verify against: the reference ran past the time limit of 1s (timeout) and was killed")
}

// The compiler of a host reference is an input of its own, C's or C++'s as the
// reference's language asks; a reference on the kernel's device has none.
func TestTheHostReferenceCompilerIsARunInput(t *testing.T) {
	host := device.Info{Version: "gcc 12", Extra: map[string]string{"compiler": "cc", "cxx_compiler": "c++", "cxx_version": "g++ 12"}}
	other := device.Info{Version: "gcc 13", Extra: map[string]string{"compiler": "cc", "cxx_compiler": "c++", "cxx_version": "g++ 12"}}
	const rest = "parameters: {p: [1]}\nproblem_size: 1\narguments: [{name: a, type: float32, length: 4, output: true}]\nverification:\n  reference:\n    kernel: "
	for _, c := range []struct {
		spec    string
		input   bool
		changes bool // with the C compiler's version
	}{
		{"kernel: {name: k, source: k.cl}\n" + rest + "{name: ref, source: ref.c}\n", true, true},
		{"kernel: {name: k, source: k.cu}\n" + rest + "{name: ref, source: ref.cpp}\n", true, false},
		{"kernel: {name: k, source: k.cl}\n" + rest + "{name: ref, source: ref.cl}\n", false, false},
		{"kernel: {name: k, source: k.cpp}\n" + rest + "{name: ref, source: ref.c}\n", false, false},
	} {
		s, err := spec.Parse([]byte(c.spec), "k.yaml")
		if err != nil {
			t.Fatal(err)
		}
		a, b := inputSet{}, inputSet{}
		addReferenceCompiler(a, s, host)
		addReferenceCompiler(b, s, other)
		_, has := a["reference compiler"]
		if has != c.input || (a["reference compiler"] != b["reference compiler"]) != c.changes {
			t.Errorf("%s: inputs %v and, with gcc 13, %v", c.spec, a, b)
		}
	}
}
