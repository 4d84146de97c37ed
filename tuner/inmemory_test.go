package tuner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ktune/ktune/store"
)

// inMemorySpec is a spec of an OpenCL kernel in scale.cl beside where it is said to be:
// 4 configurations, each verified against the first.
const inMemorySpec = `kernel: {name: scale, source: scale.cl}
constants: {N: 4096}
parameters:
  - {name: block_size_x, values: [16, 32, 64, 128]}
problem_size: [N]
arguments:
  - {name: y, type: float32, length: N, output: true}
  - {name: x, type: float32, length: N, fill: random}
  - {name: n, type: int32, value: N}
verification:
  reference:
    config: {block_size_x: 16}
iterations: 3
`

// A spec given as text (Options.SpecData) is tuned as its file would be, by workers that
// get the same text: its kernel source resolves against the folder of SpecPath, which
// does not exist as a file; the run is stored under that name, and the file the text
// travelled to the workers in is gone when Tune returns. A spec of the same name that
// is not there on disk errs as a file does.
func TestTuneOfASpecGivenInMemory(t *testing.T) {
	needBackend(t, "opencl")
	dir := t.TempDir()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	kernel := "__kernel void scale(__global float *y, __global const float *x, int n) { int i = get_global_id(0); if (i < n) y[i] = 3 * x[i]; }\n"
	if err := os.WriteFile(filepath.Join(dir, "scale.cl"), []byte(kernel), 0o644); err != nil {
		t.Fatal(err)
	}
	specPath := filepath.Join(dir, "scale.yaml") // never written
	db := filepath.Join(dir, "k.db")
	rep, err := Tune(context.Background(), Options{SpecPath: specPath, SpecData: []byte(inMemorySpec), Device: "opencl",
		Strategy: "bruteforce", DB: db, Precompilers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Evaluations != 4 || rep.Statuses["ok"] != 4 || !rep.Verified || rep.SpaceSize != 4 || rep.Kernel != "scale" {
		t.Errorf("report: %d evaluations, statuses %v, verified %v, space %d, kernel %s; want 4 ok and verified of 4, scale",
			rep.Evaluations, rep.Statuses, rep.Verified, rep.SpaceSize, rep.Kernel)
	}
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	run, err := st.Run(context.Background(), rep.Run)
	st.Close()
	if err != nil || run.Source != specPath || run.Evaluations != 4 {
		t.Errorf("stored run: %v, source %q, %d evaluations; want %s and 4", err, run.Source, run.Evaluations, specPath)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "ktune-spec-*")); len(left) > 0 {
		t.Errorf("the spec's text for the workers is left behind: %v", left)
	}

	if _, err := Tune(context.Background(), Options{SpecPath: specPath, Device: "opencl", DB: db}); err == nil || !strings.Contains(err.Error(), "scale.yaml") {
		t.Errorf("the same name without SpecData: %v, want the missing file named", err)
	}
	bad := strings.Replace(inMemorySpec, "scale.cl", "missing.cl", 1)
	if _, err := Tune(context.Background(), Options{SpecData: []byte(bad), Device: "opencl", DB: db}); err == nil || !strings.Contains(err.Error(), "missing.cl") {
		t.Errorf("a spec in memory naming a missing source: %v, want it named", err)
	}
}
