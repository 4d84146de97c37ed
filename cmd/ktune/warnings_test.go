package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// warnedOpenCL builds with a warning where variant is 1: clang warns of the implicit
// conversion of 1.5 to int by default. Every configuration computes the same.
const warnedOpenCL = `__kernel void scale(__global float* out, __global const float* in, int n) {
	int i = get_global_id(0);
	float extra = 0.0f;
#if variant == 1
	int x = 1.5;
	extra = x - 1;
#endif
	if (i < n) out[i] = in[i] * 2.0f + extra;
}
`

const warnedOpenCLSpec = `kernel: {name: scale, source: warned.cl}
constants: {N: 4096}
parameters:
  - {name: block_size_x, values: [16, 32]}
  - {name: variant, values: [0, 1]}
problem_size: [N]
arguments:
  - {name: out, type: float32, length: N, output: true}
  - {name: in, type: float32, length: N, fill: random}
  - {name: n, type: int32, value: N}
verification:
  reference:
    config: {block_size_x: 16, variant: 0}
iterations: 3
`

// The compiler's warnings of a tuning run are shown once, each distinct warning with how
// many configurations' builds gave it and the first that did, in the summary and in
// --json, and every evaluation keeps its own in the results database: on PoCL, whose
// build log of a successful build holds them, and whose cache keeps them (the second run
// builds from it). (With pre-compilers, a build that reads PoCL's cache while another
// process is writing the same entry may find the program before its log: no pre-compilers
// here, so that the counts are exact.)
func TestTuneShowsTheCompilersWarningsOnce(t *testing.T) {
	needBackend(t, "opencl")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "warned.cl"), []byte(warnedOpenCL), 0o644); err != nil {
		t.Fatal(err)
	}
	specPath := filepath.Join(dir, "warned.yaml")
	if err := os.WriteFile(specPath, []byte(warnedOpenCLSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "ktune.db")
	out, errOut, code := ktune(t, "tune", specPath, "--strategy", "bruteforce", "--db", db, "--precompilers", "0", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		Warnings []struct {
			Warning        string         `json:"warning"`
			Configurations int            `json:"configurations"`
			First          map[string]any `json:"first_configuration"`
		} `json:"compiler_warnings"`
		Warned int            `json:"warned_configurations"`
		More   *int           `json:"more_compiler_warnings"`
		Status map[string]int `json:"statuses"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if doc.Status["ok"] != 4 || doc.Warned != 2 || len(doc.Warnings) != 1 || doc.More != nil {
		t.Fatalf("statuses %v, %d warned configurations, warnings %+v, more %v; want 4 ok, 2 warned, one warning:\n%s", doc.Status, doc.Warned, doc.Warnings, doc.More, out)
	}
	w := doc.Warnings[0]
	if w.Configurations != 2 || w.First["variant"] != 1.0 || !strings.Contains(w.Warning, "warned.cl:5:") || !strings.Contains(w.Warning, "1.5") {
		t.Errorf("warning %+v, want the conversion at warned.cl:5 from 2 configurations of variant 1", w)
	}
	for key, e := range evaluationsOf(t, db) {
		if warned := strings.HasSuffix(key, ",1"); warned != strings.Contains(e.Warnings, "warned.cl:5:") || !warned && e.Warnings != "" {
			t.Errorf("configuration %s stored warnings %q", key, e.Warnings)
		}
	}

	// The text summary, of a new run, which builds from PoCL's cache.
	out, errOut, code = ktune(t, "tune", specPath, "--strategy", "bruteforce", "--db", db, "--precompilers", "0", "--new")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if strings.Count(out, "warned.cl:5:") != 1 || !strings.Contains(out, "compiler warnings: 1 distinct, in the builds of 2 configurations of 4\n  2 configurations, the first block_size_x=16, variant=1:\n    ") {
		t.Errorf("the summary does not show the warning once:\n%s", out)
	}
}

// A host C kernel built with -Wall shows what gcc or clang warned of, the same warning
// of every configuration once; a run whose builds were clean says nothing of warnings.
func TestTuneShowsAHostCKernelsWarnings(t *testing.T) {
	needBackend(t, "c")
	dir := t.TempDir()
	t.Setenv("KTUNE_CACHE", t.TempDir())
	withWall := vectorAddVariant(t, dir, "wall.yaml", func(s string) string {
		s = strings.Replace(s, "openmp: true", "openmp: true\n  compiler_options: [-Wall]", 1)
		return strings.Replace(s, "values: [1, 2, 4]", "values: [1, 2]", 1)
	})
	code, err := os.ReadFile(filepath.Join(dir, "vector_add.c"))
	if err != nil {
		t.Fatal(err)
	}
	warned := strings.Replace(string(code), "{\n    const int main_n", "{\n    int unused_here;\n    const int main_n", 1)
	if err := os.WriteFile(filepath.Join(dir, "vector_add.c"), []byte(warned), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, rc := ktune(t, "tune", withWall, "--strategy", "random", "--budget", "3", "--db", filepath.Join(dir, "ktune.db"))
	if rc != 0 {
		t.Fatalf("exit %d: %s", rc, errOut)
	}
	if !strings.Contains(out, "compiler warnings: 1 distinct, in the builds of 3 configurations of 3\n  all 3 configurations:\n    ") ||
		!strings.Contains(out, "vector_add.c:16:9: warning: unused variable 'unused_here'") || strings.Count(out, "unused_here") > 2 {
		t.Errorf("the summary does not show the unused variable once:\n%s", out)
	}
	if err := os.WriteFile(filepath.Join(dir, "vector_add.c"), code, 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, rc = ktune(t, "tune", withWall, "--strategy", "random", "--budget", "3", "--db", filepath.Join(dir, "ktune.db"), "--new")
	if rc != 0 || strings.Contains(out, "warning") {
		t.Errorf("exit %d, a clean build's summary speaks of warnings:\n%s%s", rc, out, errOut)
	}
}
