package tuner

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ktune/ktune/result"
)

// needCXX skips a test where the host C backend or a C++ compiler is missing.
func needCXX(t *testing.T) {
	t.Helper()
	needBackend(t, "c")
	for _, name := range []string{os.Getenv("CXX"), "c++", "g++", "clang++"} {
		if f := strings.Fields(name); len(f) > 0 {
			if _, err := exec.LookPath(f[0]); err == nil {
				return
			}
		}
	}
	t.Skip("no C++ compiler")
}

// cxxSpec writes a spec of a C++ kernel from a .cpp file: a template named as its
// instance, whose block size a tuning parameter's #define gives, with <vector> and
// <cmath>, checked against a C reference kernel.
func cxxSpec(t *testing.T, dir string) string {
	t.Helper()
	files := map[string]string{
		"scale.cpp": `#include <vector>
#include <cmath>

template <typename T, int B>
void blocked_scale(T *out, const T *in, int n)
{
	std::vector<T> block(B);
	for (int i = 0; i < n; i += B) {
		int m = std::min(B, n - i);
		for (int j = 0; j < m; j++)
			block[j] = std::fabs(in[i + j]) * T(2);
		for (int j = 0; j < m; j++)
			out[i + j] = block[j];
	}
}
`,
		"scale.yaml": `kernel:
  name: blocked_scale<float, BLOCK>
  source: scale.cpp
parameters:
  - {name: BLOCK, values: [1, 8, 32]}
problem_size: [1000]
arguments:
  - {name: out, type: float32, length: 1000, output: true}
  - {name: in, type: float32, length: 1000, fill: random}
  - {name: n, type: int32, value: 1000}
iterations: 2
verification:
  reference:
    kernel:
      name: ref
      language: c
      code: |
        #include <math.h>
        void ref(float *out, const float *in, int n) { for (int i = 0; i < n; i++) out[i] = fabsf(in[i]) * 2.0f; }
`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "scale.yaml")
}

// A C++ kernel tunes end to end: every block size compiles, runs and matches the C
// reference; the run's inputs hold the C++ compiler, so that a run is not resumed with
// another one ($CXX changed).
func TestTuneACXXKernel(t *testing.T) {
	needCXX(t)
	dir := t.TempDir()
	var start RunStart
	o := Options{SpecPath: cxxSpec(t, dir), Strategy: "random", Seed: 1, Budget: 3, DB: filepath.Join(dir, "k.db"), NoPrecompile: true,
		Started: func(r RunStart) { start = r }}
	rep, err := Tune(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Backend != "c" || rep.Statuses[result.OK.String()] != 3 {
		t.Fatalf("backend %q, statuses %v, failures %+v; want 3 ok on c", rep.Backend, rep.Statuses, rep.Failures)
	}
	evals := storedEvaluations(t, o.DB, rep.Run)
	var blocks []string
	for _, e := range evals {
		blocks = append(blocks, e.Config[0].String())
		if e.Launch != nil {
			t.Errorf("BLOCK=%s keeps a launch %+v, which the host backend has none of", e.Config[0], e.Launch)
		}
	}
	slices.Sort(blocks)
	if !slices.Equal(blocks, []string{"1", "32", "8"}) {
		t.Errorf("configurations %v, want BLOCK 1, 8 and 32", blocks)
	}
	interrupt(t, o.DB, rep.Run)
	cxx, err := exec.LookPath("g++")
	if err != nil {
		cxx, _ = exec.LookPath("clang++")
	}
	t.Setenv("CXX", cxx+" -DKTUNE_OTHER_CXX")
	again, err := Tune(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if again.Run == rep.Run || start.Stale == nil || !slices.Equal(start.Stale.Changed, []string{"device software"}) {
		t.Errorf("with $CXX changed: run %d (stale %+v), want a new run beside run %d naming the device software", again.Run, start.Stale, rep.Run)
	}
}

// Without a C++ compiler ($CXX naming none) a C++ kernel is refused before the run
// starts, with what to install, where the host C backend still runs C kernels.
func TestACXXKernelWithoutACXXCompilerIsRefused(t *testing.T) {
	needBackend(t, "c")
	dir := t.TempDir()
	t.Setenv("CXX", filepath.Join(dir, "no-such-c++"))
	for _, device := range []string{"", "c"} {
		_, err := Tune(context.Background(), Options{SpecPath: cxxSpec(t, dir), Device: device, Strategy: "random", Seed: 1, Budget: 1,
			DB: filepath.Join(dir, "k.db"), NoPrecompile: true})
		if err == nil || !strings.Contains(err.Error(), "$CXX=") || !strings.Contains(err.Error(), "install that compiler") {
			t.Errorf("device %q: %v, want the missing C++ compiler and what to do", device, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "k.db")); err == nil {
		t.Error("a run was stored")
	}
}
