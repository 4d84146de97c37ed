package dynamic_test

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ktune/ktune/dynamic"
	"github.com/ktune/ktune/spec"
)

// writesSpec is countSpec's y = alpha*x + y over the first n of N floats with planted
// writes to the input x after y is right: WRITES 1 zeroes x on every call, WRITES 2 only
// on a call whose count n is under N (4096). The objective, a rank the spec fixes, makes WRITES
// 2 the best, then WRITES 1, then the known-good WRITES 0, block_size_x 64 before 32.
const writesSpec = `
kernel:
  name: axpyw
  source: axpyw.cl
constants:
  N: 4096
parameters:
  - name: block_size_x
    values: [32, 64]
  - name: WRITES
    values: [0, 1, 2]
problem_size: [N]
arguments:
  - {name: y, type: float32, length: N, output: true, fill: random}
  - {name: x, type: float32, length: N, fill: random}
  - {name: alpha, type: float32, value: 2}
  - {name: n, type: int32, value: N}
metrics:
  - name: rank
    expr: "(3 - WRITES) * 10 - block_size_x / 32"
objective: rank
verification:
  reference:
    config: {block_size_x: 32, WRITES: 0}
iterations: 2
`

const writesKernel = `
__kernel void axpyw(__global float *y, __global float *x, const float alpha, const int n) {
    int k = get_global_id(0);
    if (k >= n) return;
    y[k] = alpha * x[k] + y[k];
    if (WRITES == 1 || (WRITES == 2 && n < 4096)) x[k] = 0.0f; /* planted: writes its input */
}
`

// A tried configuration that writes its input fails its tuning step, though its y is
// right, and a checked call after tuning finds the tuned configuration that writes it
// only on other data, naming the input; every call returns the right y.
func TestAConfigurationThatWritesItsInputIsFoundByTuningAndByChecks(t *testing.T) {
	openCL(t)
	dir := t.TempDir()
	for name, text := range map[string]string{"axpyw.yaml": writesSpec, "axpyw.cl": writesKernel} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := spec.Load(filepath.Join(dir, "axpyw.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	tu := newTuner(t, s, dynamic.Options{Budget: 6, Seed: 1, CheckOnChange: []string{"n"}})
	rng := rand.New(rand.NewPCG(5, 1))
	ctx := context.Background()
	const says = "input x was changed by the kernel: "
	var failedInTuning []string
	for call := range 5 { // the known-good configuration's baseline is the sixth
		data, want := countData(rng, axpyN)
		res, err := tu.Run(ctx, data)
		if err != nil {
			t.Fatalf("tuning call %d: %v", call, err)
		}
		checkY(t, call, res, want)
		writes := res.Tried[1].Float() == 1
		if writes != strings.Contains(res.Failure, "wrong_answer: "+says) {
			t.Errorf("tuning call %d tried %v: failure %q", call, fmtValues(res.Tried), res.Failure)
		}
		if writes {
			failedInTuning = append(failedInTuning, fmtValues(res.Tried))
		}
	}
	slices.Sort(failedInTuning)
	if want := []string{"32 1", "64 1"}; !slices.Equal(failedInTuning, want) {
		t.Errorf("tuning found %v writing x, want %v", failedInTuning, want)
	}
	if tu.Tuning() {
		t.Fatal("still tuning after the whole space")
	}
	if got := fmtValues(tu.Searches()[0].Running); got != "64 2" {
		t.Fatalf("tuning ended on %s, want 64 2, the best by rank that left x alone on its calls", got)
	}
	data, want := countData(rng, 4000)
	res, err := tu.Run(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	checkY(t, 5, res, want)
	var wrong []string
	for _, ce := range res.CheckErrors {
		wrong = append(wrong, fmtValues(ce.Config))
		if !strings.Contains(ce.Msg, says) || strings.Contains(ce.Msg, "output y") {
			t.Errorf("check error of %v: %q, want one naming input x alone", fmtValues(ce.Config), ce.Msg)
		}
	}
	if !res.Checked || !slices.Equal(wrong, []string{"64 2", "32 2"}) || fmtValues(res.Config) != "64 0" {
		t.Errorf("the check at n 4000: checked %v, found wrong %v, answered by %v; want 64 2 and 32 2 wrong, 64 0 answering", res.Checked, wrong, fmtValues(res.Config))
	}
}
