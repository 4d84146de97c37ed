package tuner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/store"
)

const vectorAddCL = "../examples/vector_add/vector_add_opencl.yaml" // 24 configurations

// childTestEnv names the test that a test process started by onPoCLDevices runs.
const childTestEnv = "KTUNE_TEST_POCL_DEVICES_OF"

// onPoCLDevices runs the calling test again in a test process of its own whose PoCL
// offers the devices given (POCL_DEVICES, "pthread pthread"), since PoCL reads it once
// per process; it reports whether the test goes on here, which it does in that process
// alone. The test is skipped without the OpenCL backend.
func onPoCLDevices(t *testing.T, devices string) bool {
	t.Helper()
	if os.Getenv(childTestEnv) == t.Name() {
		needBackend(t, "opencl")
		return true
	}
	needBackend(t, "opencl")
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.v")
	cmd.Env = append(os.Environ(), "POCL_DEVICES="+devices, childTestEnv+"="+t.Name())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("with POCL_DEVICES=%q: %v\n%s", devices, err, out)
	}
	if strings.Contains(string(out), "--- SKIP") {
		t.Skipf("with POCL_DEVICES=%q:\n%s", devices, out)
	}
	t.Logf("with POCL_DEVICES=%q:\n%s", devices, out)
	return false
}

// runSettings reads run's settings from the database at db.
func runSettingsOf(t *testing.T, db string, run int64) map[string]any {
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
	var m map[string]any
	if err := json.Unmarshal(info.Settings, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// checkShares checks that every device measured some of the report's evaluations and
// that together they measured all of them.
func checkShares(t *testing.T, rep *Report, devices int) {
	t.Helper()
	if len(rep.Devices) != devices {
		t.Fatalf("report's devices: %+v, want %d", rep.Devices, devices)
	}
	sum := 0
	for _, d := range rep.Devices {
		if d.Measured == 0 {
			t.Errorf("device %d measured nothing: %+v", d.Index, rep.Devices)
		}
		sum += d.Measured
	}
	if sum != rep.Measured {
		t.Errorf("the devices measured %d evaluations together (%+v), the report %d", sum, rep.Devices, rep.Measured)
	}
}

// checkStoredDevices checks that each of the run's stored evaluations names a device of
// the report's, and that each device measured as many as the report counts for it.
func checkStoredDevices(t *testing.T, db string, rep *Report) {
	t.Helper()
	stored := map[string]int{}
	for _, e := range storedEvaluations(t, db, rep.Run) {
		stored[e.Device]++
	}
	want := map[string]int{}
	for _, d := range rep.Devices {
		want[fmt.Sprintf("opencl:%d", d.Index)] = d.Measured
	}
	if !maps.Equal(stored, want) {
		t.Errorf("stored evaluations by device %v, the report's count %v", stored, want)
	}
}

func TestSplitDevices(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		err  string
	}{
		{"opencl:1", []string{"opencl:1"}, ""},
		{"c", []string{"c"}, ""},
		{"opencl:0,opencl:1", []string{"opencl:0", "opencl:1"}, ""},
		{"opencl:0, 2", []string{"opencl:0", "opencl:2"}, ""},
		{"opencl,opencl:1", nil, "BACKEND:INDEX,BACKEND:INDEX"},
		{"opencl:0,cuda:0", nil, "one backend (opencl and cuda)"},
		{"opencl:0,opencl:x", nil, "the index must be a whole number"},
		{"opencl:0,opencl:0", nil, "opencl:0 is named twice"},
	} {
		got, err := splitDevices(tc.in)
		if tc.err != "" {
			var de *DeviceError
			if !errors.As(err, &de) || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: %v, want a DeviceError saying %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%q: %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestDevicesWhoseNamesDifferAreRefusedNamingBoth(t *testing.T) {
	infos := []device.Info{{Name: "Tesla A"}, {Name: "Tesla A"}, {Name: "Tesla B"}}
	err := sameDevices("cuda", []int{0, 1, 3}, infos)
	var me *DeviceMismatchError
	if !errors.As(err, &me) || me.First != 0 || me.Other != 3 ||
		!strings.Contains(err.Error(), "cuda:0 (Tesla A) and cuda:3 (Tesla B)") || !strings.Contains(err.Error(), "--mixed-devices") {
		t.Errorf("%v, want a DeviceMismatchError naming cuda:0 and cuda:3", err)
	}
	if err := sameDevices("cuda", []int{0, 1}, infos[:2]); err != nil {
		t.Errorf("identical devices: %v", err)
	}
}

// One run on two identical devices: each configuration measured, verified and stored
// once, both devices measuring, the budget spent exactly, the run recording which devices
// measured.
func TestTwoDevicesMeasureOneRun(t *testing.T) {
	if !onPoCLDevices(t, "pthread pthread") {
		return
	}
	db := filepath.Join(t.TempDir(), "k.db")
	var progress []int
	rep, err := Tune(context.Background(), Options{SpecPath: vectorAddCL, Device: "opencl:0,opencl:1", Strategy: "random",
		Seed: 2, Budget: 10, DB: db, Progress: func(p Progress) { progress = append(progress, p.Evaluations) }})
	if err != nil {
		t.Fatal(err)
	}
	evals := storedEvaluations(t, db, rep.Run)
	ks := keys(evals)
	slices.Sort(ks)
	if len(evals) != 10 || len(slices.Compact(ks)) != 10 || rep.Measured != 10 || rep.Evaluations != 10 {
		t.Errorf("stored %d evaluations (%d distinct), measured %d, report %d; want 10 each", len(evals), len(ks), rep.Measured, rep.Evaluations)
	}
	for _, e := range evals {
		if e.Status != result.OK {
			t.Errorf("%v: %v %s", e.Config, e.Status, e.Message)
		}
	}
	if !rep.Verified {
		t.Error("the run was not verified")
	}
	checkShares(t, rep, 2)
	checkStoredDevices(t, db, rep)
	ahead := 0
	for _, d := range rep.Devices {
		ahead += d.Ahead
	}
	if ahead == 0 || rep.DroppedAhead != 0 {
		t.Errorf("measured ahead %d (want some), dropped %d (random asks for all it hints: want none)", ahead, rep.DroppedAhead)
	}
	if got := runSettingsOf(t, db, rep.Run)["devices"]; !slices.Equal(anySlice(got), []any{0.0, 1.0}) {
		t.Errorf("the run's settings say devices %v, want [0 1]", got)
	}
	if want := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}; !slices.Equal(progress[len(progress)-9:], want[1:]) {
		t.Errorf("progress %v, want each count once up to 10", progress)
	}
}

func anySlice(v any) []any { s, _ := v.([]any); return s }

// A strategy that hints further than the budget reaches (brute force hints 8 ahead)
// measures no more than the budget, ahead or not.
func TestTwoDevicesMeasureNoMoreThanTheBudgetAhead(t *testing.T) {
	if !onPoCLDevices(t, "pthread pthread") {
		return
	}
	db := filepath.Join(t.TempDir(), "k.db")
	rep, err := Tune(context.Background(), Options{SpecPath: vectorAddCL, Device: "opencl:0,1", Strategy: "bruteforce",
		Budget: 5, DB: db, NoPrecompile: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(storedEvaluations(t, db, rep.Run)); n != 5 || rep.Measured != 5 || rep.DroppedAhead != 0 {
		t.Errorf("stored %d, measured %d, dropped ahead %d; want 5, 5, 0", n, rep.Measured, rep.DroppedAhead)
	}
	checkShares(t, rep, 2)
	checkStoredDevices(t, db, rep)
}

// A kernel that crashes on one device costs its configuration and that device's worker:
// the other device measures on, and so does the crashed one with a fresh worker.
func TestAKernelCrashingOnOneDeviceStopsNeitherDevice(t *testing.T) {
	if !onPoCLDevices(t, "pthread pthread") {
		return
	}
	spec := `kernel: {name: crash, source: crash.cl}
parameters:
  - {name: block_size_x, values: [16]}
  - {name: mode, values: [0, 1, 2, 3, 4, 5, 6, 7]}
problem_size: [64]
grid_div_x: [block_size_x]
arguments:
  - {name: y, type: float32, length: 64, output: true}
  - {name: n, type: int32, value: 64}
iterations: 3
`
	kernel := `__kernel void crash(__global float *y, int n) {
	int i = get_global_id(0);
	if (mode == 3)
		y[(size_t)i + ((size_t)1 << 36)] = 1; // 256 GiB past the array: unmapped
	if (i < n) y[i] = i * (mode + 1);
}
`
	path := writeSpec(t, "crash.yaml", map[string]string{"crash.yaml": spec, "crash.cl": kernel})
	db := filepath.Join(t.TempDir(), "k.db")
	rep, err := Tune(context.Background(), Options{SpecPath: path, Device: "opencl:0,opencl:1", Strategy: "bruteforce", DB: db})
	if err != nil {
		t.Fatal(err)
	}
	evals := byConfig(t, db, rep.Run)
	if len(evals) != 8 {
		t.Errorf("stored %d evaluations, want 8", len(evals))
	}
	for k, e := range evals {
		switch {
		case k == "16,3" && e.Status != result.RuntimeError:
			t.Errorf("mode 3: %v %q, want a runtime error", e.Status, e.Message)
		case k != "16,3" && e.Status != result.OK:
			t.Errorf("%s: %v %q, want ok", k, e.Status, e.Message)
		}
	}
	if rep.WorkerRestarts < 1 {
		t.Errorf("%d worker restarts, want the crashed one", rep.WorkerRestarts)
	}
	checkShares(t, rep, 2)
	checkStoredDevices(t, db, rep)
}

// An interrupted run on two devices resumes on two devices: what was stored is not
// measured again, and the run ends with its budget's evaluations, each once.
func TestARunOnTwoDevicesResumesAfterAnInterruption(t *testing.T) {
	if !onPoCLDevices(t, "pthread pthread") {
		return
	}
	db := filepath.Join(t.TempDir(), "k.db")
	o := Options{SpecPath: vectorAddCL, Device: "opencl:0,opencl:1", Strategy: "random", Seed: 4, Budget: 12, DB: db}
	ctx, cancel := context.WithCancel(context.Background())
	first := o
	first.Progress = func(p Progress) {
		if p.Evaluations >= 4 {
			cancel()
		}
	}
	rep, err := Tune(ctx, first)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted: %v, want context.Canceled", err)
	}
	before := storedEvaluations(t, db, rep.Run)
	if len(before) < 4 || len(before) >= 12 {
		t.Fatalf("stored %d before the interruption, want 4 to 11", len(before))
	}
	rep2, err := Tune(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if rep2.Run != rep.Run || rep2.Resumed != len(before) || rep2.Resumed+rep2.Measured != 12 {
		t.Errorf("resumed run %d (of %d) with %d, measured %d; want %d resumed and 12 in all", rep2.Run, rep.Run, rep2.Resumed, rep2.Measured, len(before))
	}
	ks := keys(storedEvaluations(t, db, rep.Run))
	slices.Sort(ks)
	if len(ks) != 12 || len(slices.Compact(ks)) != 12 {
		t.Errorf("stored %d evaluations (%d distinct), want 12 distinct", len(ks), len(slices.Compact(ks)))
	}
}

// Devices whose names differ are refused before anything is stored, naming both, unless
// the run accepts them.
func TestDifferentDevicesAreRefusedUnlessAccepted(t *testing.T) {
	if !onPoCLDevices(t, "basic pthread") {
		return
	}
	db := filepath.Join(t.TempDir(), "k.db")
	o := Options{SpecPath: vectorAddCL, Device: "opencl:0,opencl:1", Strategy: "random", Budget: 3, DB: db, NoPrecompile: true}
	_, err := Tune(context.Background(), o)
	var me *DeviceMismatchError
	if !errors.As(err, &me) || !strings.Contains(err.Error(), "opencl:0 (basic") || !strings.Contains(err.Error(), "opencl:1 (pthread") {
		t.Fatalf("%v, want a DeviceMismatchError naming both", err)
	}
	if _, err := os.Stat(db); err == nil {
		t.Error("a refused run created its database")
	}
	o.MixedDevices = true
	rep, err := Tune(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Measured != 3 {
		t.Errorf("measured %d, want 3", rep.Measured)
	}
}

// markingWorker is a worker command that marks, in dir, that the worker of its device
// (0 or 1) started (started-N), then waits up to 10 s for the other device's worker to
// start too, marking alone-N if it did not, before it serves as the test binary.
func markingWorker(dir, more string) []string {
	script := `case "$*" in *"--device 1"*) d=1 o=0;; *) d=0 o=1;; esac
touch "$DIR/started-$d"
` + more + `
i=0
while [ ! -e "$DIR/started-$o" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
[ -e "$DIR/started-$o" ] || touch "$DIR/alone-$d"
exec "$0" "$@"`
	return []string{"/bin/sh", "-c", strings.ReplaceAll(script, "$DIR", dir), os.Args[0], WorkerArg}
}

// The devices' workers start at once: each device's first worker starts while the
// other's is starting, rather than after it has checked the arguments and computed the
// reference.
func TestDevicesStartAtOnce(t *testing.T) {
	if !onPoCLDevices(t, "pthread pthread") {
		return
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "k.db")
	rep, err := Tune(context.Background(), Options{SpecPath: vectorAddCL, Device: "opencl:0,opencl:1", Strategy: "random",
		Budget: 2, DB: db, NoPrecompile: true, WorkerCommand: markingWorker(dir, "")})
	if err != nil {
		t.Fatal(err)
	}
	for d := range 2 {
		if _, err := os.Stat(filepath.Join(dir, fmt.Sprintf("started-%d", d))); err != nil {
			t.Errorf("device %d's worker never started: %v", d, err)
		}
		if _, err := os.Stat(filepath.Join(dir, fmt.Sprintf("alone-%d", d))); err == nil {
			t.Errorf("device %d's worker started alone: the other device's started only after it", d)
		}
	}
	if rep.Measured != 2 {
		t.Errorf("measured %d, want 2", rep.Measured)
	}
}

// A device whose worker cannot start stops the run before anything is stored, its error
// naming that device, however the other device's start-up went.
func TestADeviceThatFailsToStartIsNamed(t *testing.T) {
	if !onPoCLDevices(t, "pthread pthread") {
		return
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "k.db")
	fail := `[ $d = 1 ] && { echo "device 1 is broken" >&2; exit 3; }`
	_, err := Tune(context.Background(), Options{SpecPath: vectorAddCL, Device: "opencl:0,opencl:1", Strategy: "random",
		Budget: 2, DB: db, NoPrecompile: true, WorkerCommand: markingWorker(dir, fail)})
	if err == nil || !strings.HasPrefix(err.Error(), "device opencl:1: ") || strings.Contains(err.Error(), "opencl:0") {
		t.Fatalf("%v, want an error naming device opencl:1 alone", err)
	}
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if runs, err := st.Runs(context.Background(), store.RunFilter{}); err != nil || len(runs) != 0 {
		t.Errorf("stored runs %v, %v; want none", runs, err)
	}
}
