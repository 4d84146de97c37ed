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

// hostRefFiles writes an OpenCL kernel, y = 2x, wrong at bad=1, a spec tuning it on
// whatever reference.c holds (ref), and returns the spec's path.
func hostRefFiles(t *testing.T, dir, ref string) string {
	t.Helper()
	files := map[string]string{
		"scale.cl":    scaleCL,
		"reference.c": ref,
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
  reference:
    kernel: {name: scale_ref, source: reference.c}
iterations: 2
`,
	}
	writeFiles(t, dir, files)
	return filepath.Join(dir, "scale.yaml")
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
	needBackend(t, "opencl")
	needBackend(t, "c")
	dir := t.TempDir()
	path := hostRefFiles(t, dir, scaleRef)
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
		if bad := e.Config[1].String() == "1"; bad && !strings.Contains(e.Message, "first at index 7") {
			t.Errorf("bad=1: %v %q, want the difference at index 7", e.Status, e.Message)
		}
	}
	interrupt(t, db, rep.Run)
	if err := os.WriteFile(filepath.Join(dir, "reference.c"), []byte("// the same, commented\n"+scaleRef), 0o644); err != nil {
		t.Fatal(err)
	}
	again, err := Tune(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if again.Run == rep.Run || start.Stale == nil || !slices.Equal(start.Stale.Changed, []string{"reference kernel source"}) {
		t.Errorf("with the reference changed: run %d (stale %+v), want a new run beside run %d naming the reference", again.Run, start.Stale, rep.Run)
	}
}

// A C reference that crashes takes its worker down: the run stops before it measures
// anything, saying that the reference crashed.
func TestACReferenceThatCrashesStopsTheRun(t *testing.T) {
	needBackend(t, "opencl")
	needBackend(t, "c")
	dir := t.TempDir()
	path := hostRefFiles(t, dir, `void scale_ref(float *y, const float *x, int n) { *(volatile float *)0 = x[0]; }
`)
	db := filepath.Join(dir, "k.db")
	rep, err := Tune(context.Background(), Options{SpecPath: path, Device: "opencl", Strategy: "random", Seed: 1, Budget: 4, DB: db, NoPrecompile: true})
	if err == nil {
		t.Fatalf("tuned with a crashing reference: %+v", rep)
	}
	for _, want := range []string{"verification: no reference to verify against: the reference crashed: SIGSEGV", "nothing was measured"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
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
	db := filepath.Join(dir, "k.db")
	rep, err := Tune(context.Background(), Options{SpecPath: path, Device: "opencl", Strategy: "random", Seed: 1, Budget: 4, DB: db, NoPrecompile: true})
	if err == nil {
		t.Fatalf("tuned with a hanging reference: %+v", rep)
	}
	for _, want := range []string{"no reference to verify against: the reference ran past the time limit of 1s (timeout) and was killed", "nothing was measured"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
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
