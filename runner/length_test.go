package runner_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/spec"
)

// An output whose length reads a tunable parameter has another length at every
// configuration where the parameter differs from the reference's: verification fails
// there, and its message blames the spec, in elements, naming the output, its length
// expression and what it reads, and where the reference came from. It is the same at every
// configuration that fails so (tuning stops early on one failure of the spec).
func TestAnOutputLengthThatDependsOnTheConfigurationIsNamedAsTheFault(t *testing.T) {
	dev := openHost(t)
	dir := t.TempDir()
	npy := filepath.Join(dir, "x.npy")
	if err := spec.WriteNPYFile(npy, &spec.Array{Type: "float32", Shape: []int{100001}, Data: make([]byte, 4*100001)}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, reference string
		want            string
	}{
		{"a reference configuration", "config: {factor: 1}",
			"output x: its length, N + factor, depends on the configuration (it reads factor) and differs here from the reference's 100001 elements, computed at factor=1; " +
				"verification compares whole outputs, so give x a length (in elements) that is the same for every configuration"},
		{"a reference file", "npy: {x: " + npy + "}",
			"output x: its length, N + factor, depends on the configuration (it reads factor) and differs here from the 100001 elements of the reference file x.npy; "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := spec.Parse([]byte(`
kernel: {name: scale, language: c, code: "`+kernel+`"}
constants: {N: 100000}
parameters: [{name: factor, values: [1, 2, 3]}]
problem_size: [N]
arguments:
  - {name: x, type: float32, length: N + factor, fill: random, output: true}
  - {name: n, type: int32, value: N}
verification:
  reference: {`+tc.reference+`}
iterations: 1
`), filepath.Join(dir, "length.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			r, sp := runnerFor(t, s, dev)
			var msgs []string
			for i := 1; i < 3; i++ { // factor 2 and 3
				e := r.Evaluate(context.Background(), sp.At(i, nil), nil)
				if e.Status != result.WrongAnswer || !strings.HasPrefix(e.Message, tc.want) || strings.Contains(e.Message, "bytes") {
					t.Errorf("factor=%d: %v %q\nwant wrong_answer, the message starting %q", i+1, e.Status, e.Message, tc.want)
				}
				msgs = append(msgs, e.Message)
			}
			if msgs[0] != msgs[1] {
				t.Errorf("the configurations that fail so give different messages:\n%s\n%s", msgs[0], msgs[1])
			}
		})
	}
}
