package dynamic_test

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ktune/ktune/dynamic"
	"github.com/ktune/ktune/spec"
)

// refAxpy is the tests' axpy (axpySpec) with a reference kernel of its own, refKernel.
func refAxpy(t *testing.T, refKernel string) *spec.Spec {
	t.Helper()
	openCL(t)
	const config = "    config: {block_size_x: 32, tile_size_x: 1}\n"
	text := strings.Replace(axpySpec, config, config+"    kernel: {name: axpy_ref, source: ref.cl, block: [64]}\n", 1)
	if text == axpySpec {
		t.Fatal("axpySpec no longer has the reference config this test adds a kernel after")
	}
	return loadSpec(t, "axpy.yaml", map[string]string{"axpy.yaml": text, "axpy.cl": axpyKernel, "ref.cl": refKernel})
}

// A reference kernel of the spec's own is checked when the tuner is made, not at a
// call: one that does not compile, or declares parameters the spec's arguments do not
// fit, or fails when it runs, makes New fail with an error naming it and what is wrong;
// a good one lets tuning go on as before.
func TestTheReferenceKernelIsCheckedWhenTheTunerIsMade(t *testing.T) {
	for _, tc := range []struct {
		name, kernel string
		says         []string // "" for none: New succeeds
	}{
		{"good", `__kernel void axpy_ref(__global float *y, __global const float *x, const float alpha, const int n) {
    int i = get_global_id(0);
    if (i < n) y[i] = alpha * x[i] + y[i];
}`, nil},
		{"does not compile", `__kernel void axpy_ref(__global float *y, __global const float *x, const float alpha, const int n) {
    int i = get_global_id(0)
    if (i < n) y[i] = alpha * x[i] + y[i];
}`, []string{"axpy.yaml", "verification", "the reference kernel axpy_ref does not compile", "ref.cl"}},
		{"wrong arguments", `__kernel void axpy_ref(__global float *y, __global const float *x, const int n) {
    int i = get_global_id(0);
    if (i < n) y[i] = 2.0f * x[i] + y[i];
}`, []string{"axpy.yaml:14: arguments: 4 in the spec, but the reference kernel axpy_ref takes 3", "no parameter for n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := refAxpy(t, tc.kernel)
			tu, err := dynamic.New(context.Background(), s, dynamic.Options{Backend: "opencl", Budget: 3, Seed: 1})
			if tc.says != nil {
				if tu != nil {
					tu.Close()
				}
				t.Log(err)
				for _, want := range tc.says {
					if err == nil || !strings.Contains(err.Error(), want) {
						t.Fatalf("New: %v; want an error saying %q", err, want)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer tu.Close()
			rng := rand.New(rand.NewPCG(2, 2))
			for call := range 4 {
				data, want := appData(rng)
				res, err := tu.Run(context.Background(), data)
				if err != nil {
					t.Fatal(err)
				}
				checkY(t, call, res, want)
			}
		})
	}
}
