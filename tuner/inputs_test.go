package tuner

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/spec"
	"github.com/ktune/ktune/store"
)

// inputsSpec writes a host C spec whose kernel includes a header from its own folder,
// which includes one from an -I folder, and reads its input from a .npy file.
func inputsSpec(t *testing.T, dir string) string {
	t.Helper()
	inc := filepath.Join(dir, "inc")
	if err := os.Mkdir(inc, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"scale.k.c":  "#include \"scale.h\"\nvoid scale(float *c, const float *a, int n) { for (int i = 0; i < n; i++) c[i] = a[i] * SCALE * p + MORE; }\n",
		"scale.h":    "#include <more.h>\n#define SCALE 2.0f\n",
		"inc/more.h": "#define MORE 1.0f\n",
		"scale.yaml": `kernel:
  name: scale
  source: scale.k.c
  compiler_options: ["-I", "` + inc + `"]
constants:
  N: 64
parameters:
  - {name: p, values: [1, 2, 3]}
problem_size: [N]
arguments:
  - {name: c, type: float32, length: N, output: true}
  - {name: a, type: float32, length: N, fill: {npy: a.npy}}
  - {name: n, type: int32, value: N}
iterations: 2
`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeInput(t, dir, 1)
	return filepath.Join(dir, "scale.yaml")
}

// writeInput writes a.npy: 64 floats of value v.
func writeInput(t *testing.T, dir string, v byte) {
	t.Helper()
	a := &spec.Array{Type: "float32", Shape: []int{64}, Data: make([]byte, 64*4)}
	for i := 0; i < len(a.Data); i += 4 {
		a.Data[i+3] = 0x3f // 1.0f ... 1.99f
		a.Data[i+2] = v
	}
	if err := spec.WriteNPYFile(filepath.Join(dir, "a.npy"), a); err != nil {
		t.Fatal(err)
	}
}

// interrupt leaves run as a killed process leaves it.
func interrupt(t *testing.T, db string, run int64) {
	t.Helper()
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.FinishRun(context.Background(), run, store.StatusInterrupted); err != nil {
		t.Fatal(err)
	}
}

// A run is not resumed once its input data, a header its kernel includes (through an -I
// folder too) or the compiler changed: a new run starts, and Tune names what changed. With
// its inputs as they were, it is resumed; a run stored without its inputs (by an earlier
// ktune) is not, and Tune says why.
func TestARunWhoseInputsChangedIsNotResumed(t *testing.T) {
	needBackend(t, "c")
	dir := t.TempDir()
	specPath := inputsSpec(t, dir)
	db := filepath.Join(dir, "k.db")
	var start RunStart
	o := Options{SpecPath: specPath, Strategy: "random", Seed: 1, Budget: 2, DB: db, NoPrecompile: true,
		Started: func(r RunStart) { start = r }}
	tune := func() *Report {
		t.Helper()
		start = RunStart{}
		rep, err := Tune(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	first := tune()
	interrupt(t, db, first.Run)
	for _, tc := range []struct {
		what    string
		change  func()
		changed []string
	}{
		{"the .npy data", func() { writeInput(t, dir, 9) }, []string{"data a.npy"}},
		{"a header in an -I folder", func() {
			os.WriteFile(filepath.Join(dir, "inc", "more.h"), []byte("#define MORE 3.0f\n"), 0o644)
		}, []string{"header inc/more.h"}},
		{"$CC", func() { t.Setenv("CC", "cc -DKTUNE_OTHER_CC") }, []string{"device software"}},
	} {
		before := start.ID
		if before == 0 {
			before = first.Run
		}
		tc.change()
		rep := tune()
		if rep.Run == before || start.Stale == nil || start.Stale.ID != before || !slices.Equal(start.Stale.Changed, tc.changed) {
			t.Errorf("after changing %s: run %d (stale %+v), want a new run beside run %d, which changed %q", tc.what, rep.Run, start.Stale, before, tc.changed)
		}
		interrupt(t, db, rep.Run)
	}
	last := start.ID
	if rep := tune(); rep.Run != last || start.Resumed != 2 || start.Stale != nil {
		t.Errorf("unchanged: run %d, %+v; want run %d resumed", rep.Run, start, last)
	}

	// a run as an earlier ktune stored it: the spec's hash without its inputs
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Run(context.Background(), last)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.FinishRun(context.Background(), last, store.StatusFinished); err != nil {
		t.Fatal(err)
	}
	legacy := info
	legacy.Settings, _ = json.Marshal(map[string]any{"spec": settingOf(info.Settings, "spec"), "spec_hash": "0123456789abcdef", "budget": 4})
	legacy.Status, legacy.Started, legacy.Finished = store.StatusInterrupted, info.Started, info.Finished
	old, err := st.CreateRun(context.Background(), legacy)
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	o.Budget = 4
	if rep := tune(); rep.Run == old || start.Stale == nil || start.Stale.ID != old || start.Stale.Changed != nil {
		t.Errorf("beside a run stored without inputs: run %d, stale %+v; want a new run, naming run %d as stored without inputs", rep.Run, start.Stale, old)
	}
}

// A host C kernel built with OpenMP runs with the OpenMP variables of the environment,
// which the workers inherit: a run interrupted with OMP_NUM_THREADS=1 was resumed with
// OMP_NUM_THREADS=2, mixing measurements on one thread and on two. Now a new run starts,
// naming the variable; a kernel without OpenMP does not read them.
func TestARunIsNotResumedUnderOtherOpenMPVariables(t *testing.T) {
	needBackend(t, "c")
	dir := t.TempDir()
	specPath := filepath.Join(dir, "omp.yaml")
	if err := os.WriteFile(specPath, []byte(`kernel:
  name: k
  language: c
  openmp: true
  code: |
    void k(float *c, int n) {
      #pragma omp parallel for
      for (int i = 0; i < n; i++) c[i] = (float)(i * p);
    }
parameters: [{name: p, values: [1, 2, 3]}]
problem_size: [64]
arguments:
  - {name: c, type: float32, length: 64, output: true}
  - {name: n, type: int32, value: 64}
iterations: 2
`), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "k.db")
	var start RunStart
	o := Options{SpecPath: specPath, Strategy: "random", Seed: 1, Budget: 2, DB: db, NoPrecompile: true,
		Started: func(r RunStart) { start = r }}
	t.Setenv("OMP_NUM_THREADS", "1")
	first, err := Tune(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	interrupt(t, db, first.Run)
	t.Setenv("OMP_NUM_THREADS", "2")
	second, err := Tune(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if second.Run == first.Run || start.Stale == nil || start.Stale.ID != first.Run || !slices.Equal(start.Stale.Changed, []string{"environment OMP_NUM_THREADS"}) {
		t.Errorf("with OMP_NUM_THREADS changed: run %d (stale %+v), want a new run beside run %d naming the variable", second.Run, start.Stale, first.Run)
	}

	s, err := spec.Load(inputsSpec(t, t.TempDir())) // no OpenMP
	if err != nil {
		t.Fatal(err)
	}
	in, err := runInputs(s, nil, device.Info{Backend: "c"})
	if err != nil {
		t.Fatal(err)
	}
	for name := range in {
		if strings.HasPrefix(name, "environment") {
			t.Errorf("a kernel without OpenMP reads %s", name)
		}
	}
}

// The kernels' code is hashed as the spec holds it: inline code reaches the device after
// a #line directive that names its place in the spec, which is no input of its own (the
// spec's hash covers where the code sits), and runs stored before ktune added it keep
// their hash.
func TestInlineCodeIsHashedAsTheSpecHoldsIt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "inline.yaml")
	if err := os.WriteFile(path, []byte(`kernel:
  name: k
  language: c
  code: |
    void k(float *c) { c[0] = 1; }
parameters: {p: [1]}
problem_size: [1]
arguments: [{name: c, type: float32, length: 1, output: true}]
verification:
  reference: {kernel: {name: ref, code: "void ref(float *c) { c[0] = 1; }"}}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := spec.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	in, err := runInputs(s, nil, device.Info{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := in["kernel source"], hashBytes([]byte("void k(float *c) { c[0] = 1; }\n")); got != want {
		t.Errorf("kernel source hashes to %s, want %s", got, want)
	}
	if got, want := in["reference kernel source"], hashBytes([]byte("void ref(float *c) { c[0] = 1; }")); got != want {
		t.Errorf("reference kernel source hashes to %s, want %s", got, want)
	}
}
