package dynamic_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	_ "github.com/ktune/ktune/device/hostc" // verification functions run on the host C backend
	"github.com/ktune/ktune/dynamic"
	"github.com/ktune/ktune/spec"
)

// orderSpec scales x into y, each work-group writing its block_size_x elements in
// order (reversed 0) or reversed (1): an output whose order does not matter to the
// application, which the spec says with a verification function that compares sums
// (same.c), not elements. bad 1 adds 1 to element 7, which the function catches.
const orderSpec = `
kernel:
  name: scale
  language: opencl
  code: |
    __kernel void scale(__global float *y, __global const float *x) {
        int i = get_global_id(0);
        int o = reversed ? get_group_id(0) * block_size_x + (block_size_x - 1 - get_local_id(0)) : i;
        y[o] = 2.0f * x[i] + (bad && i == 7 ? 1.0f : 0.0f);
    }
parameters:
  - {name: block_size_x, values: [32, 64]}
  - {name: reversed, values: [0, 1]}
  - {name: bad, values: [0, 1]}
problem_size: [1024]
arguments:
  - {name: y, type: float32, length: 1024, output: true}
  - {name: x, type: float32, length: 1024, fill: random}
verification:
  reference: {config: {block_size_x: 32, reversed: 0, bad: 0}}
  function: {name: same_sum, source: same.c}
  tolerance: 1e-9
iterations: 2
`

const sameSum = `#include <math.h>
#include <stdio.h>
int same_sum(const float *want, const float *got, long n, double tolerance, char *message, long message_size) {
    double w = 0, g = 0;
    for (long i = 0; i < n; i++) {
        w += want[i];
        g += got[i];
    }
    if (fabs(g - w) > tolerance * fabs(w)) {
        snprintf(message, (size_t)message_size, "the sum is %.1f, not %.1f", g, w);
        return 1;
    }
    return 0;
}
`

func orderScale(t *testing.T, function string) *spec.Spec {
	t.Helper()
	openCL(t)
	return loadSpec(t, "scale.yaml", map[string]string{"scale.yaml": orderSpec, "same.c": function})
}

// A spec's verification function judges the tried configurations of a dynamic tuner as
// it judges offline tuning's: the reversed configurations, which no element-wise
// comparison would pass, agree by the function's sums, and the bad ones fail with the
// function's own message. The application gets y in some order, with the right sum.
func TestAVerificationFunctionJudgesTriedConfigurations(t *testing.T) {
	s := orderScale(t, sameSum)
	tu := newTuner(t, s, dynamic.Options{Budget: 8, Seed: 1}) // the whole space
	rng := rand.New(rand.NewPCG(3, 1))
	var agreed, wrong []string
	for call := range 8 {
		x := make([]float32, 1024)
		want := make([]float32, 1024)
		for i := range x {
			x[i] = float32(rng.IntN(1000)) / 4
			want[i] = 2 * x[i]
		}
		res, err := tu.Run(context.Background(), dynamic.Data{"x": x})
		if err != nil {
			t.Fatal(err)
		}
		got, err := res.Float32s("y")
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("call %d (%v): y is not 2x in any order", call, res.Config)
		}
		if !res.Tuning {
			continue
		}
		tried := fmtValues(res.Tried)
		switch {
		case res.Failure == "":
			agreed = append(agreed, tried)
		case strings.Contains(res.Failure, "wrong_answer") && strings.Contains(res.Failure, "the verification function same_sum (same.c) returned 1: the sum is"):
			wrong = append(wrong, tried)
		default:
			t.Errorf("call %d tried %s: %s", call, tried, res.Failure)
		}
	}
	slices.Sort(agreed)
	slices.Sort(wrong)
	if want := []string{"32 1 0", "64 0 0", "64 1 0"}; !slices.Equal(agreed, want) {
		t.Errorf("agreed: %q; want %q (the reversed ones by the function's sums)", agreed, want)
	}
	if want := []string{"32 0 1", "32 1 1", "64 0 1", "64 1 1"}; !slices.Equal(wrong, want) {
		t.Errorf("found wrong: %q; want %q", wrong, want)
	}
}

// A verification function that does not build is an error of New, naming it.
func TestAVerificationFunctionThatDoesNotBuildStopsNew(t *testing.T) {
	s := orderScale(t, strings.Replace(sameSum, "double w = 0", "double w = 0 +", 1))
	tu, err := dynamic.New(context.Background(), s, dynamic.Options{Backend: "opencl"})
	if err == nil {
		tu.Close()
	}
	if err == nil || !strings.Contains(err.Error(), "the verification function same_sum (same.c) does not compile") {
		t.Fatalf("New: %v; want an error naming the function that does not compile", err)
	}
}
