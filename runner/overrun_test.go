package runner_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/spec"
)

// TestAnOutputShorterThanTheKernelWritesIsARuntimeError: a spec whose output y is two
// elements shorter than the N the kernel writes was "verified" on the host C backend,
// the writes landing in the slack of y's mapping. Every configuration is a runtime error
// naming y, the reference's included (verification has nothing to compare with), and the
// configuration after them, with a spec that fits, is not blamed for what they left.
func TestAnOutputShorterThanTheKernelWritesIsARuntimeError(t *testing.T) {
	dev := openHost(t)
	for _, c := range []struct {
		name, length string
		want         result.Status
		says         string
	}{
		{"two elements short", "N - 2", result.RuntimeError,
			"the kernel wrote past the end of argument y (998 elements of float64): its length in the spec is too small or the kernel overruns it"},
		{"as long as written", "N", result.OK, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := spec.Parse([]byte(`
kernel: {name: axpy, language: c, code: "void axpy(double *y, const double *x, int n) { for (int i = 0; i < n; i++) y[i] = 2.0 * x[i] + (double)k; }"}
constants: {N: 1000}
parameters: [{name: k, values: [1, 2]}]
problem_size: [N]
arguments:
  - {name: y, type: float64, length: `+c.length+`, output: true}
  - {name: x, type: float64, length: N, fill: random}
  - {name: n, type: int32, value: N}
iterations: 3
`), "overrun_test.yaml")
			if err != nil {
				t.Fatal(err)
			}
			r, sp := runnerFor(t, s, dev)
			for _, k := range []int64{1, 2, 1} {
				cfg, err := sp.ConfigOf([]space.Value{space.IntValue(k)})
				if err != nil {
					t.Fatal(err)
				}
				e := r.Evaluate(context.Background(), cfg, nil)
				if e.Status != c.want || !strings.Contains(e.Message, c.says) {
					t.Fatalf("k=%d: %v %q, want %v saying %q", k, e.Status, e.Message, c.want, c.says)
				}
				r.Idle()
			}
		})
	}
}
