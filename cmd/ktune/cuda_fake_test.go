//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ktune/ktune/result"
)

// TestTuneCUDAThroughTheStandInDriver runs `ktune tune` on a CUDA spec with the backend's
// libraries replaced by device/cuda/testdata/fakedriver.c, a C stand-in for libcuda, NVRTC
// and NVML whose one kernel computes x = x*a + coef[0] and faults when launched on 13
// blocks. It checks the whole path without a GPU: spec (constant-memory argument, energy
// metric), worker processes, compilation, launch, verification, observation, the store
// and the KTT export's launch sizes, and a fault that loses the worker's context: the worker is replaced and the next
// configuration runs. The GPU itself is tested where one is lent.
func TestTuneCUDAThroughTheStandInDriver(t *testing.T) {
	rep, db, stderr := tuneThroughStandIn(t, standInSpec("{constant: 0.5}", "{name: block_size_x, values: [32, 64, 128]}   # 26, 13 (the stand-in faults) and 7 blocks")+`verification:
  reference: {config: {block_size_x: 128}}
metrics:
  - {name: GFLOP/s, expr: "2 * N / (time / 1e3) / 1e9", maximize: true}
  - {name: flop_per_joule, expr: "2 * N / energy", maximize: true}
objective: flop_per_joule
iterations: 3
`)
	if rep.Backend != "cuda" || rep.Device != "Fake H100" || rep.Evaluations != 3 || rep.Stop != "space exhausted" {
		t.Fatalf("report %+v", rep)
	}
	if rep.Statuses["ok"] != 2 || rep.Statuses["runtime_error"] != 1 || rep.WorkerRestarts != 1 {
		t.Fatalf("statuses %v, %d worker restarts; want 2 ok, 1 runtime_error, 1 restart\n%s\n%s", rep.Statuses, rep.WorkerRestarts, evaluationLines(t, db, rep.Run), stderr)
	}
	got := statusesByConfig(t, db, rep.Run)
	if got["64"].String() != "runtime_error" || got["128"].String() != "ok" || got["32"].String() != "ok" {
		t.Fatalf("statuses by configuration %v", got)
	}
	// The stand-in board draws 250 W; a run takes 0.25 ms by its events: what the metrics
	// and the store hold comes from there.
	m := rep.BestMetrics
	if m["power"] < 245 || m["power"] > 255 || m["energy"] <= 0 || m["registers"] != 128 || m["shared_memory"] != 1024 ||
		m["core_clock"] != 1980 || rep.BestObjective == nil || *rep.BestObjective != m["flop_per_joule"] {
		t.Fatalf("best metrics %v, objective %v", m, rep.BestObjective)
	}
	if gf := m["GFLOP/s"]; gf < 0.0066 || gf > 0.0067 { // 2*832 flop in 0.25 ms
		t.Fatalf("GFLOP/s %v", gf)
	}
	// Every configuration keeps its launch, the one that lost the worker's context too, and
	// the KTT export writes the successes' as KTT does for CUDA: GlobalSize is the grid, in
	// blocks of LocalSize.
	for key, e := range evaluationsOf(t, db) {
		var bsx int
		fmt.Sscan(key, &bsx)
		if want := (result.Launch{Grid: [3]int{(832 + bsx - 1) / bsx, 1, 1}, Block: [3]int{bsx, 1, 1}}); !result.SameLaunch(e.Launch, &want) {
			t.Errorf("%s (%s): launch %v, want %v", key, e.Status, e.Launch, want)
		}
	}
	var export kttExport
	if err := json.Unmarshal(exportRun(t, db, "ktt"), &export); err != nil {
		t.Fatal(err)
	}
	if export.Metadata.ComputeApi != "CUDA" || export.Metadata.GlobalSizeType != "CUDA" {
		t.Errorf("ComputeApi %q, GlobalSizeType %q; want CUDA, CUDA", export.Metadata.ComputeApi, export.Metadata.GlobalSizeType)
	}
	for i, r := range export.Results {
		if r.Status != "Ok" {
			continue
		}
		bsx := int(r.Configuration[0].Value.(float64))
		c := r.ComputationResults[0]
		if c.GlobalSize == nil || c.LocalSize == nil || c.GlobalSize.X != (832+bsx-1)/bsx || c.LocalSize.X != bsx ||
			c.GlobalSize.Y != 1 || c.GlobalSize.Z != 1 || c.LocalSize.Y != 1 || c.LocalSize.Z != 1 {
			t.Errorf("result %d (block_size_x %d): GlobalSize %v, LocalSize %v", i, bsx, c.GlobalSize, c.LocalSize)
		}
	}
}

// TestTuneCUDAFailsAConfigurationThatWritesPastAnArray: the stand-in's kernel, compiled
// with over > 0, writes over floats past the end of x, which on a GPU land in the rest of
// the allocation's granule and "verify". Those configurations are runtime errors naming
// x, without losing the worker's context; the one after them, in bounds, verifies.
func TestTuneCUDAFailsAConfigurationThatWritesPastAnArray(t *testing.T) {
	rep, db, stderr := tuneThroughStandIn(t, standInSpec("{constant: 0.5}", "{name: over, values: [2, 0, 64]}   # floats written past the end of x",
		"{name: block_size_x, values: [128]} # 7 blocks: 896 threads")+`verification:
  reference: {config: {over: 0, block_size_x: 128}}
iterations: 3
`)
	if rep.Evaluations != 3 || rep.Statuses["ok"] != 1 || rep.Statuses["runtime_error"] != 2 || rep.WorkerRestarts != 0 {
		t.Fatalf("%d evaluations, statuses %v, %d worker restarts; want 1 ok, 2 runtime_error, no restart\n%s",
			rep.Evaluations, rep.Statuses, rep.WorkerRestarts, stderr)
	}
	const says = "the kernel wrote past the end of argument x (832 elements of float32): its length in the spec is too small or the kernel overruns it"
	evals := evaluationsOf(t, db)
	for key, want := range map[string]string{"2,128": "runtime_error", "0,128": "ok", "64,128": "runtime_error"} {
		e := evals[key]
		if e.Status.String() != want || (want == "runtime_error") != strings.Contains(e.Message, says) {
			t.Errorf("configuration %s: %v %q, want %s", key, e.Status, e.Message, want)
		}
	}
}

// standInSpec is the head of a spec of the stand-in driver's kernel, x = x*a + coef[0]
// on N = 832 floats x[i] = i with a = 3, whose constant-memory coef has the fill coefFill,
// with the parameters given (each an item of the list, in YAML); the fields after
// arguments follow it.
func standInSpec(coefFill string, parameters ...string) string {
	return `
kernel:
  name: scale<2>
  language: cuda
  code: "template <int A> __global__ void scale(float *x, int n, float a) {}"
constants: {N: 832}
parameters:
  - ` + strings.Join(parameters, "\n  - ") + `
problem_size: [N]
arguments:
  - {name: x, type: float32, length: N, fill: {range: {start: 0, step: 1}}, output: true}
  - {name: n, type: int32, value: N}
  - {name: coef, kind: constant, type: float32, length: 4, fill: ` + coefFill + `}
  - {name: a, type: float32, value: 3}
`
}

// tuneThroughStandIn builds the stand-in driver and runs `ktune tune --strategy bruteforce
// --json` on spec with it; it returns the summary, the database and what ktune printed on
// stderr.
func tuneThroughStandIn(t *testing.T, spec string) (rep tuneReport, db, stderr string) {
	t.Helper()
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler to build the stand-in driver")
	}
	dir := t.TempDir()
	lib := filepath.Join(dir, "libfakecuda.so")
	if out, err := exec.Command(cc, "-shared", "-fPIC", "-O1", "-o", lib, "../../device/cuda/testdata/fakedriver.c").CombinedOutput(); err != nil {
		t.Fatalf("building the stand-in: %v\n%s", err, out)
	}
	file := filepath.Join(dir, "scale.yaml")
	if err := os.WriteFile(file, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	db = filepath.Join(dir, "ktune.db")
	cmd := exec.Command(exe, "tune", file, "--strategy", "bruteforce", "--db", db, "--json")
	cmd.Env = append(os.Environ(), "KTUNE_TEST_AS_MAIN=1", "KTUNE_CUDA_LIBRARY="+lib, "KTUNE_NVRTC_LIBRARY="+lib,
		"KTUNE_NVML_LIBRARY="+lib, "KTUNE_CUDA_CACHE="+filepath.Join(dir, "cache"))
	var errOut strings.Builder
	cmd.Stderr = &errOut
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("ktune tune: %v\n%s", err, errOut.String())
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return rep, db, errOut.String()
}

// TestTuneCUDAVerifiedAgainstACReference: a CUDA kernel (the stand-in's, x = x*a +
// coef[0]) is verified against a plain C function that ktune runs once on the host, on
// the same inputs, the constant-memory coef among them as an array in the spec's order.
// coef[1] differs from coef[0], so a reference handed the wrong array or element would
// fail every configuration.
func TestTuneCUDAVerifiedAgainstACReference(t *testing.T) {
	rep, _, stderr := tuneThroughStandIn(t, standInSpec("{range: {start: 0.5, step: 1}}", "{name: block_size_x, values: [32, 128]}")+`verification:
  reference:
    kernel:
      name: scale_ref
      language: c
      code: "void scale_ref(float *x, int n, const float *coef, float a) { for (int i = 0; i < n; i++) x[i] = x[i] * a + coef[0]; }"
iterations: 3
`)
	if rep.Backend != "cuda" || rep.Statuses["ok"] != 2 || rep.Evaluations != 2 {
		t.Fatalf("report %+v, want 2 ok on the stand-in CUDA device\n%s", rep, stderr)
	}
}

// TestTuneCUDAVerifiedByACFunction: the stand-in CUDA kernel's output is checked by a C
// verification function, which ktune compiles on the host and calls in the worker once
// per configuration with the reference's elements and the kernel's, their count and the
// tolerance; the function logs each call to a file, and checks x against its own formula
// besides the reference.
func TestTuneCUDAVerifiedByACFunction(t *testing.T) {
	calls := filepath.Join(t.TempDir(), "calls.txt")
	rep, _, stderr := tuneThroughStandIn(t, standInSpec("{constant: 0.5}", "{name: block_size_x, values: [32, 128]}")+`verification:
  reference: {config: {block_size_x: 128}}
  tolerance: 0.25
`+loggingCheck(calls)+`iterations: 3
`)
	if rep.Backend != "cuda" || rep.Statuses["ok"] != 2 || rep.Evaluations != 2 {
		t.Fatalf("report %+v, want 2 ok on the stand-in CUDA device\n%s", rep, stderr)
	}
	log, err := os.ReadFile(calls)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Repeat("n=832 tolerance=0.25 x[1]=3.5\n", 2); string(log) != want {
		t.Errorf("the function's calls:\n%s\nwant one per configuration:\n%s", log, want)
	}
}
